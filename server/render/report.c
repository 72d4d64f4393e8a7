#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

#define ARROWS_MAX_POINTS 400	/* above this the arrows would hide the data */
#define LEGEND_P_MAX 9		/* distinct p listed one by one; more: a colour ramp */
#define LINES_NAMED_MAX 24	/* lines each named in the legend; more: every k-th, and a note */
#define STARS_MAX 40		/* SPS crossings drawn; more would bury the runs (a note says so) */
#define PANELS_MAX 8

struct report {
	struct chart_spec spec;
	struct chart_panel panels[PANELS_MAX];
	struct chart_layer *layers[PANELS_MAX];
	size_t nlayers[PANELS_MAX], caplayers[PANELS_MAX];
	struct chart_legend *legend[PANELS_MAX];
	size_t nlegend[PANELS_MAX], caplegend[PANELS_MAX];
	/* the short legend (chart.h): each series once and each n once in
	 * place of an entry per (series, n) line; every other entry as is */
	struct chart_legend *brief[PANELS_MAX];
	size_t nbrief[PANELS_MAX], capbrief[PANELS_MAX];
	bool factored[PANELS_MAX];	/* lines were named: the short legend differs */
	size_t nbrief_series[PANELS_MAX], nbrief_n[PANELS_MAX];	/* its first entries: the series, then the n */
	void **mem;		/* every allocation the spec points into */
	size_t nmem, capmem;
	char title[512];	/* room for three names of RUN_NAME_MAX bytes */
};

static void *keep(struct report *r, void *p)
{
	if (r->nmem == r->capmem) {
		r->capmem = r->capmem ? 2 * r->capmem : 32;
		r->mem = xrealloc(r->mem, r->capmem * sizeof(*r->mem));
	}
	r->mem[r->nmem++] = p;
	return p;
}

static double *doubles(struct report *r, size_t n)
{
	return keep(r, xcalloc(n ? n : 1, sizeof(double)));
}

static char *str(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static char *str(struct report *r, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return keep(r, xstrdup(buf));
}

static struct chart_layer *layer(struct report *r, size_t panel, enum layer_kind kind)
{
	struct chart_layer *l;

	if (r->nlayers[panel] == r->caplayers[panel]) {
		r->caplayers[panel] = r->caplayers[panel] ? 2 * r->caplayers[panel] : 16;
		r->layers[panel] = xrealloc(r->layers[panel],
					    r->caplayers[panel] * sizeof(*r->layers[panel]));
	}
	l = &r->layers[panel][r->nlayers[panel]++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	return l;
}

static void legend_put(struct chart_legend **a, size_t *n, size_t *cap, const char *text,
		       struct rgb c, enum chart_marker m, enum chart_dash d)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*a = xrealloc(*a, *cap * sizeof(**a));
	}
	(*a)[(*n)++] = (struct chart_legend){text, c, m, d, false};
}

/* An entry of both legends. */
static void legend(struct report *r, size_t panel, const char *text, struct rgb c,
		   enum chart_marker m, enum chart_dash d)
{
	legend_put(&r->legend[panel], &r->nlegend[panel], &r->caplegend[panel], text, c, m, d);
	legend_put(&r->brief[panel], &r->nbrief[panel], &r->capbrief[panel], text, c, m, d);
}

/* An entry of the short legend alone, once: a series after the series
 * listed, an n after the n listed, both before every other entry. */
static void legend_brief(struct report *r, size_t panel, bool series, const char *text,
			 struct rgb c, enum chart_marker m, enum chart_dash d)
{
	struct chart_legend *b;
	size_t i, at = r->nbrief_series[panel] + (series ? 0 : r->nbrief_n[panel]);

	for (i = 0; i < r->nbrief[panel]; i++)
		if (!strcmp(r->brief[panel][i].text, text))
			return;
	legend_put(&r->brief[panel], &r->nbrief[panel], &r->capbrief[panel], text, c, m, d);
	b = r->brief[panel];
	memmove(b + at + 1, b + at, (r->nbrief[panel] - 1 - at) * sizeof(*b));
	b[at] = (struct chart_legend){text, c, m, d, false};
	if (series)
		r->nbrief_series[panel]++;
	else
		r->nbrief_n[panel]++;
}

static const struct rgb GREY = {0.55, 0.55, 0.55}, BLACK = {0, 0, 0},
			BOUNDARY = {0.25, 0.25, 0.25};	/* the C1/C3 line: a guide */

/* A sentence more in the panel's note (kept in r). */
static void note_add(struct report *r, size_t panel, const char *text)
{
	const char *had = r->panels[panel].note;

	r->panels[panel].note = had ? str(r, "%s; %s", had, text) : str(r, "%s", text);
}

struct report_opts report_opts_default(void)
{
	return (struct report_opts){.width = CHART_WIDTH_DEFAULT, .height = CHART_HEIGHT_DEFAULT,
				    .scale = 1, .max_p = 4096,
				    .iso = {KA_ISO_TOL_DEFAULT, KA_C2_RTOL_DEFAULT}};
}

int report_kind_parse(const char *name, enum report_kind *k)
{
	static const char *const names[REPORT_KINDS] = {"isoefficiency", "efficiency", "energy",
							"energy-shares"};
	int i;

	for (i = 0; i < REPORT_KINDS; i++)
		if (!strcmp(name, names[i])) {
			*k = (enum report_kind)i;
			return 0;
		}
	return -1;
}

bool report_needs_runs(enum report_kind k)
{
	return k == REPORT_ISOEFFICIENCY || k == REPORT_EFFICIENCY;
}

/* ---- pooled points of a series ---------------------------------------------- */

struct pooled {
	struct ka_obs *obs;
	size_t nobs;
	/* analysis results: SPS crossing points and the C1/C3 boundary */
	double *cross_tau, *cross_chi;
	size_t ncross, capcross;
	size_t *boundary;
	size_t nboundary;
	double tol, c2_rtol;	/* the analysis' tolerances: "equal" efficiency, the C2 band */
	/* obs indices sorted by (p, n); the distinct p, and where each p's
	 * indices start in by_p (np + 1 entries) */
	size_t *by_p, *p_start;
	int64_t *ps;
	size_t np;
};

/* Where the drawn step into (p', n') meets the base's isoefficiency line.
 * The analysis interpolates linearly in (tau, chi); on log-log axes the
 * step is a straight segment between log points, so the mark is placed by
 * the same interpolation in log space: on the segment, on the line. */
static void on_sps(const struct ka_sps *s, void *ctx)
{
	struct pooled *p = ctx;
	const struct ka_obs *b = &p->obs[s->grown_p], *a = b;
	double d1, d2, t, target = log(1 - s->efficiency);

	if (p->ncross == p->capcross)
		return;
	if (s->grown_p > 0 && p->obs[s->grown_p - 1].n == b->n && p->obs[s->grown_p - 1].p > p->obs[s->base].p)
		a = &p->obs[s->grown_p - 1];	/* the step drawn: from the p before p' at n' */
	else if (s->grown_n < s->grown_p)
		a = &p->obs[s->grown_n];
	if (!(a->chi > 0 && b->chi > 0 && 1 - s->efficiency > 0)) {	/* not on log axes: as computed */
		p->cross_tau[p->ncross] = s->cross_tau;
		p->cross_chi[p->ncross++] = s->cross_chi;
		return;
	}
	d1 = log(a->chi) - log(a->tau);
	d2 = log(b->chi) - log(b->tau);
	t = s->equal || !(fabs(d2 - d1) > 1e-12 * fabs(d1)) ? 1 : (target - d1) / (d2 - d1);
	t = fmin(1, fmax(0, t));
	p->cross_tau[p->ncross] = exp(log(a->tau) + t * (log(b->tau) - log(a->tau)));
	p->cross_chi[p->ncross] = exp(log(a->chi) + t * (log(b->chi) - log(a->chi)));
	p->ncross++;
}

/* The point of an n where tau stops falling before it rises (the
 * analysis reports it only where a C3 step follows). */
static void on_boundary(size_t i, void *ctx)
{
	struct pooled *p = ctx;

	p->boundary[p->nboundary++] = i;
}

static int by_p_order(const void *a, const void *b, void *ctx)
{
	const struct ka_obs *o = ctx, *x = &o[*(const size_t *)a], *y = &o[*(const size_t *)b];

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->n > y->n) - (x->n < y->n);
}

/* p->by_p, p->ps, p->p_start of the pooled points: O(m log m), so a chart
 * of 10^5 points with as many distinct p or n stays linear in its layers. */
static void group_by_p(struct report *r, struct pooled *p)
{
	size_t i, m = p->nobs;

	p->by_p = keep(r, xcalloc(m ? m : 1, sizeof(size_t)));
	p->ps = keep(r, xcalloc(m ? m : 1, sizeof(int64_t)));
	p->p_start = keep(r, xcalloc(m + 1, sizeof(size_t)));
	for (i = 0; i < m; i++)
		p->by_p[i] = i;
	qsort_r(p->by_p, m, sizeof(size_t), by_p_order, p->obs);
	p->np = 0;
	for (i = 0; i < m; i++)
		if (i == 0 || p->obs[p->by_p[i]].p != p->obs[p->by_p[i - 1]].p) {
			p->ps[p->np] = p->obs[p->by_p[i]].p;
			p->p_start[p->np++] = i;
		}
	p->p_start[p->np] = m;
}

