/* Unit tests of analysis/history.c: baselines and verdicts, by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/history.h"

/* 10, 11, 9, 10, 12: median 10; deviations 0, 1, 1, 0, 2: MAD 1. */
static void test_baseline(void **state)
{
	const double v[] = {10, 11, 9, 10, 12}, even[] = {1, 2, 3, 10};
	double work[5];
	struct ka_baseline b;

	(void)state;
	assert_int_equal(ka_baseline(v, 5, work, &b), 0);
	assert_true(b.median == 10 && b.mad == 1 && b.runs == 5);
	assert_true(v[0] == 10 && v[4] == 12);	/* left as it was */
	/* median 2.5; deviations 1.5, 0.5, 0.5, 7.5: MAD 1 */
	assert_int_equal(ka_baseline(even, 4, work, &b), 0);
	assert_true(b.median == 2.5 && b.mad == 1);
	assert_int_equal(ka_baseline(v, 0, work, &b), -KA_ENODATA);
	assert_int_equal(ka_baseline((const double[]){1, NAN}, 2, work, &b), -KA_EDOM);
}

/* Against median 10, MAD 1: the noise threshold is 3 * 1.4826 = 4.4478,
 * above the relative 5 % (0.5), so 14.4 is ok and 14.5 a regression; with
 * MAD 0 the relative threshold rules: 10.51 is a regression, 10.5 is not. */
static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The sorted walk gives ka_baseline's median and MAD to the bit: by hand
 * for a few, then for random windows of 1..100 values with repeats. */
static void test_baseline_sorted(void **state)
{
	double v[100], s[100], work[100];
	struct ka_baseline a, b;
	unsigned seed = 12345;
	size_t n, i, round;

	(void)state;
	ka_baseline_sorted((const double[]){9, 10, 10, 11, 12}, 5, &b);
	assert_true(b.median == 10 && b.mad == 1 && b.runs == 5);
	ka_baseline_sorted((const double[]){1, 2, 3, 10}, 4, &b);	/* |d|: 0.5 0.5 1.5 7.5 */
	assert_true(b.median == 2.5 && b.mad == 1);
	ka_baseline_sorted((const double[]){7}, 1, &b);
	assert_true(b.median == 7 && b.mad == 0);
	for (round = 0; round < 2000; round++) {
		n = 1 + round % 100;
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			/* a third of the values from a few levels, so ties occur */
			v[i] = (seed >> 16) % 3 == 0 ? (double)((seed >> 8) % 4) :
			       (double)(seed >> 8) / 65536.0 - 100.0;
		}
		memcpy(s, v, n * sizeof(double));
		qsort(s, n, sizeof(double), by_value);
		assert_int_equal(ka_baseline(v, n, work, &a), 0);
		ka_baseline_sorted(s, n, &b);
		assert_true(a.median == b.median);
		assert_true(a.mad == b.mad);
		assert_int_equal(b.runs, n);
		/* the shortcut verdict is ka_verdict's, for x around the window */
		for (i = 0; i < 8; i++) {
			struct ka_thresholds t = {0.02 * (double)(i % 4), 3.0, 1 + i % 3};
			double x = a.median + (double)((int)i - 4) * (a.mad + 0.01) * 2.5;

			assert_int_equal(ka_verdict_sorted(x, s, n, &t, &b), ka_verdict(x, &a, &t));
		}
	}
}

static void test_verdicts(void **state)
{
	struct ka_thresholds t = KA_THRESHOLDS_DEFAULT;
	struct ka_baseline b = {10, 1, 5}, flat = {10, 0, 8}, few = {10, 0, 4};

	(void)state;
	assert_int_equal(ka_verdict(14.4, &b, &t), KA_OK);
	assert_int_equal(ka_verdict(14.5, &b, &t), KA_REGRESSION);
	assert_int_equal(ka_verdict(5.5, &b, &t), KA_IMPROVEMENT);
	assert_int_equal(ka_verdict(5.6, &b, &t), KA_OK);
	assert_int_equal(ka_verdict(10.51, &flat, &t), KA_REGRESSION);
	assert_int_equal(ka_verdict(10.5, &flat, &t), KA_OK);
	assert_int_equal(ka_verdict(9.4, &flat, &t), KA_IMPROVEMENT);
	assert_int_equal(ka_verdict(100, &few, &t), KA_OK);	/* below min_runs */
	t.rel = 0.5;	/* a looser relative threshold: 14.5 is within 50 % */
	assert_int_equal(ka_verdict(14.5, &b, &t), KA_OK);
	assert_string_equal(ka_verdict_name(KA_REGRESSION), "regression");
	assert_string_equal(ka_verdict_name(KA_IMPROVEMENT), "improvement");
	assert_string_equal(ka_verdict_name(KA_OK), "ok");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_baseline),
		cmocka_unit_test(test_baseline_sorted),
		cmocka_unit_test(test_verdicts),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("history", tests, NULL, NULL);
}
