#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/run.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "core/mono.h"
#include "core/klog.h"

#define DISCARD_MAX (64u << 20)	/* past this an over-long chunked body closes the connection */
#define BODY_FIRST_MAX (64u << 10)	/* largest body buffer sized from Content-Length alone */

#define SWEEP_S 0.25		/* how often deadlines and the slow queue are looked at */

struct req;

/* Workers for ROUTE_SLOW handlers, in two lanes (see http.h): each a FIFO
 * of suspended requests and its own threads. */
struct lane {
	pthread_t *threads;
	unsigned n;
	pthread_cond_t wake;
	struct req *head, *tail;
	unsigned queued;	/* requests in the FIFO */
	struct req **running;	/* per thread: the request it works on, or NULL */
};

struct workers {
	struct lane lane[LANE_COUNT];	/* [LANE_QUICK], [LANE_SLOW], [LANE_WRITE] */
	uint64_t client_share;	/* slow-lane requests refused for their client's share */
	pthread_mutex_t lock;	/* every lane, and each request's cancel hook */
	bool stopping;
	int done_fd;		/* eventfd: a worker resumed a connection */
	uint64_t moved;		/* reads sent on to the slow lane */
};

/* What a worker runs: its lane and its place in the lane's running[]. */
struct worker_arg {
	struct http *h;
	enum http_lane lane;
	unsigned slot;
};

/* Why a running request was cancelled (req.cancel_why). */
enum { CANCEL_NONE, CANCEL_HUNG_UP, CANCEL_DEADLINE, CANCEL_MOVE, CANCEL_STOP };

/* A connection, for the absolute request deadline (MHD's own timeout
 * restarts with every byte, so a client trickling one byte at a time would
 * hold it for ever). */
struct conn {
	struct conn *prev, *next;	/* http.conns */
	int fd;
	double t0;		/* monotonic: opened, or its last answer completed */
	struct req *rq;		/* the request on it now, or NULL between requests */
	bool cut;		/* shut down for passing the deadline */
};

struct http {
	struct MHD_Daemon *d;
	struct http_config cfg;
	int active;		/* requests between headers and completion */
	bool quiesced;
	unsigned port;
	struct workers w;
	struct conn *conns;	/* every open connection, newest first */
	size_t body_bytes;	/* bytes of request bodies held now (loop thread) */
	double next_sweep;	/* monotonic */
	uint64_t next_id;	/* the next request's id: a random start, counted on */
	struct http_metrics m;	/* loop thread */
	unsigned spin_us;	/* how long the loop waits awake for due answers */
};


struct req {
	struct MHD_Connection *conn;
	struct http *h;
	const char *method;
	const char *path;
	const struct route *route;
	char *param;
	char *body;
	size_t len, cap;
	size_t expect;		/* Content-Length when sent and within the limit */
	size_t limit;		/* the largest body this route takes */
	size_t discarded;	/* bytes thrown away after the cap was passed */
	bool too_big;
	bool ndjson;
	bool pending;		/* waiting for http_resume() (suspended if ROUTE_SLOW) */
	bool answered;		/* the response is queued */
	bool over_budget;	/* its body would pass the body budget: 503 */
	struct conn *cn;	/* its connection, NULL once completed */
	double queued_at;	/* monotonic, when it entered the slow queue */
	double started;		/* monotonic, when its headers were read */
	bool resumed;
	bool orphaned;		/* the connection closed while pending: freed on resume */
	void (*start)(void *arg);
	void *start_arg;
	struct resp rs;
	struct req *next_slow;	/* the workers' queue */
	atomic_bool slow_done;	/* set by a worker when rs is filled */
	enum http_lane lane;	/* the lane it waits in or runs in */
	bool triaged;		/* its route's lane() was asked */
	double work_started;	/* monotonic, when a worker began it */
	int cancel_why;		/* CANCEL_*, under the workers' lock */
	void (*cancel)(void *arg);	/* what stops its work (req_on_cancel) */
	void *cancel_arg;
	uint64_t client;	/* who asks: its token's hash, or its address's */
	bool share_refused;	/* lane_push refused it: its client held half of the slow lane */
};

static bool lane_push(struct http *h, enum http_lane l, struct req *rq);
static uint64_t client_key(struct req *rq);
static const char *refusal(const struct req *rq);

/* ---- handler accessors ------------------------------------------------- */

const char *req_method(const struct req *rq)
{
	return rq->method;
}

const char *req_path(const struct req *rq)
{
	return rq->path;
}

const char *req_param(const struct req *rq)
{
	return rq->param;
}

const char *req_query(const struct req *rq, const char *key)
{
	return MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, key);
}

struct each_ctx {
	const char *key;
	void (*each)(const char *value, void *ctx);
	void *ctx;
};

static enum MHD_Result each_value(void *cls, enum MHD_ValueKind kind, const char *key,
				  const char *value)
{
	struct each_ctx *c = cls;

	(void)kind;
	if (key && value && !strcmp(key, c->key))
		c->each(value, c->ctx);
	return MHD_YES;
}

void req_query_each(const struct req *rq, const char *key,
		    void (*each)(const char *value, void *ctx), void *ctx)
{
	struct each_ctx c = {key, each, ctx};

	MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, each_value, &c);
}

struct all_ctx {
	void (*each)(const char *key, const char *value, void *ctx);
	void *ctx;
};

static enum MHD_Result all_values(void *cls, enum MHD_ValueKind kind, const char *key,
				  const char *value)
{
	struct all_ctx *c = cls;

	(void)kind;
	if (key)
		c->each(key, value ? value : "", c->ctx);
	return MHD_YES;
}

void req_query_all(const struct req *rq, void (*each)(const char *key, const char *value, void *ctx),
		   void *ctx)
{
	struct all_ctx c = {each, ctx};

	MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, all_values, &c);
}

const char *req_header(const struct req *rq, const char *name)
{
	return MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, name);
}

const char *req_body(const struct req *rq, size_t *len)
{
	*len = rq->len;
	return rq->body ? rq->body : "";
}

bool req_is_ndjson(const struct req *rq)
{
	return rq->ndjson;
}

struct resp *req_resp(struct req *rq)
{
	return &rq->rs;
}

void req_defer(struct req *rq, void (*start)(void *arg), void *arg)
{
	rq->start = start;
	rq->start_arg = arg;
}

