/*
 * The PostgreSQL backend (libpq): the database at a postgresql:// URI,
 * shared by as many karted instances as the load needs.
 *
 * Writers of all instances take one advisory lock per transaction
 * (pg_advisory_xact_lock(PG_WRITE_LOCK)), so write transactions follow one
 * another as SQLite's do: a transaction's runs get consecutive ids (an
 * import remembers first_id and a count), an idempotency key looked up
 * under the lock cannot be stored by another instance meanwhile, and the
 * series counts are right. Reads take no lock.
 *
 * Every write transaction also takes a number from the sequence
 * karte_writes under the lock. A connection whose number follows its last
 * one knows nobody wrote in between: store_data_version, which lets the
 * regression check trust the windows of earlier runs it keeps.
 *
 * A transaction begins without a round trip. While it holds only new runs
 * of series already known, without idempotency keys, up to PEND_MAX of
 * them (the group commit of single-run POSTs), they are kept as they are
 * and given ids relative to a base not yet known; the commit is then one
 * statement in one round trip, karte_put_runs (schema/pg/0008_writes.sql):
 * the lock, a write number, the base, one INSERT of all runs from arrays
 * and one UPDATE of the series counts, in an implicit transaction; the
 * base is added to the ids handed out. (A pipeline of six statements,
 * BEGIN to COMMIT, measured the same: the function is the simpler.)
 * Anything else (a key to look up, a new series, a delete, an import, more
 * runs) first takes the lock, the next id and a write number in one round
 * trip; from then on runs are buffered and sent with one COPY at commit
 * (or before anything that must see them), then the series counts and the
 * COMMIT in one round trip: four in all. A multi-row INSERT of literals
 * instead of COPY measured 4x slower in bulk (PostgreSQL parses each
 * literal number as numeric).
 */
#include "store_impl.h"

#include <libpq-fe.h>
#include <math.h>
#include <poll.h>
#include <unistd.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/mono.h"
#include "core/num.h"
#include "schema.h"
#include "core/xalloc.h"
#include "core/klog.h"

#define PG_MIGRATE_LOCK 0x6b61727465LL	/* "karte": migrations, at start */
#define PG_WRITE_LOCK 0x6b61727466LL	/* every write transaction */
#define COPY_FLUSH_BYTES (1u << 20)	/* send buffered runs past this */
#define TX_KEYS_MAX 4096		/* idempotency keys remembered per transaction */
#define PEND_MAX 256			/* runs committed in one statement (see above) */
#define PG_RECONNECT_S 1.0		/* after a failed reconnect, the next no sooner */

enum stmt_id {
	S_FIND_KEY, S_GET, S_DELETE, S_ID_FLOOR, S_SERIES_FIND, S_SERIES_ADD,
	S_TALLY_DELETE, S_TALLY_LAST,
	S_PUT_RUNS, S_POINTS_BEFORE,
	S_COUNT
};

#define UTC_NOW "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

#define PUT_RUNS_PARAMS (2 + STORE_RUN_NVALUES + 3)
static char put_runs_sql[128 + 5 * PUT_RUNS_PARAMS];
static pthread_once_t put_runs_once = PTHREAD_ONCE_INIT;

static void put_runs_text(void)
{
	size_t at = (size_t)snprintf(put_runs_sql, sizeof(put_runs_sql),
				     "SELECT base, writes, resets FROM karte_put_runs(");
	int i;

	for (i = 1; i <= PUT_RUNS_PARAMS; i++)
		at += (size_t)snprintf(put_runs_sql + at, sizeof(put_runs_sql) - at, "$%d%s", i,
				       i < PUT_RUNS_PARAMS ? ", " : ")");
}

static const struct {
	const char *sql;
	int nparams;
} stmt_sql[S_COUNT] = {
	[S_FIND_KEY] = {"SELECT id FROM runs WHERE idempotency_key = $1", 1},
	[S_GET] = {"SELECT " STORE_RUN_COLUMNS STORE_RUN_FROM " WHERE r.id = $1" STORE_VISIBLE, 1},
	[S_DELETE] = {"DELETE FROM runs WHERE id = $1", 1},
	[S_ID_FLOOR] = {"UPDATE run_id_floor SET high = greatest(high, $1)", 1},
	[S_SERIES_FIND] = {"SELECT id FROM series WHERE system = $1 AND application = $2 AND "
			   "variant = $3", 3},
	[S_SERIES_ADD] = {"INSERT INTO series (system, application, variant) VALUES ($1, $2, $3) "
			  "RETURNING id", 3},
	[S_TALLY_DELETE] = {"UPDATE series SET runs = runs - 1 WHERE id = (SELECT series_id FROM "
			    "runs WHERE id = $1)", 1},
	[S_TALLY_LAST] = {"UPDATE series SET last_run_id = (SELECT max(id) FROM runs WHERE "
			  "series_id = series.id), last_run_at = (SELECT created_at FROM runs WHERE "
			  "id = (SELECT max(id) FROM runs WHERE series_id = series.id)) "
			  "WHERE last_run_id = $1", 1},
	/* the group commit of pending runs (schema/pg/0008_writes.sql): the
	 * lock, a write number, the base of the ids, the runs from arrays and
	 * the series' counts, in one statement and one implicit transaction */
	/* karte_put_runs(lock, time, series, every value but the idempotency
	 * key, three tallies): its text made once from the run values' list */
	[S_PUT_RUNS] = {put_runs_sql, PUT_RUNS_PARAMS},
	/* each run's point, (time, id) below the run's: a backward scan of
	 * runs_point per run (LATERAL: the point's columns are constants to
	 * it, so the index gives the order and the LIMIT stops it); the
	 * run's place in $1 last */
	[S_POINTS_BEFORE] = {"SELECT " STORE_POINT_COLUMNS ", u.o FROM unnest($1::bigint[]) WITH "
			     "ORDINALITY AS u(id, o) JOIN runs q ON q.id = u.id CROSS JOIN LATERAL "
			     "(SELECT * FROM runs r WHERE r.series_id = q.series_id AND r.p = q.p AND "
			     "r.n = q.n AND (coalesce(r.measured_at, r.created_at), r.id) < "
			     "(coalesce(q.measured_at, q.created_at), q.id)" STORE_VISIBLE " ORDER BY "
			     "coalesce(r.measured_at, r.created_at) DESC, r.id DESC LIMIT $2) r "
			     "ORDER BY u.o, "
			     "coalesce(r.measured_at, r.created_at) DESC, r.id DESC", 2},
};

struct pg {
	struct store base;	/* first: a struct store * of this backend is a struct pg * */
	PGconn *conn;
	unsigned flags;
	bool in_tx;
	bool locked;		/* the transaction is begun on the server, with the lock */
	struct pending {	/* runs not sent yet, before the lock (see above) */
		const struct run *r;	/* the caller's, alive until the commit */
		int64_t sid;
		int64_t *id;		/* the caller's: an offset, the base added at commit */
	} *pend;
	size_t npend;
	char now[64];		/* created_at of the open write transaction */
	int64_t next_id;	/* the id the next run gets (looked up at begin) */
	int64_t writes;		/* the write number (karte_writes) this connection took last */
	int64_t foreign;	/* how often it found another's before its own */
	int64_t resets;		/* karte_resets as its last write transaction saw it */
	double retry_at;	/* monotonic: no reconnect before (after one failed) */
	unsigned reconnects;	/* connections made again */
	long timeout_ms;	/* statement_timeout of the session (0: none) */
	pthread_mutex_t cancel_lock;	/* cancel, against store_interrupt() from another thread */
	PGcancel *cancel;	/* for the connection as it is now */
	atomic_bool cancelling;	/* a cancel request is on its way (cancel_main) */
	struct tallies tally;
	struct series_cache series;	/* the series met lately */
	struct strbuf {		/* runs for COPY, in its text format */
		char *p;
		size_t len, cap;
	} copy;
	size_t copy_rows;
	char **tx_keys;		/* idempotency keys stored in this transaction */
	int64_t *tx_key_ids;
	size_t ntx_keys;
	bool prepared[S_COUNT];
	bool list_prepared[2][LIST_VARIANTS];
	bool dump_prepared[STORE_TABLES];
	const char *queries[QUERY_CACHE];	/* store_query's texts prepared, as q0, q1, ... */
};

