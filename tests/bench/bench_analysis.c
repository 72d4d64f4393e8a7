/*
 * make bench, part 2: SPS identification and C-classes for one series of
 * 10,000 runs (100 p x 100 n), and the same analysis beside the naive
 * all-triples oracle on a 20 x 20 series (same answers checked, both times
 * and the ratio printed). Times are the median of ROUNDS in this process.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/iso_oracle.h"
#include "analysis/isoeff.h"
#include "core/mono.h"

#define ROUNDS 7

struct counts {
	size_t sps, cand, not, steps, sps_unc, sig;	/* sig: a checksum of the SPS triples */
};

static void c_sps(const struct ka_sps *s, void *ctx)
{
	struct counts *c = ctx;

	c->sps++;
	c->sps_unc += s->uncertain;
	c->sig += s->base * 31 + s->grown_n * 17 + s->grown_p * 7 + (size_t)s->arrow * 3 +
		  (size_t)s->step + s->equal;
}

static void c_cand(const struct ka_pair *p, void *ctx)
{
	struct counts *c = ctx;

	(void)p;
	c->cand++;
}

static void c_not(const struct ka_pair *p, void *ctx)
{
	struct counts *c = ctx;

	(void)p;
	c->not++;
}

static void c_step(const struct ka_step *s, void *ctx)
{
	struct counts *c = ctx;

	(void)s;
	c->steps++;
}

/* side x side runs from an overhead model with noise: gamma = W/p,
 * chi = a sqrt(p) + b log p, deterministic pseudo-random factors. */
