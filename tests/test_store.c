/* Unit tests of store.c and writer.c on a real SQLite file in a temp dir. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "store/schema.h"
#include "store/store.h"
#include "core/token.h"
#include "store/writer.h"

struct fixture {
	char dir[64];
	char path[96];
	struct store *st;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kerr err;

	snprintf(f->dir, sizeof(f->dir), "/tmp/karte-test-store-XXXXXX");
	if (!f || !mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/k.db", f->dir);
	f->st = store_open(f->path, STORE_MIGRATE, &err);
	if (!f->st) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	store_close(f->st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* One validated run from JSON text. */
static struct run_batch runs_of(const char *json)
{
	struct run_batch b;
	struct kerr err;

	if (run_parse_body(json, strlen(json), BODY_JSON, &b, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		fail();
	}
	return b;
}

static int64_t put(struct store *st, const char *json)
{
	struct run_batch b = runs_of(json);
	struct kerr err;
	int64_t id = 0;
	bool existed;

	assert_int_equal(store_begin(st, &err), 0);
	assert_int_equal(store_put_run(st, &b.runs[0], &id, &existed, &err), 0);
	assert_int_equal(store_commit(st, &err), 0);
	run_batch_free(&b);
	return id;
}

#define MERGE_TEST_CHUNK 65536	/* sqlite.c MERGE_CHUNK: a move is due */
#define MERGE_TEST_SLICE 1024	/* sqlite.c MERGE_SLICE: a move's step under load */

#define RUN(sys, app, var, p, n) \
	"{\"system\":\"" sys "\",\"application\":\"" app "\",\"variant\":\"" var \
	"\",\"p\":" #p ",\"n\":" #n ",\"tau\":2,\"chi\":0.5}"

static void test_schema_is_latest(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(store_schema_version(f->st), store_schema_latest());
	assert_int_equal(store_schema_latest(), schema_migrations[schema_migrations_count - 1].version);
	assert_true(store_schema_latest() >= 2);
}

/* An import is remembered by its hash with the ids its runs got; the same
 * import found again gives them back, another hash is not found. */
static void test_imports_remembered(void **state)
{
	struct fixture *f = *state;
	struct wjob job = {0};
	int64_t first = 0, runs = 0, ids[2];
	struct kerr err;

	job.kind = WJOB_RUNS;
	job.batch = runs_of("[" RUN("s", "a", "", 2, 10) "," RUN("s", "a", "", 4, 10) "]");
	job.ids = ids;
	job.import_hash = "import:00ff";
	writer_run_batch(f->st, &job);
	assert_int_equal(job.rc, 0);
	assert_int_equal(job.fresh, 2);
	assert_int_equal(ids[1], ids[0] + 1);
	assert_int_equal(store_import_find(f->st, "import:00ff", &first, &runs, &err), 1);
	assert_int_equal(first, ids[0]);
	assert_int_equal(runs, 2);
	assert_int_equal(store_import_find(f->st, "import:0000", &first, &runs, &err), 0);
	/* the same import again: its ids, nothing stored */
	ids[0] = ids[1] = 0;
	writer_run_batch(f->st, &job);
	assert_int_equal(job.rc, 0);
	assert_int_equal(job.fresh, 0);
	assert_int_equal(ids[0], first);
	assert_int_equal(ids[1], first + 1);
	run_batch_free(&job.batch);
}

static void test_tau_alone_round_trip(void **state)
{
	struct fixture *f = *state;
	struct run r;
	struct kerr err;
	int64_t id = put(f->st, "{\"system\":\"s\",\"application\":\"a\",\"p\":2,\"n\":1,\"tau\":3.5}");

	assert_true(id > 0);
	assert_int_equal(store_get_run(f->st, id, &r, &err), 0);
	assert_int_equal(r.has, 0);
	assert_true(isnan(r.chi) && isnan(r.gamma) && r.tau == 3.5);
	run_clear(&r);
}

static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	struct run r;
	struct kerr err;
	int64_t id = put(f->st, "{\"system\":\"SP2\",\"application\":\"md\",\"variant\":\"v1\","
			 "\"p\":16,\"n\":80000,\"tau\":12.5,\"chi\":0.30000000000000004,"
			 "\"frequency_mhz\":3000,\"energy_j\":1234.5,\"measured_at\":"
			 "\"2026-11-21T10:00:00Z\",\"regions\":[{\"name\":\"resid\",\"time_s\":1.2,"
			 "\"counters\":{\"instructions\":1.2e9}}],\"labels\":{\"class\":\"C\"}}");

	assert_true(id > 0);
	assert_int_equal(store_get_run(f->st, id, &r, &err), 0);
	assert_int_equal(r.id, id);
	assert_string_equal(r.system, "SP2");
	assert_string_equal(r.variant, "v1");
	assert_int_equal(r.p, 16);
	assert_true(r.chi == 0.1 + 0.2);
	assert_true(r.gamma == 12.5 - (0.1 + 0.2));
	assert_int_equal(r.has, RUN_HAS_CHI | RUN_HAS_FREQ | RUN_HAS_ENERGY);
	assert_true(r.energy_j == 1234.5);
	assert_string_equal(r.regions, "[{\"name\":\"resid\",\"time_s\":1.2,\"counters\":"
			    "{\"instructions\":1.2e9}}]");
	assert_string_equal(r.labels, "{\"class\":\"C\"}");
	assert_string_equal(r.measured_at, "2026-11-21T10:00:00Z");
	assert_non_null(r.created_at);
	assert_int_equal(strlen(r.created_at), strlen("2026-11-22T03:00:00.000Z"));
	run_clear(&r);
	assert_int_equal(store_get_run(f->st, id + 1000, &r, &err), -1);
	assert_int_equal(err.code, KERR_NOT_FOUND);
}

static void test_idempotency_key(void **state)
{
	struct fixture *f = *state;
	struct run_batch b = runs_of("{\"system\":\"s\",\"application\":\"a\",\"p\":1,\"n\":1,"
				     "\"tau\":1,\"chi\":0,\"idempotency_key\":\"job-1\"}");
	struct kerr err;
	int64_t id1, id2;
	bool existed;

	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_put_run(f->st, &b.runs[0], &id1, &existed, &err), 0);
	assert_false(existed);
	/* the same key again in the same transaction, and after the commit */
	assert_int_equal(store_put_run(f->st, &b.runs[0], &id2, &existed, &err), 0);
	assert_true(existed);
	assert_int_equal(id1, id2);
	assert_int_equal(store_commit(f->st, &err), 0);
	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_put_run(f->st, &b.runs[0], &id2, &existed, &err), 0);
	assert_int_equal(store_commit(f->st, &err), 0);
	assert_true(existed);
	assert_int_equal(id1, id2);
	run_batch_free(&b);
}

struct collect {
	int64_t ids[64];
	int n;
};

static int collect_id(const struct run *r, void *ctx)
{
	struct collect *c = ctx;

	c->ids[c->n++] = r->id;
	return 0;
}

static void test_listing_filters_and_pages(void **state)
{
	struct fixture *f = *state;
	struct run_filter flt = {0};
	struct collect c = {0};
	struct kerr err;
	int64_t ids[6];

	ids[0] = put(f->st, RUN("A", "md", "", 1, 100));
	ids[1] = put(f->st, RUN("A", "md", "", 2, 100));
	ids[2] = put(f->st, RUN("A", "md", "v2", 2, 200));
	ids[3] = put(f->st, RUN("B", "md", "", 4, 100));
	ids[4] = put(f->st, RUN("A", "cg", "", 4, 100));
	ids[5] = put(f->st, RUN("A", "md", "", 8, 100));

	flt.system = "A";
	flt.application = "md";
	assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
	assert_int_equal(c.n, 4);	/* newest first, every variant */
	assert_int_equal(c.ids[0], ids[5]);
	assert_int_equal(c.ids[1], ids[2]);
	assert_int_equal(c.ids[3], ids[0]);

	memset(&c, 0, sizeof(c));
	flt.variant = "";
	flt.limit = 2;
	assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.ids[0], ids[5]);
	assert_int_equal(c.ids[1], ids[1]);
	flt.before_id = c.ids[1];	/* the next page */
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.ids[0], ids[0]);

	memset(&flt, 0, sizeof(flt));
	memset(&c, 0, sizeof(c));
	flt.p = 4;
	flt.oldest_first = true;
	assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.ids[0], ids[3]);
	assert_int_equal(c.ids[1], ids[4]);

	memset(&flt, 0, sizeof(flt));
	memset(&c, 0, sizeof(c));
	flt.n = 200;
	assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.ids[0], ids[2]);
}

