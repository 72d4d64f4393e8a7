/* Unit tests of chart's number format (server/chart.c): tick labels and
 * legends write numbers as a paper would. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "chart.h"

static void check(double v, const char *want)
{
	char buf[64];

	chart_number(v, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_numbers(void **state)
{
	(void)state;
	check(0, "0");
	check(25, "25");
	check(0.5, "0.5");
	check(-0.5, "\xe2\x88\x92" "0.5");		/* a real minus sign */
	check(9999, "9999");
	check(39200, "39\xe2\x80\x89" "200");		/* a thin space between thousands */
	check(80000, "80\xe2\x80\x89" "000");
	check(1e6, "10\xe2\x81\xb6");			/* 10⁶ */
	check(1.2e6, "1.2\xc3\x97" "10\xe2\x81\xb6");	/* 1.2×10⁶ */
	check(1e-4, "10\xe2\x81\xbb\xe2\x81\xb4");	/* 10⁻⁴ */
	check(2.5e-4, "2.5\xc3\x97" "10\xe2\x81\xbb\xe2\x81\xb4");
	check(-1e5, "\xe2\x88\x92" "10\xe2\x81\xb5");
	check(1e12, "10\xc2\xb9\xc2\xb2");		/* 10¹² */
	check(1e-3, "0.001");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("chart", tests, NULL, NULL);
}
