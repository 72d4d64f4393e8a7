/* Unit tests of analysis/isoeff.c: Orii's tau-chi analysis. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iso_oracle.h"
#include "analysis/isoeff.h"

#define MAXR 8192	/* records kept; more are counted only */

/* Everything the visitor reports, in order. */
struct found {
	const struct ka_obs *obs;
	struct ka_sps sps[MAXR];
	size_t nsps;
	struct ka_pair cand[MAXR], not[MAXR];
	size_t ncand, nnot;
	struct ka_step steps[MAXR];
	size_t nsteps;
	size_t boundary[MAXR];
	size_t nboundary;
	enum ka_base_status status[MAXR];
	bool base_unc[MAXR];
};

static void on_sps(const struct ka_sps *s, void *ctx)
{
	struct found *f = ctx;

	if (f->nsps < MAXR)
		f->sps[f->nsps] = *s;
	f->nsps++;
}

static void on_cand(const struct ka_pair *c, void *ctx)
{
	struct found *f = ctx;

	if (f->ncand < MAXR)
		f->cand[f->ncand] = *c;
	f->ncand++;
}

static void on_not(const struct ka_pair *c, void *ctx)
{
	struct found *f = ctx;

	if (f->nnot < MAXR)
		f->not[f->nnot] = *c;
	f->nnot++;
}

static void on_step(const struct ka_step *s, void *ctx)
{
	struct found *f = ctx;

	if (f->nsteps < MAXR)
		f->steps[f->nsteps] = *s;
	f->nsteps++;
}

static void on_boundary(size_t o, void *ctx)
{
	struct found *f = ctx;

	if (f->nboundary < MAXR)
		f->boundary[f->nboundary] = o;
	f->nboundary++;
}

static void on_base(size_t o, enum ka_base_status st, bool unc, void *ctx)
{
	struct found *f = ctx;

	if (o < MAXR) {
		f->status[o] = st;
		f->base_unc[o] = unc;
	}
}

static struct ka_iso_visitor visitor(struct found *f)
{
	return (struct ka_iso_visitor){on_step, on_boundary, on_sps, on_cand, on_not, on_base, f};
}

/* Pool runs and analyse them; obs (room for n) and f filled. */
static size_t analyse(struct ka_run *runs, size_t n, struct ka_obs *obs, struct found *f,
		      const struct ka_iso_opts *o)
{
	size_t nobs, wsize = ka_pool_work(n);
	void *work = malloc(wsize);
	struct ka_iso_visitor v = visitor(f);

	assert_int_equal(ka_pool(runs, n, obs, &nobs, work, wsize), 0);
	free(work);
	memset(f, 0, sizeof(*f));
	f->obs = obs;
	wsize = ka_iso_work(nobs);
	work = malloc(wsize);
	assert_int_equal(ka_iso_analyze(obs, nobs, o, work, wsize, &v), 0);
	free(work);
	return nobs;
}

static size_t find(const struct ka_obs *obs, size_t nobs, int64_t p, double n)
{
	size_t i;

	for (i = 0; i < nobs; i++)
		if (obs[i].p == p && obs[i].n == n)
			return i;
	fail_msg("no point p=%lld n=%g", (long long)p, n);
	return 0;
}

/* Run with efficiency eps at time tau: chi = (1 - eps) tau. */
static struct ka_run at(int64_t p, double n, double tau, double eps)
{
	return (struct ka_run){0, p, n, tau, (1 - eps) * tau};
}

/*
 * Orii's SP2 molecular dynamics example (section 5). The paper prints only
 * some numbers (eps 0.552 at p=10, n=39200; eps 0.334 at p=24, n=39200; eps
 * 0.5 at p=16, n=80000), so the tau values are constructed here to satisfy
 * every statement it makes:
 *  (a) n=80000 at p=10 lies in region (I); p 10 -> 16 at n=80000 crosses
 *      0.552 with a negative slope in the tau-chi plane: SPS in C1;
 *  (b) p=24: n=80000 raises eps above 0.334; p 24 -> 36 crosses it with a
 *      positive slope, tau rising: SPS in C3;
 *  (c) the C1/C3 boundary is p=24 at both n; eps=0.5 is reached at p=16 for
 *      n=80000.
 */
