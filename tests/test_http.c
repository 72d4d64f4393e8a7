/*
 * Unit tests of http/http.c: routing and limits on a real libmicrohttpd
 * server on a loopback port, its loop on a thread of the test, asked by raw
 * HTTP/1.1 requests over a socket (so bad requests can be sent as they are).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http/http.h"

#define MAX_BODY 1000
#define ANALYSIS_BODY 500

/* ---- the routes: each answers what it saw ---- */

static int echo(void *app, struct req *rq, struct resp *rs)
{
	const char *p = req_param(rq), *q = req_query(rq, "q");
	size_t len = 0;

	(void)app;
	req_body(rq, &len);
	resp_json(rs, 200, json_pack("{s:s,s:s?,s:s?,s:I}", "path", req_path(rq), "param", p, "q", q, "body",
				     (json_int_t)len));
	return 0;
}

static void count_value(const char *value, void *ctx)
{
	(void)value;
	(*(int *)ctx)++;
}

static int repeated(void *app, struct req *rq, struct resp *rs)
{
	int n = 0;

	(void)app;
	req_query_each(rq, "a", count_value, &n);
	resp_json(rs, 200, json_pack("{s:i}", "a", n));
	return 0;
}

static int created(void *app, struct req *rq, struct resp *rs)
{
	(void)app;
	(void)rq;
	resp_json(rs, 201, json_pack("{s:b}", "stored", 1));
	return 0;
}

static int slow(void *app, struct req *rq, struct resp *rs)
{
	(void)app;
	resp_json(rs, 200, json_pack("{s:s}", "lane", req_query(rq, "x") ? "x" : "worker"));
	return 0;
}

static const struct route routes[] = {
	{"GET", "/api/v1/x", 0, echo, NULL},
	{"POST", "/api/v1/x", ROUTE_WRITE | ROUTE_BODY, created, NULL},
	{"GET", "/api/v1/item/{}", 0, echo, NULL},
	{"GET", "/api/v1/files/", ROUTE_PREFIX, echo, NULL},
	{"GET", "/api/v1/repeated", 0, repeated, NULL},
	{"POST", "/api/v1/whatif", ROUTE_BODY | ROUTE_SLOW, echo, NULL},
	{"GET", "/api/v1/slow", ROUTE_SLOW, slow, NULL},
	{NULL, NULL, 0, NULL, NULL},
};

static const struct route *const tables[] = {routes, NULL};

static int token_ok(void *app, const char *token)
{
	(void)app;
	return !strcmp(token, "good") ? 1 : !strcmp(token, "down") ? -1 : 0;
}

static int after_run(void *app)
{
	(void)app;
	return 0;
}

/* ---- the server on a thread ---- */

struct server {
	struct http *h;
	int sigfd;
	pthread_t loop;
	unsigned port;
};

static void *loop_main(void *arg)
{
	struct server *s = arg;

	http_loop(s->h, s->sigfd, 1000);
	return NULL;
}

static int setup(void **state)
{
	static struct server s;
	static const char *const hosts[] = {"karte.example", NULL};
	struct http_config cfg = {
		.listen = "127.0.0.1:0", .max_body = MAX_BODY, .routes = tables, .token_ok = token_ok,
		.after_run = after_run, .wake_fd = -1, .max_analysis_body = ANALYSIS_BODY,
		.max_file_body = MAX_BODY, .allowed_hosts = hosts,
	};
	struct kerr err;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* every thread made after this too */
	s.sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (s.sigfd < 0 || !(s.h = http_start(&cfg, &err)))
		return -1;
	s.port = http_port(s.h);
	if (pthread_create(&s.loop, NULL, loop_main, &s))
		return -1;
	*state = &s;
	return 0;
}

static int teardown(void **state)
{
	struct server *s = *state;

	kill(getpid(), SIGUSR1);	/* pending on the process: the loop's signalfd reads it */
	pthread_join(s->loop, NULL);
	http_stop(s->h);
	close(s->sigfd);
	return 0;
}

/* Send raw (a whole request) and read the answer into out (cap bytes);
 * the status, or -1. */
