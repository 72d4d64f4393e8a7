/*
 * energy: Kimura et al.'s prediction of the energy saved by running each
 * program region at its own frequency, for any node count p (the paper's n
 * is karte's p). The paper (docs/methods.md names it) is the authority;
 * formula numbers are the paper's.
 */
#ifndef KARTE_ENERGY_H
#define KARTE_ENERGY_H

#include <stddef.h>

#include "ka.h"

/* Eq. 5: alpha_p = sum (1/p - 1)(T(p)/T(1) - 1) / sum (1/p - 1)^2 over
 * the m measured p (runs at one frequency), with t1 = T(1). Points at p = 1
 * add nothing. Not clamped: communication that grows with p gives
 * alpha_p < 0. -KA_ENODATA without a p > 1; -KA_EDOM for p < 1, t <= 0. */
int ka_fit_alpha_p(const double *p, const double *t, size_t m, double t1, double *alpha_p);

/* Eq. 6: beta_on = sum (f_std/f - 1)(T(f)/T(f_std) - 1) / sum (f_std/f - 1)^2
 * over the m measured frequencies at p = 1, with t_std = T(1, f_std).
 * -KA_ENODATA without an f != f_std; -KA_EDOM for f <= 0, t <= 0. */
int ka_fit_beta_on(double f_std, const double *f, const double *t, size_t m, double t_std,
		   double *beta_on);

/* One region's parameters for eq. 4. */
struct ka_region_model {
	double alpha_p;		/* eq. 5 */
	double beta_on;		/* eq. 6 */
	double f_opt;		/* its optimised frequency, MHz */
	double power_std;	/* P(1, r, f_std), W */
	double power_opt;	/* P(1, r, f_opt), W */
	double time_std;	/* T(1, r, f_std), s */
};

/* Eq. 2: T(p, r, f) / T(1, r, f) = alpha_s + alpha_p / p. */
double ka_time_scale(double alpha_p, double p);

/* Eq. 3: T(1, r, f_opt) / T(1, r, f_std) = (f_std/f_opt) beta_on + 1 - beta_on. */
double ka_freq_scale(double beta_on, double f_std, double f_opt);

/* E_opt / E_std of one region at p = 1 (> 1: the chosen frequency costs
 * energy, as for MG's rprj3 with Table 2's parameters). */
double ka_energy_ratio(const struct ka_region_model *r, double f_std);

/* Eq. 4: the predicted saving Delta E at p nodes (P(p,r,f) = p P(1,r,f)).
 * shares (NULL or room for nr) gets each region's optimised energy as a
 * fraction of the standard run's whole energy at p, so the shares add up
 * to 1 - Delta E (Kimura Fig. 3). -KA_EDOM for p < 1 or bad parameters. */
int ka_delta_e(const struct ka_region_model *r, size_t nr, double f_std, double p,
	       double *delta_e, double *shares);

/* Eq. 1 from measured energies of the same regions at the same p. */
int ka_delta_e_measured(const double *e_opt, const double *e_std, size_t nr, double *delta_e);

/* f_opt when the optimised runs do not give it: the index of the least
 * P * T among m measurements of a region at p = 1. */
size_t ka_least_energy(const double *power, const double *time, size_t m);

#endif