static size_t sp2(struct ka_run *r)
{
	size_t k = 0;

	r[k++] = at(10, 39200, 20, 0.552);
	r[k++] = at(16, 39200, 16, 0.45);
	r[k++] = at(24, 39200, 14, 0.334);
	r[k++] = at(36, 39200, 15, 0.22);
	r[k++] = at(10, 80000, 40, 0.62);
	r[k++] = at(16, 80000, 32, 0.50);
	r[k++] = at(24, 80000, 25, 0.40);
	r[k++] = at(36, 80000, 28, 0.30);
	return k;
}

static const struct ka_sps *sps_of(const struct found *f, size_t base, size_t gn)
{
	size_t i;

	for (i = 0; i < f->nsps; i++)
		if (f->sps[i].base == base && f->sps[i].grown_n == gn)
			return &f->sps[i];
	return NULL;
}

static void test_efficiency_and_effective_processors(void **state)
{
	(void)state;
	assert_true(fabs(ka_efficiency(20, 8.96) - 0.552) < 1e-12);
	assert_true(ka_efficiency(5, 0) == 1.0);
	assert_true(ka_efficiency(5, 5) == 0.0);
	/* Orii 5(a): about 55 % efficiency at p = 10 is about 5.5 processors */
	assert_true(fabs(ka_effective_p(10, 0.552) - 5.52) < 1e-12);
}

/* Strong scaling from tau alone (chi 0), relative to the smallest p at
 * each n: Orii's SP2 taus, worked by hand. n = 39200: p 10, 16, 24, 36 at
 * tau 20, 16, 14, 15: speedup 1, 1.25, 20/14, 20/15; efficiency 1,
 * 200/256 = 0.78125, 200/336, 200/540. n = 80000 from p = 10 at 40. */
static void test_strong_scaling_from_tau_alone(void **state)
{
	static const double taus[2][4] = {{20, 16, 14, 15}, {40, 32, 25, 28}};
	static const int64_t ps[4] = {10, 16, 24, 36};
	struct ka_obs obs[8] = {{0}}, bad[2] = {{0}};
	double sp[8], ef[8];
	int64_t p0[8];
	size_t i, k;

	(void)state;
	for (k = 0; k < 2; k++)
		for (i = 0; i < 4; i++) {
			obs[k * 4 + i].p = ps[i];
			obs[k * 4 + i].n = k ? 80000 : 39200;
			obs[k * 4 + i].tau = taus[k][i];
		}
	assert_int_equal(ka_strong_scaling(obs, 8, sp, ef, p0), 0);
	assert_true(sp[0] == 1 && ef[0] == 1 && p0[3] == 10);
	assert_true(fabs(sp[1] - 1.25) < 1e-15 && fabs(ef[1] - 0.78125) < 1e-15);
	assert_true(fabs(sp[2] - 20.0 / 14) < 1e-15 && fabs(ef[2] - 200.0 / 336) < 1e-15);
	assert_true(fabs(sp[3] - 20.0 / 15) < 1e-15 && fabs(ef[3] - 200.0 / 540) < 1e-15);
	assert_true(sp[4] == 1 && fabs(sp[7] - 40.0 / 28) < 1e-15 && fabs(ef[7] - 400.0 / 1008) < 1e-15);
	/* not sorted by (n, p), or a tau of 0: refused */
	bad[0] = obs[1];
	bad[1] = obs[0];
	assert_int_equal(ka_strong_scaling(bad, 2, sp, ef, p0), -KA_EDOM);
	bad[0] = obs[0];
	bad[1] = obs[1];
	bad[1].tau = 0;
	assert_int_equal(ka_strong_scaling(bad, 2, sp, ef, p0), -KA_EDOM);
}

