/*
 * store_impl: what a storage backend provides behind store.h. A backend's
 * own struct begins with a struct store whose ops point at its functions;
 * store.c picks the backend by the --db string and dispatches every call.
 * Only store.c and the backends include this.
 */
#ifndef KARTE_STORE_IMPL_H
#define KARTE_STORE_IMPL_H

#include <stdatomic.h>

#include "store.h"
#include "core/nametab.h"

struct store_ops {
	const char *name;	/* "sqlite", "postgresql" */
	void (*close)(struct store *st);
	int (*schema_version)(struct store *st);
	int (*begin)(struct store *st, struct kerr *err);
	int (*commit)(struct store *st, struct kerr *err);
	void (*rollback)(struct store *st);
	int (*checkpoint)(struct store *st, bool truncate, int *left, struct kerr *err);
	int (*merge)(struct store *st, bool all, int64_t *moved, struct kerr *err);	/* or NULL */
	int (*put_run)(struct store *st, const struct run *r, int64_t *id, bool *existed,
		       struct kerr *err);
	int (*get_run)(struct store *st, int64_t id, struct run *out, struct kerr *err);
	int (*delete_run)(struct store *st, int64_t id, bool *deleted, struct kerr *err);
	int (*each_run)(struct store *st, const struct run_filter *f,
			int (*each)(const struct run *r, void *ctx), void *ctx, struct kerr *err);
	int (*explain_listing)(struct store *st, const struct run_filter *f, char *buf, size_t size,
			       struct kerr *err);
	int (*dump)(struct store *st, enum store_table t, int64_t after_id, int64_t limit,
		    int (*row)(const char *const *v, void *ctx), void *ctx, struct kerr *err);
	int (*load)(struct store *st, enum store_table t, const char *const *v, struct kerr *err);
	int (*query)(struct store *st, const char *sql, const char *types, const char *const *params,
		     int (*row)(const char *const *v, int ncol, void *ctx), void *ctx, long *changed,
		     struct kerr *err);
	int (*data_version)(struct store *st, int64_t *added, int64_t *changed);
	int (*points_before)(struct store *st, const int64_t *ids, size_t n, int64_t limit,
			     int (*each)(size_t k, const struct run *r, void *ctx), void *ctx,
			     struct kerr *err);
	/* stop the statement running now, from any thread (store.c has set
	 * st->interrupted first, which the backend checks before each later one) */
	void (*interrupt)(struct store *st);
	int (*statement_timeout)(struct store *st, double seconds, struct kerr *err);
	/* n ids from the next one on, in a write transaction, kept from later runs */
	int (*reserve_ids)(struct store *st, int64_t n, int64_t *lo, struct kerr *err);
	int (*put_run_at)(struct store *st, const struct run *r, int64_t id, int64_t *out,
			  bool *existed, int64_t *series, struct kerr *err);
};

/* Statements store_query prepared, by the address of their text. */
#define QUERY_CACHE 24

struct store {
	const struct store_ops *ops;
	atomic_bool interrupted;	/* store_interrupt() until store_interrupt_clear() */
	double deadline_s;	/* store_set_deadline(): a query's answer within this, 0 none */
};

/* The values of a run as stored in runs, in column order: the one list
 * that both backends' SQL texts, binding and reading follow, and karted
 * copy's table. A new column of runs is a line here (with its migrations
 * in schema/, and on PostgreSQL karte_put_runs taking one more array).
 * X(column, kind, has, point, value): kind INT (int64_t), REAL (double) or
 * TEXT (char *); has the RUN_HAS_* bit that says the value is set (0:
 * always, or a text that is not NULL); point KEEP when a baseline reads it
 * (STORE_POINT_COLUMNS), else SKIP; value KEEP when an analysis of a series
 * reads it (run_filter.values_only: STORE_VALUE_COLUMNS), else SKIP. */
