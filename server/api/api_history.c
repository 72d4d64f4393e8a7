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

#include "series.h"
#include "analysis/history.h"
#include "karted.h"
#include "core/xalloc.h"

/* Limits (documented in docs/api.md). */
#define HISTORY_LIST_DEFAULT 1000	/* runs listed, the latest */
#define HISTORY_LIST_MAX 10000

static int take(const struct run *r, void *ctx)
{
	struct history *h = ctx;
	struct history_run *x;

	if (h->nruns == HISTORY_RUNS_MAX)
		return 1;
	if (h->nruns == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->runs = xrealloc(h->runs, h->cap * sizeof(*h->runs));
	}
	x = &h->runs[h->nruns++];
	memset(x, 0, sizeof(*x));
	x->id = r->id;
	x->when = xstrdup(r->measured_at ? r->measured_at : r->created_at);
	x->measured = r->measured_at != NULL;
	x->v = h->energy ? ((r->has & RUN_HAS_ENERGY) ? r->energy_j : NAN) : r->tau;
	x->freq = (r->has & RUN_HAS_FREQ) ? r->frequency_mhz : NAN;
	x->cap = (r->has & RUN_HAS_CAP) ? r->power_cap_w : NAN;
	x->group = NULL;
	if (h->by && r->labels) {
		json_t *l = json_loads(r->labels, 0, NULL);
		const char *g = json_string_value(json_object_get(l, h->by));

		if (g)
			x->group = xstrdup(g);
		json_decref(l);
	}
	return 0;
}

/* measured_at as written (ISO 8601 sorts as text in one zone), then id. */
static int by_time(const void *a, const void *b)
{
	const struct history_run *x = a, *y = b;
	int c = strcmp(x->when, y->when);

	return c ? c : x->id < y->id ? -1 : x->id > y->id;
}

/* Each run's group: the index of its label value in the order of the
 * values' first runs (h->groups); runs without the label: SIZE_MAX. */
static void number_groups(struct history *h)
{
	json_t *seen = json_object();
	size_t i;

	for (i = 0; i < h->nruns; i++) {
		struct history_run *x = &h->runs[i];
		json_t *at;

		x->gi = SIZE_MAX;
		if (!x->group)
			continue;
		if ((at = json_object_get(seen, x->group))) {
			x->gi = (size_t)json_integer_value(at);
			continue;
		}
		x->gi = h->ngroups;
		h->groups = xrealloc(h->groups, (h->ngroups + 1) * sizeof(*h->groups));
		h->groups[h->ngroups++] = x->group;
		json_object_set_new(seen, x->group, json_integer((json_int_t)x->gi));
	}
	json_decref(seen);
}

/* The thresholds: the series' own (PUT /api/v1/series/thresholds), then
 * the query's; p, n and the label filters of the point; the metric, by
 * and limit. */
static int history_query(struct karted *k, struct req *rq, struct history *h, struct run_filter *f,
			 struct label_set *ls, int64_t *limit, struct kerr *err)
{
	struct ka_thresholds t = KA_THRESHOLDS_DEFAULT;
	int64_t min_runs = (int64_t)t.min_runs;
	struct store_thresholds own;
	struct store *st;
	int rc;

	st = pool_get(k->readers);
	rc = store_thresholds_get(st, f->system, f->application, f->variant, &own, err);
	pool_put(k->readers, st);
	if (rc < 0)
		return -1;
	if (own.set)
		t.rel = own.rel, t.noise = own.noise, min_runs = own.min_runs;
	if (query_int(rq, "p", 1, 1000000000, &f->p, err) || query_num(rq, "n", 0, 1e300, &f->n, err) ||
	    query_int(rq, "min_runs", 1, HISTORY_WINDOW, &min_runs, err) ||
	    query_num(rq, "rel", 0, 10, &t.rel, err) || query_num(rq, "noise", 0, 100, &t.noise, err) ||
	    query_int(rq, "limit", 1, HISTORY_LIST_MAX, limit, err) || query_labels(rq, ls, err))
		return -1;
	if (f->p == 0 || !(f->n > 0))
		return kerr_field(err, KERR_INVALID, f->p == 0 ? "p" : "n", "p and n choose the point whose "
				  "history is shown, e.g. p=64&n=1e6");
	t.min_runs = (size_t)min_runs;
	h->t = t;
	h->p = f->p;
	h->n = f->n;
	f->labels = ls->eq;
	f->nlabels = ls->n;
	f->oldest_first = true;
	return 0;
}

