/* Unit tests of analysis/powercap.c, trace.c and powermodel.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "analysis/powercap.h"
#include "analysis/powermodel.h"
#include "analysis/trace.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static const struct ka_module four[4] = {{100, 50}, {110, 55}, {90, 45}, {120, 60}};

/* Four modules and a 360 W budget, by hand: each gets 90 W uniformly, so
 * a = 40/50, 35/55, 45/45, 30/60 and f = 1200 + 1500 a; variation-aware
 * a = (360 - 210)/(420 - 210) = 5/7 for all. */
static void test_four_modules_by_hand(void **state)
{
	struct ka_alloc u[4], v[4];
	bool inf;
	double sum = 0;
	size_t i;

	(void)state;
	assert_int_equal(ka_alloc_uniform(four, 4, 360, 2700, 1200, u, &inf), 0);
	assert_false(inf);
	NEAR(u[0].a, 0.8, 1e-12);
	NEAR(u[1].a, 35.0 / 55, 1e-12);
	NEAR(u[2].a, 1.0, 1e-12);
	NEAR(u[3].a, 0.5, 1e-12);
	NEAR(u[0].f, 2400, 1e-9);
	NEAR(u[3].f, 1950, 1e-9);
	NEAR(u[1].p, 90, 1e-12);
	assert_int_equal(ka_alloc_aware(four, 4, 360, 2700, 1200, v, &inf), 0);
	assert_false(inf);
	for (i = 0; i < 4; i++) {
		NEAR(v[i].a, 5.0 / 7, 1e-12);
		NEAR(v[i].f, 1200 + 1500 * 5.0 / 7, 1e-9);
		sum += v[i].p;
	}
	NEAR(sum, 360, 1e-9);	/* the whole budget, split by the modules' own ranges */
	NEAR(v[3].p, 5.0 / 7 * 60 + 60, 1e-12);
}

static void test_clamping_is_reported(void **state)
{
	struct ka_alloc u[4];
	bool inf;

	(void)state;
	assert_int_equal(ka_alloc_uniform(four, 4, 160, 2700, 1200, u, &inf), 0);
	assert_true(inf);	/* 40 W each is below every module's P^min */
	assert_true(u[0].clamped && u[0].a == 0 && u[0].a_raw < 0);
	assert_int_equal(ka_alloc_aware(four, 4, 1000, 2700, 1200, u, &inf), 0);
	assert_false(inf);	/* more than all can draw: a = 1, reported */
	assert_true(u[0].clamped && u[0].a == 1 && u[0].a_raw > 1);
	assert_int_equal(ka_alloc_aware(four, 4, 100, 2700, 1200, u, &inf), 0);
	assert_true(inf);
	assert_int_equal(ka_alloc_uniform(four, 0, 100, 2700, 1200, u, &inf), -KA_EDOM);
}

/* 2-point model through (2700, 1) and (1200, 1.8): r = 1728/f + 0.36. The
 * uniform cap's slowest module runs at 1950 MHz: T = T0 * r(1950). */
static void test_two_point_and_predicted_time(void **state)
{
	struct ka_inverse m;
	struct ka_alloc u[4], v[4];
	double ru = 0, rv = 0;
	bool inf;
	size_t i;

	(void)state;
	assert_int_equal(ka_inverse_fit(2700, 1.0, 1200, 1.8, &m), 0);
	NEAR(m.c, 1728, 1e-9);
	NEAR(m.d, 0.36, 1e-12);
	ka_alloc_uniform(four, 4, 360, 2700, 1200, u, &inf);
	ka_alloc_aware(four, 4, 360, 2700, 1200, v, &inf);
	for (i = 0; i < 4; i++) {
		ru = fmax(ru, ka_inverse_eval(&m, u[i].f));
		rv = fmax(rv, ka_inverse_eval(&m, v[i].f));
	}
	NEAR(ru, 1728 / 1950.0 + 0.36, 1e-12);
	assert_true(rv < ru);	/* the variation-aware cap is faster here */
	assert_int_equal(ka_inverse_fit(2000, 1, 2000, 2, &m), -KA_EDOM);
	/* 2000 and 2000 (1 + 1e-12) MHz are one frequency, not a curve of slope ~1e15 */
	assert_int_equal(ka_inverse_fit(2000, 1, 2000 * (1 + 1e-12), 2, &m), -KA_EDOM);
	assert_int_equal(ka_inverse_fit(2000, 1, 2000 * (1 + 1e-6), 2, &m), 0);
}