/* Pool and analyse one series at o's tolerances (or, tol_auto, its own
 * from the spread of its repeated runs); everything kept in r. */
static void pool(struct report *r, struct report_series *s, const struct ka_iso_opts *o, bool tol_auto,
		 struct pooled *p)
{
	struct ka_iso_opts own = *o;
	size_t wsize = ka_pool_work(s->nruns) > ka_iso_work(s->nruns) ? ka_pool_work(s->nruns) :
									ka_iso_work(s->nruns);
	void *work = xmalloc(wsize ? wsize : 1);
	/* crossings are drawn for small series only: skip the pairs otherwise */
	struct ka_iso_visitor v = {NULL, on_boundary, s->nruns <= ARROWS_MAX_POINTS ? on_sps : NULL,
				   NULL, NULL, NULL, p};

	memset(p, 0, sizeof(*p));
	p->obs = keep(r, xcalloc(s->nruns ? s->nruns : 1, sizeof(*p->obs)));
	p->boundary = keep(r, xcalloc(s->nruns ? s->nruns : 1, sizeof(size_t)));
	p->capcross = 4096;	/* a plot shows at most this many crossings */
	p->cross_tau = doubles(r, p->capcross);
	p->cross_chi = doubles(r, p->capcross);
	if (ka_pool(s->runs, s->nruns, p->obs, &p->nobs, work, wsize) == 0) {
		if (tol_auto && p->nobs)
			ka_iso_auto_tolerance(p->obs, p->nobs, doubles(r, 2 * p->nobs), &own);
		ka_iso_analyze(p->obs, p->nobs, &own, work, wsize, &v);
	}
	p->tol = own.tol;
	p->c2_rtol = own.c2_rtol;
	free(work);
	group_by_p(r, p);
}

static struct rgb p_color(const int64_t *ps, size_t np, size_t i)
{
	if (np <= LEGEND_P_MAX)
		return chart_palette(i);
	return chart_ramp(log((double)ps[i] / (double)ps[0]) / log((double)ps[np - 1] / (double)ps[0]));
}

/* Points of obs with a given p (n ascending), or a given n (p ascending). */
static size_t pick(struct report *r, const struct pooled *p, bool by_p, int64_t pv, double nv,
		   bool tau_chi, double **xs, double **ys)
{
	double *x = doubles(r, p->nobs), *y = doubles(r, p->nobs);
	size_t i, n = 0;

	for (i = 0; i < p->nobs; i++) {
		const struct ka_obs *o = &p->obs[i];

		if (by_p ? o->p != pv : o->n != nv)
			continue;
		x[n] = tau_chi ? o->tau : (double)o->p;
		y[n] = tau_chi ? o->chi : o->eps;
		n++;
	}
	/* obs are sorted by (n, p): at fixed p the walk is in n order, at fixed n in p order */
	*xs = x;
	*ys = y;
	return n;
}

/* An axis with nice ticks chosen by the chart. */
static struct chart_axis axis(const char *title, bool log, double min, double max)
{
	return (struct chart_axis){title, log, min, max, NULL, 0, NULL};
}

/* The view asked for (a zoomed part of the plane) over the fitted axes. */
static void apply_view(struct report *r, const struct report_opts *o)
{
	size_t i;

	if (!o->has_view)
		return;
	for (i = 0; i < r->spec.npanels; i++) {
		struct chart_axis *x = &r->panels[i].x, *y = &r->panels[i].y;
		int k;

		for (k = 0; k < 2; k++) {
			if (!isnan(o->view[k]) && (!x->log || o->view[k] > 0))
				*(k ? &x->max : &x->min) = o->view[k];
			if (r->spec.npanels == 1 && !isnan(o->view[2 + k]) && (!y->log || o->view[2 + k] > 0))
				*(k ? &y->max : &y->min) = o->view[2 + k];
		}
		if (x->nat && (!isnan(o->view[0]) || !isnan(o->view[1])))
			x->nat = 0;	/* zoomed: nice ticks, the measured p may be off screen */
	}
}

/* ---- tau-chi isoefficiency ------------------------------------------------------ */

/* The efficiency of the base run o->base_p, o->base_n; NAN when it is not
 * a measured point. */
static double base_eps(const struct report_opts *o, const struct pooled *p)
{
	size_t i;

	for (i = 0; i < p->nobs; i++)
		if (p->obs[i].p == o->base_p && p->obs[i].n == o->base_n)
			return p->obs[i].eps;
	return NAN;
}

static void iso_lines(struct report *r, const struct report_opts *o, const struct pooled *p0)
{
	struct chart_layer *l;
	int k;

	/* eps = 0 first: its label is placed before the others' */
	l = layer(r, 0, LAYER_RAY);
	l->slope = 1;
	l->color = BLACK;
	l->size = 1.6;
	l->label = "ε=0";
	for (k = 1; k <= 9; k++) {
		l = layer(r, 0, LAYER_RAY);
		l->slope = 1 - k / 10.0;
		l->color = GREY;
		l->size = 0.7;
		l->dash = DASH_DASHED;
		l->label = str(r, "ε=%.1f", k / 10.0);
	}
	if (o->has_base && p0 && !isnan(base_eps(o, p0))) {
		double e = base_eps(o, p0);

		l = layer(r, 0, LAYER_RAY);
		l->slope = 1 - e;
		l->color = chart_palette(1);
		l->size = 1.6;
		l->dash = DASH_DASHED;
		l->label = str(r, "base (%lld, %g): ε=%.3f", (long long)o->base_p, o->base_n, e);
		legend(r, 0, "base isoefficiency line", chart_palette(1), MARK_COUNT, DASH_DASHED);
	}
}

/* A shaded band over [xlo, xhi] between two lines through the origin,
 * y = lo * x and y = hi * x (lo 0: down to ybot). */
static void band(struct report *r, double xlo, double xhi, double lo, double hi, double ybot,
		 struct rgb c)
{
	struct chart_layer *l = layer(r, 0, LAYER_AREA);
	double *x = doubles(r, 2), *y = doubles(r, 2), *y0 = doubles(r, 2);

	x[0] = xlo;
	x[1] = xhi;
	y[0] = hi * xlo;
	y[1] = hi * xhi;
	y0[0] = lo > 0 ? lo * xlo : ybot;
	y0[1] = lo > 0 ? lo * xhi : ybot;
	l->x = x;
	l->y = y;
	l->y0 = y0;
	l->n = 2;
	l->color = c;
	l->alpha = 0.10;
}

/* Regions (I) and (II) of the base: bands between rays, drawn first.
 * (I) lies below the base's line, (II) between it and eps = 0. */
static void base_regions(struct report *r, const struct report_opts *o, const struct pooled *p,
			 double xlo, double xhi, double ylo)
{
	double e = base_eps(o, p);

	if (isnan(e))
		return;
	band(r, xlo, xhi, 0, 1 - e, ylo, chart_palette(0));
	band(r, xlo, xhi, 1 - e, 1, ylo, chart_palette(1));
	r->layers[0][r->nlayers[0] - 1].hatch = true;	/* (II) apart from (I) in grey too */
	legend(r, 0, "region (I): SPS candidates", chart_palette(0), MARK_SQUARE, DASH_SOLID);
	legend(r, 0, "region (II): not SPS", chart_palette(1), MARK_SQUARE, DASH_SOLID);
	r->legend[0][r->nlegend[0] - 1].hatch = true;
	r->brief[0][r->nbrief[0] - 1].hatch = true;
}

/* The base's verdicts on its larger n (at the base's p), drawn over the
 * runs: a ring in region (I), an SPS candidate (an SPS where a star marks
 * the crossing), a cross in region (II), not SPS. Shapes, not colours, so
 * a greyscale print tells them apart. */
static void base_verdicts(struct report *r, const struct report_opts *o, const struct pooled *p)
{
	double e = base_eps(o, p), *x[2], *y[2];
	static const enum chart_marker mark[2] = {MARK_RING, MARK_CROSS};
	static const char *const what[2] = {"base's larger n in (I)", "base's larger n in (II)"};
	size_t n[2] = {0, 0}, i, k;

	if (isnan(e))
		return;
	for (k = 0; k < 2; k++) {
		x[k] = doubles(r, p->nobs);
		y[k] = doubles(r, p->nobs);
	}
	for (i = 0; i < p->nobs; i++) {
		const struct ka_obs *b = &p->obs[i];

		if (b->p != o->base_p || !(b->n > o->base_n))
			continue;
		k = b->eps > e + p->tol ? 0 : 1;	/* the region test of the analysis */
		x[k][n[k]] = b->tau;
		y[k][n[k]++] = b->chi;
	}
	for (k = 0; k < 2; k++) {
		struct chart_layer *l;

		if (!n[k])
			continue;
		l = layer(r, 0, LAYER_MARKERS);
		l->x = x[k];
		l->y = y[k];
		l->n = n[k];
		l->color = BLACK;
		l->size = 3.5;
		l->marker = mark[k];
		legend(r, 0, what[k], BLACK, mark[k], DASH_SOLID);
	}
}