static int ask(const struct server *s, const char *raw, char *out, size_t cap)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0), status = -1;
	size_t len = 0;
	ssize_t r;

	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    write(fd, raw, strlen(raw)) != (ssize_t)strlen(raw)) {
		close(fd);
		return -1;
	}
	while (len + 1 < cap && (r = read(fd, out + len, cap - 1 - len)) > 0)
		len += (size_t)r;
	out[len] = '\0';
	close(fd);
	sscanf(out, "HTTP/1.1 %d", &status);
	return status;
}

/* A request with Connection: close and, when body is not NULL, the body
 * with its length and type. */
static int request(const struct server *s, const char *method, const char *path, const char *headers,
		   const char *body, char *out, size_t cap)
{
	char raw[8192];

	snprintf(raw, sizeof(raw), "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s", method, path,
		 headers ? headers : "");
	if (body)
		snprintf(raw + strlen(raw), sizeof(raw) - strlen(raw), "Content-Length: %zu\r\n\r\n%s",
			 strlen(body), body);
	else
		snprintf(raw + strlen(raw), sizeof(raw) - strlen(raw), "\r\n");
	return ask(s, raw, out, cap);
}

/* The answer's JSON body (after the blank line). */
static json_t *body_of(const char *answer)
{
	const char *b = strstr(answer, "\r\n\r\n");

	return b ? json_loads(b + 4, 0, NULL) : NULL;
}

static const char *text_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void test_routes_match_exactly_by_segment_and_prefix(void **state)
{
	struct server *s = *state;
	char out[8192];
	json_t *b;

	assert_int_equal(request(s, "GET", "/api/v1/x?q=%41%20b", NULL, NULL, out, sizeof(out)), 200);
	b = body_of(out);
	assert_string_equal(text_of(b, "path"), "/api/v1/x");
	assert_string_equal(text_of(b, "q"), "A b");	/* the query decoded */
	assert_true(json_is_null(json_object_get(b, "param")));	/* no {} in the route */
	json_decref(b);
	assert_int_equal(request(s, "GET", "/api/v1/item/42", NULL, NULL, out, sizeof(out)), 200);
	b = body_of(out);
	assert_string_equal(text_of(b, "param"), "42");
	json_decref(b);
	/* {} is one segment: a slash beyond it is another path */
	assert_int_equal(request(s, "GET", "/api/v1/item/42/more", NULL, NULL, out, sizeof(out)), 404);
	assert_int_equal(request(s, "GET", "/api/v1/files/a/b.txt", NULL, NULL, out, sizeof(out)), 200);
	b = body_of(out);
	assert_string_equal(text_of(b, "param"), "a/b.txt");
	json_decref(b);
	assert_int_equal(request(s, "GET", "/api/v1/repeated?a=1&b=2&a=3&a=", NULL, NULL, out, sizeof(out)), 200);
	b = body_of(out);
	assert_int_equal(json_integer_value(json_object_get(b, "a")), 3);
	json_decref(b);
	assert_int_equal(request(s, "GET", "/api/v1/slow", NULL, NULL, out, sizeof(out)), 200);
	assert_non_null(strstr(out, "worker"));
}

static void test_unknown_paths_and_methods(void **state)
{
	struct server *s = *state;
	char out[8192];
	json_t *b;

	assert_int_equal(request(s, "GET", "/api/v1/nowhere", NULL, NULL, out, sizeof(out)), 404);
	b = body_of(out);
	assert_non_null(text_of(b, "error"));
	json_decref(b);
	/* the path is there, not the method: 405 with every method it takes */
	assert_int_equal(request(s, "DELETE", "/api/v1/x", NULL, NULL, out, sizeof(out)), 405);
	assert_non_null(strstr(out, "Allow: GET, POST"));
	/* not under /api/ and no static files: 404 */
	assert_int_equal(request(s, "GET", "/index.html", NULL, NULL, out, sizeof(out)), 404);
}

