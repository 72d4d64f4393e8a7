#include "jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "xalloc.h"

void jw_init(struct jw *w, size_t max)
{
	*w = (struct jw){.max = max};
}

void jw_free(struct jw *w)
{
	free(w->buf);
	jw_init(w, w->max);
}

char *jw_take(struct jw *w, size_t *len)
{
	char *text = w->over ? NULL : w->buf ? w->buf : xstrdup("");

	if (text == w->buf && text)
		text[w->len] = '\0';	/* room() kept a byte for it */
	if (len)
		*len = text ? w->len : 0;
	if (!text)
		free(w->buf);
	jw_init(w, w->max);
	return text;
}

static char *grow(struct jw *w, size_t n)
{
	if (w->over)
		return NULL;
	if (n >= w->max - w->len) {	/* the text and its NUL within max */
		w->over = true;
		return NULL;
	}
	w->cap = w->cap ? w->cap : 4096;
	while (w->cap < w->len + n + 1)
		w->cap *= 2;
	if (w->cap > w->max)	/* len + n + 1 <= max: see above */
		w->cap = w->max;
	w->buf = xrealloc(w->buf, w->cap);
	return w->buf + w->len;
}

/* Room for n more bytes and a NUL at the end of the text, or NULL (w
 * over its max); the caller writes there and adds what it wrote to len.
 * cap never passes max, so room within cap is room within max. */
static inline char *room(struct jw *w, size_t n)
{
	if (!w->over && w->buf && n < w->cap - w->len)
		return w->buf + w->len;
	return grow(w, n);
}

static void put(struct jw *w, const char *s, size_t n)
{
	char *at = room(w, n);

	if (!at)
		return;
	memcpy(at, s, n);
	w->len += n;
}

/* Before a value or a key: the comma when its container has a member,
 * and room for the n bytes after it; where they go, or NULL (w over its
 * max). */
static char *begin(struct jw *w, size_t n)
{
	bool comma = false;
	uint64_t bit;
	char *at;

	if (w->keyed) {
		w->keyed = false;
	} else if (w->depth) {
		bit = (uint64_t)1 << w->depth;
		comma = (w->more & bit) != 0;
		w->more |= bit;
	}
	if (!(at = room(w, n + comma)))
		return NULL;
	if (comma) {
		*at++ = ',';
		w->len++;
	}
	return at;
}

/* The comma alone, before a value written piece by piece. */
static void sep(struct jw *w)
{
	(void)begin(w, 0);
}

static void put_string(struct jw *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;
	char esc[7];

	put(w, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *e = NULL;
		size_t el = 2;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		if (c == '"')
			e = "\\\"";
		else if (c == '\\')
			e = "\\\\";
		else if (c == '\n')
			e = "\\n";
		else if (c == '\r')
			e = "\\r";
		else if (c == '\t')
			e = "\\t";
		else if (c == '\b')
			e = "\\b";
		else if (c == '\f')
			e = "\\f";
		else {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			e = esc;
			el = 6;
		}
		put(w, s + run, i - run);
		put(w, e, el);
		run = i + 1;
	}
	put(w, s + run, n - run);
	put(w, "\"", 1);
}

static void put_real(struct jw *w, double v)
{
	char *at;

	if (!isfinite(v))
		put(w, "null", 4);
	else if ((at = room(w, NUM_TEXT_MAX + 2)))
		w->len += num_shortest(v, at, true);
}

static void put_int(struct jw *w, int64_t v)
{
	char *at = room(w, 24);

	if (at)
		w->len += num_int(v, at);
}

static void put_value(struct jw *w, const json_t *v, int depth)
{
	const char *key;
	json_t *item;
	size_t i;
	int first;

	if (depth > 2048) {	/* jansson's parser limits depth likewise */
		w->over = true;
		return;
	}
	switch (v ? json_typeof(v) : JSON_NULL) {
	case JSON_OBJECT:
		put(w, "{", 1);
		first = 1;
		json_object_foreach((json_t *)v, key, item) {
			if (!first)
				put(w, ",", 1);
			first = 0;
			put_string(w, key, strlen(key));
			put(w, ":", 1);
			put_value(w, item, depth + 1);
		}
		put(w, "}", 1);
		break;
	case JSON_ARRAY:
		put(w, "[", 1);
		json_array_foreach(v, i, item) {
			if (i)
				put(w, ",", 1);
			put_value(w, item, depth + 1);
		}
		put(w, "]", 1);
		break;
	case JSON_STRING:
		put_string(w, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		put_int(w, json_integer_value(v));
		break;
	case JSON_REAL:
		put_real(w, json_real_value(v));
		break;
	case JSON_TRUE:
		put(w, "true", 4);
		break;
	case JSON_FALSE:
		put(w, "false", 5);
		break;
	default:
		put(w, "null", 4);
		break;
	}
}

void jw_open(struct jw *w, char c)
{
	sep(w);
	if (w->depth + 1 > JW_DEPTH_MAX) {
		w->over = true;
		return;
	}
	put(w, &c, 1);
	w->depth++;
	w->more &= ~((uint64_t)1 << w->depth);
}

void jw_close(struct jw *w, char c)
{
	if (w->depth)
		w->depth--;
	put(w, &c, 1);
}

void jw_keyn(struct jw *w, const char *key, size_t n)
{
	size_t i;
	char *at;

	for (i = 0; i < n; i++)
		if ((unsigned char)key[i] < 0x20 || key[i] == '"' || key[i] == '\\')
			break;
	if (i < n) {	/* a key that needs escapes */
		sep(w);
		put_string(w, key, n);
		put(w, ":", 1);
	} else if ((at = begin(w, n + 3))) {	/* ,"key": in one piece */
		at[0] = '"';
		memcpy(at + 1, key, n);
		memcpy(at + 1 + n, "\":", 2);
		w->len += n + 3;
	}
	w->keyed = true;
}

void jw_real(struct jw *w, double v)
{
	char *at;

	if (!isfinite(v))
		jw_null(w);
	else if ((at = begin(w, NUM_TEXT_MAX + 2)))
		w->len += num_shortest(v, at, true);
}

void jw_int(struct jw *w, int64_t v)
{
	char *at = begin(w, 24);

	if (at)
		w->len += num_int(v, at);
}

void jw_str(struct jw *w, const char *s)
{
	sep(w);
	put_string(w, s, strlen(s));
}

void jw_bool(struct jw *w, bool b)
{
	char *at = begin(w, 5);

	if (at) {
		memcpy(at, b ? "true" : "false", b ? 4 : 5);
		w->len += b ? 4 : 5;
	}
}

void jw_null(struct jw *w)
{
	char *at = begin(w, 4);

	if (at) {
		memcpy(at, "null", 4);
		w->len += 4;
	}
}

void jw_value(struct jw *w, const json_t *v)
{
	sep(w);
	put_value(w, v, 0);
}

void jw_value_new(struct jw *w, json_t *v)
{
	jw_value(w, v);
	json_decref(v);
}

void jw_splice(struct jw *w, struct jw *part)
{
	sep(w);
	if (part->over)
		w->over = true;
	else
		put(w, part->buf ? part->buf : "null", part->buf ? part->len : 4);
	jw_free(part);
}

char *jsonw_string(const json_t *v, size_t *len)
{
	struct jw w;
	char *text;

	if (!v)
		return NULL;
	jw_init(&w, SIZE_MAX);
	jw_value(&w, v);
	text = jw_take(&w, len);	/* NULL only past jansson's own depth */
	if (!text) {
		text = xstrdup("null");
		if (len)
			*len = 4;
	}
	return text;
}