/* ---- lines per (series, n) ---------------------------------------------------------- */

/* Six shapes (the star marks SPS crossings) and four dashes. */
static const enum chart_marker LINE_MARKS[] = {MARK_CIRCLE, MARK_SQUARE, MARK_TRIANGLE, MARK_DIAMOND,
					       MARK_CROSS, MARK_RING};
static const enum chart_dash LINE_DASHES[] = {DASH_SOLID, DASH_DASHED, DASH_DOTTED, DASH_DASHDOT};
#define NLINE_MARKS (sizeof(LINE_MARKS) / sizeof(LINE_MARKS[0]))

struct line_look {
	struct rgb c;
	enum chart_marker m;
	enum chart_dash d;
};

/* The look of the line of the ni-th of nn n of the si-th of ns series, so
 * that a greyscale print tells the lines apart by shape and dash: one
 * series, colour, shape and dash by n (shape and dash cycle at 6 and 4,
 * so 12 lines in a row differ in both); several series, the colour and
 * dash are the series', the shape the n's. */
static struct line_look line_look(size_t si, size_t ns, size_t ni, size_t nn)
{
	struct line_look k;

	k.m = LINE_MARKS[ni % NLINE_MARKS];
	if (ns > 1) {
		k.c = chart_palette(si);
		k.d = LINE_DASHES[si % 4];
	} else {
		k.c = nn <= LEGEND_P_MAX ? chart_palette(ni) :
		      chart_ramp(nn > 1 ? (double)ni / (double)(nn - 1) : 0);
		k.d = LINE_DASHES[ni % 4];
	}
	return k;
}

/* The legend entry of that line: "n = 39 200", or with several series
 * "SP2:md n = 39 200". Past LINES_NAMED_MAX lines in all, every k-th
 * (and the last) is named and the panel says so. */
static void line_legend(struct report *r, size_t panel, const char *series, size_t ns, double n,
			size_t line, size_t lines, struct line_look k)
{
	char num[48];
	size_t every = lines <= LINES_NAMED_MAX ? 1 : (lines + LINES_NAMED_MAX - 1) / LINES_NAMED_MAX;

	if (line % every && line != lines - 1)
		return;
	chart_number(n, num, sizeof(num));
	if (ns == 1) {
		legend(r, panel, str(r, "n = %s", num), k.c, k.m, k.d);
		return;
	}
	legend_put(&r->legend[panel], &r->nlegend[panel], &r->caplegend[panel],
		   str(r, "%s n = %s", series, num), k.c, k.m, k.d);
	/* the short legend: the series by colour and dash, the n by shape */
	legend_brief(r, panel, true, series, k.c, MARK_COUNT, k.d);
	legend_brief(r, panel, false, str(r, "n = %s", num), GREY, k.m, DASH_SOLID);
	r->factored[panel] = true;
	if (every > 1 && line == lines - 1)
		note_add(r, panel, str(r, "%zu lines: every %zu-th named (colour from the first n to "
					  "the last)", lines, every));
}

/* The number of (series, n) lines: distinct n in each series' obs (sorted by n). */
static size_t count_lines(const struct ka_obs *obs, size_t nobs)
{
	size_t k, lines = 0;

	for (k = 0; k < nobs; k++)
		lines += k == 0 || obs[k].n != obs[k - 1].n;
	return lines;
}

/* A markers layer of the points at the gi-th distinct p and n = nv (all n
 * when NAN), in colour c and shape m. */
static void runs_layer(struct report *r, const struct pooled *p, size_t gi, double nv, struct rgb c,
		       enum chart_marker m)
{
	struct chart_layer *l = layer(r, 0, LAYER_MARKERS);
	size_t lo = p->p_start[gi], hi = p->p_start[gi + 1], i;
	double *x, *y;

	if (!isnan(nv)) {	/* n ascending within the group: the run of n = nv */
		size_t a = lo, b = hi;

		while (a < b) {
			size_t mid = a + (b - a) / 2;

			if (p->obs[p->by_p[mid]].n < nv)
				a = mid + 1;
			else
				b = mid;
		}
		for (lo = a, hi = a; hi < p->p_start[gi + 1] && p->obs[p->by_p[hi]].n == nv; hi++)
			;
	}
	x = doubles(r, hi - lo);
	y = doubles(r, hi - lo);
	for (i = lo; i < hi; i++) {
		x[l->n] = p->obs[p->by_p[i]].tau;
		y[l->n] = p->obs[p->by_p[i]].chi;
		l->n++;
	}
	l->x = x;
	l->y = y;
	l->color = c;
	l->marker = m;
	l->size = 3.5;
}

/* The runs of one series, with p and n both readable: colour by p and
 * shape by n when there are at most six n; with more n but at most six
 * p, shape by p and colour by n; with many of both, colour by p (n grows
 * along each p's arrows, and the note says so). Legends list each p and
 * each n encoded. */
static void iso_runs_one_series(struct report *r, const struct pooled *p, const int64_t *ps,
				size_t np)
{
	double *ns = doubles(r, p->nobs ? p->nobs : 1);
	size_t nn = 0, i, j;
	char num[48];

	for (i = 0; i < p->nobs; i++)	/* obs are sorted by n */
		if (i == 0 || p->obs[i].n != p->obs[i - 1].n)
			ns[nn++] = p->obs[i].n;
	if (nn <= NLINE_MARKS || np > NLINE_MARKS) {
		for (i = 0; i < np; i++) {
			struct rgb c = p_color(ps, np, i);

			if (nn <= NLINE_MARKS)
				for (j = 0; j < nn; j++)
					runs_layer(r, p, i, ns[j], c, LINE_MARKS[j]);
			else
				runs_layer(r, p, i, NAN, c, MARK_CIRCLE);
			if (np <= LEGEND_P_MAX || i % ((np + 5) / 6) == 0 || i == np - 1)
				legend(r, 0, str(r, "p = %lld", (long long)ps[i]), c, MARK_CIRCLE,
				       DASH_SOLID);
		}
		for (j = 0; nn <= NLINE_MARKS && j < nn; j++) {
			chart_number(ns[j], num, sizeof(num));
			legend(r, 0, str(r, "n = %s", num), GREY, LINE_MARKS[j], DASH_SOLID);
		}
		if (nn > NLINE_MARKS)
			note_add(r, 0, str(r, "%zu values of n and %zu of p: colour by p; n grows "
					      "along each p's solid arrows", nn, np));
		return;
	}
	for (j = 0; j < nn; j++) {	/* many n, few p */
		struct rgb c = nn <= LEGEND_P_MAX ? chart_palette(j)
			       : chart_ramp(log(ns[j] / ns[0]) / log(ns[nn - 1] / ns[0]));

		for (i = 0; i < np; i++)
			runs_layer(r, p, i, ns[j], c, LINE_MARKS[i]);
		line_legend(r, 0, NULL, 1, ns[j], j, nn, (struct line_look){c, MARK_CIRCLE, DASH_SOLID});
	}
	for (i = 0; i < np; i++)
		legend(r, 0, str(r, "p = %lld", (long long)ps[i]), GREY, LINE_MARKS[i], DASH_SOLID);
}

/* The dash of a series' arrows at fixed n when several are overlaid: not
 * solid, which the arrows at fixed p are. */
static enum chart_dash iso_dash(size_t si)
{
	return LINE_DASHES[1 + si % 3];
}

/* One series of several: its colour, a shape per n (at most six n; more
 * are circles) and its dash on the arrows at fixed n; a legend entry per
 * (series, n), "SP2:md n = 39 200". */
static void iso_runs_of_many(struct report *r, const struct pooled *p, size_t si, size_t ns,
			     const char *name, size_t *line, size_t lines)
{
	struct line_look look = line_look(si, ns, 0, 1);
	size_t i, k, j, nn = count_lines(p->obs, p->nobs), row;

	look.d = iso_dash(si);
	for (row = 0, k = 0; k < p->nobs; k = j, row++, (*line)++) {
		look.m = nn <= NLINE_MARKS ? LINE_MARKS[row] : MARK_CIRCLE;
		for (j = k + 1; j < p->nobs && p->obs[j].n == p->obs[k].n; j++)
			;
		for (i = 0; i < p->np; i++)
			runs_layer(r, p, i, p->obs[k].n, look.c, look.m);
		line_legend(r, 0, name, ns, p->obs[k].n, *line, lines, look);
	}
}

/* The guides of one series: the arrows between its runs, its C1/C3
 * boundary and its SPS crossings (open stars), all drawn before any run. */
