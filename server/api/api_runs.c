/* The Runs part of HTTP API v1: post, list, get, delete, counts. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/jsonw.h"
#include "core/num.h"
#include "series.h"
#include "core/csvsafe.h"
#include "karted.h"
#include "core/token.h"
#include "core/xalloc.h"
#include "core/mono.h"
#include "core/klog.h"

#define PAGE_DEFAULT 100
#define PAGE_MAX     1000

/* Every byte compared whatever differs, so the time says nothing of how
 * much of a guess was right. */
static bool same_token(const struct token_seen *t, const char *token, size_t len)
{
	unsigned char diff = 0;
	size_t i;

	if (t->len != len)
		return false;
	for (i = 0; i < len; i++)
		diff |= (unsigned char)(t->token[i] ^ token[i]);
	return diff == 0;
}

/* Whether token is in memo[0..n) and fresh; else *slot is the entry to
 * reuse (the stalest). */
static bool memo_has(struct token_seen *memo, size_t n, const char *token, size_t len, double now,
		     struct token_seen **slot)
{
	size_t i;

	*slot = &memo[0];
	for (i = 0; i < n; i++) {
		if (memo[i].until > now && same_token(&memo[i], token, len))
			return true;
		if (memo[i].until < (*slot)->until)
			*slot = &memo[i];
	}
	return false;
}

/* Valid tokens are remembered for TOKEN_CACHE_S, so a busy job script costs
 * a comparison, not a hash and a query, per request; revocation takes
 * effect within that. Wrong ones are remembered for TOKEN_BAD_S, so a
 * flood of one bad bearer costs one query. A store that cannot answer is
 * -1 (a 503), never a "no": a valid token is never refused because the
 * database blinked. */
int api_token_ok(void *app, const char *token)
{
	struct karted *k = app;
	char hash[TOKEN_HASH_LEN + 1];
	struct token_seen *slot, *bad;
	struct store *st;
	struct kerr err;
	double now = mono_s();
	size_t len = strlen(token);
	int ok;

	if (len > 256)
		return 0;
	if (memo_has(k->tokens, TOKEN_CACHE, token, len, now, &slot))
		return 1;
	if (memo_has(k->bad_tokens, TOKEN_BAD_CACHE, token, len, now, &bad))
		return 0;
	token_hash(token, len, hash);
	kerr_clear(&err);
	st = pool_get(k->readers);
	/* on the event loop: an answer within TOKEN_DEADLINE_S, or a 503 (a
	 * database that stalls never freezes the loop) */
	store_set_deadline(st, TOKEN_DEADLINE_S);
	ok = store_token_valid(st, hash, &err);
	store_set_deadline(st, 0);
	pool_put(k->readers, st);
	k->token_queries++;
	if (ok < 0) {
		klog(KLOG_ERROR, "cannot check a token: %s", KERR_TEXT(&err));
		return -1;
	}
	if (len <= TOKEN_SEEN_MAX) {
		if (!ok)
			slot = bad;
		memcpy(slot->token, token, len);
		slot->len = len;
		slot->until = now + (ok ? TOKEN_CACHE_S : TOKEN_BAD_S);
	}
	return ok;
}

bool api_answers_ready(void *app)
{
	return writer_has_done(((struct karted *)app)->writer);
}

bool api_answers_soon(void *app)
{
	return writer_commits_short(((struct karted *)app)->writer);
}

void api_loop_sleeps(void *app, bool sleeps)
{
	writer_loop_sleeps(((struct karted *)app)->writer, sleeps);
}

int api_after_run(void *app)
{
	struct karted *k = app;
	bool waiting;
	size_t answered = writer_turn(k->writer, &waiting);

	return (answered ? AFTER_ANSWERED : 0) | (waiting ? AFTER_WAITING : 0);
}

/* ---- POST /api/v1/runs, DELETE /api/v1/runs/{id}: through the writer ---- */