static size_t series(struct ka_run *r, int side)
{
	unsigned s = 12345;
	size_t k = 0;
	int i, j;

	for (i = 0; i < side; i++)
		for (j = 0; j < side; j++) {
			double p = 1 + j, n = 1e4 * pow(1.08, i), noise;

			s = s * 1103515245u + 12345u;
			noise = 1 + 0.04 * ((s >> 16) % 1000) / 1000.0;
			r[k] = (struct ka_run){(int64_t)k, (int64_t)p, n,
					       n * 1e-5 / p * noise + 0.02 * sqrt(p) + 0.01 * log(p),
					       0.02 * sqrt(p) + 0.01 * log(p)};
			k++;
		}
	return k;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Pool and analyse (fast) or pool and run the oracle; median seconds. */
static double timed(int side, bool oracle, struct counts *out)
{
	size_t nruns = (size_t)side * side, nobs;
	struct ka_run *runs = malloc(nruns * sizeof(*runs));
	struct ka_obs *obs = malloc(nruns * sizeof(*obs));
	size_t wsize = ka_iso_work(nruns) > ka_pool_work(nruns) ? ka_iso_work(nruns) :
								   ka_pool_work(nruns);
	void *work = malloc(wsize);
	struct ka_iso_opts o = {KA_ISO_TOL_DEFAULT, KA_C2_RTOL_DEFAULT};
	double t[ROUNDS], t0;
	int k;

	for (k = 0; k < ROUNDS; k++) {
		struct counts c = {0};
		struct ka_iso_visitor v = {c_step, NULL, c_sps, c_cand, c_not, NULL, &c};

		series(runs, side);
		t0 = mono_s();
		if (ka_pool(runs, nruns, obs, &nobs, work, wsize))
			abort();
		if (oracle)
			iso_oracle(obs, nobs, &o, &v);
		else if (ka_iso_analyze(obs, nobs, &o, work, wsize, &v))
			abort();
		t[k] = mono_s() - t0;
		*out = c;
	}
	free(runs);
	free(obs);
	free(work);
	qsort(t, ROUNDS, sizeof(t[0]), cmp_double);
	return t[ROUNDS / 2];
}

static void c_base(size_t obs, enum ka_base_status st, bool uncertain, void *ctx)
{
	struct counts *c = ctx;

	c->sig += obs + (size_t)st + uncertain;
}

static void c_boundary(size_t i, void *ctx)
{
	struct counts *c = ctx;

	c->sig += i;
}

/* --iso-file F: the runs of F (lines p,n,tau,chi) pooled and analysed,
 * median ms of ROUNDS on one line: the in-process side of
 * tests/bench_http.py. The analysis is all that its answer holds: the
 * walk with every list (bases, steps, SPS, candidates, the C1/C3
 * boundary), each point's efficiency and effective p, the isoefficiency
 * functions at the nine default levels with their power laws, and what
 * grid the points form; karted writes the same results as JSON. */
static int iso_file(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1024, nruns = 0, nobs, wsize;
	struct ka_run *runs = malloc(cap * sizeof(*runs));
	struct ka_iso_opts o = {KA_ISO_TOL_DEFAULT, KA_C2_RTOL_DEFAULT};
	static const double levels[9] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
	double p, n, tau, chi, t[ROUNDS], t0, *ns, *ps;
	int64_t *kinds;
	struct ka_obs *obs;
	void *work;
	int k;

	if (!f || !runs)
		return 1;
	while (fscanf(f, "%lf,%lf,%lf,%lf", &p, &n, &tau, &chi) == 4) {
		if (nruns == cap && !(runs = realloc(runs, (cap *= 2) * sizeof(*runs))))
			return 1;
		runs[nruns] = (struct ka_run){(int64_t)nruns, (int64_t)p, n, tau, chi};
		nruns++;
	}
	fclose(f);
	wsize = ka_iso_work(nruns) > ka_pool_work(nruns) ? ka_iso_work(nruns) : ka_pool_work(nruns);
	obs = malloc(nruns * sizeof(*obs));
	work = malloc(wsize);
	ns = malloc((nruns + 1) * sizeof(*ns));
	ps = malloc((nruns + 1) * sizeof(*ps));
	kinds = malloc((nruns + 1) * sizeof(*kinds));
	if (!obs || !work || !ns || !ps || !kinds)
		return 1;
	for (k = 0; k < ROUNDS; k++) {
		struct counts c = {0};
		struct ka_iso_visitor v = {c_step, c_boundary, c_sps, c_cand, c_not, c_base, &c};
		double k_fit, c_fit, r2, npp, sum = 0;
		size_t i, m;

		t0 = mono_s();
		if (ka_pool(runs, nruns, obs, &nobs, work, wsize) || ka_iso_analyze(obs, nobs, &o, work, wsize, &v))
			return 1;
		for (i = 0; i < nobs; i++)
			sum += ka_effective_p(obs[i].p, obs[i].eps);
		for (i = 0; i < 9; i++) {	/* the answer's default levels */
			ka_iso_function(obs, nobs, levels[i], ns, ps, &m);
			if (ka_fit_power(ps, ns, m, &k_fit, &c_fit, &r2) == 0)
				sum += k_fit;
		}
		sum += ka_scaling_kind(obs, nobs, kinds, &npp);
		t[k] = mono_s() - t0;
		if (!(sum > 0) || c.sig == 0)
			return 1;
	}
	qsort(t, ROUNDS, sizeof(t[0]), cmp_double);
	printf("%.3f\n", t[ROUNDS / 2] * 1e3);
	free(runs);
	free(obs);
	free(work);
	free(ns);
	free(ps);
	free(kinds);
	return 0;
}

int main(int argc, char **argv)
{
	struct counts big, fast, slow;
	double tb, tf, ts;

	if (argc == 3 && !strcmp(argv[1], "--iso-file"))
		return iso_file(argv[2]);
	tb = timed(100, false, &big);

	printf("SPS + C-classes, one series of 10,000 runs (100 p x 100 n): %.1f ms (median of %d); "
	       "target < 50 ms\n", tb * 1e3, ROUNDS);
	printf("  %zu SPS triples, %zu candidates, %zu not SPS, %zu steps\n", big.sps, big.cand,
	       big.not, big.steps);
	tf = timed(20, false, &fast);
	ts = timed(20, true, &slow);
	if (fast.sps != slow.sps || fast.cand != slow.cand || fast.not != slow.not ||
	    fast.sig != slow.sig || fast.sps_unc != slow.sps_unc) {
		printf("  MISMATCH between the analysis and the oracle on 20 x 20\n");
		return 1;
	}
	printf("20 x 20 series: analysis %.3f ms, naive all-triples oracle %.3f ms (%.1fx); "
	       "same %zu SPS, %zu candidates, %zu not SPS\n", tf * 1e3, ts * 1e3, ts / tf, fast.sps,
	       fast.cand, fast.not);
	return tb < 0.050 ? 0 : 1;
}