static void iso_guides(struct report *r, const struct pooled *p, size_t si, size_t ns, bool stars)
{
	bool arrows = p->nobs <= ARROWS_MAX_POINTS;
	struct line_look sl = line_look(si, ns, 0, 1);
	struct chart_layer *l;
	const int64_t *ps = p->ps;
	size_t np = p->np, i, j;
	double *bx, *by;

	if (arrows) {	/* at fixed p as n grows, at fixed n as p grows */
		for (i = 0; i < np; i++) {
			l = layer(r, 0, LAYER_ARROWS);
			l->n = pick(r, p, true, ps[i], 0, true, (double **)&l->x, (double **)&l->y);
			l->color = ns > 1 ? sl.c : GREY;
			l->alpha = 0.8;
			l->size = 0.9;
		}
		for (i = 0; i < p->nobs; i = j) {
			for (j = i + 1; j < p->nobs && p->obs[j].n == p->obs[i].n; j++)
				;
			l = layer(r, 0, LAYER_ARROWS);
			l->n = pick(r, p, false, 0, p->obs[i].n, true, (double **)&l->x,
				    (double **)&l->y);
			l->color = ns > 1 ? sl.c : GREY;
			l->alpha = ns > 1 ? 0.75 : 0.45;	/* several: the dash tells the series */
			l->size = ns > 1 ? 1.0 : 0.7;
			l->dash = ns > 1 ? iso_dash(si) : DASH_DASHED;
		}
	}
	/* the C1/C3 boundary, through the boundary points in n order */
	bx = doubles(r, p->nboundary);
	by = doubles(r, p->nboundary);
	for (i = 0; i < p->nboundary; i++) {
		bx[i] = p->obs[p->boundary[i]].tau;
		by[i] = p->obs[p->boundary[i]].chi;
	}
	if (p->nboundary > 1) {	/* a guide, not data: thin, dash-dot, under the runs */
		l = layer(r, 0, LAYER_LINE);
		l->x = bx;
		l->y = by;
		l->n = p->nboundary;
		l->color = BOUNDARY;
		l->size = 1.0;
		l->dash = DASH_DASHDOT;
	}
	/* SPS crossings: open stars under the runs, so no run is hidden */
	if (p->ncross && arrows && stars) {
		l = layer(r, 0, LAYER_MARKERS);
		l->x = p->cross_tau;
		l->y = p->cross_chi;
		l->n = p->ncross;
		l->color = BLACK;
		l->marker = MARK_STAR_OPEN;
		l->size = 5;
	}
}

static void build_isoefficiency(struct report *r, struct report_series *s, size_t ns,
				const struct report_opts *o)
{
	struct pooled *p = keep(r, xcalloc(ns, sizeof(*p)));
	struct chart_panel *pan = &r->panels[0];
	double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0, total = 0;
	size_t i, k, lines = 0, line = 0, crossings = 0;
	bool boundary = false;

	for (i = 0; i < ns; i++) {
		pool(r, &s[i], &o->iso, o->tol_auto, &p[i]);
		for (k = 0; k < p[i].nobs; k++) {
			xlo = fmin(xlo, p[i].obs[k].tau);
			xhi = fmax(xhi, p[i].obs[k].tau);
			if (p[i].obs[k].chi > 0) {
				ylo = fmin(ylo, p[i].obs[k].chi);
				yhi = fmax(yhi, p[i].obs[k].chi);
			}
		}
		total += (double)p[i].nobs;
	}
	pan->x = axis("τ, parallel time (s)", true, NAN, NAN);
	pan->y = axis("χ, overhead time (s)", true, NAN, NAN);
	if (total == 0) {
		pan->placeholder = "no runs to plot";
		return;
	}
	if (!isfinite(ylo)) {	/* every chi is 0: nothing on a log axis */
		ylo = xlo * 0.01;
		yhi = xhi;
	}
	/* both axes fitted to the data, padded a little in log space; the
	 * isoefficiency lines cross whatever part of the plane that is */
	{
		double px = fmax(0.04, 0.06 * log10(xhi / xlo)), py = fmax(0.04, 0.06 * log10(yhi / ylo));

		pan->x.min = xlo / pow(10, px);
		pan->x.max = xhi * pow(10, px);
		pan->y.min = ylo / pow(10, py);
		pan->y.max = yhi * pow(10, py);
	}
	apply_view(r, o);	/* the bands below cover the view */
	if (o->has_base)
		base_regions(r, o, &p[0], pan->x.min, pan->x.max, pan->y.min);
	iso_lines(r, o, ns ? &p[0] : NULL);
	for (i = 0; i < ns; i++)
		lines += count_lines(p[i].obs, p[i].nobs);
	for (i = 0; i < ns; i++)
		crossings += p[i].ncross;
	for (i = 0; i < ns; i++) {
		iso_guides(r, &p[i], i, ns, crossings <= STARS_MAX);
		boundary |= p[i].nboundary > 1;
	}
	for (i = 0; i < ns; i++) {	/* the runs, over every guide */
		if (ns > 1)
			iso_runs_of_many(r, &p[i], i, ns, s[i].name, &line, lines);
		else
			iso_runs_one_series(r, &p[i], p[i].ps, p[i].np);
	}
	if (o->has_base)
		base_verdicts(r, o, &p[0]);
	if (total <= ARROWS_MAX_POINTS && crossings && crossings <= STARS_MAX)
		legend(r, 0, "SPS crossing", BLACK, MARK_STAR_OPEN, DASH_SOLID);
	if (boundary)	/* only where a C3 step follows */
		legend(r, 0, "C1/C3 boundary", BOUNDARY, MARK_COUNT, DASH_DASHDOT);
	/* every isoefficiency line listed, labelled on the plot where room */
	legend(r, 0, "ε = 0.1, 0.2, … 0.9", GREY, MARK_COUNT, DASH_DASHED);
	legend(r, 0, "ε = 0: χ = τ", BLACK, MARK_COUNT, DASH_SOLID);
	if (total > ARROWS_MAX_POINTS)
		note_add(r, 0, str(r, "%.0f points: the arrows between runs and the SPS crossings are "
				   "drawn up to %d points", total, ARROWS_MAX_POINTS));
	else if (crossings > STARS_MAX)
		note_add(r, 0, str(r, "%zu SPS crossings: drawn up to %d (GET /api/v1/analysis/"
				   "isoefficiency lists them)", crossings, STARS_MAX));
}

/* ---- p-eps and p-tau (Orii Fig. 4) --------------------------------------------------- */

/* With few measured p (at most 8, over all series), label the p axis at
 * exactly those: 10, 16, 24, 36 rather than 10, 20, 50. */
static void measured_p_ticks(struct report *r, const struct pooled *p, size_t ns,
			     struct chart_axis *ax)
{
	double *at = doubles(r, 9);
	size_t n = 0, i, k, j;

	for (i = 0; i < ns; i++)
		for (k = 0; k < p[i].nobs; k++) {
			for (j = 0; j < n && at[j] != (double)p[i].obs[k].p; j++)
				;
			if (j < n)
				continue;
			if (n == 8)
				return;	/* many: nice values read better */
			at[n++] = (double)p[i].obs[k].p;
		}
	ax->at = at;
	ax->nat = n;
}

static void build_efficiency(struct report *r, struct report_series *s, size_t ns,
			     const struct report_opts *o)
{
	struct pooled *p = keep(r, xcalloc(ns, sizeof(*p)));
	size_t i, k, j, q, row, lines = 0, line = 0;
	double total = 0;

	r->spec.npanels = 2;
	r->panels[0].title = "efficiency ε versus p";
	r->panels[0].legend_inside = true;	/* eps falls with p: the corner is free */
	r->panels[0].x = axis("p, processors", true, NAN, NAN);
	r->panels[0].y = axis("ε = 1 − χ/τ", false, 0, 1);
	r->panels[1].title = "parallel time τ versus p";
	r->panels[1].x = axis("p, processors", true, NAN, NAN);
	r->panels[1].y = axis("τ (s)", true, NAN, NAN);
	for (i = 0; i < ns; i++) {
		pool(r, &s[i], &o->iso, o->tol_auto, &p[i]);
		total += (double)p[i].nobs;
		lines += count_lines(p[i].obs, p[i].nobs);
	}
	/* the C1/C3 boundaries first: guides under the data, never over a run */
	for (i = 0; i < ns; i++) {
		/* p where tau stops falling, at each n with a C3 step */
		for (q = 0; q < 2 && p[i].nboundary > 1; q++) {
			struct chart_layer *l = layer(r, q, LAYER_LINE);
			double *x = doubles(r, p[i].nboundary), *y = doubles(r, p[i].nboundary);

			for (k = 0; k < p[i].nboundary; k++) {
				x[k] = (double)p[i].obs[p[i].boundary[k]].p;
				y[k] = q == 0 ? p[i].obs[p[i].boundary[k]].eps :
						p[i].obs[p[i].boundary[k]].tau;
			}
			l->x = x;
			l->y = y;
			l->n = p[i].nboundary;
			l->color = BOUNDARY;
			l->size = 1.0;
			l->dash = DASH_DASHDOT;
		}
	}
	for (i = 0; i < ns; i++) {
		size_t nrows = count_lines(p[i].obs, p[i].nobs);

		/* one line per (series, n), each named: shape and dash apart */
		for (row = 0, k = 0; k < p[i].nobs; k = j, row++, line++) {
			struct line_look look = line_look(i, ns, row, nrows);

			for (j = k + 1; j < p[i].nobs && p[i].obs[j].n == p[i].obs[k].n; j++)
				;
			for (q = 0; q < 2; q++) {
				struct chart_layer *l = layer(r, q, LAYER_LINE);
				double *x = doubles(r, j - k), *y = doubles(r, j - k);
				size_t m;

				for (m = k; m < j; m++) {
					x[m - k] = (double)p[i].obs[m].p;
					y[m - k] = q == 0 ? p[i].obs[m].eps : p[i].obs[m].tau;
				}
				l->x = x;
				l->y = y;
				l->n = j - k;
				l->color = look.c;
				l->size = 1.2;
				l->dash = look.d;
				l = layer(r, q, LAYER_MARKERS);
				l->x = x;
				l->y = y;
				l->n = j - k;
				l->color = look.c;
				l->marker = look.m;
				l->size = 3;
			}
			line_legend(r, 0, s[i].name, ns, p[i].obs[k].n, line, lines, look);
		}
	}
	for (i = 0; i < ns && p[i].nboundary <= 1; i++)
		;
	if (i < ns)	/* listed only when drawn */
		legend(r, 0, "C1/C3 boundary", BOUNDARY, MARK_COUNT, DASH_DASHDOT);
	measured_p_ticks(r, p, ns, &r->panels[0].x);
	r->panels[1].x = r->panels[0].x;
	if (total == 0)
		r->panels[0].placeholder = r->panels[1].placeholder = "no runs to plot";
}

