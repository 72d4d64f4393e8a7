/*
 * isoeff: Orii's efficiency without serial time and the tau-chi plane:
 * efficiency, effective processors, pooling of repeated runs, SPS
 * identification over a whole series, C1/C2/C3 steps, the C1/C3 boundary
 * and empirical isoefficiency functions. Orii's paper (docs/methods.md
 * names it) is the authority; karte's readings of it are in docs/methods.md.
 */
#ifndef KARTE_ISOEFF_H
#define KARTE_ISOEFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ka.h"

/* Orii eq. 5: eps = 1 - chi/tau = gamma/tau. */
double ka_efficiency(double tau, double chi);

/* Processors' worth of useful work: p * eps (Orii 5(a): 0.552 * 10 = 5.5). */
double ka_effective_p(int64_t p, double eps);

/* One measured run. */
struct ka_run {
	int64_t id;		/* the caller's, carried through pooling */
	int64_t p;		/* >= 1 */
	double n;		/* > 0 */
	double tau;		/* > 0, seconds */
	double chi;		/* 0..tau, seconds */
};

/* Repetitions of one (p, n) pooled: medians and min-max spread. */
struct ka_obs {
	int64_t p;
	double n;
	double tau, chi;	/* medians of the repeats */
	double tau_lo, tau_hi;	/* min and max of the repeats */
	double chi_lo, chi_hi;
	double eps;		/* ka_efficiency(tau, chi) of the medians */
	double eps_lo, eps_hi;	/* eps over the spread: 1 - chi_hi/tau_lo, 1 - chi_lo/tau_hi */
	size_t first, count;	/* its runs: runs[first .. first + count) after ka_pool */
};

/* Scratch bytes ka_pool needs for nruns runs. */
size_t ka_pool_work(size_t nruns);

/* Sort runs by (n, p, id) in place and pool equal (p, n) into obs (room
 * for nruns), sorted by (n, p). *nobs gets their number. -KA_EDOM when a
 * run is out of domain (p < 1, n <= 0, tau <= 0, chi outside 0..tau, not
 * finite); -KA_ESPACE when work_size is too small. */
int ka_pool(struct ka_run *runs, size_t nruns, struct ka_obs *obs, size_t *nobs, void *work,
	    size_t work_size);

enum ka_cclass { KA_C1 = 1, KA_C2 = 2, KA_C3 = 3 };

/* The class of a p-increase step at fixed n by the relative change of tau:
 * C2 when |dtau/tau_from| <= c2_rtol, C1 below (tau falls), C3 above. */
enum ka_cclass ka_classify_step(double tau_from, double tau_to, double c2_rtol);

/* "C1", "C2", "C3". */
const char *ka_cclass_name(enum ka_cclass c);

struct ka_iso_opts {
	double tol;		/* absolute tolerance on eps, "equal" within it (1e-9) */
	double c2_rtol;		/* C2 when |dtau/tau| <= this (0.02) */
};

#define KA_ISO_TOL_DEFAULT 1e-9
#define KA_C2_RTOL_DEFAULT 0.02

/* The tolerances from the measured spread of the points with two or more
 * runs (tolerance=auto): tol is the median half-width of their efficiency
 * spread (eps_lo .. eps_hi), at least KA_ISO_TOL_DEFAULT; c2_rtol the
 * median relative spread of their tau ((tau_hi - tau_lo) / tau), so a step
 * whose tau changes by no more than the runs of one point differ is C2.
 * scratch: room for 2 nobs doubles. Returns how many points were repeated;
 * with none, opts is left alone (the defaults stand). */
size_t ka_iso_auto_tolerance(const struct ka_obs *obs, size_t nobs, double *scratch,
			     struct ka_iso_opts *opts);

/* A p-increase step between consecutive measured p at fixed n. */
struct ka_step {
	size_t from, to;	/* obs indices, same n, p ascending */
	enum ka_cclass cls;
	double slope;		/* dchi/dtau, NAN when tau does not change */
	bool uncertain;		/* the class differs somewhere inside the spreads */
};

/* An SPS triple (p,n), (p,n'), (p',n'). */
struct ka_sps {
	size_t base, grown_n, grown_p;	/* obs indices */
	double efficiency;		/* eps(p,n) */
	bool equal;			/* eps(p',n') within tol of it; else "crossed" */
	double cross_p, cross_tau, cross_chi; /* where the step meets the base's line */
	enum ka_cclass arrow;		/* class of (p,n') -> (p',n') */
	enum ka_cclass step;		/* class of the last consecutive step ending at p' */
	bool uncertain;			/* the verdict flips somewhere inside the spreads */
};