static void test_listing_uses_the_series_index(void **state)
{
	struct fixture *f = *state;
	struct run_filter flt = {.system = "A", .application = "md", .variant = "", .limit = 10};
	struct kerr err;
	char plan[1024];

	assert_int_equal(store_explain_listing(f->st, &flt, plan, sizeof(plan), &err), 0);
	print_message("# plan: %s", plan);
	/* each table apart, by its index and the epoch's range of ids */
	assert_string_equal(plan, "SEARCH r USING INDEX runs_series (epoch=? AND series_id=? AND id>? AND "
			    "id<?)\nSEARCH r USING INDEX runs_new_series (series_id=? AND id>? AND id<?)\n");
}

#define LRUN(sys, p, labels) \
	"{\"system\":\"" sys "\",\"application\":\"md\",\"p\":" #p ",\"n\":1,\"tau\":2,\"labels\":" labels "}"

static int count_row(const char *const *v, int ncol, void *ctx)
{
	(void)ncol;
	*(long *)ctx = atol(v[0]);
	return 0;
}

/* A label filter without a whole series walks that label's entries of
 * run_labels (schema 9), newest first, and pages by id; the table follows
 * inserts and deletes of runs. */
static void test_label_filter_uses_its_index(void **state)
{
	struct fixture *f = *state;
	struct label_eq commit = {"commit", "a1"}, two[2] = {{"commit", "a1"}, {"cc", "gcc"}};
	struct run_filter flt = {.labels = &commit, .nlabels = 1, .limit = 2};
	struct collect c = {0};
	struct kerr err;
	char plan[1024];
	int64_t ids[5];
	long rows = 0;
	bool deleted;

	ids[0] = put(f->st, LRUN("A", 1, "{\"commit\":\"a1\",\"cc\":\"gcc\"}"));
	ids[1] = put(f->st, LRUN("B", 2, "{\"commit\":\"b2\"}"));
	ids[2] = put(f->st, LRUN("A", 4, "{\"commit\":\"a1\",\"cc\":\"icx\"}"));
	ids[3] = put(f->st, LRUN("B", 8, "{\"commit\":\"a1\",\"cc\":\"gcc\"}"));
	ids[4] = put(f->st, RUN("A", "md", "", 16, 1));
	assert_int_equal(store_explain_listing(f->st, &flt, plan, sizeof(plan), &err), 0);
	print_message("# plan: %s", plan);
	assert_non_null(strstr(plan, "SEARCH l USING PRIMARY KEY (key=? AND value=? AND run_id<?)"));
	assert_null(strstr(plan, "SCAN l"));	/* (SCAN import_pending: a table of one row at most) */
	assert_null(strstr(plan, "SCAN r"));
	assert_null(strstr(plan, "TEMP B-TREE"));
	assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.ids[0], ids[3]);
	assert_int_equal(c.ids[1], ids[2]);
	memset(&c, 0, sizeof(c));
	flt.before_id = ids[2];
	assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.ids[0], ids[0]);
	/* two labels, and another filter beside them */
	memset(&c, 0, sizeof(c));
	flt = (struct run_filter){.labels = two, .nlabels = 2, .system = "A"};
	assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.ids[0], ids[0]);
	/* a label nobody has: nothing, at once */
	memset(&c, 0, sizeof(c));
	commit.value = "none";
	flt = (struct run_filter){.labels = &commit, .nlabels = 1, .limit = 10};
	assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
	assert_int_equal(c.n, 0);
	/* the table follows the runs: 7 labels of 4 runs, then one of 2 deleted */
	assert_int_equal(store_query(f->st, "SELECT count(*) FROM run_labels", "", NULL, count_row, &rows,
				     NULL, &err), 0);
	assert_int_equal(rows, 7);
	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_delete_run(f->st, ids[3], &deleted, &err), 0);
	assert_int_equal(store_commit(f->st, &err), 0);
	assert_int_equal(store_query(f->st, "SELECT count(*) FROM run_labels", "", NULL, count_row, &rows,
				     NULL, &err), 0);
	assert_int_equal(rows, 5);
	(void)ids[4];
}

static long rows_of(struct store *st, const char *sql)
{
	struct kerr err;
	long n = -1;

	assert_int_equal(store_query(st, sql, "", NULL, count_row, &n, NULL, &err), 0);
	return n;
}

#define EPOCH_TEST_SHIFT 18	/* sqlite.c EPOCH_SHIFT: runs_series by id >> 18 */

/* The next run stored gets id `to` + 1 (ids skipped are never given). */
static void jump_ids(struct store *st, int64_t to)
{
	char v[24];
	struct kerr err;

	snprintf(v, sizeof(v), "%lld", (long long)to);
	assert_int_equal(store_query(st, "UPDATE run_id_floor SET high = $1", "i", (const char *const[]){v},
				     NULL, NULL, NULL, &err), 0);
}

/* The ids of the listing of flt, whole (limit 0) or page by page of
 * `page` runs, each page from the last id of the one before. */
static int list_ids(struct store *st, struct run_filter flt, int page, int64_t *out)
{
	struct collect c;
	struct kerr err;
	int n = 0;

	flt.limit = page;
	do {
		memset(&c, 0, sizeof(c));
		assert_int_equal(store_each_run(st, &flt, collect_id, &c, &err), 0);
		assert_true(page == 0 || c.n <= page);
		memcpy(out + n, c.ids, sizeof(c.ids[0]) * (size_t)c.n);
		n += c.n;
		if (c.n)
			flt.before_id = c.ids[c.n - 1];
	} while (page && c.n == page);
	return n;
}

/* Schema 15: a whole series is listed an epoch (2^18 ids) at a time, in
 * id order across them, from both tables, epochs without its runs
 * between, pages that end inside an epoch or at its last run; and the
 * series' other reads (its newest run after a delete) cross epochs. */