/* ---- energy (Kimura Figs. 3, 4) ------------------------------------------------------- */

#define CURVE_POINTS 64

static double *p_grid(struct report *r, double max_p)
{
	double *x = doubles(r, CURVE_POINTS);
	size_t i;

	for (i = 0; i < CURVE_POINTS; i++)
		x[i] = pow(max_p, (double)i / (CURVE_POINTS - 1));
	return x;
}

static void build_energy(struct report *r, struct report_series *s, size_t ns,
			 const struct report_opts *o)
{
	struct chart_panel *pan = &r->panels[0];
	double max_p = o->max_p >= 2 ? o->max_p : 4096;
	size_t i, k, any = 0;

	pan->x = axis("p, nodes", true, 0.8, NAN);
	pan->y = axis("ΔE, energy saved (fraction of the standard run)", false, NAN,
				     NAN);
	for (i = 0; i < ns; i++) {
		struct chart_layer *l;
		double *x = p_grid(r, max_p), *y = doubles(r, CURVE_POINTS);

		if (!s[i].nregions)
			continue;
		any++;
		for (k = 0; k < CURVE_POINTS; k++)
			if (ka_delta_e(s[i].regions, s[i].nregions, s[i].f_std, x[k], &y[k], NULL))
				y[k] = NAN;
		l = layer(r, 0, LAYER_LINE);
		l->x = x;
		l->y = y;
		l->n = CURVE_POINTS;
		l->color = chart_palette(i);
		l->size = 2;
		legend(r, 0, ns > 1 ? str(r, "%s predicted", s[i].name) : "predicted (eq. 4)",
		       chart_palette(i), MARK_COUNT, DASH_SOLID);
		if (s[i].nmeasured) {
			l = layer(r, 0, LAYER_MARKERS);
			l->x = s[i].measured_p;
			l->y = s[i].measured_de;
			l->n = s[i].nmeasured;
			l->color = chart_palette(i);
			l->marker = MARK_DIAMOND;
			l->size = 4.5;
			legend(r, 0, ns > 1 ? str(r, "%s measured", s[i].name) : "measured (eq. 1)",
			       chart_palette(i), MARK_DIAMOND, DASH_SOLID);
		}
	}
	if (!any)
		pan->placeholder = "no energy model to plot";
}

static void build_shares(struct report *r, struct report_series *s, size_t ns,
			 const struct report_opts *o)
{
	double max_p = o->max_p >= 2 ? o->max_p : 4096;
	size_t i, k, q, panels = ns < PANELS_MAX ? ns : PANELS_MAX;

	r->spec.npanels = panels ? panels : 1;
	for (i = 0; i < panels; i++) {
		struct chart_panel *pan = &r->panels[i];
		double *x = p_grid(r, max_p), *below = doubles(r, CURVE_POINTS);
		double *sh = doubles(r, s[i].nregions ? s[i].nregions : 1);

		pan->title = ns > 1 ? s[i].name : NULL;
		pan->x = axis("p, nodes", true, 1, NAN);
		pan->y = axis("energy, fraction of the standard run", false, 0, 1.05);
		if (!s[i].nregions) {
			pan->placeholder = "no energy model to plot";
			continue;
		}
		/* stacked: each region's band sits on the ones before it */
		for (q = 0; q < s[i].nregions; q++) {
			struct chart_layer *l = layer(r, i, LAYER_AREA);
			double *top = doubles(r, CURVE_POINTS), *bot = doubles(r, CURVE_POINTS), de;

			for (k = 0; k < CURVE_POINTS; k++) {
				ka_delta_e(s[i].regions, s[i].nregions, s[i].f_std, x[k], &de, sh);
				bot[k] = below[k];
				top[k] = below[k] + sh[q];
				below[k] = top[k];
			}
			l->x = x;
			l->y = top;
			l->y0 = bot;
			l->n = CURVE_POINTS;
			l->color = chart_palette(q);
			l->alpha = 0.75;
			legend(r, i, s[i].region_names[q], chart_palette(q), MARK_SQUARE, DASH_SOLID);
		}
		{
			struct chart_layer *l = layer(r, i, LAYER_LINE);

			l->x = x;
			l->y = below;	/* the top of the stack: 1 - Delta E */
			l->n = CURVE_POINTS;
			l->color = BLACK;
			l->size = 1.5;
			legend(r, i, "total: 1 − ΔE", BLACK, MARK_COUNT, DASH_SOLID);
		}
	}
	if (!panels)
		r->panels[0].placeholder = "no energy model to plot";
}

static struct report *report_new(const struct report_opts *o, const char *title, size_t panels)
{
	struct report *r = xcalloc(1, sizeof(*r));

	r->spec.width = o->width;
	r->spec.height = o->height;
	r->spec.scale = o->scale;
	r->spec.npanels = panels;
	snprintf(r->title, sizeof(r->title), "%s", title);
	r->spec.title = r->title;
	return r;
}

static void report_seal(struct report *r)
{
	size_t i;

	for (i = 0; i < r->spec.npanels; i++) {
		r->panels[i].layers = r->layers[i];
		r->panels[i].nlayers = r->nlayers[i];
		r->panels[i].legend = r->legend[i];
		r->panels[i].nlegend = r->nlegend[i];
		if (r->factored[i]) {
			r->panels[i].legend_short = r->brief[i];
			r->panels[i].nlegend_short = r->nbrief[i];
		}
	}
	r->spec.panels = r->panels;
}

struct report *report_build(enum report_kind kind, struct report_series *s, size_t ns,
			    const struct report_opts *o)
{
	static const char *const titles[REPORT_KINDS] = {
		"τ–χ isoefficiency", "efficiency and parallel time", "energy saved versus nodes",
		"energy shares of the regions"};
	struct report *r = report_new(o, titles[kind], 1);

	if (ns == 1)
		snprintf(r->title, sizeof(r->title), "%s: %s", titles[kind], s[0].name);
	else
		snprintf(r->title, sizeof(r->title), "%s: %zu series", titles[kind], ns);
	switch (kind) {
	case REPORT_ISOEFFICIENCY:
		build_isoefficiency(r, s, ns, o);
		break;
	case REPORT_EFFICIENCY:
		build_efficiency(r, s, ns, o);
		break;
	case REPORT_ENERGY:
		build_energy(r, s, ns, o);
		break;
	default:
		build_shares(r, s, ns, o);
		break;
	}
	apply_view(r, o);
	report_seal(r);
	return r;
}

static void curve(struct report *r, size_t panel, const double *x, const double *y, size_t n,
		  struct rgb c, enum chart_dash dash, const char *label, bool markers)
{
	struct chart_layer *l = layer(r, panel, LAYER_LINE);

	l->x = x;
	l->y = y;
	l->n = n;
	l->color = c;
	l->size = 1.8;
	l->dash = dash;
	if (markers) {
		l = layer(r, panel, LAYER_MARKERS);
		l->x = x;
		l->y = y;
		l->n = n;
		l->color = c;
		l->size = 3.5;
	}
	if (label)
		legend(r, panel, label, c, markers ? MARK_CIRCLE : MARK_COUNT, dash);
}

/* "label, R² 0.93", or the label alone when the fit quality is undefined. */
static const char *with_r2(struct report *r, const char *label, double r2)
{
	return isfinite(r2) ? str(r, "%s, R² %.3f", label, r2) : label;
}

