/*
 * watch: regressions on ingest (see watch.h). A point's window of earlier
 * values is read from the database once, the first time karted meets the
 * point, then kept and carried from run to run and batch to batch, every
 * point's within --check-memory (the clock lets the least used go past
 * it). A batch is checked in parts of at most WATCH_CACHE points: the
 * windows a part lacks are read in one store_points_before (one round
 * trip on PostgreSQL), as are the checks that kept ones are still whole
 * after another connection added runs, so a bulk POST of many new points
 * costs a query per 256 points, not per run.
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

/* One run as a baseline sees it: its regions with energy_j and a slot,
 * the first WATCH_REGIONS_SEEN, the first of them in place (most runs
 * name one), the others in more (room for reg_room(nreg - 1)). */
struct entry {
	double tau, energy;	/* energy NAN when the run has none */
	float freq, cap;	/* frequency_mhz, power_cap_w: NAN when the run has none (a float
				 * each keeps the entry at 48 bytes; settings a float tells
				 * apart are distinct settings) */
	double e0;		/* the first region's energy */
	uint8_t slot0, nreg;
	struct region_e *more;
};

/* The values of one metric in a window, sorted: a baseline without a copy
 * or a selection (ka_baseline_sorted), kept as runs come and go. Room
 * grows with the window, up to WATCH_WINDOW. */
struct sorted {
	double *v;
	uint32_t n, cap;
};

/* The earlier runs of a point, oldest first, up to the run checked last
 * there (last_id). Kept across batches: a batch's first run at the point
 * uses it only when the run just before it is still last_id (nobody else,
 * such as another instance on the same PostgreSQL, added or removed one).
 * Every allocation of a window is counted in *bytes (the watch's), so
 * that the windows kept stay within --check-memory. */
struct window {
	uint64_t key;		/* point_key: its point */
	int64_t last_id;	/* the last run checked */
	int64_t anchor;		/* the run it was read for (its runs are before it) */
	uint64_t epoch;		/* wt->epoch when last read, verified or used */
	unsigned part;		/* the part of a batch that last used it */
	uint32_t at;		/* its index in wt->all */
	size_t *bytes;		/* the watch's count of the windows' bytes */
	struct window *next;	/* in its bucket */
	char *names;		/* system, application, variant: a names block (core/nametab.h) */
	int64_t p;
	double n;
	char *last_measured;	/* the last run checked: its measured_at (NULL: none) */
	struct ka_thresholds t;
	struct entry *e;	/* a ring of cap: the oldest at head (0 until full) */
	uint8_t head, count, cap;
	uint8_t nregs, capregs;
	bool used;		/* since the clock hand last passed (second chance) */
	struct sorted tau, energy;
	struct rname {
		char *name;	/* a region name met at the point */
		struct sorted s;	/* its values */
	} *regs;
};

/* What a block of n bytes costs the heap: glibc's header, rounded up. */
static size_t heap_bytes(size_t n)
{
	return n ? (n + 8 + 15) & ~(size_t)15 : 0;
}

/* p (of old bytes) reallocated to new bytes, counted in w's watch. */
static void *wrealloc(struct window *w, void *p, size_t old, size_t new)
{
	*w->bytes += heap_bytes(new) - heap_bytes(old);
	return xrealloc(p, new);
}

static void wfree(struct window *w, void *p, size_t n)
{
	*w->bytes -= heap_bytes(n);
	free(p);
}

static char *wstrdup(struct window *w, const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(wrealloc(w, NULL, 0, n), s, n);
}

/* The next room of a window's arrays: half as much again, from 4, up to
 * WATCH_WINDOW. */
static uint32_t grown(uint32_t cap)
{
	uint32_t next = cap ? cap + cap / 2 : 4;

	return next < WATCH_WINDOW ? next : WATCH_WINDOW;
}

/* Room in s for one more value. */
static void sorted_room(struct window *w, struct sorted *s)
{
	uint32_t cap;

	if (s->n < s->cap)
		return;
	cap = grown(s->cap);
	s->v = wrealloc(w, s->v, s->cap * sizeof(double), cap * sizeof(double));
	s->cap = cap;
}

static void sorted_free(struct window *w, struct sorted *s)
{
	wfree(w, s->v, s->cap * sizeof(double));
	memset(s, 0, sizeof(*s));
}