static void post_done(struct wjob *job)
{
	struct write_req *w = (struct write_req *)job;
	struct resp *rs = req_resp(w->rq);
	size_t len;

	if (job->rc) {
		resp_error(rs, &job->err);
	} else {
		/* {"ids":[...],"verdicts":[...],"alerts":[...]} written directly:
		 * this is the hot path of a POST */
		size_t i, alerts = job->alerts ? strlen(job->alerts) : 2;

		rs->body = xmalloc(48 + 40 * job->batch.count + alerts);
		memcpy(rs->body, "{\"ids\":[", 8);
		len = 8 + resp_put_ids(rs->body + 8, job->ids, job->batch.count);
		if (job->verdicts) {
			memcpy(rs->body + len, "],\"verdicts\":[", 14);
			len += 14;
			for (i = 0; i < job->batch.count; i++) {
				const char *v = watch_verdict_name(job->verdicts[i]);

				if (i)
					rs->body[len++] = ',';
				if (v)
					len += (size_t)sprintf(rs->body + len, "\"%s\"", v);
				else
					len += (size_t)sprintf(rs->body + len, "null");
			}
		}
		memcpy(rs->body + len, "],\"alerts\":", 11);
		len += 11;
		memcpy(rs->body + len, job->alerts ? job->alerts : "[]", alerts);
		len += alerts;
		memcpy(rs->body + len, "}", 2);
		rs->len = len + 1;
		rs->content_type = "application/json";
		/* 201 when something was created; 200 when every run was a repeat */
		rs->status = job->fresh ? 201 : 200;
	}
	run_batch_free(&job->batch);
	free(job->ids);
	free(job->verdicts);
	free(job->alerts);
	http_resume(w->rq);
	free(w);
}

void write_req_submit(void *arg)
{
	struct write_req *w = arg;

	writer_submit(w->k->writer, &w->job);
}

struct write_req *write_req_new(struct karted *k, struct req *rq, enum wjob_kind kind,
				void (*done)(struct wjob *job))
{
	struct write_req *w = xcalloc(1, sizeof(*w));

	w->k = k;
	w->rq = rq;
	w->job.kind = kind;
	w->job.done = done;
	return w;
}

int write_call(struct karted *k, struct req *rq, int (*call)(struct store *st, struct wjob *job),
	       void *arg, void (*done)(struct wjob *job))
{
	struct write_req *w = write_req_new(k, rq, WJOB_CALL, done);

	w->job.call = call;
	w->job.arg = arg;
	req_defer(rq, write_req_submit, w);
	return HTTP_PENDING;
}

static int post_runs(void *app, struct req *rq, struct resp *rs)
{
	struct write_req *w = write_req_new(app, rq, WJOB_RUNS, post_done);
	struct kerr err;
	const char *body;
	size_t len;

	body = req_body(rq, &len);
	if (run_parse_body(body, len, req_is_ndjson(rq) ? BODY_NDJSON : BODY_JSON, &w->job.batch,
			   &err)) {
		free(w);
		resp_error(rs, &err);
		return 0;
	}
	w->job.ids = xcalloc(w->job.batch.count, sizeof(*w->job.ids));
	if (w->k->watch.enabled)	/* held against their baselines after the commit */
		w->job.verdicts = xcalloc(w->job.batch.count, 1);
	req_defer(rq, write_req_submit, w);
	return HTTP_PENDING;
}

/* A run id from the path: a positive integer, else 404. */
static int run_id_of(struct req *rq, struct resp *rs, int64_t *id)
{
	struct kerr err;

	kerr_clear(&err);
	if (!path_id(rq, "run", id, &err))
		return 0;
	resp_error(rs, &err);
	return -1;
}

static void delete_done(struct wjob *job)
{
	struct write_req *w = (struct write_req *)job;
	struct resp *rs = req_resp(w->rq);

	if (job->rc)
		resp_error(rs, &job->err);
	else if (!job->deleted)
		resp_errorf(rs, 404, "there is no run with id %" PRId64, job->id);
	else
		resp_json(rs, 200, json_pack("{s:I}", "deleted", (json_int_t)job->id));
	http_resume(w->rq);
	free(w);
}

static int delete_run(void *app, struct req *rq, struct resp *rs)
{
	struct write_req *w;
	int64_t id;

	if (run_id_of(rq, rs, &id))
		return 0;
	w = write_req_new(app, rq, WJOB_DELETE, delete_done);
	w->job.id = id;
	req_defer(rq, write_req_submit, w);
	return HTTP_PENDING;
}

/* ---- reads ------------------------------------------------------------- */

static int get_run(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	struct kerr err;
	struct store *st;
	struct run r;
	int64_t id;
	int rc;

	if (run_id_of(rq, rs, &id))
		return 0;
	kerr_clear(&err);	/* a 404 sets no field: none must come from the stack */
	st = pool_get(k->readers);
	rc = store_get_run(st, id, &r, &err);
	pool_put(k->readers, st);
	if (rc) {
		resp_error(rs, &err);
		return 0;
	}
	resp_json(rs, 200, run_to_json(&r));
	run_clear(&r);
	return 0;
}

