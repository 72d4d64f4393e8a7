/*
 * POST /api/v1/import: another tool's file in, runs out. The file is read
 * and mapped on a worker thread (import.c); its runs are then stored by
 * the writer while the worker waits: up to IMPORT_IN_PARTS runs in one
 * transaction, like a POST of runs; more in parts (store.h, schema 10):
 * their ids reserved, each part committed between the other writes (sized
 * to take about IMPORT_PART_NS, so a single-run POST waits at most one
 * part), and all of them shown in one last commit; a failure, or a karted
 * that dies, leaves none of them. One import is read and stored at a time,
 * so imports never hold every worker from the analyses.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonw.h"
#include "import/import.h"
#include "karted.h"
#include "query.h"
#include "core/mono.h"
#include "core/xalloc.h"

static atomic_bool importing;

#define IMPORT_IN_PARTS 20000		/* more runs than this are stored in parts */
#define IMPORT_PART_FIRST 2000		/* runs of the first part */
#define IMPORT_PART_MIN 500
#define IMPORT_PART_MAX 100000
#define IMPORT_PART_NS 50000000.0	/* what a part should take: 50 ms */
#define IMPORT_STALE_S 60		/* a pending import without a part this long was left */

struct import_job {
	struct wjob job;	/* first: done() casts back */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
};

/* On the writer thread, right after the commit. */
static void import_done(struct wjob *job)
{
	struct import_job *j = (struct import_job *)job;

	pthread_mutex_lock(&j->lock);
	j->done = true;
	pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
}

struct query {
	struct import_opts *o;
	struct kerr *err;
};

static const char *const keys[] = {
	"format", "system", "application", "variant", "p", "n", "n_value", "metric", "region",
	"time_unit", "chi_regions", "gamma_regions",
};

static void take_param(const char *key, const char *value, void *ctx)
{
	struct query *q = ctx;
	struct import_opts *o = q->o;
	size_t i;

	if (q->err->code)
		return;
	if (!strncmp(key, "col.", 4)) {
		if (!key[4] || !*value) {
			kerr_field(q->err, KERR_INVALID, key, "col.FIELD=HEADER needs a field and a column name");
			return;
		}
		if (o->ncols == IMPORT_COLS_MAX) {
			kerr_field(q->err, KERR_TOO_LARGE, key, "at most %d col. mappings", IMPORT_COLS_MAX);
			return;
		}
		o->cols[o->ncols].field = key + 4;
		o->cols[o->ncols++].header = value;
		return;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && strcmp(keys[i], key); i++)
		;
	if (i == sizeof(keys) / sizeof(keys[0]))
		kerr_field(q->err, KERR_INVALID, key, "'%.40s' is not a parameter of the import (format, system, "
			   "application, variant, p, n, n_value, metric, region, chi_regions, "
			   "gamma_regions, time_unit, col.FIELD)", key);
}

