/*
 * A request without a server, for fuzzing karted's handlers: the accessors
 * of http.h over a body, a query string and a path parameter held here.
 * Handlers see exactly what http.c would give them (strict UTF-8 included:
 * http.c refuses anything else before a handler runs).
 */
#include <stdlib.h>
#include <string.h>

#include "req_mem.h"

#define ARGS_MAX 64

struct req {
	const char *method;
	const char *path;
	const char *param;
	const char *body;
	size_t len;
	char *keys[ARGS_MAX], *vals[ARGS_MAX];
	size_t nargs;
	struct resp rs;
};

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Percent-decode s[0, n) into a new string (as MHD does; '+' is a space). */
static char *decode(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
			*o++ = (char)(hex(s[i + 1]) * 16 + hex(s[i + 2]));
			i += 2;
		} else {
			*o++ = s[i] == '+' ? ' ' : s[i];
		}
	}
	*o = '\0';
	return out;
}

struct req *mem_req(const char *method, const char *path, const char *param, const char *body,
		     size_t len, const char *query, size_t qlen)
{
	struct req *rq = calloc(1, sizeof(*rq));
	const char *p = query, *end = query + qlen;

	rq->method = method;
	rq->path = path;
	rq->param = param;
	rq->body = body;
	rq->len = len;
	while (p < end && rq->nargs < ARGS_MAX) {
		const char *amp = memchr(p, '&', (size_t)(end - p)), *stop = amp ? amp : end;
		const char *eq = memchr(p, '=', (size_t)(stop - p));

		rq->keys[rq->nargs] = decode(p, (size_t)((eq ? eq : stop) - p));
		rq->vals[rq->nargs] = eq ? decode(eq + 1, (size_t)(stop - eq - 1)) : strdup("");
		rq->nargs++;
		p = stop + 1;
	}
	return rq;
}

void mem_req_free(struct req *rq)
{
	size_t i;

	for (i = 0; i < rq->nargs; i++) {
		free(rq->keys[i]);
		free(rq->vals[i]);
	}
	free(rq->rs.body);
	free(rq->rs.frame);
	free(rq->rs.next);
	free(rq->rs.link);
	free(rq);
}

bool mem_req_args_utf8(const struct req *rq)
{
	size_t i;

	for (i = 0; i < rq->nargs; i++)
		if (!utf8_valid((const unsigned char *)rq->keys[i], strlen(rq->keys[i])) ||
		    !utf8_valid((const unsigned char *)rq->vals[i], strlen(rq->vals[i])))
			return false;
	return true;
}

const char *req_method(const struct req *rq) { return rq->method; }
const char *req_path(const struct req *rq) { return rq->path; }
const char *req_param(const struct req *rq) { return rq->param; }
const char *req_header(const struct req *rq, const char *name) { (void)rq; (void)name; return NULL; }
bool req_is_ndjson(const struct req *rq) { (void)rq; return false; }
struct resp *req_resp(struct req *rq) { return &rq->rs; }
void req_http_metrics(const struct req *rq, struct http_metrics *out)
{
	(void)rq;
	memset(out, 0, sizeof(*out));
}

const char *req_query(const struct req *rq, const char *key)
{
	size_t i;

	for (i = 0; i < rq->nargs; i++)
		if (!strcmp(rq->keys[i], key))
			return rq->vals[i];
	return NULL;
}

void req_query_each(const struct req *rq, const char *key,
		    void (*each)(const char *value, void *ctx), void *ctx)
{
	size_t i;

	for (i = 0; i < rq->nargs; i++)
		if (!strcmp(rq->keys[i], key))
			each(rq->vals[i], ctx);
}

void req_query_all(const struct req *rq, void (*each)(const char *key, const char *value, void *ctx),
		   void *ctx)
{
	size_t i;

	for (i = 0; i < rq->nargs; i++)
		each(rq->keys[i], rq->vals[i], ctx);
}

const char *req_body(const struct req *rq, size_t *len)
{
	*len = rq->len;
	return rq->body;
}

void req_defer(struct req *rq, void (*start)(void *arg), void *arg)
{
	(void)rq;
	(void)start;
	(void)arg;
}

void http_resume(struct req *rq)
{
	(void)rq;
}

/* Handlers run on the fuzzer's thread, never cancelled. */
struct req *http_current(void)
{
	return NULL;
}

void req_on_cancel(struct req *rq, void (*fn)(void *arg), void *arg)
{
	(void)rq;
	(void)fn;
	(void)arg;
}