static void test_listing_walks_the_epochs(void **state)
{
	struct fixture *f = *state;
	struct run_filter flt = {.system = "E", .application = "md", .variant = ""};
	int64_t a[12], got[16], moved;
	int na = 0, i, page, n;
	struct kerr err;
	bool deleted;

	a[na++] = put(f->st, RUN("E", "md", "", 1, 1));
	put(f->st, RUN("E", "other", "", 1, 1));
	a[na++] = put(f->st, RUN("E", "md", "", 4, 1));
	jump_ids(f->st, (1 << EPOCH_TEST_SHIFT) - 2);	/* the last id of epoch 0, then epoch 1 */
	a[na++] = put(f->st, RUN("E", "md", "", 1, 1));
	a[na++] = put(f->st, RUN("E", "md", "", 4, 1));
	put(f->st, RUN("E", "other", "", 1, 1));
	a[na++] = put(f->st, RUN("E", "md", "", 1, 1));
	assert_int_equal(a[2] >> EPOCH_TEST_SHIFT, 0);
	assert_int_equal(a[3] >> EPOCH_TEST_SHIFT, 1);
	assert_int_equal(store_merge(f->st, true, &moved, &err), 0);
	jump_ids(f->st, (3 << EPOCH_TEST_SHIFT) + 7);	/* epoch 2 holds nothing */
	a[na++] = put(f->st, RUN("E", "md", "", 4, 1));
	put(f->st, RUN("E", "other", "", 4, 1));
	a[na++] = put(f->st, RUN("E", "md", "", 1, 1));
	assert_int_equal(store_merge(f->st, true, &moved, &err), 0);
	a[na++] = put(f->st, RUN("E", "md", "", 1, 1));	/* staged, in epoch 3 */
	jump_ids(f->st, (4 << EPOCH_TEST_SHIFT) - 1);
	a[na++] = put(f->st, RUN("E", "md", "", 4, 1));	/* staged, the first of epoch 4 */
	assert_int_equal(a[na - 1], 4 << EPOCH_TEST_SHIFT);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs_new"), 2);

	for (page = 0; page <= 4; page++) {
		flt.oldest_first = true;
		n = list_ids(f->st, flt, page, got);
		assert_int_equal(n, na);
		assert_memory_equal(got, a, sizeof(a[0]) * (size_t)na);
		flt.oldest_first = false;
		n = list_ids(f->st, flt, page, got);
		assert_int_equal(n, na);
		for (i = 0; i < na; i++)
			assert_int_equal(got[i], a[na - 1 - i]);
	}
	/* a filter beside the series: p = 4, newest first from inside epoch 1 */
	flt.p = 4;
	flt.before_id = a[4];
	assert_int_equal(list_ids(f->st, flt, 0, got), 2);
	assert_int_equal(got[0], a[3]);
	assert_int_equal(got[1], a[1]);
	/* a series without runs, and one that is not there */
	flt = (struct run_filter){.system = "E", .application = "none", .variant = ""};
	assert_int_equal(list_ids(f->st, flt, 0, got), 0);
	/* the newest run deleted: the series' newest is found in an older epoch */
	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_delete_run(f->st, a[na - 1], &deleted, &err), 0);
	assert_true(deleted);
	assert_int_equal(store_delete_run(f->st, a[na - 2], &deleted, &err), 0);
	assert_int_equal(store_commit(f->st, &err), 0);
	assert_int_equal(rows_of(f->st, "SELECT last_run_id FROM series WHERE application = 'md'"), a[na - 3]);
	assert_int_equal(store_merge(f->st, true, &moved, &err), 0);
	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_delete_run(f->st, a[na - 3], &deleted, &err), 0);
	assert_int_equal(store_commit(f->st, &err), 0);
	assert_int_equal(rows_of(f->st, "SELECT last_run_id FROM series WHERE application = 'md'"), a[na - 4]);
}

/* A large import stores its parts while moves go on (sqlite.c): runs_new
 * then holds the import's ids, below ids that were moved into runs_base.
 * The import's runs are hidden until it is shown, then listed in id order
 * with the others, whole and in pages, both ways. */
static void test_listing_merges_the_tables_by_id(void **state)
{
	struct fixture *f = *state;
	struct run_filter flt = {.system = "I", .application = "md", .variant = ""};
	struct run_batch b = runs_of("[" RUN("I", "md", "", 1, 1) "," RUN("I", "md", "", 2, 1) "," RUN(
		"I", "md", "", 4, 1) "]");
	struct store_series_count count = {0, 3, 0};
	int64_t a[8], got[8], lo, id, series, moved;
	int na = 0, n, page, i;
	struct kerr err;
	bool existed;

	a[na++] = put(f->st, RUN("I", "md", "", 1, 1));
	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_import_reserve(f->st, "", 3, "2000-01-01T00:00:00Z", &lo, &err), 0);
	assert_int_equal(store_put_run_at(f->st, &b.runs[0], lo, &id, &existed, &series, &err), 0);
	assert_int_equal(store_commit(f->st, &err), 0);
	a[na++] = put(f->st, RUN("I", "md", "", 8, 1));	/* beside the import, above its ids */
	assert_true(a[na - 1] > lo + 2);
	assert_int_equal(store_merge(f->st, true, &moved, &err), 0);	/* both into runs_base */
	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_put_run_at(f->st, &b.runs[1], lo + 1, &id, &existed, &series, &err), 0);
	assert_int_equal(store_put_run_at(f->st, &b.runs[2], lo + 2, &id, &existed, &series, &err), 0);
	assert_int_equal(store_commit(f->st, &err), 0);
	a[na++] = put(f->st, RUN("I", "md", "", 16, 1));
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs_new WHERE id < (SELECT max(id) FROM "
				 "runs_base)"), 2);
	flt.oldest_first = true;
	assert_int_equal(list_ids(f->st, flt, 0, got), 3);	/* the import hidden */
	assert_int_equal(got[0], a[0]);
	assert_int_equal(got[1], a[1]);
	assert_int_equal(got[2], a[2]);
	count.series = series;
	count.last_id = lo + 2;
	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_import_publish(f->st, "", lo, 3, &count, 1, &err), 0);
	assert_int_equal(store_commit(f->st, &err), 0);
	a[na++] = lo;
	a[na++] = lo + 1;
	a[na++] = lo + 2;
	for (i = 0; i < na; i++)	/* a: the ids in order */
		for (n = i + 1; n < na; n++)
			if (a[n] < a[i]) {
				id = a[i];
				a[i] = a[n];
				a[n] = id;
			}
	for (page = 0; page <= 4; page++) {
		flt.oldest_first = true;
		assert_int_equal(list_ids(f->st, flt, page, got), na);
		assert_memory_equal(got, a, sizeof(a[0]) * (size_t)na);
		flt.oldest_first = false;
		assert_int_equal(list_ids(f->st, flt, page, got), na);
		for (i = 0; i < na; i++)
			assert_int_equal(got[i], a[na - 1 - i]);
	}
	run_batch_free(&b);
}

/* The text of column col of sql's first row, on a connection of its own. */
static void first_text(const char *path, const char *sql, int col, char *out, size_t size)
{
	sqlite3 *db;
	sqlite3_stmt *s;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	out[0] = '\0';
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, col))
		snprintf(out, size, "%s", (const char *)sqlite3_column_text(s, col));
	sqlite3_finalize(s);
	sqlite3_close(db);
}

#define SERIES_STAT_SQL "SELECT stat FROM sqlite_stat1 WHERE idx = 'runs_series'"
/* its detail in column 3 */
#define SERIES_PLAN_SQL "EXPLAIN QUERY PLAN SELECT id FROM runs_base WHERE series_id = 1"

/* SQLite finds a series' entries in runs_series (epoch first) by a
 * skip-scan only when sqlite_stat1 says an epoch holds many: karted
 * writes that at every start, over what an ANALYZE of a small database
 * said; without it a series' read would be a scan of the whole index. */
static void test_series_statistics_at_every_start(void **state)
{
	struct fixture *f = *state;
	char text[256];
	struct kerr err;
	int64_t moved;
	sqlite3 *db;

	first_text(f->path, SERIES_STAT_SQL, 0, text, sizeof(text));
	assert_string_equal(text, "1000000 262144 30 1 1 1 1 1");
	first_text(f->path, SERIES_PLAN_SQL, 3, text, sizeof(text));
	assert_non_null(strstr(text, "runs_series (ANY(epoch) AND series_id=?)"));
	put(f->st, RUN("S", "md", "", 1, 1));
	put(f->st, RUN("S", "md", "", 2, 1));
	assert_int_equal(store_merge(f->st, true, &moved, &err), 0);
	assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "ANALYZE", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	first_text(f->path, SERIES_STAT_SQL, 0, text, sizeof(text));
	assert_string_equal(text, "2 2 2 1 1 1 1 1");	/* two runs, one epoch, one series */
	first_text(f->path, SERIES_PLAN_SQL, 3, text, sizeof(text));
	assert_null(strstr(text, "ANY(epoch)"));	/* what SQLite would do with it: read it all */
	store_close(f->st);
	f->st = store_open(f->path, STORE_MIGRATE, &err);
	assert_non_null(f->st);
	first_text(f->path, SERIES_STAT_SQL, 0, text, sizeof(text));
	assert_string_equal(text, "1000000 262144 30 1 1 1 1 1");
	first_text(f->path, SERIES_PLAN_SQL, 3, text, sizeof(text));
	assert_non_null(strstr(text, "runs_series (ANY(epoch) AND series_id=?)"));
}

static int collect_point(size_t k, const struct run *r, void *ctx)
{
	(void)k;
	return collect_id(r, ctx);
}

#define KRUN(p, key, labels)                                                                   \
	"{\"system\":\"M\",\"application\":\"md\",\"p\":" #p ",\"n\":1,\"tau\":2,"           \
	"\"measured_at\":\"2026-01-0" #p "T00:00:00Z\",\"idempotency_key\":\"" key "\",\"labels\":" labels "}"

