/*
 * store: the storage seam. store_open() picks the backend by the --db
 * string (a postgresql:// URI, else an SQLite file) and every store_*()
 * call goes to that backend's ops (store_impl.h).
 */
#include "store_impl.h"

#include <jansson.h>
#include <libpq-fe.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema.h"
#include "core/nametab.h"
#include "core/xalloc.h"

const struct store_table_desc store_tables[STORE_TABLES] = {
	[T_SERIES] = {"series", "id, system, application, variant, runs, last_run_id, last_run_at, "
		      "thresholds", "itttiitt", "id"},
	[T_FLOOR] = {"run_id_floor", "high", "i", "high"},
	[T_TOKENS] = {"tokens", "name, hash, created_at, revoked_at", "tttt", "name"},
	[T_PVT] = {"power_variation", "system, module, ratio_max, ratio_min, measured_at", "tirrt",
		   "system, module"},
	[T_IMPORTS] = {"imports", "hash, first_id, runs, created_at", "tiit", "hash"},
	[T_ALERTS] = {"alerts", "id, run_id, series_id, p, n, regressions, created_at, "
		      "acknowledged_at, acknowledged_by", "iiiirtttt", "id"},
	[T_RUNS] = {"runs", STORE_RUN_INSERT_COLUMNS, STORE_RUN_TYPES, "id"},
};

/* ---- a run's values, by the one list (store_impl.h) ---- */

#define STORE_RV_VL_KEEP true
#define STORE_RV_VL_SKIP false
#define STORE_RV_ENTRY(c, k, h, pt, vl) {#c, STORE_RV_##k, h, offsetof(struct run, c), STORE_RV_VL_##vl},
const struct store_run_value store_run_values[STORE_RUN_NVALUES] = {STORE_RUN_VALUES(STORE_RV_ENTRY)};

#define RV_AT(r, k, type) ((type *)((char *)(r) + store_run_values[k].offset))
#define RV_OF(r, k, type) (*(const type *)((const char *)(r) + store_run_values[k].offset))

bool store_run_value_set(const struct run *r, size_t k)
{
	const struct store_run_value *v = &store_run_values[k];

	if (v->kind == STORE_RV_TEXT)
		return RV_OF(r, k, char *) != NULL;
	return !v->has || (r->has & v->has);
}

int64_t store_run_int(const struct run *r, size_t k)
{
	return RV_OF(r, k, int64_t);
}

double store_run_real(const struct run *r, size_t k)
{
	return RV_OF(r, k, double);
}

const char *store_run_text(const struct run *r, size_t k)
{
	return RV_OF(r, k, char *);
}

void store_run_blank(struct run *r)
{
	size_t k;

	memset(r, 0, sizeof(*r));
	for (k = 0; k < STORE_RUN_NVALUES; k++)
		if (store_run_values[k].kind == STORE_RV_REAL && store_run_values[k].has)
			*RV_AT(r, k, double) = NAN;
}

void store_run_put_int(struct run *r, size_t k, int64_t v)
{
	*RV_AT(r, k, int64_t) = v;
	r->has |= store_run_values[k].has;
}

void store_run_put_real(struct run *r, size_t k, double v)
{
	*RV_AT(r, k, double) = v;
	r->has |= store_run_values[k].has;
}

void store_run_put_text(struct run *r, size_t k, char *v)
{
	*RV_AT(r, k, char *) = v;
}

unsigned store_filter_bits(const struct run_filter *f)
{
	bool series = f->system && f->application && f->variant;

	return (f->system ? FB_SYSTEM : 0) | (f->application ? FB_APPLICATION : 0) |
	       (f->variant ? FB_VARIANT : 0) | (f->p > 0 ? FB_P : 0) | (f->n > 0 ? FB_N : 0) |
	       (f->nlabels && !series ? FB_LABEL : 0) |
	       (f->values_only && !f->nlabels ? FB_VALUES : 0);	/* labels are matched on the text */
}

bool series_cache_hit(const struct series_cache *c, const struct run *r, int64_t *id)
{
	const int64_t *v = nametab_get(&c->ids, r->system, r->application, r->variant);

	if (!v)
		return false;
	*id = *v;
	return true;
}

void series_cache_set(struct series_cache *c, const struct run *r, int64_t id)
{
	if (!c->ids.cap)
		c->ids = (struct nametab)NAMETAB_INIT(SERIES_CACHE, sizeof(int64_t));
	*(int64_t *)nametab_put(&c->ids, r->system, r->application, r->variant) = id;
}

void series_cache_forget(struct series_cache *c)
{
	nametab_clear(&c->ids);
}

void series_cache_free(struct series_cache *c)
{
	nametab_free(&c->ids);
}

