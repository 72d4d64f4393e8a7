/*
 * watch: regressions on ingest (see watch.h). A batch's runs of one point
 * usually come in time order, so the window of earlier values is read from
 * the database once per point and batch, then carried from run to run.
 * A batch is checked in parts of at most WATCH_CACHE points: the windows a
 * part lacks are read in one store_points_before (one round trip on
 * PostgreSQL), as are the checks that cached ones are still whole, so a
 * bulk POST of many new points costs a query per 256 points, not per run.
 */
#include "watch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/history.h"
#include "webhook.h"
#include "core/xalloc.h"
#include "core/jsonw.h"
#include "core/nametab.h"
#include "core/klog.h"

/* A region's energy in an entry: the window's name slot and the value. */
struct region_e {
	unsigned slot;
	double e;
};

/* One run as a baseline sees it. */
struct entry {
	double tau, energy;	/* energy NAN when the run has none */
	struct region_e *reg;	/* its regions with energy_j and a slot, the first
				 * WATCH_REGIONS_SEEN */
	size_t nreg;
};

/* The values of one metric in a window, sorted: a baseline without a copy
 * or a selection (ka_baseline_sorted), kept as runs come and go. */
struct sorted {
	double v[WATCH_WINDOW];
	size_t n;
};

/* The earlier runs of a point, oldest first, up to the run checked last
 * there (last_id). Kept across batches: a batch's first run at the point
 * uses it only when the run just before it is still last_id (nobody else,
 * such as another instance on the same PostgreSQL, added or removed one). */
struct window {
	bool loaded;
	uint64_t key;		/* point_key: its point, when system is set */
	int64_t last_id;	/* the last run checked */
	int64_t anchor;		/* the run it was read for (its runs are before it) */
	unsigned batch;		/* the batch that last read or verified it */
	unsigned part;		/* the part of a batch that last used it */
	char *system, *application, *variant;
	int64_t p;
	double n;
	char *last_measured;	/* the last run checked: its measured_at (NULL: none) */
	struct ka_thresholds t;
	struct entry e[WATCH_WINDOW];	/* a ring: the oldest at head */
	size_t head, count;
	struct sorted tau, energy;
	char *name[WATCH_REGION_NAMES];	/* the region names met at the point */
	struct sorted *region[WATCH_REGION_NAMES];
	size_t nnames;
};

static void sorted_add(struct sorted *s, double x)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {	/* the first value above x */
		size_t mid = (lo + hi) / 2;

		if (s->v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof(double));
	s->v[lo] = x;
	s->n++;
}

static void sorted_remove(struct sorted *s, double x)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {	/* the first value at or above x: x itself */
		size_t mid = (lo + hi) / 2;

		if (s->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->n || s->v[lo] != x)
		return;
	memmove(s->v + lo, s->v + lo + 1, (s->n - lo - 1) * sizeof(double));
	s->n--;
}

static void entry_clear(struct entry *e)
{
	free(e->reg);
	memset(e, 0, sizeof(*e));
}

/* Empty w's runs, keeping its point and thresholds. */
static void window_empty(struct window *w)
{
	size_t i;

	for (i = 0; i < WATCH_WINDOW; i++)
		entry_clear(&w->e[i]);
	for (i = 0; i < w->nnames; i++) {
		free(w->name[i]);
		free(w->region[i]);
	}
	w->nnames = 0;
	free(w->last_measured);
	w->last_measured = NULL;
	w->head = w->count = 0;
	w->tau.n = w->energy.n = 0;
	w->loaded = false;
	w->last_id = w->anchor = 0;
}

static void window_clear(struct window *w)
{
	window_empty(w);
	free(w->system);
	free(w->application);
	free(w->variant);
	memset(w, 0, sizeof(*w));
}

static void thresholds_clear(struct watch *wt)
{
	nametab_clear(&wt->thr);
}

/* Every cached window let go of: its point is read anew when met; and the
 * series' thresholds with them (whatever empties windows may set those). */
static void windows_clear(struct watch *wt)
{
	size_t i;

	for (i = 0; i < WATCH_CACHE; i++)
		window_clear(&wt->cache[i]);
	thresholds_clear(wt);
}

