/*
 * alerts: what history and regressions keep in the database (schema 7),
 * written once for both backends on store_query: a series' thresholds and
 * alerts. (The earlier runs of a point, store_points_before, are each
 * backend's own: one query for many points needs PostgreSQL's LATERAL.)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "store.h"

#define SERIES_IS "(SELECT id FROM series WHERE system = $1 AND application = $2 AND variant = $3)"

struct thr_ctx {
	struct store_thresholds *t;
	bool *runs_before;
	int found;
};

static int thr_row(const char *const *v, int ncol, void *ctx)
{
	struct thr_ctx *c = ctx;
	json_t *o;

	(void)ncol;
	c->found = 1;
	*c->runs_before = v[1] && strcmp(v[1], "0") && strcmp(v[1], "f");
	if (!v[0] || !(o = json_loads(v[0], 0, NULL)))
		return 0;
	c->t->rel = json_number_value(json_object_get(o, "rel"));
	c->t->noise = json_number_value(json_object_get(o, "noise"));
	c->t->min_runs = json_integer_value(json_object_get(o, "min_runs"));
	c->t->set = true;
	json_decref(o);
	return 0;
}

int store_thresholds_get(struct store *st, const char *system, const char *application,
			 const char *variant, struct store_thresholds *t, struct kerr *err)
{
	bool before;

	return store_thresholds_get_before(st, system, application, variant, 0, t, &before, err);
}

/* The EXISTS is one probe of runs_series (series_id, id) in each table
 * (SQLite pushes the WHERE into both arms of the view runs). */
int store_thresholds_get_before(struct store *st, const char *system, const char *application,
				const char *variant, int64_t before_id, struct store_thresholds *t,
				bool *runs_before, struct kerr *err)
{
	static const char sql[] = "SELECT thresholds, EXISTS (SELECT 1 FROM runs WHERE series_id = "
				  "series.id AND id < $4) FROM series WHERE system = $1 AND "
				  "application = $2 AND variant = $3";
	char id[24];
	const char *params[4] = {system, application, variant, store_i64_text(id, before_id)};
	struct thr_ctx c = {t, runs_before, 0};

	t->set = false;
	*runs_before = false;
	if (store_query(st, sql, "ttti", params, thr_row, &c, NULL, err) < 0)
		return -1;
	return c.found;
}

int store_thresholds_put(struct store *st, const char *system, const char *application,
			 const char *variant, const struct store_thresholds *t, struct kerr *err)
{
	static const char sql[] = "UPDATE series SET thresholds = $4 WHERE system = $1 AND "
				  "application = $2 AND variant = $3";
	char text[160];
	const char *params[4] = {system, application, variant, t ? text : NULL};
	long changed = 0;

	if (t)
		snprintf(text, sizeof(text), "{\"rel\": %.17g, \"noise\": %.17g, \"min_runs\": %lld}",
			 t->rel, t->noise, (long long)t->min_runs);
	if (store_query(st, sql, "tttt", params, NULL, NULL, &changed, err) < 0)
		return -1;
	if (changed == 0)
		return kerr_set(err, KERR_NOT_FOUND, "there is no series %s:%s%s%s", system, application,
				*variant ? ":" : "", variant);
	return 0;
}

struct one_ctx {
	int64_t id;
	char *text;
	size_t size;
};

static int one_row(const char *const *v, int ncol, void *ctx)
{
	struct one_ctx *c = ctx;

	(void)ncol;
	c->id = strtoll(v[0], NULL, 10);
	if (c->text)
		snprintf(c->text, c->size, "%s", v[1] ? v[1] : "");
	return 0;
}

int store_alert_put(struct store *st, int64_t run_id, const char *regressions, int64_t *id,
		    char created_at[32], struct kerr *err)
{
	static const char sql[] =
		"INSERT INTO alerts (run_id, series_id, p, n, regressions, created_at) "
		"SELECT id, series_id, p, n, $2, $3 FROM runs WHERE id = $1 RETURNING id, created_at";
	char a[24];
	const char *params[3] = {store_i64_text(a, run_id), regressions, NULL};
	struct one_ctx c = {0, created_at, 32};

	store_utc_now(created_at, 32);
	params[2] = created_at;
	if (store_query(st, sql, "itt", params, one_row, &c, NULL, err) < 0)
		return -1;
	if (c.id == 0)
		return kerr_set(err, KERR_NOT_FOUND, "there is no run with id %lld", (long long)run_id);
	*id = c.id;
	return 0;
}