bool tally_add(struct tallies *ts, int64_t sid, int64_t id)
{
	size_t i;

	for (i = 0; i < ts->n && ts->t[i].series != sid; i++)
		;
	if (i == TALLY_MAX)
		return false;
	if (i == ts->n)
		ts->t[ts->n++] = (struct tally){sid, 0, 0};
	ts->t[i].runs++;
	if (id > ts->t[i].last_id)
		ts->t[i].last_id = id;
	return true;
}

bool store_is_uri(const char *db)
{
	return !strncmp(db, "postgresql://", 13) || !strncmp(db, "postgres://", 11);
}

/* postgresql://user:secret@host/db is shown as postgresql://user:***@host/db. */
/* Append "key=value" to buf as a URI query parameter. */
static void shown_param(char *buf, size_t size, const char *key, const char *val)
{
	size_t n = strlen(buf);

	if (n < size)
		snprintf(buf + n, size - n, "%s%s=%s", strchr(buf, '?') ? "&" : "?", key, val);
}

/* The URI as libpq reads it (PQconninfoParse: either form of password,
 * userinfo or ?password=, percent-escapes, every key), written back with
 * every setting but the passwords (password, sslpassword); a URI libpq cannot read is shown as its
 * scheme alone. */
const char *store_shown(const char *db, char *buf, size_t size)
{
	const char *user = NULL, *host = NULL, *port = NULL, *dbname = NULL;
	PQconninfoOption *opts, *o;
	char *msg = NULL;

	snprintf(buf, size, "%s", db);
	if (!store_is_uri(db))
		return buf;
	opts = PQconninfoParse(db, &msg);
	PQfreemem(msg);
	if (!opts) {
		snprintf(buf, size, "%.*s(a URI libpq cannot read)", (int)(strstr(db, "://") + 3 - db), db);
		return buf;
	}
	for (o = opts; o->keyword; o++) {
		if (!o->val)
			continue;
		if (!strcmp(o->keyword, "user"))
			user = o->val;
		else if (!strcmp(o->keyword, "host"))
			host = o->val;
		else if (!strcmp(o->keyword, "port"))
			port = o->val;
		else if (!strcmp(o->keyword, "dbname"))
			dbname = o->val;
	}
	snprintf(buf, size, "postgresql://%s%s%s%s%s/%s", user ? user : "", user ? "@" : "", host ? host : "",
		 port ? ":" : "", port ? port : "", dbname ? dbname : "");
	for (o = opts; o->keyword; o++)
		if (o->val && !strstr(o->keyword, "password") && strcmp(o->keyword, "user") &&
		    strcmp(o->keyword, "host") && strcmp(o->keyword, "port") && strcmp(o->keyword, "dbname"))
			shown_param(buf, size, o->keyword, o->val);
	PQconninfoFree(opts);
	return buf;
}

int store_schema_latest(void)
{
	return schema_migrations[schema_migrations_count - 1].version;
}

const char *store_backend(const struct store *st)
{
	return st->ops->name;
}

void store_close(struct store *st)
{
	if (st)
		st->ops->close(st);
}

int store_data_version(struct store *st, int64_t *added, int64_t *changed)
{
	return st->ops->data_version(st, added, changed);
}

int store_points_before(struct store *st, const int64_t *ids, size_t n, int64_t limit,
			int (*each)(size_t k, const struct run *r, void *ctx), void *ctx,
			struct kerr *err)
{
	if (n > STORE_POINTS_MAX)
		return kerr_set(err, KERR_INTERNAL, "store_points_before: %zu runs, at most %d", n,
				STORE_POINTS_MAX);
	if (limit < 1 || limit > STORE_POINTS_LIMIT_MAX)
		return kerr_set(err, KERR_INTERNAL, "store_points_before: limit %lld, not 1 to %d",
				(long long)limit, STORE_POINTS_LIMIT_MAX);
	return n ? st->ops->points_before(st, ids, n, limit, each, ctx, err) : 0;
}

int store_schema_version(struct store *st)
{
	return st->ops->schema_version(st);
}

int store_begin(struct store *st, struct kerr *err)
{
	return st->ops->begin(st, err);
}

int store_commit(struct store *st, struct kerr *err)
{
	return st->ops->commit(st, err);
}

void store_rollback(struct store *st)
{
	st->ops->rollback(st);
}

int store_checkpoint(struct store *st, bool truncate, int *left, struct kerr *err)
{
	return st->ops->checkpoint(st, truncate, left, err);
}

int store_merge(struct store *st, bool all, int64_t *moved, struct kerr *err)
{
	*moved = 0;
	return st->ops->merge ? st->ops->merge(st, all, moved, err) : 0;
}