struct list_ctx {
	json_t *runs;
	int64_t limit, last_id;
	size_t count;
	bool more;
};

static int add_run(const struct run *r, void *ctx)
{
	struct list_ctx *c = ctx;

	if ((int64_t)c->count == c->limit) {
		c->more = true;	/* the limit+1st row: there is a next page */
		return 1;
	}
	json_array_append_new(c->runs, run_to_json(r));
	c->last_id = r->id;
	c->count++;
	return 0;
}

/* ---- export: every field, as NDJSON or CSV, in pages ------------------------ */

#define EXPORT_DEFAULT 10000
#define EXPORT_MAX     100000
#define EXPORT_BYTES   (HTTP_ANSWER_MAX - (64u << 10))	/* a page ends before the answer cap */

static const char csv_header[] = "id,created_at,system,application,variant,p,n,tau,chi,gamma,"
				 "frequency_mhz,power_cap_w,energy_j,measured_at,idempotency_key,"
				 "labels,regions\r\n";

struct export_ctx {
	bool csv;
	char *buf;
	size_t len, cap;
	int64_t limit, last_id;
	size_t count;
	bool more;
};

static void out_add(struct export_ctx *c, const char *s, size_t n)
{
	if (c->len + n + 1 > c->cap) {
		c->cap = c->cap ? c->cap : 65536;
		while (c->len + n + 1 > c->cap)
			c->cap *= 2;
		c->buf = xrealloc(c->buf, c->cap);
	}
	memcpy(c->buf + c->len, s, n);
	c->len += n;
	c->buf[c->len] = '\0';
}

/* A CSV cell, quoted when it holds a separator, a quote, a line end or
 * blanks at its ends (RFC 4180); one a spreadsheet would run as a formula
 * gets an apostrophe in front (csvsafe.h). */
static void out_cell(struct export_ctx *c, const char *s, bool last)
{
	size_t n = s ? strlen(s) : 0, i;
	bool risky = csv_cell_risky(s, n);
	bool quote = n && (strpbrk(s, ",\"\r\n") || s[0] == ' ' || s[n - 1] == ' ' || s[0] == '\t');

	if (quote) {
		out_add(c, risky ? "\"'" : "\"", risky ? 2 : 1);
		for (i = 0; i < n; i++)
			out_add(c, s[i] == '"' ? "\"\"" : s + i, s[i] == '"' ? 2 : 1);
		out_add(c, "\"", 1);
	} else if (n) {
		if (risky)
			out_add(c, "'", 1);
		out_add(c, s, n);
	}
	out_add(c, last ? "\r\n" : ",", last ? 2 : 1);
}

static void out_num(struct export_ctx *c, bool has, double v)
{
	char t[NUM_TEXT_MAX];

	if (has)
		num_shortest(v, t, false);	/* as written: 2535.05, not 2535.0500000000002 */
	out_cell(c, has ? t : NULL, false);
}

static int export_run(const struct run *r, void *ctx)
{
	struct export_ctx *c = ctx;
	char t[32];

	if ((int64_t)c->count == c->limit || c->len > EXPORT_BYTES) {
		c->more = true;
		return 1;
	}
	if (!c->csv) {
		json_t *o = run_to_json(r);
		char *line;

		json_object_del(o, "efficiency");	/* derived: chi / tau */
		line = jsonw_string(o, NULL);
		json_decref(o);
		if (!line)
			return -1;
		out_add(c, line, strlen(line));
		out_add(c, "\n", 1);
		free(line);
	} else {
		snprintf(t, sizeof(t), "%" PRId64, r->id);
		out_cell(c, t, false);
		out_cell(c, r->created_at, false);
		out_cell(c, r->system, false);
		out_cell(c, r->application, false);
		out_cell(c, r->variant, false);
		snprintf(t, sizeof(t), "%" PRId64, r->p);
		out_cell(c, t, false);
		out_num(c, true, r->n);
		out_num(c, true, r->tau);
		out_num(c, r->has & RUN_HAS_CHI, r->chi);
		out_num(c, r->has & RUN_HAS_CHI, r->gamma);
		out_num(c, r->has & RUN_HAS_FREQ, r->frequency_mhz);
		out_num(c, r->has & RUN_HAS_CAP, r->power_cap_w);
		out_num(c, r->has & RUN_HAS_ENERGY, r->energy_j);
		out_cell(c, r->measured_at, false);
		out_cell(c, r->idempotency_key, false);
		out_cell(c, r->labels, false);
		out_cell(c, r->regions, true);
	}
	c->last_id = r->id;
	c->count++;
	return 0;
}