static void req_free(struct req *rq)
{
	rq->h->body_bytes -= rq->cap;
	free(rq->param);
	free(rq->body);
	free(rq->rs.body);
	free(rq->rs.frame);
	free(rq->rs.next);
	free(rq->rs.link);
	free(rq->rs.log);
	free(rq);
}

void http_resume(struct req *rq)
{
	if (rq->orphaned)
		req_free(rq);	/* nobody to answer; the work no longer needs it */
	else
		rq->resumed = true;	/* MHD calls the handler again; it sends rq->rs then */
}

static void count(struct http_metrics *m, int status, double took)
{
	size_t b;

	m->by_class[status >= 100 && status < 600 ? status / 100 : 0]++;
	for (b = 0; b < HTTP_LATENCY_BUCKETS && took > http_latency_le[b]; b++)
		;
	m->latency[b]++;
	m->latency_sum += took;
}

void req_http_metrics(const struct req *rq, struct http_metrics *out)
{
	*out = rq->h->m;
	out->active = rq->h->active;
	pthread_mutex_lock(&rq->h->w.lock);
	out->quick_queued = rq->h->w.lane[LANE_QUICK].queued;
	out->slow_queued = out->quick_queued + rq->h->w.lane[LANE_SLOW].queued + rq->h->w.lane[LANE_WRITE].queued;
	out->moved = rq->h->w.moved;
	out->client_share = rq->h->w.client_share;
	pthread_mutex_unlock(&rq->h->w.lock);
}

/* s for a log line: control bytes, DEL and the backslash as \xHH, cut
 * after about 200 bytes (a decoded path may hold a newline: one request
 * stays one line). */
static const char *log_text(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	for (; *s && n + 5 < size && n < 200; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	if (*s && n + 4 < size) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

static enum MHD_Result send_resp(struct req *rq)
{
	struct resp *rs = &rq->rs;
	struct MHD_Response *r;
	enum MHD_Result ret;
	char id[17], path[224];
	double took;

	if (rs->status == 0)
		resp_errorf(rs, 500, "the handler gave no answer");
	if (rs->body) {
		r = MHD_create_response_from_buffer(rs->len, rs->body, MHD_RESPMEM_MUST_FREE);
		rs->body = NULL;	/* MHD owns it now */
	} else {
		r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	}
	if (!r)
		return MHD_NO;
	if (rs->content_type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rs->content_type);
	/* What a browser may keep or show: answers to GET and HEAD, and every
	 * error (its message can echo a path). The success of a POST or DELETE
	 * ({"ids":[...]}) is never cached and never rendered, and each header
	 * costs allocations on the hottest path. */
	if (!strcmp(rq->method, "GET") || !strcmp(rq->method, "HEAD") || rs->status >= 300) {
		MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
					rs->cache ? rs->cache : "no-store");
		MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	}
	if (rs->content_type && !strncmp(rs->content_type, "text/html", 9))
		MHD_add_response_header(r, "Content-Security-Policy",
					"default-src 'self'; img-src 'self' data: blob:; object-src 'none'; "
					"base-uri 'none'; frame-ancestors 'none'; form-action 'self'");
	if (rs->allow[0] && rs->status == 405)	/* route_find fills it for every known path */
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, rs->allow);
	if (rs->location)
		MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, rs->location);
	if (rs->status == 401)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"karte\"");
	if (rs->frame)
		MHD_add_response_header(r, "X-Karte-Frame", rs->frame);
	if (rs->next)
		MHD_add_response_header(r, "X-Karte-Next", rs->next);
	if (rs->link)
		MHD_add_response_header(r, MHD_HTTP_HEADER_LINK, rs->link);
	if (rs->retry_after) {
		char ra[16];

		snprintf(ra, sizeof(ra), "%u", rs->retry_after);
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, ra);
	}
	if (rs->status >= 400)
		MHD_add_response_header(r, "X-Request-Id", resp_request_id(rs, id));
	rq->answered = true;
	took = mono_s() - rq->started;
	count(&rq->h->m, rs->status, took);
	if (rs->status >= 500)
		klog(rs->status == 503 ? KLOG_WARNING : KLOG_ERROR, "request %s: %s %s -> %d%s%s", resp_request_id(rs, id),
			rq->method, log_text(rq->path, path, sizeof(path)), rs->status, rs->log ? ": " : "",
			rs->log ? rs->log : "");
	else if (rq->h->cfg.access_log)
		klog_always(KLOG_INFO, "access %s %s %d %.3f ms %s", rq->method,
			log_text(rq->path, path, sizeof(path)), rs->status, took * 1e3, resp_request_id(rs, id));
	ret = MHD_queue_response(rq->conn, (unsigned)rs->status, r);
	MHD_destroy_response(r);
	return ret;
}

/* ---- routing ----------------------------------------------------------- */

/* Match path against pattern ("{}" stands for one non-empty segment, or
 * with ROUTE_PREFIX the pattern is a prefix). *param gets the segment. */
static bool match(const struct route *rt, const char *path, const char **param, size_t *plen)
{
	const char *brace = strstr(rt->path, "{}");
	size_t pre, seg;

	*param = NULL;
	*plen = 0;
	if (rt->flags & ROUTE_PREFIX) {
		pre = strlen(rt->path);
		if (strncmp(path, rt->path, pre))
			return false;
		*param = path + pre;
		*plen = strlen(path + pre);
		return true;
	}
	if (!brace)
		return !strcmp(rt->path, path);
	pre = (size_t)(brace - rt->path);
	if (strncmp(path, rt->path, pre))
		return false;
	seg = strcspn(path + pre, "/");
	if (seg == 0 || strcmp(path + pre + seg, brace + 2))
		return false;
	*param = path + pre;
	*plen = seg;
	return true;
}

/* Find the route; *path_known tells whether some route has this path (for
 * 405 versus 404) and allow lists its methods. */
static const struct route *route_find(struct req *rq, bool *path_known, char *allow,
				      size_t allow_size)
{
	const char *method = strcmp(rq->method, "HEAD") ? rq->method : "GET";
	const struct route *const *table;
	const struct route *rt;
	const char *param;
	size_t plen;

	*path_known = false;
	allow[0] = '\0';
	for (table = rq->h->cfg.routes; *table; table++)
	for (rt = *table; rt->method; rt++) {
		if (!match(rt, rq->path, &param, &plen))
			continue;
		*path_known = true;
		if (!strcmp(rt->method, method)) {
			rq->param = param ? xstrndup(param, plen) : NULL;
			return rt;
		}
		if (!strstr(allow, rt->method)) {
			if (allow[0])
				strncat(allow, ", ", allow_size - strlen(allow) - 1);
			strncat(allow, rt->method, allow_size - strlen(allow) - 1);
		}
	}
	return NULL;
}