static int alert_row(const char *const *v, int ncol, void *ctx)
{
	struct {
		int (*each)(const struct store_alert *a, void *ctx);
		void *ctx;
	} *c = ctx;
	struct store_alert a = {
		.id = strtoll(v[0], NULL, 10),
		.run_id = strtoll(v[1], NULL, 10),
		.system = v[2],
		.application = v[3],
		.variant = v[4],
		.p = strtoll(v[5], NULL, 10),
		.n = strtod(v[6], NULL),
		.regressions = v[7],
		.created_at = v[8],
		.acknowledged_at = v[9],
		.acknowledged_by = v[10],
		.measured_at = v[11],
		.labels = v[12],
	};

	(void)ncol;
	return c->each(&a, c->ctx);
}

int store_each_alert(struct store *st, const struct alert_filter *f,
		     int (*each)(const struct store_alert *a, void *ctx), void *ctx, struct kerr *err)
{
	/* alerts are few beside runs: newest first by id, filters as parameters */
	static const char sql[] =
		"SELECT a.id, a.run_id, s.system, s.application, s.variant, a.p, a.n, a.regressions, "
		"a.created_at, a.acknowledged_at, a.acknowledged_by,"
		/* not a LEFT JOIN: SQLite reads its view runs (schema 11) whole on
		 * the right of a join; a subquery looks the run up in each table */
		" (SELECT measured_at FROM runs WHERE id = a.run_id),"
		" (SELECT labels FROM runs WHERE id = a.run_id)"
		" FROM alerts a JOIN series s ON s.id = a.series_id"
		" WHERE (CAST($1 AS TEXT) IS NULL OR s.system = $1)"
		" AND (CAST($2 AS TEXT) IS NULL OR s.application = $2)"
		" AND (CAST($3 AS TEXT) IS NULL OR s.variant = $3)"
		" AND (CAST($4 AS TEXT) IS NULL OR a.created_at >= $4)"
		" AND ($5 < 0 OR (a.acknowledged_at IS NOT NULL) = ($5 = 1))"
		" AND ($6 = 0 OR a.id = $6) AND ($7 = 0 OR a.id < $7)"
		" ORDER BY a.id DESC LIMIT $8";
	char n5[24], n6[24], n7[24], n8[24];
	const char *params[8] = {f->system, f->application, f->variant, f->since,
				 store_i64_text(n5, f->acknowledged), store_i64_text(n6, f->id), store_i64_text(n7, f->before_id),
				 store_i64_text(n8, f->limit)};
	struct {
		int (*each)(const struct store_alert *a, void *ctx);
		void *ctx;
	} c = {each, ctx};

	return store_query(st, sql, "ttttiiii", params, alert_row, &c, NULL, err);
}

int store_alert_ack(struct store *st, int64_t id, const char *token_hash, bool *found,
		    bool *already, struct kerr *err)
{
	static const char sql[] =
		"UPDATE alerts SET acknowledged_at = $2, acknowledged_by = coalesce((SELECT name FROM "
		"tokens WHERE hash = $3), 'a token') WHERE id = $1 AND acknowledged_at IS NULL";
	static const char exists[] = "SELECT id, NULL FROM alerts WHERE id = $1";
	char a[24], now[32];
	const char *params[3] = {store_i64_text(a, id), now, token_hash};
	struct one_ctx c = {0, NULL, 0};
	long changed = 0;

	store_utc_now(now, sizeof(now));
	if (store_query(st, sql, "itt", params, NULL, NULL, &changed, err) < 0)
		return -1;
	*already = false;
	*found = changed > 0;
	if (*found)
		return 0;
	if (store_query(st, exists, "i", params, one_row, &c, NULL, err) < 0)
		return -1;
	*found = *already = c.id != 0;
	return 0;
}
