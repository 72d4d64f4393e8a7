/*
 * records: the store's small tables, one SQL text each for both backends
 * on store_query: API tokens, the imports remembered (so a file imported
 * twice is stored once), the power variation tables of the power-cap
 * analysis, the row counts karted copy checks, and the run counts of
 * systems, applications and series, and a large import's ids held while
 * it is stored in parts. (Runs, the hot path, are each backend's own:
 * typed binding and COPY.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_impl.h"

/* ---- tokens ---- */

int store_token_add(struct store *st, const char *name, const char *hash_hex, struct kerr *err)
{
	static const char sql[] = "INSERT INTO tokens (name, hash) VALUES ($1, $2)";
	const char *params[2] = {name, hash_hex};
	int rc = store_query(st, sql, "tt", params, NULL, NULL, NULL, err);

	if (rc == STORE_DUPLICATE)
		return kerr_set(err, KERR_INVALID, "a token named '%s' exists already: revoke it or "
				"choose another name", name);
	return rc < 0 ? -1 : 0;
}

static int found(const char *const *v, int ncol, void *ctx)
{
	(void)v;
	(void)ncol;
	*(int *)ctx = 1;
	return 0;
}

int store_token_valid(struct store *st, const char *hash_hex, struct kerr *err)
{
	static const char sql[] = "SELECT 1 FROM tokens WHERE hash = $1 AND revoked_at IS NULL";
	const char *params[1] = {hash_hex};
	int ok = 0;

	if (store_query(st, sql, "t", params, found, &ok, NULL, err) < 0)
		return -1;
	return ok;
}

int store_token_revoke(struct store *st, const char *name, struct kerr *err)
{
	static const char sql[] = "UPDATE tokens SET revoked_at = $2 WHERE name = $1 AND "
				  "revoked_at IS NULL";
	char now[32];
	const char *params[2] = {name, now};
	long changed = 0;

	store_utc_now(now, sizeof(now));
	if (store_query(st, sql, "tt", params, NULL, NULL, &changed, err) < 0)
		return -1;
	if (changed == 0)
		return kerr_set(err, KERR_NOT_FOUND, "there is no active token named '%s'", name);
	return 0;
}

struct token_ctx {
	int (*each)(const char *name, const char *created_at, const char *revoked_at, void *ctx);
	void *ctx;
};

static int token_row(const char *const *v, int ncol, void *ctx)
{
	struct token_ctx *c = ctx;

	(void)ncol;
	return c->each(v[0], v[1], v[2], c->ctx);
}

int store_each_token(struct store *st,
		     int (*each)(const char *name, const char *created_at, const char *revoked_at,
				 void *ctx),
		     void *ctx, struct kerr *err)
{
	static const char sql[] = "SELECT name, created_at, revoked_at FROM tokens ORDER BY name";
	struct token_ctx c = {each, ctx};

	return store_query(st, sql, "", NULL, token_row, &c, NULL, err);
}

/* ---- imports remembered ---- */

struct import_ctx {
	int64_t *first_id, *runs;
	int found;
};

static int import_row(const char *const *v, int ncol, void *ctx)
{
	struct import_ctx *c = ctx;

	(void)ncol;
	*c->first_id = strtoll(v[0], NULL, 10);
	*c->runs = strtoll(v[1], NULL, 10);
	c->found = 1;
	return 0;
}

int store_import_find(struct store *st, const char *hash, int64_t *first_id, int64_t *runs,
		      struct kerr *err)
{
	static const char sql[] = "SELECT first_id, runs FROM imports WHERE hash = $1";
	const char *params[1] = {hash};
	struct import_ctx c = {first_id, runs, 0};

	if (store_query(st, sql, "t", params, import_row, &c, NULL, err) < 0)
		return -1;
	return c.found;
}

int store_import_put(struct store *st, const char *hash, int64_t first_id, int64_t runs,
		     struct kerr *err)
{
	static const char sql[] = "INSERT INTO imports (hash, first_id, runs) VALUES ($1, $2, $3)";
	char a[24], b[24];
	const char *params[3] = {hash, store_i64_text(a, first_id), store_i64_text(b, runs)};

	return store_query(st, sql, "tii", params, NULL, NULL, NULL, err) < 0 ? -1 : 0;
}

/* ---- power variation tables ---- */

int store_pvt_put(struct store *st, const char *system, const struct pvt_row *rows, size_t n,
		  struct kerr *err)
{
	static const char clear[] = "DELETE FROM power_variation WHERE system = $1";
	static const char add[] = "INSERT INTO power_variation (system, module, ratio_max, ratio_min, "
				  "measured_at) VALUES ($1, $2, $3, $4, $5)";
	char module[24], hi[32], lo[32], now[32];
	const char *params[5] = {system, module, hi, lo, now};
	size_t i;
	int rc;