/* Two exact inverse curves meeting at 1800 MHz are recovered from four
 * frequencies, and so is their intersection. */
static void test_three_point_recovers_curves(void **state)
{
	const double ch = 2000, dh = 1 - 2000 / 2700.0, cl = 3000, dl = dh + (ch - cl) / 1800;
	double f[4] = {2700, 2400, 1500, 1200}, r[4];
	struct ka_three_point m;

	(void)state;
	r[0] = ch / f[0] + dh;
	r[1] = ch / f[1] + dh;
	r[2] = cl / f[2] + dl;
	r[3] = cl / f[3] + dl;
	assert_int_equal(ka_three_point_fit(f, r, &m), 0);
	NEAR(m.high.c, ch, 1e-6);
	NEAR(m.high.d, dh, 1e-9);
	NEAR(m.low.c, cl, 1e-6);
	NEAR(m.low.d, dl, 1e-9);
	NEAR(m.f3, 1800, 1e-6);
	NEAR(ka_three_point_eval(&m, 2100), ch / 2100 + dh, 1e-12);
	NEAR(ka_three_point_eval(&m, 1300), cl / 1300 + dl, 1e-12);
	/* parallel curves: no f3, the larger of the two */
	r[2] = ch / f[2] + dh + 0.1;
	r[3] = ch / f[3] + dh + 0.1;
	assert_int_equal(ka_three_point_fit(f, r, &m), 0);
	assert_true(isnan(m.f3));
	NEAR(ka_three_point_eval(&m, 2600), ch / 2600 + dh + 0.1, 1e-9);
}

/* An ideal inverse curve r = 2700/f on both sides: the two fitted curves
 * have the same c up to rounding, so they are parallel and f3 is undefined
 * (an exact comparison of the offsets gave a spurious crossing); the best
 * f3 needs a sample strictly inside. */
static void test_f3_of_parallel_curves(void **state)
{
	double f[4] = {2700, 2400, 1500, 1200}, r[4];
	struct ka_three_point m;
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++)
		r[i] = 2700 / f[i];
	assert_int_equal(ka_three_point_fit(f, r, &m), 0);
	assert_true(isnan(m.f3));
	NEAR(ka_three_point_eval(&m, 2000), 2700 / 2000.0, 1e-12);
	assert_int_equal(ka_best_f3(f, r, 4, 0, 3, &m), 0);
	NEAR(ka_three_point_eval(&m, 1500), 1.8, 1e-12);
	assert_int_equal(ka_best_f3((double[]){2700, 1200}, r, 2, 0, 1, &m), -KA_ENODATA);
	NEAR(ka_cycle_ratio(2700, 1, 1200, 2.25), 1, 1e-15);
}

/* A study's samples in any order: the extremes and the two next inside,
 * or the inner ones named; a named one must be measured and strictly
 * inside. */
static void test_study_picks_samples(void **state)
{
	const double f[5] = {1200, 2700, 1500, 2400, 1800};
	struct ka_pc_samples s;

	(void)state;
	assert_int_equal(ka_pc_pick(f, 5, NAN, NAN, &s), 0);
	assert_int_equal(s.hi, 1);
	assert_int_equal(s.lo, 0);
	assert_int_equal(s.hi2, 3);
	assert_int_equal(s.lo2, 2);
	assert_int_equal(ka_pc_pick(f, 5, 1800, 2400, &s), 0);
	assert_int_equal(s.hi2, 4);
	assert_int_equal(s.lo2, 3);
	assert_int_equal(ka_pc_pick(f, 5, 2700, NAN, &s), 1);	/* not inside */
	assert_int_equal(ka_pc_pick(f, 5, NAN, 1000, &s), 2);	/* not measured */
	assert_int_equal(ka_pc_pick(f, 5, 2000, NAN, &s), 1);
	assert_int_equal(ka_pc_pick(f, 1, NAN, NAN, &s), -KA_EDOM);
	assert_int_equal(ka_pc_pick((double[]){2000, 2000, 2000}, 3, NAN, NAN, &s), -KA_EDOM);
}

/* The two curves of test_three_point_recovers_curves, sampled out of order
 * with one more point on the high curve: the three-point model is exact
 * (R^2 = 1), the two-point model is the chord through the extremes. */