static int db_error(struct pg *st, struct kerr *err, const char *what)
{
	return kerr_store(err, what, PQerrorMessage(st->conn));
}

/* The SQLSTATE of a failed result ("" when there is none). */
static const char *sqlstate(const PGresult *res)
{
	const char *s = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	return s ? s : "";
}

/* A statement's result; NULL (and err) unless it is want. */
static PGresult *expect(struct pg *st, PGresult *res, ExecStatusType want, struct kerr *err,
			const char *what)
{
	if (PQresultStatus(res) == want)
		return res;
	db_error(st, err, what);
	PQclear(res);
	return NULL;
}

static int exec_simple(struct pg *st, const char *sql, struct kerr *err, const char *what)
{
	PGresult *res = expect(st, PQexec(st->conn, sql), PGRES_COMMAND_OK, err, what);

	PQclear(res);
	return res ? 0 : -1;
}

/* After the connection was lost and made again, its prepared statements
 * are gone. */
static void forget_prepared(struct pg *st)
{
	memset(st->prepared, 0, sizeof(st->prepared));
	memset(st->list_prepared, 0, sizeof(st->list_prepared));
	memset(st->dump_prepared, 0, sizeof(st->dump_prepared));
	memset(st->queries, 0, sizeof(st->queries));
}

/* The cancel object of the connection as it is now (after a connect or a
 * reconnect). */
static void cancel_renew(struct pg *st)
{
	pthread_mutex_lock(&st->cancel_lock);
	if (st->cancel)
		PQfreeCancel(st->cancel);
	st->cancel = PQgetCancel(st->conn);
	pthread_mutex_unlock(&st->cancel_lock);
}

static int set_timeout(struct pg *st, struct kerr *err)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "SET statement_timeout = %ld", st->timeout_ms);
	return exec_simple(st, sql, err, "setting up the connection");
}

static int session_setup(struct pg *st, struct kerr *err)
{
	cancel_renew(st);
	/* shortest exact text for doubles (the default since PostgreSQL 12) */
	if (exec_simple(st, "SET extra_float_digits = 1; SET client_min_messages = warning; "
			"SET client_encoding = 'UTF8'", err, "setting up the connection"))
		return -1;
	if ((st->flags & STORE_READONLY) &&
	    exec_simple(st, "SET default_transaction_read_only = on", err, "setting up the connection"))
		return -1;
	if (st->timeout_ms && set_timeout(st, err))
		return -1;
	return 0;
}

/* A cancel request sent on a thread of its own: PQcancel opens a
 * connection and waits for the server, which may be stopped or behind a
 * proxy that black-holes; the caller (the loop's sweep, holding the
 * workers' lock) never waits for it. One at a time per connection. */
static void *cancel_main(void *arg)
{
	struct pg *st = arg;
	PGcancel *c;
	char why[256];

	/* taken out under the lock, sent outside it: a reconnect meanwhile
	 * (cancel_renew) never waits for a server that does not answer */
	pthread_mutex_lock(&st->cancel_lock);
	c = st->cancel;
	st->cancel = NULL;
	pthread_mutex_unlock(&st->cancel_lock);
	if (c)
		PQcancel(c, why, sizeof(why));
	pthread_mutex_lock(&st->cancel_lock);
	if (c && !st->cancel)
		st->cancel = c;	/* still the connection's */
	else if (c)
		PQfreeCancel(c);	/* renewed meanwhile: this one is the old one's */
	pthread_mutex_unlock(&st->cancel_lock);
	atomic_store(&st->cancelling, false);
	return NULL;
}

/* Any thread: cancel what the connection runs now (store.c set the flag
 * that alive() checks before each later statement), without waiting. */
static void pg_interrupt(struct store *base)
{
	struct pg *st = (struct pg *)base;
	pthread_attr_t attr;
	pthread_t t;
	bool no = false;

	if (!atomic_compare_exchange_strong(&st->cancelling, &no, true))
		return;	/* one is on its way */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, cancel_main, st))
		atomic_store(&st->cancelling, false);
	pthread_attr_destroy(&attr);
}

/* The query sent (PQsendQueryParams) and its last result, waiting at most
 * st->base.deadline_s: past it the connection is cut (shutdown: libpq's
 * wait ends at once, the connection is bad and alive() makes it again at
 * the next use) and NULL is returned with err (503). */
static PGresult *exec_within(struct pg *st, const char *sql, int nparams, const char *const *params,
			     struct kerr *err)
{
	double end = mono_s() + st->base.deadline_s;
	PGresult *res = NULL, *r;
	bool cut = false;

	if (!PQsendQueryParams(st->conn, sql, nparams, NULL, params, NULL, NULL, 0)) {
		db_error(st, err, "querying");
		return NULL;
	}
	while (!cut) {
		while (PQisBusy(st->conn)) {
			struct pollfd pfd = {PQsocket(st->conn), POLLIN, 0};
			double left = end - mono_s();

			if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) == 0) {
				if (mono_s() < end)
					continue;
				shutdown(PQsocket(st->conn), SHUT_RDWR);
				cut = true;
			}
			if (!PQconsumeInput(st->conn))
				break;
		}
		if (!(r = PQgetResult(st->conn)))
			break;
		PQclear(res);
		res = r;
	}
	if (cut) {
		while ((r = PQgetResult(st->conn)))
			PQclear(r);
		PQclear(res);
		kerr_store(err, "querying", "the database did not answer within the deadline");
		snprintf(err->msg, sizeof(err->msg), "the database did not answer within %g s; try again",
			 st->base.deadline_s);
		return NULL;
	}
	return res;
}

static int pg_statement_timeout(struct store *base, double seconds, struct kerr *err)
{
	struct pg *st = (struct pg *)base;

	st->timeout_ms = seconds > 0 ? (long)(seconds * 1000 + 0.5) : 0;
	return set_timeout(st, err);
}

/* Whether the server has dropped this connection. libpq learns it only
 * when a statement fails; but a server that restarts (or ends an idle
 * session) says goodbye and closes the socket, which then is readable
 * while no statement is under way: one poll(), no round trip. */
static bool dropped(struct pg *st)
{
	struct pollfd pfd = {PQsocket(st->conn), POLLIN, 0};
	int i;

	if (PQstatus(st->conn) != CONNECTION_OK || pfd.fd < 0)
		return true;
	if (st->in_tx || PQisBusy(st->conn))
		return false;
	/* readable while idle: a notice, or the goodbye and then the end
	 * (which may take another read to see) */
	for (i = 0; i < 4 && poll(&pfd, 1, 0) > 0; i++)
		if (!PQconsumeInput(st->conn) || PQstatus(st->conn) != CONNECTION_OK)
			return true;
	return false;
}