/* The options from the query string; -1 with err. */
static int import_opts_of(struct req *rq, struct import_opts *o, struct kerr *err)
{
	struct query q = {o, err};
	const char *s;

	memset(o, 0, sizeof(*o));
	req_query_all(rq, take_param, &q);
	if (err->code)
		return -1;
	o->format = req_query(rq, "format");
	o->system = req_query(rq, "system");
	o->application = req_query(rq, "application");
	o->variant = req_query(rq, "variant");
	o->p = req_query(rq, "p");
	o->n = req_query(rq, "n");
	o->metric = req_query(rq, "metric");
	o->region = req_query(rq, "region");
	o->chi_regions = req_query(rq, "chi_regions");
	o->gamma_regions = req_query(rq, "gamma_regions");
	if (o->chi_regions && o->gamma_regions)
		return kerr_field(err, KERR_INVALID, "gamma_regions", "give chi_regions or gamma_regions, not both");
	if (fields_read(rq, NULL, &(const struct field){"n_value", FIELD_NUMBER, FIELD_ABOVE_LO, 0, HUGE_VAL,
							 &o->n_value, 0}, 1, err))
		return -1;
	o->has_n_value = req_query(rq, "n_value") != NULL;
	if ((s = req_query(rq, "time_unit"))) {
		static const struct {
			const char *name;
			double scale;
		} units[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
		size_t i;

		for (i = 0; i < 4 && strcmp(units[i].name, s); i++)
			;
		if (i == 4)
			return kerr_field(err, KERR_INVALID, "time_unit", "time_unit must be s, ms, us or ns "
					  "(got '%.40s')", s);
		o->time_scale = units[i].scale;
	}
	return 0;
}

/* {"ids":[...],"runs",...}: the ids written directly (a million of them
 * would be a large tree), the rest by jansson; 201 when fresh runs were
 * stored, 200 for a repeat. */
static void answer(struct resp *rs, const int64_t *ids, const struct import_result *res, size_t fresh)
{
	json_t *rest = json_pack("{s:I,s:I,s:O,s:o,s:O,s:s,s:I}", "runs", (json_int_t)res->batch.count,
				 "points", (json_int_t)res->points, "regions", res->regions, "labels",
				 res->labels ? json_incref(res->labels) : json_array(),
				 "warnings", res->warnings, "format", res->format,
				 "stored", (json_int_t)fresh);
	char *tail = jsonw_string(rest, NULL);
	size_t len, tl = tail ? strlen(tail) : 0, n = res->batch.count;
	int status = fresh ? 201 : 200;

	json_decref(rest);
	if (!tail) {
		resp_errorf(rs, 500, "internal error: the answer could not be written");
		return;
	}
	rs->body = xmalloc(16 + 21 * n + tl);
	memcpy(rs->body, "{\"ids\":[", 8);
	len = 8 + resp_put_ids(rs->body + 8, ids, n);
	len += (size_t)sprintf(rs->body + len, "]%s%s", tl > 2 ? "," : "", tail + 1);
	free(tail);
	rs->len = len;
	rs->status = status;
	rs->content_type = "application/json";
}

/* Run call(st, job) with job->arg = arg on the writer and wait for it;
 * its rc, err filled. */
static int writer_wait(struct karted *k, int (*call)(struct store *st, struct wjob *job), void *arg,
		       struct kerr *err)
{
	struct import_job *j = xcalloc(1, sizeof(*j));
	int rc;

	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	j->job.kind = WJOB_CALL;
	j->job.call = call;
	j->job.arg = arg;
	j->job.done = import_done;
	j->job.done_in_writer = true;
	writer_submit(k->writer, &j->job);
	pthread_mutex_lock(&j->lock);
	while (!j->done)
		pthread_cond_wait(&j->cond, &j->lock);
	pthread_mutex_unlock(&j->lock);
	rc = j->job.rc;
	if (rc)
		*err = j->job.err;
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->cond);
	free(j);
	return rc;
}

/* An import in parts: what each step of the writer needs. */
struct parts {
	const struct run_batch *b;
	const char *hash;	/* "" for none */
	int64_t *ids;		/* out: per run */
	int64_t *series;	/* per run: its series, 0 for a repeat (stored before) */
	size_t from, to;	/* the part to store now */
	size_t fresh;
	int64_t lo;		/* the reserved ids: lo .. lo + b->count - 1 */
	bool repeat;		/* the hash was imported before: ids from there */
	enum { P_RESERVE, P_PART, P_PUBLISH, P_DISCARD } step;
	const struct import_opts *o;	/* its cancel flag, looked at between parts */
};

static int cmp_count(const void *a, const void *b)
{
	const struct store_series_count *x = a, *y = b;

	return x->series < y->series ? -1 : x->series > y->series;
}

