/*
 * kerr: the caller-owned error a library function fills for a person to read.
 * Only main() and http.c decide how to show it (log line, HTTP status, exit).
 * `code` is an HTTP-like status (400 bad input, 404 missing, 500 internal);
 * `field` and `index` locate bad input in a request (empty / -1 when unknown).
 */
#ifndef KARTE_KERR_H
#define KARTE_KERR_H

#include <stdarg.h>

struct kerr {
	int code;		/* 0 when no error was set */
	char field[64];		/* API field name, "" when none applies */
	long index;		/* item index in a batch, -1 when none applies */
	char msg[256];		/* one sentence for a person */
};

/* Reset to "no error". */
void kerr_clear(struct kerr *err);

/* Set code and message (printf format); field and index untouched.
 * Returns -1 so callers can `return kerr_set(...)`. Accepts err == NULL. */
int kerr_set(struct kerr *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* As kerr_set, with the arguments in ap. */
int kerr_vset(struct kerr *err, int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* As kerr_set, naming the field too. */
int kerr_field(struct kerr *err, int code, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