/* A base and a larger n at the same p that is not an SPS: region (I)
 * without a crossing (candidate) or region (II) / on the line (not SPS). */
struct ka_pair {
	size_t base, grown_n;
	bool uncertain;
};

enum ka_base_status { KA_BASE_UNTESTED, KA_BASE_NOT_SPS, KA_BASE_CANDIDATE, KA_BASE_SPS };

/* Results stream out through callbacks (any may be NULL), so a series of
 * any size is analysed without allocating. With sps, candidate, not_sps and
 * base all NULL only the steps are worked out. */
struct ka_iso_visitor {
	void (*step)(const struct ka_step *s, void *ctx);
	void (*boundary)(size_t obs, void *ctx);	/* the C1/C3 boundary point of an n: the
							 * last reached through C1 steps, where a
							 * C2 or C3 step follows (none at an n
							 * where tau falls through its last p) */
	void (*sps)(const struct ka_sps *s, void *ctx);
	void (*candidate)(const struct ka_pair *c, void *ctx);
	void (*not_sps)(const struct ka_pair *c, void *ctx);
	/* every base once, after its pairs: the best status it reached */
	void (*base)(size_t obs, enum ka_base_status st, bool uncertain, void *ctx);
	void *ctx;
};

/* Scratch bytes ka_iso_analyze needs for nobs points. */
size_t ka_iso_work(size_t nobs);

/* SPS identification (Orii 3.3 with karte's reading: every p, every pair
 * n < n' measured at p; the first measured p' > p at n' whose eps is at most
 * eps(p,n) + tol) and the C-classes of every step, for obs sorted by (n, p)
 * as ka_pool leaves them. -KA_EDOM for unsorted or bad input, -KA_ESPACE
 * when work_size < ka_iso_work(nobs). */
int ka_iso_analyze(const struct ka_obs *obs, size_t nobs, const struct ka_iso_opts *opts,
		   void *work, size_t work_size, const struct ka_iso_visitor *v);

/* The empirical isoefficiency function of efficiency level: for each n
 * (obs sorted by (n, p)), the p at which eps falls to level as p grows,
 * interpolated linearly between measured p. Fills n_out, p_out (room for
 * the number of distinct n) and *m. */
int ka_iso_function(const struct ka_obs *obs, size_t nobs, double level, double *n_out,
		    double *p_out, size_t *m);

/* What grid a series' points form, for what Orii's analyses can say. */
enum ka_scaling {
	KA_SCALING_ONE_POINT,	/* one (p, n) */
	KA_SCALING_ONE_P,	/* several n at one p: nothing grows p */
	KA_SCALING_STRONG,	/* several p at one n: steps, but no n' for SPS */
	KA_SCALING_WEAK,	/* one n per p, n differing: no two n at one p */
	KA_SCALING_GRID,	/* some p with two or more n: the full analysis */
};

const char *ka_scaling_name(enum ka_scaling s);

/* The grid of nobs distinct (p, n) points, in any order. *n_per_p: n / p
 * when it is the same for every point (within 1e-9 relative), else NAN.
 * work: room for nobs int64_t (sorted there, O(nobs log nobs)). */
enum ka_scaling ka_scaling_kind(const struct ka_obs *obs, size_t nobs, int64_t *work,
				double *n_per_p);

/* Strong scaling without chi, the classic readings: at each n, with p0 its
 * smallest measured p, speedup = tau(p0, n) / tau(p, n) and efficiency =
 * p0 tau(p0, n) / (p tau(p, n)), relative to p0, not to a serial run.
 * obs: pooled points sorted by (n, p) (ka_pool; chi may be 0 throughout);
 * speedup[], efficiency[] and base_p[] (p0 of the point's n) get nobs
 * values. -KA_EDOM when obs is not so sorted or a tau is not above 0. */
int ka_strong_scaling(const struct ka_obs *obs, size_t nobs, double *speedup, double *efficiency,
		      int64_t *base_p);

/* Fit y = c * x^k by least squares on logarithms (GSL): *k, *c and the R^2
 * of the fit. x and y are overwritten with their logarithms. -KA_ENODATA
 * with fewer than 3 points, -KA_EDOM for values <= 0 or not finite. */
int ka_fit_power(double *x, double *y, size_t m, double *k, double *c, double *r2);

#endif
