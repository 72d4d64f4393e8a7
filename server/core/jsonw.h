/*
 * jsonw: jansson values written as compact JSON, as json_dumps() with
 * JSON_COMPACT does (object members in insertion order, UTF-8 as it is,
 * control characters escaped), except numbers: a real is written in the
 * shortest form that reads back to the same double (num.h), where jansson
 * writes %.17g (2535.0500000000002).
 */
#ifndef KARTE_JSONW_H
#define KARTE_JSONW_H

#include <jansson.h>
#include <stddef.h>

/* Write v through out(text, len, ctx), in pieces; -1 as soon as out
 * returns non-zero (a cap), else 0. */
int jsonw(const json_t *v, int (*out)(const char *s, size_t n, void *ctx), void *ctx);

/* v as a malloc'd NUL-terminated string (*len its length, may be NULL);
 * NULL for v NULL. */
char *jsonw_string(const json_t *v, size_t *len);

#endif
