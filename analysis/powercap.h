/*
 * powercap: Inadomi et al.'s runtime under a power cap (docs/methods.md). Module i
 * (a CPU and its DRAM) draws P_i^max at f_max and P_i^min at f_min, power
 * and frequency linear in one a_i in [0, 1] (eqs. 2, 3). A budget is split
 * uniformly (budget/m each) or variation-aware (one a for all); normalised
 * time r(f) = T(f)/T(f_max) comes from a 2-point or an approximate 3-point
 * inverse model; the capped time is T0 * max_i r(f_i) (eq. 1).
 */
#ifndef KARTE_POWERCAP_H
#define KARTE_POWERCAP_H

#include <stdbool.h>
#include <stddef.h>

#include "ka.h"

struct ka_module {
	double p_max, p_min;	/* W at f_max and at f_min */
};

struct ka_alloc {		/* one module's share of a budget */
	double a, a_raw;	/* a clamped to [0, 1], and as computed */
	double f;		/* MHz */
	double p;		/* W: the cap it gets (uniform) or draws (variation-aware) */
	double draw;		/* W it draws at a (eq. 2): below a uniform cap when clamped */
	bool clamped;		/* a_raw was outside [0, 1] */
};

/* Uniform cap: each module gets budget/m; a_i = (budget/m - P_i^min) /
 * (P_i^max - P_i^min). *infeasible when some module cannot meet its cap
 * (a_raw < 0) or cannot use it (a_raw > 1 is only reported). */
int ka_alloc_uniform(const struct ka_module *m, size_t n, double budget, double f_max,
		     double f_min, struct ka_alloc *out, bool *infeasible);

/* Variation-aware cap: a = (budget - sum P^min) / (sum P^max - sum P^min)
 * for every module; power differs per module, frequency is the same. */
int ka_alloc_aware(const struct ka_module *m, size_t n, double budget, double f_max,
		   double f_min, struct ka_alloc *out, bool *infeasible);

/* An inverse model r(f) = c/f + d. */
struct ka_inverse {
	double c, d;
};

/* Through two points (f1, r1), (f2, r2); -KA_EDOM when f1 == f2. */
int ka_inverse_fit(double f1, double r1, double f2, double r2, struct ka_inverse *m);
double ka_inverse_eval(const struct ka_inverse *m, double f);

/* The approximate 3-point model: a high-frequency curve through (f_max,
 * r_max) and (f_high, r_high), a low one through (f_low, r_low) and
 * (f_min, r_min), switching at their intersection f3 (NAN when the curves
 * are parallel: then r is the larger of the two). */
struct ka_three_point {
	struct ka_inverse high, low;
	double f3;
};

int ka_three_point_fit(const double f[4], const double r[4], struct ka_three_point *m);
double ka_three_point_eval(const struct ka_three_point *m, double f);

/* Inadomi's own 3-point model: a curve through (f_max, r_max) and (f3, r3),
 * another through (f3, r3) and (f_min, r_min), switching at f3. -KA_EDOM
 * unless f_min < f3 < f_max. */
int ka_three_point_through(double f_max, double r_max, double f3, double r3, double f_min,
			   double r_min, struct ka_three_point *m);

/* The 3-point model whose f3, among the measured frequencies strictly
 * between f[lo] (f_min) and f[hi] (f_max), fits the n samples (f, r) best
 * by the sum of squared errors (Fig. 6); ties go to the first. -KA_ENODATA
 * when no sample lies inside. */
int ka_best_f3(const double *f, const double *r, size_t n, size_t hi, size_t lo,
	       struct ka_three_point *best);

/* How a model's predictions pred fit the measurements meas (n >= 2):
 * Pearson's r (GSL) and R^2 = 1 - SSE/SST (NAN when the measurements are
 * all equal). -KA_EDOM for values that are not finite. */
int ka_fit_quality(const double *pred, const double *meas, size_t n, double *pearson_r, double *r2);

/* Fig. 3's cycle ratio: t(f_min) f_min / (t(f_max) f_max), from normalised
 * times r (1 when the time is all cycles, less when memory-bound). */
double ka_cycle_ratio(double f_max, double r_max, double f_min, double r_min);

/* A module's P^max and P^min from a power variation table: its ratios to
 * the system's mean times the application's mean powers. */
struct ka_module ka_pvt_module(double ratio_max, double ratio_min, double mean_p_max,
			       double mean_p_min);

/* ---- a whole study, as POST /api/v1/analysis/powercap runs it ---- */

/* The samples the models take: the highest and lowest frequency (hi, lo)
 * and the two next inside them (hi2, lo2), or the ones at f_high and
 * f_low (NAN: the neighbours). 0; 1 when f_high, 2 when f_low is not a
 * measured frequency strictly between; -KA_EDOM for fewer than two
 * samples or no two frequencies. */
struct ka_pc_samples {
	size_t hi, lo, hi2, lo2;
};

int ka_pc_pick(const double *f, size_t n, double f_high, double f_low, struct ka_pc_samples *s);

/* The models of r(f) the samples give, and how each fits them: the
 * two-point model always; the approximate three-point model from four
 * distinct samples; the best-f3 model when a sample lies inside.
 * quality[k] for k = two, three, best: Pearson's r and R^2 (NAN when
 * undefined or the model is missing). */
enum { KA_PC_TWO, KA_PC_THREE, KA_PC_BEST, KA_PC_MODELS };

struct ka_pc_models {
	struct ka_inverse two;
	struct ka_three_point three, best;
	bool have_three, have_best;
	double pearson[KA_PC_MODELS], r2[KA_PC_MODELS];
	double cycle_ratio;	/* Fig. 3 */
};

/* pred: room for n doubles (scratch). 0, or -KA_EDOM (no two frequencies). */
int ka_pc_models_fit(const double *f, const double *r, size_t n, const struct ka_pc_samples *s,
		     double *pred, struct ka_pc_models *m);

/* One power budget under both caps: each module's allocation (au, av:
 * room for nm), and the largest module's r under each model, which times
 * t0 is the capped run's time (eq. 1). -KA_EDOM for a budget that is not
 * positive. */
struct ka_pc_cap {
	bool infeasible;
	double r_two, r_three;	/* r_three NAN without the three-point model */
	double draw;		/* W the modules draw, in all */
};

int ka_pc_budget(const struct ka_module *mod, size_t nm, double budget, double f_max, double f_min,
		 const struct ka_pc_models *m, struct ka_alloc *au, struct ka_alloc *av,
		 struct ka_pc_cap *uniform, struct ka_pc_cap *aware);

#endif
