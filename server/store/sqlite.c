#include "store_impl.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema.h"
#include "core/klog.h"
#include "core/xalloc.h"

enum stmt_id {
	S_BEGIN, S_COMMIT, S_ROLLBACK,
	S_INSERT, S_LABELS_ADD, S_NEXT_ID, S_FIND_KEY, S_GET, S_DELETE, S_ID_FLOOR, S_SERIES_FIND,
	S_SERIES_ADD,
	S_TALLY_ADD, S_TALLY_DELETE,
	S_TALLY_LAST,
	S_DATA_VERSION, S_READ_BEGIN, S_POINT_OF, S_POINT_NEW, S_SERIES_POINTS, S_BASE_POINT_ROW,
	S_LABELS_NEW, S_LABELS_BASE, S_DELETE_NEW, S_STAGED, S_MERGE_UPTO, S_MERGE_COPY, S_MERGE_DROP,
	S_MERGE_EMPTY, S_EPOCHS,
	S_COUNT
};


/* a series' newest run, in either table (NULL without runs) */
#define SERIES_LAST                                                                            \
	"nullif(max(coalesce((SELECT max(id) FROM runs_base WHERE series_id = series.id), 0), "   \
	"coalesce((SELECT max(id) FROM runs_new WHERE series_id = series.id), 0)), 0)"

/* Schema 15: runs_series begins with a run's epoch, id >> EPOCH_SHIFT
 * (the column epoch of both tables), so that a move writes only into the
 * newest epoch's part of it (see schema/0015_series_by_epoch.sql) */
#define EPOCH_SHIFT 18
/* What karted writes into sqlite_stat1 at every start (migrate): an
 * epoch holds many entries (2^18), an epoch of a series a few, so that
 * SQLite finds a series' entries by a skip-scan of the epochs, not by
 * reading the index whole. Without it SQLite would go by what an ANALYZE
 * of the database once found (of a small one: an epoch of few entries,
 * no skip-scan), or by nothing (the same). */
#define SERIES_STAT                                                                            \
	"DELETE FROM sqlite_stat1 WHERE idx = 'runs_series'; INSERT INTO sqlite_stat1 (tbl, idx, " \
	"stat) VALUES ('runs_base', 'runs_series', '1000000 262144 30 1 1 1 1 1'); "                \
	"ANALYZE sqlite_schema"	/* which loads the statistics again */

static const char *const stmt_sql[S_COUNT] = {
	[S_BEGIN] = "BEGIN IMMEDIATE",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	/* schema 11: runs are stored into runs_new, read through the view runs
	 * (both tables), and moved into runs_base by sq_merge */
	[S_INSERT] = "INSERT INTO runs_new (" STORE_RUN_INSERT_COLUMNS ") VALUES (" STORE_RUN_INSERT_QMARKS ")",
	/* a run's label rows, after the run (schema 13): two statements, since
	 * one that wrote both through a trigger first copied each page it
	 * changed into a statement journal (see S_MERGE_COPY); neither this
	 * (OR IGNORE: a key written twice gives one row) nor a one-row INSERT
	 * can stop half-way */
	[S_LABELS_ADD] = "INSERT OR IGNORE INTO run_labels (key, value, run_id) SELECT key, value, ?1 "
			 "FROM json_each(?2) WHERE type = 'text'",
	/* ids are never reused: above every id stored and every id deleted */
	[S_NEXT_ID] = "SELECT max((SELECT high FROM run_id_floor), "
		      "COALESCE((SELECT max(id) FROM runs_base), 0), "
		      "COALESCE((SELECT max(id) FROM runs_new), 0)) + 1",
	[S_FIND_KEY] = "SELECT id FROM runs WHERE idempotency_key = ?",
	[S_GET] = "SELECT " STORE_RUN_COLUMNS STORE_RUN_FROM " WHERE r.id = ?1" STORE_VISIBLE,
	[S_SERIES_FIND] = "SELECT id FROM series WHERE system = ? AND application = ? AND variant = ?",
	[S_SERIES_ADD] = "INSERT INTO series (system, application, variant) VALUES (?, ?, ?)",
	[S_DELETE] = "DELETE FROM runs_base WHERE id = ?",
	/* runs_new has no delete trigger (a merge empties it whole): its
	 * run's labels go first */
	[S_LABELS_NEW] = "DELETE FROM run_labels WHERE run_id = ?1 AND (key, value) IN (SELECT key, "
			 "value FROM json_each((SELECT labels FROM runs_new WHERE id = ?1)) WHERE type = "
			 "'text')",
	[S_DELETE_NEW] = "DELETE FROM runs_new WHERE id = ?1",
	[S_LABELS_BASE] = "INSERT OR IGNORE INTO run_labels (key, value, run_id) SELECT j.key, j.value, "
			  "r.id FROM runs_base r, json_each(r.labels) j WHERE r.id = ?1 AND r.labels IS "
			  "NOT NULL AND j.type = 'text'",
	[S_ID_FLOOR] = "UPDATE run_id_floor SET high = max(high, ?)",
	[S_TALLY_ADD] = "UPDATE series SET runs = runs + ?1, last_run_id = max(coalesce(last_run_id, "
			"0), ?2), last_run_at = CASE WHEN ?2 > coalesce(last_run_id, 0) THEN ?3 "
			"ELSE last_run_at END WHERE id = ?4",
	/* before the run is deleted: one fewer, and the newest again if it was it */
	[S_TALLY_DELETE] = "UPDATE series SET runs = runs - 1 WHERE id = (SELECT series_id FROM "
			   "runs WHERE id = ?1)",
	[S_TALLY_LAST] = "UPDATE series SET last_run_id = " SERIES_LAST ", last_run_at = "
			 "(SELECT created_at FROM runs WHERE id = " SERIES_LAST ") WHERE last_run_id = ?1",
	[S_DATA_VERSION] = "PRAGMA data_version",
	[S_READ_BEGIN] = "BEGIN",
	/* a run's point and time, then the runs before it there, newest first
	 * (sq_points_before): runs_new's through runs_new_point; runs_base has
	 * no index by point (schema 14): a series' runs there are walked in
	 * runs_series, which carries the point and the times, and the chosen
	 * read by id */
	[S_POINT_OF] = "SELECT series_id, p, n, coalesce(measured_at, created_at) FROM runs WHERE id = ?1",
	/* runs_new's runs of the point ?3, ?4, ?5 before (time ?6, id ?1) */
	[S_POINT_NEW] = "SELECT " STORE_POINT_COLUMNS ", coalesce(r.measured_at, r.created_at) AS t FROM "
			"runs_new r WHERE r.series_id = ?3 AND r.p = ?4 AND r.n = ?5 AND "
			"(coalesce(r.measured_at, r.created_at), r.id) < (?6, ?1)" STORE_VISIBLE
			" ORDER BY t DESC, 1 DESC LIMIT ?2",
	[S_SERIES_POINTS] = "SELECT r.id, r.p, r.n, coalesce(r.measured_at, r.created_at) FROM runs_base r "
			    "WHERE r.series_id = ?1 AND r.p IN (SELECT value FROM json_each(?2))" STORE_VISIBLE,
	[S_BASE_POINT_ROW] = "SELECT " STORE_POINT_COLUMNS ", coalesce(r.measured_at, r.created_at) "
			     "FROM runs_base r WHERE r.id = ?1",
	/* sq_merge */
	[S_STAGED] = "SELECT count(*) FROM runs_new",
	[S_MERGE_UPTO] = "SELECT max(id) FROM (SELECT id FROM runs_new ORDER BY id LIMIT ?1)",
	/* OR FAIL: a statement that may stop half-way inside a transaction
	 * (ABORT, the default) first writes each page it changes to a
	 * statement journal, so that it can be undone alone: for a move,
	 * every index leaf it touches, up to 400 MB a move at 10^7 runs
	 * (a temporary file), a third of the move's time there. sq_merge
	 * rolls the whole move back on any error, so nothing needs undoing
	 * alone. runs_base has no insert trigger for OR FAIL to reach. */
	[S_MERGE_COPY] = "INSERT OR FAIL INTO runs_base (" STORE_RUN_INSERT_COLUMNS ") SELECT "
			 STORE_RUN_INSERT_COLUMNS " FROM runs_new WHERE id <= ?1 ORDER BY id",
	[S_MERGE_DROP] = "DELETE FROM runs_new WHERE id <= ?1",
	[S_MERGE_EMPTY] = "DELETE FROM runs_new",	/* no trigger, no WHERE: emptied page by page */
	/* what a listing of one whole series needs first (list_series): the
	 * first and the last id stored, for their epochs (NULL, NULL when both
	 * tables are empty; ?1 the largest id), the series' id (NULL: no such
	 * series) and the ids of an import still being stored (STORE_VISIBLE) */
	[S_EPOCHS] = "SELECT nullif(min(coalesce((SELECT min(id) FROM runs_base), ?1), coalesce((SELECT "
		     "min(id) FROM runs_new), ?1)), ?1), max(coalesce((SELECT max(id) FROM runs_base), 0), "
		     "coalesce((SELECT max(id) FROM runs_new), 0)), (SELECT id FROM series WHERE system = "
		     "?2 AND application = ?3 AND variant = ?4), coalesce((SELECT lo FROM import_pending), "
		     "1), coalesce((SELECT hi FROM import_pending), 0)",
};