int store_put_run(struct store *st, const struct run *r, int64_t *id, bool *existed,
		  struct kerr *err)
{
	return st->ops->put_run(st, r, id, existed, err);
}



int store_get_run(struct store *st, int64_t id, struct run *out, struct kerr *err)
{
	return st->ops->get_run(st, id, out, err);
}

int store_delete_run(struct store *st, int64_t id, bool *deleted, struct kerr *err)
{
	static const char sql[] = "DELETE FROM alerts WHERE run_id = $1";
	char a[24];
	const char *params[1] = {a};

	if (st->ops->delete_run(st, id, deleted, err))
		return -1;
	snprintf(a, sizeof(a), "%lld", (long long)id);	/* its alerts go with it */
	return *deleted ? store_query(st, sql, "i", params, NULL, NULL, NULL, err) : 0;
}

const char *store_i64_text(char buf[24], int64_t v)
{
	snprintf(buf, 24, "%lld", (long long)v);
	return buf;
}

void store_utc_text(time_t t, long ms, char *buf, size_t size)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

void store_utc_now(char *buf, size_t size)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	store_utc_text(ts.tv_sec, ts.tv_nsec / 1000000, buf, size);
}

void store_set_deadline(struct store *st, double seconds)
{
	if (st)
		st->deadline_s = seconds > 0 ? seconds : 0;
}

int store_query(struct store *st, const char *sql, const char *types, const char *const *params,
		int (*row)(const char *const *v, int ncol, void *ctx), void *ctx, long *changed,
		struct kerr *err)
{
	return st->ops->query(st, sql, types, params, row, ctx, changed, err);
}

/* A walk with label filters: the backend selects by the other fields (and
 * by the first label's index entries, FB_LABEL), and each run's labels are
 * checked here, all of them, as a JSON reader sees them. */
struct label_walk {
	const struct run_filter *f;
	int (*each)(const struct run *r, void *ctx);
	void *ctx;
	int64_t matched;
};

#define LABEL_WALK_DONE INT_MIN	/* the limit reached: not the caller's stop */

static bool labels_match(const char *labels, const struct label_eq *eq, size_t n)
{
	json_t *o;
	bool ok = true;
	size_t i;

	if (!labels || !(o = json_loads(labels, 0, NULL)))
		return false;
	for (i = 0; ok && i < n; i++) {
		const char *v = json_string_value(json_object_get(o, eq[i].key));

		ok = v && !strcmp(v, eq[i].value);
	}
	json_decref(o);
	return ok;
}

static int label_each(const struct run *r, void *ctx)
{
	struct label_walk *w = ctx;
	int rc;

	if (!labels_match(r->labels, w->f->labels, w->f->nlabels))
		return 0;
	if ((rc = w->each(r, w->ctx)))
		return rc;
	return w->f->limit > 0 && ++w->matched == w->f->limit ? LABEL_WALK_DONE : 0;
}

int store_each_run(struct store *st, const struct run_filter *f,
		   int (*each)(const struct run *r, void *ctx), void *ctx, struct kerr *err)
{
	struct run_filter all;
	struct label_walk w = {f, each, ctx, 0};
	int rc;

	if (!f->nlabels)
		return st->ops->each_run(st, f, each, ctx, err);
	all = *f;
	all.limit = 0;	/* the matches are counted here */
	rc = st->ops->each_run(st, &all, label_each, &w, err);
	return rc == LABEL_WALK_DONE ? 0 : rc;
}

void store_interrupt(struct store *st)
{
	atomic_store(&st->interrupted, true);
	st->ops->interrupt(st);
}

void store_interrupt_clear(struct store *st)
{
	atomic_store(&st->interrupted, false);
}

bool store_interrupted(struct store *st)
{
	return atomic_load_explicit(&st->interrupted, memory_order_relaxed);
}

int store_statement_timeout(struct store *st, double seconds, struct kerr *err)
{
	return st->ops->statement_timeout ? st->ops->statement_timeout(st, seconds, err) : 0;
}

int store_explain_listing(struct store *st, const struct run_filter *f, char *buf, size_t size,
			  struct kerr *err)
{
	return st->ops->explain_listing(st, f, buf, size, err);
}








int store_dump(struct store *st, enum store_table t, int64_t after_id, int64_t limit,
	       int (*row)(const char *const *v, void *ctx), void *ctx, struct kerr *err)
{
	return st->ops->dump(st, t, after_id, limit, row, ctx, err);
}

int store_load(struct store *st, enum store_table t, const char *const *v, struct kerr *err)
{
	return st->ops->load(st, t, v, err);
}


int store_put_run_at(struct store *st, const struct run *r, int64_t id, int64_t *out,
		     bool *existed, int64_t *series, struct kerr *err)
{
	return st->ops->put_run_at(st, r, id, out, existed, series, err);
}
