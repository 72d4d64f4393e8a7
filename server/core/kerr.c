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
	err->detail[0] = '\0';
}

int kerr_vset(struct kerr *err, int code, const char *fmt, va_list ap)
{
	if (!err)
		return -1;
	err->code = code;
	err->detail[0] = '\0';
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

int kerr_store(struct kerr *err, const char *what, const char *detail)
{
	size_t n;

	if (!err)
		return -1;
	err->code = KERR_STORE;
	err->field[0] = '\0';
	snprintf(err->msg, sizeof(err->msg), "the database failed while %s; try again later", what);
	snprintf(err->detail, sizeof(err->detail), "%s", detail ? detail : "");
	/* libpq ends its messages with a newline */
	n = strlen(err->detail);
	while (n && (err->detail[n - 1] == '\n' || err->detail[n - 1] == ' '))
		err->detail[--n] = '\0';
	for (n = 0; err->detail[n]; n++)
		if (err->detail[n] == '\n')
			err->detail[n] = ' ';
	return -1;
}

const char *kerr_full(const struct kerr *err, char *buf, size_t size)
{
	if (err->detail[0])
		snprintf(buf, size, "%s (%s)", err->msg, err->detail);
	else
		snprintf(buf, size, "%s", err->msg);
	return buf;
}