#define POINT_MEMO STORE_POINTS_MAX

struct sq {
	struct store base;	/* first: a struct store * of this backend is a struct sq * */
	sqlite3 *db;
	char *path;		/* what db was opened from, and how: renew() opens it again */
	unsigned flags;
	int64_t version_offset;	/* sq_data_version's numbers go on across renew() */
	int wal_frames;		/* in the WAL after this connection's last commit (wal_hook) */
	bool merging;		/* a move in slices has begun (sq_merge) */
	struct series_cache series;	/* the series met lately */
	struct tallies tally;
	char now[64];		/* created_at of the open write transaction */
	int64_t next_id;	/* the id the next run gets; 0: look it up */
	sqlite3_stmt *stmt[S_COUNT];		/* prepared on first use */
	sqlite3_stmt *list[2][LIST_VARIANTS];	/* [oldest_first][filter bits] */
	sqlite3_stmt *arm[2][LIST_VARIANTS][2];	/* a whole series': [..][..][runs_new] */
	sqlite3_stmt *dump[STORE_TABLES], *load[STORE_TABLES];
	struct {
		const char *sql;	/* store_query's text, by address */
		sqlite3_stmt *s;
	} queries[QUERY_CACHE];
	/* The point and time of the runs this connection stored last, at
	 * id % POINT_MEMO: the regression check asks for the earlier runs of
	 * runs just stored, whose point then needs no lookup (id 0: none). */
	struct point_memo {
		int64_t id, series, p;
		double n;
		char t[40];	/* coalesce(measured_at, created_at) */
	} memo[POINT_MEMO];
};

static void memo_put(struct sq *st, int64_t id, int64_t series, const struct run *r)
{
	struct point_memo *m = &st->memo[(uint64_t)id % POINT_MEMO];
	const char *t = r->measured_at ? r->measured_at : st->now;
	size_t len = strlen(t);

	m->id = 0;
	if (len >= sizeof(m->t))
		return;
	memcpy(m->t, t, len + 1);
	m->series = series;
	m->p = r->p;
	m->n = r->n;
	m->id = id;
}

static void memo_forget(struct sq *st)
{
	size_t i;

	for (i = 0; i < POINT_MEMO; i++)
		st->memo[i].id = 0;
}

static int db_error(struct sq *st, struct kerr *err, const char *what)
{
	return kerr_store(err, what, sqlite3_errmsg(st->db));
}

static sqlite3_stmt *prepare(struct sq *st, const char *sql, struct kerr *err)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) != SQLITE_OK) {
		db_error(st, err, "preparing a statement");
		return NULL;
	}
	return s;
}

static sqlite3_stmt *stmt(struct sq *st, enum stmt_id id, struct kerr *err)
{
	if (!st->stmt[id])
		st->stmt[id] = prepare(st, stmt_sql[id], err);
	else
		sqlite3_reset(st->stmt[id]);
	return st->stmt[id];
}

/* Run a statement that returns no rows. */
static int exec_stmt(struct sq *st, enum stmt_id id, struct kerr *err, const char *what)
{
	sqlite3_stmt *s = stmt(st, id, err);
	int rc;

	if (!s)
		return -1;
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return db_error(st, err, what);
	return 0;
}

/* Run statement id with one integer bound to ?1, to completion. */
static int exec_int(struct sq *st, enum stmt_id id, int64_t v, struct kerr *err,
		    const char *what)
{
	sqlite3_stmt *s = stmt(st, id, err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, v);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return db_error(st, err, what);
	return 0;
}

/* The number a pragma gives on db (user_version, data_version); -1 when
 * it gives none. */
