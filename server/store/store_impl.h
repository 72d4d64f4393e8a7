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

struct store_ops {
	const char *name;	/* "sqlite", "postgresql" */
	void (*close)(struct store *st);
	int (*schema_version)(struct store *st);
	int (*begin)(struct store *st, struct kerr *err);
	int (*commit)(struct store *st, struct kerr *err);
	void (*rollback)(struct store *st);
	int (*checkpoint)(struct store *st, bool truncate, int *wal_pages, struct kerr *err);
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
};

/* The columns every run query reads, in the order row_to_run() takes them. */
#define STORE_RUN_COLUMNS                                                                   \
	"r.id, s.system, s.application, s.variant, r.p, r.n, r.tau, r.chi, r.gamma, "          \
	"r.frequency_mhz, r.power_cap_w, r.energy_j, r.measured_at, r.idempotency_key, "      \
	"r.regions, r.labels, r.created_at"
#define STORE_RUN_FROM " FROM runs r JOIN series s ON s.id = r.series_id"

/* Every read of runs leaves out the ids of an import still being stored in
 * parts (schema 10): the subqueries are constant, evaluated once a
 * statement; with no import under way the range is empty (1 .. 0). */
#define STORE_VISIBLE                                                                        \
	" AND r.id NOT BETWEEN coalesce((SELECT lo FROM import_pending), 1) AND "             \
	"coalesce((SELECT hi FROM import_pending), 0)"

/* The columns store_points_before reads, in the same places: what a
 * baseline needs (id, p, n, tau, energy_j, measured_at, regions). */
#define STORE_POINT_COLUMNS                                                                 \
	"r.id, NULL, NULL, NULL, r.p, r.n, r.tau, NULL, NULL, NULL, NULL, r.energy_j, "        \
	"r.measured_at, NULL, r.regions, NULL, NULL"

/* The filters of a listing as bits: one prepared statement per combination.
 * FB_LABEL: the listing walks the first label's runs on run_labels (schema
 * 9) instead of runs: when it has a label filter and no whole series (whose
 * runs_series range is read then, bounded by the series). */
enum filter_bit { FB_SYSTEM = 1, FB_APPLICATION = 2, FB_VARIANT = 4, FB_P = 8, FB_N = 16,
		  FB_LABEL = 32 };
#define LIST_VARIANTS 64

/* A listing driven by run_labels: its FROM and the first WHERE terms, the
 * key and value given as parameters kp and vp ("?8" or "$4"). */
#define STORE_LABEL_FROM(cross) \
	" FROM run_labels l " cross " runs r ON r.id = l.run_id " cross " series s ON s.id = r.series_id"
#define STORE_LABEL_ORDER "l.run_id"
unsigned store_filter_bits(const struct run_filter *f);

/* The series of the last run stored, so a batch of one series' runs looks
 * it up once. Forgotten on rollback (the series may not exist any more). */
struct series_cache {
	int64_t id;		/* 0: empty */
	char *system, *application, *variant;
};
bool series_cache_hit(const struct series_cache *c, const struct run *r, int64_t *id);
void series_cache_set(struct series_cache *c, const struct run *r, int64_t id);
void series_cache_forget(struct series_cache *c);

/* Runs a write transaction added to each series, written into series (its
 * count and newest run) at commit: one UPDATE per series, not per run. */
#define TALLY_MAX 8
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