/* A connection the server dropped (a restart, a failover) is made again,
 * between transactions only. After a failed attempt the next waits
 * PG_RECONNECT_S: meanwhile every use fails at once (a 503), so a
 * database that is down costs no connection attempt per request. */
static int alive(struct pg *st, struct kerr *err)
{
	double now;

	if (store_interrupted(&st->base))
		return kerr_store(err, "reading (the read was stopped)", "cancelled by karted");
	if (!dropped(st))
		return 0;
	if (st->in_tx)
		return kerr_store(err, "writing (the connection was lost in a transaction)",
				  PQerrorMessage(st->conn));
	now = mono_s();
	if (now < st->retry_at)
		return kerr_store(err, "connecting", "not connected; the last attempt failed less than "
				  "a second ago");
	PQreset(st->conn);
	forget_prepared(st);
	if (PQstatus(st->conn) != CONNECTION_OK) {
		st->retry_at = mono_s() + PG_RECONNECT_S;
		return kerr_store(err, "connecting", PQerrorMessage(st->conn));
	}
	st->retry_at = 0;
	st->reconnects++;
	klog(KLOG_INFO, "PostgreSQL: a dropped connection made again (%u so far on this one)", st->reconnects);
	return session_setup(st, err);
}

/* Whether a statement outside a transaction that failed (res) failed
 * because the connection was lost, and it is made again: then the caller
 * sends it once more (nothing was committed by it). */
static bool again(struct pg *st, const PGresult *res)
{
	struct kerr ignored;

	if (st->in_tx || PQresultStatus(res) == PGRES_TUPLES_OK ||
	    PQresultStatus(res) == PGRES_COMMAND_OK || PQstatus(st->conn) == CONNECTION_OK)
		return false;
	return alive(st, &ignored) == 0;
}

static int prepare(struct pg *st, const char *name, const char *sql, int nparams,
		   struct kerr *err)
{
	PGresult *res = expect(st, PQprepare(st->conn, name, sql, nparams, NULL), PGRES_COMMAND_OK,
			       err, "preparing a statement");

	PQclear(res);
	return res ? 0 : -1;
}

/* Statement id prepared (on first use) under the name it writes to name. */
static int prepared(struct pg *st, enum stmt_id id, char name[16], struct kerr *err)
{
	snprintf(name, 16, "s%d", (int)id);
	if (!st->prepared[id]) {
		if (prepare(st, name, stmt_sql[id].sql, stmt_sql[id].nparams, err))
			return -1;
		st->prepared[id] = true;
	}
	return 0;
}

static int tx_lock(struct pg *st, struct kerr *err);

/* Prepared statement id with params (in a write transaction, after its
 * lock): its result whatever the status, or NULL when it could not be
 * sent. */
static PGresult *exec_stmt(struct pg *st, enum stmt_id id, const char *const *params,
			   struct kerr *err)
{
	char name[16];
	PGresult *res;
	int tries;

	for (tries = 0;; tries++) {
		if (alive(st, err) || tx_lock(st, err) || prepared(st, id, name, err))
			return NULL;
		res = PQexecPrepared(st->conn, name, stmt_sql[id].nparams, params, NULL, NULL, 0);
		if (tries || !again(st, res))
			return res;
		PQclear(res);
	}
}

/* Prepared statement id with params; the result if it has status want. */
static PGresult *run_stmt(struct pg *st, enum stmt_id id, const char *const *params,
			  ExecStatusType want, struct kerr *err, const char *what)
{
	PGresult *res = exec_stmt(st, id, params, err);

	return res ? expect(st, res, want, err, what) : NULL;
}

static int run_cmd(struct pg *st, enum stmt_id id, const char *const *params, struct kerr *err,
		   const char *what, long *changed)
{
	PGresult *res = run_stmt(st, id, params, PGRES_COMMAND_OK, err, what);

	if (!res)
		return -1;
	if (changed)
		*changed = atol(PQcmdTuples(res));
	PQclear(res);
	return 0;
}

static int64_t get_i64(const PGresult *res, int row, int col)
{
	return strtoll(PQgetvalue(res, row, col), NULL, 10);
}

/* The number in a one-row, one-column result; NULL counts as 0. */
static int one_i64(struct pg *st, const char *sql, int64_t *out, struct kerr *err,
		   const char *what)
{
	PGresult *res = expect(st, PQexec(st->conn, sql), PGRES_TUPLES_OK, err, what);

	if (!res)
		return -1;
	*out = PQntuples(res) && !PQgetisnull(res, 0, 0) ? get_i64(res, 0, 0) : 0;
	PQclear(res);
	return 0;
}

static int schema_version(struct pg *st)
{
	int64_t v = -1;
	PGresult *res = PQexec(st->conn, "SELECT to_regclass('karte_schema') IS NOT NULL");

	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1) {
		if (PQgetvalue(res, 0, 0)[0] != 't')
			v = 0;
		else if (one_i64(st, "SELECT max(version) FROM karte_schema", &v, NULL, "reading"))
			v = -1;
	}
	PQclear(res);
	return (int)v;
}

static int pg_schema_version(struct store *base)
{
	return schema_version((struct pg *)base);
}

/* Apply every migration newer than the database in one transaction, under
 * a lock, so that instances starting together migrate once. */
static int migrate(struct pg *st, struct kerr *err)
{
	const struct schema_migration *last = &schema_pg_migrations[schema_pg_migrations_count - 1];
	char sql[128];
	int have, i, rc = -1;

	if (last->version != store_schema_latest())
		return kerr_set(err, KERR_INTERNAL, "schema/pg ends at version %d but schema/ at %d: a migration "
				"is missing", last->version, store_schema_latest());
	snprintf(sql, sizeof(sql), "SELECT pg_advisory_lock(%lld)", PG_MIGRATE_LOCK);
	PQclear(PQexec(st->conn, sql));
	if (exec_simple(st, "BEGIN", err, "migrating") ||
	    exec_simple(st, "CREATE TABLE IF NOT EXISTS karte_schema (version INTEGER NOT NULL, "
			"applied_at TEXT NOT NULL DEFAULT " UTC_NOW ")", err, "migrating"))
		goto out;
	have = schema_version(st);
	if (have < 0) {
		db_error(st, err, "reading the schema version");
		goto out;
	}
	if (have > store_schema_latest()) {
		kerr_set(err, KERR_INTERNAL, "the database has schema version %d, newer than this karted knows "
			 "(%d): use a newer karted", have, store_schema_latest());
		goto out;
	}
	for (i = 0; i < schema_pg_migrations_count; i++) {
		const struct schema_migration *m = &schema_pg_migrations[i];
		PGresult *res;

		if (m->version <= have)
			continue;
		res = PQexec(st->conn, m->sql);
		if (PQresultStatus(res) != PGRES_COMMAND_OK) {
			kerr_set(err, KERR_INTERNAL, "migration pg/%s failed: %s", m->name, PQerrorMessage(st->conn));
			PQclear(res);
			goto out;
		}
		PQclear(res);
		snprintf(sql, sizeof(sql), "INSERT INTO karte_schema (version) VALUES (%d)", m->version);
		if (exec_simple(st, sql, err, "migrating"))
			goto out;
	}
	rc = exec_simple(st, "COMMIT", err, "committing the migration");
out:
	if (rc)
		PQclear(PQexec(st->conn, "ROLLBACK"));
	snprintf(sql, sizeof(sql), "SELECT pg_advisory_unlock(%lld)", PG_MIGRATE_LOCK);
	PQclear(PQexec(st->conn, sql));
	return rc;
}