#define STORE_RUN_VALUES(X)                                                                   \
	X(p, INT, 0, KEEP, KEEP) X(n, REAL, 0, KEEP, KEEP) X(tau, REAL, 0, KEEP, KEEP)            \
	X(chi, REAL, RUN_HAS_CHI, SKIP, KEEP) X(gamma, REAL, RUN_HAS_CHI, SKIP, SKIP)             \
	X(frequency_mhz, REAL, RUN_HAS_FREQ, KEEP, KEEP)                                          \
	X(power_cap_w, REAL, RUN_HAS_CAP, KEEP, SKIP) X(energy_j, REAL, RUN_HAS_ENERGY, KEEP, KEEP) \
	X(measured_at, TEXT, 0, KEEP, SKIP) X(idempotency_key, TEXT, 0, SKIP, SKIP)               \
	X(regions, TEXT, 0, KEEP, SKIP) X(labels, TEXT, 0, SKIP, SKIP)

#define STORE_RV_INDEX(c, k, h, pt, vl) STORE_RVI_##c,
enum store_rv_index { STORE_RUN_VALUES(STORE_RV_INDEX) STORE_RUN_NVALUES };

enum store_rv_kind { STORE_RV_INT, STORE_RV_REAL, STORE_RV_TEXT };

struct store_run_value {
	const char *column;
	enum store_rv_kind kind;
	unsigned has;
	size_t offset;		/* in struct run */
	bool value;		/* in a listing of values (STORE_VALUE_COLUMNS) */
};

extern const struct store_run_value store_run_values[STORE_RUN_NVALUES];

/* Whether value k of r is set (not SQL NULL), and its value. */
bool store_run_value_set(const struct run *r, size_t k);
int64_t store_run_int(const struct run *r, size_t k);
double store_run_real(const struct run *r, size_t k);
const char *store_run_text(const struct run *r, size_t k);

/* Reading a run: store_run_blank first (nothing set, the optional numbers
 * NAN), then each value that is not NULL (which sets its has bit). */
void store_run_blank(struct run *r);
void store_run_put_int(struct run *r, size_t k, int64_t v);
void store_run_put_real(struct run *r, size_t k, double v);
void store_run_put_text(struct run *r, size_t k, char *v);

/* The columns as SQL text: every run query reads STORE_RUN_COLUMNS (id,
 * system, application, variant, the values, created_at: value k at column
 * STORE_RUN_VALUE0 + k); an insert writes STORE_RUN_INSERT_COLUMNS (id,
 * series_id, the values, created_at), of SQL types STORE_RUN_TYPES
 * (store_query's letters). */
#define STORE_RV_SELECT(c, k, h, pt, vl) ", r." #c
#define STORE_RV_NAME(c, k, h, pt, vl) ", " #c
#define STORE_RV_QMARK(c, k, h, pt, vl) ",?"
#define STORE_RV_TYPE(c, k, h, pt, vl) STORE_RVT_##k
#define STORE_RVT_INT "i"
#define STORE_RVT_REAL "r"
#define STORE_RVT_TEXT "t"
#define STORE_RV_POINT(c, k, h, pt, vl) STORE_RVP_##pt(c)
#define STORE_RVP_KEEP(c) ", r." #c
#define STORE_RVP_SKIP(c) ", NULL"
#define STORE_RUN_VALUE0 4
#define STORE_RUN_COLUMNS \
	"r.id, s.system, s.application, s.variant" STORE_RUN_VALUES(STORE_RV_SELECT) ", r.created_at"
#define STORE_RUN_INSERT_COLUMNS "id, series_id" STORE_RUN_VALUES(STORE_RV_NAME) ", created_at"
#define STORE_RUN_INSERT_QMARKS "?,?" STORE_RUN_VALUES(STORE_RV_QMARK) ",?"
#define STORE_RUN_TYPES "ii" STORE_RUN_VALUES(STORE_RV_TYPE) "t"
#define STORE_RUN_FROM " FROM runs r JOIN series s ON s.id = r.series_id"

/* Every read of runs leaves out the ids of an import still being stored in
 * parts (schema 10): the subqueries are constant, evaluated once a
 * statement; with no import under way the range is empty (1 .. 0). */
#define STORE_VISIBLE                                                                        \
	" AND r.id NOT BETWEEN coalesce((SELECT lo FROM import_pending), 1) AND "             \
	"coalesce((SELECT hi FROM import_pending), 0)"

/* The columns store_points_before reads, in the same places: what a
 * baseline needs (id, p, n, tau, frequency_mhz, power_cap_w, energy_j,
 * measured_at, regions). */
