/* Unit tests of analysis/energy.c: Kimura et al.'s energy prediction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "analysis/energy.h"

#define F_STD 3000.0

static void test_alpha_p_recovered(void **state)
{
	static const double ps[] = {1, 2, 4, 8, 16};
	static const double alphas[] = {0.83, 1.0, 0.0, -4.52};
	double t[5], a;
	size_t i, k;

	(void)state;
	for (k = 0; k < 4; k++) {
		for (i = 0; i < 5; i++)	/* eq. 2 with T(1) = 7.5 s */
			t[i] = (1 - alphas[k] + alphas[k] / ps[i]) * 7.5;
		assert_int_equal(ka_fit_alpha_p(ps, t, 5, 7.5, &a), 0);
		assert_true(fabs(a - alphas[k]) < 1e-9);
	}
	/* negative alpha is kept (CG's MPI region in Table 2 has -4.52) */
	assert_true(a < 0);
}

static void test_beta_on_recovered(void **state)
{
	/* Table 1's P-states */
	static const double fs[] = {3000, 2833, 2667, 2500, 2333, 2000};
	static const double betas[] = {0.615, 0.0, 1.0, 0.152};
	double t[6], b;
	size_t i, k;

	(void)state;
	for (k = 0; k < 4; k++) {
		for (i = 0; i < 6; i++)	/* eq. 3 with T(1, f_std) = 2 s */
			t[i] = (F_STD / fs[i] * betas[k] + 1 - betas[k]) * 2.0;
		assert_int_equal(ka_fit_beta_on(F_STD, fs, t, 6, 2.0, &b), 0);
		assert_true(fabs(b - betas[k]) < 1e-9);
	}
}

static void test_fits_need_data(void **state)
{
	double one = 1, t = 3, a;
	double p0 = 0;

	(void)state;
	assert_int_equal(ka_fit_alpha_p(&one, &t, 1, 3, &a), -KA_ENODATA);	/* p = 1 only */
	assert_int_equal(ka_fit_beta_on(F_STD, (double[]){F_STD}, &t, 1, 3, &a), -KA_ENODATA);
	/* a frequency 1e-13 off f_std is f_std: an exact test fitted beta_on =
	 * 1e-13 / -1e-13 = -1 here from rounding alone */
	assert_int_equal(ka_fit_beta_on(F_STD, (double[]){F_STD * (1 + 1e-13)}, (double[]){3 * (1 + 1e-13)},
					1, 3, &a), -KA_ENODATA);
	/* p = 1 and p = 2 (x = -0.5): fitted; t 4 at p 2 over t1 3: (1/3) / -0.5 */
	assert_int_equal(ka_fit_alpha_p((double[]){1, 2}, (double[]){3, 4}, 2, 3, &a), 0);
	assert_true(fabs(a - -2.0 / 3) < 1e-15);
	assert_int_equal(ka_fit_alpha_p(&p0, &t, 1, 3, &a), -KA_EDOM);
	assert_int_equal(ka_fit_alpha_p(&one, &t, 1, 0, &a), -KA_EDOM);
}

/* Table 3's ideal regions with T(1, r, f_std) = 1 s each (not given). */
static const struct ka_region_model calc = {1.0, 1.0, 3000, 125, 125, 1.0};
static const struct ka_region_model mem = {0.9, 0.1, 2000, 150, 115, 1.0};
static const struct ka_region_model comm = {0.7, 0.7, 2500, 140, 120, 1.0};

static double de(const struct ka_region_model *a, const struct ka_region_model *b, double p)
{
	struct ka_region_model r[2] = {*a, *b};
	double d;

	assert_int_equal(ka_delta_e(r, 2, F_STD, p, &d, NULL), 0);
	return d;
}

