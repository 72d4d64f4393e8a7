/* Unit tests of import*.c: readers, the mapping and the guess, on small
 * files whose runs are worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csvsafe.h"
#include "import/import.h"

static struct import_opts opts(const char *format)
{
	struct import_opts o = {0};

	o.format = format;
	o.system = "sys";
	o.application = "app";
	return o;
}

static void read_ok(const char *body, const struct import_opts *o, struct import_result *res)
{
	struct kerr err;

	if (import_read(body, strlen(body), o, res, &err)) {
		fprintf(stderr, "unexpected error: %s (field %s)\n", err.msg, err.field);
		fail();
	}
}

/* A 400 (or 413) naming field whose message holds what. */
static void read_bad(const char *body, const struct import_opts *o, const char *field,
		     const char *what)
{
	struct import_result res;
	struct kerr err;

	assert_int_equal(import_read(body, strlen(body), o, &res, &err), -1);
	assert_true(err.code == KERR_INVALID || err.code == KERR_TOO_LARGE);
	if (strcmp(err.field, field) || !strstr(err.msg, what))
		fprintf(stderr, "got field '%s': %s\n", err.field, err.msg);
	assert_string_equal(err.field, field);
	assert_non_null(strstr(err.msg, what));
	import_result_clear(&res);
}

static const struct run *run_at(const struct import_result *res, int64_t p, double tau)
{
	size_t i;

	for (i = 0; i < res->batch.count; i++)
		if (res->batch.runs[i].p == p && res->batch.runs[i].tau == tau)
			return &res->batch.runs[i];
	fail_msg("no run with p = %lld, tau = %g", (long long)p, tau);
	return NULL;
}

/* METRIC before REGION, two names on one PARAMETER line, two points on one
 * POINTS line, bare one-line comments, '->' paths: the 3 points x their
 * repetitions are 2 + 1 + 1 runs; main->solve is main's region. */
static void test_extrap_text(void **state)
{
	static const char text[] = "# karte\nPARAMETER p n\nPOINTS ( 2 10 ) ( 4 10 )\nPOINTS (8 10)\n"
				   "METRIC time\nREGION main\nDATA 9 9.5\nDATA 5\nDATA 3\n"
				   "REGION main->solve\nDATA 8 8.5\nDATA 4\nDATA 2\n";
	struct import_opts o = opts("extrap-text");
	struct import_result a, b;

	(void)state;
	read_ok(text, &o, &a);
	assert_int_equal(a.batch.count, 4);
	assert_int_equal(a.points, 3);
	assert_string_equal(a.format, "extrap-text");
	assert_string_equal(run_at(&a, 2, 9.5)->regions, "[{\"name\":\"solve\",\"time_s\":8.5}]");
	assert_string_equal(run_at(&a, 8, 3)->regions, "[{\"name\":\"solve\",\"time_s\":2}]");
	assert_true(run_at(&a, 4, 5)->n == 10 && !(run_at(&a, 4, 5)->has & RUN_HAS_CHI));
	assert_null(run_at(&a, 4, 5)->idempotency_key);
	/* the same file and mapping: the same import; another region: another */
	read_ok(text, &o, &b);
	assert_string_equal(a.hash, b.hash);
	import_result_clear(&b);
	o.region = "main->solve";
	read_ok(text, &o, &b);
	assert_string_not_equal(a.hash, b.hash);
	assert_int_equal(b.batch.count, 4);
	assert_true(run_at(&b, 2, 8.5)->regions == NULL);
	import_result_clear(&b);
	/* chi from a region: 9.5 - 8.5 = 1 is gamma's complement */
	o.region = NULL;
	o.chi_regions = "solve";
	read_ok(text, &o, &b);
	assert_true(run_at(&b, 2, 9.5)->chi == 8.5 && run_at(&b, 2, 9.5)->gamma == 1);
	import_result_clear(&b);
	import_result_clear(&a);
}

/* RELeARN's layout: no '->', the tree by the indentation after REGION. */
static void test_indentation_tree(void **state)
{
	static const char text[] = "PARAMETER p\nPOINTS 1 2\nMETRIC time\n"
				   "REGION  loop\nDATA 10\nDATA 6\n"
				   "REGION    step a\nDATA 4\nDATA 2\n"
				   "REGION    step   b\nDATA 5\nDATA 3\n"
				   "REGION  other\nDATA 1\nDATA 1\n";
	struct import_opts o = opts("extrap-text");
	struct import_result res;

	(void)state;
	o.has_n_value = true;
	o.n_value = 100;
	read_bad(text, &o, "region", "'loop', 'other'");
	o.region = "loop";
	read_ok(text, &o, &res);
	assert_int_equal(res.batch.count, 2);
	/* runs of blanks in a name are one space, as Extra-P reads it */
	assert_string_equal(run_at(&res, 2, 6)->regions,
			    "[{\"name\":\"step a\",\"time_s\":2},{\"name\":\"step b\",\"time_s\":3}]");
	assert_int_equal(json_array_size(res.regions), 2);
	import_result_clear(&res);
}