static int64_t pragma_int(sqlite3 *db, const char *pragma)
{
	sqlite3_stmt *s;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, pragma, -1, &s, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

static int user_version(struct sq *st)
{
	return (int)pragma_int(st->db, "PRAGMA user_version");
}

static int sq_data_version(struct store *base, int64_t *added, int64_t *changed)
{
	struct sq *st = (struct sq *)base;
	sqlite3_stmt *s = stmt(st, S_DATA_VERSION, NULL);

	if (!s || sqlite3_step(s) != SQLITE_ROW)
		return -1;
	*added = *changed = sqlite3_column_int64(s, 0) + st->version_offset;
	sqlite3_reset(s);
	return 0;
}

static int sq_schema_version(struct store *base)
{
	struct sq *st = (struct sq *)base;
	return user_version(st);
}

/* Apply every migration newer than the database, all in one transaction. */
static int migrate(struct sq *st, struct kerr *err)
{
	char *msg = NULL, pragma[64];
	int have, i;

	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	have = user_version(st);
	if (have > store_schema_latest()) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return kerr_set(err, KERR_INTERNAL,
				"the database has schema version %d, newer than this karted knows "
				"(%d): use a newer karted", have, store_schema_latest());
	}
	for (i = 0; i < schema_migrations_count; i++) {
		const struct schema_migration *m = &schema_migrations[i];

		if (m->version <= have)
			continue;
		if (sqlite3_exec(st->db, m->sql, NULL, NULL, &msg) != SQLITE_OK) {
			kerr_set(err, KERR_INTERNAL, "migration %s failed: %s", m->name, msg);
			sqlite3_free(msg);
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", m->version);
		if (sqlite3_exec(st->db, pragma, NULL, NULL, &msg) != SQLITE_OK)
			goto fail;
	}
	if (sqlite3_exec(st->db, SERIES_STAT, NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	return 0;
fail:
	kerr_set(err, KERR_INTERNAL, "cannot migrate the database: %s", msg ? msg : sqlite3_errmsg(st->db));
	sqlite3_free(msg);
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

void store_sqlite_library_init(void)
{
	sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static void sq_close(struct store *base);

/* Called every PROGRESS_OPS virtual machine steps: non-zero stops the
 * statement (SQLITE_INTERRUPT). A store_interrupt() made between two
 * statements still stops the next (sqlite3_interrupt alone is forgotten
 * when no statement runs). */
#define PROGRESS_OPS 1000

static int progress(void *arg)
{
	return store_interrupted(arg);
}

static void sq_interrupt(struct store *base)
{
	sqlite3_interrupt(((struct sq *)base)->db);
}

static int wal_frames(void *arg, sqlite3 *db, const char *name, int frames)
{
	(void)db;
	(void)name;
	((struct sq *)arg)->wal_frames = frames;
	return SQLITE_OK;
}

/* A connection to path as flags ask, set up (busy timeout, WAL, sync);
 * NULL with err set when it cannot be. */
static sqlite3 *connect(struct sq *st, const char *path, unsigned flags, struct kerr *err)
{
	int oflags = SQLITE_OPEN_NOMUTEX;
	sqlite3 *db = NULL;
	char *msg = NULL;

	oflags |= (flags & STORE_READONLY) ? SQLITE_OPEN_READONLY :
					     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(path, &db, oflags, NULL) != SQLITE_OK) {
		kerr_set(err, KERR_INTERNAL, "cannot open database '%s': %s", path,
			 db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 10000);
	sqlite3_extended_result_codes(db, 1);
	if (flags & STORE_READONLY)
		sqlite3_progress_handler(db, PROGRESS_OPS, progress, &st->base);
	if (!(flags & STORE_READONLY)) {
		const char *sync = (flags & STORE_SYNC_FULL) ? "PRAGMA synchronous = FULL" :
							       "PRAGMA synchronous = NORMAL";

		/* Checkpoints (which fsync) are taken off the commit path: see
		 * store_checkpoint() and karted's checkpointer thread. A WAL
		 * copied whole is started again from its beginning by the next
		 * write and cut to 128 MiB then (journal_size_limit), so that a
		 * large one (a move, an import) needs no TRUNCATE checkpoint,
		 * which other connections see as a write (PRAGMA data_version);
		 * under steady POSTs it is started again at 64 MiB and some
		 * (tend_wal), below the limit, and nothing is cut. */
		if (sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, &msg) != SQLITE_OK ||
		    sqlite3_exec(db, "PRAGMA journal_size_limit = 134217728", NULL, NULL, &msg) != SQLITE_OK ||
		    sqlite3_exec(db, (flags & STORE_NO_AUTOCHECKPOINT) ?
				 "PRAGMA wal_autocheckpoint = 0" : "PRAGMA wal_autocheckpoint = 1000",
				 NULL, NULL, &msg) != SQLITE_OK ||
		    sqlite3_exec(db, sync, NULL, NULL, &msg) != SQLITE_OK) {
			kerr_set(err, KERR_INTERNAL, "cannot set up database '%s': %s", path,
				 msg ? msg : sqlite3_errmsg(db));
			sqlite3_free(msg);
			sqlite3_close(db);
			return NULL;
		}
		if (flags & STORE_NO_AUTOCHECKPOINT)	/* for tend_wal (else SQLite's own hook) */
			sqlite3_wal_hook(db, wal_frames, st);
	}
	return db;
}

struct store *store_sqlite_open(const char *path, unsigned flags, struct kerr *err)
{
	struct sq *st = xcalloc(1, sizeof(*st));
	int have;

	st->path = xstrdup(path);
	st->flags = flags;
	if (!(st->db = connect(st, path, flags, err)))
		goto fail;
	if ((flags & STORE_MIGRATE) && migrate(st, err))
		goto fail;
	have = user_version(st);
	if (have != store_schema_latest()) {
		kerr_set(err, KERR_INTERNAL,
			 "database '%s' has schema version %d but this karted needs %d%s", path, have,
			 store_schema_latest(),
			 have < store_schema_latest() ? ": start `karted serve` once to migrate it" : "");
		goto fail;
	}
	st->base.ops = &store_sqlite_ops;
	return &st->base;
fail:
	sq_close(&st->base);
	return NULL;
}

/* Every statement prepared on st->db, finalized (each is prepared again
 * on its first use). */
static void finalize_all(struct sq *st)
{
	size_t i, j;

	for (i = 0; i < S_COUNT; i++) {
		sqlite3_finalize(st->stmt[i]);
		st->stmt[i] = NULL;
	}
	for (i = 0; i < QUERY_CACHE; i++) {
		sqlite3_finalize(st->queries[i].s);
		st->queries[i].s = NULL;
		st->queries[i].sql = NULL;
	}
	for (i = 0; i < STORE_TABLES; i++) {
		sqlite3_finalize(st->dump[i]);
		sqlite3_finalize(st->load[i]);
		st->dump[i] = st->load[i] = NULL;
	}
	for (i = 0; i < 2; i++)
		for (j = 0; j < LIST_VARIANTS; j++) {
			sqlite3_finalize(st->list[i][j]);
			sqlite3_finalize(st->arm[i][j][0]);
			sqlite3_finalize(st->arm[i][j][1]);
			st->list[i][j] = st->arm[i][j][0] = st->arm[i][j][1] = NULL;
		}
}

static void sq_close(struct store *base)
{
	struct sq *st = (struct sq *)base;

	if (!st)
		return;
	series_cache_free(&st->series);
	finalize_all(st);
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

static int sq_begin(struct store *base, struct kerr *err)
{
	struct sq *st = (struct sq *)base;

	store_utc_now(st->now, sizeof(st->now));
	st->next_id = 0;
	return exec_stmt(st, S_BEGIN, err, "beginning a transaction");
}

/* Write the counts of the transaction into series (schema 5). */
static int tally_flush(struct sq *st, struct kerr *err)
{
	sqlite3_stmt *s;
	size_t i;
	int rc = 0;

	for (i = 0; i < st->tally.n && rc == 0; i++) {
		s = stmt(st, S_TALLY_ADD, err);
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, st->tally.t[i].runs);
		sqlite3_bind_int64(s, 2, st->tally.t[i].last_id);
		sqlite3_bind_text(s, 3, st->now, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 4, st->tally.t[i].series);
		if (sqlite3_step(s) != SQLITE_DONE)
			rc = db_error(st, err, "counting a series' runs");
		sqlite3_reset(s);
	}
	st->tally.n = 0;
	return rc;
}

/* Count one run of series sid with id in the open transaction. */
static int count_run(struct sq *st, int64_t sid, int64_t id, struct kerr *err)
{
	if (tally_add(&st->tally, sid, id))
		return 0;
	if (tally_flush(st, err))
		return -1;
	tally_add(&st->tally, sid, id);
	return 0;
}

static int sq_commit(struct store *base, struct kerr *err)
{
	struct sq *st = (struct sq *)base;
	st->next_id = 0;
	if (tally_flush(st, err))
		return -1;
	return exec_stmt(st, S_COMMIT, err, "committing");
}

static void sq_rollback(struct store *base)
{
	struct sq *st = (struct sq *)base;
	st->next_id = 0;
	st->tally.n = 0;
	series_cache_forget(&st->series);
	memo_forget(st);	/* its ids may be given again */
	exec_stmt(st, S_ROLLBACK, NULL, "rolling back");
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

/* S_INSERT's parameters: run r as id of series sid, stored at now. */
static void bind_run(sqlite3_stmt *s, const struct run *r, int64_t id, int64_t sid, const char *now)
{
	size_t k;

	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, sid);
	for (k = 0; k < STORE_RUN_NVALUES; k++) {
		int i = 3 + (int)k;

		if (!store_run_value_set(r, k))
			sqlite3_bind_null(s, i);
		else if (store_run_values[k].kind == STORE_RV_INT)
			sqlite3_bind_int64(s, i, store_run_int(r, k));
		else if (store_run_values[k].kind == STORE_RV_REAL)
			sqlite3_bind_double(s, i, store_run_real(r, k));
		else
			sqlite3_bind_text(s, i, store_run_text(r, k), -1, SQLITE_STATIC);
	}
	bind_text(s, 3 + STORE_RUN_NVALUES, now);
}

static int find_key(struct sq *st, const char *key, int64_t *id, struct kerr *err)
{
	sqlite3_stmt *s = stmt(st, S_FIND_KEY, err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(st, err, "looking up an idempotency key");
	return rc == SQLITE_ROW;
}



/* Statement id with r's (system, application, variant) bound to ?1..?3. */
static sqlite3_stmt *series_stmt(struct sq *st, enum stmt_id id, const struct run *r,
				 struct kerr *err)
{
	sqlite3_stmt *s = stmt(st, id, err);

	if (s) {
		bind_text(s, 1, r->system);
		bind_text(s, 2, r->application);
		bind_text(s, 3, r->variant);
	}
	return s;
}

/* The id of r's series, created when new. */
static int series_id(struct sq *st, const struct run *r, int64_t *id, struct kerr *err)
{
	sqlite3_stmt *s;
	int rc;

	if (series_cache_hit(&st->series, r, id))
		return 0;
	s = series_stmt(st, S_SERIES_FIND, r, err);
	if (!s)
		return -1;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (rc == SQLITE_DONE) {
		s = series_stmt(st, S_SERIES_ADD, r, err);
		if (!s)
			return -1;
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return db_error(st, err, "storing a series");
		*id = sqlite3_last_insert_rowid(st->db);
	} else if (rc != SQLITE_ROW) {
		return db_error(st, err, "looking up a series");
	}
	series_cache_set(&st->series, r, *id);
	return 0;
}

/* The id for the next run: looked up once per write transaction (the
 * writer holds the write lock, so nobody else takes ids meanwhile), then
 * counted on; outside a transaction looked up every time. */
static int next_run_id(struct sq *st, int64_t *id, struct kerr *err)
{
	sqlite3_stmt *s;
	int rc;

	if (!st->next_id || sqlite3_get_autocommit(st->db)) {
		s = stmt(st, S_NEXT_ID, err);
		if (!s)
			return -1;
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW)
			st->next_id = sqlite3_column_int64(s, 0);
		sqlite3_reset(s);
		if (rc != SQLITE_ROW)
			return db_error(st, err, "choosing a run id");
	}
	*id = st->next_id;
	return 0;
}

/* Run r as id of series sid into runs_new, then its label rows (schema
 * 13: karted stores them, no trigger does). */
static int insert_run(struct sq *st, const struct run *r, int64_t id, int64_t sid,
		      struct kerr *err)
{
	sqlite3_stmt *s = stmt(st, S_INSERT, err);
	int rc;

	if (!s)
		return -1;
	bind_run(s, r, id, sid, st->now);
	rc = sqlite3_step(s);
	sqlite3_clear_bindings(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return db_error(st, err, "storing a run");
	if (r->labels) {
		if (!(s = stmt(st, S_LABELS_ADD, err)))
			return -1;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_text(s, 2, r->labels, -1, SQLITE_STATIC);
		rc = sqlite3_step(s);
		sqlite3_clear_bindings(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return db_error(st, err, "storing a run's labels");
	}
	memo_put(st, id, sid, r);
	return 0;
}

static int sq_put_run(struct store *base, const struct run *r, int64_t *id, bool *existed,
		  struct kerr *err)
{
	struct sq *st = (struct sq *)base;
	int64_t sid = 0;
	int rc;

	*existed = false;
	if (r->idempotency_key) {
		rc = find_key(st, r->idempotency_key, id, err);
		if (rc)
			return rc < 0 ? -1 : (*existed = true, 0);
	}
	if (series_id(st, r, &sid, err) || next_run_id(st, id, err))
		return -1;
	if (insert_run(st, r, *id, sid, err)) {
		st->next_id = 0;
		return -1;
	}
	st->next_id++;
	return count_run(st, sid, *id, err);
}

/* The n ids from the next on, for an import in parts; the floor moves past
 * them, so no later run takes one even before they are stored. */
static int sq_reserve_ids(struct store *base, int64_t n, int64_t *lo, struct kerr *err)
{
	struct sq *st = (struct sq *)base;

	if (next_run_id(st, lo, err))
		return -1;
	st->next_id += n;
	return exec_int(st, S_ID_FLOOR, *lo + n - 1, err, "reserving ids");
}

static int sq_put_run_at(struct store *base, const struct run *r, int64_t id, int64_t *out,
			 bool *existed, int64_t *series, struct kerr *err)
{
	struct sq *st = (struct sq *)base;
	int rc;

	*existed = false;
	if (r->idempotency_key) {
		rc = find_key(st, r->idempotency_key, out, err);
		if (rc)
			return rc < 0 ? -1 : (*existed = true, 0);
	}
	if (series_id(st, r, series, err))
		return -1;
	*out = id;
	return insert_run(st, r, id, *series, err);
}

static char *col_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? xstrdup((const char *)t) : NULL;
}

static char *col_borrowed(sqlite3_stmt *s, int i)
{
	return (char *)sqlite3_column_text(s, i);
}

/* Fill r from a row of STORE_RUN_COLUMNS; the strings are the row's (borrowed)
 * when copy is false, else owned by r. A row of STORE_VALUE_COLUMNS
 * (values: FB_VALUES) has the columns an analysis does not read NULL by
 * construction, left unasked, and its numbers without a has bit NOT NULL,
 * so only the others are asked for their type (a third of the calls, for
 * the 1,000 runs an analysis reads). */
static void row_read(sqlite3_stmt *s, struct run *r, bool copy, bool values)
{
	char *(*text)(sqlite3_stmt *s, int i) = copy ? col_text : col_borrowed;
	size_t k;

	store_run_blank(r);
	r->id = sqlite3_column_int64(s, 0);
	if (!values) {
		r->system = text(s, 1);
		r->application = text(s, 2);
		r->variant = text(s, 3);
		r->created_at = text(s, STORE_RUN_VALUE0 + STORE_RUN_NVALUES);
	}
	for (k = 0; k < STORE_RUN_NVALUES; k++) {
		int i = STORE_RUN_VALUE0 + (int)k;

		if ((values && !store_run_values[k].value) ||
		    ((!values || store_run_values[k].has) && sqlite3_column_type(s, i) == SQLITE_NULL))
			continue;
		if (store_run_values[k].kind == STORE_RV_INT)
			store_run_put_int(r, k, sqlite3_column_int64(s, i));
		else if (store_run_values[k].kind == STORE_RV_REAL)
			store_run_put_real(r, k, sqlite3_column_double(s, i));
		else
			store_run_put_text(r, k, text(s, i));
	}
}

static void row_to_run(sqlite3_stmt *s, struct run *r, bool copy)
{
	row_read(s, r, copy, false);
}

static int sq_get_run(struct store *base, int64_t id, struct run *out, struct kerr *err)
{
	struct sq *st = (struct sq *)base;
	sqlite3_stmt *s = stmt(st, S_GET, err);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		row_to_run(s, out, true);
	sqlite3_reset(s);
	if (rc == SQLITE_DONE)
		return kerr_set(err, KERR_NOT_FOUND, "there is no run with id %lld", (long long)id);
	if (rc != SQLITE_ROW)
		return db_error(st, err, "reading a run");
	return 0;
}

static int sq_delete_run(struct store *base, int64_t id, bool *deleted, struct kerr *err)
{
	struct sq *st = (struct sq *)base;

	if (st->memo[(uint64_t)id % POINT_MEMO].id == id)
		st->memo[(uint64_t)id % POINT_MEMO].id = 0;
	/* counts first: a run added earlier in this transaction is counted */
	if (tally_flush(st, err) || exec_int(st, S_TALLY_DELETE, id, err, "counting a delete") ||
	    exec_int(st, S_DELETE, id, err, "deleting a run"))
		return -1;
	*deleted = sqlite3_changes(st->db) > 0;
	if (!*deleted) {
		if (exec_int(st, S_LABELS_NEW, id, err, "deleting a run's labels") ||
		    exec_int(st, S_DELETE_NEW, id, err, "deleting a run"))
			return -1;
		*deleted = sqlite3_changes(st->db) > 0;
	}
	if (!*deleted)
		return 0;
	/* so that id is never given again, even when it was the largest */
	if (exec_int(st, S_ID_FLOOR, id, err, "keeping the deleted id") ||
	    exec_int(st, S_TALLY_LAST, id, err, "finding a series' newest run"))
		return -1;
	return 0;
}

/* The filters' clauses of bits appended to sql. */
static void where(char *sql, size_t size, unsigned bits, const char *const *clause, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (bits & (1u << i))
			strncat(sql, clause[i], size - strlen(sql) - 1);
}

/* A listing's filters after the first, by filter_bit (where) */
static const char *const list_clause[] = {
	" AND s.system = ?1", " AND s.application = ?2", " AND s.variant = ?3",
	" AND r.p = ?4", " AND r.n = ?5",
};
#define LIST_CLAUSES (sizeof(list_clause) / sizeof(list_clause[0]))

/* A listing of one whole series reads it an epoch at a time (schema 15),
 * and each epoch from runs_base and runs_new apart (arm_stmt): runs_series
 * gives each epoch's runs of the series in id order, where the series
 * across its epochs would have to be sorted whole first. */
static bool by_epoch(unsigned bits)
{
	return (bits & (FB_SYSTEM | FB_APPLICATION | FB_VARIANT)) ==
	       (FB_SYSTEM | FB_APPLICATION | FB_VARIANT) && !(bits & FB_LABEL);
}

/* One table's runs of a series in one epoch (t: 0 runs_base, 1 runs_new):
 * ?11 the series' id, ?14..?15 the ids to read (the epoch's, narrowed by
 * the page's cursor), ?12..?13 an import's ids still hidden, ?10 the epoch
 * (which runs_series begins with; runs_new's index is by series and id).
 * The two are merged by id in C (each_row): the view runs without
 * SQLite's merge of its arms, the series' names bound rather than joined
 * and the hidden ids bound rather than asked for at each row, a third
 * less of SQLite's work a run (the 1,000 runs of an isoefficiency). */
static sqlite3_stmt *arm_stmt(struct sq *st, unsigned bits, bool oldest, int t, struct kerr *err)
{
	char sql[1024];

	if (st->arm[oldest][bits][t]) {
		sqlite3_reset(st->arm[oldest][bits][t]);
		return st->arm[oldest][bits][t];
	}
	snprintf(sql, sizeof(sql), "SELECT %s FROM %s r WHERE %sr.series_id = ?11 AND r.id BETWEEN ?14 AND "
		 "?15 AND r.id NOT BETWEEN ?12 AND ?13", bits & FB_VALUES ? STORE_VALUE_COLUMNS : STORE_ARM_COLUMNS,
		 t ? "runs_new" : "runs_base", t ? "" : "r.epoch = ?10 AND ");
	where(sql, sizeof(sql), bits & (FB_P | FB_N), list_clause, LIST_CLAUSES);	/* the series: by id */
	snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql), " ORDER BY r.id%s LIMIT ?7", oldest ? "" : " DESC");
	st->arm[oldest][bits][t] = prepare(st, sql, err);
	return st->arm[oldest][bits][t];
}

/* The listing statement for one combination of filters. The text is made
 * only of the constant fragments below; every value is bound. */
static sqlite3_stmt *list_stmt(struct sq *st, unsigned bits, bool oldest, struct kerr *err)
{
	char sql[2048] = "";
	const char *order = "r.id";
	int t;

	if (st->list[oldest][bits]) {
		sqlite3_reset(st->list[oldest][bits]);
		sqlite3_clear_bindings(st->list[oldest][bits]);
		return st->list[oldest][bits];
	}
	if (bits & FB_LABEL) {
		/* The label's entries outermost (CROSS JOIN), one arm per table of
		 * schema 11 (SQLite would read the view runs whole on the right of
		 * a join), merged by id: the first column is l.run_id, so that the
		 * merge's order is the key's. Each arm is bounded to its table's
		 * ids, or runs_new's would walk every older entry of the label. */
		static const char *const arm[2][2] = {
			{"runs_base", " AND l.run_id <= (SELECT max(id) FROM runs_base)"},
			{"runs_new", " AND l.run_id >= (SELECT min(id) FROM runs_new)"},
		};
		for (t = 0; t < 2; t++) {
			snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql),
				 "%sSELECT l.run_id%s FROM run_labels l CROSS JOIN %s r ON r.id = l.run_id "
				 "CROSS JOIN series s ON s.id = r.series_id WHERE l.key = ?8 AND "
				 "l.value = ?9 AND %s%s%s", t ? " UNION ALL " : "",
				 STORE_LIST_COLUMNS(bits) + strlen("r.id"), arm[t][0],
				 oldest ? "l.run_id > ?6" : "l.run_id < ?6", arm[t][1], STORE_VISIBLE);
			where(sql, sizeof(sql), bits, list_clause, LIST_CLAUSES);
		}
		order = "1";
	} else {
		snprintf(sql, sizeof(sql), "SELECT %s%s WHERE %s%s", STORE_LIST_COLUMNS(bits), STORE_RUN_FROM,
			 oldest ? "r.id > ?6" : "r.id < ?6", STORE_VISIBLE);
		where(sql, sizeof(sql), bits, list_clause, LIST_CLAUSES);
	}
	snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql), " ORDER BY %s%s LIMIT ?7", order,
		 oldest ? "" : " DESC");
	st->list[oldest][bits] = prepare(st, sql, err);
	return st->list[oldest][bits];
}

