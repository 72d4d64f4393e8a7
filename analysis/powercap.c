#include "powercap.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>

static bool finite_pos(double x)
{
	return isfinite(x) && x > 0;
}

/* Eqs. 2 and 3 for one module at a (clamped) and its raw value. */
static void place(const struct ka_module *m, double a_raw, double f_max, double f_min,
		  struct ka_alloc *o)
{
	o->a_raw = a_raw;
	o->a = a_raw < 0 ? 0 : a_raw > 1 ? 1 : a_raw;
	o->clamped = a_raw < 0 || a_raw > 1;
	o->f = o->a * (f_max - f_min) + f_min;
	o->p = o->a * (m->p_max - m->p_min) + m->p_min;
	o->draw = o->p;
}

static int check(const struct ka_module *m, size_t n, double budget, double f_max, double f_min)
{
	size_t i;

	if (n == 0 || !finite_pos(budget) || !finite_pos(f_max) || !finite_pos(f_min) ||
	    !(f_max > f_min))
		return -KA_EDOM;
	for (i = 0; i < n; i++)
		if (!finite_pos(m[i].p_min) || !(m[i].p_max > m[i].p_min) || !isfinite(m[i].p_max))
			return -KA_EDOM;
	return 0;
}

int ka_alloc_uniform(const struct ka_module *m, size_t n, double budget, double f_max,
		     double f_min, struct ka_alloc *out, bool *infeasible)
{
	double share = budget / (double)n;
	size_t i;

	if (check(m, n, budget, f_max, f_min))
		return -KA_EDOM;
	*infeasible = false;
	for (i = 0; i < n; i++) {
		place(&m[i], (share - m[i].p_min) / (m[i].p_max - m[i].p_min), f_max, f_min,
		      &out[i]);
		out[i].p = share;	/* the cap it is given */
		if (out[i].a_raw < 0)
			*infeasible = true;	/* below what f_min draws: the cap cannot be met */
	}
	return 0;
}

int ka_alloc_aware(const struct ka_module *m, size_t n, double budget, double f_max,
		   double f_min, struct ka_alloc *out, bool *infeasible)
{
	double smax = 0, smin = 0, a;
	size_t i;

	if (check(m, n, budget, f_max, f_min))
		return -KA_EDOM;
	for (i = 0; i < n; i++) {
		smax += m[i].p_max;
		smin += m[i].p_min;
	}
	a = (budget - smin) / (smax - smin);
	*infeasible = a < 0;
	for (i = 0; i < n; i++)
		place(&m[i], a, f_max, f_min, &out[i]);
	return 0;
}

int ka_inverse_fit(double f1, double r1, double f2, double r2, struct ka_inverse *m)
{
	/* two frequencies within 1e-9 of each other are one (MHz carry no more) */
	if (!finite_pos(f1) || !finite_pos(f2) || fabs(f1 - f2) <= 1e-9 * fmax(f1, f2) ||
	    !isfinite(r1) || !isfinite(r2))
		return -KA_EDOM;
	/* r = c x + d in x = 1/f */
	m->c = (r1 - r2) / (1 / f1 - 1 / f2);
	m->d = r1 - m->c / f1;
	return 0;
}

double ka_inverse_eval(const struct ka_inverse *m, double f)
{
	return m->c / f + m->d;
}

int ka_three_point_fit(const double f[4], const double r[4], struct ka_three_point *m)
{
	if (ka_inverse_fit(f[0], r[0], f[1], r[1], &m->high) ||
	    ka_inverse_fit(f[2], r[2], f[3], r[3], &m->low))
		return -KA_EDOM;
	/* c_h/f + d_h = c_l/f + d_l  =>  f3 = (c_h - c_l) / (d_l - d_h). Parallel
	 * in 1/f (the same c, to a relative 1e-9: an ideal inverse curve on both
	 * sides gives c equal up to rounding) they never meet; nor when the
	 * crossing is at no positive frequency. */
	if (fabs(m->high.c - m->low.c) <= 1e-9 * fmax(fabs(m->high.c), fabs(m->low.c)))
		m->f3 = NAN;
	else
		m->f3 = (m->high.c - m->low.c) / (m->low.d - m->high.d);
	if (!(isfinite(m->f3) && m->f3 > 0))
		m->f3 = NAN;
	return 0;
}