static int export_runs(struct karted *k, struct run_filter *f, const char *format, struct req *rq,
		       struct resp *rs)
{
	struct export_ctx c = {0};
	char next[32];
	struct kerr err;
	struct store *st;
	int rc;

	kerr_clear(&err);
	if (strcmp(format, "csv") && strcmp(format, "ndjson"))
		return resp_field_errorf(rs, "format", -1, "format must be csv or ndjson (got '%.40s'); "
					 "without format the answer is a JSON page", format);
	c.csv = !strcmp(format, "csv");
	c.limit = EXPORT_DEFAULT;
	if (query_int(rq, "limit", 1, EXPORT_MAX, &c.limit, &err)) {
		resp_error(rs, &err);
		return 0;
	}
	f->limit = c.limit + 1;
	if (c.csv)
		out_add(&c, csv_header, sizeof(csv_header) - 1);
	st = pool_get(k->readers);
	rc = store_each_run(st, f, export_run, &c, &err);
	pool_put(k->readers, st);
	if (rc < 0) {
		free(c.buf);
		resp_error(rs, &err);
		return 0;
	}
	rs->status = 200;
	rs->body = c.buf ? c.buf : xstrdup("");
	rs->len = c.len;
	rs->content_type = c.csv ? "text/csv; charset=utf-8" : "application/x-ndjson";
	/* the next page, as the JSON listing's "next": runs older than this id */
	if (c.more) {
		snprintf(next, sizeof(next), "%" PRId64, c.last_id);
		rs->next = xstrdup(next);
		query_link_next(rq, rs, next);
	}
	return 0;
}

static int list_runs(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	struct run_filter f = {0};
	struct list_ctx c = {0};
	struct label_set ls;
	struct kerr err;
	struct store *st;
	const char *s;
	char next[24];
	int rc;

	kerr_clear(&err);
	if (query_labels(rq, &ls, &err)) {
		resp_error(rs, &err);
		return 0;
	}
	f.labels = ls.eq;
	f.nlabels = ls.n;
	f.system = req_query(rq, "system");
	f.application = req_query(rq, "application");
	f.variant = req_query(rq, "variant");
	c.limit = PAGE_DEFAULT;
	if (query_int(rq, "p", 1, 1000000000, &f.p, &err) ||
	    (!req_query(rq, "format") && query_int(rq, "limit", 1, PAGE_MAX, &c.limit, &err)) ||
	    query_int(rq, "after", 1, INT64_MAX, &f.before_id, &err)) {
		resp_error(rs, &err);
		return 0;
	}
	if (fields_read(rq, NULL, &(const struct field){"n", FIELD_NUMBER, FIELD_ABOVE_LO, 0, HUGE_VAL, &f.n, 0},
			1, &err)) {
		resp_error(rs, &err);
		return 0;
	}
	if ((s = req_query(rq, "format")))
		return export_runs(k, &f, s, rq, rs);
	f.limit = c.limit + 1;
	c.runs = json_array();
	st = pool_get(k->readers);
	rc = store_each_run(st, &f, add_run, &c, &err);
	pool_put(k->readers, st);
	if (rc < 0) {
		json_decref(c.runs);
		resp_error(rs, &err);
		return 0;
	}
	snprintf(next, sizeof(next), "%" PRId64, c.last_id);
	resp_json(rs, 200, json_pack("{s:o,s:o}", "runs", c.runs, "next",
				     c.more ? json_string(next) : json_null()));
	if (c.more && rs->status == 200)
		query_link_next(rq, rs, next);
	return 0;
}

static void has_label(const char *key, const char *value, void *ctx)
{
	(void)value;
	if (!strncmp(key, "label.", 6))
		*(bool *)ctx = true;
}

/* A listing is quick when an index gives its runs in order: no filter, a
 * whole series (with p and n or not), or a label (run_labels); a filter
 * on p, n, a system or an application alone walks runs until a page is
 * full, and an export reads up to 100,000: the slow lane. */
static enum http_lane runs_lane(void *app, struct req *rq)
{
	bool series = req_query(rq, "system") && req_query(rq, "application") &&
		      req_query(rq, "variant");
	bool label = false, other = false;