/* What a listing of one whole series reads (list_series): its epochs in
 * the listing's order, first to last (first past last, by one step, when
 * there is none: no run, no such series), from the one of f's before_id
 * on (an id of it may be on either side); the series' id; and the ids an
 * import still hides. */
struct series_walk {
	int64_t first, last, series, hide_lo, hide_hi;
};

static int list_epochs(struct sq *st, const struct run_filter *f, struct series_walk *sw,
		       struct kerr *err)
{
	sqlite3_stmt *s = stmt(st, S_EPOCHS, err);
	int64_t lo = 1, hi = 0;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, INT64_MAX);
	bind_text(s, 2, f->system);
	bind_text(s, 3, f->application);
	bind_text(s, 4, f->variant);
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_reset(s);
		return db_error(st, err, "listing runs");
	}
	if (sqlite3_column_type(s, 0) != SQLITE_NULL && sqlite3_column_type(s, 2) != SQLITE_NULL) {
		lo = sqlite3_column_int64(s, 0) >> EPOCH_SHIFT;
		hi = sqlite3_column_int64(s, 1) >> EPOCH_SHIFT;
	}
	sw->series = sqlite3_column_int64(s, 2);
	sw->hide_lo = sqlite3_column_int64(s, 3);
	sw->hide_hi = sqlite3_column_int64(s, 4);
	sqlite3_reset(s);
	if (f->before_id > 0 && f->oldest_first && (f->before_id >> EPOCH_SHIFT) > lo)
		lo = f->before_id >> EPOCH_SHIFT;
	if (f->before_id > 0 && !f->oldest_first && (f->before_id >> EPOCH_SHIFT) < hi)
		hi = f->before_id >> EPOCH_SHIFT;
	sw->first = f->oldest_first ? lo : hi;
	sw->last = f->oldest_first ? hi : lo;
	if (lo > hi)
		sw->first = sw->last + (f->oldest_first ? 1 : -1);
	return 0;
}