static void test_study_models(void **state)
{
	const double ch = 2000, dh = 1 - 2000 / 2700.0, cl = 3000, dl = dh + (ch - cl) / 1800;
	double f[5] = {1200, 2700, 1500, 2400, 2100}, r[5], pred[5], c;
	struct ka_pc_samples s;
	struct ka_pc_models m;
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++)
		r[i] = f[i] >= 1800 ? ch / f[i] + dh : cl / f[i] + dl;
	assert_int_equal(ka_pc_pick(f, 5, NAN, NAN, &s), 0);
	assert_int_equal(ka_pc_models_fit(f, r, 5, &s, pred, &m), 0);
	c = (r[0] - r[1]) / (1 / 1200.0 - 1 / 2700.0);
	NEAR(m.two.c, c, 1e-9);
	NEAR(m.two.d, r[1] - c / 2700, 1e-12);
	assert_true(m.have_three && m.have_best);
	NEAR(m.three.f3, 1800, 1e-6);
	NEAR(m.r2[KA_PC_THREE], 1, 1e-12);
	NEAR(m.pearson[KA_PC_THREE], 1, 1e-12);
	assert_true(m.r2[KA_PC_TWO] < 1);	/* a chord misses the bend */
	NEAR(m.cycle_ratio, r[0] * 1200 / (r[1] * 2700), 1e-15);
	/* two samples: the two-point model alone, the others' figures NAN */
	assert_int_equal(ka_pc_pick((double[]){2700, 1200}, 2, NAN, NAN, &s), 0);
	assert_int_equal(ka_pc_models_fit((double[]){2700, 1200}, (double[]){1, 1.8}, 2, &s, pred, &m), 0);
	assert_false(m.have_three || m.have_best);
	NEAR(m.two.c, 1728, 1e-9);
	NEAR(m.r2[KA_PC_TWO], 1, 1e-12);
	assert_true(isnan(m.r2[KA_PC_THREE]) && isnan(m.pearson[KA_PC_BEST]));
}

/* test_four_modules_by_hand's budget under r = 1728/f + 0.36: the uniform
 * cap's slowest module runs at 1950 MHz, the aware cap's all at
 * 1200 + 1500 * 5/7; both draw the whole 360 W. */
static void test_study_budget(void **state)
{
	struct ka_pc_samples s;
	struct ka_pc_models m;
	struct ka_alloc au[4], av[4];
	struct ka_pc_cap u, v;
	double pred[2];

	(void)state;
	ka_pc_pick((double[]){2700, 1200}, 2, NAN, NAN, &s);
	ka_pc_models_fit((double[]){2700, 1200}, (double[]){1, 1.8}, 2, &s, pred, &m);
	assert_int_equal(ka_pc_budget(four, 4, 360, 2700, 1200, &m, au, av, &u, &v), 0);
	assert_false(u.infeasible || v.infeasible);
	NEAR(u.r_two, 1728 / 1950.0 + 0.36, 1e-12);
	NEAR(v.r_two, 1728 / (1200 + 1500 * 5.0 / 7) + 0.36, 1e-12);
	assert_true(isnan(u.r_three) && isnan(v.r_three));
	NEAR(u.draw, 360, 1e-9);
	NEAR(v.draw, 360, 1e-9);
	assert_int_equal(ka_pc_budget(four, 4, 160, 2700, 1200, &m, au, av, &u, &v), 0);
	assert_true(u.infeasible);
	NEAR(u.r_two, 1.8, 1e-12);	/* every module at f_min */
	assert_int_equal(ka_pc_budget(four, 4, 0, 2700, 1200, &m, au, av, &u, &v), -KA_EDOM);
}

static void test_pvt(void **state)
{
	struct ka_module m = ka_pvt_module(1.1, 0.9, 100, 50);

	(void)state;
	NEAR(m.p_max, 110, 1e-12);
	NEAR(m.p_min, 45, 1e-12);
}

/*
 * A reference trace sampled every 10 ms and an instrumented one whose
 * segments ran 2x, 1.5x and 2x longer, sampled at exactly the stretched
 * times of the reference samples and reading 30 W high: inside segments
 * the correction gives the reference back exactly.
 */