static void test_sp2_example(void **state)
{
	static struct ka_run r[16];
	static struct ka_obs obs[16];
	static struct found f;
	size_t n = analyse(r, sp2(r), obs, &f, NULL), b, gn, i;
	const struct ka_sps *s;

	(void)state;
	assert_int_equal(n, 8);
	/* (a) base (10, 39200) at 0.552; (10, 80000) in region I; SPS at p' = 16 in C1 */
	b = find(obs, n, 10, 39200);
	gn = find(obs, n, 10, 80000);
	assert_true(fabs(obs[b].eps - 0.552) < 1e-12);
	assert_true(obs[gn].eps > obs[b].eps);
	s = sps_of(&f, b, gn);
	assert_non_null(s);
	assert_int_equal(obs[s->grown_p].p, 16);
	assert_false(s->equal);	/* crossed */
	assert_int_equal(s->arrow, KA_C1);
	assert_int_equal(s->step, KA_C1);
	assert_false(s->uncertain);
	/* negative slope of the crossing arrow */
	assert_true((obs[s->grown_p].chi - obs[gn].chi) / (obs[s->grown_p].tau - obs[gn].tau) < 0);
	/* crossing by hand: t = (0.448*40 - 15.2) / ((16 - 15.2) + 0.448*8) = 2.72 / 4.384 */
	assert_true(fabs(s->cross_p - (10 + 6 * 2.72 / 4.384)) < 1e-12);
	assert_true(fabs(s->cross_chi / s->cross_tau - 0.448) < 1e-12);
	assert_int_equal(f.status[b], KA_BASE_SPS);

	/* (b) base (24, 39200) at 0.334; SPS at p' = 36 with tau rising: C3 */
	b = find(obs, n, 24, 39200);
	s = sps_of(&f, b, find(obs, n, 24, 80000));
	assert_non_null(s);
	assert_true(fabs(s->efficiency - 0.334) < 1e-12);
	assert_int_equal(obs[s->grown_p].p, 36);
	assert_int_equal(s->arrow, KA_C3);
	assert_true((obs[s->grown_p].chi - obs[s->grown_n].chi) /
		    (obs[s->grown_p].tau - obs[s->grown_n].tau) > 0);

	/* (36, 39200): region I at n = 80000 but no larger p measured: candidate */
	b = find(obs, n, 36, 39200);
	assert_int_equal(f.ncand, 1);
	assert_int_equal(f.cand[0].base, b);
	assert_int_equal(f.status[b], KA_BASE_CANDIDATE);
	assert_int_equal(f.nnot, 0);
	assert_int_equal(f.nsps, 3);	/* bases p = 10, 16, 24 */

	/* (c) the C1/C3 boundary is p = 24 at both n */
	assert_int_equal(f.nboundary, 2);
	for (i = 0; i < f.nboundary; i++)
		assert_int_equal(obs[f.boundary[i]].p, 24);
	/* six steps: C1 C1 C3 at each n */
	assert_int_equal(f.nsteps, 6);
	assert_int_equal(f.steps[0].cls, KA_C1);
	assert_int_equal(f.steps[1].cls, KA_C1);
	assert_int_equal(f.steps[2].cls, KA_C3);
	/* eps = 0.5 at n = 80000 is reached at p = 16 */
	assert_true(fabs(obs[find(obs, n, 16, 80000)].eps - 0.5) < 1e-12);
}

static void test_sp2_isoefficiency_function(void **state)
{
	static struct ka_run r[16];
	static struct ka_obs obs[16];
	static struct found f;
	size_t n = analyse(r, sp2(r), obs, &f, NULL), m;
	double ns[4], ps[4];

	(void)state;
	/* eps = 0.5: at n = 39200 between p = 10 (0.552) and 16 (0.45); at
	 * n = 80000 exactly at p = 16 */
	assert_int_equal(ka_iso_function(obs, n, 0.5, ns, ps, &m), 0);
	assert_int_equal(m, 2);
	assert_true(ns[0] == 39200 && fabs(ps[0] - (10 + 6 * 0.052 / 0.102)) < 1e-12);
	assert_true(ns[1] == 80000 && ps[1] == 16);
}

/*
 * An analytic overhead model whose isoefficiency function is known:
 * gamma = W(n)/p with W = 1e-4 n, chi = 0.01 sqrt(p). Then chi/gamma =
 * 100 p^1.5 / n, so eps = 1/(1 + chi/gamma) is constant along n ~ p^1.5.
 */