/* 1 a valid bearer token, 0 none or a wrong one, -1 the store could not tell. */
static int has_token(struct req *rq)
{
	const char *auth = req_header(rq, MHD_HTTP_HEADER_AUTHORIZATION);

	if (!auth || strncasecmp(auth, "Bearer ", 7))
		return 0;
	auth += 7;
	while (*auth == ' ')
		auth++;
	return *auth ? rq->h->cfg.token_ok(rq->h->cfg.app, auth) : 0;
}

/* application/json or application/x-ndjson, parameters allowed. */
static int body_kind(const char *ct, bool *ndjson)
{
	static const struct {
		const char *type;
		bool ndjson;
	} ok[] = {{"application/json", false}, {"application/x-ndjson", true}};
	size_t i, n;

	if (!ct)
		return -1;
	while (*ct == ' ')
		ct++;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		n = strlen(ok[i].type);
		if (!strncasecmp(ct, ok[i].type, n) &&
		    (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ')) {
			*ndjson = ok[i].ndjson;
			return 0;
		}
	}
	return -1;
}

/* A 503 that tells the client to come back in a second. */
static void busy(struct resp *rs, const char *why)
{
	resp_errorf(rs, 503, "%s", why);
	rs->retry_after = 1;
}

/* Whether name (a Host header's host, without the port) is host, itself
 * without a port: case-insensitive, IPv6 in brackets or not. */
static bool same_host(const char *name, size_t len, const char *host)
{
	size_t hl;

	if (*host == '[' && (hl = strcspn(host, "]")) && host[hl] == ']') {
		host++;
		hl--;
	} else {
		hl = strcspn(host, ":");
		if (strchr(host + hl + (host[hl] != 0), ':'))
			hl = strlen(host);	/* a bare IPv6 address */
	}
	return hl == len && !strncasecmp(name, host, len);
}

/* Whether the Host header names a host this server serves (DNS
 * rebinding: a page elsewhere reaching karted through a name of its own).
 * A request without Host (HTTP/1.0) passes. */
static bool host_allowed(struct http *h, const char *host)
{
	static const char *const local[] = {"localhost", "127.0.0.1", "::1", NULL};
	const char *const *a;
	const char *name = host;
	size_t len;

	if (!host)
		return true;
	if (*host == '[') {
		name = host + 1;
		len = strcspn(name, "]");
		if (name[len] != ']' || (name[len + 1] && name[len + 1] != ':'))
			return false;
	} else {
		len = strcspn(host, ":");
	}
	for (a = local; *a; a++)
		if (same_host(name, len, *a))
			return true;
	if (same_host(name, len, h->cfg.listen))
		return true;
	for (a = h->cfg.allowed_hosts; a && *a; a++)
		if (!strcmp(*a, "*") || same_host(name, len, *a))
			return true;
	return false;
}

struct bad_arg {
	const char *key;	/* the first query parameter that is not UTF-8, or NULL */
};

static enum MHD_Result check_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				 const char *value)
{
	struct bad_arg *b = cls;

	(void)kind;
	if (!b->key && (!utf8_valid((const unsigned char *)key, strlen(key)) ||
			(value && !utf8_valid((const unsigned char *)value, strlen(value)))))
		b->key = key;
	return MHD_YES;
}

/* Checks made as soon as the headers are in; true when rq->rs holds the
 * answer (an error) already. */
static bool early_answer(struct req *rq)
{
	struct http *h = rq->h;
	struct resp *rs = &rq->rs;
	struct bad_arg bad = {NULL};
	bool known;
	const char *cl;

	if (!host_allowed(h, req_header(rq, MHD_HTTP_HEADER_HOST))) {
		resp_field_statusf(rs, 421, "Host", -1, "this server does not serve that Host; start karted "
				  "with --allowed-host NAME to serve a name of its own");
		return true;
	}
	MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, check_arg, &bad);
	if (!utf8_valid((const unsigned char *)rq->path, strlen(rq->path))) {
		resp_field_errorf(rs, "path", -1, "the path is not valid UTF-8");
		return true;
	}
	if (bad.key) {
		resp_field_errorf(rs, utf8_valid((const unsigned char *)bad.key, strlen(bad.key)) ?
				  bad.key : "query", -1, "a query parameter is not valid UTF-8");
		return true;
	}

	if (strncmp(rq->path, "/api/", 5) && strcmp(rq->path, "/metrics") && h->cfg.serve_static) {
		if (strcmp(rq->method, "GET") && strcmp(rq->method, "HEAD")) {
			snprintf(rs->allow, sizeof(rs->allow), "GET, HEAD");
			resp_errorf(rs, 405, "%s is not allowed here; use GET", rq->method);
		} else if (h->cfg.serve_static(h->cfg.app, rq->path, rs)) {
			resp_errorf(rs, 404, "there is no page at %s", rq->path);
		}
		return true;
	}
	rq->route = route_find(rq, &known, rs->allow, sizeof(rs->allow));
	if (!rq->route) {
		if (known)
			resp_errorf(rs, 405, "%s is not allowed on %s; allowed: %s", rq->method, rq->path,
				    rs->allow);
		else
			resp_errorf(rs, 404, "there is no API endpoint %s", rq->path);
		return true;
	}
	if ((rq->route->flags & ROUTE_WRITE) || h->cfg.read_token) {
		int tok = has_token(rq);

		if (tok < 0) {
			busy(rs, "the database cannot check tokens right now; try again");
			return true;
		}
		if (!tok) {
			resp_errorf(rs, 401,
				    "this request needs a valid token: send 'Authorization: Bearer TOKEN' "
				    "(create one with: karted token create NAME)");
			return true;
		}
	}
	if (rq->route->flags & (ROUTE_BODY | ROUTE_FILE)) {
		if ((rq->route->flags & ROUTE_BODY) &&
		    body_kind(req_header(rq, MHD_HTTP_HEADER_CONTENT_TYPE), &rq->ndjson)) {
			resp_errorf(rs, 415,
				    "the body must be sent as Content-Type application/json or "
				    "application/x-ndjson");
			return true;
		}
		/* what-if bodies are parsed whole into a JSON tree (about 25 times
		 * their size for an array of numbers): they get a smaller cap */
		rq->limit = (rq->route->flags & ROUTE_FILE) ? h->cfg.max_file_body :
			    (rq->route->flags & ROUTE_WRITE) || h->cfg.max_analysis_body > h->cfg.max_body
				    ? h->cfg.max_body : h->cfg.max_analysis_body;
		cl = req_header(rq, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl)
			rq->expect = strtoull(cl, NULL, 10);
		if (cl && rq->expect > rq->limit) {
			rq->too_big = true;
			resp_field_statusf(rs, 413, "body", -1, "the body is larger than the limit of %zu bytes",
					  rq->limit);
			return true;
		}
		if (cl && h->body_bytes + rq->expect > h->cfg.body_budget) {
			busy(rs, "the server holds as many request bodies as it may; try again");
			return true;
		}
	}
	return false;
}

