/*
 * http: karted's HTTP layer on libmicrohttpd, the only file that sees MHD.
 * It collects the body with a size cap, matches the route table, checks the
 * bearer token and the content type, calls the handler and sends what it
 * filled. Handlers may answer later from another thread (HTTP_PENDING, then
 * http_resume()); per-request state is freed only in MHD's completed
 * callback. HTTP runs on one thread, in an event loop (http_loop): after
 * each turn it calls after_run(), where karted hands the writes queued
 * during the turn to its writer thread and answers the committed ones.
 * A pending request is not suspended (that costs two epoll_ctl calls and a
 * wake-up each): MHD calls its handler again, which returns at once until
 * the answer is there. While answers are due the loop first waits awake
 * for up to HTTP_SPIN_US, watching answers_ready() and the sockets, and
 * only then sleeps on wake_fd: a commit takes ~50-200 us, and putting the
 * thread to sleep and waking it costs more than that in CPU and latency
 * (on a VM a wake-up is an interrupt between virtual CPUs). Not while
 * answers_soon() says commits take longer (PostgreSQL: ~1 ms): there the
 * wait would take a CPU from the database server and gain nothing. Nor on
 * a machine of fewer than HTTP_SPIN_CPUS CPUs: the loop, the writer and
 * the clients share them, and a loop awake takes the writer's CPU.
 */
#ifndef KARTE_HTTP_H
#define KARTE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/kerr.h"
#include "core/bounds.h"
#include "resp.h"

struct req;



enum route_flags {
	ROUTE_WRITE = 1 << 0,	/* needs a valid token */
	ROUTE_BODY = 1 << 1,	/* takes a JSON or NDJSON body */
	ROUTE_PREFIX = 1 << 2,	/* path is a prefix; the rest is the param */
	ROUTE_SLOW = 1 << 3,	/* runs on a worker thread, so the loop keeps serving;
				 * the handler must be thread-safe */
	ROUTE_FILE = 1 << 4,	/* takes a file of any Content-Type, up to max_file_body */
};

#define HTTP_SPIN_US 200	/* how long the loop waits awake for due answers */
#define HTTP_SPIN_CPUS 4	/* ... with this many CPUs online or more, else not */

/* Defaults of the limits in struct http_config (0 there takes these). */
#define HTTP_CLIENT_CONNS 64		/* connections one source address may hold */
#define HTTP_REQUEST_TIMEOUT_S 60	/* a whole request must arrive within this */
#define HTTP_BODY_BUDGET (256u << 20)	/* request bodies held at once, all clients */
#define HTTP_ANALYSIS_BODY LIMIT_ANALYSIS_BODY	/* body of a what-if analysis (no token needed) */
#define HTTP_FILE_BODY LIMIT_IMPORT_BODY	/* a file to import */
#define HTTP_SLOW_QUEUE 64		/* analyses waiting for a worker (each lane) */
#define HTTP_SLOW_WAIT_S 30		/* longest wait there before a 503 */
#define HTTP_QUICK_BUDGET_S 0.25	/* a read in the quick lane longer than this moves */
#define HTTP_READ_TIMEOUT_S 30		/* a read's deadline in the slow lane */

#define HTTP_TRIM_FREE (32u << 20) /* free heap bytes past which a worker gives them back */

#define HTTP_PENDING 1		/* handler returned: the answer comes later */

enum { AFTER_ANSWERED = 1, AFTER_WAITING = 2 };

typedef int (*route_fn)(void *app, struct req *rq, struct resp *rs);