static void test_analytic_isoefficiency_exponent(void **state)
{
	static struct ka_run r[8000];
	static struct ka_obs obs[8000];
	static struct found f;
	double ns[64], ps[64], k, c, r2;
	size_t cnt = 0, n, m, i;
	int64_t p;

	(void)state;
	for (i = 0; i < 13; i++) {	/* crossings of 0.5 at p = 21.5 ... 343 */
		double size = 1e4 * pow(2, (double)i / 2);

		for (p = 1; p <= 400; p++) {
			double gamma = 1e-4 * size / (double)p, chi = 0.01 * sqrt((double)p);

			r[cnt] = (struct ka_run){(int64_t)cnt, p, size, gamma + chi, chi};
			cnt++;
		}
	}
	n = analyse(r, cnt, obs, &f, NULL);
	assert_int_equal(ka_iso_function(obs, n, 0.5, ns, ps, &m), 0);
	assert_int_equal(m, 13);
	for (i = 0; i < m; i++)	/* eps = 0.5 where 100 p^1.5 = n */
		assert_true(fabs(ps[i] - pow(ns[i] / 100, 1 / 1.5)) / ps[i] < 0.01);
	assert_int_equal(ka_fit_power(ps, ns, m, &k, &c, &r2), 0);
	print_message("# analytic model: n ~ p^%.4f (R^2 %.6f), expected 1.5\n", k, r2);
	assert_true(fabs(k - 1.5) < 0.01);
	assert_true(r2 > 0.9999);
	/* every base whose eps rises with n is an SPS here */
	assert_true(f.nsps > 1000);
	assert_int_equal(f.nnot, 0);
}

static void test_edge_cases(void **state)
{
	static struct ka_obs obs[8];
	static struct found f;
	struct ka_run one[1] = {{1, 4, 100, 2, 0.5}};
	struct ka_run bounds[3] = {{1, 2, 100, 3, 0}, {2, 2, 200, 3, 3}, {3, 4, 200, 3, 0}};
	struct ka_run bad[1] = {{1, 0, 100, 2, 0.5}};
	struct ka_run bad2[1] = {{1, 2, 100, 2, 2.5}};
	size_t n, nobs;
	char work[256];
	double x[2] = {1, 2}, y[2] = {1, 2}, k, c, r2;

	(void)state;
	/* one point: no steps, no pairs, no boundary (no step follows it) */
	n = analyse(one, 1, obs, &f, NULL);
	assert_int_equal(n, 1);
	assert_int_equal(f.nsteps + f.nsps + f.ncand + f.nnot, 0);
	assert_int_equal(f.nboundary, 0);
	assert_int_equal(f.status[0], KA_BASE_UNTESTED);
	/* tau falling all the way (C1, C1): no boundary; rising at the end
	 * (C1, C3): the boundary at p = 2 */
	{
		struct ka_run fall[3] = {at(1, 100, 10, 0.1), at(2, 100, 6, 0.2), at(4, 100, 4, 0.3)};

		analyse(fall, 3, obs, &f, NULL);
		assert_int_equal(f.nsteps, 2);
		assert_int_equal(f.nboundary, 0);
		fall[2] = at(4, 100, 8, 0.5);
		analyse(fall, 3, obs, &f, NULL);
		assert_int_equal(f.nboundary, 1);
		assert_int_equal(obs[f.boundary[0]].p, 2);
		/* falling, then staying (C1, C2): tau stops falling at p = 2,
		 * more processors buy nothing, so the boundary is there too */
		fall[2] = at(4, 100, 6.05, 0.3);
		analyse(fall, 3, obs, &f, NULL);
		assert_int_equal(f.steps[1].cls, KA_C2);
		assert_int_equal(f.nboundary, 1);
		assert_int_equal(obs[f.boundary[0]].p, 2);
		/* staying from the start (C2, C1): the boundary at the first p */
		fall[1] = at(2, 100, 10.1, 0.2);
		analyse(fall, 3, obs, &f, NULL);
		assert_int_equal(f.steps[0].cls, KA_C2);
		assert_int_equal(f.nboundary, 1);
		assert_int_equal(obs[f.boundary[0]].p, 1);
	}

	/* chi = 0 (eps 1) and chi = tau (eps 0): (2,100) at eps 1 cannot be
	 * exceeded, so n = 200 at p = 2 (eps 0) is region II */
	n = analyse(bounds, 3, obs, &f, NULL);
	assert_true(obs[0].eps == 1.0);
	assert_int_equal(f.nnot, 1);
	assert_int_equal(f.status[find(obs, n, 2, 100)], KA_BASE_NOT_SPS);
	assert_int_equal(f.steps[0].cls, KA_C2);	/* tau 3 -> 3 */
	assert_true(isnan(f.steps[0].slope));

	/* out of domain, too little room */
	assert_int_equal(ka_pool(bad, 1, obs, &nobs, work, sizeof(work)), -KA_EDOM);
	assert_int_equal(ka_pool(bad2, 1, obs, &nobs, work, sizeof(work)), -KA_EDOM);
	assert_int_equal(ka_pool(one, 1, obs, &nobs, work, 1), -KA_ESPACE);
	assert_int_equal(ka_iso_analyze(obs, 3, NULL, work, 8, NULL), -KA_ESPACE);
	assert_int_equal(ka_fit_power(x, y, 2, &k, &c, &r2), -KA_ENODATA);
}