int ka_three_point_through(double f_max, double r_max, double f3, double r3, double f_min,
			   double r_min, struct ka_three_point *m)
{
	if (!(f_max > f3 && f3 > f_min) || ka_inverse_fit(f_max, r_max, f3, r3, &m->high) ||
	    ka_inverse_fit(f3, r3, f_min, r_min, &m->low))
		return -KA_EDOM;
	m->f3 = f3;
	return 0;
}

int ka_best_f3(const double *f, const double *r, size_t n, size_t hi, size_t lo,
	       struct ka_three_point *best)
{
	double best_sse = INFINITY;
	size_t i, j;

	if (hi >= n || lo >= n)
		return -KA_EDOM;
	for (i = 0; i < n; i++) {
		struct ka_three_point m;
		double sse = 0;

		if (ka_three_point_through(f[hi], r[hi], f[i], r[i], f[lo], r[lo], &m))
			continue;	/* not strictly inside (f_min, f_max) */
		for (j = 0; j < n; j++) {
			double e = ka_three_point_eval(&m, f[j]) - r[j];

			sse += e * e;
		}
		if (sse < best_sse) {	/* the first of equals: the lowest index */
			best_sse = sse;
			*best = m;
		}
	}
	return isfinite(best_sse) ? 0 : -KA_ENODATA;
}

int ka_fit_quality(const double *pred, const double *meas, size_t n, double *pearson_r, double *r2)
{
	double mean = 0, sst = 0, sse = 0;
	size_t i;

	if (n < 2)
		return -KA_ENODATA;
	for (i = 0; i < n; i++) {
		if (!isfinite(pred[i]) || !isfinite(meas[i]))
			return -KA_EDOM;
		mean += meas[i] / (double)n;
	}
	for (i = 0; i < n; i++) {
		sst += (meas[i] - mean) * (meas[i] - mean);
		sse += (pred[i] - meas[i]) * (pred[i] - meas[i]);
	}
	*pearson_r = gsl_stats_correlation(pred, 1, meas, 1, n);
	*r2 = sst > 0 ? 1 - sse / sst : NAN;
	return 0;
}

double ka_cycle_ratio(double f_max, double r_max, double f_min, double r_min)
{
	return r_min * f_min / (r_max * f_max);
}

double ka_three_point_eval(const struct ka_three_point *m, double f)
{
	double h = ka_inverse_eval(&m->high, f), l = ka_inverse_eval(&m->low, f);

	if (isnan(m->f3))
		return fmax(h, l);
	return f >= m->f3 ? h : l;
}

struct ka_module ka_pvt_module(double ratio_max, double ratio_min, double mean_p_max,
			       double mean_p_min)
{
	return (struct ka_module){ratio_max * mean_p_max, ratio_min * mean_p_min};
}

/* ---- a whole study ---- */

int ka_pc_pick(const double *f, size_t n, double f_high, double f_low, struct ka_pc_samples *s)
{
	size_t i;

	if (n < 2)
		return -KA_EDOM;
	s->hi = s->lo = 0;
	for (i = 0; i < n; i++) {
		if (f[i] > f[s->hi])
			s->hi = i;
		if (f[i] < f[s->lo])
			s->lo = i;
	}
	if (!(f[s->hi] > f[s->lo]))
		return -KA_EDOM;
	s->hi2 = s->lo;
	s->lo2 = s->hi;
	for (i = 0; i < n; i++) {
		if (i != s->hi && f[i] < f[s->hi] && f[i] > f[s->hi2])
			s->hi2 = i;
		if (i != s->lo && f[i] > f[s->lo] && f[i] < f[s->lo2])
			s->lo2 = i;
	}
	for (int k = 0; k < 2; k++) {	/* the inner two, when named */
		double want = k ? f_low : f_high;
		size_t *at = k ? &s->lo2 : &s->hi2;

		if (isnan(want))
			continue;
		for (i = 0; i < n; i++)
			if (fabs(f[i] - want) <= 1e-9 * want && f[i] < f[s->hi] && f[i] > f[s->lo])
				break;
		if (i == n)
			return 1 + k;
		*at = i;
	}
	return 0;
}

