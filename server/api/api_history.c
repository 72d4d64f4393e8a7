/*
 * History of HTTP API v1: GET /api/v1/analysis/history, one (p, n) point of
 * a series over time. Each run in measured_at order is held against the
 * runs before it (analysis/history.c): their median and MAD, and a verdict
 * ok, regression or improvement.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_data.h"
#include "history.h"
#include "karted.h"
#include "xalloc.h"

/* Limits (documented in docs/api.md). */
#define HISTORY_RUNS_MAX 100000	/* runs of one point read */
#define HISTORY_WINDOW 100	/* previous runs a baseline takes, the latest */
#define HISTORY_LIST_DEFAULT 1000	/* runs listed, the latest */
#define HISTORY_LIST_MAX 10000

struct hrun {
	int64_t id;
	char *when;		/* measured_at, or created_at without one */
	bool measured;
	double v;		/* the metric; NAN when the run lacks it */
};

struct hload {
	struct hrun *r;
	size_t n, cap;
	bool energy;
};

static int take(const struct run *r, void *ctx)
{
	struct hload *h = ctx;

	if (h->n == HISTORY_RUNS_MAX)
		return 1;
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->r = xrealloc(h->r, h->cap * sizeof(*h->r));
	}
	h->r[h->n++] = (struct hrun){r->id, xstrdup(r->measured_at ? r->measured_at : r->created_at),
				     r->measured_at != NULL,
				     h->energy ? ((r->has & RUN_HAS_ENERGY) ? r->energy_j : NAN) :
						 r->tau};
	return 0;
}

/* measured_at as written (ISO 8601 sorts as text in one zone), then id. */
static int by_time(const void *a, const void *b)
{
	const struct hrun *x = a, *y = b;
	int c = strcmp(x->when, y->when);

	return c ? c : x->id < y->id ? -1 : x->id > y->id;
}

static int get_history(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	struct ka_thresholds t = KA_THRESHOLDS_DEFAULT;
	struct store_thresholds own;
	struct run_filter f = {0};
	struct hload h = {0};
	struct label_set ls;
	const char *metric = req_query(rq, "metric") ? req_query(rq, "metric") : "tau";
	int64_t min_runs = (int64_t)t.min_runs, limit = HISTORY_LIST_DEFAULT;
	double work[HISTORY_WINDOW], *seen = NULL;
	size_t i, first, nseen = 0, counts[3] = {0};
	json_t *runs, *body;
	struct store *st;
	struct kerr err;
	int rc;

	kerr_clear(&err);
	f.n = -1;
	if (query_series(rq, &f.system, &f.application, &f.variant, &err))
		goto fail;
	if (strcmp(metric, "tau") && strcmp(metric, "energy_j")) {
		kerr_field(&err, 400, "metric", "metric must be tau or energy_j");
		goto fail;
	}
	h.energy = metric[0] == 'e';
	/* the series' own thresholds (PUT /api/v1/series/thresholds), then the query's */
	st = pool_get(k->readers);
	rc = store_thresholds_get(st, f.system, f.application, f.variant, &own, &err);
	pool_put(k->readers, st);
	if (rc < 0)
		goto fail;
	if (own.set) {
		t.rel = own.rel;
		t.noise = own.noise;
		t.min_runs = (size_t)own.min_runs;
		min_runs = own.min_runs;
	}
	if (query_int(rq, "p", 1, 1000000000, &f.p, &err) || query_num(rq, "n", 0, 1e300, &f.n, &err) ||
	    query_int(rq, "min_runs", 1, HISTORY_WINDOW, &min_runs, &err) ||
	    query_num(rq, "rel", 0, 10, &t.rel, &err) || query_num(rq, "noise", 0, 100, &t.noise, &err) ||
	    query_int(rq, "limit", 1, HISTORY_LIST_MAX, &limit, &err) || query_labels(rq, &ls, &err))
		goto fail;
	if (f.p == 0 || !(f.n > 0)) {
		kerr_field(&err, 400, f.p == 0 ? "p" : "n", "p and n choose the point whose history "
			   "is shown, e.g. p=64&n=1e6");
		goto fail;
	}
	t.min_runs = (size_t)min_runs;
	f.labels = ls.eq;
	f.nlabels = ls.n;
	f.oldest_first = true;
	st = pool_get(k->readers);
	rc = store_each_run(st, &f, take, &h, &err);
	pool_put(k->readers, st);
	if (rc < 0)
		goto fail;
	if (rc > 0) {
		kerr_field(&err, 413, "p", "this point has more than %d runs, the most a history "
			   "reads; narrow it with label.K=V", HISTORY_RUNS_MAX);
		goto fail;
	}
	if (h.n == 0) {
		kerr_set(&err, 404, "series %s:%s%s%s has no runs at p=%lld, n=%g", f.system,
			 f.application, *f.variant ? ":" : "", f.variant, (long long)f.p, f.n);
		goto fail;
	}
	qsort(h.r, h.n, sizeof(*h.r), by_time);
	runs = json_array();
	first = h.n > (size_t)limit ? h.n - (size_t)limit : 0;
	seen = xmalloc(h.n * sizeof(*seen));	/* the values so far, in order */
	for (i = 0; i < h.n; i++) {
		struct ka_baseline b = {NAN, NAN, 0};
		/* the latest HISTORY_WINDOW earlier runs that carry the metric */
		size_t m = nseen < HISTORY_WINDOW ? nseen : HISTORY_WINDOW;
		enum ka_verdict v;
		json_t *o;

		if (m)
			ka_baseline(seen + nseen - m, m, work, &b);
		v = isfinite(h.r[i].v) ? ka_verdict(h.r[i].v, &b, &t) : KA_OK;
		if (isfinite(h.r[i].v))
			seen[nseen++] = h.r[i].v;
		if (i < first)
			continue;
		counts[v]++;
		o = json_pack("{s:I,s:s,s:b,s:o,s:o}", "id", (json_int_t)h.r[i].id, "measured_at",
			      h.r[i].when, "measured", h.r[i].measured, metric,
			      json_finite(h.r[i].v), "verdict",
			      isfinite(h.r[i].v) ? json_string(ka_verdict_name(v)) : json_null());
		json_object_set_new(o, "baseline", m ? json_pack("{s:f,s:f,s:I}", "median", b.median,
								 "mad", b.mad, "runs",
								 (json_int_t)m) : json_null());
		json_array_append_new(runs, o);
	}
	body = json_pack("{s:{s:s,s:s,s:s},s:I,s:f,s:s,s:{s:f,s:f,s:I,s:i},s:o,s:{s:I,s:I,s:I},"
			 "s:b}", "series", "system", f.system, "application", f.application,
			 "variant", f.variant, "p", (json_int_t)f.p, "n", f.n, "metric", metric,
			 "thresholds", "rel", t.rel, "noise", t.noise, "min_runs",
			 (json_int_t)t.min_runs, "window", HISTORY_WINDOW, "runs", runs, "counts",
			 "ok", (json_int_t)counts[KA_OK], "regression",
			 (json_int_t)counts[KA_REGRESSION], "improvement",
			 (json_int_t)counts[KA_IMPROVEMENT], "truncated", first > 0);
	resp_json(rs, 200, body);
	goto out;
fail:
	resp_error(rs, &err);
out:
	for (i = 0; i < h.n; i++)
		free(h.r[i].when);
	free(h.r);
	free(seen);
	return 0;
}

const struct route api_history_routes[] = {
	{"GET", "/api/v1/analysis/history", ROUTE_SLOW, get_history},
	{NULL, NULL, 0, NULL},
};
