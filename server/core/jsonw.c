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
		text[w->len] = '\0';	/* jw_room_ kept a byte for it */
	if (len)
		*len = text ? w->len : 0;
	if (!text)
		free(w->buf);
	jw_init(w, w->max);
	return text;
}

/* cap goes to len once over: jw_room_'s one test then fails for good */
char *jw_over_(struct jw *w)
{
	w->over = true;
	w->cap = w->len;
	return NULL;
}

char *jw_grow_(struct jw *w, size_t n)
{
	if (w->over)
		return NULL;
	if (n >= w->max - w->len)	/* the text and its NUL within max */
		return jw_over_(w);
	w->cap = w->cap ? w->cap : 4096;
	while (w->cap < w->len + n + 1)
		w->cap *= 2;
	if (w->cap > w->max)	/* len + n + 1 <= max: see above */
		w->cap = w->max;
	w->buf = xrealloc(w->buf, w->cap);
	return w->buf + w->len;
}

static void put(struct jw *w, const char *s, size_t n)
{
	jw_put_(w, s, n);
}

/* The comma alone, before a value written piece by piece. */
static void sep(struct jw *w)
{
	(void)jw_begin_(w, 0);
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
	else if ((at = jw_room_(w, NUM_TEXT_MAX + 2)))
		w->len += num_shortest(v, at, true);
}

static void put_int(struct jw *w, int64_t v)
{
	char *at = jw_room_(w, 24);

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
		(void)jw_over_(w);
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

void jw_key_escaped_(struct jw *w, const char *key, size_t n)
{
	sep(w);
	put_string(w, key, n);
	put(w, ":", 1);
	w->keyed = true;
}

void jw_str(struct jw *w, const char *s)
{
	sep(w);
	put_string(w, s, strlen(s));
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
		(void)jw_over_(w);
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