/* Runs spread over more series than the writer's series cache keeps
 * (SERIES_CACHE 16384, emptied at three quarters) and than one
 * transaction counts at once (TALLY_MAX): each run lands in its own series
 * and each series counts its runs; a series made in a transaction rolled
 * back is made again, not taken from the cache. */
static void test_runs_spread_over_many_series(void **state)
{
	struct fixture *f = *state;
	const int nseries = 13000, per_tx = 300;
	struct kerr err;
	char json[160];
	int pass, i;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < nseries; i++) {
			struct run_batch b;
			int64_t id;
			bool existed;

			snprintf(json, sizeof(json),
				 "{\"system\":\"S\",\"application\":\"a%d\",\"variant\":\"\",\"p\":%d,"
				 "\"n\":1,\"tau\":2}", i, i + 1);
			b = runs_of(json);
			if (i % per_tx == 0)
				assert_int_equal(store_begin(f->st, &err), 0);
			assert_int_equal(store_put_run(f->st, &b.runs[0], &id, &existed, &err), 0);
			if (i % per_tx == per_tx - 1 || i == nseries - 1)
				assert_int_equal(store_commit(f->st, &err), 0);
			run_batch_free(&b);
		}
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM series"), nseries);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM series WHERE runs = 2"), nseries);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs"), 2 * nseries);
	/* the series a run went to is the one it named (p is its number + 1) */
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs r JOIN series s ON s.id = "
				 "r.series_id WHERE s.application <> 'a' || (r.p - 1)"), 0);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM series s WHERE last_run_id <> "
				 "(SELECT max(id) FROM runs r WHERE r.series_id = s.id)"), 0);

	/* a series made and rolled back, then stored again */
	{
		struct run_batch b = runs_of(RUN("S", "rolled", "", 2, 10));
		int64_t id;
		bool existed;

		assert_int_equal(store_begin(f->st, &err), 0);
		assert_int_equal(store_put_run(f->st, &b.runs[0], &id, &existed, &err), 0);
		store_rollback(f->st);
		run_batch_free(&b);
	}
	put(f->st, RUN("S", "rolled", "", 2, 10));
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM series WHERE application = 'rolled' "
				 "AND runs = 1"), 1);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs r JOIN series s ON s.id = "
				 "r.series_id WHERE s.application = 'rolled'"), 1);
}

/* Schema 11: runs are stored into runs_new and moved into runs_base by
 * store_merge; every read sees one record across the two tables, and a
 * merge changes no answer: listings page across them, a label finds runs
 * in both, a key stored before the merge is still found, the regression
 * check's earlier runs of a point come from both, newest first; deletes
 * reach either table, keep the labels and counts right and never give an
 * id again. */
static void test_merge_keeps_one_record(void **state)
{
	struct fixture *f = *state;
	struct run_filter flt = {.system = "M", .application = "md", .variant = "", .limit = 2};
	struct label_eq commit = {"commit", "a1"};
	struct run_batch again = runs_of(KRUN(2, "job-2", "null"));
	struct collect c = {0};
	struct kerr err;
	int64_t ids[4], moved = -1, id;
	bool existed, deleted;

	ids[0] = put(f->st, KRUN(1, "job-1", "{\"commit\":\"a1\"}"));
	ids[1] = put(f->st, KRUN(2, "job-2", "{\"commit\":\"b2\"}"));
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs_new"), 2);
	/* fewer than a chunk: nothing moves unless all are asked for */
	assert_int_equal(store_merge(f->st, false, &moved, &err), 0);
	assert_int_equal(moved, 0);
	assert_int_equal(store_merge(f->st, true, &moved, &err), 0);
	assert_int_equal(moved, 2);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs_base"), 2);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs_new"), 0);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM run_labels"), 2);	/* kept */
	ids[2] = put(f->st, KRUN(3, "job-3", "{\"commit\":\"a1\"}"));
	ids[3] = put(f->st, KRUN(4, "job-4", "{\"commit\":\"d4\"}"));
	assert_true(ids[2] > ids[1] && ids[3] > ids[2]);
	/* pages of two, newest first, the second across the tables */
	assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
	flt.before_id = c.ids[1];
	assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
	assert_int_equal(c.n, 4);
	assert_int_equal(c.ids[0], ids[3]);
	assert_int_equal(c.ids[1], ids[2]);
	assert_int_equal(c.ids[2], ids[1]);
	assert_int_equal(c.ids[3], ids[0]);
	/* oldest first */
	memset(&c, 0, sizeof(c));
	flt = (struct run_filter){.system = "M", .application = "md", .variant = "", .limit = 3,
				  .oldest_first = true};
	assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.ids[0], ids[0]);
	assert_int_equal(c.ids[2], ids[2]);
	/* a label, newest first and oldest first, one run in each table */
	for (int oldest = 0; oldest < 2; oldest++) {
		memset(&c, 0, sizeof(c));
		flt = (struct run_filter){.labels = &commit, .nlabels = 1, .limit = 10,
					  .oldest_first = oldest};
		assert_int_equal(store_each_run(f->st, &flt, collect_id, &c, &err), 0);
		assert_int_equal(c.n, 2);
		assert_int_equal(c.ids[0], oldest ? ids[0] : ids[2]);
		assert_int_equal(c.ids[1], oldest ? ids[2] : ids[0]);
	}
	/* a key stored before the merge */
	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_put_run(f->st, &again.runs[0], &id, &existed, &err), 0);
	assert_int_equal(store_commit(f->st, &err), 0);
	assert_true(existed);
	assert_int_equal(id, ids[1]);
	/* the point's earlier runs: p differs, so one point a run; all at p=4
	 * would be one point, so ask for the run of p=1 alone: none before */
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_points_before(f->st, &ids[0], 1, 100, collect_point, &c, &err), 0);
	assert_int_equal(c.n, 0);
	/* deletes: one in each table, the newest included */
	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_delete_run(f->st, ids[0], &deleted, &err), 0);
	assert_true(deleted);
	assert_int_equal(store_delete_run(f->st, ids[3], &deleted, &err), 0);
	assert_true(deleted);
	assert_int_equal(store_delete_run(f->st, ids[3], &deleted, &err), 0);
	assert_false(deleted);
	assert_int_equal(store_commit(f->st, &err), 0);
	/* 4 before: ids[0]'s (in runs_base) and ids[3]'s (in runs_new) gone */
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM run_labels"), 2);
	assert_int_equal(rows_of(f->st, "SELECT runs FROM series WHERE system = 'M'"), 2);
	assert_int_equal(rows_of(f->st, "SELECT last_run_id FROM series WHERE system = 'M'"), ids[2]);
	id = put(f->st, KRUN(5, "job-5", "null"));
	assert_true(id > ids[3]);	/* the deleted newest id is not given again */
	run_batch_free(&again);
}

/* n runs of the series of run `of` staged in runs_new by hand, ids after
 * `after`: a move's worth without a commit each. */
static void stage(struct store *st, int64_t of, int64_t after, int n)
{
	char from[24], last[24], count[24];
	struct kerr err;

	snprintf(from, sizeof(from), "%lld", (long long)after);
	snprintf(last, sizeof(last), "%lld", (long long)of);
	snprintf(count, sizeof(count), "%d", n);
	assert_int_equal(store_query(st, "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
				     "FROM k WHERE i < $3) INSERT INTO runs_new (id, series_id, p, n, "
				     "tau, created_at) SELECT $1 + i, (SELECT series_id FROM runs WHERE "
				     "id = $2), 1, 1, 2, '2026-01-01T00:00:00Z' FROM k", "iii",
				     (const char *const[]){from, last, count}, NULL, NULL, NULL, &err), 0);
}

/* store_merge(false) until it moves nothing: what the writer does between
 * batches while a move goes on in slices. The runs moved, -1 on a failure;
 * *calls how many moved some. */
static int64_t merge_slices(struct store *st, int *calls)
{
	struct kerr err;
	int64_t moved, sum = 0;

	*calls = 0;
	do {
		if (store_merge(st, false, &moved, &err))
			return -1;
		sum += moved;
		*calls += moved > 0;
	} while (moved);
	return sum;
}