#define MODULE_BUDGETS_DRAWN 6

struct report *report_build_powercap(const struct report_powercap *in, const struct report_opts *o)
{
	struct report *r = report_new(o, "power-capped runtime", in->r_module ? 3 : 2);
	double lo = INFINITY, hi = 0, *x = doubles(r, CURVE_POINTS), *y2 = doubles(r, CURVE_POINTS);
	double *y3 = doubles(r, CURVE_POINTS), *yb = doubles(r, CURVE_POINTS);
	struct chart_layer *l;
	size_t i, j, shown;

	for (i = 0; i < in->n; i++) {
		lo = fmin(lo, in->f[i]);
		hi = fmax(hi, in->f[i]);
	}
	for (i = 0; i < CURVE_POINTS; i++) {
		x[i] = lo + (hi - lo) * (double)i / (CURVE_POINTS - 1);
		y2[i] = ka_inverse_eval(&in->two, x[i]);
		y3[i] = in->three ? ka_three_point_eval(in->three, x[i]) : NAN;
		yb[i] = in->best ? ka_three_point_eval(in->best, x[i]) : NAN;
	}
	r->panels[0].title = "r(f) = T(f) / T(f_max)";
	r->panels[0].legend_inside = true;	/* r falls with f: the top right is free */
	r->panels[0].x = axis("f, frequency (MHz)", false, NAN, NAN);
	r->panels[0].y = axis("r", false, NAN, NAN);
	r->panels[0].note = str(r, "cycle ratio %.3f (Fig. 3)", in->cycle_ratio);
	curve(r, 0, x, y2, CURVE_POINTS, chart_palette(0), DASH_SOLID,
	      with_r2(r, "2-point", in->r2_two), false);
	if (in->three)
		curve(r, 0, x, y3, CURVE_POINTS, chart_palette(1), DASH_DASHED,
		      with_r2(r, isnan(in->three->f3) ? "3-point, parallel" :
			      str(r, "3-point, f3 %.0f MHz", in->three->f3), in->r2_three),
		      false);
	if (in->best)
		curve(r, 0, x, yb, CURVE_POINTS, chart_palette(3), DASH_DOTTED,
		      with_r2(r, str(r, "best f3 %.0f MHz", in->best->f3), in->r2_best), false);
	l = layer(r, 0, LAYER_MARKERS);
	l->x = in->f;
	l->y = in->r;
	l->n = in->n;
	l->color = (struct rgb){0, 0, 0};
	l->marker = MARK_DIAMOND;
	l->size = 4;
	legend(r, 0, "measured", l->color, MARK_DIAMOND, DASH_SOLID);

	r->panels[1].title = "time under the cap";
	r->panels[1].x = axis("power budget (W)", false, NAN, NAN);
	r->panels[1].y = axis("T (s)", false, NAN, NAN);
	r->panels[1].legend_inside = true;
	curve(r, 1, in->budget, in->t_uniform2, in->nbudgets, chart_palette(0), DASH_SOLID,
	      "uniform, 2-point", true);
	curve(r, 1, in->budget, in->t_aware2, in->nbudgets, chart_palette(2), DASH_SOLID,
	      "variation-aware, 2-point", true);
	if (in->t_uniform3) {
		curve(r, 1, in->budget, in->t_uniform3, in->nbudgets, chart_palette(0), DASH_DASHED,
		      "uniform, 3-point", false);
		curve(r, 1, in->budget, in->t_aware3, in->nbudgets, chart_palette(2), DASH_DASHED,
		      "variation-aware, 3-point", false);
	}
	if (!in->r_module) {
		report_seal(r);
		return r;
	}
	/* each module's r under the uniform cap: the slowest sets T (eq. 1) */
	r->panels[2].title = "r of each module";
	r->panels[2].note = "uniform cap";
	r->panels[2].x = axis("module", false, NAN, NAN);
	r->panels[2].y = axis("r (2-point model)", false, NAN, NAN);
	x = doubles(r, in->nmodules);
	for (i = 0; i < in->nmodules; i++)
		x[i] = (double)(i + 1);
	if (in->nmodules <= 12) {	/* each module labelled */
		r->panels[2].x.at = x;
		r->panels[2].x.nat = in->nmodules;
	}
	shown = in->nbudgets < MODULE_BUDGETS_DRAWN ? in->nbudgets : MODULE_BUDGETS_DRAWN;
	for (j = 0; j < shown; j++) {
		/* the lowest and highest budget and evenly between */
		size_t b = shown > 1 ? j * (in->nbudgets - 1) / (shown - 1) : 0;
		char num[32];

		/* modules are not a continuum: markers, no lines between them */
		l = layer(r, 2, LAYER_MARKERS);
		l->x = x;
		l->y = in->r_module + b * in->nmodules;
		l->n = in->nmodules;
		l->color = chart_ramp((double)j / (double)(shown > 1 ? shown - 1 : 1));
		l->marker = MARK_CIRCLE;
		l->size = in->nmodules <= 64 ? 3.5 : 2;
		chart_number(in->budget[b], num, sizeof(num));
		legend(r, 2, str(r, "%s W", num), l->color, MARK_CIRCLE, DASH_SOLID);
	}
	if (in->nbudgets > shown)
		r->panels[2].note = str(r, "uniform cap; %zu of %zu budgets", shown, in->nbudgets);
	report_seal(r);
	return r;
}

static void trace_curve(struct report *r, const struct ka_sample *s, size_t n, struct rgb c,
			enum chart_dash d, const char *label)
{
	double *x = doubles(r, n), *y = doubles(r, n);
	size_t i;

	for (i = 0; i < n; i++) {
		x[i] = s[i].t;
		y[i] = s[i].p;
	}
	curve(r, 0, x, y, n, c, d, label, false);
}

#define TRACE_BARS_MAX 200	/* more segments: a marker each */

/* Segment i's duration ratio as a bar over [i + 0.6, i + 1.4], or markers. */
static void segment_ratios(struct report *r, const struct report_trace *in)
{
	struct chart_panel *pan = &r->panels[1];
	bool bars = in->k <= TRACE_BARS_MAX;
	size_t per = bars ? 4 : 1, i, at = 0;
	double *x = doubles(r, in->k * per), *y = doubles(r, in->k * per), *one = doubles(r, 2);
	double *ox = doubles(r, 2);
	struct chart_layer *l;
	char note[256];

	pan->title = "segment duration, reference / instrumented";
	pan->x = axis("segment", false, 0.4, (double)in->k + 0.6);
	pan->y = axis("ratio", false, 0, NAN);
	if (in->k <= 12) {	/* each segment labelled by its number */
		double *ticks = doubles(r, in->k);

		for (i = 0; i < in->k; i++)
			ticks[i] = (double)i + 1;
		pan->x.at = ticks;
		pan->x.nat = in->k;
	}
	for (i = 0; i < in->k; i++) {
		const struct ka_segment *sg = &in->seg[i];
		double ratio = ka_segment_ratio(sg), c = (double)i + 1;

		if (bars) {
			x[at] = x[at + 1] = c - 0.4;
			x[at + 2] = x[at + 3] = c + 0.4;
			y[at] = y[at + 3] = 0;
			y[at + 1] = y[at + 2] = ratio;
		} else {
			x[at] = c;
			y[at] = ratio;
		}
		at += per;
	}
	l = layer(r, 1, bars ? LAYER_AREA : LAYER_MARKERS);
	l->x = x;
	l->y = y;
	l->n = at;
	l->color = chart_palette(0);
	l->size = 3;
	ox[0] = 0.4;
	ox[1] = (double)in->k + 0.6;
	one[0] = one[1] = 1;
	curve(r, 1, ox, one, 2, (struct rgb){0.4, 0.4, 0.4}, DASH_DOTTED, "1: as long in both", false);
	pan->legend_inside = true;
	for (i = 0; in->names && i < in->k && !in->names[i]; i++)
		;
	if (!in->names || i == in->k)
		return;	/* no segment has a name */
	/* which segment is which, as far as the small print holds */
	for (i = 0, at = 0; i < in->k && at < sizeof(note) - 1; i++)
		at += (size_t)snprintf(note + at, sizeof(note) - at, "%s%zu %s", i ? " · " : "", i + 1,
				       in->names[i] ? in->names[i] : "(unnamed)");
	if (at >= sizeof(note) - 1) {
		/* cut on a character's first byte, then the ellipsis (3 bytes) */
		at = sizeof(note) - 4;
		while (at && (note[at] & 0xC0) == 0x80)
			at--;
		memcpy(note + at, "…", 4);
	}
	pan->note = str(r, "%s", note);
}

struct report *report_build_trace(const struct report_trace *in, const struct report_opts *o)
{
	struct report *r = report_new(o, "power trace correction", in->k ? 2 : 1);