/* The rows of the n (1 or 2) statements s, merged by id in the listing's
 * order, each handed to each while *left (-1: no limit) allows; each's
 * nonzero answer, -1 on an error, else 0. Merged, not one table after the
 * other: runs_new may hold ids below runs_base's largest (a large import
 * stores its parts while moves go on). */
static int each_row(struct sq *st, sqlite3_stmt *const *s, int n, bool oldest, bool values,
		    int64_t *left, int (*each)(const struct run *r, void *ctx), void *ctx,
		    struct kerr *err)
{
	int rc[2] = {SQLITE_DONE, SQLITE_DONE}, t, stop = 0;
	int64_t a, b;
	struct run r;

	for (t = 0; t < n; t++) {
		sqlite3_bind_int64(s[t], 7, *left);
		rc[t] = sqlite3_step(s[t]);
	}
	while (*left != 0 && (rc[0] == SQLITE_ROW || rc[1] == SQLITE_ROW)) {
		t = rc[0] != SQLITE_ROW;
		if (rc[0] == SQLITE_ROW && rc[1] == SQLITE_ROW) {
			a = sqlite3_column_int64(s[0], 0);
			b = sqlite3_column_int64(s[1], 0);
			t = oldest ? b < a : b > a;
		}
		row_read(s[t], &r, false, values);
		if (*left > 0)
			--*left;
		if ((stop = each(&r, ctx)))
			break;
		rc[t] = sqlite3_step(s[t]);
	}
	for (t = 0; t < n; t++) {
		sqlite3_reset(s[t]);
		if (!stop && rc[t] != SQLITE_DONE && rc[t] != SQLITE_ROW)
			stop = db_error(st, err, "listing runs");
	}
	return stop;
}

/* One whole series, epoch by epoch, in one read transaction: one
 * snapshot, as one statement would read. */
static int list_series(struct sq *st, const struct run_filter *f, unsigned bits, int64_t left,
		       int (*each)(const struct run *r, void *ctx), void *ctx, struct kerr *err)
{
	bool own = sqlite3_get_autocommit(st->db), oldest = f->oldest_first;
	int64_t step = oldest ? 1 : -1, e, from, to;
	struct series_walk sw = {0};
	sqlite3_stmt *s[2];
	int t, stop = 0;

	for (t = 0; t < 2; t++)
		if (!(s[t] = arm_stmt(st, bits, oldest, t, err)))
			return -1;
	if (own && exec_stmt(st, S_READ_BEGIN, err, "beginning a read"))
		return -1;
	if (list_epochs(st, f, &sw, err)) {
		stop = -1;
		goto out;
	}
	for (t = 0; t < 2; t++) {
		bind_text(s[t], 1, f->system);
		bind_text(s[t], 2, f->application);
		bind_text(s[t], 3, f->variant);
		sqlite3_bind_int64(s[t], 4, f->p);
		sqlite3_bind_double(s[t], 5, f->n);
		sqlite3_bind_int64(s[t], 11, sw.series);
		sqlite3_bind_int64(s[t], 12, sw.hide_lo);
		sqlite3_bind_int64(s[t], 13, sw.hide_hi);
	}
	for (e = sw.first; !stop && left != 0 && e != sw.last + step; e += step) {
		from = e << EPOCH_SHIFT;
		to = from + ((int64_t)1 << EPOCH_SHIFT) - 1;
		if (f->before_id > 0 && oldest && from <= f->before_id)
			from = f->before_id + 1;
		if (f->before_id > 0 && !oldest && to >= f->before_id)
			to = f->before_id - 1;
		for (t = 0; t < 2; t++) {
			sqlite3_bind_int64(s[t], 10, e);
			sqlite3_bind_int64(s[t], 14, from);
			sqlite3_bind_int64(s[t], 15, to);
		}
		stop = each_row(st, s, 2, oldest, bits & FB_VALUES, &left, each, ctx, err);
	}
out:
	if (own)
		exec_stmt(st, S_COMMIT, NULL, "ending a read");
	return stop;
}

static int sq_each_run(struct store *base, const struct run_filter *f,
		   int (*each)(const struct run *r, void *ctx), void *ctx, struct kerr *err)
{
	struct sq *st = (struct sq *)base;
	unsigned bits = store_filter_bits(f);
	int64_t left = f->limit > 0 ? f->limit : -1;
	sqlite3_stmt *s;

	if (by_epoch(bits))
		return list_series(st, f, bits, left, each, ctx, err);
	if (!(s = list_stmt(st, bits, f->oldest_first, err)))
		return -1;
	bind_text(s, 1, f->system);
	bind_text(s, 2, f->application);
	bind_text(s, 3, f->variant);
	sqlite3_bind_int64(s, 4, f->p);
	sqlite3_bind_double(s, 5, f->n);
	if (f->oldest_first)
		sqlite3_bind_int64(s, 6, f->before_id > 0 ? f->before_id : 0);
	else
		sqlite3_bind_int64(s, 6, f->before_id > 0 ? f->before_id : INT64_MAX);
	if (bits & FB_LABEL) {
		bind_text(s, 8, f->labels[0].key);
		bind_text(s, 9, f->labels[0].value);
	}
	return each_row(st, &s, 1, f->oldest_first, bits & FB_VALUES, &left, each, ctx, err);
}

/* sq_points_before: one run asked about (ids[k]), its point and time, and
 * the runs of runs_base before it there, the latest `limit` so far (a
 * min-heap on (time, id): the earliest of them at c[0]). */
struct point_ask {
	int64_t id, series, p;
	double n;
	char *t;		/* coalesce(measured_at, created_at); NULL: not stored */
	size_t chain;		/* the next ask of its series with the same hash, or SIZE_MAX */
	struct point_run {
		int64_t id;
		char *big;	/* its time when longer than t holds, else NULL */
		char t[40];	/* its time (an ISO 8601 text: 24 bytes from karted) */
	} *c;
	size_t nc;
};