static void take_upload(struct req *rq, const char *data, size_t size)
{
	struct http *h = rq->h;
	size_t cap = rq->cap;

	if (rq->too_big || rq->over_budget || rq->len + size > rq->limit) {
		rq->too_big = !rq->over_budget;
		rq->discarded += size;
		return;
	}
	if (rq->len + size + 1 > rq->cap) {
		/* the announced length at once when small (a run fits malloc's
		 * per-thread cache); beyond that doubling, so memory follows
		 * the bytes that came, not what a client announced */
		if (!cap && rq->expect >= rq->len + size && rq->expect < BODY_FIRST_MAX)
			cap = rq->expect + 1;
		cap = cap ? cap : 1024;
		while (cap < rq->len + size + 1)
			cap *= 2;
		if (h->body_bytes - rq->cap + cap > h->cfg.body_budget) {
			/* what all clients send together is bounded: this body is
			 * dropped, what it held given back, and the rest discarded */
			rq->over_budget = true;
			rq->discarded += rq->len + size;
			h->body_bytes -= rq->cap;
			free(rq->body);
			rq->body = NULL;
			rq->len = rq->cap = 0;
			return;
		}
		h->body_bytes += cap - rq->cap;
		rq->cap = cap;
		rq->body = xrealloc(rq->body, rq->cap);
	}
	memcpy(rq->body + rq->len, data, size);
	rq->len += size;
	rq->body[rq->len] = '\0';
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct http *h = cls;
	struct req *rq = *con_cls;
	int rc;

	(void)version;
	if (!rq) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

		rq = xcalloc(1, sizeof(*rq));
		rq->started = mono_s();
		rq->rs.request_id = h->next_id++;
		rq->conn = conn;
		rq->h = h;
		rq->method = method;
		rq->path = url;
		rq->cn = ci ? ci->socket_context : NULL;
		if (rq->cn)
			rq->cn->rq = rq;
		*con_cls = rq;
		h->active++;
		if (early_answer(rq))
			return send_resp(rq);
		return MHD_YES;
	}
	if (*upload_data_size) {
		take_upload(rq, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return rq->discarded > DISCARD_MAX ? MHD_NO : MHD_YES;
	}
	if (rq->pending) {
		if (!rq->resumed && !atomic_load(&rq->slow_done))
			return MHD_YES;	/* not answered yet: MHD calls again */
		rq->pending = false;
		return send_resp(rq);
	}
	if (rq->too_big) {
		resp_field_statusf(&rq->rs, 413, "body", -1, "the body is larger than the limit of %zu bytes",
				  rq->limit);
		return send_resp(rq);
	}
	if (rq->over_budget) {
		busy(&rq->rs, "the server holds as many request bodies as it may; try again");
		return send_resp(rq);
	}
	if (rq->route->flags & ROUTE_SLOW) {
		bool queued;

		/* reads start in the quick lane; a token's writes and imports have
		 * a lane of their own; other bodies (what-ifs) are slow work */
		rq->lane = rq->route->flags & ROUTE_WRITE ? LANE_WRITE :
			   rq->route->flags & (ROUTE_BODY | ROUTE_FILE) ? LANE_SLOW : LANE_QUICK;
		rq->client = client_key(rq);
		rq->queued_at = mono_s();
		pthread_mutex_lock(&h->w.lock);
		queued = lane_push(h, rq->lane, rq);
		if (queued) {
			/* suspended: MHD leaves the connection alone until a worker resumes it */
			rq->pending = true;
			MHD_suspend_connection(conn);
		}
		pthread_mutex_unlock(&h->w.lock);
		if (!queued) {
			busy(&rq->rs, refusal(rq));
			return send_resp(rq);
		}
		return MHD_YES;
	}
	rc = rq->route->fn(h->cfg.app, rq, &rq->rs);
	if (rc == HTTP_PENDING) {
		rq->pending = true;	/* not suspended: see http.h */
		rq->start(rq->start_arg);
		return MHD_YES;
	}
	if (rc < 0 && rq->rs.status == 0)
		resp_errorf(&rq->rs, 500, "internal error");
	return send_resp(rq);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http *h = cls;
	struct req *rq = *con_cls;

	(void)conn;
	(void)toe;
	if (!rq)
		return;
	*con_cls = NULL;
	h->active--;
	if (rq->cn) {
		rq->cn->rq = NULL;
		rq->cn->t0 = mono_s();	/* the next request's time starts now */
		rq->cn = NULL;
	}
	/* Closed (by the client, a timeout or the daemon stopping) while its
	 * work is queued: the writer may still be reading the body, so the
	 * request lives until http_resume(). Suspended ROUTE_SLOW requests are
	 * not completed before a worker resumes them. */
	if (rq->pending && !rq->resumed && !(rq->route->flags & ROUTE_SLOW)) {
		rq->orphaned = true;
		return;
	}
	req_free(rq);
}

/* ---- workers ------------------------------------------------------------ */

/* Whether the client of a suspended request has closed its end (MHD
 * watches no suspended socket, so karted looks itself). */
