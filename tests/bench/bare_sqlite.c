/*
 * The baseline for karted's bulk NDJSON rate: bare prepared inserts of the
 * same runs into the same indexed table (karte's own schema), in
 * transactions of `batch` rows, WAL and synchronous=NORMAL as karted runs.
 * No HTTP, no JSON, no validation. The rows go into runs_new, the table
 * karted's writer inserts into (schema 11), not through the view runs,
 * whose INSTEAD OF trigger would make the baseline slower than karted's own
 * insert. With SERIES, row i goes to series 1 + i % SERIES (runs spread
 * over that many series, as a site's job scripts send them).
 * usage: bare_sqlite DB ROWS BATCH [SERIES]     prints "rows_per_s N"
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "store/schema.h"
#include "core/mono.h"

int main(int argc, char **argv)
{
	static const char ins[] =
		"INSERT INTO runs_new (series_id, p, n, tau, chi, gamma, frequency_mhz, power_cap_w, "
		"energy_j, measured_at, idempotency_key, regions, labels, created_at) "
		"VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	/* a run's label rows, as karted stores them after the run (schema 13) */
	static const char labels[] =
		"INSERT OR IGNORE INTO run_labels (key, value, run_id) SELECT key, value, ?1 "
		"FROM json_each(?2) WHERE type = 'text'";
	static const char label_text[] = "{\"class\":\"C\"}";
	sqlite3 *db;
	sqlite3_stmt *s, *l;
	long rows, batch, nseries = 1, i;
	char sql[256];
	double t0, dt;
	int m;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: bare_sqlite DB ROWS BATCH [SERIES]\n");
		return 2;
	}
	rows = atol(argv[2]);
	batch = atol(argv[3]);
	if (argc == 5)
		nseries = atol(argv[4]);
	if (rows < 1 || batch < 1 || nseries < 1) {
		fprintf(stderr, "bare_sqlite: ROWS, BATCH and SERIES are counts of 1 or more\n");
		return 2;
	}
	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		return 1;
	sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
	for (m = 0; m < schema_migrations_count; m++)
		if (sqlite3_exec(db, schema_migrations[m].sql, NULL, NULL, NULL) != SQLITE_OK) {
			fprintf(stderr, "bare_sqlite: %s\n", sqlite3_errmsg(db));
			return 1;
		}
	snprintf(sql, sizeof(sql), "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k "
		 "WHERE i < %ld) INSERT INTO series (id, system, application, variant) "
		 "SELECT i, 'bench', 'md' || i, 'v1' FROM k", nseries);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "bare_sqlite: %s\n", sqlite3_errmsg(db));
		return 1;
	}
	if (sqlite3_prepare_v2(db, ins, -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, labels, -1, &l, NULL) != SQLITE_OK)
		return 1;
	t0 = mono_s();
	for (i = 0; i < rows; i++) {
		if (i % batch == 0)
			sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		sqlite3_bind_int64(s, 1, 1 + i % nseries);
		sqlite3_bind_int64(s, 2, 1 + i % 64);
		sqlite3_bind_double(s, 3, 1000.0 + (double)i);
		sqlite3_bind_double(s, 4, 12.5);
		sqlite3_bind_double(s, 5, 5.6);
		sqlite3_bind_double(s, 6, 12.5 - 5.6);
		sqlite3_bind_double(s, 7, 3000);
		sqlite3_bind_null(s, 8);
		sqlite3_bind_double(s, 9, 1234.5);
		sqlite3_bind_null(s, 10);
		sqlite3_bind_null(s, 11);
		sqlite3_bind_text(s, 12, "[{\"name\":\"resid\",\"time_s\":1.2,\"energy_j\":150.3}]", -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(s, 13, label_text, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 14, "2026-11-22T00:00:00.000Z", -1, SQLITE_STATIC);
		if (sqlite3_step(s) != SQLITE_DONE) {
			fprintf(stderr, "bare_sqlite: %s\n", sqlite3_errmsg(db));
			return 1;
		}
		sqlite3_reset(s);
		sqlite3_bind_int64(l, 1, sqlite3_last_insert_rowid(db));
		sqlite3_bind_text(l, 2, label_text, -1, SQLITE_STATIC);
		if (sqlite3_step(l) != SQLITE_DONE) {
			fprintf(stderr, "bare_sqlite: %s\n", sqlite3_errmsg(db));
			return 1;
		}
		sqlite3_reset(l);
		if (i % batch == batch - 1 || i == rows - 1)
			sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	}
	dt = mono_s() - t0;
	printf("rows_per_s %.0f\n", (double)rows / dt);
	sqlite3_finalize(s);
	sqlite3_finalize(l);
	sqlite3_close(db);
	return 0;
}
