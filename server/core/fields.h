/*
 * fields: inputs read by name through one table of field specs, from text
 * (a query string, command line options) or from a JSON object (a body):
 * the one way karted's handlers and karte's options read their inputs.
 * Each bad value is an error naming the field (and the item of a list), a
 * missing FIELD_REQUIRED one too; an absent optional field leaves its out
 * alone.
 */
#ifndef KARTE_FIELDS_H
#define KARTE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "kerr.h"

enum field_kind {
	FIELD_NUMBER,		/* double *: a finite number in [lo, hi] */
	FIELD_INTEGER,		/* int64_t *: a whole number in [lo, hi] */
	FIELD_BOOL,		/* bool *: true or false */
	FIELD_TEXT,		/* const char **: borrowed (from the query, or the body); of
				 * lo to hi bytes when hi > 0 */
	FIELD_NUMBERS,		/* struct numbers *: 1 to max numbers in [lo, hi]; a query
				 * writes them "1,2,3" */
	FIELD_ARRAY,		/* json_t **: a body's array of lo to hi items, borrowed */
};

enum field_flags {
	FIELD_REQUIRED = 1,
	FIELD_ABOVE_LO = 2,	/* lo itself is out: (lo, hi] */
};

/* The numbers of a FIELD_NUMBERS field: v malloc'd (free it), n of them. */
struct numbers {
	double *v;
	size_t n;
};

struct field {
	const char *name;
	enum field_kind kind;
	unsigned flags;
	double lo, hi;
	void *out;
	size_t max;		/* FIELD_NUMBERS: at most this many */
};

#define FIELDS(table) (table), sizeof(table) / sizeof((table)[0])


/* A text value by name (NULL: absent), e.g. a query string parameter. */
typedef const char *field_text_fn(void *ctx, const char *key);

/* Read every field of f[0, n) from body (a JSON object), or, when body is
 * NULL, from the text values get(ctx, name). 0, or -1 with err
 * (KERR_INVALID, naming the field) on the first bad one; numbers read
 * before it are freed. */
int fields_get(field_text_fn *get, void *ctx, json_t *body, const struct field *f, size_t n,
	       struct kerr *err);

/* fields_get of a body that holds these fields only: a key not in f is an
 * error naming it. */
int fields_only(json_t *body, const struct field *f, size_t n, struct kerr *err);

/* The fields of one item of a list (only: and no others): a bad one is
 * named prefix + its name ("regions[2].f_opt", "modules.p_max"), at index. */
int fields_in(json_t *item, const char *prefix, long index, const struct field *f, size_t n,
	      bool only, struct kerr *err);

#endif