static void test_mapping_errors(void **state)
{
	struct import_opts o = opts("extrap-text");

	(void)state;
	read_bad("PARAMETER x y\nPOINTS (1 2)\nREGION r\nDATA 1\n", &o, "p", "'x', 'y'");
	o.p = "x";
	read_bad("PARAMETER x y\nPOINTS (1 2)\nREGION r\nDATA 1\n", &o, "n_value", "n=NAME");
	o.n = "y";
	read_bad("PARAMETER x y\nPOINTS (1.5 2)\nREGION r\nDATA 1\n", &o, "p", "1.5");
	read_bad("PARAMETER x y\nPOINTS (1 0)\nREGION r\nDATA 1\n", &o, "n", "greater than 0");
	read_bad("PARAMETER x y\nPOINTS (1 2)\nREGION r\nMETRIC a\nDATA 1\nMETRIC b\nDATA 2\n", &o,
		 "metric", "'a', 'b'");
	read_bad("PARAMETER x y\nPOINTS (1 2)\nREGION r\nDATA 0\n", &o, "region", "no run");
	o.format = "nope";
	read_bad("x", &o, "format", "extrap-text");
	o.format = NULL;
	read_bad("what is this\n", &o, "format", "recognises");
	o.format = "extrap-text";
	o.system = "a:b";
	read_bad("PARAMETER x y\nPOINTS (1 2)\nREGION r\nDATA 1\n", &o, "system", ":");
}

/* Per rank, exclusive times summed up the tree, then the slowest rank:
 * rank 0 main 1 + solve 3 = 4, rank 1 0.5 + 4 = 4.5; solve's largest is 4. */
static void test_caliper_ranks(void **state)
{
	static const char recs[] = "[{\"path\":\"main\",\"mpi.rank\":0,\"sum#time.duration\":1.0},"
				   "{\"path\":\"main/solve\",\"mpi.rank\":0,\"sum#time.duration\":3.0},"
				   "{\"path\":\"main\",\"mpi.rank\":1,\"sum#time.duration\":0.5},"
				   "{\"path\":\"main/solve\",\"mpi.rank\":1,\"sum#time.duration\":4.0}]";
	static const char cali[] = "__rec=node,id=19,attr=10,data=268,parent=3\n"
				   "__rec=node,id=20,attr=8,data=function,parent=19\n"
				   "__rec=node,id=96,attr=10,data=21,parent=5\n"
				   "__rec=node,id=97,attr=8,data=sum#time.duration,parent=96\n"
				   "__rec=node,id=98,attr=8,data=mpi.world.size,parent=96\n"
				   "__rec=node,id=99,attr=8,data=problem_size,parent=96\n"
				   "__rec=node,id=155,attr=20,data=main\n"
				   "__rec=node,id=156,attr=20,data=solve\\,fast,parent=155\n"
				   "__rec=ctx,ref=155,attr=97,data=0.25\n"
				   "__rec=ctx,ref=156,attr=97,data=1.5\n"
				   "__rec=globals,attr=98=99,data=64=4096\n";
	struct import_opts o = opts("caliper-json");
	struct import_result res;

	(void)state;
	o.has_n_value = true;
	o.n_value = 7;
	read_ok(recs, &o, &res);
	assert_int_equal(res.batch.count, 1);
	assert_int_equal(res.batch.runs[0].p, 2);
	assert_true(res.batch.runs[0].tau == 4.5);
	assert_string_equal(res.batch.runs[0].regions, "[{\"name\":\"solve\",\"time_s\":4}]");
	import_result_clear(&res);
	/* .cali: p and n from the globals, an escaped ',' in a name, 0.25 + 1.5 */
	o = opts("cali");
	read_ok(cali, &o, &res);
	assert_int_equal(res.batch.runs[0].p, 64);
	assert_true(res.batch.runs[0].n == 4096 && res.batch.runs[0].tau == 1.75);
	assert_string_equal(res.batch.runs[0].regions, "[{\"name\":\"solve,fast\",\"time_s\":1.5}]");
	import_result_clear(&res);
}

/* Two hosts: tau the slower's 7, energy 10 + 1 + 12 + 2 = 25. */
static void test_geopm(void **state)
{
	static const char rep[] = "##### geopm 1.1.0 #####\nProfile: x\n\nHost: a\n"
				  "Region r (0x1):\n    runtime (sec): 2\n    package-energy (joules): 3\n"
				  "Application Totals:\n    runtime (sec): 6\n    package-energy (joules): 10\n"
				  "    dram-energy (joules): 1\n"
				  "Host: b\nRegion r (0x1):\n    runtime (sec): 2.5\n    package-energy (joules): 4\n"
				  "Application Totals:\n    runtime (sec): 7\n    package-energy (joules): 12\n"
				  "    dram-energy (joules): 2\n";
	struct import_opts o = opts(NULL);
	struct import_result res;

	(void)state;
	o.has_n_value = true;
	o.n_value = 1;
	read_ok(rep, &o, &res);
	assert_string_equal(res.format, "geopm-report");
	assert_true(res.batch.runs[0].p == 2 && res.batch.runs[0].tau == 7);
	assert_true(res.batch.runs[0].energy_j == 25);
	assert_string_equal(res.batch.runs[0].regions, "[{\"name\":\"r\",\"time_s\":2.5,\"energy_j\":7}]");
	import_result_clear(&res);
}