static void quality(const double *f, const double *r, size_t n, const struct ka_inverse *two,
		    const struct ka_three_point *three, double *pred, double *pearson, double *r2)
{
	size_t i;

	for (i = 0; i < n; i++)
		pred[i] = two ? ka_inverse_eval(two, f[i]) : ka_three_point_eval(three, f[i]);
	if (ka_fit_quality(pred, r, n, pearson, r2))
		*pearson = *r2 = NAN;
}

int ka_pc_models_fit(const double *f, const double *r, size_t n, const struct ka_pc_samples *s,
		     double *pred, struct ka_pc_models *m)
{
	int k;

	for (k = 0; k < KA_PC_MODELS; k++)
		m->pearson[k] = m->r2[k] = NAN;
	if (ka_inverse_fit(f[s->hi], r[s->hi], f[s->lo], r[s->lo], &m->two))
		return -KA_EDOM;
	m->have_three = false;
	if (n >= 4 && f[s->hi2] > f[s->lo2]) {
		double f4[4] = {f[s->hi], f[s->hi2], f[s->lo2], f[s->lo]};
		double r4[4] = {r[s->hi], r[s->hi2], r[s->lo2], r[s->lo]};

		m->have_three = ka_three_point_fit(f4, r4, &m->three) == 0;
	}
	m->have_best = ka_best_f3(f, r, n, s->hi, s->lo, &m->best) == 0;
	quality(f, r, n, &m->two, NULL, pred, &m->pearson[KA_PC_TWO], &m->r2[KA_PC_TWO]);
	if (m->have_three)
		quality(f, r, n, NULL, &m->three, pred, &m->pearson[KA_PC_THREE], &m->r2[KA_PC_THREE]);
	if (m->have_best)
		quality(f, r, n, NULL, &m->best, pred, &m->pearson[KA_PC_BEST], &m->r2[KA_PC_BEST]);
	m->cycle_ratio = ka_cycle_ratio(f[s->hi], r[s->hi], f[s->lo], r[s->lo]);
	return 0;
}

static void cap_figures(const struct ka_alloc *a, size_t nm, const struct ka_pc_models *m,
			bool infeasible, struct ka_pc_cap *c)
{
	size_t i;

	c->infeasible = infeasible;
	c->r_two = 0;
	c->r_three = m->have_three ? 0 : NAN;
	c->draw = 0;
	for (i = 0; i < nm; i++) {	/* the budget's r is the slowest module's (eq. 1) */
		c->r_two = fmax(c->r_two, ka_inverse_eval(&m->two, a[i].f));
		if (m->have_three)
			c->r_three = fmax(c->r_three, ka_three_point_eval(&m->three, a[i].f));
		c->draw += a[i].draw;
	}
}

int ka_pc_budget(const struct ka_module *mod, size_t nm, double budget, double f_max, double f_min,
		 const struct ka_pc_models *m, struct ka_alloc *au, struct ka_alloc *av,
		 struct ka_pc_cap *uniform, struct ka_pc_cap *aware)
{
	bool iu, iv;

	if (!(budget > 0) || ka_alloc_uniform(mod, nm, budget, f_max, f_min, au, &iu) ||
	    ka_alloc_aware(mod, nm, budget, f_max, f_min, av, &iv))
		return -KA_EDOM;
	cap_figures(au, nm, m, iu, uniform);
	cap_figures(av, nm, m, iv, aware);
	return 0;
}
