/*
 * store: karte's database, the one seam between karted and its storage. One
 * struct store is one connection with its prepared statements; it is not
 * shared between threads (the server keeps a writer and a pool of readers).
 * The backend is SQLite (sqlite.c, one file, the default) or PostgreSQL
 * (pg.c, a postgresql:// URI); store_impl.h says what a backend provides. Opening with STORE_MIGRATE applies the numbered
 * migrations of schema/ inside one transaction.
 */
#ifndef KARTE_STORE_H
#define KARTE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/kerr.h"
#include "core/run.h"

struct store;

enum store_flags {
	STORE_MIGRATE = 1 << 0,	  /* create / migrate the schema (writer only) */
	STORE_READONLY = 1 << 1,  /* a reader connection */
	STORE_SYNC_FULL = 1 << 2, /* fsync every commit (power-loss durable) */
	STORE_NO_AUTOCHECKPOINT = 1 << 3, /* someone else runs store_checkpoint() */
};

/* Once, before any store is opened: SQLite set up for karted's threads
 * (each connection is used by one thread at a time; no memory statistics,
 * which cost a global mutex on every allocation). */
void store_library_init(void);

/* Open (creating when STORE_MIGRATE) the database at path: an SQLite file,
 * or a postgresql:// URI. SQLite: WAL mode; synchronous=NORMAL unless
 * STORE_SYNC_FULL: a committed transaction is in the WAL file (written,
 * not fsynced), so it survives a crash of the process, not a power loss
 * or a crash of the operating system. PostgreSQL: a
 * commit is durable as the server is set up (synchronous_commit). Returns
 * NULL and fills err on failure. */
struct store *store_open(const char *path, unsigned flags, struct kerr *err);

/* From now on store_query on st waits at most seconds for an answer (0:
 * as long as the database takes). On PostgreSQL a query past it gets a 503
 * and its connection is cut (a server that accepts and never answers,
 * stopped or behind a proxy that black-holes, holds no thread for ever);
 * the next use makes it again. SQLite answers from this machine: its
 * waits are its busy timeout. For the event loop's queries (a token
 * looked up) and the health probe. */
void store_set_deadline(struct store *st, double seconds);

/* "sqlite" or "postgresql". */
const char *store_backend(const struct store *st);

/* Close; accepts NULL. */
void store_close(struct store *st);

/* The schema version of the database and of this binary. */
int store_schema_version(struct store *st);
int store_schema_latest(void);

/* Transactions for group commit: one per batch of requests. */
int store_begin(struct store *st, struct kerr *err);
int store_commit(struct store *st, struct kerr *err);
void store_rollback(struct store *st);

/* Copy the WAL into the database file: PASSIVE (never blocks the writer),
 * or TRUNCATE (waits for it and the readers, then empties the WAL). *left
 * gets the WAL's pages not yet copied (readers of older snapshots hold
 * them). A busy database is not an error. */
int store_checkpoint(struct store *st, bool truncate, int *left, struct kerr *err);

/* SQLite (schema 11): move the new runs, kept in a small table of their
 * own, into the large one once there are a chunk's worth (all: any), in
 * one write transaction; *moved gets how many. Run by karted's writer
 * thread between batches, at most once a second (all: the tests). PostgreSQL: nothing to do (its
 * growth is within bounds without it). */
int store_merge(struct store *st, bool all, int64_t *moved, struct kerr *err);

/* Insert r (validated) unless its idempotency_key is already stored. Sets
 * *id to the new or the first id; *existed tells which. 0 or -1 with err.
 * Inside store_begin/store_commit only: the series' run count (what the
 * catalogue reads) is written at commit. */
int store_put_run(struct store *st, const struct run *r, int64_t *id, bool *existed,
		  struct kerr *err);

/* An import by the hash of its file and mapping: 1 with its first id and
 * run count, 0 when there is none, -1 with err. */
int store_import_find(struct store *st, const char *hash, int64_t *first_id, int64_t *runs,
		      struct kerr *err);

/* Remember an import whose runs got the ids first_id .. first_id + runs - 1
 * (inside the transaction that stored them). */
int store_import_put(struct store *st, const char *hash, int64_t first_id, int64_t runs,
		     struct kerr *err);

/* ---- A large import in parts (schema 10; server/api/api_import.c) ----
 * Its ids are reserved in one transaction, its runs stored in parts (each
 * in a transaction of its own, between other writes), and shown in one
 * last: until then every read leaves its id range out. At most one at a
 * time; a pending import whose last part is older than stale_before (UTC
 * text as karted writes it) was left by a karted that died: the next
 * reserve, or store_import_discard, deletes what it stored. */

