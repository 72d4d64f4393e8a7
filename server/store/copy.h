/*
 * karted copy: a whole database from one backend into another (SQLite into
 * PostgreSQL, or back), streaming, resumable and verified.
 */
#ifndef KARTE_COPY_H
#define KARTE_COPY_H

#include <stdint.h>
#include <stdio.h>

#include "core/kerr.h"
#include "store.h"

struct store_copy_result {
	int64_t rows[STORE_TABLES];	/* each table's rows, the same on both sides */
	int64_t runs_copied;		/* by this call (fewer when it resumed) */
	char checksum[65];		/* hex SHA-256 of every table, both sides */
};

/* Copy every table of the database from into to (migrated first), runs in
 * transactions of chunk runs, progress lines to progress (NULL: none).
 * Started again after an interruption it goes on after to's newest run.
 * Then the tables' row counts and a SHA-256 over every row (numbers read as
 * doubles and integers, so the backends' texts of them do not matter) must
 * agree, else -1 with err. */
int store_copy(const char *from, const char *to, int64_t chunk, FILE *progress,
	       struct store_copy_result *res, struct kerr *err);

#endif