/* ROUTE_SLOW work runs in one of three lanes, each with its threads and
 * queue, so that cheap reads never wait behind slow ones, and writers
 * never behind anonymous readers:
 *   LANE_QUICK: reads (GET) start here. A route's lane() may send a
 *     request on to the slow lane at once (it knows the work is large:
 *     a big series, a scan); a read still running after quick_budget_s
 *     is stopped (its store statement interrupted) and moved to the slow
 *     lane, where it starts again. So a quick worker is never held long.
 *   LANE_SLOW: what-if bodies and reads sent on. A read there is stopped
 *     at read_timeout_s (503 naming the deadline). One client (an address
 *     without a token, a token with one) holds at most half of it: half
 *     its queue, half its workers (HTTP_CLIENT_SHARE).
 *   LANE_WRITE: writes that are work, imports (ROUTE_WRITE with
 *     ROUTE_FILE or ROUTE_BODY): a token's requests, with a worker of
 *     their own.
 * A read whose client hangs up is stopped in any lane. */
enum http_lane { LANE_QUICK, LANE_SLOW, LANE_WRITE, LANE_COUNT };

struct route {
	const char *method;	/* "GET", "POST", "DELETE" */
	const char *path;	/* exact path, "{}" for one segment (the param) */
	unsigned flags;		/* enum route_flags */
	route_fn fn;		/* 0: filled rs; HTTP_PENDING: later; -1: 500 */
	/* optional, for ROUTE_SLOW reads: the lane the request's work belongs
	 * in, asked on a quick worker before fn (it may read the store) */
	enum http_lane (*lane)(void *app, struct req *rq);
};

struct http_config {
	const char *listen;	  /* "ADDR:PORT", "[v6]:PORT"; port 0 picks one */
	size_t max_body;	  /* bytes; larger bodies get 413 */
	bool read_token;	  /* reads need a token too */
	const struct route *const *routes; /* NULL-ended list of tables, each ended
					    * by an entry with method NULL */
	/* static files for paths outside /api/; NULL for none. Fills rs, 0 or -1 (404). */
	int (*serve_static)(void *app, const char *path, struct resp *rs);
	/* 1 valid, 0 unknown or revoked (401), -1 the store could not tell (503) */
	int (*token_ok)(void *app, const char *token);
	/* Once per loop turn, after MHD's work: answer what is ready. Returns
	 * AFTER_ANSWERED and/or AFTER_WAITING (answers will come; wake_fd will
	 * tell). */
	int (*after_run)(void *app);
	/* Optional, with after_run: whether answers are ready (cheap, any
	 * thread's data); and told before and after the loop sleeps, so that
	 * wake_fd need be written only while it does. */
	bool (*answers_ready)(void *app);
	void (*loop_sleeps)(void *app, bool sleeps);
	/* Optional: whether answers come soon enough to wait awake for them
	 * (NULL: always). */
	bool (*answers_soon)(void *app);
	int wake_fd;		/* an eventfd polled with the sockets, and read (reset)
				 * by the loop when it was readable; -1 for none */
	unsigned workers;	/* threads of the slow lane (1 when 0) */
	unsigned quick_workers;	/* threads of the quick lane (1 when 0) */
	double quick_budget_s;	/* 0: HTTP_QUICK_BUDGET_S */
	double read_timeout_s;	/* 0: HTTP_READ_TIMEOUT_S; < 0: none */
	bool access_log;	/* a line on stderr for each answer below 500 (5xx always) */
	/* Limits against hostile clients (0: the HTTP_* default above). A
	 * client is a source address. A request (headers and body) must arrive
	 * within request_timeout_s of its connection's opening or of the
	 * previous answer on it, however slowly it trickles; bodies beyond
	 * body_budget, all requests together, and analyses beyond slow_queue
	 * waiting, get 503 with Retry-After. */
	unsigned max_client_conns;
	unsigned request_timeout_s;
	size_t body_budget;
	size_t max_analysis_body;	/* bodies of routes without ROUTE_WRITE (<= max_body) */
	size_t max_file_body;		/* bodies of ROUTE_FILE routes (imports) */
	unsigned slow_queue;
	unsigned slow_wait_s;
	/* Host names served besides the listen address, localhost, 127.0.0.1
	 * and [::1] (NULL-ended, or NULL); "*" serves any. Other Hosts get 421. */
	const char *const *allowed_hosts;
	void *app;
};