static void test_on_the_line_is_not_sps(void **state)
{
	static struct ka_obs obs[8];
	static struct found f;
	struct ka_run r[3] = {at(4, 100, 10, 0.5), at(4, 200, 20, 0.5), at(8, 200, 15, 0.3)};
	struct ka_iso_opts o = {1e-9, 0.02};

	(void)state;
	analyse(r, 3, obs, &f, &o);
	assert_int_equal(f.nsps, 0);
	assert_int_equal(f.nnot, 1);	/* eps equal at fixed p: region II by the reading */
	/* with a tolerance, "equal" crossing: (4,200) above by 0.05, (8,200) within 0.01 */
	r[1] = at(4, 200, 20, 0.55);
	r[2] = at(8, 200, 15, 0.495);
	o.tol = 0.01;
	analyse(r, 3, obs, &f, &o);
	assert_int_equal(f.nsps, 1);
	assert_true(f.sps[0].equal);
}

/*
 * Repeats: three runs per point with medians at the exact values. A spread
 * that straddles the base's line makes the verdict uncertain; one run per
 * point never is.
 */
static void test_noisy_repeats(void **state)
{
	static struct ka_run r[64];
	static struct ka_obs obs[16];
	static struct found f;
	static const struct {
		int64_t p;
		double n, tau, eps, spread;	/* relative spread of chi */
	} pts[] = {
		{2, 100, 10, 0.60, 0.02}, {2, 200, 20, 0.61, 0.02}, {4, 200, 14, 0.55, 0.0},
		{2, 400, 30, 0.70, 0.0}, {4, 400, 25, 0.62, 0.0}, {8, 400, 24.8, 0.50, 0.0},
	};
	size_t k = 0, i, j, n, b;
	const struct ka_sps *s;

	(void)state;
	for (i = 0; i < sizeof(pts) / sizeof(pts[0]); i++)
		for (j = 0; j < 3; j++) {
			double chi = (1 - pts[i].eps) * pts[i].tau;
			double d = (j == 0 ? -1 : j == 1 ? 0 : 1) * pts[i].spread;

			r[k] = (struct ka_run){(int64_t)k, pts[i].p, pts[i].n, pts[i].tau, chi * (1 + d)};
			k++;
		}
	n = analyse(r, k, obs, &f, NULL);
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++)
		assert_int_equal(obs[i].count, 3);
	/* medians are the exact values */
	b = find(obs, n, 2, 100);
	assert_true(fabs(obs[b].eps - 0.60) < 1e-12);
	assert_true(obs[b].eps_lo < 0.60 && obs[b].eps_hi > 0.60);
	/* (2,100) -> (2,200) -> (4,200): SPS by the medians, but the spreads of
	 * eps(2,100) and eps(2,200) overlap: uncertain */
	s = sps_of(&f, b, find(obs, n, 2, 200));
	assert_non_null(s);
	assert_true(s->uncertain);
	/* (2,200) -> (2,400) -> (4,400)? 0.62 > 0.61: not yet; (8,400) at 0.50
	 * crosses, and no spread at n = 400 ... but the base (2,200) has one */
	s = sps_of(&f, find(obs, n, 2, 200), find(obs, n, 2, 400));
	assert_non_null(s);
	assert_int_equal(obs[s->grown_p].p, 8);
	/* eps_hi(2,200) = 1 - 0.39*20*0.98/20 = 0.6178 < 0.62 = eps(4,400): an
	 * earlier crossing is impossible; 0.50 is far below: certain */
	assert_false(s->uncertain);
	/* the step (4,400) -> (8,400): tau 25 -> 24.8 is -0.8 %, C2 */
	for (i = 0; i < f.nsteps; i++)
		if (obs[f.steps[i].from].n == 400 && obs[f.steps[i].from].p == 4)
			assert_int_equal(f.steps[i].cls, KA_C2);
}

