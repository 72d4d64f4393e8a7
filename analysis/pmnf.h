/*
 * pmnf: scaling models in the performance-model normal form, chosen the way
 * Extra-P's default modelers choose them (Calotoiu et al., SC'13; Extra-P
 * 4.2): f(x) = c0 + sum_k c_k * prod x_l^(i_kl) * log2(x_l)^(j_kl).
 * Single parameter: one term and a constant over 42 exponent pairs, picked
 * by leave-one-out cross-validated SMAPE. Two parameters: single-parameter
 * models along the longest lines of points, combined additively and
 * multiplicatively. The values modelled are each point's mean.
 */
#ifndef KARTE_PMNF_H
#define KARTE_PMNF_H

#include <stddef.h>

#include "ka.h"

#define KA_PMNF_PARAMS 2	/* p and n */
#define KA_PMNF_TERMS 3		/* at most, besides the constant (a*b + a) */
#define KA_PMNF_PAIRS 42	/* Extra-P's default exponent pairs */
#define KA_PMNF_EPSILON 5e-4	/* least term contribution; constant cleaning */
#define KA_PMNF_NOISE 1e-9	/* a term this small against the largest is rounding noise */

/* x_param^(num/den) * log2(x_param)^log */
struct ka_pmnf_factor {
	int param;
	int num, den;
	int log;
};

struct ka_pmnf_term {
	double coef;
	int nfactors;
	struct ka_pmnf_factor f[KA_PMNF_PARAMS];
};

struct ka_pmnf_model {
	int nparams;
	double constant;
	int nterms;		/* 0: the constant model */
	struct ka_pmnf_term t[KA_PMNF_TERMS];
	double rss;		/* single parameter: cross-validated; two: in-sample */
	double smape;		/* percent, the same way */
	double adj_r2;		/* 1 for the constant model */
	size_t points;		/* the number of coordinates modelled */
	int dof;		/* points - factors - 1 (adj_r2's degrees of freedom) */
};

/* Exponent pair k (0 <= k < KA_PMNF_PAIRS) in Extra-P's order: x^(num/den)
 * * log2(x)^log. */
void ka_pmnf_pair(int k, int *num, int *den, int *log);

/* The single-parameter model of y over x (m points, each y the mean of
 * its repetitions; x need not be sorted). work: room for 3 m doubles.
 * Logarithmic pairs only when every x >= 1. -KA_EDOM for x <= 0 or a
 * value that is not finite; -KA_ENODATA for m = 0. */
int ka_pmnf_single(const double *x, const double *y, size_t m, double *work,
		   struct ka_pmnf_model *out);

/* The two-parameter model of m points: x[2 i], x[2 i + 1] the coordinates
 * of point i, y[i] its mean. Allocates its scratch; -KA_ESPACE when that
 * fails. Errors as ka_pmnf_single. */
int ka_pmnf_multi(const double *x, const double *y, size_t m, struct ka_pmnf_model *out);

/* Rounding noise out of a fitted model: the constant, and each term, whose
 * largest magnitude over the m points x (nparams coordinates each) is
 * below KA_PMNF_NOISE times the largest term's (the constant's included)
 * is 0, the term left out (-6.9e-18 + 0.001 * log2(p)^2 becomes
 * 0.001 * log2(p)^2). The figures of fit are left as they are. */
void ka_pmnf_drop_noise(struct ka_pmnf_model *mdl, const double *x, size_t m);

/* The model's value at x (nparams coordinates). */
double ka_pmnf_eval(const struct ka_pmnf_model *mdl, const double *x);

/* The value of term k at x, coefficient included. */
double ka_pmnf_term_eval(const struct ka_pmnf_term *t, const double *x);

/* The model as text, e.g. "0.52 + 3.1e-05 * p^(3/2) * log2(p)^(2)" with
 * names[param] for the parameters; NUL-terminated, truncated to size. */
void ka_pmnf_format(const struct ka_pmnf_model *mdl, const char *const *names, char *buf,
		    size_t size);