	if (store_query(st, clear, "t", params, NULL, NULL, NULL, err) < 0)
		return -1;
	store_utc_now(now, sizeof(now));
	for (i = 0; i < n; i++) {
		store_i64_text(module, rows[i].module);
		snprintf(hi, sizeof(hi), "%.17g", rows[i].ratio_max);
		snprintf(lo, sizeof(lo), "%.17g", rows[i].ratio_min);
		rc = store_query(st, add, "tirrt", params, NULL, NULL, NULL, err);
		if (rc == STORE_DUPLICATE)
			return kerr_field(err, KERR_INVALID, "modules", "module %ld appears twice",
					  rows[i].module);
		if (rc < 0)
			return -1;
	}
	return 0;
}

struct pvt_ctx {
	int (*each)(const struct pvt_row *row, void *ctx);
	void *ctx;
	long n;
};

static int pvt_row(const char *const *v, int ncol, void *ctx)
{
	struct pvt_ctx *c = ctx;
	struct pvt_row row = {strtol(v[0], NULL, 10), strtod(v[1], NULL), strtod(v[2], NULL)};

	(void)ncol;
	c->n++;
	return c->each ? c->each(&row, c->ctx) : 0;
}

long store_pvt_each(struct store *st, const char *system,
		    int (*each)(const struct pvt_row *row, void *ctx), void *ctx, struct kerr *err)
{
	static const char sql[] = "SELECT module, ratio_max, ratio_min FROM power_variation WHERE "
				  "system = $1 ORDER BY module";
	const char *params[1] = {system};
	struct pvt_ctx c = {each, ctx, 0};

	if (store_query(st, sql, "t", params, pvt_row, &c, NULL, err) < 0)
		return -1;
	return c.n;
}

/* ---- row counts ---- */

static int count_row(const char *const *v, int ncol, void *ctx)
{
	(void)ncol;
	*(int64_t *)ctx = strtoll(v[0], NULL, 10);
	return 0;
}

int64_t store_count(struct store *st, enum store_table t, struct kerr *err)
{
	/* constant texts, one per table: store_query keys its cache by address */
	static const char *const sql[STORE_TABLES] = {
		[T_SERIES] = "SELECT count(*) FROM series",
		[T_FLOOR] = "SELECT count(*) FROM run_id_floor",
		[T_TOKENS] = "SELECT count(*) FROM tokens",
		[T_PVT] = "SELECT count(*) FROM power_variation",
		[T_IMPORTS] = "SELECT count(*) FROM imports",
		[T_ALERTS] = "SELECT count(*) FROM alerts",
		[T_RUNS] = "SELECT count(*) FROM runs",
	};
	int64_t n = -1;

	if ((unsigned)t >= STORE_TABLES || store_query(st, sql[t], "", NULL, count_row, &n, NULL, err) < 0)
		return -1;
	return n;
}

/* ---- run counts, from the counts the writer keeps in series (schema 5):
 * no scan of runs ---- */

struct group_ctx {
	int (*each)(const struct store_group_row *row, void *ctx);
	void *ctx;
};

static int group_row(const char *const *v, int ncol, void *ctx)
{
	struct group_ctx *g = ctx;
	struct store_group_row row = {v[0], v[1], v[2], v[3] ? strtoll(v[3], NULL, 10) : 0, v[4]};

	(void)ncol;
	return g->each(&row, g->ctx);
}

int store_each_group(struct store *st, enum store_group g,
		     int (*each)(const struct store_group_row *row, void *ctx), void *ctx, struct kerr *err)
{
	static const char *const sql[] = {
		"SELECT system, NULL, NULL, sum(runs), max(last_run_at) FROM series WHERE runs > 0 "
		"GROUP BY system ORDER BY 1",
		"SELECT NULL, application, NULL, sum(runs), max(last_run_at) FROM series WHERE runs > 0 "
		"GROUP BY application ORDER BY 2",
		"SELECT system, application, variant, runs, last_run_at FROM series WHERE runs > 0 "
		"ORDER BY 1, 2, 3",
	};
	struct group_ctx c = {each, ctx};

	return store_query(st, sql[g], "", NULL, group_row, &c, NULL, err);
}

/* ---- a large import in parts ---- */

struct pending_row {
	bool found;
	int64_t lo, hi;
	char beat[32];
};