static void test_table3_trends(void **state)
{
	static const double ps[] = {1, 2, 4, 16, 64, 256, 1024, 4096};
	size_t i;

	(void)state;
	/* hand-computed: calc-mem at p = 1 is 1 - (125 + 115*1.05)/(125 + 150) */
	assert_true(fabs(de(&calc, &mem, 1) - (1 - (125 + 115 * 1.05) / 275.0)) < 1e-12);
	assert_true(fabs(de(&calc, &mem, 16) - 0.14625) < 1e-12);
	assert_true(fabs(de(&mem, &comm, 1) - 0.111896551724) < 1e-11);
	for (i = 1; i < sizeof(ps) / sizeof(ps[0]); i++) {
		/* Kimura Fig. 4: rises for r(calc)-r(mem) and r(calc)-r(comm) ... */
		assert_true(de(&calc, &mem, ps[i]) > de(&calc, &mem, ps[i - 1]));
		assert_true(de(&calc, &comm, ps[i]) > de(&calc, &comm, ps[i - 1]));
		/* ... and falls for r(mem)-r(comm) */
		assert_true(de(&mem, &comm, ps[i]) < de(&mem, &comm, ps[i - 1]));
	}
	/* limits as p grows: 1 - 115*1.05*0.1 / (150*0.1) for calc-mem */
	assert_true(fabs(de(&calc, &mem, 1e12) - (1 - 12.075 / 15)) < 1e-9);
}

static void test_shares_add_up(void **state)
{
	struct ka_region_model r[3] = {calc, mem, comm};
	double sh[3], d, p;

	(void)state;
	for (p = 1; p <= 4096; p *= 4) {
		assert_int_equal(ka_delta_e(r, 3, F_STD, p, &d, sh), 0);
		assert_true(fabs(sh[0] + sh[1] + sh[2] - (1 - d)) < 1e-12);
	}
	/* calc's share shrinks with p: it is the perfectly parallel region */
	assert_int_equal(ka_delta_e(r, 3, F_STD, 1, &d, sh), 0);
	assert_true(sh[0] > 0.3);
	assert_int_equal(ka_delta_e(r, 3, F_STD, 4096, &d, sh), 0);
	assert_true(sh[0] < 0.01);
}

/* Table 2's MG rows as inputs (T(1, r, f_std) is not in the table: 1 s each).
 * rprj3 at 2000 MHz costs energy: E_opt/E_std = 115.3/140.7 * (0.5*0.615 + 1). */
static void test_table2_mg(void **state)
{
	static const struct ka_region_model mg[5] = {
		{0.709, 0.615, 2000, 140.7, 115.3, 1}, /* rprj3 */
		{1.000, 0.774, 2000, 148.8, 113.6, 1}, /* psinv coarse */
		{1.000, 0.010, 2000, 147.1, 100.4, 1}, /* interp */
		{0.920, 0.152, 2000, 156.6, 115.3, 1}, /* resid */
		{0.822, 0.219, 2000, 140.0, 113.6, 1}, /* psinv smooth */
	};
	double d16, d1;

	(void)state;
	assert_true(fabs(ka_energy_ratio(&mg[0], F_STD) - 115.3 / 140.7 * 1.3075) < 1e-12);
	assert_true(ka_energy_ratio(&mg[0], F_STD) > 1);
	assert_true(ka_energy_ratio(&mg[1], F_STD) > 1);
	assert_true(fabs(ka_energy_ratio(&mg[3], F_STD) - 0.7922273307790549) < 1e-12);
	assert_int_equal(ka_delta_e(mg, 5, F_STD, 1, &d1, NULL), 0);
	assert_int_equal(ka_delta_e(mg, 5, F_STD, 16, &d16, NULL), 0);
	assert_true(fabs(d1 - 0.10076111565739243) < 1e-12);
	assert_true(fabs(d16 - 0.05568613826430635) < 1e-12);
	/* Fig. 3: MG's saving falls with p but stays positive */
	assert_true(d16 < d1 && d16 > 0);
}

static void test_measured_and_least_energy(void **state)
{
	double eo[2] = {80, 50}, es[2] = {100, 60}, d;
	double pw[3] = {140, 115, 120}, tm[3] = {1.0, 1.1, 1.3};

	(void)state;
	assert_int_equal(ka_delta_e_measured(eo, es, 2, &d), 0);
	assert_true(fabs(d - (1 - 130.0 / 160.0)) < 1e-15);
	assert_int_equal(ka_least_energy(pw, tm, 3), 1);	/* 126.5 J < 140 < 156 */
	assert_int_equal(ka_delta_e(&calc, 1, F_STD, 0.5, &d, NULL), -KA_EDOM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alpha_p_recovered),
		cmocka_unit_test(test_beta_on_recovered),
		cmocka_unit_test(test_fits_need_data),
		cmocka_unit_test(test_table3_trends),
		cmocka_unit_test(test_shares_add_up),
		cmocka_unit_test(test_table2_mg),
		cmocka_unit_test(test_measured_and_least_energy),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("energy", tests, NULL, NULL);
}
