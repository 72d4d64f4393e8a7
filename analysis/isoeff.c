#include "isoeff.h"

#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double ka_efficiency(double tau, double chi)
{
	return 1.0 - chi / tau;
}

double ka_effective_p(int64_t p, double eps)
{
	return (double)p * eps;
}

enum ka_cclass ka_classify_step(double tau_from, double tau_to, double c2_rtol)
{
	double rel = (tau_to - tau_from) / tau_from;

	if (fabs(rel) <= c2_rtol)
		return KA_C2;
	return rel < 0 ? KA_C1 : KA_C3;
}

const char *ka_cclass_name(enum ka_cclass c)
{
	return c == KA_C1 ? "C1" : c == KA_C2 ? "C2" : "C3";
}

/* ---- pooling repeats ---------------------------------------------------- */

/* n and p are a run's key, compared exactly (n as given and stored, p an
 * integer): runs pool when they carry the same n, as SQL's GROUP BY does. A
 * tolerance would make "the same n" intransitive (a ~ b ~ c, a !~ c) and the
 * pooled point depend on the order of the runs. Every == on n below is this. */
static int cmp_run(const void *a, const void *b)
{
	const struct ka_run *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static bool run_ok(const struct ka_run *r)
{
	return r->p >= 1 && isfinite(r->n) && r->n > 0 && isfinite(r->tau) && r->tau > 0 &&
	       isfinite(r->chi) && r->chi >= 0 && r->chi <= r->tau;
}

size_t ka_pool_work(size_t nruns)
{
	return nruns * sizeof(double);
}

/* Median of the field at offset off of runs[0..m), via the scratch array. */
static double median_of(const struct ka_run *runs, size_t m, size_t off, double *scratch)
{
	size_t i;

	for (i = 0; i < m; i++)
		memcpy(&scratch[i], (const char *)&runs[i] + off, sizeof(double));
	return gsl_stats_median(scratch, 1, m);
}

int ka_pool(struct ka_run *runs, size_t nruns, struct ka_obs *obs, size_t *nobs, void *work,
	    size_t work_size)
{
	double *scratch = work;
	size_t i, j, k, out = 0;

	*nobs = 0;
	if (work_size < ka_pool_work(nruns))
		return -KA_ESPACE;
	for (i = 0; i < nruns; i++)
		if (!run_ok(&runs[i]))
			return -KA_EDOM;
	qsort(runs, nruns, sizeof(*runs), cmp_run);
	for (i = 0; i < nruns; i = j) {
		struct ka_obs *o = &obs[out++];

		for (j = i + 1; j < nruns && runs[j].n == runs[i].n && runs[j].p == runs[i].p; j++)
			;
		o->p = runs[i].p;
		o->n = runs[i].n;
		o->first = i;
		o->count = j - i;
		o->tau = median_of(&runs[i], j - i, offsetof(struct ka_run, tau), scratch);
		o->chi = median_of(&runs[i], j - i, offsetof(struct ka_run, chi), scratch);
		o->tau_lo = o->tau_hi = runs[i].tau;
		o->chi_lo = o->chi_hi = runs[i].chi;
		for (k = i + 1; k < j; k++) {
			o->tau_lo = fmin(o->tau_lo, runs[k].tau);
			o->tau_hi = fmax(o->tau_hi, runs[k].tau);
			o->chi_lo = fmin(o->chi_lo, runs[k].chi);
			o->chi_hi = fmax(o->chi_hi, runs[k].chi);
		}
		o->eps = ka_efficiency(o->tau, o->chi);
		o->eps_lo = ka_efficiency(o->tau_lo, o->chi_hi);
		o->eps_hi = ka_efficiency(o->tau_hi, o->chi_lo);
		if (o->count == 1)	/* no spread: exactly the one value */
			o->eps_lo = o->eps_hi = o->eps;
	}
	*nobs = out;
	return 0;
}

/* ---- range minimum (sparse table) over an obs field ------------------- */

struct rmq {
	double *t;		/* levels * n values: t[k*n + i] = min(v[i .. i + 2^k)) */
	size_t n;
	unsigned levels;
};

static void rmq_build(struct rmq *q, const struct ka_obs *obs, size_t n, size_t off)
{
	unsigned k;
	size_t i;

	for (i = 0; i < n; i++)
		memcpy(&q->t[i], (const char *)&obs[i] + off, sizeof(double));
	for (k = 1; k < q->levels; k++) {
		size_t half = (size_t)1 << (k - 1);
		double *prev = q->t + (k - 1) * n, *cur = q->t + k * n;

		for (i = 0; i + (half << 1) <= n; i++)
			cur[i] = fmin(prev[i], prev[i + half]);
	}
}

/* First index in [a, b) whose value is <= limit, or b: skip whole blocks
 * whose minimum is above limit, largest first (binary lifting). */
static size_t rmq_first_leq(const struct rmq *q, size_t a, size_t b, double limit)
{
	size_t pos = a;
	unsigned k;

	for (k = q->levels; k-- > 0;) {
		size_t len = (size_t)1 << k;

		if (pos + len <= b && q->t[k * q->n + pos] > limit)
			pos += len;
	}
	return pos;
}

/* ---- the analysis ------------------------------------------------------- */

struct colkey {
	int64_t p;
	double n;
	size_t idx;		/* into obs */
};

struct iso_work {
	size_t *row_end;	/* per obs: one past the last obs of its n */
	struct colkey *col;	/* obs sorted by (p, n): columns of fixed p */
	struct rmq eps, eps_lo;
};

static unsigned levels_for(size_t len)
{
	unsigned k = 1;

	while (((size_t)1 << k) <= len)
		k++;
	return k;	/* 2^(k-1) <= len < 2^k */
}

size_t ka_iso_work(size_t nobs)
{
	unsigned levels = levels_for(nobs ? nobs : 1);

	return nobs * sizeof(size_t) + nobs * sizeof(struct colkey) +
	       2 * (size_t)levels * nobs * sizeof(double);
}

static int cmp_col(const void *a, const void *b)
{
	const struct colkey *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->n > y->n) - (x->n < y->n);
}

