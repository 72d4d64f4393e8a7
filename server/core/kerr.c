#include "kerr.h"

#include <stdio.h>
#include <string.h>

void kerr_clear(struct kerr *err)
{
	if (!err)
		return;
	err->code = 0;
	err->field[0] = '\0';
	err->index = -1;
	err->msg[0] = '\0';
}

int kerr_vset(struct kerr *err, int code, const char *fmt, va_list ap)
{
	if (!err)
		return -1;
	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return -1;
}

int kerr_set(struct kerr *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	kerr_vset(err, code, fmt, ap);
	va_end(ap);
	return -1;
}

int kerr_field(struct kerr *err, int code, const char *field, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	snprintf(err->field, sizeof(err->field), "%s", field);
	va_start(ap, fmt);
	kerr_vset(err, code, fmt, ap);
	va_end(ap);
	return -1;
}
