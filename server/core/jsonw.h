/*
 * jsonw: JSON written as it goes into a growing buffer with a cap, either
 * member by member (jw_open, jw_key, jw_real, ..., jw_close: a large answer
 * without a jansson tree behind it) or from a jansson value (jw_value), as
 * json_dumps() with JSON_COMPACT writes it (object members in insertion
 * order, UTF-8 as it is, control characters escaped), except numbers: a
 * real is written in the shortest form that reads back to the same double
 * (num.h), where jansson writes %.17g (2535.0500000000002).
 */
#ifndef KARTE_JSONW_H
#define KARTE_JSONW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define JW_DEPTH_MAX 60		/* containers jw_open may nest */

struct jw {
	char *buf;		/* the text so far (malloc'd; NUL-terminated by jw_take), or NULL */
	size_t len, cap;
	size_t max;		/* the text never passes it: over is set and writing stops */
	bool over;		/* max was reached (or nesting passed JW_DEPTH_MAX) */
	bool keyed;		/* a key was written: its value follows it, no comma */
	unsigned depth;		/* containers open */
	uint64_t more;		/* bit d: the container at depth d has a member already */
};

/* An empty writer whose text stays within max bytes. */
void jw_init(struct jw *w, size_t max);
void jw_free(struct jw *w);

/* The text (malloc'd, NUL-terminated, *len its length if len is not NULL)
 * handed over, w empty again; NULL when it went over its max. */
char *jw_take(struct jw *w, size_t *len);

void jw_open(struct jw *w, char c);	/* '{' or '[' */
void jw_close(struct jw *w, char c);	/* '}' or ']' */
void jw_keyn(struct jw *w, const char *key, size_t n);
static inline void jw_key(struct jw *w, const char *key)	/* a literal's length is known */
{
	jw_keyn(w, key, strlen(key));
}
void jw_real(struct jw *w, double v);	/* as jansson's reals ("4.0"); null when not finite */
void jw_int(struct jw *w, int64_t v);
void jw_str(struct jw *w, const char *s);
void jw_bool(struct jw *w, bool b);
void jw_null(struct jw *w);
/* A jansson value (NULL: null); jw_value_new also drops the reference. */
void jw_value(struct jw *w, const json_t *v);
void jw_value_new(struct jw *w, json_t *v);
/* part's text, written apart as one whole value, as the next value of w;
 * part is emptied (and w goes over when part did). */
void jw_splice(struct jw *w, struct jw *part);

/* v as a malloc'd NUL-terminated string (*len its length, may be NULL);
 * NULL for v NULL. */
char *jsonw_string(const json_t *v, size_t *len);

#endif