static void test_writes_need_a_token(void **state)
{
	struct server *s = *state;
	const char *json = "Content-Type: application/json\r\n";
	char out[8192], h[256];

	assert_int_equal(request(s, "POST", "/api/v1/x", json, "{}", out, sizeof(out)), 401);
	assert_non_null(strstr(out, "WWW-Authenticate: Bearer"));
	snprintf(h, sizeof(h), "%sAuthorization: Bearer bad\r\n", json);
	assert_int_equal(request(s, "POST", "/api/v1/x", h, "{}", out, sizeof(out)), 401);
	snprintf(h, sizeof(h), "%sAuthorization: Basic good\r\n", json);
	assert_int_equal(request(s, "POST", "/api/v1/x", h, "{}", out, sizeof(out)), 401);
	/* the store could not tell: try again, not "unauthorised" */
	snprintf(h, sizeof(h), "%sAuthorization: Bearer down\r\n", json);
	assert_int_equal(request(s, "POST", "/api/v1/x", h, "{}", out, sizeof(out)), 503);
	assert_non_null(strstr(out, "Retry-After:"));
	snprintf(h, sizeof(h), "%sAuthorization: Bearer good\r\n", json);
	assert_int_equal(request(s, "POST", "/api/v1/x", h, "{}", out, sizeof(out)), 201);
	/* a what-if takes no token */
	assert_int_equal(request(s, "POST", "/api/v1/whatif", json, "{\"a\": 1}", out, sizeof(out)), 200);
}

static void test_bodies_are_bounded_and_typed(void **state)
{
	struct server *s = *state;
	char out[8192], big[MAX_BODY + 2], h[256];
	json_t *b;

	snprintf(h, sizeof(h), "Content-Type: application/json\r\nAuthorization: Bearer good\r\n");
	memset(big, ' ', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[0] = '{';
	big[sizeof(big) - 2] = '}';
	/* one byte over max_body: 413 before the handler */
	assert_int_equal(request(s, "POST", "/api/v1/x", h, big, out, sizeof(out)), 413);
	/* a what-if's own, smaller limit */
	big[ANALYSIS_BODY + 1] = '\0';
	big[ANALYSIS_BODY] = '}';
	assert_int_equal(request(s, "POST", "/api/v1/whatif", "Content-Type: application/json\r\n", big, out,
			     sizeof(out)), 413);
	big[ANALYSIS_BODY - 1] = '}';
	big[ANALYSIS_BODY] = '\0';
	assert_int_equal(request(s, "POST", "/api/v1/whatif", "Content-Type: application/json\r\n", big, out,
			     sizeof(out)), 200);
	b = body_of(out);
	assert_int_equal(json_integer_value(json_object_get(b, "body")), ANALYSIS_BODY);
	json_decref(b);
	/* the type: JSON or NDJSON only */
	assert_int_equal(request(s, "POST", "/api/v1/whatif", "Content-Type: text/plain\r\n", "{}", out, sizeof(out)),
			 415);
	assert_int_equal(request(s, "POST", "/api/v1/whatif", NULL, "{}", out, sizeof(out)), 415);
	assert_int_equal(request(s, "POST", "/api/v1/whatif", "Content-Type: application/x-ndjson; charset=utf-8\r\n",
				 "{}\n", out, sizeof(out)), 200);
}

static void test_hosts_not_served_get_421(void **state)
{
	struct server *s = *state;
	char out[8192];

	assert_int_equal(ask(s, "GET /api/v1/x HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n", out,
			     sizeof(out)), 421);
	assert_int_equal(ask(s, "GET /api/v1/x HTTP/1.1\r\nHost: karte.example:8080\r\nConnection: close\r\n\r\n",
			     out, sizeof(out)), 200);
	assert_int_equal(ask(s, "GET /api/v1/x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", out,
			     sizeof(out)), 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes_match_exactly_by_segment_and_prefix),
		cmocka_unit_test(test_unknown_paths_and_methods),
		cmocka_unit_test(test_writes_need_a_token),
		cmocka_unit_test(test_bodies_are_bounded_and_typed),
		cmocka_unit_test(test_hosts_not_served_get_421),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("http", tests, setup, teardown);
}