static bool sorted_by_n_p(const struct ka_obs *obs, size_t nobs)
{
	size_t i;

	for (i = 1; i < nobs; i++) {
		if (obs[i].n < obs[i - 1].n)
			return false;
		if (obs[i].n == obs[i - 1].n && obs[i].p <= obs[i - 1].p)
			return false;
	}
	return true;
}

/* Where the step a -> b crosses the line chi = (1 - e) tau; t in [0, 1]. */
static void crossing(const struct ka_obs *a, const struct ka_obs *b, double e, struct ka_sps *s)
{
	double dchi = b->chi - a->chi, dtau = (1 - e) * (b->tau - a->tau), den = dchi - dtau;
	/* a step parallel to the line (within rounding of its own size) meets it
	 * nowhere or everywhere: its end */
	double t = fabs(den) > 1e-12 * (fabs(dchi) + fabs(dtau)) ?
		   ((1 - e) * a->tau - a->chi) / den : 1;

	if (!(t >= 0))
		t = 0;
	if (t > 1)
		t = 1;
	s->cross_p = (double)a->p + t * (double)(b->p - a->p);
	s->cross_tau = a->tau + t * (b->tau - a->tau);
	s->cross_chi = a->chi + t * (b->chi - a->chi);
}

static void steps_and_boundary(const struct ka_obs *obs, const struct iso_work *w, size_t nobs,
			       const struct ka_iso_opts *o, const struct ka_iso_visitor *v)
{
	size_t i = 0, end, k, boundary;

	while (i < nobs) {
		end = w->row_end[i];
		boundary = i;
		for (k = i; k + 1 < end; k++) {
			const struct ka_obs *a = &obs[k], *b = &obs[k + 1];
			struct ka_step s = {k, k + 1, ka_classify_step(a->tau, b->tau, o->c2_rtol), NAN,
					    false};
			double lo = (b->tau_lo - a->tau_hi) / a->tau_hi;
			double hi = (b->tau_hi - a->tau_lo) / a->tau_lo;

			/* no slope when tau did not change beyond rounding */
			if (fabs(b->tau - a->tau) > 1e-12 * fmax(a->tau, b->tau))
				s.slope = (b->chi - a->chi) / (b->tau - a->tau);
			s.uncertain = ka_classify_step(1, 1 + lo, o->c2_rtol) !=
				      ka_classify_step(1, 1 + hi, o->c2_rtol);
			if (boundary == k && s.cls == KA_C1)
				boundary = k + 1;
			if (v->step)
				v->step(&s, v->ctx);
		}
		/* tau stops falling at the boundary when a C2 or C3 step follows
		 * it; none where tau falls through the last measured p */
		if (v->boundary && boundary + 1 < end)
			v->boundary(boundary, v->ctx);
		i = end;
	}
}