static void pg_close(struct store *base);
static void pg_rollback(struct store *base);

struct store *store_pg_open(const char *uri, unsigned flags, struct kerr *err)
{
	/* connect within 2 s (libpq's least), and keepalives: a server that is
	 * gone is found out; one that accepts and never answers is what the
	 * query deadline (store_set_deadline) and the read deadline are for */
	static const char *const keys[] = {"dbname", "application_name", "connect_timeout", "keepalives",
					   "keepalives_idle", "keepalives_interval", "keepalives_count",
					   NULL};
	const char *vals[] = {uri, "karted", "2", "1", "10", "5", "3", NULL};
	struct pg *st = xcalloc(1, sizeof(*st));
	char shown[512];
	int have;

	pthread_once(&put_runs_once, put_runs_text);
	st->base.ops = &store_pg_ops;
	st->flags = flags;
	pthread_mutex_init(&st->cancel_lock, NULL);
	/* the URI's own parameters win over these defaults (expand_dbname) */
	st->conn = PQconnectdbParams(keys, vals, 1);
	if (!st->conn || PQstatus(st->conn) != CONNECTION_OK) {
		kerr_set(err, KERR_INTERNAL, "cannot connect to '%s': %s", store_shown(uri, shown, sizeof(shown)),
			 st->conn ? PQerrorMessage(st->conn) : "out of memory");
		goto fail;
	}
	if (session_setup(st, err))
		goto fail;
	if ((flags & STORE_MIGRATE) && migrate(st, err))
		goto fail;
	have = schema_version(st);
	if (have != store_schema_latest()) {
		kerr_set(err, KERR_INTERNAL, "database '%s' has schema version %d but this karted needs %d%s",
			 store_shown(uri, shown, sizeof(shown)), have, store_schema_latest(),
			 have < store_schema_latest() ? ": run `karted migrate` once" : "");
		goto fail;
	}
	return &st->base;
fail:
	pg_close(&st->base);
	return NULL;
}

static void tx_forget(struct pg *st)
{
	size_t i;

	for (i = 0; i < st->ntx_keys; i++)
		free(st->tx_keys[i]);
	st->ntx_keys = 0;
	st->npend = 0;
	st->locked = false;
	st->copy.len = 0;
	st->copy_rows = 0;
	st->next_id = 0;
	st->tally.n = 0;
	st->in_tx = false;
}

static void pg_close(struct store *base)
{
	struct pg *st = (struct pg *)base;

	int waited;

	if (!st)
		return;
	/* a cancel request on its way holds st: wait for it a while; one
	 * that a stopped server holds longer keeps st (karted is stopping) */
	for (waited = 0; atomic_load(&st->cancelling) && waited < 300; waited++)
		usleep(10000);
	if (atomic_load(&st->cancelling))
		return;
	tx_forget(st);
	series_cache_free(&st->series);
	free(st->tx_keys);
	free(st->tx_key_ids);
	free(st->pend);
	free(st->copy.p);
	if (st->cancel)
		PQfreeCancel(st->cancel);
	pthread_mutex_destroy(&st->cancel_lock);
	PQfinish(st->conn);
	free(st);
}

/* The transaction begins on the client only (see the top). */
static int pg_begin(struct store *base, struct kerr *err)
{
	struct pg *st = (struct pg *)base;

	if (st->in_tx)	/* a failed commit nobody rolled back */
		pg_rollback(base);
	if (alive(st, err))
		return -1;
	store_utc_now(st->now, sizeof(st->now));
	tx_forget(st);
	st->in_tx = true;
	return 0;
}

static void copy_run(struct pg *st, const struct run *r, int64_t sid, int64_t id);

/* Write number v taken and karte_resets read (under the writers' lock):
 * when v does not follow this connection's last one, another transaction
 * took one in between (or this is the first), and store_data_version's
 * added changes. */
static void writes_seen(struct pg *st, int64_t v, int64_t resets)
{
	if (!st->writes || v != st->writes + 1)
		st->foreign++;
	st->writes = v;
	st->resets = resets;
}

/* Inside a write transaction, before its first statement: BEGIN and
 * karte_write_begin (schema/pg/0008_writes.sql: the writers' lock, the
 * next id, a write number, karte_resets) in one round trip; runs
 * pending so far get their ids and join the COPY buffer. Nothing outside a
 * transaction. */
static int tx_lock(struct pg *st, struct kerr *err)
{
	char sql[128];
	PGresult *res;
	size_t i;

	if (!st->in_tx || st->locked)
		return 0;
	snprintf(sql, sizeof(sql), "BEGIN; SELECT base, writes, resets FROM karte_write_begin(%lld)",
		 PG_WRITE_LOCK);
	st->locked = true;	/* from here a failure needs a ROLLBACK */
	res = expect(st, PQexec(st->conn, sql), PGRES_TUPLES_OK, err, "beginning a transaction");
	if (!res)
		return -1;
	st->next_id = get_i64(res, 0, 0);
	writes_seen(st, get_i64(res, 0, 1), get_i64(res, 0, 2));
	PQclear(res);
	for (i = 0; i < st->tally.n; i++)
		st->tally.t[i].last_id += st->next_id;
	for (i = 0; i < st->npend; i++) {
		*st->pend[i].id += st->next_id;
		copy_run(st, st->pend[i].r, st->pend[i].sid, *st->pend[i].id);
	}
	st->next_id += (int64_t)st->npend;
	st->npend = 0;
	return 0;
}

/* Send the buffered runs with COPY. */
static int copy_flush(struct pg *st, struct kerr *err)
{
	PGresult *res;

	if (tx_lock(st, err))
		return -1;
	if (!st->copy_rows)
		return 0;
	res = expect(st, PQexec(st->conn, "COPY runs (" STORE_RUN_INSERT_COLUMNS ") FROM STDIN"),
		     PGRES_COPY_IN, err, "storing runs");
	if (!res)
		return -1;
	PQclear(res);
	if (PQputCopyData(st->conn, st->copy.p, (int)st->copy.len) != 1 ||
	    PQputCopyEnd(st->conn, NULL) != 1)
		return db_error(st, err, "storing runs");
	res = expect(st, PQgetResult(st->conn), PGRES_COMMAND_OK, err, "storing runs");
	while (PQgetResult(st->conn))
		;	/* (there is none after COPY's own) */
	st->copy.len = 0;
	st->copy_rows = 0;
	PQclear(res);
	return res ? 0 : -1;
}

/* The buffered runs sent, then the counted runs into their series and
 * tail (NULL or "COMMIT") in one round trip. Only numbers and karted's own
 * timestamp go into the text. */
static void buf_put(struct strbuf *b, const char *s, size_t n);