struct http;

/* 0 when listen is a usable "ADDR:PORT", else -1 and err (nothing bound). */
int http_check_listen(const char *listen, struct kerr *err);

/* Start serving. NULL and err when the address is bad or taken. */
struct http *http_start(const struct http_config *cfg, struct kerr *err);

/* The port actually bound (useful with port 0). */
unsigned http_port(const struct http *h);

/* Serve on the calling thread until a signal arrives on sigfd (a
 * signalfd). Then stop accepting, let the requests in flight finish (at
 * most drain_ms) and return the signal number. Handlers and after_run all
 * run on this thread. */
int http_loop(struct http *h, int sigfd, unsigned drain_ms);

/* Close every connection and free h. Accepts NULL. */
void http_stop(struct http *h);

/* Accessors for handlers. */
/* What karted's own /metrics shows of HTTP: answers by status class and
 * their latency (from the headers read to the answer queued), counted on
 * the event loop since start; latency[b] counts those within
 * http_latency_le[b] and above the bucket before, the last one the rest. */
#define HTTP_LATENCY_BUCKETS 12
extern const double http_latency_le[HTTP_LATENCY_BUCKETS];
struct http_metrics {
	uint64_t by_class[6];	/* [status / 100] */
	uint64_t latency[HTTP_LATENCY_BUCKETS + 1];
	double latency_sum;
	int active;		/* requests in progress */
	unsigned slow_queued;	/* analyses waiting for a worker, every lane */
	unsigned quick_queued;	/* of which in the quick lane */
	uint64_t client_share;	/* slow-lane requests refused: their client held half of it */
	uint64_t moved;		/* reads sent from the quick lane to the slow one */
	uint64_t cancelled_deadline;	/* reads stopped at the read deadline */
	uint64_t cancelled_hung_up;	/* reads stopped because their client left */
};
void req_http_metrics(const struct req *rq, struct http_metrics *out);	/* loop thread */

const char *req_method(const struct req *rq);
const char *req_path(const struct req *rq);
const char *req_param(const struct req *rq);		/* the {} segment, or NULL */
const char *req_query(const struct req *rq, const char *key);	/* first value or NULL */
/* Call each(value, ctx) for every value of a repeated query key. */
void req_query_each(const struct req *rq, const char *key,
		    void (*each)(const char *value, void *ctx), void *ctx);
/* Call each(key, value, ctx) for every query parameter, in order. */
void req_query_all(const struct req *rq, void (*each)(const char *key, const char *value, void *ctx),
		   void *ctx);
const char *req_header(const struct req *rq, const char *name);
const char *req_body(const struct req *rq, size_t *len);
bool req_is_ndjson(const struct req *rq);

/* The body as a JSON object (a new reference); NULL with a 400 in rs when
 * it is not valid JSON or not an object. */
json_t *req_json_object(struct req *rq, struct resp *rs);

/* The request a worker thread runs now (NULL on any other thread): what
 * the reader pool registers its connection with (req_on_cancel). */
struct req *http_current(void);

/* Register what stops rq's work (fn(arg), any thread: interrupt a store
 * statement) when it is cancelled (its client hung up, a deadline, a move
 * to the slow lane); fn NULL to unregister. When rq is cancelled already,
 * fn is called at once. rq NULL: nothing. */
void req_on_cancel(struct req *rq, void (*fn)(void *arg), void *arg);

/* For a handler that answers later: after the handler returns HTTP_PENDING,
 * http.c calls start(arg), which queues the work; when it is done, the
 * loop thread fills req_resp(rq) and calls http_resume(rq). */
void req_defer(struct req *rq, void (*start)(void *arg), void *arg);
void http_resume(struct req *rq);

/* The answer to a pending request, to fill before http_resume(). */
struct resp *req_resp(struct req *rq);

#endif
