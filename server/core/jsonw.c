#include "jsonw.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "xalloc.h"

struct w {
	int (*out)(const char *s, size_t n, void *ctx);
	void *ctx;
	char buf[4096];		/* small pieces gathered before out() */
	size_t len;
	int failed;
};

static void flush(struct w *w)
{
	if (w->len && !w->failed && w->out(w->buf, w->len, w->ctx))
		w->failed = 1;
	w->len = 0;
}

static void put(struct w *w, const char *s, size_t n)
{
	if (w->failed)
		return;
	if (w->len + n > sizeof(w->buf)) {
		flush(w);
		if (n > sizeof(w->buf)) {
			if (!w->failed && w->out(s, n, w->ctx))
				w->failed = 1;
			return;
		}
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void put_string(struct w *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;
	char esc[7];

	put(w, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *e = NULL;
		size_t el = 2;

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
		else if (c < 0x20) {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			e = esc;
			el = 6;
		}
		if (!e)
			continue;
		put(w, s + run, i - run);
		put(w, e, el);
		run = i + 1;
	}
	put(w, s + run, n - run);
	put(w, "\"", 1);
}

static void put_value(struct w *w, const json_t *v, int depth)
{
	char num[NUM_TEXT_MAX + 8];
	const char *key;
	json_t *item;
	size_t i, n;
	int first;

	if (depth > 2048) {	/* jansson's parser limits depth likewise */
		w->failed = 1;
		return;
	}
	switch (json_typeof(v)) {
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
		n = (size_t)snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		put(w, num, n);
		break;
	case JSON_REAL:
		n = num_shortest(json_real_value(v), num, true);
		put(w, num, n);
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

int jsonw(const json_t *v, int (*out)(const char *s, size_t n, void *ctx), void *ctx)
{
	struct w *w = xmalloc(sizeof(*w));
	int rc;

	w->out = out;
	w->ctx = ctx;
	w->len = 0;
	w->failed = 0;
	put_value(w, v, 0);
	flush(w);
	rc = w->failed ? -1 : 0;
	free(w);
	return rc;
}

struct grow {
	char *p;
	size_t len, cap;
};

static int grow_out(const char *s, size_t n, void *ctx)
{
	struct grow *g = ctx;

	if (g->len + n + 1 > g->cap) {
		g->cap = g->cap ? g->cap : 256;
		while (g->cap < g->len + n + 1)
			g->cap *= 2;
		g->p = xrealloc(g->p, g->cap);
	}
	memcpy(g->p + g->len, s, n);
	g->len += n;
	g->p[g->len] = '\0';
	return 0;
}

char *jsonw_string(const json_t *v, size_t *len)
{
	struct grow g = {0};

	if (!v)
		return NULL;
	jsonw(v, grow_out, &g);
	if (!g.p)
		g.p = xstrdup("");
	if (len)
		*len = g.len;
	return g.p;
}