/* How a model grows as parameter param grows (the others held): the term
 * that dominates, the largest exponent of param first and then the
 * largest log exponent, with per set the model divided by param (a
 * resource model read as the metric again, exponents one less). Written
 * as ka_pmnf_format writes a term without its coefficient: "constant",
 * "log2(p)", "p^(1/2) * log2(p)", "p"; "falls" when the dominant exponent
 * is below 0 or its coefficient is. Returns KA_GROWS, KA_FLAT or KA_FALLS. */
enum ka_growth { KA_FALLS = -1, KA_FLAT = 0, KA_GROWS = 1 };

enum ka_growth ka_pmnf_growth(const struct ka_pmnf_model *mdl, int param, const char *name, int per,
			      char *buf, size_t size);

/* ---- the models in Orii's method ------------------------------------------
 * Over (p, n) (parameter 0 is p, 1 is n) a model of the work W = p * gamma
 * and one of the overhead To = p * chi give the efficiency eps = W / (W +
 * To), and a model of the resource R = p * tau gives tau = R / p. Extra-P's
 * exponents are never negative, so these products, which grow with p, are
 * what it models well; gamma and tau themselves shrink like 1/p. */

/* The problem size n in [nlo, nhi] at which the efficiency at p reaches
 * level (0 < level < 1): the first n, scanning upwards, where (1 - level) W
 * - level To changes sign, refined by bisection on log n. -KA_ENODATA when
 * it does not change sign in the range; -KA_EDOM for bad arguments. */
int ka_pmnf_iso_n(const struct ka_pmnf_model *work, const struct ka_pmnf_model *overhead,
		  double p, double level, double nlo, double nhi, double *n);

/* Where tau = R(p, n) / p stops falling as p grows from plo to phi: the
 * first local minimum (C1 turning into C2/C3), from a geometric scan
 * refined by golden section on log p. r has one parameter (p; n ignored)
 * or two. *p = plo when tau rises from the start. -KA_ENODATA when tau
 * falls over the whole range; -KA_EDOM for bad arguments. */
int ka_pmnf_tau_turn(const struct ka_pmnf_model *r, double n, double plo, double phi, double *p);

/* The least-squares coefficients' covariance for a confidence band: the
 * model's columns (1 and each term without its coefficient) at the m
 * points, with var[i] the variance of point i's mean (its repetitions'
 * s^2 / r) or, when var is NULL, the residual variance RSS_in / (m - k)
 * for every point. cov: room for (nterms + 1)^2. -KA_ENODATA when m <=
 * nterms + 1 without var. */
int ka_pmnf_covariance(const struct ka_pmnf_model *mdl, const double *x, const double *y,
		       const double *var, size_t m, double *cov);

/* The standard error of the model's value at x from cov. */
double ka_pmnf_se(const struct ka_pmnf_model *mdl, const double *cov, const double *x);

/* A confidence band at level (0.95): from the spread of repetitions when
 * every point has them (var set: Student's t with the pooled degrees of
 * freedom, nvalues - m, the sum of r - 1; two runs a point give a wide
 * band, as they should), otherwise from the residuals when there are more
 * points than coefficients, otherwise none. The band at x is
 * q * ka_pmnf_se(mdl, cov, x). */
enum ka_band_from { KA_BAND_NONE, KA_BAND_REPETITIONS, KA_BAND_RESIDUALS };

struct ka_band {
	enum ka_band_from from;
	double q;		/* the t quantile of the level */
	double *cov;		/* (nterms + 1)^2, the caller's room; unset with none */
};

/* var: each point's variance of its mean, or NULL when not every point is
 * repeated. b->cov must have room for (nterms + 1)^2. */
enum ka_band_from ka_pmnf_band(const struct ka_pmnf_model *mdl, const double *x, const double *y,
			       const double *var, size_t m, size_t nvalues, double level,
			       struct ka_band *b);

/* "repetitions", "residuals" or "none". */
const char *ka_band_name(enum ka_band_from from);

#endif