static void test_stretched_trace_restored(void **state)
{
	static const struct ka_segment seg[3] = {
		{0.10, 0.90, 0.10, 0.50}, {0.90, 1.50, 0.50, 0.90}, {1.65, 2.25, 1.00, 1.30}};
	static struct ka_sample ref[141], inst[141], out[141];
	double before, after;
	size_t j, inside = 0;

	(void)state;
	for (j = 0; j < 141; j++) {
		double t = j * 0.01, ti;

		ref[j] = (struct ka_sample){t, 100 + 50 * sin(7 * t)};
		/* the inverse of the time map: reference time -> instrumented time */
		if (t <= 0.10)
			ti = t;
		else if (t <= 0.50)
			ti = 0.10 + (t - 0.10) * 2;
		else if (t <= 0.90)
			ti = 0.90 + (t - 0.50) * 1.5;
		else if (t <= 1.00)
			ti = 1.50 + (t - 0.90) * 1.5;
		else if (t <= 1.30)
			ti = 1.65 + (t - 1.00) * 2;
		else
			ti = 2.25 + (t - 1.30);
		inst[j] = (struct ka_sample){ti, ref[j].p + 30};
	}
	assert_int_equal(ka_trace_correct(inst, 141, ref, 141, seg, 3, out, NULL), 0);
	for (j = 0; j < 141; j++) {
		NEAR(out[j].t, ref[j].t, 1e-12);	/* time direction, everywhere */
		if ((ref[j].t >= 0.10 && ref[j].t <= 0.90) || (ref[j].t >= 1.00 && ref[j].t <= 1.30)) {
			NEAR(out[j].p, ref[j].p, 1e-12);	/* power direction */
			inside++;
		} else {
			NEAR(out[j].p, inst[j].p, 1e-12);	/* outside: kept */
		}
	}
	assert_true(inside > 100);
	assert_int_equal(ka_trace_rms(inst, 141, ref, 141, &before), 0);
	assert_int_equal(ka_trace_rms(out, 141, ref, 141, &after), 0);
	assert_true(before > 30 && after < before);
	NEAR(ka_trace_map_time(seg, 3, 3.0), 1.30 + 0.75, 1e-12);	/* slope 1 after the last */
	NEAR(ka_trace_map_time(seg, 3, 0.05), 0.05, 1e-12);
	/* bad segments */
	assert_int_equal(ka_trace_correct(inst, 141, ref, 141,
					  (struct ka_segment[]){{0.5, 0.4, 0, 1}}, 1, out, NULL), -KA_EDOM);
}

/* The paper's rule, sample by sample over every segment and every reference
 * sample (O(n (k + m))): what the binary searches must give exactly. */
static void trace_by_rule(const struct ka_sample *inst, size_t n, const struct ka_sample *ref,
			  size_t m, const struct ka_segment *seg, size_t k, struct ka_sample *out,
			  struct ka_trace_origin *org)
{
	size_t i, j, s;

	for (i = 0; i < n; i++) {
		double t = inst[i].t, x0 = 0, y0 = 0, best = INFINITY, u;
		size_t pick = m;

		out[i] = inst[i];
		for (s = 0; s < k; s++) {
			if (t < seg[s].start) {
				out[i].t = y0 + (t - x0) * (seg[s].ref_start - y0) / (seg[s].start - x0);
				break;
			}
			if (t <= seg[s].end) {
				out[i].t = seg[s].ref_start + (t - seg[s].start) *
					   (seg[s].ref_end - seg[s].ref_start) / (seg[s].end - seg[s].start);
				break;
			}
			x0 = seg[s].end;
			y0 = seg[s].ref_end;
		}
		if (s == k)
			out[i].t = y0 + (t - x0);
		if (s < k && t < seg[s].start)
			s = k;	/* in a gap: outside every segment */
		if (s < k) {
			u = (t - seg[s].start) / (seg[s].end - seg[s].start);
			for (j = 0; j < m; j++) {
				double v, d;

				if (ref[j].t < seg[s].ref_start || ref[j].t > seg[s].ref_end)
					continue;
				v = (ref[j].t - seg[s].ref_start) / (seg[s].ref_end - seg[s].ref_start);
				d = fabs(v - u);
				if (d < best) {
					best = d;
					pick = j;
				}
			}
			if (pick < m)
				out[i].p = ref[pick].p;
		}
		org[i] = (struct ka_trace_origin){s, pick};
	}
}

/* Random traces with repeated times, touching segments, empty reference
 * segments and ties: the fast correction gives exactly the rule's samples
 * and origins. */