	r->panels[0].title = "power versus time";
	r->panels[0].x = axis("t (s)", false, NAN, NAN);
	r->panels[0].y = axis("power (W)", false, NAN, NAN);
	trace_curve(r, in->inst, in->n, (struct rgb){0.6, 0.6, 0.6}, DASH_SOLID,
		    "instrumented (as measured)");
	trace_curve(r, in->ref, in->m, chart_palette(0), DASH_SOLID, "reference (light run)");
	trace_curve(r, in->corrected, in->n, chart_palette(1), DASH_DASHED, "corrected");
	if (in->k)
		segment_ratios(r, in);
	report_seal(r);
	return r;
}

/* ---- scaling models ------------------------------------------------------------- */

/* Solid up to xm, dashed beyond (sharing the point where they meet). */
static void measured_then_beyond(struct report *r, const double *x, const double *y, size_t n,
				 double xm, struct rgb c)
{
	size_t k, from;

	for (k = 0; k < n && x[k] <= xm * (1 + 1e-12); k++)
		;
	from = k ? k - 1 : 0;
	if (k > 1)
		curve(r, 0, x, y, k, c, DASH_SOLID, NULL, false);
	if (n > from + 1)
		curve(r, 0, x + from, y + from, n - from, c, DASH_DASHED, NULL, false);
}

struct report *report_build_model(const struct report_model *s, size_t ns, const char *title,
				  const char *xtitle, const char *ytitle, const char *note,
				  const struct report_opts *o)
{
	static const enum chart_marker shapes[] = {MARK_CIRCLE, MARK_SQUARE, MARK_TRIANGLE,
						   MARK_DIAMOND};
	struct report *r = report_new(o, "scaling model", 1);
	size_t i, k;
	bool any = false;

	if (title)
		snprintf(r->title, sizeof(r->title), "%s", title);
	else if (ns == 1)
		snprintf(r->title, sizeof(r->title), "scaling model: %s", s[0].name);
	else
		snprintf(r->title, sizeof(r->title), "scaling models: %zu series", ns);
	r->panels[0].x = axis(xtitle, true, NAN, NAN);
	r->panels[0].y = axis(ytitle, true, NAN, NAN);
	r->panels[0].note = note;
	for (i = 0; i < ns; i++) {
		struct rgb c = chart_palette(i);
		struct chart_layer *l;
		double *wx = doubles(r, 3 * s[i].m), *wy = doubles(r, 3 * s[i].m);

		size_t soft_from = r->nlayers[0];

		any = any || s[i].m > 0;
		/* the band first, under everything */
		l = layer(r, 0, LAYER_AREA);
		l->x = s[i].cx;
		l->y = s[i].chigh;
		l->y0 = s[i].clow;
		l->n = s[i].nc;
		l->color = c;
		l->alpha = 0.15;
		measured_then_beyond(r, s[i].cx, s[i].cy, s[i].nc, s[i].x_measured, c);
		for (k = soft_from; k < r->nlayers[0]; k++)
			r->layers[0][k].soft = true;	/* the model: near the data */
		if (!s[i].function) {	/* measured alone: the medians joined */
			l = layer(r, 0, LAYER_LINE);
			l->x = s[i].x;
			l->y = s[i].median;
			l->n = s[i].m;
			l->color = c;
			l->size = 1.5;
			l->dash = i % 2 ? DASH_DASHED : DASH_SOLID;
		}
		/* the spread of each point: a whisker from min to max */
		for (k = 0; k < s[i].m; k++) {
			wx[3 * k] = wx[3 * k + 1] = s[i].x[k];
			wy[3 * k] = s[i].lo[k];
			wy[3 * k + 1] = s[i].hi[k];
			wx[3 * k + 2] = wy[3 * k + 2] = NAN;
		}
		l = layer(r, 0, LAYER_LINE);
		l->x = wx;
		l->y = wy;
		l->n = 3 * s[i].m;
		l->color = c;
		l->size = 1.2;
		l = layer(r, 0, LAYER_MARKERS);
		l->x = s[i].x;
		l->y = s[i].median;
		l->n = s[i].m;
		l->color = c;
		l->marker = shapes[i % 4];
		l->size = 3.5;
		if (!s[i].function)
			legend(r, 0, str(r, "%s", s[i].name), c, shapes[i % 4], DASH_SOLID);
		else
			legend(r, 0, ns == 1 ? str(r, "%s", s[i].function) :
			       str(r, "%s: %s", s[i].name, s[i].function), c, shapes[i % 4],
			       DASH_SOLID);
	}
	if (!any)
		r->panels[0].placeholder = "no runs to model";
	apply_view(r, o);
	report_seal(r);
	return r;
}

struct report *report_build_regions(const struct report_regions *in, const struct report_opts *o)
{
	static const enum chart_marker shapes[] = {MARK_CIRCLE, MARK_SQUARE, MARK_TRIANGLE,
						   MARK_DIAMOND};
	struct report *r = report_new(o, "call paths", 2);
	size_t i, k;

	snprintf(r->title, sizeof(r->title), "%s", in->title);
	r->panels[0].x = axis(in->xtitle, true, NAN, NAN);
	r->panels[0].y = axis(in->ytitle, true, NAN, NAN);
	r->panels[0].note = in->note;
	r->panels[1].x = axis(in->xtitle, true, NAN, NAN);
	r->panels[1].y = axis(in->stitle, false, 0, NAN);
	r->panels[1].title = in->sheading;
	r->panels[1].note = in->snote;
	for (i = 0; i < in->n; i++) {
		const struct report_region_line *ln = &in->lines[i];
		struct rgb c = chart_palette(i);
		enum chart_marker mk = shapes[i % 4];
		struct chart_layer *l;
		double *sx = doubles(r, 2), *sy = doubles(r, 2);
		size_t from = r->nlayers[0];

		if (ln->nc)
			measured_then_beyond(r, ln->cx, ln->cy, ln->nc, in->x_measured, c);
		for (k = from; k < r->nlayers[0]; k++)
			r->layers[0][k].soft = true;
		l = layer(r, 0, LAYER_MARKERS);
		l->x = ln->x;
		l->y = ln->y;
		l->n = ln->m;
		l->color = c;
		l->marker = mk;
		l->size = 3.5;
		legend(r, 0, str(r, "%s", ln->name), c, mk, DASH_SOLID);
		sx[0] = in->x_measured, sx[1] = in->at;
		sy[0] = 100 * ln->share_measured, sy[1] = 100 * ln->share_at;
		curve(r, 1, sx, sy, isnan(sy[1]) ? 1 : 2, c, DASH_DASHED, NULL, true);
		r->layers[1][r->nlayers[1] - 1].marker = mk;
		legend(r, 1, str(r, "%s: %.3g %% → %s", ln->path, sy[0], isnan(sy[1]) ? "—" :
				 str(r, "%.3g %%", sy[1])), c, mk, DASH_DASHED);
	}
	if (!in->n)
		r->panels[0].placeholder = r->panels[1].placeholder = "no call paths to draw";
	apply_view(r, o);
	report_seal(r);
	return r;
}

struct report *report_build_scaling(const struct report_scaling *s, size_t ns, bool efficiency,
				    const struct report_opts *o)
{
	struct report *r = report_new(o, "strong scaling", 2);
	size_t i, k, j, m, line = 0, total = 0, lines = 0, row;
	double pmin = INFINITY, pmax = 0;

	if (ns == 1)
		snprintf(r->title, sizeof(r->title), "strong scaling: %s", s[0].name);
	else
		snprintf(r->title, sizeof(r->title), "strong scaling: %zu series", ns);
	r->panels[0].title = "parallel time τ versus p";
	r->panels[0].x = axis("p, processors", true, NAN, NAN);
	r->panels[0].y = axis("τ (s), median of the runs", true, NAN, NAN);
	r->panels[1].title = efficiency ? "efficiency relative to the smallest p" :
					  "speedup relative to the smallest p";
	r->panels[1].x = r->panels[0].x;
	r->panels[1].y = efficiency ? axis("p₀·τ(p₀) / (p·τ(p))", false, 0, NAN) :
				      axis("τ(p₀) / τ(p)", true, NAN, NAN);
	r->panels[1].legend_inside = true;
	for (i = 0; i < ns; i++)
		lines += count_lines(s[i].obs, s[i].nobs);
	for (i = 0; i < ns; i++) {
		size_t nrows = count_lines(s[i].obs, s[i].nobs);

		total += s[i].nobs;
		for (row = 0, k = 0; k < s[i].nobs; k = j, line++, row++) {
			struct line_look look = line_look(i, ns, row, nrows);
			double *x, *y[2];
			size_t q;

			for (j = k + 1; j < s[i].nobs && s[i].obs[j].n == s[i].obs[k].n; j++)
				;
			x = doubles(r, j - k);
			y[0] = doubles(r, j - k);
			y[1] = doubles(r, j - k);
			for (m = k; m < j; m++) {
				x[m - k] = (double)s[i].obs[m].p;
				y[0][m - k] = s[i].obs[m].tau;
				y[1][m - k] = efficiency ? s[i].efficiency[m] : s[i].speedup[m];
				pmin = fmin(pmin, x[m - k]);
				pmax = fmax(pmax, x[m - k]);
			}
			for (q = 0; q < 2; q++) {
				struct chart_layer *l = layer(r, q, LAYER_LINE);

				l->x = x;
				l->y = y[q];
				l->n = j - k;
				l->color = look.c;
				l->size = 1.4;
				l->dash = look.d;
				l = layer(r, q, LAYER_MARKERS);
				l->x = x;
				l->y = y[q];
				l->n = j - k;
				l->color = look.c;
				l->marker = look.m;
				l->size = 3.5;
			}
			line_legend(r, 0, s[i].name, ns, s[i].obs[k].n, line, lines, look);
		}
	}
	if (total) {	/* the ideal: p / p0 from the smallest p measured, or 1 */
		double *x = doubles(r, 2), *y = doubles(r, 2);
		struct chart_layer *l = layer(r, 1, LAYER_LINE);

		x[0] = pmin;
		x[1] = pmax;
		y[0] = 1;
		y[1] = efficiency ? 1 : pmax / pmin;
		l->x = x;
		l->y = y;
		l->n = 2;
		l->color = GREY;
		l->size = 1.2;
		l->dash = DASH_DOTTED;
		legend(r, 1, efficiency ? "ideal: 1" : "ideal: p / p₀", GREY,
		       MARK_COUNT, DASH_DOTTED);
	} else {
		r->panels[0].placeholder = r->panels[1].placeholder = "no runs to plot";
	}
	apply_view(r, o);
	report_seal(r);
	return r;
}