static bool hung_up(struct req *rq)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(rq->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	char c;
	ssize_t n;

	if (!ci)
		return false;
	n = recv(ci->connect_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* rq->rs is filled: hand the suspended request back to the loop. Any thread. */
static void slow_answered(struct http *h, struct req *rq)
{
	uint64_t one = 1;

	atomic_store(&rq->slow_done, true);
	MHD_resume_connection(rq->conn);	/* allowed from any thread */
	/* an external-loop MHD does not wake its epoll fd on a resume:
	 * wake the loop ourselves, or the answer waits for its timeout */
	if (write(h->w.done_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		klog(KLOG_ERROR, "cannot wake the event loop: %s", strerror(errno));
}

/* Take out of the slow queue the requests whose clients hung up or that
 * waited past slow_wait_s, and answer them (loop thread, every SWEEP_S):
 * a queue filled by clients that went away frees itself. */
static void sweep_slow_queue(struct http *h, double now)
{
	struct req **pp, *rq, *gone = NULL;
	struct lane *l;

	pthread_mutex_lock(&h->w.lock);
	for (l = h->w.lane; l < h->w.lane + LANE_COUNT; l++) {
		for (pp = &l->head; (rq = *pp) != NULL;) {
			if (hung_up(rq) || now - rq->queued_at > h->cfg.slow_wait_s) {
				*pp = rq->next_slow;
				l->queued--;
				rq->next_slow = gone;
				gone = rq;
			} else {
				pp = &rq->next_slow;
			}
		}
		for (l->tail = NULL, rq = l->head; rq; rq = rq->next_slow)
			l->tail = rq;
	}
	pthread_mutex_unlock(&h->w.lock);
	while ((rq = gone) != NULL) {
		gone = rq->next_slow;
		busy(&rq->rs, "the analysis waited too long for a worker, or its client went away");
		slow_answered(h, rq);
	}
}

/* Shut down connections whose request has not arrived whole within
 * request_timeout_s (loop thread, every SWEEP_S). MHD then sees the socket
 * closed and frees the connection as usual. Requests being worked on or
 * answered are left alone. */
static void sweep_deadlines(struct http *h, double now)
{
	struct conn *c;

	for (c = h->conns; c; c = c->next) {
		if (c->cut || now - c->t0 <= h->cfg.request_timeout_s)
			continue;
		if (c->rq && (c->rq->pending || c->rq->answered))
			continue;
		shutdown(c->fd, SHUT_RDWR);
		c->cut = true;
	}
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http *h = cls;
	struct conn *c = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

		c = xcalloc(1, sizeof(*c));
		c->fd = ci ? ci->connect_fd : -1;
		c->t0 = mono_s();
		c->next = h->conns;
		if (h->conns)
			h->conns->prev = c;
		h->conns = c;
		*socket_context = c;
		return;
	}
	if (!c)
		return;
	if (c->rq)
		c->rq->cn = NULL;
	if (c->prev)
		c->prev->next = c->next;
	else
		h->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
	*socket_context = NULL;
}

static _Thread_local struct req *current_req;	/* the request this worker runs */

struct req *http_current(void)
{
	return current_req;
}

void req_on_cancel(struct req *rq, void (*fn)(void *arg), void *arg)
{
	if (!rq)
		return;
	pthread_mutex_lock(&rq->h->w.lock);
	rq->cancel = fn;
	rq->cancel_arg = arg;
	if (fn && rq->cancel_why)
		fn(arg);	/* cancelled before its store was taken */
	pthread_mutex_unlock(&rq->h->w.lock);
}

/* Who asks: a hash of its token when it sends one, else of its address
 * (FNV-1a). One client holds at most half of the slow lane. */
static uint64_t client_key(struct req *rq)
{
	const char *auth = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Authorization");
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(rq->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const unsigned char *b = NULL;
	uint64_t h = 14695981039346656037ULL;
	size_t n = 0, i;

	if (auth) {
		b = (const unsigned char *)auth;
		n = strnlen(auth, 4096);
		h ^= 1;	/* a token and an address never share a key */
	} else if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET) {
		b = (const unsigned char *)&((const struct sockaddr_in *)ci->client_addr)->sin_addr;
		n = sizeof(struct in_addr);
	} else if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET6) {
		b = (const unsigned char *)&((const struct sockaddr_in6 *)ci->client_addr)->sin6_addr;
		n = sizeof(struct in6_addr);
	}
	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* Why lane_push refused rq, for its 503. */
static const char *refusal(const struct req *rq)
{
	return rq->share_refused ? "your requests already hold half of the slow lane (one address, or "
				   "one token, may); wait for their answers, then ask again" :
				   "too many analyses are waiting; try again";
}

/* How many of lane ln's queued requests are client's. */
static unsigned client_queued(const struct lane *ln, uint64_t client)
{
	const struct req *q;
	unsigned n = 0;

	for (q = ln->head; q; q = q->next_slow)
		n += q->client == client;
	return n;
}

/* How many of lane ln's workers run client's requests. */
static unsigned client_running(const struct lane *ln, uint64_t client)
{
	unsigned n = 0, i;

	for (i = 0; i < ln->n; i++)
		n += ln->running[i] && ln->running[i]->client == client;
	return n;
}

/* Queue rq in lane l (the workers' lock held); false when the lane is full,
 * or (the slow lane) when rq's client holds half of its queue already. */
static bool lane_push(struct http *h, enum http_lane l, struct req *rq)
{
	struct lane *ln = &h->w.lane[l];

	if (ln->queued >= h->cfg.slow_queue)
		return false;
	if (l == LANE_SLOW && client_queued(ln, rq->client) >= (h->cfg.slow_queue + 1) / 2) {
		h->w.client_share++;
		rq->share_refused = true;
		return false;
	}
	rq->lane = l;
	rq->next_slow = NULL;
	if (ln->tail)
		ln->tail->next_slow = rq;
	else
		ln->head = rq;
	ln->tail = rq;
	ln->queued++;
	pthread_cond_signal(&ln->wake);
	return true;
}

/* Whether rq's work may be stopped and begun again elsewhere: a read. */
static bool restartable(const struct req *rq)
{
	return !(rq->route->flags & (ROUTE_BODY | ROUTE_FILE | ROUTE_WRITE));
}

/* Stop the work of running requests (loop thread, every SWEEP_S): a
 * client that hung up, a quick read over its budget (moved), a slow read
 * past the read deadline. The worker sees why when its handler returns. */
static void sweep_running(struct http *h, double now)
{
	struct lane *l;
	struct req *rq;
	unsigned i;
	int why;

	pthread_mutex_lock(&h->w.lock);
	for (l = h->w.lane; l < h->w.lane + LANE_COUNT; l++) {
		for (i = 0; i < l->n; i++) {
			rq = l->running[i];
			if (!rq || rq->cancel_why)
				continue;
			why = hung_up(rq) ? CANCEL_HUNG_UP :
			      !restartable(rq) ? CANCEL_NONE :
			      rq->lane == LANE_QUICK && now - rq->work_started > h->cfg.quick_budget_s ?
				CANCEL_MOVE :
			      rq->lane == LANE_SLOW && h->cfg.read_timeout_s > 0 &&
				now - rq->work_started > h->cfg.read_timeout_s ? CANCEL_DEADLINE :
			      CANCEL_NONE;
			if (!why)
				continue;
			rq->cancel_why = why;
			if (why == CANCEL_HUNG_UP)
				h->m.cancelled_hung_up++;
			else if (why == CANCEL_DEADLINE)
				h->m.cancelled_deadline++;
			if (rq->cancel)
				rq->cancel(rq->cancel_arg);
		}
	}
	pthread_mutex_unlock(&h->w.lock);
}

/* After a handler returned on a cancelled request: move a read over the
 * quick budget to the slow lane (true: not answered now), or say why it
 * stopped. The workers' lock held. */
static bool after_cancel(struct http *h, struct req *rq, int why)
{
	struct resp *rs = &rq->rs;
	uint64_t id = rs->request_id;

	if (why == CANCEL_MOVE) {
		free(rs->body);
		free(rs->frame);
		free(rs->next);
		free(rs->link);
		free(rs->log);
		memset(rs, 0, sizeof(*rs));
		rs->request_id = id;
		rq->cancel_why = CANCEL_NONE;
		rq->triaged = true;
		rq->queued_at = mono_s();
		if (lane_push(h, LANE_SLOW, rq)) {
			h->w.moved++;
			klog(KLOG_DEBUG, "request %016llx: %s %s over the quick lane's %g s: moved to the slow lane",
			     (unsigned long long)id, rq->method, rq->route->path, h->cfg.quick_budget_s);
			return true;
		}
		busy(rs, refusal(rq));
	} else if (why == CANCEL_DEADLINE) {
		free(rs->body);
		rs->body = NULL;
		resp_field_statusf(rs, 503, "read_timeout", -1,
				   "this read took longer than karted's read deadline of %g s "
				   "(--read-timeout) and was stopped; ask for less (a series, p, n, "
				   "a label) or try again later", h->cfg.read_timeout_s);
		rs->retry_after = 1;
	} else if (why == CANCEL_HUNG_UP) {
		busy(rs, "the client went away");	/* nobody reads it */
	} else if (why == CANCEL_STOP) {
		free(rs->body);
		rs->body = NULL;
		busy(rs, "karted is stopping: the import was stopped and nothing of it stored; send it "
		     "again when karted is back");
	}
	return false;
}

/* Stop the work of every running request that reads a file (an import):
 * karted is stopping, and an import may take minutes (loop thread). */
static void stop_file_work(struct http *h)
{
	struct lane *l;
	unsigned i;

	pthread_mutex_lock(&h->w.lock);
	for (l = h->w.lane; l < h->w.lane + LANE_COUNT; l++)
		for (i = 0; i < l->n; i++) {
			struct req *rq = l->running[i];

			if (!rq || rq->cancel_why || !(rq->route->flags & ROUTE_FILE))
				continue;
			rq->cancel_why = CANCEL_STOP;
			if (rq->cancel)
				rq->cancel(rq->cancel_arg);
		}
	pthread_mutex_unlock(&h->w.lock);
}

/* The lane rq's work belongs in, asked of its route once. */
static enum http_lane triage(struct http *h, struct req *rq)
{
	if (rq->triaged || !rq->route->lane)
		return rq->lane;
	rq->triaged = true;
	return rq->route->lane(h->cfg.app, rq);
}

/* glibc's heap returned to the system (malloc_trim) once the arenas hold
 * more than HTTP_TRIM_FREE bytes free: after a large answer, not after
 * every one (a trim after each cost the next request its page faults: a
 * 1 MB isoefficiency answer took a quarter longer). Not under
 * AddressSanitizer, whose allocator replaces glibc's: there malloc_trim
 * walks arenas glibc never set up (a SEGV in mtrim, seen on a worker of an
 * ASan build under load). */
#if defined(__SANITIZE_ADDRESS__)
#define HTTP_NO_TRIM 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HTTP_NO_TRIM 1
#endif
#endif

static void give_back_memory(void)
{
#ifndef HTTP_NO_TRIM
	if (mallinfo2().fordblks > HTTP_TRIM_FREE)
		malloc_trim(0);
#endif
}

/* The request a worker of lane l takes next, out of its queue (the lock
 * held), or NULL: the oldest, except in the slow lane, where a client
 * already running half of its workers waits for others' requests to go
 * first (one client holds at most half of the slow lane). */
static struct req *lane_next(struct http *h, struct lane *l)
{
	struct req **pp, *rq, *prev = NULL;
	unsigned half = (l->n + 1) / 2;

	for (pp = &l->head; (rq = *pp) != NULL; prev = rq, pp = &rq->next_slow)
		if (l != &h->w.lane[LANE_SLOW] || l->n < 2 || client_running(l, rq->client) < half)
			break;
	if (!rq)
		return NULL;
	*pp = rq->next_slow;
	if (l->tail == rq)
		l->tail = prev;
	l->queued--;
	if (l->head)	/* another may be free to take the next */
		pthread_cond_signal(&l->wake);
	return rq;
}

static void *worker_main(void *arg)
{
	struct worker_arg *wa = arg;
	struct http *h = wa->h;
	struct lane *l = &h->w.lane[wa->lane];
	struct req *rq;
	int why;

	pthread_mutex_lock(&h->w.lock);
	for (;;) {
		while (!(rq = lane_next(h, l)) && !h->w.stopping)
			pthread_cond_wait(&l->wake, &h->w.lock);
		if (!rq)
			break;
		l->running[wa->slot] = rq;
		rq->work_started = mono_s();
		pthread_mutex_unlock(&h->w.lock);

		current_req = rq;
		if (hung_up(rq)) {
			busy(&rq->rs, "the client went away");	/* nobody reads it */
		} else if (mono_s() - rq->queued_at > h->cfg.slow_wait_s) {
			busy(&rq->rs, "the analysis waited too long for a worker; try again");
		} else if (wa->lane == LANE_QUICK && triage(h, rq) == LANE_SLOW) {
			/* large work: on to the slow lane before it starts */
			current_req = NULL;
			pthread_mutex_lock(&h->w.lock);
			l->running[wa->slot] = NULL;
			rq->queued_at = mono_s();
			if (lane_push(h, LANE_SLOW, rq)) {
				h->w.moved++;
				continue;	/* the lock is held, as the loop wants */
			}
			pthread_mutex_unlock(&h->w.lock);
			busy(&rq->rs, refusal(rq));
		} else if (rq->route->fn(h->cfg.app, rq, &rq->rs) < 0 && rq->rs.status == 0) {
			resp_errorf(&rq->rs, 500, "internal error");
		}
		current_req = NULL;
		pthread_mutex_lock(&h->w.lock);
		l->running[wa->slot] = NULL;
		rq->cancel = NULL;
		why = rq->cancel_why;
		if (why && after_cancel(h, rq, why))
			continue;	/* moved to the slow lane, the lock held */
		pthread_mutex_unlock(&h->w.lock);
		slow_answered(h, rq);
		/* an analysis may have built a large JSON tree: give the freed
		 * pages back, so a burst of big requests does not leave karted
		 * holding its peak for ever */
		give_back_memory();

		pthread_mutex_lock(&h->w.lock);
	}
	pthread_mutex_unlock(&h->w.lock);
	free(wa);
	return NULL;
}

/* 0, or -1 when not one worker of each lane could start (no eventfd, no thread). */
static int workers_start(struct http *h)
{
	unsigned want[LANE_COUNT] = {h->cfg.quick_workers ? h->cfg.quick_workers : 1,
				     h->cfg.workers ? h->cfg.workers : 1, 1};
	struct worker_arg *wa;
	struct lane *l;
	unsigned i, k;
	char name[16];	/* a thread's name: 15 bytes at most */

	pthread_mutex_init(&h->w.lock, NULL);
	h->w.done_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	for (k = 0; k < LANE_COUNT; k++) {
		l = &h->w.lane[k];
		pthread_cond_init(&l->wake, NULL);
		l->threads = xcalloc(want[k], sizeof(*l->threads));
		l->running = xcalloc(want[k], sizeof(*l->running));
		for (i = 0; h->w.done_fd >= 0 && i < want[k]; i++) {
			wa = xcalloc(1, sizeof(*wa));
			*wa = (struct worker_arg){h, (enum http_lane)k, i};
			if (pthread_create(&l->threads[i], NULL, worker_main, wa)) {
				free(wa);
				break;
			}
			/* top -H and gdb show which lane a thread works in */
			snprintf(name, sizeof(name), "karted-%s%u", (const char *[]){"quick", "slow", "write"}[k], i % 100);
			pthread_setname_np(l->threads[i], name);
		}
		l->n = i;
	}
	return h->w.lane[LANE_QUICK].n && h->w.lane[LANE_SLOW].n && h->w.lane[LANE_WRITE].n ? 0 : -1;
}

static void workers_stop(struct http *h)
{
	unsigned i, k;

	pthread_mutex_lock(&h->w.lock);
	h->w.stopping = true;
	for (k = 0; k < LANE_COUNT; k++)
		pthread_cond_broadcast(&h->w.lane[k].wake);
	pthread_mutex_unlock(&h->w.lock);
	for (k = 0; k < LANE_COUNT; k++) {
		for (i = 0; i < h->w.lane[k].n; i++)
			pthread_join(h->w.lane[k].threads[i], NULL);
		pthread_cond_destroy(&h->w.lane[k].wake);
		free(h->w.lane[k].threads);
		free(h->w.lane[k].running);
	}
	pthread_mutex_destroy(&h->w.lock);
	if (h->w.done_fd >= 0)
		close(h->w.done_fd);
}

/* ---- daemon ------------------------------------------------------------ */

/* Request ids of different runs of karted (and instances) should not
 * repeat: the first is random in its upper 32 bits, the rest counted. */
static uint64_t request_id_start(void)
{
	uint32_t r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (uint32_t)time(NULL) ^ (uint32_t)getpid();
	return ((uint64_t)(r | 1u) << 32) + 1;
}

static int parse_listen(const char *listen, struct sockaddr_storage *ss, bool *v6,
			struct kerr *err)
{
	char host[128];
	const char *colon;
	unsigned long port;
	char *end;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	if (listen[0] == '[') {
		const char *close = strchr(listen, ']');

		if (!close || close[1] != ':')
			goto bad;
		hl = (size_t)(close - listen - 1);
		colon = close + 1;
		listen++;
	} else {
		colon = strrchr(listen, ':');
		if (!colon)
			goto bad;
		hl = (size_t)(colon - listen);
	}
	if (hl == 0 || hl >= sizeof(host))
		goto bad;
	memcpy(host, listen, hl);
	host[hl] = '\0';
	port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || port > 65535)
		goto bad;
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	*v6 = false;
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		((struct sockaddr_in *)ss)->sin_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
		*v6 = true;
		return 0;
	}
bad:
	return kerr_set(err, KERR_INVALID,
			"cannot use listen address '%s': give ADDR:PORT such as 127.0.0.1:8080 or "
			"[::1]:8080", listen);
}

int http_check_listen(const char *listen, struct kerr *err)
{
	struct sockaddr_storage ss;
	bool v6;

	return parse_listen(listen, &ss, &v6, err);
}

/* HTTP_SPIN_US with HTTP_SPIN_CPUS online CPUs or more, else 0 (the loop
 * sleeps at once: waiting awake would take the CPU the writer needs to
 * commit); KARTE_HTTP_SPIN_US (0 to 10000) sets it for measurements. */
static unsigned spin_us(void)
{
	const char *env = getenv("KARTE_HTTP_SPIN_US");
	char *end;
	long v;

	if (env && *env) {
		v = strtol(env, &end, 10);
		if (!*end && v >= 0 && v <= 10000)
			return (unsigned)v;
		klog(KLOG_WARNING, "KARTE_HTTP_SPIN_US must be 0 to 10000 (got '%s'); ignored", env);
	}
	return sysconf(_SC_NPROCESSORS_ONLN) >= HTTP_SPIN_CPUS ? HTTP_SPIN_US : 0;
}

struct http *http_start(const struct http_config *cfg, struct kerr *err)
{
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	struct http *h;
	bool v6;

	if (parse_listen(cfg->listen, &ss, &v6, err))
		return NULL;
	if (v6)
		flags |= MHD_USE_IPv6;
	h = xcalloc(1, sizeof(*h));
	h->cfg = *cfg;
	h->next_id = request_id_start();
	h->spin_us = spin_us();
	if (!h->cfg.max_client_conns)
		h->cfg.max_client_conns = HTTP_CLIENT_CONNS;
	if (!h->cfg.request_timeout_s)
		h->cfg.request_timeout_s = HTTP_REQUEST_TIMEOUT_S;
	if (!h->cfg.body_budget)
		h->cfg.body_budget = HTTP_BODY_BUDGET;
	if (!h->cfg.max_analysis_body)
		h->cfg.max_analysis_body = HTTP_ANALYSIS_BODY;
	if (!h->cfg.max_file_body)
		h->cfg.max_file_body = HTTP_FILE_BODY;
	if (!h->cfg.slow_queue)
		h->cfg.slow_queue = HTTP_SLOW_QUEUE;
	if (!h->cfg.slow_wait_s)
		h->cfg.slow_wait_s = HTTP_SLOW_WAIT_S;
	if (!h->cfg.quick_budget_s)
		h->cfg.quick_budget_s = HTTP_QUICK_BUDGET_S;
	if (!h->cfg.read_timeout_s)
		h->cfg.read_timeout_s = HTTP_READ_TIMEOUT_S;
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				/* idle connections (between requests, or an answer
				 * nobody reads) close after the same time */
				MHD_OPTION_CONNECTION_TIMEOUT, h->cfg.request_timeout_s,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, h->cfg.max_client_conns,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)1000,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(16 * 1024),
				MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned)1,
				MHD_OPTION_END);
	if (!h->d) {
		kerr_set(err, KERR_INTERNAL, "cannot listen on %s (address in use, or not this machine's?)",
			 cfg->listen);
		free(h);
		return NULL;
	}
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : 0;
	if (workers_start(h)) {
		kerr_set(err, KERR_INTERNAL, "cannot start the analysis worker threads: %s", strerror(errno));
		MHD_stop_daemon(h->d);
		workers_stop(h);
		free(h);
		return NULL;
	}
	return h;
}