static int tally_flush(struct pg *st, const char *tail, struct kerr *err)
{
	struct strbuf sql = {0};
	char one[512];	/* four numbers and now[64] need under 400 */
	size_t i;
	int rc;

	if (copy_flush(st, err))
		return -1;
	for (i = 0; i < st->tally.n; i++) {
		const struct tally *t = &st->tally.t[i];
		int n = snprintf(one, sizeof(one),
				 "UPDATE series SET runs = runs + %lld, last_run_at = CASE WHEN "
				 "%lld > coalesce(last_run_id, 0) THEN '%s' ELSE last_run_at END, "
				 "last_run_id = greatest(coalesce(last_run_id, 0), %lld) "
				 "WHERE id = %lld;",
				 (long long)t->runs, (long long)t->last_id, st->now,
				 (long long)t->last_id, (long long)t->series);

		buf_put(&sql, one, (size_t)n);
	}
	st->tally.n = 0;
	if (tail)
		buf_put(&sql, tail, strlen(tail));
	if (!sql.len)
		return 0;
	sql.p[sql.len] = '\0';	/* buf_put keeps room for it */
	rc = exec_simple(st, sql.p, err, tail ? "committing" : "counting a series' runs");
	free(sql.p);
	return rc;
}

static int commit_pending(struct pg *st, struct kerr *err);

static int pg_commit(struct store *base, struct kerr *err)
{
	struct pg *st = (struct pg *)base;
	int rc = st->locked ? tally_flush(st, "COMMIT", err) : commit_pending(st, err);

	if (rc == 0)
		tx_forget(st);
	return rc;	/* on failure the caller rolls back */
}

static void pg_rollback(struct store *base)
{
	struct pg *st = (struct pg *)base;
	bool begun = st->locked;

	tx_forget(st);
	series_cache_forget(&st->series);
	if (begun && PQstatus(st->conn) == CONNECTION_OK)
		PQclear(PQexec(st->conn, "ROLLBACK"));
}