/* The slot of region name at w's point; a new one while there is room
 * (create), else -1. */
static int name_slot(struct window *w, const char *name, bool create)
{
	size_t i;

	for (i = 0; i < w->nnames; i++)
		if (!strcmp(w->name[i], name))
			return (int)i;
	if (!create || w->nnames == WATCH_REGION_NAMES)
		return -1;
	w->name[w->nnames] = xstrdup(name);
	w->region[w->nnames] = xcalloc(1, sizeof(struct sorted));
	return (int)w->nnames++;
}

/* Add region name's energy e to entry x, when w has a slot for the name. */
static void entry_add(struct window *w, struct entry *x, const char *name, double e)
{
	int slot = name_slot(w, name, true);

	if (slot < 0)
		return;
	if (!x->reg)
		x->reg = xmalloc(WATCH_REGIONS_SEEN * sizeof(*x->reg));
	x->reg[x->nreg++] = (struct region_e){(unsigned)slot, e};
}

struct entry_ctx {
	struct window *w;
	struct entry *e;
};

static void entry_region(const char *name, double energy_j, void *ctx)
{
	struct entry_ctx *c = ctx;

	entry_add(c->w, c->e, name, energy_j);
}

/* An entry of run r: its regions with energy (as parsed, or from their
 * stored text), each given a slot of w. */
static void entry_of(struct window *w, const struct run *r, struct entry *e)
{
	struct entry_ctx c = {w, e};
	size_t i;

	memset(e, 0, sizeof(*e));
	e->tau = r->tau;
	e->energy = (r->has & RUN_HAS_ENERGY) ? r->energy_j : NAN;
	if (r->parsed) {	/* a run just posted: its energies kept aside by the parse */
		for (i = 0; i < r->nenergies && e->nreg < WATCH_REGIONS_SEEN; i++)
			entry_add(w, e, r->energies[i].name, r->energies[i].energy_j);
		return;
	}
	if (!r->regions || !strstr(r->regions, "\"energy_j\"") ||
	    strlen(r->regions) > WATCH_REGIONS_TEXT)
		return;
	run_region_energies(r->regions, WATCH_REGIONS_SEEN, entry_region, &c);
}