/* Reserve n ids, *lo..*lo+n-1, for an import (hash: its name or "") in the
 * open write transaction. -1 with err 503 while another import is pending
 * and not stale. */
int store_import_reserve(struct store *st, const char *hash, int64_t n, const char *stale_before,
			 int64_t *lo, struct kerr *err);

/* Store r as run id (reserved) in the open transaction, not counted in its
 * series yet: *out is id, or the id of the run stored before with r's
 * idempotency_key (*existed then, and nothing stored); *series the
 * series' id (for store_import_publish). */
int store_put_run_at(struct store *st, const struct run *r, int64_t id, int64_t *out,
		     bool *existed, int64_t *series, struct kerr *err);

/* After a part: the pending import's beat is now; -1 (503) when it is no
 * longer pending (another karted took it as stale). */
int store_import_beat(struct store *st, int64_t lo, struct kerr *err);

/* A series' share of an import: how many runs, the largest id. */
struct store_series_count {
	int64_t series, runs, last_id;
};

/* Show the pending import lo..: the series' counts, the import
 * remembered under hash (when not "": first lo, n runs), the range no
 * longer left out; in the open transaction. */
int store_import_publish(struct store *st, const char *hash, int64_t lo, int64_t n,
			 const struct store_series_count *counts, size_t ncounts, struct kerr *err);

/* Delete a pending import and what its parts stored: the one at lo (> 0),
 * or any whose beat is older than stale_before (NULL: any at all). In the
 * open transaction. *gone: runs deleted (may be NULL). */
int store_import_discard(struct store *st, int64_t lo, const char *stale_before, int64_t *gone,
			 struct kerr *err);

/* Fill *out with run id (caller run_clear()s it). -1 with err->code 404
 * when there is none. */
int store_get_run(struct store *st, int64_t id, struct run *out, struct kerr *err);

/* Delete run id; *deleted false when there was none. */
int store_delete_run(struct store *st, int64_t id, bool *deleted, struct kerr *err);

/* label.K=V: a run matches when its labels hold every key with that value. */
#define RUN_FILTER_LABELS_MAX 4

struct label_eq {
	const char *key, *value;
};

struct run_filter {
	const char *system;	 /* NULL: any */
	const char *application; /* NULL: any */
	const char *variant;	 /* NULL: any */
	int64_t p;		 /* 0: any */
	double n;		 /* <= 0: any */
	int64_t before_id;	 /* 0: from the newest; else runs with id < before_id */
	int64_t limit;		 /* rows at most; <= 0: no limit */
	bool oldest_first;	 /* ascending id (analyses) instead of newest first */
	const struct label_eq *labels;	/* nlabels of them, all must match (checked on */
	size_t nlabels;			/* each run the SQL selects; limit counts matches) */
	bool values_only;	 /* the run's id and the numbers an analysis of a series
				  * reads (p, n, tau, chi, frequency_mhz, energy_j):
				  * system, application, variant, the texts, gamma,
				  * power_cap_w and created_at come back unset */
};

/* Call each(run, ctx) for every matching run, newest first (or oldest with
 * f->oldest_first). The run is borrowed for the call. each returning
 * non-zero stops the walk and is returned. -1 with err on database error. */
int store_each_run(struct store *st, const struct run_filter *f,
		   int (*each)(const struct run *r, void *ctx), void *ctx, struct kerr *err);

/* The query plan (EXPLAIN QUERY PLAN, one line per step) of the listing
 * store_each_run() uses for f; for tests that indexes are used. */
int store_explain_listing(struct store *st, const struct run_filter *f, char *buf, size_t size,
			  struct kerr *err);

enum store_group { GROUP_SYSTEM, GROUP_APPLICATION, GROUP_SERIES };

struct store_group_row {
	const char *system;	 /* set for GROUP_SYSTEM and GROUP_SERIES */
	const char *application; /* set for GROUP_APPLICATION and GROUP_SERIES */
	const char *variant;	 /* set for GROUP_SERIES */
	int64_t runs;
	const char *last_run_at; /* created_at of the newest run */
};

/* Run counts grouped by system, application or series, sorted by name. */
int store_each_group(struct store *st, enum store_group g,
		     int (*each)(const struct store_group_row *row, void *ctx), void *ctx,
		     struct kerr *err);

/* A power variation table row (Inadomi et al.): a module's power relative
 * to its system's mean, at f_max and at f_min. */
struct pvt_row {
	long module;
	double ratio_max, ratio_min;
};