/* A backlog of 65,536 or more is moved under load 1024 at a time, the
 * oldest first, the last slice (1024 or fewer) emptying runs_new whole;
 * below 65,536 nothing moves; store_merge(all) moves what is left. */
static void test_merge_moves_a_backlog_in_chunks(void **state)
{
	struct fixture *f = *state;
	struct kerr err;
	int64_t first = put(f->st, RUN("C", "md", "", 1, 1)), moved = 0;
	int calls;

	/* 2 * 65,536 + 10 runs of the same series in all, the rest by hand */
	stage(f->st, first, first, 131082);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs_new"), 131083);
	assert_int_equal(store_merge(f->st, false, &moved, &err), 0);
	assert_int_equal(moved, MERGE_TEST_SLICE);
	assert_int_equal(rows_of(f->st, "SELECT max(id) FROM runs_base"), first + MERGE_TEST_SLICE - 1);
	assert_int_equal(rows_of(f->st, "SELECT min(id) FROM runs_new"), first + MERGE_TEST_SLICE);
	/* 130,059 left: 127 slices of 1024, then the last 11 at once */
	assert_int_equal(merge_slices(f->st, &calls), 131083 - MERGE_TEST_SLICE);
	assert_int_equal(calls, (131083 - MERGE_TEST_SLICE) / MERGE_TEST_SLICE + 1);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs_new"), 0);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs"), 131083);
	/* below a chunk nothing moves under load; all moves it whole */
	stage(f->st, first, first + 131083, 100);
	assert_int_equal(store_merge(f->st, false, &moved, &err), 0);
	assert_int_equal(moved, 0);
	assert_int_equal(store_merge(f->st, true, &moved, &err), 0);
	assert_int_equal(moved, 100);
	assert_int_equal(store_merge(f->st, true, &moved, &err), 0);
	assert_int_equal(moved, 0);
}

/* A labels object may name a key twice: the run is stored, and each
 * (key, value) is one label row (karted stores them OR IGNORE, schema
 * 13). A run inserted by hand through the view gets its label rows from
 * the view's trigger, with the id it was given or the one chosen. */
static void test_a_label_written_twice_is_one_row(void **state)
{
	struct fixture *f = *state;
	struct kerr err;
	int64_t id = put(f->st, "{\"system\":\"L\",\"application\":\"md\",\"p\":1,\"n\":1,\"tau\":2,"
			 "\"labels\":{\"a\":\"1\",\"a\":\"1\",\"b\":\"2\",\"a\":\"3\"}}");
	char sql[96];

	assert_true(id > 0);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM run_labels WHERE run_id = %lld", (long long)id);
	assert_int_equal(rows_of(f->st, sql), 3);	/* a=1, b=2, a=3 */
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs"), 1);

	assert_int_equal(store_query(f->st, "INSERT INTO runs (series_id, p, n, tau, labels, created_at) "
				     "SELECT series_id, 2, 1, 2, '{\"h\":\"x\",\"h\":\"x\"}', created_at "
				     "FROM runs", "", NULL, NULL, NULL, NULL, &err), 0);
	assert_int_equal(store_query(f->st, "INSERT INTO runs (id, series_id, p, n, tau, labels, created_at) "
				     "SELECT 1000, series_id, 3, 1, 2, '{\"h\":\"y\"}', created_at FROM runs "
				     "WHERE p = 1", "", NULL, NULL, NULL, NULL, &err), 0);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM run_labels l, runs r WHERE l.key = 'h' AND "
				 "l.value = 'x' AND r.id = l.run_id AND r.p = 2"), 1);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM run_labels WHERE key = 'h'"), 2);
	assert_int_equal(rows_of(f->st, "SELECT run_id FROM run_labels WHERE value = 'y'"), 1000);
}

/* A move that fails (here at an id found in both tables, made so by
 * hand) keeps nothing: its copy stops where it fails without undoing
 * itself (OR FAIL, no statement journal to write), and the whole move
 * is rolled back. Once the id is in one table again, the move is made. */
static void test_a_failed_move_keeps_nothing(void **state)
{
	struct fixture *f = *state;
	struct kerr err;
	int64_t first = put(f->st, RUN("F", "md", "", 1, 1)), moved = -1;
	char mid[24];
	int calls;

	stage(f->st, first, first + 10, MERGE_TEST_CHUNK);
	/* in the first slice */
	snprintf(mid, sizeof(mid), "%lld", (long long)(first + 10 + 100));
	assert_int_equal(store_query(f->st, "INSERT INTO runs_base (id, series_id, p, n, tau, created_at) "
				     "SELECT id, series_id, p, n, tau, created_at FROM runs_new WHERE id = $1",
				     "i", (const char *const[]){mid}, NULL, NULL, NULL, &err), 0);
	assert_int_equal(store_merge(f->st, false, &moved, &err), -1);
	assert_int_equal(moved, 0);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs_base"), 1);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs_new"), MERGE_TEST_CHUNK + 1);
	assert_int_equal(store_query(f->st, "DELETE FROM runs_base WHERE id = $1", "i",
				     (const char *const[]){mid}, NULL, NULL, NULL, &err), 0);
	assert_int_equal(merge_slices(f->st, &calls), MERGE_TEST_CHUNK + 1);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs_base"), MERGE_TEST_CHUNK + 1);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs_new"), 0);
}

/* A move ends on a new connection (sqlite.c: renew, which lets go of the
 * page cache the move grew). What store_data_version says goes on across
 * it: the move is no other connection's write to the regression check, a
 * write of another connection seen before it stays seen, and one made
 * just before the move is seen after it. */
static void test_a_move_is_no_write_of_another_connection(void **state)
{
	struct fixture *f = *state;
	struct kerr err;
	struct store *other = store_open(f->path, 0, &err);
	int64_t first, a0, c0, a1, c1, a2, c2, a3, c3;
	int calls;

	assert_non_null(other);
	first = put(f->st, RUN("V", "md", "", 1, 1));
	put(other, RUN("V", "other", "", 1, 1));	/* seen by f->st below: its version is not its first */
	assert_int_equal(store_data_version(f->st, &a0, &c0), 0);
	stage(f->st, first, first + 10, MERGE_TEST_CHUNK);
	assert_int_equal(store_data_version(f->st, &a0, &c0), 0);
	assert_int_equal(merge_slices(f->st, &calls), MERGE_TEST_CHUNK + 2);	/* with the two put */
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs_base"), MERGE_TEST_CHUNK + 2);
	assert_int_equal(store_data_version(f->st, &a1, &c1), 0);
	assert_true(a1 == a0 && c1 == c0);

	stage(f->st, first, first + 10 + MERGE_TEST_CHUNK, MERGE_TEST_CHUNK);
	put(other, RUN("V", "other", "", 2, 1));	/* between f->st's last look and the move */
	assert_int_equal(merge_slices(f->st, &calls), MERGE_TEST_CHUNK + 1);
	assert_int_equal(store_data_version(f->st, &a2, &c2), 0);
	assert_true(a2 != a1 && c2 != c1);
	assert_int_equal(store_data_version(f->st, &a3, &c3), 0);
	assert_true(a3 == a2 && c3 == c2);
	/* the new connection stores and reads as the old one did */
	assert_true(put(f->st, RUN("V", "md", "", 2, 1)) > first + 10 + 2 * MERGE_TEST_CHUNK);
	assert_int_equal(rows_of(f->st, "SELECT count(*) FROM runs"), 2 * MERGE_TEST_CHUNK + 4);
	store_close(other);
}

/* Under a steady stream of commits the checkpointer's copy (another
 * connection) always ends behind the writer's latest commit, so SQLite
 * never starts the WAL again and it grows without end. The writer's
 * upkeep between batches (store_merge) copies the rest once the WAL holds
 * more than 64 MiB, and the next commit starts it again. */