/* COPY's text format: \N for NULL, and backslash, tab, newline and CR escaped. */
static void buf_put(struct strbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void copy_text(struct strbuf *b, const char *s, char sep)
{
	const char *run = s;

	if (!s) {
		buf_put(b, "\\N", 2);
	} else {
		for (; *s; s++) {
			const char *esc = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" :
					  *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : NULL;

			if (esc) {
				buf_put(b, run, (size_t)(s - run));
				buf_put(b, esc, 2);
				run = s + 1;
			}
		}
		buf_put(b, run, (size_t)(s - run));
	}
	buf_put(b, &sep, 1);
}

/* One element of an array literal: a number, a quoted string or NULL. */
static void arr_put(struct strbuf *b, const char *v, bool quote)
{
	const char *run = v;

	buf_put(b, b->len ? "," : "{", 1);
	if (!v) {
		buf_put(b, "NULL", 4);
		return;
	}
	if (!quote) {
		buf_put(b, v, strlen(v));
		return;
	}
	buf_put(b, "\"", 1);
	for (; *v; v++)
		if (*v == '"' || *v == '\\') {
			buf_put(b, run, (size_t)(v - run));
			buf_put(b, "\\", 1);
			run = v;
		}
	buf_put(b, run, (size_t)(v - run));
	buf_put(b, "\"", 1);
}

/* Value k of r as text for COPY or an array (NULL when not set); num has
 * room for a number, which it may hold. */
static const char *value_text(const struct run *r, size_t k, char num[32])
{
	if (!store_run_value_set(r, k))
		return NULL;
	if (store_run_values[k].kind == STORE_RV_INT)
		return store_i64_text(num, store_run_int(r, k));
	if (store_run_values[k].kind == STORE_RV_REAL) {
		num_shortest(store_run_real(r, k), num, false);	/* reads back as the same double */
		return num;
	}
	return store_run_text(r, k);
}

/* The pending runs in one statement and one round trip (see the top):
 * karte_put_runs of schema/pg/0008_writes.sql, in an implicit transaction
 * of its own; then the ids made whole. */
static int commit_pending(struct pg *st, struct kerr *err)
{
	/* the series, then every value but the idempotency key (runs with one
	 * are not pending): karte_put_runs' arrays, in the list's order */
	enum { NARR = STORE_RUN_NVALUES, NTALLY = 3 };
	struct strbuf a[NARR + NTALLY] = {{0}};
	const char *params[2 + NARR + NTALLY];
	char num[32], name[16], lockid[24];
	PGresult *res = NULL;
	int64_t base;
	size_t i, k, at;
	int rc = -1;

	if (!st->npend)
		return 0;	/* nothing was written */
	if (prepared(st, S_PUT_RUNS, name, err))
		return -1;
	for (i = 0; i < st->npend; i++) {
		const struct run *r = st->pend[i].r;

		arr_put(&a[0], store_i64_text(num, st->pend[i].sid), false);
		for (k = 0, at = 1; k < STORE_RUN_NVALUES; k++)
			if (k != STORE_RVI_idempotency_key)
				arr_put(&a[at++], value_text(r, k, num), store_run_values[k].kind == STORE_RV_TEXT);
	}
	for (i = 0; i < st->tally.n; i++) {
		arr_put(&a[NARR], store_i64_text(num, st->tally.t[i].series), false);
		arr_put(&a[NARR + 1], store_i64_text(num, st->tally.t[i].runs), false);
		arr_put(&a[NARR + 2], store_i64_text(num, st->tally.t[i].last_id), false);
	}
	params[0] = store_i64_text(lockid, PG_WRITE_LOCK);
	params[1] = st->now;
	for (k = 0; k < NARR + NTALLY; k++) {
		buf_put(&a[k], "}", 2);	/* with its NUL */
		params[2 + k] = a[k].p;
	}
	res = expect(st, PQexecPrepared(st->conn, name, stmt_sql[S_PUT_RUNS].nparams, params, NULL,
					NULL, 0),
		     PGRES_TUPLES_OK, err, "committing");
	if (!res)
		goto out;
	base = PQntuples(res) == 1 ? get_i64(res, 0, 0) : 0;
	if (base <= 0) {
		kerr_store(err, "committing", "karte_put_runs gave no base for the runs' ids");
		goto out;
	}
	writes_seen(st, get_i64(res, 0, 1), get_i64(res, 0, 2));
	for (i = 0; i < st->npend; i++)
		*st->pend[i].id += base;
	rc = 0;
out:
	PQclear(res);
	for (k = 0; k < NARR + NTALLY; k++)
		free(a[k].p);
	return rc;
}

static int find_key(struct pg *st, const char *key, int64_t *id, struct kerr *err)
{
	const char *params[1] = {key};
	PGresult *res;
	size_t i;
	int found;

	for (i = 0; i < st->ntx_keys; i++)
		if (!strcmp(st->tx_keys[i], key)) {
			*id = st->tx_key_ids[i];
			return 1;
		}
	if (st->ntx_keys == TX_KEYS_MAX && copy_flush(st, err))	/* not remembered: look in runs */
		return -1;
	res = run_stmt(st, S_FIND_KEY, params, PGRES_TUPLES_OK, err, "looking up an idempotency key");
	if (!res)
		return -1;
	found = PQntuples(res) > 0;
	if (found)
		*id = get_i64(res, 0, 0);
	PQclear(res);
	return found;
}

static void remember_key(struct pg *st, const char *key, int64_t id)
{
	if (st->ntx_keys == TX_KEYS_MAX)
		return;
	if (!st->tx_keys) {
		st->tx_keys = xcalloc(TX_KEYS_MAX, sizeof(*st->tx_keys));
		st->tx_key_ids = xcalloc(TX_KEYS_MAX, sizeof(*st->tx_key_ids));
	}
	st->tx_keys[st->ntx_keys] = xstrdup(key);
	st->tx_key_ids[st->ntx_keys++] = id;
}

static int series_id(struct pg *st, const struct run *r, int64_t *id, struct kerr *err)
{
	const char *params[3] = {r->system, r->application, r->variant};
	PGresult *res;

	if (series_cache_hit(&st->series, r, id))
		return 0;
	res = run_stmt(st, S_SERIES_FIND, params, PGRES_TUPLES_OK, err, "looking up a series");
	if (!res)
		return -1;
	if (PQntuples(res) == 0) {
		PQclear(res);
		res = run_stmt(st, S_SERIES_ADD, params, PGRES_TUPLES_OK, err, "storing a series");
		if (!res)
			return -1;
	}
	*id = get_i64(res, 0, 0);
	PQclear(res);
	series_cache_set(&st->series, r, *id);
	return 0;
}

static int pg_put_run(struct store *base, const struct run *r, int64_t *id, bool *existed,
		      struct kerr *err)
{
	struct pg *st = (struct pg *)base;
	int64_t sid = 0;
	int rc;

	*existed = false;
	if (!st->in_tx)
		return kerr_set(err, KERR_INTERNAL, "a run is stored inside a transaction only");
	if (!st->locked && !r->idempotency_key && st->npend < PEND_MAX &&
	    series_cache_hit(&st->series, r, &sid) &&
	    tally_add(&st->tally, sid, (int64_t)st->npend)) {
		/* pending: its id is an offset until the commit learns the base */
		if (!st->pend)
			st->pend = xcalloc(PEND_MAX, sizeof(*st->pend));
		*id = (int64_t)st->npend;
		st->pend[st->npend++] = (struct pending){r, sid, id};
		return 0;
	}
	if (tx_lock(st, err))
		return -1;
	if (r->idempotency_key) {
		rc = find_key(st, r->idempotency_key, id, err);
		if (rc)
			return rc < 0 ? -1 : (*existed = true, 0);
	}
	if (series_id(st, r, &sid, err))
		return -1;
	*id = st->next_id++;
	if (!tally_add(&st->tally, sid, *id)) {
		if (tally_flush(st, NULL, err))
			return -1;
		tally_add(&st->tally, sid, *id);
	}
	copy_run(st, r, sid, *id);
	if (r->idempotency_key)
		remember_key(st, r->idempotency_key, *id);
	if (st->copy.len >= COPY_FLUSH_BYTES)
		return copy_flush(st, err);
	return 0;
}

/* The n ids from the next on (after the lock), for an import in parts; the
 * floor moves past them, so no later run takes one. */
static int pg_reserve_ids(struct store *base, int64_t n, int64_t *lo, struct kerr *err)
{
	struct pg *st = (struct pg *)base;
	char a[24];
	const char *params[1];

	if (!st->in_tx)
		return kerr_set(err, KERR_INTERNAL, "ids are reserved inside a transaction only");
	if (tx_lock(st, err))
		return -1;
	*lo = st->next_id;
	st->next_id += n;
	params[0] = store_i64_text(a, *lo + n - 1);
	return run_cmd(st, S_ID_FLOOR, params, err, "reserving ids", NULL);
}

static int pg_put_run_at(struct store *base, const struct run *r, int64_t id, int64_t *out,
			 bool *existed, int64_t *series, struct kerr *err)
{
	struct pg *st = (struct pg *)base;
	int rc;

	*existed = false;
	if (!st->in_tx)
		return kerr_set(err, KERR_INTERNAL, "a run is stored inside a transaction only");
	if (tx_lock(st, err))
		return -1;
	if (r->idempotency_key) {
		rc = find_key(st, r->idempotency_key, out, err);
		if (rc)
			return rc < 0 ? -1 : (*existed = true, 0);
	}
	if (series_id(st, r, series, err))
		return -1;
	*out = id;
	copy_run(st, r, *series, id);
	if (r->idempotency_key)
		remember_key(st, r->idempotency_key, id);
	return st->copy.len >= COPY_FLUSH_BYTES ? copy_flush(st, err) : 0;
}

/* A run into the COPY buffer. */
static void copy_run(struct pg *st, const struct run *r, int64_t sid, int64_t id)
{
	struct strbuf *b = &st->copy;
	char num[32];
	size_t k;

	copy_text(b, store_i64_text(num, id), '\t');
	copy_text(b, store_i64_text(num, sid), '\t');
	for (k = 0; k < STORE_RUN_NVALUES; k++)
		copy_text(b, value_text(r, k, num), '\t');
	copy_text(b, st->now, '\n');
	st->copy_rows++;
}



static double get_num(const PGresult *res, int row, int col)
{
	return strtod(PQgetvalue(res, row, col), NULL);
}

static char *get_text(const PGresult *res, int row, int col, bool copy)
{
	char *v;

	if (PQgetisnull(res, row, col))
		return NULL;
	v = PQgetvalue(res, row, col);
	return copy ? xstrdup(v) : v;
}

/* Fill r from row i of STORE_RUN_COLUMNS; strings borrowed from res unless
 * copy. */
static void row_to_run(const PGresult *res, int i, struct run *r, bool copy)
{
	size_t k;

	store_run_blank(r);
	r->id = get_i64(res, i, 0);
	r->system = get_text(res, i, 1, copy);
	r->application = get_text(res, i, 2, copy);
	r->variant = get_text(res, i, 3, copy);
	for (k = 0; k < STORE_RUN_NVALUES; k++) {
		int c = STORE_RUN_VALUE0 + (int)k;

		if (PQgetisnull(res, i, c))
			continue;
		if (store_run_values[k].kind == STORE_RV_INT)
			store_run_put_int(r, k, get_i64(res, i, c));
		else if (store_run_values[k].kind == STORE_RV_REAL)
			store_run_put_real(r, k, get_num(res, i, c));
		else
			store_run_put_text(r, k, get_text(res, i, c, copy));
	}
	r->created_at = get_text(res, i, STORE_RUN_VALUE0 + STORE_RUN_NVALUES, copy);
}

static int pg_get_run(struct store *base, int64_t id, struct run *out, struct kerr *err)
{
	struct pg *st = (struct pg *)base;
	char a[24];
	const char *params[1] = {store_i64_text(a, id)};
	PGresult *res;

	memset(out, 0, sizeof(*out));
	if (st->in_tx && copy_flush(st, err))
		return -1;
	res = run_stmt(st, S_GET, params, PGRES_TUPLES_OK, err, "reading a run");
	if (!res)
		return -1;
	if (PQntuples(res) == 0) {
		PQclear(res);
		return kerr_set(err, KERR_NOT_FOUND, "there is no run with id %lld", (long long)id);
	}
	row_to_run(res, 0, out, true);
	PQclear(res);
	return 0;
}

static int pg_delete_run(struct store *base, int64_t id, bool *deleted, struct kerr *err)
{
	struct pg *st = (struct pg *)base;
	char a[24];
	const char *params[1] = {store_i64_text(a, id)};
	long changed = 0;

	/* counts first: a run added earlier in this transaction is counted */
	if (tally_flush(st, NULL, err) ||
	    run_cmd(st, S_TALLY_DELETE, params, err, "counting a delete", NULL) ||
	    run_cmd(st, S_DELETE, params, err, "deleting a run", &changed))
		return -1;
	*deleted = changed > 0;
	if (!*deleted)
		return 0;
	/* so that id is never given again, even when it was the largest */
	if (run_cmd(st, S_ID_FLOOR, params, err, "keeping the deleted id", NULL) ||
	    run_cmd(st, S_TALLY_LAST, params, err, "finding a series' newest run", NULL))
		return -1;
	return 0;
}

/* The listing for one combination of filters: its SQL (made of the
 * constant fragments below; every value is a parameter) and the number of
 * parameters, numbered in the order of the filter bits, then the cursor
 * and the limit. */
static int list_sql(unsigned bits, bool oldest, char *sql, size_t size)
{
	static const char *const clause[] = {
		" AND s.system = ", " AND s.application = ", " AND s.variant = ", " AND r.p = ",
		" AND r.n = ",
	};
	size_t i, len;
	int n = 1;

	if (bits & FB_LABEL)
		len = (size_t)snprintf(sql, size, "SELECT %s%s WHERE l.run_id %s $1%s", STORE_LIST_COLUMNS(bits),
				       STORE_LABEL_FROM("JOIN"), oldest ? ">" : "<", STORE_VISIBLE);
	else
		len = (size_t)snprintf(sql, size, "SELECT %s%s WHERE r.id %s $1%s", STORE_LIST_COLUMNS(bits),
				       STORE_RUN_FROM, oldest ? ">" : "<", STORE_VISIBLE);
	for (i = 0; i < sizeof(clause) / sizeof(clause[0]); i++)
		if (bits & (1u << i))
			len += (size_t)snprintf(sql + len, size - len, "%s$%d", clause[i], ++n);
	if (bits & FB_LABEL) {
		len += (size_t)snprintf(sql + len, size - len, " AND l.key = $%d AND l.value = $%d",
					n + 1, n + 2);
		n += 2;
	}
	n++;
	snprintf(sql + len, size - len, " ORDER BY %s%s LIMIT $%d",
		 bits & FB_LABEL ? STORE_LABEL_ORDER : "r.id", oldest ? "" : " DESC", n);
	return n;
}

/* The parameters of f's listing in list_sql's order. */
static void list_params(const struct run_filter *f, const char *params[10], char num[4][32])
{
	int n = 0, first = n++;

	if (f->system)
		params[n++] = f->system;
	if (f->application)
		params[n++] = f->application;
	if (f->variant)
		params[n++] = f->variant;
	if (f->p > 0)
		params[n++] = store_i64_text(num[0], f->p);
	if (f->n > 0) {
		snprintf(num[1], 32, "%.17g", f->n);
		params[n++] = num[1];
	}
	if (store_filter_bits(f) & FB_LABEL) {
		params[n++] = f->labels[0].key;
		params[n++] = f->labels[0].value;
	}
	params[first] = store_i64_text(num[2], f->before_id > 0 ? f->before_id : f->oldest_first ? 0 : INT64_MAX);
	params[n] = f->limit > 0 ? store_i64_text(num[3], f->limit) : NULL;
}

/* Stream the rows of a query sent with PQsendQuery* to each(res, ctx) one
 * at a time; a stop cancels the rest on the server. *lost (may be NULL)
 * tells a failure before any row because the connection was lost, which
 * the caller may send again. */
static int stream_rows(struct pg *st, int (*each)(const PGresult *res, void *ctx), void *ctx,
		       struct kerr *err, const char *what, bool *lost)
{
	PGresult *res;
	int stop = 0, failed = 0, rows = 0;

	if (!PQsetSingleRowMode(st->conn))
		failed = 1;
	while ((res = PQgetResult(st->conn))) {
		ExecStatusType s = PQresultStatus(res);

		if (s == PGRES_SINGLE_TUPLE && !stop) {
			rows++;
			stop = each(res, ctx);
			if (stop) {
				PGcancel *c = PQgetCancel(st->conn);
				char buf[256];

				if (c) {
					PQcancel(c, buf, sizeof(buf));
					PQfreeCancel(c);
				}
			}
		} else if (s != PGRES_TUPLES_OK && s != PGRES_SINGLE_TUPLE && !stop && !failed) {
			failed = 1;
			db_error(st, err, what);
		}
		PQclear(res);
	}
	if (lost)
		*lost = failed && !rows && !st->in_tx && PQstatus(st->conn) != CONNECTION_OK;
	if (failed && !stop)
		return err && err->code ? -1 : db_error(st, err, what);
	return stop;
}

struct each_run_ctx {
	int (*each)(const struct run *r, void *ctx);
	void *ctx;
};

static int each_run_row(const PGresult *res, void *ctx)
{
	struct each_run_ctx *c = ctx;
	struct run r;

	row_to_run(res, 0, &r, false);
	return c->each(&r, c->ctx);
}

static int pg_each_run(struct store *base, const struct run_filter *f,
		       int (*each)(const struct run *r, void *ctx), void *ctx, struct kerr *err)
{
	struct pg *st = (struct pg *)base;
	unsigned bits = store_filter_bits(f);
	bool oldest = f->oldest_first;
	struct each_run_ctx c = {each, ctx};
	const char *params[10];
	char sql[1024], name[16], num[4][32];
	bool lost = false;
	int n, rc, tries;

	snprintf(name, sizeof(name), "l%d_%u", oldest, bits);
	n = list_sql(bits, oldest, sql, sizeof(sql));
	list_params(f, params, num);
	for (tries = 0; tries < 2; tries++) {
		if (lost)
			kerr_clear(err);
		if (alive(st, err) || (st->in_tx && copy_flush(st, err)))
			return -1;
		if (!st->list_prepared[oldest][bits]) {
			if (prepare(st, name, sql, n, err))
				return -1;
			st->list_prepared[oldest][bits] = true;
		}
		if (!PQsendQueryPrepared(st->conn, name, n, params, NULL, NULL, 0))
			return db_error(st, err, "listing runs");
		rc = stream_rows(st, each_run_row, &c, err, "listing runs", &lost);
		if (!lost)
			break;
	}
	return rc;
}

static int pg_points_before(struct store *base, const int64_t *ids, size_t n, int64_t limit,
			    int (*each)(size_t k, const struct run *r, void *ctx), void *ctx,
			    struct kerr *err)
{
	struct pg *st = (struct pg *)base;
	struct strbuf list = {0};
	char num[24], lim[24];
	const char *params[2];
	size_t k;
	PGresult *res;
	struct run r;
	int i, rows, stop = 0;

	for (k = 0; k < n; k++)
		arr_put(&list, store_i64_text(num, ids[k]), false);
	buf_put(&list, "}", 2);	/* with its NUL (n >= 1: store.c) */
	params[0] = list.p;
	params[1] = store_i64_text(lim, limit);
	res = (st->in_tx && copy_flush(st, err)) ? NULL :
		run_stmt(st, S_POINTS_BEFORE, params, PGRES_TUPLES_OK, err, "reading points' runs");
	free(list.p);
	if (!res)
		return -1;
	rows = PQntuples(res);
	for (i = 0; i < rows && !stop; i++) {
		row_to_run(res, i, &r, false);
		stop = each((size_t)get_i64(res, i, 17) - 1, &r, ctx);
	}
	PQclear(res);
	return stop;
}

static int pg_explain_listing(struct store *base, const struct run_filter *f, char *buf,
			      size_t size, struct kerr *err)
{
	struct pg *st = (struct pg *)base;
	const char *params[10];
	char sql[1100], num[4][32];
	size_t len = 0;
	PGresult *res;
	int n, i;

	strcpy(sql, "EXPLAIN ");
	n = list_sql(store_filter_bits(f), f->oldest_first, sql + 8, sizeof(sql) - 8);
	list_params(f, params, num);
	res = expect(st, PQexecParams(st->conn, sql, n, NULL, params, NULL, NULL, 0),
		     PGRES_TUPLES_OK, err, "explaining a query");
	if (!res)
		return -1;
	buf[0] = '\0';
	for (i = 0; i < PQntuples(res) && len + 1 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s\n", PQgetvalue(res, i, 0));
	PQclear(res);
	return 0;
}






/* PostgreSQL keeps its own log and checkpoints: nothing to do. */
static int pg_checkpoint(struct store *base, bool truncate, int *left, struct kerr *err)
{
	(void)base;
	(void)truncate;
	(void)err;
	if (left)
		*left = 0;
	return 0;
}



struct dump_ctx {
	int (*row)(const char *const *v, void *ctx);
	void *ctx;
	int ncol;
};

static int dump_row(const PGresult *res, void *ctx)
{
	struct dump_ctx *c = ctx;
	const char *v[16];
	int i;

	for (i = 0; i < c->ncol; i++)
		v[i] = get_text(res, 0, i, false);
	return c->row(v, c->ctx);
}

static int pg_dump(struct store *base, enum store_table t, int64_t after_id, int64_t limit,
		   int (*row)(const char *const *v, void *ctx), void *ctx, struct kerr *err)
{
	struct pg *st = (struct pg *)base;
	const struct store_table_desc *d = &store_tables[t];
	struct dump_ctx c = {row, ctx, (int)strlen(d->types)};
	char sql[512], name[16], a[24], b[24];
	const char *params[2] = {store_i64_text(a, after_id), limit > 0 ? store_i64_text(b, limit) : NULL};

	if (alive(st, err))
		return -1;
	snprintf(name, sizeof(name), "d%d", (int)t);
	if (!st->dump_prepared[t]) {
		snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE %s ORDER BY %s LIMIT $2",
			 d->columns, d->name, t == T_RUNS ? "id > $1" : "$1::bigint IS NOT NULL",
			 d->key);
		if (prepare(st, name, sql, 2, err))
			return -1;
		st->dump_prepared[t] = true;
	}
	if (!PQsendQueryPrepared(st->conn, name, 2, params, NULL, NULL, 0))
		return db_error(st, err, "reading a table to copy");
	return stream_rows(st, dump_row, &c, err, "reading a table to copy", NULL);
}

static int pg_load(struct store *base, enum store_table t, const char *const *v, struct kerr *err)
{
	struct pg *st = (struct pg *)base;
	const struct store_table_desc *d = &store_tables[t];
	size_t ncol = strlen(d->types), i, len;
	char sql[768];
	PGresult *res;

	if (tx_lock(st, err))
		return -1;
	if (t == T_RUNS) {	/* through COPY, as put_run; counts come with the series */
		for (i = 0; i < ncol; i++)
			copy_text(&st->copy, v[i], i + 1 < ncol ? '\t' : '\n');
		st->copy_rows++;
		return st->copy.len >= COPY_FLUSH_BYTES ? copy_flush(st, err) : 0;
	}
	if (t == T_FLOOR) {
		snprintf(sql, sizeof(sql), "UPDATE run_id_floor SET high = greatest(high, $1)");
	} else {
		len = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO %s (%s) VALUES (", d->name,
				       d->columns);
		for (i = 0; i < ncol; i++)
			len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%s$%zu", i ? "," : "",
						i + 1);
		snprintf(sql + len, sizeof(sql) - len, ") ON CONFLICT DO NOTHING");
	}
	res = expect(st, PQexecParams(st->conn, sql, t == T_FLOOR ? 1 : (int)ncol, NULL, v, NULL,
				      NULL, 0),
		     PGRES_COMMAND_OK, err, "storing a copied row");
	PQclear(res);
	if (!res)
		return -1;
	if (t != T_SERIES && t != T_ALERTS)
		return 0;
	/* new series and alerts made later must not take a copied id */
	snprintf(sql, sizeof(sql), "SELECT setval(pg_get_serial_sequence('%s', 'id'), "
		 "(SELECT max(id) FROM %s))", d->name, d->name);
	res = expect(st, PQexec(st->conn, sql), PGRES_TUPLES_OK, err, "storing a copied row");
	PQclear(res);
	return res ? 0 : -1;
}


