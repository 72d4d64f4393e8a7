/*
 * powermodel: ePRO-MP's regression power model (docs/methods.md): power =
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

/* A configuration's value by goal (lower is better): energy, time or
 * energy x delay. */
double ka_goal_value(double time, double energy, enum ka_goal goal);

/* The index of the best of n configurations by goal (energy, time, or
 * energy x delay). */
size_t ka_best_config(const double *time, const double *energy, size_t n, enum ka_goal goal);

/* ePRO-MP's configuration search (§6.1, Fig. 6), replayed over the n
 * recorded configurations cfg (row-major, d integer parameters each,
 * distinct: the caller merges repeats) with their goal values (lower is
 * better). The walk starts at lo, measures every neighbour with one
 * parameter raised by one (within hi, in parameter order), moves to the
 * best of them while it improves on where it stands, and ends when none
 * does; the baseline (e.g. every parameter at its maximum) is executed last.
 * w->executed (caller's space for n indices) lists the recorded
 * configurations the walk executed, in its order, the baseline last; w->end
 * is where the walk stands; w->want_next says next[d] holds the
 * configuration the walk needs measured now (the baseline once the walk has
 * ended). order is scratch for n indices. Returns -KA_EDOM for bounds that
 * do not hold lo <= baseline <= hi, a value not finite or a repeated
 * configuration, -KA_ENODATA for n or d of 0. */
struct ka_walk {
	size_t *executed, nexecuted;
	size_t end;		/* SIZE_MAX until lo is measured */
	size_t baseline;	/* its index, or SIZE_MAX when not recorded */
	bool ended;
	bool want_next;
};

int ka_config_walk(const long *cfg, const double *value, size_t n, size_t d, const long *lo,
		   const long *hi, const long *baseline, size_t *order, struct ka_walk *w, long *next);

#endif