/* All pairs of one base, which sits at col[ci]; the pairs are the later
 * entries of its column. */
static void base_pairs(const struct ka_obs *obs, const struct iso_work *w, size_t ci, size_t cend,
		       const struct ka_iso_opts *o, const struct ka_iso_visitor *v)
{
	size_t base = w->col[ci].idx, cj;
	const struct ka_obs *b = &obs[base];
	double lim = b->eps + o->tol;
	enum ka_base_status best = KA_BASE_UNTESTED;
	bool best_unc = false;

	for (cj = ci + 1; cj < cend; cj++) {
		size_t gn = w->col[cj].idx, end = w->row_end[gn], gp;
		const struct ka_obs *g = &obs[gn];
		enum ka_base_status st;
		bool unc;

		if (!(g->eps > lim)) {		/* region (II), or on the line */
			struct ka_pair pr = {base, gn, g->eps_hi > b->eps_lo + o->tol};

			st = KA_BASE_NOT_SPS;
			unc = pr.uncertain;
			if (v->not_sps)
				v->not_sps(&pr, v->ctx);
		} else {
			bool region_unc = g->eps_lo <= b->eps_hi + o->tol;
			/* could some p' before the crossing have crossed inside the spreads? */
			size_t early = rmq_first_leq(&w->eps_lo, gn + 1, end, b->eps_hi + o->tol);

			gp = rmq_first_leq(&w->eps, gn + 1, end, lim);
			if (gp < end) {
				struct ka_sps s;

				s.base = base;
				s.grown_n = gn;
				s.grown_p = gp;
				s.efficiency = b->eps;
				s.equal = fabs(obs[gp].eps - b->eps) <= o->tol;
				crossing(&obs[gp - 1], &obs[gp], b->eps, &s);
				s.arrow = ka_classify_step(g->tau, obs[gp].tau, o->c2_rtol);
				s.step = ka_classify_step(obs[gp - 1].tau, obs[gp].tau, o->c2_rtol);
				s.uncertain = region_unc || early < gp ||
					      obs[gp].eps_hi > b->eps_lo + o->tol;
				st = KA_BASE_SPS;
				unc = s.uncertain;
				if (v->sps)
					v->sps(&s, v->ctx);
			} else {
				struct ka_pair pr = {base, gn, region_unc || early < end};

				st = KA_BASE_CANDIDATE;
				unc = pr.uncertain;
				if (v->candidate)
					v->candidate(&pr, v->ctx);
			}
		}
		if (st > best) {
			best = st;
			best_unc = unc;
		} else if (st == best) {
			best_unc = best_unc && unc;	/* certain if any pair is */
		}
	}
	if (v->base)
		v->base(base, best, best_unc, v->ctx);
}