static void sorted_add(struct window *w, struct sorted *s, double x)
{
	size_t lo = 0, hi = s->n;

	sorted_room(w, s);
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

static void sorted_remove(struct window *w, struct sorted *s, double x)
{
	size_t lo = 0, hi = s->n;

	(void)w;
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

/* The room an entry's regions take for n of them: a power of two. */
static size_t reg_room(size_t n)
{
	size_t r = 1;

	if (!n)
		return 0;
	while (r < n)
		r *= 2;
	return r;
}

static void entry_clear(struct window *w, struct entry *e)
{
	if (e->nreg > 1)
		wfree(w, e->more, reg_room(e->nreg - 1u) * sizeof(*e->more));
	memset(e, 0, sizeof(*e));
}

/* Region i of entry e. */
static struct region_e entry_reg(const struct entry *e, size_t i)
{
	return i ? e->more[i - 1] : (struct region_e){e->slot0, e->e0};
}

/* Empty w's runs, keeping its point and thresholds. */
static void window_empty(struct window *w)
{
	size_t i;

	for (i = 0; i < w->count; i++)
		entry_clear(w, &w->e[(w->head + i) % w->cap]);
	wfree(w, w->e, w->cap * sizeof(*w->e));
	w->e = NULL;
	w->cap = 0;
	for (i = 0; i < w->nregs; i++) {
		wfree(w, w->regs[i].name, strlen(w->regs[i].name) + 1);
		sorted_free(w, &w->regs[i].s);
	}
	wfree(w, w->regs, w->capregs * sizeof(*w->regs));
	w->regs = NULL;
	w->nregs = w->capregs = 0;
	if (w->last_measured)
		wfree(w, w->last_measured, strlen(w->last_measured) + 1);
	w->last_measured = NULL;
	w->head = w->count = 0;
	sorted_free(w, &w->tau);
	sorted_free(w, &w->energy);
	w->last_id = w->anchor = 0;
}

/* The bucket of key in wt's table. */
static struct window **bucket_of(struct watch *wt, uint64_t key)
{
	return &wt->buckets[key & (wt->nbuckets - 1)];
}

/* w out of the table and let go of. */
static void window_drop(struct watch *wt, struct window *w)
{
	struct window **b = bucket_of(wt, w->key);
	size_t names = names_block_len(w->names);

	while (*b != w)
		b = &(*b)->next;
	*b = w->next;
	wt->all[w->at] = wt->all[--wt->nall];
	wt->all[w->at]->at = w->at;
	if (wt->hand >= wt->nall)
		wt->hand = 0;
	window_empty(w);
	wfree(w, w->names, names);
	wfree(w, w, sizeof(*w));
}

static void thresholds_clear(struct watch *wt)
{
	nametab_clear(&wt->thr);
}

/* Every cached window let go of: its point is read anew when met; and the
 * series' thresholds with them (whatever empties windows may set those). */
static void windows_clear(struct watch *wt)
{
	if (wt->nall)
		wt->resets++;
	while (wt->nall)
		window_drop(wt, wt->all[wt->nall - 1]);
	thresholds_clear(wt);
	wt->whole_gen++;
}

/* Let go of windows, the clock's way (one not used since the hand last
 * passed), until they fit the budget; never one of the current part. */
static void windows_fit(struct watch *wt)
{
	size_t spared = 0;

	while (wt->bytes > wt->budget && wt->nall && spared < 2 * wt->nall) {
		struct window *w = wt->all[wt->hand];

		if (w->part == wt->part || w->used) {
			w->used = false;
			wt->hand = (wt->hand + 1) % wt->nall;
			spared++;
			continue;
		}
		window_drop(wt, w);
		wt->evicted++;
		wt->whole_gen++;	/* its series holds runs no window has now */
		spared = 0;
	}
}

/* The slot of region name at w's point; a new one while there is room
 * (create), else -1. */
static int name_slot(struct window *w, const char *name, bool create)
{
	size_t i;

	for (i = 0; i < w->nregs; i++)
		if (!strcmp(w->regs[i].name, name))
			return (int)i;
	if (!create || w->nregs == WATCH_REGION_NAMES)
		return -1;
	if (w->nregs == w->capregs) {
		uint8_t cap = w->capregs ? 2 * w->capregs : 1;

		w->regs = wrealloc(w, w->regs, w->capregs * sizeof(*w->regs), cap * sizeof(*w->regs));
		w->capregs = cap;
	}
	w->regs[w->nregs].name = wstrdup(w, name);
	memset(&w->regs[w->nregs].s, 0, sizeof(w->regs[w->nregs].s));
	return (int)w->nregs++;
}

/* Add region name's energy e to entry x, when w has a slot for the name. */
static void entry_add(struct window *w, struct entry *x, const char *name, double e)
{
	int slot = name_slot(w, name, true);

	if (slot < 0)
		return;
	if (!x->nreg) {
		x->slot0 = (uint8_t)slot;
		x->e0 = e;
		x->nreg = 1;
		return;
	}
	if (reg_room(x->nreg) != reg_room(x->nreg - 1u))	/* more holds nreg - 1 */
		x->more = wrealloc(w, x->more, reg_room(x->nreg - 1u) * sizeof(*x->more),
				   reg_room(x->nreg) * sizeof(*x->more));
	x->more[x->nreg++ - 1] = (struct region_e){(unsigned)slot, e};
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
	e->freq = (r->has & RUN_HAS_FREQ) ? (float)r->frequency_mhz : NAN;
	e->cap = (r->has & RUN_HAS_CAP) ? (float)r->power_cap_w : NAN;
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
static void sorted_append(struct window *w, struct sorted *s, double x)
{
	sorted_room(w, s);
	s->v[s->n++] = x;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void sorted_sort(struct sorted *s)
{
	if (s->n > 1)	/* an empty one has no array */
		qsort(s->v, s->n, sizeof(double), cmp_double);
}

static void window_sort(struct window *w)
{
	size_t i;

	sorted_sort(&w->tau);
	sorted_sort(&w->energy);
	for (i = 0; i < w->nregs; i++)
		sorted_sort(&w->regs[i].s);
}

/* Count e's values into or out of the metrics with f (sorted_add,
 * sorted_remove, sorted_append). */
static void entry_values(struct window *w, const struct entry *e,
			 void (*f)(struct window *, struct sorted *, double))
{
	size_t i;

	f(w, &w->tau, e->tau);
	if (isfinite(e->energy))
		f(w, &w->energy, e->energy);
	for (i = 0; i < e->nreg; i++) {
		struct region_e x = entry_reg(e, i);

		if (isfinite(x.e))
			f(w, &w->regs[x.slot].s, x.e);
	}
}

/* Room for one more entry at the ring's end. The ring grows only while it
 * is not full, when its oldest entry is at 0. */
static void entries_room(struct window *w)
{
	uint32_t cap;

	if (w->count < w->cap)
		return;
	cap = grown(w->cap);
	w->e = wrealloc(w, w->e, w->cap * sizeof(*w->e), cap * sizeof(*w->e));
	w->cap = (uint8_t)cap;
}

/* Append e (taken over) to the window, dropping the oldest when full. */
static void window_push(struct window *w, struct entry *e)
{
	struct entry *slot;

	if (w->count == WATCH_WINDOW) {
		entry_values(w, &w->e[w->head], sorted_remove);
		entry_clear(w, &w->e[w->head]);
		w->head = (w->head + 1) % WATCH_WINDOW;
		w->count--;
	}
	entries_room(w);
	slot = &w->e[(w->head + w->count++) % w->cap];
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
 * added make wt->foreign and start a new epoch, so each window kept from
 * before is verified when next used. Both when the store cannot tell. */
static void foreign_writes(struct store *st, struct watch *wt)
{
	int64_t added, changed;
	bool known = store_data_version(st, &added, &changed) == 0;

	if (!known || !wt->version_known || changed != wt->changed)
		windows_clear(wt);
	wt->foreign = !known || !wt->version_known || added != wt->added;
	if (wt->foreign) {
		wt->epoch++;
		wt->whole_gen++;
	}
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
	struct window *w;

	if (!wt->nbuckets)
		return NULL;
	for (w = *bucket_of(wt, key); w; w = w->next)
		if (w->key == key && w->p == r->p && w->n == r->n &&
		    names_block_is(w->names, r->system, r->application, r->variant))
			return w;
	return NULL;
}

/* Twice the buckets, once there are as many windows as buckets. */
static void buckets_grow(struct watch *wt)
{
	size_t i, n = wt->nbuckets ? 2 * wt->nbuckets : 1024;

	if (wt->nall < wt->nbuckets)
		return;
	/* the table and the list count against the budget too */
	wt->bytes += 2 * (heap_bytes(n * sizeof(*wt->buckets)) - heap_bytes(wt->nbuckets * sizeof(*wt->buckets)));
	free(wt->buckets);
	wt->buckets = xcalloc(n, sizeof(*wt->buckets));
	wt->nbuckets = n;
	for (i = 0; i < wt->nall; i++) {
		struct window **b = bucket_of(wt, wt->all[i]->key);

		wt->all[i]->next = *b;
		*b = wt->all[i];
	}
	wt->all = xrealloc(wt->all, n * sizeof(*wt->all));
}

/* A new, empty window for r's point, after letting go of others (not the
 * current part's) to stay within the budget. */
static struct window *new_window(struct watch *wt, const struct run *r, uint64_t key)
{
	size_t size = names_block_size(r->system, r->application, r->variant);
	struct window **bk, *w;

	windows_fit(wt);
	buckets_grow(wt);
	wt->bytes += heap_bytes(sizeof(*w));
	w = xcalloc(1, sizeof(*w));
	w->bytes = &wt->bytes;
	w->key = key;
	w->names = wrealloc(w, NULL, 0, size);
	names_block_fill(w->names, r->system, r->application, r->variant);
	w->p = r->p;
	w->n = r->n;
	w->at = (uint32_t)wt->nall;
	wt->all[wt->nall++] = w;
	bk = bucket_of(wt, key);
	w->next = *bk;
	*bk = w;
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

/* What the writer keeps of a series between batches: its thresholds, and
 * the generation it was found whole in plus one (0: not whole). */
struct seen {
	struct ka_thresholds t;
	uint64_t whole;
};

/* The thresholds of r's series: from the writer's cache, or read once
 * (a query a series, not a run: a body of 10^4 runs to 10^4 series read
 * them 10^4 times, 15 % of karted's CPU for it). The same query tells
 * whether the series held any run before this batch: a series that did
 * not, met in a batch that may find one whole, is whole (*whole). */
static int thresholds_of(struct store *st, struct watch *wt, const struct run *r,
			 struct ka_thresholds *out, bool *whole, struct kerr *err)
{
	struct seen *kept = nametab_get(&wt->thr, r->system, r->application, r->variant);
	struct store_thresholds t;
	bool before;

	if (kept) {
		*out = kept->t;
		*whole = kept->whole == wt->whole_gen + 1;
		return 0;
	}
	*out = (struct ka_thresholds)KA_THRESHOLDS_DEFAULT;
	if (store_thresholds_get_before(st, r->system, r->application, r->variant, wt->batch_first, &t,
					&before, err) < 0)
		return -1;
	if (t.set) {
		out->rel = t.rel;
		out->noise = t.noise;
		out->min_runs = (size_t)t.min_runs;
	}
	*whole = wt->batch_whole && !before;
	if (!wt->thr.cap)
		wt->thr = (struct nametab)NAMETAB_INIT(WATCH_THRESHOLDS, sizeof(struct seen));
	*(struct seen *)nametab_put(&wt->thr, r->system, r->application, r->variant) =
		(struct seen){*out, *whole ? wt->whole_gen + 1 : 0};
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
			ws->w[k]->epoch = wt->epoch;
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

	/* newest first: reversed once read (load) */
	entries_room(w);
	entry_of(w, r, &w->e[w->count++]);
	return 0;
}

/* Read the (empty) windows of ws, each up to the run it is wanted for. */
static int load(struct store *st, struct watch *wt, struct wants *ws, struct kerr *err)
{
	size_t k, i;

	if (store_points_before(st, ws->id, ws->n, WATCH_WINDOW, take_before, ws, err) < 0)
		return -1;
	wt->reads += ws->n;
	for (k = 0; k < ws->n; k++) {
		struct window *w = ws->w[k];

		for (i = 0; i < w->count / 2; i++) {	/* the oldest first, at 0 */
			struct entry x = w->e[i];

			w->e[i] = w->e[w->count - 1 - i];
			w->e[w->count - 1 - i] = x;
		}
		w->head = 0;
		for (i = 0; i < w->count; i++)
			entry_values(w, &w->e[i], sorted_append);
		window_sort(w);
		w->anchor = ws->id[k];
		w->epoch = wt->epoch;
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

static bool same_value(float a, float b)
{
	return a == b || (isnan(a) && isnan(b));
}

/* A run at another frequency or power cap is never a baseline: the same
 * point of the regression check is (series, p, n, frequency, cap). */
static bool same_setting(const struct entry *a, const struct entry *b)
{
	return same_value(a->freq, b->freq) && same_value(a->cap, b->cap);
}

/* The window's values of the runs at now's setting, sorted, into tau,
 * energy and regs[w->nregs] (their v the caller's room: WATCH_WINDOW
 * each). */
static void setting_values(const struct window *w, const struct entry *now, struct sorted *tau,
			   struct sorted *energy, struct sorted *regs)
{
	size_t i, k;

	for (i = 0; i < w->count; i++) {
		const struct entry *e = &w->e[(w->head + i) % w->cap];

		if (!same_setting(e, now))
			continue;
		tau->v[tau->n++] = e->tau;
		if (isfinite(e->energy))
			energy->v[energy->n++] = e->energy;
		for (k = 0; k < e->nreg; k++) {
			struct region_e x = entry_reg(e, k);

			if (isfinite(x.e))
				regs[x.slot].v[regs[x.slot].n++] = x.e;
		}
	}
	sorted_sort(tau);
	sorted_sort(energy);
	for (k = 0; k < w->nregs; k++)
		sorted_sort(&regs[k]);
}

/* Hold run now against the window (its runs at now's frequency and cap):
 * its verdict, the regressions into *regs (NULL without one). */
static enum ka_verdict check_run(const struct window *w, const struct entry *now, json_t **regs)
{
	const struct sorted *tau = &w->tau, *energy = &w->energy;
	struct sorted ftau = {0}, fenergy = {0}, *fregs = NULL;
	double *room = NULL;
	enum ka_verdict v, worst;
	size_t k, mixed = 0;

	for (k = 0; k < w->count; k++)
		mixed += !same_setting(&w->e[(w->head + k) % w->cap], now);
	if (mixed) {	/* the window's sorted values hold other settings: these runs alone */
		room = xmalloc((2 + (size_t)w->nregs) * WATCH_WINDOW * sizeof(double));
		fregs = xcalloc((size_t)w->nregs + 1, sizeof(*fregs));
		ftau.v = room;
		fenergy.v = room + WATCH_WINDOW;
		for (k = 0; k < w->nregs; k++)
			fregs[k].v = room + (2 + k) * WATCH_WINDOW;
		setting_values(w, now, &ftau, &fenergy, fregs);
		tau = &ftau, energy = &fenergy;
	}
	*regs = NULL;
	worst = check(w, "tau", NULL, now->tau, tau, regs);
	v = check(w, "energy_j", NULL, now->energy, energy, regs);
	worst = worst == KA_REGRESSION || v == KA_OK ? worst : v;
	for (k = 0; k < now->nreg && k < WATCH_REGIONS; k++) {
		struct region_e x = entry_reg(now, k);

		v = check(w, "energy_j", w->regs[x.slot].name, x.e, mixed ? &fregs[x.slot] : &w->regs[x.slot].s,
			  regs);
		worst = worst == KA_REGRESSION || v == KA_OK ? worst : v;
	}
	free(fregs);
	free(room);
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
 * those kept (verified when another connection may have added runs since
 * they were last whole) and those to read. Returns how many runs the part takes. */
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
			bool whole;

			w = new_window(wt, r, key);
			if (thresholds_of(st, wt, r, &w->t, &whole, err))
				goto fail;
			if (whole) {	/* a new point of a whole series: no runs to read */
				w->anchor = t[k].job->ids[t[k].i];
				w->epoch = wt->epoch;
				wt->begun++;
			} else {
				want(&ld, w, t[k].job->ids[t[k].i]);
			}
		} else if (w->epoch != wt->epoch) {	/* another wrote since it was whole */
			want(&vf, w, t[k].job->ids[t[k].i]);
		}
		w->part = wt->part;
		w->used = true;
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
	if (w->last_measured)
		wfree(w, w->last_measured, strlen(w->last_measured) + 1);
	w->last_measured = r->measured_at ? wstrdup(w, r->measured_at) : NULL;
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
	if (!wt->budget)
		wt->budget = WATCH_MEMORY_DEFAULT;
	foreign_writes(st, wt);
	if (!jobs)	/* before the first batch: what others wrote is known from here */
		return;
	wt->batch_whole = !wt->foreign;
	/* deletes, imports and new thresholds change windows: read them anew */
	for (j = jobs; j; j = j->next)
		if (j->kind != WJOB_RUNS || j->import_hash) {
			windows_clear(wt);
			break;
		}
	wt->batch_first = INT64_MAX;
	for (j = jobs; j; j = j->next) {
		if (j->kind == WJOB_RUNS && !j->rc && !j->verdicts) {
			/* runs stored unchecked (an import): their points have no window */
			wt->whole_gen++;
			wt->batch_whole = false;
		}
		if (j->kind != WJOB_RUNS || j->rc || !j->verdicts)
			continue;
		for (i = 0; i < j->batch.count; i++) {
			if (j->verdicts[i] != WJOB_NEW)
				continue;
			if (j->ids[i] < wt->batch_first)
				wt->batch_first = j->ids[i];
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
	windows_fit(wt);
	wt->kept = wt->nall;
	wt->kept_bytes = wt->bytes;
	if (nfound)
		store_alerts(st, wt, found, nfound);
	for (i = 0; i < nfound; i++)
		json_decref(found[i].regs);
	free(found);
	free(t);
}

void watch_free(struct watch *wt)
{
	windows_clear(wt);
	free(wt->buckets);
	free(wt->all);
	wt->buckets = NULL;
	wt->all = NULL;
	wt->nbuckets = wt->hand = 0;
	wt->bytes = 0;
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