/* An ask by its series, to sort the asks of a series together. */
struct ask_at {
	int64_t series;
	size_t k;
};

static int point_run_cmp(const char *ta, int64_t ida, const char *tb, int64_t idb)
{
	int c = strcmp(ta, tb);	/* SQLite's BINARY collation, for text without NUL */

	return c ? c : (ida > idb) - (ida < idb);
}

static const char *pr_t(const struct point_run *r)
{
	return r->big ? r->big : r->t;
}

/* Set r to run (t, id): a copy of t without an allocation when it fits
 * (a walk of 10^6 runs replaces a heap's root about once a run). */
static void pr_set(struct point_run *r, int64_t id, const char *t)
{
	size_t len = strlen(t);

	free(r->big);
	r->big = NULL;
	r->id = id;
	if (len < sizeof(r->t))
		memcpy(r->t, t, len + 1);
	else
		r->big = xstrdup(t);
}

static int pr_cmp(const struct point_run *x, const struct point_run *y)
{
	return point_run_cmp(pr_t(x), x->id, pr_t(y), y->id);
}

static int point_run_desc(const void *a, const void *b)
{
	return pr_cmp(b, a);
}

/* Offer run (t, id) to the ask's latest `limit`. */
static void point_offer(struct point_ask *a, size_t limit, const char *t, int64_t id)
{
	struct point_run *h, tmp;
	size_t i, l, m;

	if (a->nc == limit) {
		if (point_run_cmp(t, id, pr_t(&a->c[0]), a->c[0].id) <= 0)
			return;
		pr_set(&a->c[0], id, t);
		for (i = 0, h = a->c;; i = m) {	/* sift down */
			l = 2 * i + 1;
			m = i;
			if (l < a->nc && pr_cmp(&h[l], &h[m]) < 0)
				m = l;
			if (l + 1 < a->nc && pr_cmp(&h[l + 1], &h[m]) < 0)
				m = l + 1;
			if (m == i)
				break;
			tmp = h[i], h[i] = h[m], h[m] = tmp;
		}
		return;
	}
	if (!a->c)
		a->c = xcalloc(limit, sizeof(*a->c));
	h = a->c;
	pr_set(&h[a->nc], id, t);	/* xcalloc'd: big is NULL */
	for (i = a->nc++; i && pr_cmp(&h[i], &h[(i - 1) / 2]) < 0; i = (i - 1) / 2)	/* sift up */
		tmp = h[i], h[i] = h[(i - 1) / 2], h[(i - 1) / 2] = tmp;
}

#define POINT_SLOTS (2 * STORE_POINTS_MAX)

static size_t point_slot(int64_t p, double n)
{
	uint64_t bits;

	memcpy(&bits, &n, sizeof(bits));
	bits ^= (uint64_t)p * 0x9e3779b97f4a7c15u;
	bits *= 0xff51afd7ed558ccdu;
	return (size_t)(bits >> 40) % POINT_SLOTS;
}

/* One walk of the series' runs in runs_base (runs_series carries their
 * points and times) for the asks order[0..count), all of one series. */
static int series_walk(struct sq *st, struct point_ask *asks, const struct ask_at *order, size_t count,
		       size_t limit, struct kerr *err)
{
	size_t slot[POINT_SLOTS], i, j, at = 0, room = 2 + count * 21;
	sqlite3_stmt *s = stmt(st, S_SERIES_POINTS, err);
	char *ps;
	int rc;

	if (!s)
		return -1;
	for (i = 0; i < POINT_SLOTS; i++)
		slot[i] = SIZE_MAX;
	/* the points' p as a JSON array: the walk returns only rows that may
	 * match (integers, so no number is lost on the way through text) */
	ps = xmalloc(room);
	for (i = 0; i < count; i++) {
		struct point_ask *a = &asks[order[i].k];
		size_t h = point_slot(a->p, a->n);

		a->chain = slot[h];
		slot[h] = order[i].k;
		at += (size_t)snprintf(ps + at, room - at, "%c%lld", i ? ',' : '[', (long long)a->p);
	}
	snprintf(ps + at, room - at, "]");
	sqlite3_bind_int64(s, 1, order[0].series);
	sqlite3_bind_text(s, 2, ps, -1, free);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t p = sqlite3_column_int64(s, 1), id;
		double n = sqlite3_column_double(s, 2);
		const char *t;

		if ((j = slot[point_slot(p, n)]) == SIZE_MAX)
			continue;	/* most rows: a point nobody asked about */
		id = sqlite3_column_int64(s, 0);
		t = (const char *)sqlite3_column_text(s, 3);
		for (; t && j != SIZE_MAX; j = asks[j].chain)
			if (asks[j].p == p && asks[j].n == n &&
			    point_run_cmp(t, id, asks[j].t, asks[j].id) < 0)
				point_offer(&asks[j], limit, t, id);
	}
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : db_error(st, err, "reading a series' points");
}

static int by_series(const void *a, const void *b)
{
	const struct ask_at *x = a, *y = b;

	return (x->series > y->series) - (x->series < y->series);
}

/* The earlier runs of ask a: runs_new's (S_POINT_NEW) and runs_base's
 * (a->c, read by id) merged, newest first, at most limit, to each(). */
static int point_emit(struct sq *st, size_t k, const struct point_ask *a, int64_t limit,
		      int (*each)(size_t k, const struct run *r, void *ctx), void *ctx,
		      struct kerr *err)
{
	sqlite3_stmt *s = stmt(st, S_POINT_NEW, err), *b = stmt(st, S_BASE_POINT_ROW, err);
	size_t at = 0;
	int64_t sent = 0;
	struct run r;
	int rc = SQLITE_DONE, rb, stop = 0, tcol;

	if (!s || !b)
		return -1;
	tcol = sqlite3_column_count(s) - 1;	/* t, after STORE_POINT_COLUMNS */
	sqlite3_bind_int64(s, 1, a->id);
	sqlite3_bind_int64(s, 2, limit);
	sqlite3_bind_int64(s, 3, a->series);
	sqlite3_bind_int64(s, 4, a->p);
	sqlite3_bind_double(s, 5, a->n);
	sqlite3_bind_text(s, 6, a->t, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	while (!stop && sent < limit) {
		bool from_new = rc == SQLITE_ROW &&
			(at == a->nc || point_run_cmp((const char *)sqlite3_column_text(s, tcol),
						      sqlite3_column_int64(s, 0), pr_t(&a->c[at]), a->c[at].id) > 0);

		if (from_new) {
			row_to_run(s, &r, false);
			stop = each(k, &r, ctx);
			rc = sqlite3_step(s);
		} else if (at < a->nc) {
			sqlite3_bind_int64(b, 1, a->c[at++].id);
			if ((rb = sqlite3_step(b)) == SQLITE_ROW) {
				row_to_run(b, &r, false);
				stop = each(k, &r, ctx);
			}
			sqlite3_reset(b);
			if (rb == SQLITE_DONE) {	/* walked in this read, so never */
				sqlite3_reset(s);
				return kerr_store(err, "reading a point's runs", "a run walked in runs_series is gone");
			}
			if (rb != SQLITE_ROW) {
				rc = rb;
				break;
			}
		} else {
			break;
		}
		sent++;
	}
	sqlite3_reset(s);
	if (stop)
		return stop;
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_error(st, err, "reading a point's runs");
}

/* One read transaction for all ids (unless one is open): a snapshot, and
 * the WAL's read lock taken once, not per statement. Each run's point
 * and time first (remembered for the runs this connection stored), then
 * one walk of each series' runs in runs_base for all its points asked
 * about, then each run's earlier runs in id order of the asks. */
static int sq_points_before(struct store *base, const int64_t *ids, size_t n, int64_t limit,
			    int (*each)(size_t k, const struct run *r, void *ctx), void *ctx,
			    struct kerr *err)
{
	struct sq *st = (struct sq *)base;
	bool own = sqlite3_get_autocommit(st->db);
	struct point_ask *asks = xcalloc(n, sizeof(*asks));
	struct ask_at *order = xcalloc(n, sizeof(*order));
	size_t k, i, from, stored = 0;
	sqlite3_stmt *q;
	int rc = 0, step;