static int pg_query(struct store *base, const char *sql, const char *types,
		    const char *const *params, int (*row)(const char *const *v, int ncol, void *ctx),
		    void *ctx, long *changed, struct kerr *err)
{
	struct pg *st = (struct pg *)base;
	int i, r, ncol, nrows, nparams = (int)strlen(types), stop = 0;
	const char *v[16];
	char name[16];
	PGresult *res;
	bool retried = false;

again:
	if (alive(st, err) || (st->in_tx && copy_flush(st, err)))
		return -1;
	for (i = 0; i < QUERY_CACHE && st->queries[i] && st->queries[i] != sql; i++)
		;
	if (st->base.deadline_s > 0 && !st->in_tx) {	/* the loop's, the probe's: within a deadline */
		if (!(res = exec_within(st, sql, nparams, params, err)))
			return -1;
	} else if (i < QUERY_CACHE) {
		snprintf(name, sizeof(name), "q%d", i);
		if (!st->queries[i]) {
			if (prepare(st, name, sql, nparams, err))
				return -1;
			st->queries[i] = sql;
		}
		res = PQexecPrepared(st->conn, name, nparams, params, NULL, NULL, 0);
	} else {
		res = PQexecParams(st->conn, sql, nparams, NULL, params, NULL, NULL, 0);
	}
	if (!retried && again(st, res)) {
		PQclear(res);
		retried = true;
		goto again;
	}
	if (PQresultStatus(res) == PGRES_FATAL_ERROR && !strcmp(sqlstate(res), "23505")) {
		PQclear(res);	/* unique_violation: the caller says which key */
		kerr_set(err, KERR_INVALID, "stored already");
		return STORE_DUPLICATE;
	}
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		res = expect(st, res, PGRES_COMMAND_OK, err, "querying");
		if (!res)
			return -1;
	}
	if (changed)
		*changed = atol(PQcmdTuples(res));
	ncol = PQnfields(res) < 16 ? PQnfields(res) : 16;
	nrows = PQntuples(res);
	for (r = 0; r < nrows && !stop && row; r++) {
		for (i = 0; i < ncol; i++)
			v[i] = PQgetisnull(res, r, i) ? NULL : PQgetvalue(res, r, i);
		stop = row(v, ncol, ctx);
	}
	PQclear(res);
	return stop;
}

/* added: how often this connection's write number did not follow its last
 * one (another transaction, of any instance, took one in between);
 * changed: karte_resets as its last write transaction saw it. */
static int pg_data_version(struct store *base, int64_t *added, int64_t *changed)
{
	struct pg *st = (struct pg *)base;

	*added = st->foreign;
	*changed = st->resets;
	return 0;
}

const struct store_ops store_pg_ops = {
	.name = "postgresql",
	.close = pg_close,
	.schema_version = pg_schema_version,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.checkpoint = pg_checkpoint,
	.put_run = pg_put_run,
	.get_run = pg_get_run,
	.delete_run = pg_delete_run,
	.each_run = pg_each_run,
	.explain_listing = pg_explain_listing,
	.dump = pg_dump,
	.load = pg_load,
	.query = pg_query,
	.data_version = pg_data_version,
	.points_before = pg_points_before,
	.interrupt = pg_interrupt,
	.reserve_ids = pg_reserve_ids,
	.put_run_at = pg_put_run_at,
	.statement_timeout = pg_statement_timeout,
};