static void test_the_wal_starts_again_under_steady_commits(void **state)
{
	struct fixture *f = *state;
	struct kerr err;
	struct store *w = store_open(f->path, STORE_NO_AUTOCHECKPOINT, &err);
	struct store *cp = store_open(f->path, STORE_NO_AUTOCHECKPOINT, &err);
	char wal[112], json[160];
	struct run_batch b;
	struct stat sb;
	off_t most = 0;
	int64_t id, moved;
	bool existed;
	int i;

	assert_non_null(w);
	assert_non_null(cp);
	snprintf(wal, sizeof(wal), "%s-wal", f->path);
	for (i = 0; i < 8000; i++) {
		snprintf(json, sizeof(json), "{\"system\":\"W\",\"application\":\"a%d\",\"p\":%d,"
			 "\"n\":1,\"tau\":2}", i % 997, 1 + i / 997);
		b = runs_of(json);
		assert_int_equal(store_begin(w, &err), 0);
		assert_int_equal(store_put_run(w, &b.runs[0], &id, &existed, &err), 0);
		if (i % 50 == 0)	/* copies all that is committed, while w writes more */
			assert_int_equal(store_checkpoint(cp, false, NULL, &err), 0);
		assert_int_equal(store_commit(w, &err), 0);
		run_batch_free(&b);
		if (i % 100 == 99)
			assert_int_equal(store_merge(w, false, &moved, &err), 0);
		assert_int_equal(stat(wal, &sb), 0);
		if (sb.st_size > most)
			most = sb.st_size;
	}
	/* 8,000 commits write about 160 MiB of WAL: it grew past 64 MiB, and
	 * was started again and cut back to 64 MiB */
	assert_true(most > ((off_t)64 << 20));
	assert_true(sb.st_size < ((off_t)72 << 20));
	store_close(cp);
	store_close(w);
}

/* What store_points_before must give for run id, limit: the query over
 * both tables that schema 7 to 13 answered through runs_point, read on
 * a connection of its own. */
static int reference_before(sqlite3 *db, int64_t id, int limit, int64_t *out)
{
	sqlite3_stmt *s;
	int n = 0;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT r.id FROM runs r, runs a WHERE a.id = ?1 AND "
					    "r.series_id = a.series_id AND r.p = a.p AND r.n = a.n AND "
					    "(coalesce(r.measured_at, r.created_at), r.id) < (coalesce("
					    "a.measured_at, a.created_at), a.id) ORDER BY coalesce("
					    "r.measured_at, r.created_at) DESC, r.id DESC LIMIT ?2",
					    -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int(s, 2, limit);
	while (sqlite3_step(s) == SQLITE_ROW)
		out[n++] = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

struct by_k {
	int64_t ids[8][64];
	int n[8];
};

static int collect_by_k(size_t k, const struct run *r, void *ctx)
{
	struct by_k *c = ctx;

	assert_true(k < 8 && c->n[k] < 64);
	c->ids[k][c->n[k]++] = r->id;
	return 0;
}

/* Schema 14: runs_base has no index by point; a point's earlier runs
 * there come from one walk of the series (several points of a series
 * asked at once share it). 300 runs over two series, four points each,
 * every fourth without a measured time (created_at then) and the others
 * at times out of id order (every eighth 51 characters long, past what
 * sq_points_before keeps in place), a move after every 40, so that both tables
 * hold runs of every point: for batches of 8 asks, from the writer's
 * connection (which remembers the points of the runs it stored) and
 * from another, the runs and their order are the query's. */
static void test_points_before_is_the_query(void **state)
{
	struct fixture *f = *state;
	struct kerr err;
	int64_t ids[300], want[64], moved;
	struct by_k got;
	struct store *other;
	sqlite3 *db;
	char json[256];
	unsigned seed = 12345;
	int i, k, w, limit, pass, n;

	for (i = 0; i < 300; i++) {
		seed = seed * 1103515245u + 12345u;
		if (i % 4 == 3)
			snprintf(json, sizeof(json), "{\"system\":\"Q\",\"application\":\"a%d\",\"p\":%d,"
				 "\"n\":%d,\"tau\":2}", i % 2, 1 + (i / 2) % 2, 1 + (i / 4) % 2);
		else	/* every eighth with a time longer than sqlite.c keeps in place */
			snprintf(json, sizeof(json), "{\"system\":\"Q\",\"application\":\"a%d\",\"p\":%d,"
				 "\"n\":%d,\"tau\":2,\"measured_at\":\"2026-0%u-1%uT00:00:00%sZ\"}", i % 2,
				 1 + (i / 2) % 2, 1 + (i / 4) % 2, 1 + (seed >> 16) % 9, (seed >> 8) % 10,
				 i % 8 == 5 ? ".000000000000000000000000000001" : "");
		ids[i] = put(f->st, json);
		if (i % 40 == 39)
			assert_int_equal(store_merge(f->st, true, &moved, &err), 0);
		if (i % 80 == 59)	/* the next ids an epoch or two further on (schema 15) */
			jump_ids(f->st, ids[i] + ((int64_t)(1 + i / 80 % 2) << EPOCH_TEST_SHIFT));
	}
	assert_true(ids[299] >> EPOCH_TEST_SHIFT == 4);
	assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	other = store_open(f->path, 0, &err);
	assert_non_null(other);
	for (pass = 0; pass < 20; pass++) {
		int64_t ask[8];

		for (k = 0; k < 8; k++) {
			seed = seed * 1103515245u + 12345u;
			ask[k] = ids[(seed >> 8) % 300];
		}
		limit = pass % 3 == 2 ? 1 : 40;
		memset(&got, 0, sizeof(got));
		assert_int_equal(store_points_before(pass % 2 ? other : f->st, ask, 8, limit, collect_by_k,
						     &got, &err), 0);
		for (k = 0; k < 8; k++) {
			n = reference_before(db, ask[k], limit, want);
			assert_int_equal(got.n[k], n);
			for (w = 0; w < n; w++)
				assert_int_equal(got.ids[k][w], want[w]);
		}
	}
	/* a point with more earlier runs than the limit: the latest of them */
	memset(&got, 0, sizeof(got));
	assert_int_equal(store_points_before(f->st, &ids[299], 1, 5, collect_by_k, &got, &err), 0);
	assert_int_equal(got.n[0], 5);
	assert_int_equal(reference_before(db, ids[299], 5, want), 5);
	assert_memory_equal(got.ids[0], want, sizeof(want[0]) * 5);
	/* limits outside 1..STORE_POINTS_LIMIT_MAX are refused */
	assert_int_equal(store_points_before(f->st, &ids[0], 1, 0, collect_by_k, &got, &err), -1);
	assert_int_equal(store_points_before(f->st, &ids[0], 1, STORE_POINTS_LIMIT_MAX + 1, collect_by_k,
					     &got, &err), -1);
	store_close(other);
	sqlite3_close(db);
}

/* The regression check's earlier runs of one point, newest first by
 * measured time then id, from both tables of schema 11. */
static void test_points_before_across_a_merge(void **state)
{
	struct fixture *f = *state;
	struct collect c = {0};
	struct kerr err;
	int64_t ids[4], moved;
	const char *t[4] = {"2026-01-02", "2026-01-04", "2026-01-01", "2026-01-03"};
	struct store *other;
	char json[256];

	for (int i = 0; i < 4; i++) {
		snprintf(json, sizeof(json), "{\"system\":\"P\",\"application\":\"md\",\"p\":8,\"n\":1,"
			 "\"tau\":2,\"measured_at\":\"%sT00:00:00Z\"}", t[i]);
		ids[i] = put(f->st, json);
		if (i == 1)
			assert_int_equal(store_merge(f->st, true, &moved, &err), 0);
	}
	/* before ids[1] (the latest time): 01-03 (new), 01-02 (base), 01-01 (new) */
	assert_int_equal(store_points_before(f->st, &ids[1], 1, 100, collect_point, &c, &err), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.ids[0], ids[3]);
	assert_int_equal(c.ids[1], ids[0]);
	assert_int_equal(c.ids[2], ids[2]);
	/* the limit, and a run with nothing before it */
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_points_before(f->st, &ids[3], 1, 1, collect_point, &c, &err), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.ids[0], ids[0]);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_points_before(f->st, &ids[2], 1, 100, collect_point, &c, &err), 0);
	assert_int_equal(c.n, 0);
	/* the same from another connection, which looks the runs' points up
	 * (the writer's connection remembers those it stored) */
	other = store_open(f->path, 0, &err);
	assert_non_null(other);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_points_before(other, ids, 4, 100, collect_point, &c, &err), 0);
	assert_int_equal(c.n, 3 + 0 + 1 + 2);	/* before ids[1] 3, ids[2] none, ids[0] 1, ids[3] 2 */
	assert_int_equal(c.ids[0], ids[2]);	/* ids[0]'s: 01-01 */
	assert_int_equal(c.ids[1], ids[3]);	/* ids[1]'s: 01-03, 01-02, 01-01 */
	assert_int_equal(c.ids[2], ids[0]);
	assert_int_equal(c.ids[3], ids[2]);
	assert_int_equal(c.ids[4], ids[0]);	/* ids[3]'s: 01-02, 01-01 */
	assert_int_equal(c.ids[5], ids[2]);
	store_close(other);
}