	if (own && exec_stmt(st, S_READ_BEGIN, err, "beginning a read")) {
		free(asks);
		free(order);
		return -1;
	}
	q = stmt(st, S_POINT_OF, err);
	for (k = 0; q && k < n && !rc; k++) {
		const struct point_memo *m = &st->memo[(uint64_t)ids[k] % POINT_MEMO];
		struct point_ask *a = &asks[k];

		a->id = ids[k];
		if (m->id == ids[k]) {	/* stored by this connection just now */
			a->series = m->series;
			a->p = m->p;
			a->n = m->n;
			a->t = xstrdup(m->t);
		} else {
			sqlite3_bind_int64(q, 1, ids[k]);
			step = sqlite3_step(q);
			if (step == SQLITE_ROW && sqlite3_column_type(q, 3) == SQLITE_TEXT) {
				a->series = sqlite3_column_int64(q, 0);
				a->p = sqlite3_column_int64(q, 1);
				a->n = sqlite3_column_double(q, 2);
				a->t = xstrdup((const char *)sqlite3_column_text(q, 3));
			} else if (step != SQLITE_DONE && step != SQLITE_ROW) {
				rc = db_error(st, err, "reading a run's point");
			}	/* else not stored (deleted since): no earlier runs */
			sqlite3_reset(q);
		}
		if (a->t)
			order[stored++] = (struct ask_at){.series = a->series, .k = k};
	}
	if (!q)
		rc = -1;
	qsort(order, stored, sizeof(*order), by_series);
	for (from = 0; !rc && from < stored; from = i) {
		for (i = from + 1; i < stored && order[i].series == order[from].series; i++)
			;
		rc = series_walk(st, asks, order + from, i - from, (size_t)limit, err);
	}
	for (k = 0; !rc && k < n; k++) {
		if (!asks[k].t)
			continue;
		if (asks[k].nc > 1)
			qsort(asks[k].c, asks[k].nc, sizeof(*asks[k].c), point_run_desc);
		rc = point_emit(st, k, &asks[k], limit, each, ctx, err);
	}
	for (k = 0; k < n; k++) {
		for (i = 0; i < asks[k].nc; i++)
			free(asks[k].c[i].big);
		free(asks[k].c);
		free(asks[k].t);
	}
	free(asks);
	free(order);
	if (own)
		exec_stmt(st, S_COMMIT, NULL, "ending a read");
	return rc;
}






/* Under a steady stream of commits the WAL is never started again: the
 * next write starts it from its beginning only when a checkpoint has
 * copied all of it, and the checkpointer's copy (another thread, once a
 * second) always ends behind the writer's latest commit. It then grows
 * without end (3.8 GB after 20 s of single-run POSTs into 10^6 runs),
 * and every page the writer reads is looked up in a larger WAL index:
 * the CPU a run took outside the moves rose from 29 µs in the first 5 s
 * to 36-58 µs in the next 15 (issue #40).
 * So once the WAL holds more than journal_size_limit, the writer copies
 * the rest itself, between batches, where nothing else writes: what the
 * checkpointer has not copied yet, at most a tenth of a second's commits. A
 * reader on an older snapshot can keep part of it; the next call tries
 * again. */
#define WAL_TEND_FRAMES 16384	/* 64 MiB of 4 KiB pages: journal_size_limit */

static void tend_wal(struct sq *st)
{
	int log = 0, done = 0;

	if (!(st->flags & STORE_NO_AUTOCHECKPOINT) || st->wal_frames <= WAL_TEND_FRAMES)
		return;
	if (sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done) !=
	    SQLITE_OK || done < log)
		return;	/* busy (the checkpointer copies now) or a reader keeps some */
	klog(KLOG_DEBUG, "the WAL held %d pages, all copied: the next commit starts it again", log);
	st->wal_frames = 0;
}

/* st->db exchanged for a new connection to the same file, so that the
 * page cache a move grew (MERGE_CACHE) goes with the old one. SQLite's
 * cache keeps the hash table it grew to for as many pages, and every
 * commit walks it (pager_end_transaction truncates the cache): after the
 * first move, 37 % of the writer's time at 10^6 runs, until karted
 * stopped. The old connection holds the write lock while the new one
 * reads PRAGMA data_version, so that both see the same commits and
 * sq_data_version's numbers go on with no write of another connection
 * lost or counted twice. On any failure the old connection stays. */
static void renew(struct sq *st)
{
	struct kerr err;
	sqlite3 *db = NULL;
	int64_t was = -1, now = -1;

	kerr_clear(&err);
	if (exec_stmt(st, S_BEGIN, &err, "renewing the connection") == 0 &&
	    (was = pragma_int(st->db, "PRAGMA data_version")) >= 0 &&
	    (db = connect(st, st->path, st->flags, &err)) &&
	    (now = pragma_int(db, "PRAGMA data_version")) < 0) {
		kerr_store(&err, "renewing the connection", sqlite3_errmsg(db));
		sqlite3_close(db);
		db = NULL;
	}
	exec_stmt(st, S_ROLLBACK, NULL, "renewing the connection");
	if (!db) {
		klog(KLOG_WARNING, "%s (the connection is kept)",
		     was < 0 && !err.code ? "cannot read PRAGMA data_version" : KERR_TEXT(&err));
		return;
	}
	finalize_all(st);
	sqlite3_close(st->db);
	st->db = db;
	st->version_offset += was - now;
}

/* Schema 11: once runs_new holds MERGE_CHUNK runs, they are moved into
 * runs_base in one transaction, in id order: the table is appended to,
 * and a series' or a point's new index entries land together at its end,
 * so a move writes about one leaf of runs_series and runs_point per series
 * and point it holds, where storing the runs one commit at a time into
 * runs_base would have written one each. runs_new is then emptied whole
 * (its pages freed, no entry deleted one by one). Only a backlog of more
 * than MERGE_MAX (a large import staged in parts) is moved a chunk at a
 * time, so that no move holds the write lock for long. The page cache is
 * raised for the move (the leaves it touches stay in memory until the
 * commit writes each once), then given back. */
#define MERGE_CHUNK 65536
#define MERGE_MAX (2 * MERGE_CHUNK)
/* Under load a move goes in slices of MERGE_SLICE runs, one between two
 * batches, so that no batch waits for a whole move: one of 112,000 runs
 * held the writer 290-340 ms at 45,000 POSTs a second (every request in
 * flight waited as long: p99 243 ms), a slice of 1024 about 2.5 ms (with
 * 2048 the p99 of single POSTs was 11.3 ms, with 1024 9.9 ms; the minimal
 * server's 5.7-6.7 ms). The last slice empties runs_new whole. */
#define MERGE_SLICE 1024
#define MERGE_CACHE "PRAGMA cache_size = -131072"	/* KiB: 128 MiB */

static int sq_merge(struct store *base, bool all, int64_t *moved, struct kerr *err)
{
	struct sq *st = (struct sq *)base;
	sqlite3_stmt *s = stmt(st, S_STAGED, err);
	int64_t staged = 0, upto = 0;
	bool whole, sliced, big;
	int rc = -1;

	*moved = 0;
	tend_wal(st);
	if (!s)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		staged = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (staged < (all || st->merging ? 1 : MERGE_CHUNK)) {
		st->merging = false;
		return 0;
	}
	/* under load, a slice at a time (the writer comes back after its next
	 * batch); a whole move (all: at stop, or idle) in chunks */
	sliced = !all && staged > MERGE_SLICE;
	st->merging = sliced;	/* the last slice empties runs_new whole */
	/* only a move of more than a slice at once needs the large cache (and
	 * the new connection after it): the last slice, or a few runs at stop,
	 * fit in SQLite's default */
	big = all && staged > MERGE_SLICE;
	if (big)
		sqlite3_exec(st->db, MERGE_CACHE, NULL, NULL, NULL);
	if (exec_stmt(st, S_BEGIN, err, "beginning a merge"))
		goto out;
	/* the whole table (what came since the count too) or its oldest part */
	whole = !sliced && staged <= MERGE_MAX;
	if (!(s = stmt(st, S_MERGE_UPTO, err)))
		goto fail;
	sqlite3_bind_int64(s, 1, whole ? INT64_MAX : sliced ? MERGE_SLICE : MERGE_CHUNK);
	if (sqlite3_step(s) == SQLITE_ROW)
		upto = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (exec_int(st, S_MERGE_COPY, upto, err, "moving runs into runs_base"))
		goto fail;
	*moved = sqlite3_changes(st->db);
	if ((whole ? exec_stmt(st, S_MERGE_EMPTY, err, "moving runs into runs_base") :
		     exec_int(st, S_MERGE_DROP, upto, err, "moving runs into runs_base")) ||
	    exec_stmt(st, S_COMMIT, err, "committing a merge"))
		goto fail;
	if (big)
		renew(st);	/* with the cache the move grew; the new one has SQLite's default */
	rc = 0;
	goto out;	/* the cache given back all the same if the old connection stayed */
fail:
	*moved = 0;
	st->merging = false;
	exec_stmt(st, S_ROLLBACK, NULL, "rolling back a merge");
out:
	if (big) {
		sqlite3_exec(st->db, "PRAGMA cache_size = -2000", NULL, NULL, NULL);	/* SQLite's default */
		sqlite3_db_release_memory(st->db);
	}
	return rc;
}

static int sq_checkpoint(struct store *base, bool truncate, int *left, struct kerr *err)
{
	struct sq *st = (struct sq *)base;
	int log = 0, done = 0, rc;

	rc = sqlite3_wal_checkpoint_v2(st->db, NULL,
				       truncate ? SQLITE_CHECKPOINT_TRUNCATE : SQLITE_CHECKPOINT_PASSIVE,
				       &log, &done);
	if (left)
		*left = log > done ? log - done : 0;
	if (rc != SQLITE_OK && rc != SQLITE_BUSY)
		return db_error(st, err, "checkpointing");
	return 0;
}