/* The fresh runs' counts per series, into *out (malloc'd); how many series. */
static size_t series_counts(const struct parts *p, struct store_series_count **out)
{
	struct store_series_count *c = xcalloc(p->b->count + 1, sizeof(*c));
	size_t i, n = 0, k;

	for (i = 0; i < p->b->count; i++)
		if (p->series[i])
			c[n++] = (struct store_series_count){p->series[i], 1, p->ids[i]};
	qsort(c, n, sizeof(*c), cmp_count);
	for (i = 0, k = 0; i < n; i++) {
		if (k && c[k - 1].series == c[i].series) {
			c[k - 1].runs++;
			if (c[i].last_id > c[k - 1].last_id)
				c[k - 1].last_id = c[i].last_id;
		} else {
			c[k++] = c[i];
		}
	}
	*out = c;
	return k;
}

static int parts_call(struct store *st, struct wjob *job)
{
	struct parts *p = job->arg;
	struct store_series_count *counts;
	char stale[32];
	int64_t first, runs;
	size_t i, n;
	bool existed;
	int rc;

	switch (p->step) {
	case P_RESERVE:
		if (*p->hash) {
			rc = store_import_find(st, p->hash, &first, &runs, &job->err);
			if (rc < 0)
				return -1;
			if (rc == 1) {	/* imported before: its ids, nothing new */
				p->repeat = true;
				for (i = 0; i < p->b->count; i++)
					p->ids[i] = first + (int64_t)(i < (size_t)runs ? i : (size_t)runs - 1);
				return 0;
			}
		}
		store_utc_text(time(NULL) - IMPORT_STALE_S, 0, stale, sizeof(stale));
		return store_import_reserve(st, p->hash, (int64_t)p->b->count, stale, &p->lo, &job->err);
	case P_PART:
		for (i = p->from; i < p->to; i++) {
			if (store_put_run_at(st, &p->b->runs[i], p->lo + (int64_t)i, &p->ids[i], &existed,
					     &p->series[i], &job->err)) {
				job->err.index = (long)i;
				return -1;
			}
			if (existed)
				p->series[i] = 0;
			else
				p->fresh++;
		}
		return store_import_beat(st, p->lo, &job->err);
	case P_PUBLISH:
		n = series_counts(p, &counts);
		rc = store_import_publish(st, p->hash, p->lo, (int64_t)p->b->count, counts, n, &job->err);
		free(counts);
		return rc;
	default:
		return store_import_discard(st, p->lo, NULL, NULL, &job->err);
	}
}

/* Store a large batch in parts; 0 with p->ids, p->fresh (p->repeat for a
 * file imported before), or -1 with err and nothing of it stored. */
static int store_in_parts(struct karted *k, struct parts *p, struct kerr *err)
{
	size_t size = IMPORT_PART_FIRST, n = p->b->count;
	double t0, took;
	struct kerr ignored;

	p->step = P_RESERVE;
	if (writer_wait(k, parts_call, p, err) || p->repeat)
		return p->repeat ? 0 : -1;
	p->series = xcalloc(n, sizeof(*p->series));
	for (p->from = 0; p->from < n; p->from = p->to) {
		p->to = p->from + size < n ? p->from + size : n;
		p->step = P_PART;
		t0 = mono_s();
		if (import_stopped(p->o, err) || writer_wait(k, parts_call, p, err))
			goto discard;
		/* the next part sized to take about IMPORT_PART_NS */
		took = (mono_s() - t0) * 1e9;
		size = took > 0 ? (size_t)((double)size * IMPORT_PART_NS / took) : IMPORT_PART_MAX;
		size = size < IMPORT_PART_MIN ? IMPORT_PART_MIN : size > IMPORT_PART_MAX ? IMPORT_PART_MAX : size;
	}
	p->step = P_PUBLISH;
	if (import_stopped(p->o, err) || writer_wait(k, parts_call, p, err))
		goto discard;
	return 0;
discard:
	p->step = P_DISCARD;
	writer_wait(k, parts_call, p, &ignored);	/* else the next start, or the next import */
	return -1;
}

/* A file that could not be read: the error, with what was learned of it
 * (the format guessed, the parameters available, the warnings). */
