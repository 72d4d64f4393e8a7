/*
 * resp: what a handler fills for its answer: a status, a body (JSON, or an
 * error naming the field) and a few headers; http.c sends it. karte's
 * error kinds (enum kerr_code) become HTTP statuses here alone.
 */
#ifndef KARTE_RESP_H
#define KARTE_RESP_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/jsonw.h"
#include "core/kerr.h"

#define HTTP_ANSWER_MAX (16u << 20)	/* no answer is larger: 413 naming what to narrow */

struct resp {
	int status;
	char *body;		  /* malloc'd, freed by http.c; NULL for none */
	size_t len;
	const char *content_type; /* static string */
	char allow[32];		  /* Allow header of a 405 */
	const char *cache;	  /* Cache-Control, static; NULL for no-store */
	const char *location;	  /* Location header, static or NULL */
	unsigned retry_after;	  /* Retry-After seconds of a 503; 0 for none */
	char *frame;		  /* X-Karte-Frame of a report (malloc'd JSON) or NULL */
	char *next;		  /* X-Karte-Next of an export page (malloc'd) or NULL */
	char *link;		  /* Link header, rel="next" of a page (malloc'd) or NULL */
	uint64_t request_id;	  /* set by http.c (0: none): named in 5xx answers and the log */
	char *log;		  /* what the log says of a 5xx beyond its answer: the
				   * store's own text (malloc'd, freed by http.c) or NULL */
};

/* The request id as karted writes it (16 hex digits) into buf[17]. */
const char *resp_request_id(const struct resp *rs, char buf[17]);

/* Fill rs with a JSON body (steals body, a new reference) and status. An
 * answer over HTTP_ANSWER_MAX becomes a 413 saying so, and a body that
 * cannot be written (NULL: a json_pack that failed) a 500: never an empty
 * 200. The text is written into a bounded buffer, never past the cap. */
void resp_json(struct resp *rs, int status, json_t *body);

/* Fill rs with the JSON text w wrote (taken; w is left empty), given a
 * writer made with jw_init(w, HTTP_ANSWER_MAX): a text that went over
 * becomes the 413 of resp_json. */
void resp_jw(struct resp *rs, int status, struct jw *w);

/* x as a JSON number, or null when it is not finite (jansson refuses
 * NaN and infinities; an answer must still be written). */
json_t *json_finite(double x);

/* Fill rs with {"error", "field", "index"} from err (status err->code).
 * A 5xx also names the request id ("request_id"), and err->detail goes
 * to the log, never into the answer; a 503 gets Retry-After. */
void resp_error(struct resp *rs, const struct kerr *err);

/* ids (each >= 1) as decimal numbers between commas at out, no
 * terminator; the bytes written (at most 21 per id). printf's format
 * parsing cost more than the rest of a POST's answer. */
size_t resp_put_ids(char *out, const int64_t *ids, size_t n);

/* resp_error with more members in the error object (extra is stolen; NULL for none). */
void resp_error_with(struct resp *rs, const struct kerr *err, json_t *extra);

/* Fill rs with a 400 {"error", "field", "index"} (index -1: none);
 * returns -1, so a handler can return it. */
int resp_field_errorf(struct resp *rs, const char *field, long index, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The same with another status: 413 for a limit or a product of two, 421
 * for a Host not served. */
int resp_field_statusf(struct resp *rs, int status, const char *field, long index,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Fill rs with {"error": msg} and status. */
void resp_errorf(struct resp *rs, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