/* Appended unsorted, when a window is read: sorted once after (window_sort). */
static void sorted_append(struct sorted *s, double x)
{
	s->v[s->n++] = x;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void window_sort(struct window *w)
{
	size_t i;

	qsort(w->tau.v, w->tau.n, sizeof(double), cmp_double);
	qsort(w->energy.v, w->energy.n, sizeof(double), cmp_double);
	for (i = 0; i < w->nnames; i++)
		qsort(w->region[i]->v, w->region[i]->n, sizeof(double), cmp_double);
}

/* Count e's values into or out of the metrics with f (sorted_add,
 * sorted_remove, sorted_append). */
static void entry_values(struct window *w, const struct entry *e,
			 void (*f)(struct sorted *, double))
{
	size_t i;

	f(&w->tau, e->tau);
	if (isfinite(e->energy))
		f(&w->energy, e->energy);
	for (i = 0; i < e->nreg; i++)
		if (isfinite(e->reg[i].e))
			f(w->region[e->reg[i].slot], e->reg[i].e);
}

/* Append e (taken over) to the window, dropping the oldest when full. */
static void window_push(struct window *w, struct entry *e)
{
	struct entry *slot;

	if (w->count == WATCH_WINDOW) {
		entry_values(w, &w->e[w->head], sorted_remove);
		entry_clear(&w->e[w->head]);
		w->head = (w->head + 1) % WATCH_WINDOW;
		w->count--;
	}
	slot = &w->e[(w->head + w->count++) % WATCH_WINDOW];
	*slot = *e;
	entry_values(w, slot, sorted_add);
	memset(e, 0, sizeof(*e));
}

/* Whether r comes after the run checked last in w in time order, as far as
 * their measured_at tell (a mix with and without one: no). */
static bool follows(const struct window *w, const struct run *r)
{
	return r->measured_at ? w->last_measured && strcmp(r->measured_at, w->last_measured) >= 0 :
				!w->last_measured;
}

/* What others wrote since the last batch (store_data_version): runs
 * deleted, thresholds set or an import stored empty every window; runs
 * added make wt->foreign, so a cached window is verified before use. Both
 * when the store cannot tell. */
static void foreign_writes(struct store *st, struct watch *wt)
{
	int64_t added, changed;
	bool known = store_data_version(st, &added, &changed) == 0;

	if (!known || !wt->version_known || changed != wt->changed)
		windows_clear(wt);
	wt->foreign = !known || !wt->version_known || added != wt->added;
	wt->added = added;
	wt->changed = changed;
	wt->version_known = known;
}

/* FNV-1a over a point: its series' names, each ended, and (p, n). A
 * point's windows are found by it. */
static uint64_t point_key(const struct run *r)
{
	const char *part[3] = {r->system, r->application, r->variant};
	unsigned char num[sizeof(r->p) + sizeof(r->n)];
	uint64_t h = 14695981039346656037ULL;
	size_t i, k;

	for (k = 0; k < 3; k++) {
		for (i = 0; part[k][i]; i++)
			h = (h ^ (unsigned char)part[k][i]) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;
	}
	memcpy(num, &r->p, sizeof(r->p));
	memcpy(num + sizeof(r->p), &r->n, sizeof(r->n));
	for (i = 0; i < sizeof(num); i++)
		h = (h ^ num[i]) * 1099511628211ULL;
	return h;
}

static struct window *find_window(struct watch *wt, const struct run *r, uint64_t key)
{
	size_t i;

	for (i = 0; i < WATCH_CACHE; i++) {
		struct window *w = &wt->cache[i];

		if (w->key == key && w->system && w->p == r->p && w->n == r->n &&
		    !strcmp(w->system, r->system) && !strcmp(w->application, r->application) &&
		    !strcmp(w->variant, r->variant))
			return w;
	}
	return NULL;
}

/* A window for r's point, not one the current part uses: at most
 * WATCH_CACHE points make a part, so there is one. */
static struct window *new_window(struct watch *wt, const struct run *r, uint64_t key)
{
	struct window *w;

	do
		w = &wt->cache[wt->evict++ % WATCH_CACHE];
	while (w->system && w->part == wt->part);
	window_clear(w);
	w->key = key;
	w->system = xstrdup(r->system);
	w->application = xstrdup(r->application);
	w->variant = xstrdup(r->variant);
	w->p = r->p;
	w->n = r->n;
	return w;
}

/* Windows to read or verify, with the runs they are read for. */
struct wants {
	struct window *w[WATCH_CACHE];
	int64_t id[WATCH_CACHE];
	size_t n;
};

static void want(struct wants *ws, struct window *w, int64_t id)
{
	ws->w[ws->n] = w;
	ws->id[ws->n++] = id;
}

/* The thresholds of r's series: from the writer's cache, or read once
 * (a query a series, not a run: a body of 10^4 runs to 10^4 series read
 * them 10^4 times, 15 % of karted's CPU for it). */
static int thresholds_of(struct store *st, struct watch *wt, const struct run *r,
			 struct ka_thresholds *out, struct kerr *err)
{
	const struct ka_thresholds *kept = nametab_get(&wt->thr, r->system, r->application, r->variant);
	struct store_thresholds t;

	if (kept) {
		*out = *kept;
		return 0;
	}
	*out = (struct ka_thresholds)KA_THRESHOLDS_DEFAULT;
	if (store_thresholds_get(st, r->system, r->application, r->variant, &t, err) < 0)
		return -1;
	if (t.set) {
		out->rel = t.rel;
		out->noise = t.noise;
		out->min_runs = (size_t)t.min_runs;
	}
	if (!wt->thr.cap)
		wt->thr = (struct nametab)NAMETAB_INIT(WATCH_THRESHOLDS, sizeof(*out));
	*(struct ka_thresholds *)nametab_put(&wt->thr, r->system, r->application, r->variant) = *out;
	return 0;
}

static int take_prev(size_t k, const struct run *r, void *ctx)
{
	((int64_t *)ctx)[k] = r->id;
	return 0;
}

/* Of the windows in ws, those still whole (the run before each wanted one
 * is the window's last) are kept; the others are emptied into *load. */
static int verify(struct store *st, struct watch *wt, struct wants *ws, struct wants *load,
		  struct kerr *err)
{
	int64_t prev[WATCH_CACHE] = {0};
	size_t k;

	if (store_points_before(st, ws->id, ws->n, 1, take_prev, prev, err) < 0)
		return -1;
	for (k = 0; k < ws->n; k++) {
		if (prev[k] == ws->w[k]->last_id) {
			ws->w[k]->batch = wt->batch;
			continue;
		}
		window_empty(ws->w[k]);
		want(load, ws->w[k], ws->id[k]);
	}
	return 0;
}

static int take_before(size_t k, const struct run *r, void *ctx)
{
	struct window *w = ((struct wants *)ctx)->w[k];

	/* newest first: filled from the back, so the oldest ends at head */
	entry_of(w, r, &w->e[WATCH_WINDOW - 1 - w->count]);
	w->count++;
	return 0;
}

/* Read the (empty) windows of ws, each up to the run it is wanted for. */
static int load(struct store *st, struct watch *wt, struct wants *ws, struct kerr *err)
{
	size_t k, i;

	if (store_points_before(st, ws->id, ws->n, WATCH_WINDOW, take_before, ws, err) < 0)
		return -1;
	for (k = 0; k < ws->n; k++) {
		struct window *w = ws->w[k];

		w->head = (WATCH_WINDOW - w->count) % WATCH_WINDOW;
		for (i = 0; i < w->count; i++)
			entry_values(w, &w->e[(w->head + i) % WATCH_WINDOW], sorted_append);
		window_sort(w);
		w->loaded = true;
		w->anchor = ws->id[k];
		w->batch = wt->batch;
	}
	return 0;
}

/* One metric: x against the values s; a regression is added to *regs
 * (made on the first). Returns the verdict. */
static enum ka_verdict check(const struct window *w, const char *metric, const char *region,
			     double x, const struct sorted *s, json_t **regs)
{
	struct ka_baseline b;
	enum ka_verdict v;
	json_t *o;

	if (!s)
		return KA_OK;
	v = ka_verdict_sorted(x, s->v, s->n, &w->t, &b);
	if (v != KA_REGRESSION)
		return v;
	o = json_pack("{s:s,s:f,s:f,s:f,s:I,s:o}", "metric", metric, "value", x, "median", b.median,
		      "mad", b.mad, "runs", (json_int_t)b.runs, "change",
		      b.median != 0 ? json_real((x - b.median) / fabs(b.median)) : json_null());
	if (region)
		json_object_set_new(o, "region", json_string(region));
	if (!*regs)
		*regs = json_array();
	json_array_append_new(*regs, o);
	return v;
}

/* Hold run now against the window: its verdict, the regressions into *regs
 * (NULL without one). */
static enum ka_verdict check_run(const struct window *w, const struct entry *now, json_t **regs)
{
	enum ka_verdict v, worst;
	size_t k;

	*regs = NULL;
	worst = check(w, "tau", NULL, now->tau, &w->tau, regs);
	v = check(w, "energy_j", NULL, now->energy, &w->energy, regs);
	worst = worst == KA_REGRESSION || v == KA_OK ? worst : v;
	for (k = 0; k < now->nreg && k < WATCH_REGIONS; k++) {
		unsigned s = now->reg[k].slot;

		v = check(w, "energy_j", w->name[s], now->reg[k].e, w->region[s], regs);
		worst = worst == KA_REGRESSION || v == KA_OK ? worst : v;
	}
	return worst;
}

/* A regression found in a batch, waiting for its alert to be stored. */
struct found {
	struct wjob *job;
	size_t i;
	json_t *regs;
};

/* Store the alerts of found[0..n) in one transaction and give each job the
 * answer's array; 0 or -1 (nothing stored, the jobs get none). */
static int store_alerts(struct store *st, struct watch *wt, struct found *found, size_t n)
{
	struct kerr err;
	json_t **per_job = xcalloc(n, sizeof(*per_job));
	size_t i, j;
	int rc = -1;

	kerr_clear(&err);
	if (store_begin(st, &err))
		goto out;
	for (i = 0; i < n; i++) {
		const struct run *r = &found[i].job->batch.runs[found[i].i];
		int64_t run_id = found[i].job->ids[found[i].i], id;
		char *text = jsonw_string(found[i].regs, NULL), created[32];
		json_t *a;

		rc = store_alert_put(st, run_id, text, &id, created, &err);
		free(text);
		if (rc) {
			store_rollback(st);
			goto out;
		}
		a = alert_json(&(struct store_alert){id, run_id, r->system, r->application, r->variant,
						     r->p, r->n, NULL, created, NULL, NULL,
						     r->measured_at, r->labels}, found[i].regs);
		for (j = 0; j < i && found[j].job != found[i].job; j++)
			;
		if (!per_job[j])
			per_job[j] = json_array();
		json_array_append_new(per_job[j], a);
	}
	if (store_commit(st, &err)) {
		store_rollback(st);
		goto out;
	}
	rc = 0;
	for (i = 0; i < n; i++) {
		size_t k;
		json_t *x;

		if (!per_job[i])
			continue;
		found[i].job->alerts = jsonw_string(per_job[i], NULL);
		atomic_fetch_add(&wt->alerts, json_array_size(per_job[i]));
		json_array_foreach(per_job[i], k, x)
			if (wt->hook)
				webhook_send(wt->hook, x);
	}
out:
	if (rc)
		klog(KLOG_ERROR, "storing %zu alerts failed: %s", n, KERR_TEXT(&err));
	for (i = 0; i < n; i++)
		json_decref(per_job[i]);
	free(per_job);
	return rc;
}

/* A run of the batch due for its check, and its window. */
struct due {
	struct wjob *job;
	size_t i;
	struct window *w;
};

/* Give the runs t[0..) windows until a part holds WATCH_CACHE points:
 * those cached (verified when another connection may have written since
 * their batch) and those to read. Returns how many runs the part takes. */
static size_t part_of(struct store *st, struct watch *wt, struct due *t, size_t nt,
		      struct kerr *err, int *rc)
{
	struct wants ld = {0}, vf = {0};
	size_t k, points = 0;

	wt->part++;
	for (k = 0; k < nt; k++) {
		const struct run *r = &t[k].job->batch.runs[t[k].i];
		uint64_t key = point_key(r);
		struct window *w = find_window(wt, r, key);

		if (w && w->part == wt->part) {
			t[k].w = w;
			continue;
		}
		if (points == WATCH_CACHE)
			break;
		points++;
		if (!w) {
			w = new_window(wt, r, key);
			if (thresholds_of(st, wt, r, &w->t, err))
				goto fail;
			want(&ld, w, t[k].job->ids[t[k].i]);
		} else if (w->batch != wt->batch && wt->foreign) {
			want(&vf, w, t[k].job->ids[t[k].i]);
		}
		w->part = wt->part;
		t[k].w = w;
	}
	if ((vf.n && verify(st, wt, &vf, &ld, err)) || (ld.n && load(st, wt, &ld, err)))
		goto fail;
	*rc = 0;
	return k;
fail:
	*rc = -1;
	return k;
}

/* Check run t (stored as id) against its window; a regression into found. */
static int check_one(struct store *st, struct watch *wt, struct due *t, struct found **found,
		     size_t *nfound, size_t *cap, struct kerr *err)
{
	const struct run *r = &t->job->batch.runs[t->i];
	int64_t id = t->job->ids[t->i];
	struct window *w = t->w;
	struct entry now;
	json_t *regs;
	enum ka_verdict v;

	if (w->anchor != id && !follows(w, r)) {	/* time went back: read it for r */
		struct wants one = {{w}, {id}, 1};

		window_empty(w);
		if (load(st, wt, &one, err))
			return -1;
	}
	entry_of(w, r, &now);
	v = check_run(w, &now, &regs);
	t->job->verdicts[t->i] = (unsigned char)(WATCH_OK + v);
	atomic_fetch_add(&wt->checked, 1);
	if (v == KA_REGRESSION) {
		if (*nfound == *cap) {
			*cap = *cap ? 2 * *cap : 8;
			*found = xrealloc(*found, *cap * sizeof(**found));
		}
		(*found)[(*nfound)++] = (struct found){t->job, t->i, regs};
	} else {
		json_decref(regs);
	}
	free(w->last_measured);
	w->last_measured = r->measured_at ? xstrdup(r->measured_at) : NULL;
	w->last_id = id;
	window_push(w, &now);
	return 0;
}

void watch_batch(struct store *st, struct wjob *jobs, void *ctx)
{
	struct watch *wt = ctx;
	struct found *found = NULL;
	struct due *t = NULL;
	size_t i, nt = 0, tcap = 0, nfound = 0, cap = 0, pos, end;
	struct wjob *j;
	struct kerr err;
	int rc = 0;

	if (!wt->enabled)
		return;
	if (!wt->cache)
		wt->cache = xcalloc(WATCH_CACHE, sizeof(*wt->cache));
	wt->batch++;
	foreign_writes(st, wt);
	/* deletes, imports and new thresholds change windows: read them anew */
	for (j = jobs; j; j = j->next)
		if (j->kind != WJOB_RUNS || j->import_hash) {
			windows_clear(wt);
			break;
		}
	for (j = jobs; j; j = j->next) {
		if (j->kind != WJOB_RUNS || j->rc || !j->verdicts)
			continue;
		for (i = 0; i < j->batch.count; i++) {
			if (j->verdicts[i] != WJOB_NEW)
				continue;
			if (nt == tcap) {
				tcap = tcap ? 2 * tcap : 64;
				t = xrealloc(t, tcap * sizeof(*t));
			}
			t[nt++] = (struct due){j, i, NULL};
		}
	}
	kerr_clear(&err);
	for (pos = 0; pos < nt && !rc; pos = end) {
		end = pos + part_of(st, wt, t + pos, nt - pos, &err, &rc);
		for (i = pos; i < end && !rc; i++)
			rc = check_one(st, wt, &t[i], &found, &nfound, &cap, &err);
	}
	if (rc) {
		klog(KLOG_ERROR, "checking runs: %s", KERR_TEXT(&err));
		watch_free(wt);
	}
	if (nfound)
		store_alerts(st, wt, found, nfound);
	for (i = 0; i < nfound; i++)
		json_decref(found[i].regs);
	free(found);
	free(t);
}

void watch_free(struct watch *wt)
{
	if (!wt->cache)
		return;
	windows_clear(wt);
	free(wt->cache);
	wt->cache = NULL;
	nametab_free(&wt->thr);
}

json_t *alert_json(const struct store_alert *a, json_t *regs)
{
	json_t *first, *o;

	if (!regs)
		regs = json_loads(a->regressions ? a->regressions : "[]", 0, NULL);
	else
		json_incref(regs);
	if (!json_is_array(regs)) {
		json_decref(regs);
		regs = json_array();
	}
	first = json_array_get(regs, 0);
	o = json_pack("{s:I,s:s,s:s,s:s,s:I,s:f,s:I,s:s,s:o,s:O,s:O,s:{s:O,s:O,s:O},s:o,s:b,s:o,s:o}",
		      "id", (json_int_t)a->id, "system", a->system, "application", a->application,
		      "variant", a->variant, "p", (json_int_t)a->p, "n", a->n, "run_id",
		      (json_int_t)a->run_id, "created_at", a->created_at, "measured_at",
		      a->measured_at ? json_string(a->measured_at) : json_null(), "metric",
		      json_object_get(first, "metric"), "value", json_object_get(first, "value"),
		      "baseline", "median", json_object_get(first, "median"), "mad",
		      json_object_get(first, "mad"), "runs", json_object_get(first, "runs"),
		      "regressions", regs, "acknowledged", a->acknowledged_at != NULL,
		      "acknowledged_at",
		      a->acknowledged_at ? json_string(a->acknowledged_at) : json_null(),
		      "acknowledged_by",
		      a->acknowledged_by ? json_string(a->acknowledged_by) : json_null());
	/* the run's labels: which commit regressed */
	json_object_set_new(o, "labels", a->labels ? json_loads(a->labels, 0, NULL) : json_null());
	if (!json_object_get(o, "labels"))
		json_object_set_new(o, "labels", json_null());
	return o;
}

const char *watch_verdict_name(unsigned char v)
{
	return v < WATCH_OK ? NULL : ka_verdict_name((enum ka_verdict)(v - WATCH_OK));
}
