/*
 * kerr: the caller-owned error a library function fills for a person to read.
 * Only main() and http/resp.c decide how to show it (a log line, an HTTP
 * status, an exit code): `code` is karte's own kind of failure (enum
 * kerr_code), which resp.c alone maps to HTTP. `field` and `index` locate
 * bad input in a request (empty / -1 when unknown). `detail` is text for
 * the operator's log only, never for a client: a database's own message,
 * which may name its host and port.
 */
#ifndef KARTE_KERR_H
#define KARTE_KERR_H

#include <stdarg.h>
#include <stddef.h>

/* What went wrong, whoever reads it (a request, a command line). */
enum kerr_code {
	KERR_NONE = 0,		/* no error was set */
	KERR_INVALID,		/* the input is wrong: a field, a line, a value (HTTP 400) */
	KERR_NOT_FOUND,		/* what was asked for does not exist (404) */
	KERR_TOO_LARGE,		/* the input passes one of karte's limits (413) */
	KERR_STORE,		/* the store failed (unreachable, I/O, refused): try again (503) */
	KERR_INTERNAL,		/* karte's own fault (500) */
};

struct kerr {
	int code;		/* enum kerr_code; KERR_NONE (0) when no error was set */
	char field[64];		/* API field name, "" when none applies */
	long index;		/* item index in a batch, -1 when none applies */
	char msg[1024];		/* one sentence for a person: room for the names it lists whole */
	char detail[256];	/* for the log only ("" when none): see above */
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

/* A failure of the store while doing `what` ("listing runs"): code
 * KERR_STORE, a message that names only what karted was doing, and the
 * database's own text in detail. Returns -1. Accepts err == NULL. */
int kerr_store(struct kerr *err, const char *what, const char *detail);

/* msg, and detail in parentheses when there is one, into buf (for a log
 * line or a command line tool's message); returns buf. */
const char *kerr_full(const struct kerr *err, char *buf, size_t size);

/* kerr_full into a buffer of the enclosing block, for a log line:
 * fprintf(stderr, "karted: %s\n", KERR_TEXT(&err)). */
#define KERR_TEXT(e) kerr_full((e), (char[600]){0}, 600)

#endif