static void test_trace_matches_the_rule(void **state)
{
	enum { N = 400, M = 300, K = 12, ROUNDS = 200 };
	static struct ka_sample inst[N], ref[M], a[N], b[N];
	static struct ka_trace_origin oa[N], ob[N];
	struct ka_segment seg[K];
	unsigned x = 12345, round;
	size_t i, k;

	(void)state;
	for (round = 0; round < ROUNDS; round++) {
		double t = 0, rt = 0, q;

		for (i = 0; i < N; i++) {
			x = x * 1103515245u + 12345u;
			t += (x >> 16) % 4 * 0.25;	/* steps of 0, 0.25, 0.5, 0.75: repeats */
			inst[i] = (struct ka_sample){t, (double)(x % 97)};
		}
		for (i = 0; i < M; i++) {
			x = x * 1103515245u + 12345u;
			rt += (x >> 16) % 3 * 0.2;
			ref[i] = (struct ka_sample){rt, (double)(x % 89)};
		}
		k = 1 + round % K;
		for (i = 0, q = 0; i < k; i++) {
			double len = t / (2.0 * (double)k), rlen = rt / (2.0 * (double)k);

			x = x * 1103515245u + 12345u;
			/* touching the previous segment every third time */
			seg[i].start = (i && x % 3 == 0) ? seg[i - 1].end : q + len * 0.5;
			seg[i].end = seg[i].start + len;
			seg[i].ref_start = (i && x % 3 == 0) ? seg[i - 1].ref_end
							     : (i ? seg[i - 1].ref_end : 0) + rlen * 0.5;
			seg[i].ref_end = seg[i].ref_start + (x % 5 == 0 ? 0.01 : rlen);
			q = seg[i].end;
		}
		assert_int_equal(ka_trace_correct(inst, N, ref, M, seg, k, a, oa), 0);
		trace_by_rule(inst, N, ref, M, seg, k, b, ob);
		for (i = 0; i < N; i++) {
			assert_true(a[i].t == b[i].t);
			assert_true(a[i].p == b[i].p);
			assert_int_equal(oa[i].segment, ob[i].segment);
			assert_int_equal(oa[i].source, ob[i].source);
		}
	}
}

/* Power = 5 + 2 r1 + 0.5 r2 with a little noise; r3 has nothing to do with
 * it and is dropped; the coefficients come back. */
static void test_regression_recovers_and_drops(void **state)
{
	enum { ROWS = 60, K = 3 };
	double x[ROWS * K], y[ROWS], mean, max;
	struct ka_pm m;
	size_t i;
	unsigned s = 7;

	(void)state;
	for (i = 0; i < ROWS; i++) {
		double noise;

		s = s * 1103515245u + 12345u;
		x[i * K + 0] = 1 + (double)(s >> 16 & 1023) / 50;
		s = s * 1103515245u + 12345u;
		x[i * K + 1] = 3 + (double)(s >> 16 & 1023) / 30;
		s = s * 1103515245u + 12345u;
		x[i * K + 2] = (double)(s >> 16 & 1023) / 10;
		s = s * 1103515245u + 12345u;
		noise = ((double)(s >> 16 & 1023) / 1023 - 0.5) * 0.2;
		y[i] = 5 + 2 * x[i * K + 0] + 0.5 * x[i * K + 1] + noise;
	}
	assert_int_equal(ka_pm_fit(x, ROWS, K, y, 0.05, &m), 0);
	assert_true(m.kept[0] && m.kept[1]);
	assert_false(m.kept[2]);
	assert_int_equal(m.ndropped, 1);
	assert_int_equal(m.dropped[0], 2);
	assert_true(m.pvalue[2] > 0.05 && fabs(m.t[2]) < 2.1);	/* as it was when dropped */
	assert_int_equal(m.dof, ROWS - 3);
	assert_true(m.coef[2] == 0);
	NEAR(m.coef[0], 2, 0.01);
	NEAR(m.coef[1], 0.5, 0.01);
	NEAR(m.intercept, 5, 0.1);
	assert_true(m.r2 > 0.999);
	assert_true(m.pvalue[0] < 1e-10);
	assert_int_equal(ka_pm_errors(&m, x, ROWS, y, &mean, &max), 0);
	assert_true(mean < 0.01 && max < 0.02 && max >= mean);
	NEAR(ka_pm_predict(&m, (double[]){1, 3, 99}), m.intercept + m.coef[0] + 3 * m.coef[1], 1e-12);
	assert_int_equal(ka_pm_fit(x, 3, K, y, 0.05, &m), -KA_ENODATA);
}