int ka_iso_analyze(const struct ka_obs *obs, size_t nobs, const struct ka_iso_opts *opts,
		   void *work, size_t work_size, const struct ka_iso_visitor *v)
{
	struct ka_iso_opts o = opts ? *opts : (struct ka_iso_opts){KA_ISO_TOL_DEFAULT,
								     KA_C2_RTOL_DEFAULT};
	struct iso_work w;
	size_t i, j, maxrow = 1;
	unsigned levels;

	if (work_size < ka_iso_work(nobs))
		return -KA_ESPACE;
	if (!sorted_by_n_p(obs, nobs) || !(o.tol >= 0) || !(o.c2_rtol >= 0))
		return -KA_EDOM;
	if (nobs == 0)
		return 0;
	w.row_end = work;
	w.col = (struct colkey *)(w.row_end + nobs);
	for (i = 0; i < nobs; i = j) {
		for (j = i + 1; j < nobs && obs[j].n == obs[i].n; j++)
			;
		if (j - i > maxrow)
			maxrow = j - i;
		while (i < j)
			w.row_end[i++] = j;
	}
	levels = levels_for(maxrow);
	w.eps = (struct rmq){(double *)(w.col + nobs), nobs, levels};
	for (i = 0; i < nobs; i++)
		w.col[i] = (struct colkey){obs[i].p, obs[i].n, i};
	qsort(w.col, nobs, sizeof(*w.col), cmp_col);
	w.eps_lo = (struct rmq){w.eps.t + (size_t)levels * nobs, nobs, levels};
	rmq_build(&w.eps, obs, nobs, offsetof(struct ka_obs, eps));
	rmq_build(&w.eps_lo, obs, nobs, offsetof(struct ka_obs, eps_lo));

	steps_and_boundary(obs, &w, nobs, &o, v);
	if (!v->sps && !v->candidate && !v->not_sps && !v->base)
		return 0;	/* only steps asked for: the pairs are the expensive part */
	for (i = 0; i < nobs; i = j) {
		size_t c;

		for (j = i + 1; j < nobs && w.col[j].p == w.col[i].p; j++)
			;
		for (c = i; c < j; c++)
			base_pairs(obs, &w, c, j, &o, v);
	}
	return 0;
}

int ka_iso_function(const struct ka_obs *obs, size_t nobs, double level, double *n_out,
		    double *p_out, size_t *m)
{
	size_t i, j, k;

	*m = 0;
	if (!sorted_by_n_p(obs, nobs) || !isfinite(level))
		return -KA_EDOM;
	for (i = 0; i < nobs; i = j) {
		for (j = i + 1; j < nobs && obs[j].n == obs[i].n; j++)
			;
		if (obs[i].eps < level)
			continue;	/* below the level from its smallest p on */
		for (k = i; k < j && obs[k].eps > level; k++)
			;
		if (k == j)
			continue;	/* holds the level beyond the measured p */
		n_out[*m] = obs[i].n;
		/* (at eps == level the interpolation below gives obs[k].p exactly) */
		if (k == i) {
			p_out[*m] = (double)obs[k].p;
		} else {
			const struct ka_obs *a = &obs[k - 1], *b = &obs[k];
			double t = (a->eps - level) / (a->eps - b->eps);

			p_out[*m] = (double)a->p + t * (double)(b->p - a->p);
		}
		(*m)++;
	}
	return 0;
}

int ka_fit_power(double *x, double *y, size_t m, double *k, double *c, double *r2)
{
	double c0, c1, cov00, cov01, cov11, sumsq, mean = 0, tss = 0;
	size_t i;

	if (m < 3)
		return -KA_ENODATA;
	for (i = 0; i < m; i++)
		if (!(x[i] > 0) || !(y[i] > 0) || !isfinite(x[i]) || !isfinite(y[i]))
			return -KA_EDOM;
	for (i = 0; i < m; i++) {
		x[i] = log(x[i]);
		y[i] = log(y[i]);
		mean += y[i] / (double)m;
	}
	if (gsl_fit_linear(x, 1, y, 1, m, &c0, &c1, &cov00, &cov01, &cov11, &sumsq))
		return -KA_EDOM;
	for (i = 0; i < m; i++)
		tss += (y[i] - mean) * (y[i] - mean);
	*k = c1;
	*c = exp(c0);
	*r2 = tss > 0 ? 1 - sumsq / tss : 1;
	return 0;
}