/* What logs and errors show of a --db: a path as it is, a URI without its
 * password in either form libpq takes (and no sslpassword), the rest kept. */
static void test_shown_db_hides_passwords(void **state)
{
	static const struct {
		const char *db, *shown;
	} cases[] = {
		{"data/karte.db", "data/karte.db"},
		{"postgresql://karte:s3cret@db1:5433/karte", "postgresql://karte@db1:5433/karte"},
		{"postgresql://karte@db1/karte?password=s3cret&sslmode=require",
		 "postgresql://karte@db1/karte?sslmode=require"},
		{"postgres://karte:p%40ss@127.0.0.1/k?sslpassword=s3cret&connect_timeout=5",
		 "postgresql://karte@127.0.0.1/k?connect_timeout=5"},
		{"postgresql://db1/karte?user=karte&password=s3cret", "postgresql://karte@db1/karte"},
		{"postgresql://karte:s3cret@db1/karte?nonsense=1", "postgresql://(a URI libpq cannot read)"},
	};
	char buf[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		store_shown(cases[i].db, buf, sizeof(buf));
		if (strcmp(buf, cases[i].shown))
			fail_msg("%s: '%s', want '%s'", cases[i].db, buf, cases[i].shown);
		assert_null(strstr(buf, "s3cret"));
		assert_null(strstr(buf, "p%40ss"));
	}
}

struct groups {
	char text[512];
};

static int add_group(const struct store_group_row *row, void *ctx)
{
	struct groups *g = ctx;
	size_t n = strlen(g->text);

	snprintf(g->text + n, sizeof(g->text) - n, "%s/%s/%s=%lld;", row->system ? row->system : "-",
		 row->application ? row->application : "-", row->variant ? row->variant : "-",
		 (long long)row->runs);
	assert_non_null(row->last_run_at);
	return 0;
}

static void test_groups_count_runs(void **state)
{
	struct fixture *f = *state;
	struct groups g = {{0}};
	struct kerr err;

	put(f->st, RUN("A", "md", "", 1, 100));
	put(f->st, RUN("A", "md", "v2", 2, 100));
	put(f->st, RUN("B", "md", "", 4, 100));
	put(f->st, RUN("A", "cg", "", 4, 100));
	assert_int_equal(store_each_group(f->st, GROUP_SYSTEM, add_group, &g, &err), 0);
	assert_string_equal(g.text, "A/-/-=3;B/-/-=1;");
	g.text[0] = '\0';
	assert_int_equal(store_each_group(f->st, GROUP_APPLICATION, add_group, &g, &err), 0);
	assert_string_equal(g.text, "-/cg/-=1;-/md/-=3;");
	g.text[0] = '\0';
	assert_int_equal(store_each_group(f->st, GROUP_SERIES, add_group, &g, &err), 0);
	assert_string_equal(g.text, "A/cg/=1;A/md/=1;A/md/v2=1;B/md/=1;");
}

static void test_delete_never_reuses_ids(void **state)
{
	struct fixture *f = *state;
	struct kerr err;
	struct run r;
	bool deleted;
	int64_t id = put(f->st, RUN("A", "md", "", 1, 100)), id2;

	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_delete_run(f->st, id, &deleted, &err), 0);
	assert_int_equal(store_commit(f->st, &err), 0);
	assert_true(deleted);
	assert_int_equal(store_get_run(f->st, id, &r, &err), -1);
	assert_int_equal(err.code, KERR_NOT_FOUND);
	assert_int_equal(store_delete_run(f->st, id, &deleted, &err), 0);
	assert_false(deleted);
	id2 = put(f->st, RUN("A", "md", "", 1, 100));
	assert_true(id2 > id);	/* the newest id was deleted and is not handed out again */
}

