#include "energy.h"

#include <math.h>
#include <stdbool.h>

/* A point whose x = 1/p - 1 or f_std/f - 1 is within this of 0 is at p = 1
 * or at f_std (relative to the dimensionless ratio): it carries no slope. */
#define AT_ORIGIN 1e-9

int ka_fit_alpha_p(const double *p, const double *t, size_t m, double t1, double *alpha_p)
{
	double num = 0, den = 0, x;
	size_t i, spread = 0;

	if (!(t1 > 0) || !isfinite(t1))
		return -KA_EDOM;
	for (i = 0; i < m; i++) {
		if (!(p[i] >= 1) || !(t[i] > 0) || !isfinite(p[i]) || !isfinite(t[i]))
			return -KA_EDOM;
		x = 1 / p[i] - 1;
		num += x * (t[i] / t1 - 1);
		den += x * x;
		spread += fabs(x) > AT_ORIGIN;
	}
	if (!spread)
		return -KA_ENODATA;	/* p = 1 alone: no slope to fit */
	*alpha_p = num / den;
	return 0;
}

int ka_fit_beta_on(double f_std, const double *f, const double *t, size_t m, double t_std,
		   double *beta_on)
{
	double num = 0, den = 0, x;
	size_t i, spread = 0;

	if (!(f_std > 0) || !(t_std > 0) || !isfinite(f_std) || !isfinite(t_std))
		return -KA_EDOM;
	for (i = 0; i < m; i++) {
		if (!(f[i] > 0) || !(t[i] > 0) || !isfinite(f[i]) || !isfinite(t[i]))
			return -KA_EDOM;
		x = f_std / f[i] - 1;
		num += x * (t[i] / t_std - 1);
		den += x * x;
		spread += fabs(x) > AT_ORIGIN;
	}
	if (!spread)
		return -KA_ENODATA;	/* f_std alone: no slope to fit */
	*beta_on = num / den;
	return 0;
}

double ka_time_scale(double alpha_p, double p)
{
	return (1 - alpha_p) + alpha_p / p;	/* = 1 - (p - 1)/p alpha_p */
}

double ka_freq_scale(double beta_on, double f_std, double f_opt)
{
	return (f_std / f_opt) * beta_on + 1 - beta_on;
}

double ka_energy_ratio(const struct ka_region_model *r, double f_std)
{
	return r->power_opt / r->power_std * ka_freq_scale(r->beta_on, f_std, r->f_opt);
}

static bool region_ok(const struct ka_region_model *r)
{
	return isfinite(r->alpha_p) && isfinite(r->beta_on) && r->f_opt > 0 && isfinite(r->f_opt) &&
	       r->power_std > 0 && isfinite(r->power_std) && r->power_opt > 0 &&
	       isfinite(r->power_opt) && r->time_std >= 0 && isfinite(r->time_std);
}

int ka_delta_e(const struct ka_region_model *r, size_t nr, double f_std, double p,
	       double *delta_e, double *shares)
{
	double e_opt = 0, e_std = 0, ts;
	size_t i;

	if (!(p >= 1) || !isfinite(p) || !(f_std > 0) || !isfinite(f_std) || nr == 0)
		return -KA_EDOM;
	for (i = 0; i < nr; i++) {
		if (!region_ok(&r[i]))
			return -KA_EDOM;
		/* p P(1) T(p): the common factor p cancels in the ratio (eq. 4) */
		ts = ka_time_scale(r[i].alpha_p, p) * r[i].time_std;
		e_std += r[i].power_std * ts;
		e_opt += r[i].power_opt * ts * ka_freq_scale(r[i].beta_on, f_std, r[i].f_opt);
	}
	if (!(e_std > 0))
		return -KA_EDOM;
	*delta_e = 1 - e_opt / e_std;
	if (shares)
		for (i = 0; i < nr; i++)
			shares[i] = r[i].power_opt * ka_time_scale(r[i].alpha_p, p) * r[i].time_std *
				    ka_freq_scale(r[i].beta_on, f_std, r[i].f_opt) / e_std;
	return 0;
}

int ka_delta_e_measured(const double *e_opt, const double *e_std, size_t nr, double *delta_e)
{
	double so = 0, ss = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (!(e_opt[i] >= 0) || !(e_std[i] >= 0) || !isfinite(e_opt[i]) || !isfinite(e_std[i]))
			return -KA_EDOM;
		so += e_opt[i];
		ss += e_std[i];
	}
	if (!(ss > 0))
		return -KA_EDOM;
	*delta_e = 1 - so / ss;
	return 0;
}

size_t ka_least_energy(const double *power, const double *time, size_t m)
{
	size_t i, best = 0;

	for (i = 1; i < m; i++)
		if (power[i] * time[i] < power[best] * time[best])
			best = i;
	return best;
}