static void import_refused(struct resp *rs, const struct kerr *err, struct import_result *res)
{
	json_t *extra = json_object();

	if (res->available)
		json_object_set(extra, "available", res->available);
	if (res->format)
		json_object_set_new(extra, "format", json_string(res->format));
	if (res->warnings && json_array_size(res->warnings))
		json_object_set(extra, "warnings", res->warnings);
	resp_error_with(rs, err, extra);
}

/* A large import in parts, each its own transaction (store_in_parts). */
static void import_in_parts(struct karted *k, struct resp *rs, struct import_result *res,
			    const struct import_opts *o)
{
	struct parts p = {&res->batch, res->hash, NULL, NULL, 0, 0, 0, 0, false, P_RESERVE, o};
	struct kerr err;

	kerr_clear(&err);
	p.ids = xcalloc(res->batch.count, sizeof(*p.ids));
	if (store_in_parts(k, &p, &err))
		resp_error(rs, &err);
	else
		answer(rs, p.ids, res, p.fresh);
	free(p.ids);
	free(p.series);
}

/* A small import in one transaction on the writer thread; this worker
 * waits for it. */
static void import_at_once(struct karted *k, struct resp *rs, struct import_result *res)
{
	struct import_job *j = xcalloc(1, sizeof(*j));

	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	j->job.kind = WJOB_RUNS;
	j->job.done = import_done;
	j->job.done_in_writer = true;	/* the worker waits; a stopping loop turns no more */
	j->job.batch = res->batch;	/* moved: the job frees nothing, res does */
	j->job.ids = xcalloc(res->batch.count, sizeof(*j->job.ids));
	j->job.import_hash = res->hash[0] ? res->hash : NULL;
	writer_submit(k->writer, &j->job);
	pthread_mutex_lock(&j->lock);
	while (!j->done)
		pthread_cond_wait(&j->cond, &j->lock);
	pthread_mutex_unlock(&j->lock);
	if (j->job.rc)
		resp_error(rs, &j->job.err);
	else
		answer(rs, j->job.ids, res, j->job.fresh);
	free(j->job.ids);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->cond);
	free(j);
}

/* The request's cancel hook: its client hung up, or karted is stopping. */
static void stop_import(void *arg)
{
	atomic_store((atomic_bool *)arg, true);
}

/* One import at a time is read (and, in parts, stored): imports wait in
 * the write lane, one worker, behind each other (were there more workers,
 * another meanwhile would be a 503 to retry). A client that hangs up, and
 * SIGTERM, stop it at the reader's next step or between two parts
 * (nothing of it stored). */
static int post_import(void *app, struct req *rq, struct resp *rs)
{
	struct import_result res;
	struct import_opts o;
	struct kerr err;
	const char *body;
	size_t len;
	bool no = false;
	atomic_bool stop = false;

	kerr_clear(&err);
	if (import_opts_of(rq, &o, &err)) {
		resp_error(rs, &err);
		return 0;
	}
	if (!atomic_compare_exchange_strong(&importing, &no, true)) {
		resp_errorf(rs, 503, "another import is being read or stored; try again in a moment");
		rs->retry_after = 2;
		return 0;
	}
	o.cancel = &stop;
	req_on_cancel(rq, stop_import, &stop);
	body = req_body(rq, &len);
	if (import_read(body, len, &o, &res, &err)) {
		atomic_store(&importing, false);
		import_refused(rs, &err, &res);
	} else if (res.batch.count > IMPORT_IN_PARTS) {
		import_in_parts(app, rs, &res, &o);
		atomic_store(&importing, false);
	} else {
		atomic_store(&importing, false);
		if (import_stopped(&o, &err))
			resp_error(rs, &err);
		else
			import_at_once(app, rs, &res);
	}
	req_on_cancel(rq, NULL, NULL);	/* stop lives on this stack */
	import_result_clear(&res);
	return 0;
}

const struct route api_import_routes[] = {
	/* read on a worker: a large file takes seconds, the loop keeps serving */
	{"POST", "/api/v1/import", ROUTE_WRITE | ROUTE_FILE | ROUTE_SLOW, post_import, NULL},
	{NULL, NULL, 0, NULL, NULL},
};