/* Replace system's table with rows[0..n) (inside the caller's transaction). */
int store_pvt_put(struct store *st, const char *system, const struct pvt_row *rows, size_t n,
		  struct kerr *err);

/* Call each(row, ctx) for system's rows in module order; the count, or -1. */
long store_pvt_each(struct store *st, const char *system,
		    int (*each)(const struct pvt_row *row, void *ctx), void *ctx, struct kerr *err);

/* Tokens are kept as hex SHA-256 hashes only. */
int store_token_add(struct store *st, const char *name, const char *hash_hex, struct kerr *err);
/* 1 when a token with this hash exists and is not revoked, 0 when not,
 * -1 with err when the store could not tell (never a "no"). */
int store_token_valid(struct store *st, const char *hash_hex, struct kerr *err);
int store_token_revoke(struct store *st, const char *name, struct kerr *err);
int store_each_token(struct store *st,
		     int (*each)(const char *name, const char *created_at, const char *revoked_at,
				 void *ctx),
		     void *ctx, struct kerr *err);

/* Moving a database between backends (karted copy, copy.c): every table as
 * rows of text values (NULL for SQL NULL) in store_tables' column order. */
enum store_table { T_SERIES, T_FLOOR, T_TOKENS, T_PVT, T_IMPORTS, T_ALERTS, T_RUNS, STORE_TABLES };

/* Call row(v, ctx) for table t's rows in key order; for T_RUNS only ids
 * above after_id, at most limit (<= 0: all). Stops when row returns non-0
 * and returns that. */
int store_dump(struct store *st, enum store_table t, int64_t after_id, int64_t limit,
	       int (*row)(const char *const *v, void *ctx), void *ctx, struct kerr *err);

/* Insert one row as store_dump gives it, inside store_begin/store_commit;
 * a row whose key is stored already is kept as it is (a resumed copy). A
 * series' counts and the id floor are taken as given. */
int store_load(struct store *st, enum store_table t, const char *const *v, struct kerr *err);

/* How many rows table t has; -1 with err. */
int64_t store_count(struct store *st, enum store_table t, struct kerr *err);

/* v as decimal text in buf (a query parameter, as store_query takes them);
 * returns buf. */
const char *store_i64_text(char buf[24], int64_t v);

/* Now in UTC as karted writes times: 2026-11-24T10:00:00.123Z. */
void store_utc_now(char *buf, size_t size);

/* Time t and ms milliseconds (0-999) in that form. */
void store_utc_text(time_t t, long ms, char *buf, size_t size);

/* One statement with parameters, the same text on both backends: $1, $2,
 * ... (bound by name on SQLite), and CAST(... AS ...) rather than ::. types has a letter per parameter: 'i'
 * integer, 'r' double, 't' text; a NULL parameter is SQL NULL. Each row
 * goes to row(v, ncol, ctx) as text (doubles as %.17g, NULL as NULL),
 * borrowed for the call; row returning non-zero stops and is returned. A
 * write inside store_begin/store_commit joins that transaction. sql must
 * be a string constant: its address keys the statement cache. *changed
 * (may be NULL) gets the rows a write changed. A write that would store a
 * second row of a unique key returns STORE_DUPLICATE (err says so, for a
 * caller to say it better); any other failure -1. */
#define STORE_DUPLICATE (-2)
int store_query(struct store *st, const char *sql, const char *types, const char *const *params,
		int (*row)(const char *const *v, int ncol, void *ctx), void *ctx, long *changed,
		struct kerr *err);

/* ---- History and regressions (alerts.c) ---- */

/* Thresholds of a regression: relative to the median, multiples of the
 * MAD scaled to a normal sigma, and the earlier runs a verdict needs. */
struct store_thresholds {
	double rel, noise;
	int64_t min_runs;
	bool set;		/* stored for the series (else karted's defaults) */
};

/* The thresholds of a series: *t (with set false and t untouched where
 * the series has none). 1 found, 0 no such series, -1 with err. */
int store_thresholds_get(struct store *st, const char *system, const char *application,
			 const char *variant, struct store_thresholds *t, struct kerr *err);

/* The same, and *runs_before whether the series holds a run whose id is
 * below before_id: the regression check asks it with the first id of a
 * batch, to learn that a series is new (all its runs are the batch's). */
int store_thresholds_get_before(struct store *st, const char *system, const char *application,
				const char *variant, int64_t before_id, struct store_thresholds *t,
				bool *runs_before, struct kerr *err);

/* Store thresholds for a series (NULL: back to the defaults); 0, or -1
 * with err->code 404 when there is no such series. In a transaction. */