static bool same_number(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static void setting_name(struct history_setting *s)
{
	int len = isnan(s->freq) ? snprintf(s->name, sizeof(s->name), "no frequency") :
				   snprintf(s->name, sizeof(s->name), "%.6g MHz", s->freq);

	if (!isnan(s->cap) && len > 0 && (size_t)len < sizeof(s->name))
		snprintf(s->name + len, sizeof(s->name) - (size_t)len, ", cap %.6g W", s->cap);
}

/* Each run's setting (frequency, power cap): an index into h->settings in
 * the order of their first run (a point has few; a lookup is a scan). */
static void number_settings(struct history *h)
{
	size_t i, k;

	for (i = 0; i < h->nruns; i++) {
		struct history_run *x = &h->runs[i];

		for (k = 0; k < h->nsettings && !(same_number(h->settings[k].freq, x->freq) &&
						  same_number(h->settings[k].cap, x->cap)); k++)
			;
		if (k == h->nsettings) {
			h->settings = xrealloc(h->settings, (k + 1) * sizeof(*h->settings));
			h->settings[k] = (struct history_setting){x->freq, x->cap, 0, ""};
			setting_name(&h->settings[k]);
			h->nsettings++;
		}
		x->si = k;
		if (i >= h->first)
			h->settings[k].runs++;
	}
}

static int by_setting(const void *a, const void *b, void *ctx)
{
	const struct history_run *runs = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (runs[i].si != runs[j].si)
		return runs[i].si < runs[j].si ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Each run against the baseline of the latest HISTORY_WINDOW earlier runs
 * at its setting (frequency and power cap: another setting is never its
 * baseline) that carry the metric; the verdicts of the runs listed
 * counted. */
static void history_judge(struct history *h)
{
	double work[HISTORY_WINDOW], *seen = xmalloc((h->nruns + 1) * sizeof(*seen));
	size_t *order = xmalloc((h->nruns + 1) * sizeof(*order)), i, k, nseen = 0;

	number_settings(h);
	for (i = 0; i < h->nruns; i++)
		order[i] = i;
	qsort_r(order, h->nruns, sizeof(*order), by_setting, h->runs);	/* time order within each */
	for (k = 0; k < h->nruns; k++) {
		struct history_run *x = &h->runs[order[k]];
		size_t m;

		if (k > 0 && h->runs[order[k - 1]].si != x->si)
			nseen = 0;	/* the next setting */
		m = nseen < HISTORY_WINDOW ? nseen : HISTORY_WINDOW;
		x->b = (struct ka_baseline){NAN, NAN, 0};
		if (m)
			ka_baseline(seen + nseen - m, m, work, &x->b);
		x->verdict = isfinite(x->v) ? ka_verdict(x->v, &x->b, &h->t) : KA_OK;
		if (isfinite(x->v))
			seen[nseen++] = x->v;
		if (order[k] >= h->first && isfinite(x->v))
			h->counts[x->verdict]++;
	}
	free(order);
	free(seen);
}

int history_load(struct karted *k, struct req *rq, struct history *h, struct kerr *err)
{
	struct run_filter f = {0};
	struct label_set ls;
	int64_t limit = HISTORY_LIST_DEFAULT;
	struct store *st;
	int rc;

	memset(h, 0, sizeof(*h));
	h->metric = req_query(rq, "metric") ? req_query(rq, "metric") : "tau";
	f.n = -1;
	if (query_series(rq, &f.system, &f.application, &f.variant, err))
		return -1;
	h->system = f.system;
	h->application = f.application;
	h->variant = f.variant;
	if (strcmp(h->metric, "tau") && strcmp(h->metric, "energy_j"))
		return kerr_field(err, KERR_INVALID, "metric", "metric must be tau or energy_j");
	h->energy = h->metric[0] == 'e';
	if ((h->by = req_query(rq, "by")) && !strcmp(h->by, "time"))
		h->by = NULL;
	if (h->by && (!*h->by || strlen(h->by) > RUN_LABEL_MAX))
		return kerr_field(err, KERR_INVALID, "by", "by must be time (the default) or a label key of "
				  "1 to %d bytes, such as by=commit", RUN_LABEL_MAX);
	if (history_query(k, rq, h, &f, &ls, &limit, err))
		return -1;
	st = pool_get(k->readers);
	rc = store_each_run(st, &f, take, h, err);
	pool_put(k->readers, st);
	if (rc < 0)
		return -1;
	if (rc > 0)
		return kerr_field(err, KERR_TOO_LARGE, "p", "this point has more than %d runs, the most a "
				  "history reads; narrow it with label.K=V", HISTORY_RUNS_MAX);
	if (h->nruns == 0)
		return kerr_set(err, KERR_NOT_FOUND, "series %s:%s%s%s has no runs at p=%lld, n=%g", f.system,
				f.application, *f.variant ? ":" : "", f.variant, (long long)f.p, f.n);
	qsort(h->runs, h->nruns, sizeof(*h->runs), by_time);
	if (h->by)
		number_groups(h);
	h->first = h->nruns > (size_t)limit ? h->nruns - (size_t)limit : 0;
	history_judge(h);
	return 0;
}

void history_free(struct history *h)
{
	size_t i;

	for (i = 0; i < h->nruns; i++) {
		free(h->runs[i].when);
		free(h->runs[i].group);
	}
	free(h->runs);
	free(h->groups);
	free(h->settings);
	memset(h, 0, sizeof(*h));
}

static int get_history(void *app, struct req *rq, struct resp *rs)
{
	struct history h;
	json_t *runs, *body, *settings;
	struct kerr err;
	size_t i;

	kerr_clear(&err);
	if (history_load(app, rq, &h, &err)) {
		resp_error(rs, &err);
		history_free(&h);
		return 0;
	}
	runs = json_array();
	for (i = h.first; i < h.nruns; i++) {
		const struct history_run *x = &h.runs[i];
		json_t *o = json_pack("{s:I,s:s,s:b,s:o,s:o}", "id", (json_int_t)x->id,
				      "measured_at", x->when, "measured", x->measured, h.metric,
				      json_finite(x->v), "verdict", isfinite(x->v) ?
				      json_string(ka_verdict_name(x->verdict)) : json_null());

		json_object_set_new(o, "baseline", x->b.runs ?
				    json_pack("{s:f,s:f,s:I}", "median", x->b.median, "mad",
					      x->b.mad, "runs", (json_int_t)x->b.runs) :
				    json_null());
		if (h.by)
			json_object_set_new(o, "group", x->group ? json_string(x->group) :
					    json_null());
		json_object_set_new(o, "frequency_mhz", json_finite(x->freq));
		json_object_set_new(o, "power_cap_w", json_finite(x->cap));
		json_array_append_new(runs, o);
	}
	settings = json_array();
	for (i = 0; i < h.nsettings; i++)
		json_array_append_new(settings, json_pack("{s:o,s:o,s:s,s:I}", "frequency_mhz",
							  json_finite(h.settings[i].freq), "power_cap_w",
							  json_finite(h.settings[i].cap), "name",
							  h.settings[i].name, "runs",
							  (json_int_t)h.settings[i].runs));
	body = json_pack("{s:{s:s,s:s,s:s},s:I,s:f,s:s,s:{s:f,s:f,s:I,s:i},s:o,s:{s:I,s:I,s:I},"
			 "s:b}", "series", "system", h.system, "application", h.application,
			 "variant", h.variant, "p", (json_int_t)h.p, "n", h.n, "metric", h.metric,
			 "thresholds", "rel", h.t.rel, "noise", h.t.noise, "min_runs",
			 (json_int_t)h.t.min_runs, "window", HISTORY_WINDOW, "runs", runs, "counts",
			 "ok", (json_int_t)h.counts[KA_OK], "regression",
			 (json_int_t)h.counts[KA_REGRESSION], "improvement",
			 (json_int_t)h.counts[KA_IMPROVEMENT], "truncated", h.first > 0);
	if (h.by)
		json_object_set_new(body, "by", json_string(h.by));
	json_object_set_new(body, "settings", settings);
	resp_json(rs, 200, body);
	history_free(&h);
	return 0;
}

/* ---- the labels of a series ------------------------------------------------- */

#define LABEL_KEYS_MAX 64	/* label keys a series' listing holds */
#define LABEL_VALUES_MAX 1000	/* values of one key, the most recent */

struct label_walk {
	json_t *keys;		/* {key: {value: [runs, first, last]}} */
	json_t *more;		/* {key: true} for keys with values left out */
	const char *only;	/* one key, or NULL */
	size_t runs;
	bool more_keys;
};

static int count_labels(const struct run *r, void *ctx)
{
	struct label_walk *w = ctx;
	const char *when = r->measured_at ? r->measured_at : r->created_at, *key;
	json_t *l, *v;

	w->runs++;
	if (!r->labels || !(l = json_loads(r->labels, 0, NULL)))
		return 0;
	json_object_foreach(l, key, v) {
		json_t *vals = json_object_get(w->keys, key), *at;
		const char *value = json_string_value(v);

		if (!value || (w->only && strcmp(key, w->only)))
			continue;
		if (!vals) {
			if (json_object_size(w->keys) == LABEL_KEYS_MAX) {
				w->more_keys = true;
				continue;
			}
			json_object_set_new(w->keys, key, vals = json_object());
		}
		if ((at = json_object_get(vals, value))) {
			/* newest first: an earlier time only lowers first */
			json_array_set_new(at, 0, json_integer(json_integer_value(
				json_array_get(at, 0)) + 1));
			if (strcmp(when, json_string_value(json_array_get(at, 1))) < 0)
				json_array_set_new(at, 1, json_string(when));
			if (strcmp(when, json_string_value(json_array_get(at, 2))) > 0)
				json_array_set_new(at, 2, json_string(when));
		} else if (json_object_size(vals) == LABEL_VALUES_MAX) {
			json_object_set_new(w->more, key, json_true());
		} else {
			json_object_set_new(vals, value, json_pack("[i,s,s]", 1, when, when));
		}
	}
	json_decref(l);
	return 0;
}

static int by_first(const void *a, const void *b)
{
	json_t *const *x = a, *const *y = b;
	int c = strcmp(json_string_value(json_object_get(*x, "first")),
		       json_string_value(json_object_get(*y, "first")));

	return c ? c : strcmp(json_string_value(json_object_get(*x, "value")),
			      json_string_value(json_object_get(*y, "value")));
}

int series_labels(struct karted *k, const char *system, const char *application,
		  const char *variant, const char *only, json_t **out, struct kerr *err)
{
	struct label_walk w = {json_object(), json_object(), only, 0, false};
	struct run_filter f = {0};
	json_t *list = json_array(), *vals, *at;
	const char *key, *value;
	struct store *st;
	int rc;

	f.system = system;
	f.application = application;
	f.variant = variant;
	f.n = -1;
	f.limit = SERIES_RUNS_MAX;	/* the latest runs a listing reads */
	st = pool_get(k->readers);
	rc = store_each_run(st, &f, count_labels, &w, err);	/* newest first */
	pool_put(k->readers, st);
	if (rc == 0 && w.runs == 0)
		rc = kerr_set(err, KERR_NOT_FOUND, "there are no runs of series %s:%s%s%s", system, application,
			      *variant ? ":" : "", variant);
	json_object_foreach(w.keys, key, vals) {
		size_t i = 0, n = json_object_size(vals);
		json_t **v = xmalloc(n * sizeof(*v)), *arr = json_array();

		json_object_foreach(vals, value, at)
			v[i++] = json_pack("{s:s,s:O,s:O,s:O}", "value", value, "runs",
					   json_array_get(at, 0), "first", json_array_get(at, 1),
					   "last", json_array_get(at, 2));
		qsort(v, n, sizeof(*v), by_first);
		for (i = 0; i < n; i++)
			json_array_append_new(arr, v[i]);
		free(v);
		json_array_append_new(list, json_pack("{s:s,s:o,s:b}", "key", key, "values", arr,
						      "more", json_object_get(w.more, key) != NULL));
	}
	json_decref(w.keys);
	json_decref(w.more);
	if (rc) {
		json_decref(list);
		return -1;
	}
	*out = json_pack("{s:{s:s,s:s,s:s},s:I,s:o,s:b}", "series", "system", system,
			 "application", application, "variant", variant, "runs",
			 (json_int_t)w.runs, "labels", list, "more_keys", w.more_keys);
	return 0;
}

/* GET /api/v1/series/labels?system=&application=&variant=: each label key
 * the series' runs carry with its values in the order of their first run. */
static int get_labels(void *app, struct req *rq, struct resp *rs)
{
	const char *sys, *appl, *var;
	json_t *body;
	struct kerr err;

	kerr_clear(&err);
	if (query_series(rq, &sys, &appl, &var, &err) ||
	    series_labels(app, sys, appl, var, NULL, &body, &err))
		resp_error(rs, &err);
	else
		resp_json(rs, 200, body);
	return 0;
}

const struct route api_history_routes[] = {
	{"GET", "/api/v1/analysis/history", ROUTE_SLOW, get_history, series_lane},
	{"GET", "/api/v1/series/labels", ROUTE_SLOW, get_labels, series_lane},
	{NULL, NULL, 0, NULL, NULL},
};