static void test_step_class_uncertain_inside_spread(void **state)
{
	static struct ka_obs obs[8];
	static struct found f;
	/* tau 10 -> 9.7 (-3 %, C1), but the repeats of the second reach 9.9 (-1 %, C2) */
	struct ka_run r[4] = {{1, 2, 100, 10, 1}, {2, 4, 100, 9.7, 1}, {3, 4, 100, 9.5, 1},
			      {4, 4, 100, 9.9, 1}};

	(void)state;
	analyse(r, 4, obs, &f, NULL);
	assert_int_equal(f.nsteps, 1);
	assert_int_equal(f.steps[0].cls, KA_C1);
	assert_true(f.steps[0].uncertain);
	assert_int_equal(obs[1].count, 3);
	assert_true(obs[1].tau == 9.7 && obs[1].tau_lo == 9.5 && obs[1].tau_hi == 9.9);
}

/* A 20 x 20 series with holes and repeats: the fast analysis and the naive
 * oracle give the same verdicts. */
static void random_series(struct ka_run *r, size_t *cnt, unsigned seed, int side)
{
	int i, j, k;

	srand(seed);
	*cnt = 0;
	for (i = 0; i < side; i++)
		for (j = 0; j < side; j++) {
			int reps = 1 + rand() % 3;

			if (rand() % 7 == 0)
				continue;	/* not measured */
			for (k = 0; k < reps; k++) {
				double p = 1 + j, n = 1000 * (1 + i);
				double gamma = n / p * 1e-3 * (1 + 0.05 * (rand() / (double)RAND_MAX));
				double chi = 0.05 * sqrt(p) * (1 + 0.3 * (rand() / (double)RAND_MAX));

				r[*cnt] = (struct ka_run){(int64_t)*cnt, (int64_t)p, n, gamma + chi, chi};
				(*cnt)++;
			}
		}
}

static int cmp_sps(const void *a, const void *b)
{
	const struct ka_sps *x = a, *y = b;

	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return (x->grown_n > y->grown_n) - (x->grown_n < y->grown_n);
}

static int cmp_pair(const void *a, const void *b)
{
	const struct ka_pair *x = a, *y = b;

	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return (x->grown_n > y->grown_n) - (x->grown_n < y->grown_n);
}

static void test_fast_equals_oracle(void **state)
{
	static struct ka_run r[2000];
	static struct ka_obs obs[2000];
	static struct found fast, slow;
	struct ka_iso_opts o = {1e-9, 0.02};
	struct ka_iso_visitor v = visitor(&slow);
	size_t cnt, n, i;
	unsigned seed;

	(void)state;
	for (seed = 1; seed <= 5; seed++) {
		random_series(r, &cnt, seed, 20);
		n = analyse(r, cnt, obs, &fast, &o);
		memset(&slow, 0, sizeof(slow));
		iso_oracle(obs, n, &o, &v);
		assert_int_equal(fast.nsps, slow.nsps);
		assert_int_equal(fast.ncand, slow.ncand);
		assert_int_equal(fast.nnot, slow.nnot);
		assert_true(fast.nsps > 0 && fast.nnot + fast.ncand > 0);
		qsort(fast.sps, fast.nsps, sizeof(fast.sps[0]), cmp_sps);
		qsort(slow.sps, slow.nsps, sizeof(slow.sps[0]), cmp_sps);
		for (i = 0; i < fast.nsps; i++) {
			assert_int_equal(fast.sps[i].base, slow.sps[i].base);
			assert_int_equal(fast.sps[i].grown_n, slow.sps[i].grown_n);
			assert_int_equal(fast.sps[i].grown_p, slow.sps[i].grown_p);
			assert_int_equal(fast.sps[i].equal, slow.sps[i].equal);
			assert_int_equal(fast.sps[i].arrow, slow.sps[i].arrow);
			assert_int_equal(fast.sps[i].step, slow.sps[i].step);
			assert_int_equal(fast.sps[i].uncertain, slow.sps[i].uncertain);
		}
		qsort(fast.cand, fast.ncand, sizeof(fast.cand[0]), cmp_pair);
		qsort(slow.cand, slow.ncand, sizeof(slow.cand[0]), cmp_pair);
		qsort(fast.not, fast.nnot, sizeof(fast.not[0]), cmp_pair);
		qsort(slow.not, slow.nnot, sizeof(slow.not[0]), cmp_pair);
		for (i = 0; i < fast.ncand; i++)
			assert_true(cmp_pair(&fast.cand[i], &slow.cand[i]) == 0 &&
				    fast.cand[i].uncertain == slow.cand[i].uncertain);
		for (i = 0; i < fast.nnot; i++)
			assert_true(cmp_pair(&fast.not[i], &slow.not[i]) == 0 &&
				    fast.not[i].uncertain == slow.not[i].uncertain);
	}
}