/* The regression table by hand, y = b0 + b1 x on five rows:
 * x = 1..5, y = 2.2 3.9 6.1 8.1 9.7: Sxx = 10, Sxy = 19.2, b1 = 1.92,
 * b0 = 6 - 1.92 * 3 = 0.24, SSR = 0.096, s^2 = 0.096 / 3 = 0.032,
 * se(b1) = sqrt(s^2 / Sxx) = 0.0565685, se(b0) = sqrt(s^2 (1/5 + 9/10))
 * = 0.1876166, SST = 36.96, R^2 = 1 - 0.096 / 36.96, adjusted
 * 1 - (1 - R^2) 4 / 3, sigma = sqrt(0.032), dof 3. */
static void test_regression_table_by_hand(void **state)
{
	const double x[] = {1, 2, 3, 4, 5}, y[] = {2.2, 3.9, 6.1, 8.1, 9.7};
	const double r2 = 1 - 0.096 / 36.96;
	struct ka_pm m;

	(void)state;
	assert_int_equal(ka_pm_fit(x, 5, 1, y, 0.05, &m), 0);
	assert_true(m.kept[0]);
	NEAR(m.coef[0], 1.92, 1e-12);
	NEAR(m.intercept, 0.24, 1e-12);
	NEAR(m.se[0], sqrt(0.032 / 10), 1e-12);
	NEAR(m.intercept_se, sqrt(0.032 * 1.1), 1e-12);
	NEAR(m.t[0], 1.92 / sqrt(0.0032), 1e-9);
	NEAR(m.intercept_t, 0.24 / sqrt(0.0352), 1e-9);
	NEAR(m.r2, r2, 1e-12);
	NEAR(m.adj_r2, 1 - (1 - r2) * 4 / 3, 1e-12);
	NEAR(m.sigma, sqrt(0.032), 1e-12);
	assert_int_equal(m.dof, 3);
	assert_int_equal(m.ndropped, 0);
	/* two-sided p of t with 3 degrees of freedom: below 1e-4 for 33.9 */
	assert_true(m.pvalue[0] > 0 && m.pvalue[0] < 1e-4);
	assert_true(m.intercept_p > 0.2 && m.intercept_p < 0.4);
}

static void test_best_configuration(void **state)
{
	const double time[] = {10, 6, 5}, energy[] = {100, 70, 72};

	(void)state;
	assert_int_equal(ka_best_config(time, energy, 3, KA_GOAL_TIME), 2);
	assert_int_equal(ka_best_config(time, energy, 3, KA_GOAL_ENERGY), 1);
	assert_int_equal(ka_best_config(time, energy, 3, KA_GOAL_EDP), 2);	/* 360 < 420 */
}

/* ePRO-MP §6.1, Fig. 6: threads of MM and IS, each 1..4, baseline (4, 4).
 * Energy (J) over the whole grid, lowest at (3, 1): 4.1 % below the
 * baseline's 1155.528 J (Fig. 5's 1,155,528 mJ), as the paper reports. */
static const long grid[16 * 2] = {1, 1, 1, 2, 1, 3, 1, 4, 2, 1, 2, 2, 2, 3, 2, 4,
				  3, 1, 3, 2, 3, 3, 3, 4, 4, 1, 4, 2, 4, 3, 4, 4};
static const double grid_energy[16] = {1400, 1300, 1350, 1380, 1200, 1250, 1330, 1360,
				       1155.528 * (1 - 0.041), 1170, 1320, 1340, 1130, 1190, 1300,
				       1155.528};

static size_t grid_at(long mm, long is)
{
	return (size_t)((mm - 1) * 4 + (is - 1));
}

static void test_configuration_walk_as_the_paper(void **state)
{
	const long lo[] = {1, 1}, hi[] = {4, 4};
	size_t order[16], executed[16], i;
	struct ka_walk w = {.executed = executed};
	long next[2];
	/* (1,1); its raised neighbours (2,1) 1200 and (1,2) 1300: on to (2,1);
	 * (3,1) 1108 and (2,2) 1250: on to (3,1); (4,1) 1130 and (3,2) 1170 do
	 * not improve: the walk ends; the baseline last. Eight, as the paper. */
	const long want[8][2] = {{1, 1}, {2, 1}, {1, 2}, {3, 1}, {2, 2}, {4, 1}, {3, 2}, {4, 4}};

	(void)state;
	assert_int_equal(ka_config_walk(grid, grid_energy, 16, 2, lo, hi, hi, order, &w, next), 0);
	assert_true(w.ended);
	assert_false(w.want_next);
	assert_int_equal(w.nexecuted, 8);
	for (i = 0; i < 8; i++)
		assert_int_equal(w.executed[i], grid_at(want[i][0], want[i][1]));
	assert_int_equal(w.end, grid_at(3, 1));
	assert_int_equal(w.baseline, grid_at(4, 4));
	assert_int_equal(ka_best_config(grid_energy, grid_energy, 16, KA_GOAL_ENERGY), grid_at(3, 1));
}