static void test_tokens(void **state)
{
	struct fixture *f = *state;
	char tok[TOKEN_LEN + 1], tok2[TOKEN_LEN + 1], hash[TOKEN_HASH_LEN + 1];
	struct kerr err;

	assert_int_equal(token_generate(tok), 0);
	assert_int_equal(token_generate(tok2), 0);
	assert_int_equal(strlen(tok), TOKEN_LEN);
	assert_string_not_equal(tok, tok2);
	assert_memory_equal(tok, "kt_", 3);
	token_hash("abc", 3, hash);	/* FIPS 180-2 test vector */
	assert_string_equal(hash, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");

	token_hash(tok, strlen(tok), hash);
	assert_int_equal(store_token_valid(f->st, hash, &err), 0);
	assert_int_equal(store_token_add(f->st, "ci", hash, &err), 0);
	assert_int_equal(store_token_valid(f->st, hash, &err), 1);
	assert_int_equal(store_token_add(f->st, "ci", "00", &err), -1);
	assert_int_equal(err.code, KERR_INVALID);
	assert_int_equal(store_token_revoke(f->st, "ci", &err), 0);
	assert_int_equal(store_token_valid(f->st, hash, &err), 0);
	assert_int_equal(store_token_revoke(f->st, "ci", &err), -1);
	assert_int_equal(err.code, KERR_NOT_FOUND);
}

static int count_done;

static void job_done(struct wjob *job)
{
	(void)job;
	count_done++;
}

static void test_writer_batch(void **state)
{
	struct fixture *f = *state;
	struct wjob a = {0}, b = {0}, d = {0};
	struct run r;
	struct kerr err;

	a.kind = b.kind = WJOB_RUNS;
	a.batch = runs_of("[" RUN("W", "md", "", 1, 1) "," RUN("W", "md", "", 2, 1) "]");
	b.batch = runs_of(RUN("W", "md", "", 4, 1));
	a.done = b.done = d.done = job_done;
	a.next = &b;
	a.ids = calloc(a.batch.count, sizeof(*a.ids));
	b.ids = calloc(b.batch.count, sizeof(*b.ids));
	writer_run_batch(f->st, &a);
	assert_int_equal(a.rc, 0);
	assert_int_equal(b.rc, 0);
	assert_int_equal(a.fresh, 2);
	assert_int_equal(a.ids[1], a.ids[0] + 1);
	assert_int_equal(b.ids[0], a.ids[1] + 1);
	assert_int_equal(store_get_run(f->st, b.ids[0], &r, &err), 0);
	assert_int_equal(r.p, 4);
	run_clear(&r);

	d.kind = WJOB_DELETE;
	d.id = a.ids[0];
	writer_run_batch(f->st, &d);
	assert_int_equal(d.rc, 0);
	assert_true(d.deleted);
	free(a.ids);
	free(b.ids);
	run_batch_free(&a.batch);
	run_batch_free(&b.batch);
}

/* The commit delay: waits only after slow batches, for a quarter of one,
 * at most 500 us, and never once as many jobs are queued as the last
 * batch carried (so a lone client never waits). */
static void test_writer_gather_policy(void **state)
{
	(void)state;
	assert_int_equal(writer_gather_ns(300000, 20, 1), 0);		/* SQLite, no fsync */
	assert_int_equal(writer_gather_ns(399999, 20, 1), 0);
	assert_int_equal(writer_gather_ns(400000, 20, 1), 100000);	/* at the line */
	assert_int_equal(writer_gather_ns(1600000, 20, 5), 400000);	/* PostgreSQL, 1.6 ms */
	assert_int_equal(writer_gather_ns(4000000, 20, 5), WRITER_GATHER_MAX_NS);
	assert_int_equal(writer_gather_ns(1600000, 20, 20), 0);		/* all back already */
	assert_int_equal(writer_gather_ns(1600000, 20, 64), 0);
	assert_int_equal(writer_gather_ns(1600000, 1, 1), 0);		/* one client */
	assert_int_equal(writer_gather_ns(0, 0, 1), 0);			/* the first batch */
}

static void test_thread_writer_answers_after_commit(void **state)
{
	struct fixture *f = *state;
	struct kerr err;
	struct store *st = store_open(f->path, 0, &err);
	struct writer *w = writer_open(st, &err);
	struct wjob j = {0};
	bool waiting = true;
	int spins = 0;

	assert_non_null(w);
	j.kind = WJOB_RUNS;
	j.batch = runs_of(RUN("T", "md", "", 1, 1));
	j.done = job_done;
	j.ids = calloc(j.batch.count, sizeof(*j.ids));
	count_done = 0;
	writer_submit(w, &j);
	while (waiting && spins++ < 1000) {
		writer_turn(w, &waiting);
		usleep(1000);
	}
	assert_int_equal(count_done, 1);
	assert_int_equal(j.rc, 0);
	assert_true(j.ids[0] > 0);
	assert_int_equal(writer_stats(w)->jobs, 1);
	free(j.ids);
	run_batch_free(&j.batch);
	writer_close(w);
}

static int slow_call(struct store *st, struct wjob *job)
{
	(void)st;
	(void)job;
	usleep(2000);	/* a batch as slow as a commit on PostgreSQL */
	return 0;
}

/* After slow batches the writer waits for more jobs before a commit (the
 * commit delay): a lone job, then a pair, still commit and are answered
 * (whether the wait ends at its deadline or as the jobs arrive). */
static void test_thread_writer_gathers_after_slow_batches(void **state)
{
	struct fixture *f = *state;
	struct kerr err;
	struct store *st = store_open(f->path, 0, &err);
	struct writer *w = writer_open(st, &err);
	struct wjob j[7] = {{0}};
	bool waiting = true;
	int i, spins = 0;

	assert_non_null(w);
	count_done = 0;
	for (i = 0; i < 7; i++) {
		j[i].kind = WJOB_CALL;
		j[i].call = slow_call;
		j[i].done = job_done;
	}
	assert_true(writer_commits_short(w));	/* nothing measured yet: the loop may wait awake */
	for (i = 0; i < 4; i++)	/* batches of 2 ms: later ones may wait */
		writer_submit(w, &j[i]);
	while (waiting && spins++ < 2000) {
		writer_turn(w, &waiting);
		usleep(500);
	}
	assert_int_equal(count_done, 4);
	assert_false(writer_commits_short(w));	/* 2 ms >= WRITER_GATHER_MIN_NS: the loop sleeps */
	writer_submit(w, &j[4]);	/* alone: waits up to 500 us, then commits */
	usleep(100);
	writer_submit(w, &j[5]);
	writer_submit(w, &j[6]);
	waiting = true;
	while (waiting && spins++ < 4000) {
		writer_turn(w, &waiting);
		usleep(500);
	}
	assert_int_equal(count_done, 7);
	for (i = 0; i < 7; i++)
		assert_int_equal(j[i].rc, 0);
	assert_int_equal(writer_stats(w)->jobs, 7);
	writer_close(w);
}

/* A database made by schema 1 only is migrated, its runs kept. */
static void test_migrates_an_older_database(void **state)
{
	struct fixture *f = *state;
	char path[128];
	struct kerr err;
	struct store *st;
	struct run r;
	sqlite3 *db;

	(void)f;
	snprintf(path, sizeof(path), "%s/old.db", f->dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(schema_migrations[0].version, 1);
	assert_int_equal(sqlite3_exec(db, schema_migrations[0].sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "PRAGMA user_version = 1;"
				      "INSERT INTO series (id, system, application, variant) VALUES (1, 'old', 'md', '');"
				      "INSERT INTO runs (series_id, p, n, tau, chi, gamma, created_at) "
				      "VALUES (1, 4, 100, 2, 0.5, 1.5, '2026-01-01T00:00:00.000Z');"
				      "INSERT INTO runs (series_id, p, n, tau, chi, gamma, created_at) "
				      "VALUES (1, 8, 100, 1, 0.5, 0.5, '2026-01-01T00:00:00.000Z');"
				      "DELETE FROM runs WHERE id = 2;",	/* AUTOINCREMENT kept 2 */
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	st = store_open(path, 0, &err);	/* without STORE_MIGRATE: refused, says what to do */
	assert_null(st);
	assert_non_null(strstr(err.msg, "migrate"));
	st = store_open(path, STORE_MIGRATE, &err);
	assert_non_null(st);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	assert_int_equal(store_get_run(st, 1, &r, &err), 0);
	assert_string_equal(r.system, "old");
	assert_true(r.chi == 0.5);
	run_clear(&r);
	/* schema 3 dropped AUTOINCREMENT but kept what it knew: id 2 was
	 * deleted under schema 1 and is not given again */
	assert_int_equal(put(st, RUN("old", "md", "", 16, 100)), 3);
	store_close(st);
}

/* Ids are never reused, also when the largest is deleted, and a write
 * transaction numbers its runs one after another. */
static void test_ids_are_never_reused(void **state)
{
	struct fixture *f = *state;
	struct run_batch b = runs_of(RUN("S", "a", "", 2, 10));
	int64_t a, c, ids[3];
	struct kerr err;
	bool deleted, existed;
	int i;

	a = put(f->st, RUN("S", "a", "", 1, 10));
	c = put(f->st, RUN("S", "a", "", 2, 10));
	assert_int_equal(c, a + 1);
	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_delete_run(f->st, c, &deleted, &err), 0);
	assert_true(deleted);
	assert_int_equal(store_commit(f->st, &err), 0);
	assert_int_equal(put(f->st, RUN("S", "a", "", 4, 10)), c + 1);
	/* deleted and then rolled back: the floor is not raised */
	assert_int_equal(store_begin(f->st, &err), 0);
	assert_int_equal(store_delete_run(f->st, c + 1, &deleted, &err), 0);
	store_rollback(f->st);
	assert_int_equal(store_begin(f->st, &err), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(store_put_run(f->st, &b.runs[0], &ids[i], &existed, &err), 0);
	assert_int_equal(store_commit(f->st, &err), 0);
	assert_int_equal(ids[0], c + 2);
	assert_int_equal(ids[2], c + 4);
	/* outside a transaction too (autocommit: looked up each time) */
	assert_int_equal(store_delete_run(f->st, c + 4, &deleted, &err), 0);
	assert_int_equal(store_put_run(f->st, &b.runs[0], &ids[0], &existed, &err), 0);
	assert_int_equal(ids[0], c + 5);
	run_batch_free(&b);
}

static void test_refuses_a_newer_database(void **state)
{
	struct fixture *f = *state;
	char path[128];
	struct kerr err;
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/new.db", f->dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_null(store_open(path, STORE_MIGRATE, &err));
	assert_non_null(strstr(err.msg, "newer"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_schema_is_latest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tau_alone_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_imports_remembered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idempotency_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listing_filters_and_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listing_uses_the_series_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listing_walks_the_epochs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listing_merges_the_tables_by_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_series_statistics_at_every_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_filter_uses_its_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_keeps_one_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_points_before_across_a_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_points_before_is_the_query, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_moves_a_backlog_in_chunks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_label_written_twice_is_one_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_failed_move_keeps_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_move_is_no_write_of_another_connection, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_the_wal_starts_again_under_steady_commits, setup,
						teardown),
		cmocka_unit_test(test_shown_db_hides_passwords),
		cmocka_unit_test_setup_teardown(test_groups_count_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delete_never_reuses_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tokens, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_batch, setup, teardown),
		cmocka_unit_test(test_writer_gather_policy),
		cmocka_unit_test_setup_teardown(test_thread_writer_answers_after_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_writer_gathers_after_slow_batches, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ids_are_never_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs_spread_over_many_series, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrates_an_older_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_a_newer_database, setup, teardown),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