static int sq_explain_listing(struct store *base, const struct run_filter *f, char *buf, size_t size,
			  struct kerr *err)
{
	struct sq *st = (struct sq *)base;
	unsigned bits = store_filter_bits(f);
	bool arms = by_epoch(bits);
	sqlite3_stmt *s, *plan;
	char sql[2100];
	size_t len = 0;
	int t;

	buf[0] = '\0';
	for (t = 0; t < (arms ? 2 : 1); t++) {	/* a whole series: its two statements */
		s = arms ? arm_stmt(st, bits, f->oldest_first, t, err) : list_stmt(st, bits, f->oldest_first, err);
		if (!s)
			return -1;
		snprintf(sql, sizeof(sql), "EXPLAIN QUERY PLAN %s", sqlite3_sql(s));
		if (sqlite3_prepare_v2(st->db, sql, -1, &plan, NULL) != SQLITE_OK)
			return db_error(st, err, "explaining a query");
		while (sqlite3_step(plan) == SQLITE_ROW && len + 1 < size)
			len += (size_t)snprintf(buf + len, size - len, "%s\n", sqlite3_column_text(plan, 3));
		sqlite3_finalize(plan);
	}
	return 0;
}



/* karted copy: table t as text rows; doubles as %.17g (SQLite's own text
 * of a REAL has 15 digits, which would not read back to the same double). */
static int sq_dump(struct store *base, enum store_table t, int64_t after_id, int64_t limit,
		   int (*row)(const char *const *v, void *ctx), void *ctx, struct kerr *err)
{
	struct sq *st = (struct sq *)base;
	const struct store_table_desc *d = &store_tables[t];
	size_t ncol = strlen(d->types), i;
	char sql[512], num[16][32];
	const char *v[16];
	sqlite3_stmt *s;
	int rc, stop = 0;

	if (!st->dump[t]) {
		snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE %s ORDER BY %s LIMIT ?2", d->columns,
			 d->name, t == T_RUNS ? "id > ?1" : "?1 IS NOT NULL", d->key);
		st->dump[t] = prepare(st, sql, err);
		if (!st->dump[t])
			return -1;
	}
	s = st->dump[t];
	sqlite3_reset(s);
	sqlite3_bind_int64(s, 1, after_id);
	sqlite3_bind_int64(s, 2, limit > 0 ? limit : -1);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		for (i = 0; i < ncol; i++) {
			if (sqlite3_column_type(s, (int)i) == SQLITE_NULL) {
				v[i] = NULL;
			} else if (d->types[i] == 'r') {
				snprintf(num[i], sizeof(num[i]), "%.17g", sqlite3_column_double(s, (int)i));
				v[i] = num[i];
			} else {
				v[i] = (const char *)sqlite3_column_text(s, (int)i);
			}
		}
		stop = row(v, ctx);
		if (stop)
			break;
	}
	sqlite3_reset(s);
	if (!stop && rc != SQLITE_DONE)
		return db_error(st, err, "reading a table to copy");
	return stop;
}

static int sq_load(struct store *base, enum store_table t, const char *const *v, struct kerr *err)
{
	struct sq *st = (struct sq *)base;
	const struct store_table_desc *d = &store_tables[t];
	size_t ncol = strlen(d->types), i;
	char sql[768], marks[64] = "";
	sqlite3_stmt *s;
	int rc;

	if (!st->load[t]) {
		for (i = 0; i < ncol; i++)
			strcat(marks, i ? ",?" : "?");
		if (t == T_FLOOR)
			snprintf(sql, sizeof(sql), "UPDATE run_id_floor SET high = max(high, ?)");
		else
			/* runs straight into runs_base (schema 11): a copy comes in id
			 * order, appended to the large table, not staged; their labels
			 * below */
			snprintf(sql, sizeof(sql), "INSERT INTO %s (%s) VALUES (%s) ON CONFLICT DO NOTHING",
				 t == T_RUNS ? "runs_base" : d->name, d->columns, marks);
		st->load[t] = prepare(st, sql, err);
		if (!st->load[t])
			return -1;
	}
	s = st->load[t];
	sqlite3_reset(s);
	for (i = 0; i < ncol; i++) {
		if (!v[i])
			sqlite3_bind_null(s, (int)i + 1);
		else if (d->types[i] == 'i')
			sqlite3_bind_int64(s, (int)i + 1, strtoll(v[i], NULL, 10));
		else if (d->types[i] == 'r')
			sqlite3_bind_double(s, (int)i + 1, strtod(v[i], NULL));
		else
			sqlite3_bind_text(s, (int)i + 1, v[i], -1, SQLITE_TRANSIENT);
	}
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return db_error(st, err, "storing a copied row");
	/* runs_base has no insert trigger (a merge's copy would pay for it) */
	if (t == T_RUNS && sqlite3_changes(st->db) > 0 &&
	    exec_int(st, S_LABELS_BASE, strtoll(v[0], NULL, 10), err, "storing a copied run's labels"))
		return -1;
	return 0;
}


/* store_query: the statement of sql, prepared once (or each time when
 * the cache is full). *owned tells the caller to finalize it. */
static sqlite3_stmt *query_stmt(struct sq *st, const char *sql, bool *owned, struct kerr *err)
{
	size_t i;

	*owned = false;
	for (i = 0; i < QUERY_CACHE && st->queries[i].sql; i++) {
		if (st->queries[i].sql == sql) {
			sqlite3_reset(st->queries[i].s);
			sqlite3_clear_bindings(st->queries[i].s);
			return st->queries[i].s;
		}
	}
	if (i == QUERY_CACHE) {
		*owned = true;
		return prepare(st, sql, err);
	}
	st->queries[i].s = prepare(st, sql, err);
	if (st->queries[i].s)
		st->queries[i].sql = sql;
	return st->queries[i].s;
}

static int sq_query(struct store *base, const char *sql, const char *types,
		    const char *const *params, int (*row)(const char *const *v, int ncol, void *ctx),
		    void *ctx, long *changed, struct kerr *err)
{
	struct sq *st = (struct sq *)base;
	char num[16][32];
	const char *v[16];
	sqlite3_stmt *s;
	bool owned;
	int i, ncol, rc, stop = 0;

	s = query_stmt(st, sql, &owned, err);
	if (!s)
		return -1;
	for (i = 0; types[i]; i++) {
		char name[16];
		int at;

		snprintf(name, sizeof(name), "$%d", i + 1);	/* SQLite numbers them as met */
		at = sqlite3_bind_parameter_index(s, name);
		if (!at)
			continue;
		if (!params[i])
			sqlite3_bind_null(s, at);
		else if (types[i] == 'i')
			sqlite3_bind_int64(s, at, strtoll(params[i], NULL, 10));
		else if (types[i] == 'r')
			sqlite3_bind_double(s, at, strtod(params[i], NULL));
		else
			sqlite3_bind_text(s, at, params[i], -1, SQLITE_STATIC);
	}
	ncol = sqlite3_column_count(s);
	if (ncol > 16)
		ncol = 16;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		for (i = 0; i < ncol; i++) {
			int t = sqlite3_column_type(s, i);

			if (t == SQLITE_NULL) {
				v[i] = NULL;
			} else if (t == SQLITE_FLOAT) {
				snprintf(num[i], sizeof(num[i]), "%.17g", sqlite3_column_double(s, i));
				v[i] = num[i];
			} else {
				v[i] = (const char *)sqlite3_column_text(s, i);
			}
		}
		stop = row ? row(v, ncol, ctx) : 0;
		if (stop)
			break;
	}
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
		kerr_set(err, KERR_INVALID, "stored already");	/* the caller says which key */
	else if (!stop && rc != SQLITE_DONE)
		db_error(st, err, "querying");
	else if (changed)
		*changed = sqlite3_changes(st->db);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (owned)
		sqlite3_finalize(s);
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
		return STORE_DUPLICATE;
	return stop ? stop : rc == SQLITE_DONE ? 0 : -1;
}

const struct store_ops store_sqlite_ops = {
	.name = "sqlite",
	.close = sq_close,
	.schema_version = sq_schema_version,
	.begin = sq_begin,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.checkpoint = sq_checkpoint,
	.merge = sq_merge,
	.put_run = sq_put_run,
	.get_run = sq_get_run,
	.delete_run = sq_delete_run,
	.each_run = sq_each_run,
	.explain_listing = sq_explain_listing,
	.dump = sq_dump,
	.load = sq_load,
	.query = sq_query,
	.data_version = sq_data_version,
	.points_before = sq_points_before,
	.interrupt = sq_interrupt,
	.reserve_ids = sq_reserve_ids,
	.put_run_at = sq_put_run_at,
};