#define STORE_POINT_COLUMNS "r.id, NULL, NULL, NULL" STORE_RUN_VALUES(STORE_RV_POINT) ", NULL"

/* The filters of a listing as bits: one prepared statement per combination.
 * FB_LABEL: the listing walks the first label's runs on run_labels (schema
 * 9) instead of runs: when it has a label filter and no whole series (whose
 * runs_series range is read then, bounded by the series). */
enum filter_bit { FB_SYSTEM = 1, FB_APPLICATION = 2, FB_VARIANT = 4, FB_P = 8, FB_N = 16,
		  FB_LABEL = 32, FB_VALUES = 64 };
#define LIST_VARIANTS 128

/* The columns of a listing: every one, or (FB_VALUES) the id and the
 * numbers an analysis reads in their places, NULL for the others. */
#define STORE_RV_VALUE(c, k, h, pt, vl) STORE_RVP_##vl(c)	/* KEEP or SKIP, as a point's */
#define STORE_VALUE_COLUMNS "r.id, NULL, NULL, NULL" STORE_RUN_VALUES(STORE_RV_VALUE) ", NULL"
#define STORE_LIST_COLUMNS(bits) ((bits) & FB_VALUES ? STORE_VALUE_COLUMNS : STORE_RUN_COLUMNS)
/* Every column, the series' names bound as ?1, ?2, ?3 (a listing of one
 * series: SQLite's arm_stmt) */
#define STORE_ARM_COLUMNS "r.id, ?1, ?2, ?3" STORE_RUN_VALUES(STORE_RV_SELECT) ", r.created_at"

/* A listing driven by run_labels: its FROM and the first WHERE terms, the
 * key and value given as parameters kp and vp ("?8" or "$4"). */
#define STORE_LABEL_FROM(cross) \
	" FROM run_labels l " cross " runs r ON r.id = l.run_id " cross " series s ON s.id = r.series_id"
#define STORE_LABEL_ORDER "l.run_id"
unsigned store_filter_bits(const struct run_filter *f);

/* The ids of the series the writer met lately, so runs spread over many
 * series look each up once, not once a run (series are never deleted, so
 * an id stays right): a nametab of SERIES_CACHE slots (emptied whole when
 * three quarters full), also emptied on rollback (a series made in the
 * transaction may not exist any more). */
#define SERIES_CACHE 16384
struct series_cache {
	struct nametab ids;	/* int64_t values; .cap 0 until the first set */
};
bool series_cache_hit(const struct series_cache *c, const struct run *r, int64_t *id);
void series_cache_set(struct series_cache *c, const struct run *r, int64_t id);
void series_cache_forget(struct series_cache *c);	/* every entry; the slots stay */
void series_cache_free(struct series_cache *c);

/* Runs a write transaction added to each series, written into series (its
 * count and newest run) at commit: one UPDATE per series, not per run. */
#define TALLY_MAX 256		/* a group commit's runs (PEND_MAX), each to a series of its own */
struct tally {
	int64_t series;
	int64_t runs;
	int64_t last_id;
};
struct tallies {
	struct tally t[TALLY_MAX];
	size_t n;
};
/* Count run id of series sid; false when TALLY_MAX other series are
 * counted already (write them, empty the set, and add again). */
bool tally_add(struct tallies *ts, int64_t sid, int64_t id);

/* A table as karted copy moves it: its columns in a fixed order, each
 * typed 'i' (integer), 'r' (double) or 't' (text); rows in key order. */
struct store_table_desc {
	const char *name;
	const char *columns;	/* comma-separated */
	const char *types;	/* one letter per column */
	const char *key;	/* ORDER BY */
};
extern const struct store_table_desc store_tables[STORE_TABLES];

/* SQLite (sqlite.c): the file at path. */
extern const struct store_ops store_sqlite_ops;
void store_sqlite_library_init(void);
struct store *store_sqlite_open(const char *path, unsigned flags, struct kerr *err);

/* PostgreSQL (pg.c): the database at a postgresql:// URI. */
extern const struct store_ops store_pg_ops;
struct store *store_pg_open(const char *uri, unsigned flags, struct kerr *err);

#endif