struct report *report_build_isofunction(const struct report_isofunction *in,
					const struct report_opts *o)
{
	struct report *r = report_new(o, "isoefficiency function", 1);
	size_t l, total = 0;

	snprintf(r->title, sizeof(r->title), "isoefficiency function: %s", in->name);
	r->panels[0].x = axis("p, processors", true, NAN, NAN);
	r->panels[0].y = axis("n, problem size", true, NAN, NAN);
	r->panels[0].note = in->note;
	for (l = 0; l < in->nlevels && l < REPORT_LEVELS_MAX; l++) {
		struct rgb c = chart_palette(l);
		struct chart_layer *m;
		char num[32];

		total += in->ne[l] + in->nm[l];
		measured_then_beyond(r, in->mp[l], in->mn[l], in->nm[l], in->p_measured, c);
		m = layer(r, 0, LAYER_MARKERS);
		m->x = in->ep[l];
		m->y = in->en[l];
		m->n = in->ne[l];
		m->color = c;
		m->marker = MARK_DIAMOND;
		m->size = 4;
		chart_number(in->level[l], num, sizeof(num));
		legend(r, 0, str(r, "ε = %s", num), c, MARK_DIAMOND, DASH_SOLID);
	}
	legend(r, 0, "◆ measured (Orii), line: from the models", GREY, MARK_COUNT, DASH_SOLID);
	if (total == 0)
		r->panels[0].placeholder = "no efficiency level is reached in the runs or the models";
	apply_view(r, o);
	report_seal(r);
	return r;
}

struct report *report_build_history(const struct report_history *in, const struct report_opts *o)
{
	static const char *const names[3] = {"ok", "regression", "improvement"};
	static const enum chart_marker shapes[3] = {MARK_CIRCLE, MARK_TRIANGLE, MARK_DIAMOND};
	const struct rgb colors[3] = {chart_palette(0), chart_palette(1), chart_palette(2)};
	struct report *r = report_new(o, "history", 1);
	struct chart_layer *l;
	size_t i, v, step, nat, count[4] = {0}, lines, s;
	char rel[32], noise[32];

	snprintf(r->title, sizeof(r->title), "history: %s", in->title);
	r->panels[0].x = axis(in->xtitle, false, 0.5, NAN);
	r->panels[0].y = axis(in->ytitle, false, NAN, NAN);
	if (in->ngroups) {	/* a tick at each label value, or at every step-th */
		double *at = doubles(r, in->ngroups);
		const char **text = keep(r, xcalloc(in->ngroups, sizeof(*text)));

		step = (in->ngroups + 11) / 12;
		for (i = nat = 0; i < in->ngroups; i += step, nat++) {
			at[nat] = (double)(i + 1);
			text[nat] = in->groups[i];
		}
		r->panels[0].x = axis(in->xtitle, false, 0.5, (double)in->ngroups + 0.5);
		r->panels[0].x.at = at;
		r->panels[0].x.nat = nat;
		r->panels[0].x.at_text = text;
	} else if (in->n) {
		/* runs are counted: ticks at whole numbers, every 1, 2, 5, 10, ... */
		static const double mant[3] = {1, 2, 5};
		double lo = in->x[0], hi = in->x[in->n - 1], unit = 1, *at;
		int k;

		for (k = 0; (hi - lo) / unit > 10 && k < 60; k++)
			unit = mant[(k + 1) % 3] * pow(10, (k + 1) / 3);
		at = doubles(r, 16);
		for (nat = 0, v = (size_t)ceil(lo / unit); (double)v * unit <= hi && nat < 16; v++)
			at[nat++] = (double)v * unit;
		r->panels[0].x.min = lo - 0.5;
		r->panels[0].x.max = hi + 0.5;
		r->panels[0].x.at = at;
		r->panels[0].x.nat = nat;
	}
	/* per setting (one, or each frequency and cap apart): the band, within
	 * which a run is ok; the median it is held against; with several, a
	 * line through the setting's runs, named */
	lines = in->nsettings > 1 && !in->ngroups ? in->nsettings : 1;
	for (s = 0; s < lines; s++) {
		double *x = doubles(r, in->n), *y = doubles(r, in->n), *md = doubles(r, in->n);
		double *lo = doubles(r, in->n), *hi = doubles(r, in->n);
		size_t m = 0;

		for (i = 0; i < in->n; i++) {
			if (lines > 1 && in->setting[i] != s)
				continue;
			x[m] = in->x[i], y[m] = in->y[i], md[m] = in->median[i];
			lo[m] = in->lo[i], hi[m++] = in->hi[i];
		}
		l = layer(r, 0, LAYER_AREA);
		l->x = x;
		l->y = hi;
		l->y0 = lo;
		l->n = m;
		l->color = GREY;
		l->alpha = 0.25;
		l = layer(r, 0, LAYER_LINE);
		l->x = x;
		l->y = md;
		l->n = m;
		l->color = GREY;
		l->size = 1.5;
		l->dash = DASH_DASHED;
		if (lines == 1)
			continue;
		l = layer(r, 0, LAYER_LINE);
		l->x = x;
		l->y = y;
		l->n = m;
		l->color = chart_palette(3 + s);
		l->size = 1.2;
		l->dash = LINE_DASHES[s % (sizeof(LINE_DASHES) / sizeof(LINE_DASHES[0]))];
		legend(r, 0, str(r, "%s: its runs, its own baseline", in->settings[s]), l->color, MARK_COUNT,
		       l->dash);
	}
	for (v = 0; v < 4; v++) {	/* the runs, by verdict (3: not judged) */
		double *x = doubles(r, in->n), *y = doubles(r, in->n);

		for (i = 0; i < in->n; i++)
			if ((in->verdict[i] < 0 ? 3 : (size_t)in->verdict[i]) == v) {
				x[count[v]] = in->x[i];
				y[count[v]++] = in->y[i];
			}
		l = layer(r, 0, LAYER_MARKERS);
		l->x = x;
		l->y = y;
		l->n = count[v];
		l->color = v == 3 ? GREY : colors[v];
		l->marker = v == 3 ? MARK_RING : shapes[v];
		l->size = v == 0 || v == 3 ? 3.5 : 5;
	}
	chart_number(in->t.rel * 100, rel, sizeof(rel));
	chart_number(in->t.noise, noise, sizeof(noise));
	legend(r, 0, str(r, "baseline: median of the runs before (up to 100)"), GREY, MARK_COUNT,
	       DASH_DASHED);
	legend(r, 0, str(r, "ok band: ± max(%s %%, %s × 1.4826 MAD)", rel, noise), GREY,
	       MARK_SQUARE, DASH_SOLID);
	for (v = 0; v < 3; v++)
		legend(r, 0, str(r, "%s (%zu)", names[v], count[v]), colors[v], shapes[v], DASH_SOLID);
	legend(r, 0, str(r, "fewer than %zu runs before (%zu)", in->t.min_runs, count[3]), GREY,
	       MARK_RING, DASH_SOLID);
	if (!in->n)
		r->panels[0].placeholder = "no run of this point carries the metric";
	r->panels[0].note = lines > 1 ? "each run against the median and MAD of the runs of its point before it "
				       "at its frequency and power cap" :
				       "each run against the median and MAD of the runs of its point before it";
	apply_view(r, o);
	report_seal(r);
	return r;
}

const struct chart_spec *report_spec(const struct report *r)
{
	return &r->spec;
}

void report_free(struct report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nmem; i++)
		free(r->mem[i]);
	free(r->mem);
	for (i = 0; i < PANELS_MAX; i++) {
		free(r->layers[i]);
		free(r->legend[i]);
		free(r->brief[i]);
	}
	free(r);
}
