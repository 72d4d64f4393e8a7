/*
 * powermodel: ePRO-MP's regression power model (seed 004): power =
 * sum_k c_k (event_k / time) + c_0, fitted by ordinary least squares with
 * an intercept (GSL), dropping the counter with the largest two-sided
 * t-test p-value while it exceeds alpha (backward elimination), then
 * refitting. Also the best recorded configuration and the next one to try.
 * Unlike the rest of libkarte_analysis this allocates: GSL's matrices.
 */
#ifndef KARTE_POWERMODEL_H
#define KARTE_POWERMODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "ka.h"

#define KA_PM_MAX 64		/* counters at most */

struct ka_pm {
	size_t k;			/* counters offered */
	bool kept[KA_PM_MAX];		/* which survived the elimination */
	double coef[KA_PM_MAX];		/* per counter (0 when dropped), W per event/s */
	double se[KA_PM_MAX];		/* standard error, t and p-value, each at the */
	double t[KA_PM_MAX];		/* last fit that held the counter: for a dropped */
	double pvalue[KA_PM_MAX];	/* one, as it was when dropped */
	double intercept, intercept_se, intercept_t, intercept_p;	/* F_const */
	double r2, adj_r2;		/* R^2 and 1 - (1 - R^2)(rows - 1)/dof */
	double sigma;			/* residual standard error, sqrt(SSR / dof) */
	size_t dof;			/* rows - kept counters - 1 */
	size_t dropped[KA_PM_MAX];	/* counters in the order they were dropped */
	size_t ndropped;
	size_t rows;
};

/* Fit from rows x rates (row-major, rows x k: event_k / time) and power y.
 * alpha: significance level (0.05). -KA_ENODATA when there are not more
 * rows than parameters; -KA_EDOM for values that are not finite. */
int ka_pm_fit(const double *rates, size_t rows, size_t k, const double *y, double alpha,
	      struct ka_pm *m);

/* The model's power for one row of k rates. */
double ka_pm_predict(const struct ka_pm *m, const double *rates);

/* Mean and maximum of |predicted - measured| / measured over rows. */
int ka_pm_errors(const struct ka_pm *m, const double *rates, size_t rows, const double *y,
		 double *mean, double *max);

enum ka_goal { KA_GOAL_ENERGY, KA_GOAL_TIME, KA_GOAL_EDP };

/* The index of the best of n configurations by goal (energy, time, or
 * energy x delay). */
size_t ka_best_config(const double *time, const double *energy, size_t n, enum ka_goal goal);

/* The next configuration to try, as ePRO-MP's optimiser walks: from the
 * best measured one (best), one step (+1 first, then -1) in one parameter,
 * within [lo, hi] per parameter, that is not measured yet. cfg holds n
 * configurations of d integer parameters (row-major). Returns true and
 * fills next[d], or false when every neighbour is measured (converged). */
bool ka_next_config(const long *cfg, size_t n, size_t d, size_t best, const long *lo,
		    const long *hi, long *next);

#endif
