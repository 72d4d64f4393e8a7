/*
 * POST /api/v1/import: another tool's file in, runs out. The file is read
 * and mapped on a worker thread (import.c); its runs are then stored by
 * the writer in one transaction, like a POST of runs, while the worker
 * waits. One import is read at a time, so imports never hold every worker
 * from the analyses.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "karted.h"
#include "xalloc.h"

static atomic_bool importing;

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
			kerr_field(q->err, 400, key, "col.FIELD=HEADER needs a field and a column name");
			return;
		}
		if (o->ncols == IMPORT_COLS_MAX) {
			kerr_field(q->err, 413, key, "at most %d col. mappings", IMPORT_COLS_MAX);
			return;
		}
		o->cols[o->ncols].field = key + 4;
		o->cols[o->ncols++].header = value;
		return;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && strcmp(keys[i], key); i++)
		;
	if (i == sizeof(keys) / sizeof(keys[0]))
		kerr_field(q->err, 400, key, "'%.40s' is not a parameter of the import (format, system, "
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
		return kerr_field(err, 400, "gamma_regions", "give chi_regions or gamma_regions, not both");
	if ((s = req_query(rq, "n_value"))) {
		char *end;

		o->n_value = strtod(s, &end);
		if (!*s || *end || !isfinite(o->n_value) || !(o->n_value > 0))
			return kerr_field(err, 400, "n_value", "n_value must be a number greater than 0 "
					  "(got '%.40s')", s);
		o->has_n_value = true;
	}
	if ((s = req_query(rq, "time_unit"))) {
		static const struct {
			const char *name;
			double scale;
		} units[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
		size_t i;

		for (i = 0; i < 4 && strcmp(units[i].name, s); i++)
			;
		if (i == 4)
			return kerr_field(err, 400, "time_unit", "time_unit must be s, ms, us or ns "
					  "(got '%.40s')", s);
		o->time_scale = units[i].scale;
	}
	return 0;
}

/* {"ids":[...],"runs",...}: the ids written directly (a million of them
 * would be a large tree), the rest by jansson. */
static void answer(struct resp *rs, int status, const int64_t *ids, size_t n, json_t *rest)
{
	char *tail = json_dumps(rest, KARTE_JSON_FLAGS);
	size_t len, tl = tail ? strlen(tail) : 0;

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

static int post_import(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	struct import_result res;
	struct import_opts o;
	struct import_job *j;
	struct kerr err;
	const char *body;
	size_t len;
	bool no = false;

	kerr_clear(&err);
	if (import_opts_of(rq, &o, &err)) {
		resp_error(rs, &err);
		return 0;
	}
	if (!atomic_compare_exchange_strong(&importing, &no, true)) {
		resp_errorf(rs, 503, "another import is being read; try again in a moment");
		rs->retry_after = 2;
		return 0;
	}
	body = req_body(rq, &len);
	if (import_read(body, len, &o, &res, &err)) {
		json_t *extra = json_object();

		atomic_store(&importing, false);
		if (res.available)
			json_object_set(extra, "available", res.available);
		if (res.format)
			json_object_set_new(extra, "format", json_string(res.format));
		if (res.warnings && json_array_size(res.warnings))
			json_object_set(extra, "warnings", res.warnings);
		import_result_clear(&res);
		resp_error_with(rs, &err, extra);
		return 0;
	}
	atomic_store(&importing, false);

	j = xcalloc(1, sizeof(*j));
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	j->job.kind = WJOB_RUNS;
	j->job.done = import_done;
	j->job.done_in_writer = true;	/* the worker waits; a stopping loop turns no more */
	j->job.batch = res.batch;	/* moved: the job frees nothing, res does */
	j->job.ids = xcalloc(res.batch.count, sizeof(*j->job.ids));
	j->job.import_hash = res.hash[0] ? res.hash : NULL;
	writer_submit(k->writer, &j->job);
	pthread_mutex_lock(&j->lock);
	while (!j->done)
		pthread_cond_wait(&j->cond, &j->lock);
	pthread_mutex_unlock(&j->lock);

	if (j->job.rc)
		resp_error(rs, &j->job.err);
	else
		answer(rs, j->job.fresh ? 201 : 200, j->job.ids, res.batch.count,
		       json_pack("{s:I,s:I,s:O,s:O,s:s,s:I}", "runs", (json_int_t)res.batch.count,
				 "points", (json_int_t)res.points, "regions", res.regions,
				 "warnings", res.warnings, "format", res.format,
				 "stored", (json_int_t)j->job.fresh));
	free(j->job.ids);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->cond);
	free(j);
	import_result_clear(&res);
	return 0;
}

const struct route api_import_routes[] = {
	/* read on a worker: a large file takes seconds, the loop keeps serving */
	{"POST", "/api/v1/import", ROUTE_WRITE | ROUTE_FILE | ROUTE_SLOW, post_import, NULL},
	{NULL, NULL, 0, NULL, NULL},
};