static void test_csv(void **state)
{
	struct import_opts o = opts("csv");
	struct import_result res;

	(void)state;
	o.cols[0] = (struct import_col){"p", "nodes"};
	o.cols[1] = (struct import_col){"label.cc", "compiler"};
	o.ncols = 2;
	read_ok("nodes,n,tau,compiler\r\n4,10,2.5,\"gcc, 12\"\r\n8,10,1.5,\r\n", &o, &res);
	assert_int_equal(res.batch.count, 2);
	assert_string_equal(run_at(&res, 4, 2.5)->labels, "{\"cc\":\"gcc, 12\"}");
	assert_null(run_at(&res, 8, 1.5)->labels);
	assert_non_null(run_at(&res, 8, 1.5)->idempotency_key);
	import_result_clear(&res);
	o.ncols = 1;
	read_bad("nodes,n,tau\n4,10,soon\n", &o, "tau", "line 2");	/* the file's line: the header is 1 */
}

/* Cells a spreadsheet would run get an apostrophe (csvsafe.h), numbers
 * do not; reading takes exactly one off, so '=x survives as ''=x. */
static void test_csv_formulas(void **state)
{
	static const struct {
		const char *cell;
		bool risky;
	} cases[] = {
		{"=cmd|' /C calc'!A0", true}, {"@SUM(A1:A9)", true}, {"+cmd", true}, {"-cmd", true},
		{"\tx", true}, {"\rx", true}, {"-", true}, {"-inf", true}, {"+-1", true}, {"-1e", true},
		{"-1.5e3", false}, {"+7", false}, {"-.5", false}, {"-2.", false}, {"12", false},
		{"gcc 12", false}, {"", false}, {"a=b", false}, {"'abc", false}, {"'-1", false},
		{"'=x", true}, {"''@y", true},
	};
	struct import_opts o = opts("csv");
	struct import_result res;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (csv_cell_risky(cases[i].cell, strlen(cases[i].cell)) != cases[i].risky)
			fail_msg("'%s' risky: want %d", cases[i].cell, cases[i].risky);
	}
	assert_string_equal(csv_cell_unescape("'=x"), "=x");
	assert_string_equal(csv_cell_unescape("''=x"), "'=x");
	assert_string_equal(csv_cell_unescape("'-1"), "'-1");
	assert_string_equal(csv_cell_unescape("'abc"), "'abc");
	assert_string_equal(csv_cell_unescape("=x"), "=x");
	o.cols[0] = (struct import_col){"label.cc", "cc"};
	o.ncols = 1;
	read_ok("p,n,tau,cc\n4,10,2.5,'=cmd\n8,10,1.5,''@y\n2,10,3,'plain\n", &o, &res);
	assert_string_equal(run_at(&res, 4, 2.5)->labels, "{\"cc\":\"=cmd\"}");
	assert_string_equal(run_at(&res, 8, 1.5)->labels, "{\"cc\":\"'@y\"}");
	assert_string_equal(run_at(&res, 2, 3)->labels, "{\"cc\":\"'plain\"}");
	import_result_clear(&res);
}

static void test_guess(void **state)
{
	static const struct {
		const char *text, *format;
	} cases[] = {
		{"\xef\xbb\xbf# c\nPARAMETER p\n", "extrap-text"},
		{"{\"params\": {\"p\": 1}, \"value\": 2}\n", "extrap-jsonl"},
		{"{\"parameters\": {\"p\": 1}; \"callpath\": \"m\"; \"metric\": \"t\"; \"value\": 2}\n", "talpas"},
		{"{\"parameters\": [\"p\"], \"measurements\": {}}", "extrap-json"},
		{"{\"columns\": [], \"nodes\": [], \"data\": []}", "caliper-json"},
		{"[{\"path\": \"main\"}]", "caliper-json"},
		{"__rec=node,id=1,attr=8,data=x\n", "cali"},
		{"GEOPM Version: 2.0\nHosts:\n", "geopm-report"},
		{"p,n,tau\n1,2,3\n", "csv"},
		{"{\"system\":\"s\",\"application\":\"a\",\"p\":1,\"n\":1,\"tau\":1}\n", "ndjson"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = import_guess(cases[i].text, strlen(cases[i].text));

		if (!got || strcmp(got, cases[i].format))
			fail_msg("%s: guessed %s", cases[i].format, got ? got : "nothing");
	}
	assert_null(import_guess("hello\n", 6));
	assert_null(import_guess("PARAM", 5));	/* no read past the end */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extrap_text),
		cmocka_unit_test(test_indentation_tree),
		cmocka_unit_test(test_mapping_errors),
		cmocka_unit_test(test_caliper_ranks),
		cmocka_unit_test(test_geopm),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_csv_formulas),
		cmocka_unit_test(test_guess),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("import", tests, NULL, NULL);
}