/* ---- what grid the points form ------------------------------------------------ */

const char *ka_scaling_name(enum ka_scaling s)
{
	static const char *const names[] = {"one point", "one p", "strong", "weak", "grid"};

	return names[s];
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static size_t distinct_i64(int64_t *v, size_t n)
{
	size_t i, d = 0;

	qsort(v, n, sizeof(*v), cmp_i64);
	for (i = 0; i < n; i++)
		d += i == 0 || v[i] != v[i - 1];
	return d;
}

enum ka_scaling ka_scaling_kind(const struct ka_obs *obs, size_t nobs, int64_t *work,
				double *n_per_p)
{
	size_t i, np, nn;
	double r0 = nobs ? obs[0].n / (double)obs[0].p : NAN;

	*n_per_p = r0;
	for (i = 0; i < nobs; i++) {
		double r = obs[i].n / (double)obs[i].p;

		if (fabs(r - r0) > 1e-9 * r0)
			*n_per_p = NAN;
		work[i] = obs[i].p;
	}
	np = distinct_i64(work, nobs);
	for (i = 0; i < nobs; i++)	/* n as its bits: equal n, equal keys (n > 0) */
		memcpy(&work[i], &obs[i].n, sizeof(work[i]));
	nn = distinct_i64(work, nobs);
	if (nobs <= 1)
		return KA_SCALING_ONE_POINT;
	if (np == 1)
		return KA_SCALING_ONE_P;
	if (nn == 1)
		return KA_SCALING_STRONG;
	if (np == nobs)
		return KA_SCALING_WEAK;
	return KA_SCALING_GRID;
}

int ka_strong_scaling(const struct ka_obs *obs, size_t nobs, double *speedup, double *efficiency,
		      int64_t *base_p)
{
	size_t i, first = 0;

	for (i = 0; i < nobs; i++) {
		if (!(obs[i].tau > 0) || !isfinite(obs[i].tau) || obs[i].p < 1)
			return -KA_EDOM;
		if (i > 0 && obs[i].n == obs[i - 1].n) {
			if (obs[i].p <= obs[i - 1].p)
				return -KA_EDOM;
		} else {
			if (i > 0 && obs[i].n < obs[i - 1].n)
				return -KA_EDOM;
			first = i;	/* p0 of this n */
		}
		base_p[i] = obs[first].p;
		speedup[i] = obs[first].tau / obs[i].tau;
		efficiency[i] = (double)obs[first].p * obs[first].tau / ((double)obs[i].p * obs[i].tau);
	}
	return 0;
}

size_t ka_iso_auto_tolerance(const struct ka_obs *obs, size_t nobs, double *scratch,
			     struct ka_iso_opts *opts)
{
	double *eps = scratch, *tau = scratch + nobs;
	size_t i, m = 0;

	for (i = 0; i < nobs; i++)
		if (obs[i].count > 1) {
			eps[m] = (obs[i].eps_hi - obs[i].eps_lo) / 2;
			tau[m++] = (obs[i].tau_hi - obs[i].tau_lo) / obs[i].tau;
		}
	if (m == 0)
		return 0;
	gsl_sort(eps, 1, m);
	gsl_sort(tau, 1, m);
	opts->tol = fmax(gsl_stats_median_from_sorted_data(eps, 1, m), KA_ISO_TOL_DEFAULT);
	opts->c2_rtol = gsl_stats_median_from_sorted_data(tau, 1, m);
	return m;
}