unsigned http_port(const struct http *h)
{
	return h->port;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Up to HTTP_SPIN_US awake: true as soon as answers are ready or one of
 * fds (MHD's sockets, the wake-ups) has something (then the loop runs at
 * once, nobody is woken). The answers are a flag, looked at every turn
 * (~1 us); the fds cost a system call, so they are looked at every eighth
 * turn: a request that comes meanwhile waits a few us, against a commit's
 * ~100 us. */
static bool wait_awake(struct http *h, struct pollfd *fds, nfds_t n)
{
	double until = mono_s() + h->spin_us * 1e-6;
	unsigned turn;
	int i;

	for (turn = 1;; turn++) {
		if (h->cfg.answers_ready(h->cfg.app) || (turn % 8 == 0 && poll(fds, n, 0) > 0))
			return true;
		for (i = 0; i < 16; i++)
			cpu_relax();
		if (mono_s() >= until)
			return false;
	}
}

int http_loop(struct http *h, int sigfd, unsigned drain_ms)
{
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	/* the signal fd goes last: it leaves the set once a signal came */
	struct pollfd fds[4] = {{info->epoll_fd, POLLIN, 0}, {h->cfg.wake_fd, POLLIN, 0},
				{h->w.done_fd, POLLIN, 0}, {sigfd, POLLIN, 0}};
	uint64_t n;
	struct signalfd_siginfo si;
	MHD_UNSIGNED_LONG_LONG to;
	double deadline = 0;
	int after = 0, sig = 0, timeout;
	MHD_socket fd;

	for (;;) {
		timeout = (int)(SWEEP_S * 1000);
		if (MHD_get_timeout(h->d, &to) == MHD_YES && to < (MHD_UNSIGNED_LONG_LONG)timeout)
			timeout = (int)to;
		/* MHD asks for 0 while handlers wait for their answers; the
		 * writer's wake_fd says when those are there. */
		if ((after & AFTER_WAITING) && timeout == 0)
			timeout = 1000;
		if (sig && timeout > 10)
			timeout = 10;
		if (after & AFTER_ANSWERED)
			timeout = 0;	/* send the answers now */
		if ((after & AFTER_WAITING) && timeout > 0 && h->spin_us && h->cfg.answers_ready &&
		    (!h->cfg.answers_soon || h->cfg.answers_soon(h->cfg.app)) && wait_awake(h, fds, 3))
			timeout = 0;
		if (timeout > 0 && h->cfg.loop_sleeps) {
			h->cfg.loop_sleeps(h->cfg.app, true);
			if (h->cfg.answers_ready(h->cfg.app))
				timeout = 0;	/* came just now: the writer saw no sleeper */
		}
		poll(fds, sig ? 3 : 4, timeout);
		if (h->cfg.loop_sleeps)
			h->cfg.loop_sleeps(h->cfg.app, false);
		/* reset the wake-ups; MHD_run and after_run below send what they announced */
		if ((fds[1].revents & POLLIN) && read(h->cfg.wake_fd, &n, sizeof(n)) < 0)
			n = 0;
		if ((fds[2].revents & POLLIN) && read(h->w.done_fd, &n, sizeof(n)) < 0)
			n = 0;
		if (!sig && (fds[3].revents & POLLIN) && read(sigfd, &si, sizeof(si)) == sizeof(si)) {
			sig = (int)si.ssi_signo;
			klog(KLOG_INFO, "%s: no new connections; finishing requests in flight",
				sig == SIGINT ? "SIGINT" : "SIGTERM");
			fd = MHD_quiesce_daemon(h->d);
			if (fd != MHD_INVALID_SOCKET)
				close(fd);
			deadline = mono_s() + drain_ms / 1000.0;
			stop_file_work(h);	/* an import stops within a second, nothing stored */
		}
		MHD_run(h->d);
		if (mono_s() >= h->next_sweep) {
			double now = mono_s();

			sweep_deadlines(h, now);
			sweep_slow_queue(h, now);
			sweep_running(h, now);
			h->next_sweep = now + SWEEP_S;
		}
		after = h->cfg.after_run ? h->cfg.after_run(h->cfg.app) : 0;
		if (sig && ((h->active == 0 && !(after & AFTER_WAITING)) || mono_s() > deadline))
			return sig;
	}
}

void http_stop(struct http *h)
{
	if (!h)
		return;
	/* workers first: they finish what they hold and resume its connection,
	 * and MHD wants no connection left suspended when it stops */
	workers_stop(h);
	MHD_stop_daemon(h->d);
	free(h);
}