	(void)app;
	req_query_all(rq, has_label, &label);
	if (req_query(rq, "format"))
		return LANE_SLOW;
	other = req_query(rq, "p") || req_query(rq, "n") || req_query(rq, "system") ||
		req_query(rq, "application") || req_query(rq, "variant");
	return series || label || !other ? LANE_QUICK : LANE_SLOW;
}

struct group_ctx {
	json_t *rows;
	enum store_group g;
};

static int add_group(const struct store_group_row *row, void *ctx)
{
	struct group_ctx *c = ctx;
	json_t *o;

	switch (c->g) {
	case GROUP_SYSTEM:
		o = json_pack("{s:s}", "name", row->system);
		break;
	case GROUP_APPLICATION:
		o = json_pack("{s:s}", "name", row->application);
		break;
	default:
		o = json_pack("{s:s,s:s,s:s}", "system", row->system, "application",
			      row->application, "variant", row->variant);
		break;
	}
	json_object_set_new(o, "runs", json_integer(row->runs));
	json_object_set_new(o, "last_run_at", json_string(row->last_run_at));
	json_array_append_new(c->rows, o);
	return 0;
}

static int list_group(struct karted *k, enum store_group g, const char *key, struct resp *rs)
{
	struct group_ctx c = {json_array(), g};
	struct kerr err;
	struct store *st;
	int rc;

	kerr_clear(&err);
	st = pool_get(k->readers);
	rc = store_each_group(st, g, add_group, &c, &err);
	pool_put(k->readers, st);
	if (rc < 0) {
		json_decref(c.rows);
		resp_error(rs, &err);
		return 0;
	}
	resp_json(rs, 200, json_pack("{s:o}", key, c.rows));
	return 0;
}

static int list_systems(void *app, struct req *rq, struct resp *rs)
{
	(void)rq;
	return list_group(app, GROUP_SYSTEM, "systems", rs);
}

static int list_applications(void *app, struct req *rq, struct resp *rs)
{
	(void)rq;
	return list_group(app, GROUP_APPLICATION, "applications", rs);
}

static int list_series(void *app, struct req *rq, struct resp *rs)
{
	(void)rq;
	return list_group(app, GROUP_SERIES, "series", rs);
}

/* A load balancer's probe: what the prober learned last, never a wait on
 * the database (prober.h): 503 while it does not answer. */
static int health(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	const char *backend;
	char why[256];
	int version;
	struct kerr err;

	(void)rq;
	if (!prober_ok(k->prober, &backend, &version, why, sizeof(why))) {
		kerr_clear(&err);
		kerr_store(&err, "probing", why);
		snprintf(err.msg, sizeof(err.msg), "the database cannot be reached");
		resp_error_with(rs, &err, json_pack("{s:s,s:s}", "status", "unavailable", "store", backend));
		return 0;
	}
	resp_json(rs, 200, json_pack("{s:s,s:s,s:i,s:I,s:I,s:f}", "status", "ok", "store", backend,
				     "schema_version", version,
				     "write_commits", (json_int_t)writer_stats(k->writer)->commits,
				     "write_requests", (json_int_t)writer_stats(k->writer)->jobs,
				     "write_busy_s", writer_stats(k->writer)->busy_ns * 1e-9));
	return 0;
}

const struct route api_routes[] = {
	{"POST", "/api/v1/runs", ROUTE_WRITE | ROUTE_BODY, post_runs, NULL},
	/* a filter on p or n, or none on the series, may walk many runs to
	 * fill a page: on a worker, never on the event loop */
	{"GET", "/api/v1/runs", ROUTE_SLOW, list_runs, runs_lane},
	/* reads of the store run on workers (the quick lane), never on the
	 * event loop: a database that stalls holds a worker, not the loop */
	{"GET", "/api/v1/runs/{}", ROUTE_SLOW, get_run, NULL},
	{"DELETE", "/api/v1/runs/{}", ROUTE_WRITE, delete_run, NULL},
	{"GET", "/api/v1/systems", ROUTE_SLOW, list_systems, NULL},
	{"GET", "/api/v1/applications", ROUTE_SLOW, list_applications, NULL},
	{"GET", "/api/v1/series", ROUTE_SLOW, list_series, NULL},
	{"GET", "/api/v1/health", 0, health, NULL},
	{NULL, NULL, 0, NULL, NULL},
};