/* tolerance=auto by hand: three repeated points with efficiency spreads
 * 0.02, 0.06, 0.04 wide (half-widths 0.01, 0.03, 0.02: median 0.02) and
 * tau spreads 1, 4, 2 over tau 10 (median 0.2); a single run counts not. */
static void test_auto_tolerance_from_spread(void **state)
{
	struct ka_obs obs[4] = {
		{.p = 1, .n = 1, .tau = 10, .tau_lo = 9.5, .tau_hi = 10.5, .eps_lo = 0.5, .eps_hi = 0.52, .count = 3},
		{.p = 2, .n = 1, .tau = 10, .tau_lo = 8, .tau_hi = 12, .eps_lo = 0.4, .eps_hi = 0.46, .count = 2},
		{.p = 4, .n = 1, .tau = 10, .tau_lo = 9, .tau_hi = 11, .eps_lo = 0.3, .eps_hi = 0.34, .count = 5},
		{.p = 8, .n = 1, .tau = 10, .tau_lo = 1, .tau_hi = 100, .eps_lo = 0, .eps_hi = 1, .count = 1},
	};
	struct ka_iso_opts o = {KA_ISO_TOL_DEFAULT, KA_C2_RTOL_DEFAULT};
	double scratch[8];

	(void)state;
	assert_int_equal(ka_iso_auto_tolerance(obs, 4, scratch, &o), 3);
	assert_true(fabs(o.tol - 0.02) < 1e-12);
	assert_true(fabs(o.c2_rtol - 0.2) < 1e-12);
	/* identical repeats: the tolerance stays at its floor */
	obs[0].eps_hi = obs[0].eps_lo;
	obs[1].eps_hi = obs[1].eps_lo;
	obs[2].eps_hi = obs[2].eps_lo;
	assert_int_equal(ka_iso_auto_tolerance(obs, 4, scratch, &o), 3);
	assert_true(o.tol == KA_ISO_TOL_DEFAULT);
	/* nothing repeated: the defaults stand */
	o = (struct ka_iso_opts){KA_ISO_TOL_DEFAULT, KA_C2_RTOL_DEFAULT};
	assert_int_equal(ka_iso_auto_tolerance(obs + 3, 1, scratch, &o), 0);
	assert_true(o.tol == KA_ISO_TOL_DEFAULT && o.c2_rtol == KA_C2_RTOL_DEFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_efficiency_and_effective_processors),
		cmocka_unit_test(test_sp2_example),
		cmocka_unit_test(test_strong_scaling_from_tau_alone),
		cmocka_unit_test(test_sp2_isoefficiency_function),
		cmocka_unit_test(test_analytic_isoefficiency_exponent),
		cmocka_unit_test(test_edge_cases),
		cmocka_unit_test(test_on_the_line_is_not_sps),
		cmocka_unit_test(test_noisy_repeats),
		cmocka_unit_test(test_step_class_uncertain_inside_spread),
		cmocka_unit_test(test_fast_equals_oracle),
		cmocka_unit_test(test_auto_tolerance_from_spread),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("isoeff", tests, NULL, NULL);
}