static int take_pending(const char *const *v, int ncol, void *ctx)
{
	struct pending_row *p = ctx;

	(void)ncol;
	p->found = true;
	p->lo = strtoll(v[0], NULL, 10);
	p->hi = strtoll(v[1], NULL, 10);
	snprintf(p->beat, sizeof(p->beat), "%s", v[2] ? v[2] : "");
	return 0;
}

static int read_pending(struct store *st, struct pending_row *p, struct kerr *err)
{
	memset(p, 0, sizeof(*p));
	return store_query(st, "SELECT lo, hi, beat FROM import_pending", "", NULL, take_pending, p,
			   NULL, err) < 0 ? -1 : 0;
}

int store_import_discard(struct store *st, int64_t lo, const char *stale_before, int64_t *gone,
			 struct kerr *err)
{
	struct pending_row p;
	char a[24], b[24];
	int64_t n = 0;

	if (gone)
		*gone = 0;
	if (read_pending(st, &p, err))
		return -1;
	if (!p.found || (lo > 0 && p.lo != lo) ||
	    (lo <= 0 && stale_before && strcmp(p.beat, stale_before) >= 0))
		return 0;
	/* counted first: on SQLite the delete goes through the view runs'
	 * trigger (schema 11), and a view's statement counts no changes */
	if (store_query(st, "SELECT count(*) FROM runs WHERE id BETWEEN $1 AND $2", "ii",
			(const char *const[]){store_i64_text(a, p.lo), store_i64_text(b, p.hi)}, count_row,
			&n, NULL, err) < 0 ||
	    store_query(st, "DELETE FROM runs WHERE id BETWEEN $1 AND $2", "ii",
			(const char *const[]){store_i64_text(a, p.lo), store_i64_text(b, p.hi)}, NULL,
			NULL, NULL, err) < 0 ||
	    store_query(st, "DELETE FROM import_pending", "", NULL, NULL, NULL, NULL, err) < 0)
		return -1;
	if (gone)
		*gone = n;
	return 0;
}

int store_import_reserve(struct store *st, const char *hash, int64_t n, const char *stale_before,
			 int64_t *lo, struct kerr *err)
{
	struct pending_row p;
	char a[24], b[24], now[32];

	if (store_import_discard(st, 0, stale_before, NULL, err) || read_pending(st, &p, err))
		return -1;
	if (p.found)
		return kerr_set(err, KERR_STORE, "another large import is being stored; try again when it is in");
	if (st->ops->reserve_ids(st, n, lo, err))
		return -1;
	store_utc_now(now, sizeof(now));
	return store_query(st, "INSERT INTO import_pending (one, lo, hi, hash, beat) VALUES (1, $1, $2, "
			   "$3, $4)", "iitt",
			   (const char *const[]){store_i64_text(a, *lo), store_i64_text(b, *lo + n - 1),
						 hash, now}, NULL, NULL, NULL, err) < 0 ? -1 : 0;
}


int store_import_beat(struct store *st, int64_t lo, struct kerr *err)
{
	char a[24], now[32];
	long n = 0;

	store_utc_now(now, sizeof(now));
	if (store_query(st, "UPDATE import_pending SET beat = $2 WHERE lo = $1", "it",
			(const char *const[]){store_i64_text(a, lo), now}, NULL, NULL, &n, err) < 0)
		return -1;
	return n == 1 ? 0 : kerr_set(err, KERR_STORE, "the import was taken for one left behind (its parts "
				      "came too slowly); send it again");
}

int store_import_publish(struct store *st, const char *hash, int64_t lo, int64_t n,
			 const struct store_series_count *counts, size_t ncounts, struct kerr *err)
{
	char a[24], b[24], c[24], now[32];
	size_t i;

	store_utc_now(now, sizeof(now));
	for (i = 0; i < ncounts; i++)
		if (store_query(st, "UPDATE series SET runs = runs + $2, last_run_at = CASE WHEN $3 > "
				"coalesce(last_run_id, 0) THEN $4 ELSE last_run_at END, last_run_id = "
				"CASE WHEN $3 > coalesce(last_run_id, 0) THEN $3 ELSE last_run_id END "
				"WHERE id = $1", "iiit",
				(const char *const[]){store_i64_text(a, counts[i].series),
						      store_i64_text(b, counts[i].runs),
						      store_i64_text(c, counts[i].last_id), now},
				NULL, NULL, NULL, err) < 0)
			return -1;
	if (hash && *hash && store_import_put(st, hash, lo, n, err))
		return -1;
	return store_query(st, "DELETE FROM import_pending WHERE lo = $1", "i",
			   (const char *const[]){store_i64_text(a, lo)}, NULL, NULL, NULL, err) < 0 ? -1 : 0;
}