int store_thresholds_put(struct store *st, const char *system, const char *application,
			 const char *variant, const struct store_thresholds *t, struct kerr *err);

/* For each run ids[k] (k < n <= STORE_POINTS_MAX), the runs of its point
 * (series, p, n) before it in time order (measured_at, or created_at
 * without one, then id), the latest first, at most limit: each(k, r, ctx)
 * with r borrowed, k ascending. Only what a baseline needs is read: id,
 * p, n, tau, frequency_mhz, power_cap_w, energy_j, measured_at and regions
 * (the rest NULL or 0): the regression check keeps runs of another
 * frequency or cap out of a baseline. One query
 * for all on PostgreSQL, one read transaction on SQLite (and one walk of
 * each series' runs in its large table). A non-zero
 * each() stops and is returned. */
#define STORE_POINTS_MAX 1024	/* SQLite walks a series once a call: many points a call */
#define STORE_POINTS_LIMIT_MAX 1000	/* limit is 1 to this */
int store_points_before(struct store *st, const int64_t *ids, size_t n, int64_t limit,
			int (*each)(size_t k, const struct run *r, void *ctx), void *ctx,
			struct kerr *err);

/* What others wrote since st looked last, as two numbers its caller keeps
 * and compares (each changes, or not):
 *   *added    another connection or instance committed; what is stored is
 *             still there, new rows may have joined it;
 *   *changed  also runs were deleted, a series' thresholds set or an import
 *             stored (whoever did it: the changes of st itself may count).
 * SQLite: both PRAGMA data_version (another connection committed, whatever
 * it did). PostgreSQL: as seen by st's last write transaction, under the
 * writers' lock (schema/pg/0008_writes.sql); writes made in SQL outside
 * karted add nothing it sees, deletes and thresholds do. -1 on an error. */
int store_data_version(struct store *st, int64_t *added, int64_t *changed);

struct store_alert {
	int64_t id, run_id;
	const char *system, *application, *variant;
	int64_t p;
	double n;
	const char *regressions;	/* JSON array text */
	const char *created_at, *acknowledged_at, *acknowledged_by;	/* the last two may be NULL */
	const char *measured_at;	/* the run's, may be NULL */
	const char *labels;		/* the run's, JSON text, may be NULL */
};

/* Store an alert on run_id (its series, p and n taken from the run) in the
 * open transaction; *id and created_at (the transaction's time, room for
 * 32 bytes) are filled. */
int store_alert_put(struct store *st, int64_t run_id, const char *regressions, int64_t *id,
		    char created_at[32], struct kerr *err);

struct alert_filter {
	const char *system, *application, *variant;	/* NULL: any */
	const char *since;	/* created_at >= since (canonical UTC text), NULL: any */
	int acknowledged;	/* -1 any, 0 open ones, 1 acknowledged ones */
	int64_t id;		/* > 0: only this alert */
	int64_t before_id;	/* > 0: ids below it (paging) */
	int64_t limit;		/* > 0 */
};

/* Alerts matching f, newest first, each to each(a, ctx) (borrowed). */
int store_each_alert(struct store *st, const struct alert_filter *f,
		     int (*each)(const struct store_alert *a, void *ctx), void *ctx, struct kerr *err);

/* Acknowledge alert id by the token whose hash is token_hash (its name is
 * kept), in a transaction; *found false when there is none, *already true
 * when it was acknowledged before (kept as it was). */
int store_alert_ack(struct store *st, int64_t id, const char *token_hash, bool *found,
		    bool *already, struct kerr *err);

/* Stop what st does now, from any thread (a reader whose client hung up,
 * or past its deadline): the statement running fails as a store error, and
 * so does every later one until store_interrupt_clear() (the owner, before
 * the next use). SQLite: sqlite3_interrupt and a progress handler;
 * PostgreSQL: PQcancel. */
void store_interrupt(struct store *st);
void store_interrupt_clear(struct store *st);
bool store_interrupted(struct store *st);

/* Every statement of st stops after seconds (0: none), whatever thread
 * runs it: PostgreSQL's statement_timeout, kept across reconnects. SQLite
 * has no such limit: its readers are stopped with store_interrupt(). */
int store_statement_timeout(struct store *st, double seconds, struct kerr *err);

/* Whether the --db string names a PostgreSQL database (postgresql:// or
 * postgres://), and the string to show for it in logs and errors: the URI
 * as libpq reads it without its password (in either form, user:PASSWORD@
 * or ?password=). */
bool store_is_uri(const char *db);
const char *store_shown(const char *db, char *buf, size_t size);

#endif