static void test_configuration_walk_asks_for_the_next(void **state)
{
	const long lo[] = {1, 1}, hi[] = {4, 4};
	size_t order[8], executed[8];
	struct ka_walk w = {.executed = executed};
	long next[2], cfg[8 * 2];
	double v[8];
	size_t i;
	const long *row;

	(void)state;
	/* nothing at the start (1,1) yet: it is the next */
	cfg[0] = 2, cfg[1] = 2, v[0] = 5;
	assert_int_equal(ka_config_walk(cfg, v, 1, 2, lo, hi, hi, order, &w, next), 0);
	assert_true(w.want_next && !w.ended && w.nexecuted == 0 && w.end == SIZE_MAX);
	assert_true(next[0] == 1 && next[1] == 1);
	/* the walk's first five as measured: (2,2) is wanted after (3,1) */
	for (i = 0; i < 4; i++) {
		static const long first[4][2] = {{1, 1}, {2, 1}, {1, 2}, {3, 1}};

		row = first[i];
		cfg[2 * i] = row[0], cfg[2 * i + 1] = row[1];
		v[i] = grid_energy[grid_at(row[0], row[1])];
	}
	assert_int_equal(ka_config_walk(cfg, v, 4, 2, lo, hi, hi, order, &w, next), 0);
	assert_true(w.want_next && !w.ended && w.nexecuted == 4 && w.end == 1);
	assert_true(next[0] == 2 && next[1] == 2);
	/* the walk ended at (3,1) with the baseline unmeasured: it is the next */
	cfg[8] = 2, cfg[9] = 2, v[4] = 1250;
	cfg[10] = 4, cfg[11] = 1, v[5] = 1130;
	cfg[12] = 3, cfg[13] = 2, v[6] = 1170;
	assert_int_equal(ka_config_walk(cfg, v, 7, 2, lo, hi, hi, order, &w, next), 0);
	assert_true(w.want_next && w.ended && w.nexecuted == 7 && w.end == 3);
	assert_true(w.baseline == SIZE_MAX && next[0] == 4 && next[1] == 4);
	/* the second example's baseline (2, 2) is measured: nothing to ask */
	assert_int_equal(ka_config_walk(cfg, v, 7, 2, lo, hi, (const long[]){2, 2}, order, &w,
					next), 0);
	assert_true(!w.want_next && w.ended && w.nexecuted == 7 && w.baseline == 4);
	/* a repeated configuration is the caller's to merge; bounds must hold */
	cfg[12] = 1, cfg[13] = 1;
	assert_int_equal(ka_config_walk(cfg, v, 7, 2, lo, hi, hi, order, &w, next), -KA_EDOM);
	assert_int_equal(ka_config_walk(cfg, v, 4, 2, hi, lo, hi, order, &w, next), -KA_EDOM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_four_modules_by_hand),
		cmocka_unit_test(test_clamping_is_reported),
		cmocka_unit_test(test_two_point_and_predicted_time),
		cmocka_unit_test(test_three_point_recovers_curves),
		cmocka_unit_test(test_f3_of_parallel_curves),
		cmocka_unit_test(test_study_picks_samples),
		cmocka_unit_test(test_study_models),
		cmocka_unit_test(test_study_budget),
		cmocka_unit_test(test_pvt),
		cmocka_unit_test(test_stretched_trace_restored),
		cmocka_unit_test(test_trace_matches_the_rule),
		cmocka_unit_test(test_regression_recovers_and_drops),
		cmocka_unit_test(test_regression_table_by_hand),
		cmocka_unit_test(test_best_configuration),
		cmocka_unit_test(test_configuration_walk_as_the_paper),
		cmocka_unit_test(test_configuration_walk_asks_for_the_next),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("methods", tests, NULL, NULL);
}
