/*
 * karted: the daemon's shared state handed to every handler, and the
 * routes. The writer owns the only writing connection; readers come from a
 * small pool, one per request that needs one.
 */
#ifndef KARTE_KARTED_H
#define KARTE_KARTED_H

#include <stdbool.h>
#include <stdint.h>

#include "http/http.h"
#include "render/report.h"
#include "store/store.h"
#include "track/watch.h"
#include "store/writer.h"
#include "pool.h"
#include "prober.h"

#define TOKEN_CACHE 16		/* tokens remembered as valid */
#define TOKEN_CACHE_S 1.0	/* for this long: a revoked token works at most 1 s more */
#define TOKEN_DEADLINE_S 1.0	/* a token looked up (on the event loop) is answered within */
#define TOKEN_BAD_CACHE 64	/* tokens remembered as wrong ... */
#define TOKEN_BAD_S 1.0		/* ... for this long: a token created just after it was
				 * tried is refused for at most 1 s */
#define TOKEN_SEEN_MAX 64	/* longer tokens are hashed and looked up every time */

/* A token seen valid (or wrong), kept as sent: a request that repeats it
 * costs a comparison, not a SHA-256 and a query (the database keeps only
 * hashes). */
struct token_seen {
	char token[TOKEN_SEEN_MAX];
	size_t len;
	double until;		/* monotonic seconds */
};

struct karted {
	struct writer *writer;
	struct token_seen tokens[TOKEN_CACHE];
	struct token_seen bad_tokens[TOKEN_BAD_CACHE];
	uint64_t token_queries;	/* tokens looked up in the store (for /metrics and tests) */
	struct pool *readers;
	struct prober *prober;	/* whether the database answers (health) */
	const char *static_dir;	/* NULL: no static files */
	bool read_token;
	struct watch watch;	/* regressions on ingest, alerts */
};

/* A request whose work the writer does; the job comes first, so a done()
 * callback casts its wjob back to the write_req. */
struct write_req {
	struct wjob job;
	struct karted *k;
	struct req *rq;
};

struct write_req *write_req_new(struct karted *k, struct req *rq, enum wjob_kind kind,
				void (*done)(struct wjob *job));
void write_req_submit(void *arg);	/* for req_defer() */

/* Hand call(st, job) with job->arg = arg to the writer (a WJOB_CALL, in its
 * transaction) and answer in done: returns HTTP_PENDING for the route. */
int write_call(struct karted *k, struct req *rq, int (*call)(struct store *st, struct wjob *job),
	       void *arg, void (*done)(struct wjob *job));

/* The API route tables (each ended by a NULL method), and all of them. */
extern const struct route api_routes[];
extern const struct route api_import_routes[];
extern const struct route api_analysis_routes[];
extern const struct route api_model_routes[];
extern const struct route api_region_routes[];
extern const struct route api_history_routes[];
extern const struct route api_alert_routes[];
extern const struct route api_report_routes[];
extern const struct route api_method_routes[];
extern const struct route api_metric_routes[];
extern const struct route api_openapi_routes[];
extern const struct route *const karted_routes[];

/* Draw rep in fmt into rs (or a 500 with Cairo's reason), then free rep. */
void report_respond(struct resp *rs, struct report *rep, enum chart_format fmt);

int api_token_ok(void *app, const char *token);
int api_after_run(void *app);	/* answer what the writer committed */
bool api_answers_ready(void *app);
bool api_answers_soon(void *app);
void api_loop_sleeps(void *app, bool sleeps);
int api_static(void *app, const char *path, struct resp *rs);

#endif
