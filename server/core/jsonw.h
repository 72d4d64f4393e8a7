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
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "num.h"

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

/* The writers of one token each are inline below: a large answer is tens
 * of thousands of them (1,000 isoefficiency points: 26,000 keys), and a
 * call each to another file cost a third of writing it. Their slow sides,
 * not for callers: */
char *jw_grow_(struct jw *w, size_t n);	/* room past cap, or NULL (over) */
char *jw_over_(struct jw *w);		/* w over for good: NULL */
void jw_key_escaped_(struct jw *w, const char *key, size_t n);

/* Room for n more bytes and a NUL after the text, or NULL (w over its
 * max): the caller writes there and adds what it wrote to len. cap is 0
 * without a buffer and equals len once over, so one test covers both. */
static inline char *jw_room_(struct jw *w, size_t n)
{
	if (n < w->cap - w->len)
		return w->buf + w->len;
	return jw_grow_(w, n);
}

/* Before a value or a key: the comma when its container has a member,
 * and room for the n bytes after it; where they go, or NULL. */
static inline char *jw_begin_(struct jw *w, size_t n)
{
	uint64_t bit = (uint64_t)1 << w->depth;
	bool comma = !w->keyed && w->depth && (w->more & bit) != 0;
	char *at;

	if (!w->keyed)
		w->more |= bit;	/* bit 0 (depth 0, no container) is never read */
	w->keyed = false;
	if (!(at = jw_room_(w, n + 1)))
		return NULL;
	*at = ',';
	w->len += comma;
	return at + comma;
}

static inline void jw_put_(struct jw *w, const char *s, size_t n)
{
	char *at = jw_room_(w, n);

	if (at) {
		memcpy(at, s, n);
		w->len += n;
	}
}

static inline void jw_open(struct jw *w, char c)	/* '{' or '[' */
{
	char *at = jw_begin_(w, 1);

	if (w->depth + 1 > JW_DEPTH_MAX) {
		(void)jw_over_(w);
		return;
	}
	if (at) {
		*at = c;
		w->len++;
	}
	w->depth++;
	w->more &= ~((uint64_t)1 << w->depth);
}

static inline void jw_close(struct jw *w, char c)	/* '}' or ']' */
{
	if (w->depth)
		w->depth--;
	jw_put_(w, &c, 1);
}

/* The characters a key or string must escape, but NUL (which ends one). */
#define JW_ESCAPES                                                                                  \
	"\"\\\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15" \
	"\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"

/* ,"key": in one piece (a key that needs no escapes) */
static inline void jw_key_plain_(struct jw *w, const char *key, size_t n)
{
	char *at = jw_begin_(w, n + 3);

	if (at) {
		at[0] = '"';
		memcpy(at + 1, key, n);
		memcpy(at + 1 + n, "\":", 2);
		w->len += n + 3;
	}
	w->keyed = true;
}

/* A key of n bytes (a NUL among them is escaped). */
static inline void jw_keyn(struct jw *w, const char *key, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)key[i] < 0x20 || key[i] == '"' || key[i] == '\\')
			break;
	if (i < n)
		jw_key_escaped_(w, key, n);
	else
		jw_key_plain_(w, key, n);
}

/* A key: for a literal the compiler decides at build time whether it
 * needs escapes (strlen and strcspn of constants are constants). */
static inline void jw_key(struct jw *w, const char *key)
{
	size_t n = strlen(key);

	if (strcspn(key, JW_ESCAPES) != n)
		jw_key_escaped_(w, key, n);
	else
		jw_key_plain_(w, key, n);
}

static inline void jw_null(struct jw *w)
{
	char *at = jw_begin_(w, 4);

	if (at) {
		memcpy(at, "null", 4);
		w->len += 4;
	}
}

static inline void jw_real(struct jw *w, double v)	/* as jansson's reals ("4.0"); null when not finite */
{
	char *at;

	if (!isfinite(v))
		jw_null(w);
	else if ((at = jw_begin_(w, NUM_TEXT_MAX + 2)))
		w->len += num_shortest(v, at, true);
}

static inline void jw_int(struct jw *w, int64_t v)
{
	char *at = jw_begin_(w, 24);

	if (at)
		w->len += num_int(v, at);
}

static inline void jw_bool(struct jw *w, bool b)
{
	char *at = jw_begin_(w, 5);

	if (at) {
		memcpy(at, b ? "true" : "false", b ? 4 : 5);
		w->len += b ? 4 : 5;
	}
}

void jw_str(struct jw *w, const char *s);
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
