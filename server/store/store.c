/*
 * store: the storage seam. store_open() picks the backend by the --db
 * string (a postgresql:// URI, else an SQLite file) and every store_*()
 * call goes to that backend's ops (store_impl.h).
 */
#include "store_impl.h"

#include <string.h>

#include "schema.h"

void store_library_init(void)
{
	store_sqlite_library_init();
}

int store_schema_latest(void)
{
	return schema_migrations[schema_migrations_count - 1].version;
}

struct store *store_open(const char *path, unsigned flags, struct kerr *err)
{
	return store_sqlite_open(path, flags, err);
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

int store_checkpoint(struct store *st, bool truncate, int *wal_pages, struct kerr *err)
{
	return st->ops->checkpoint(st, truncate, wal_pages, err);
}

int store_put_run(struct store *st, const struct run *r, int64_t *id, bool *existed,
		  struct kerr *err)
{
	return st->ops->put_run(st, r, id, existed, err);
}

int store_import_find(struct store *st, const char *hash, int64_t *first_id, int64_t *runs,
		      struct kerr *err)
{
	return st->ops->import_find(st, hash, first_id, runs, err);
}

int store_import_put(struct store *st, const char *hash, int64_t first_id, int64_t runs,
		     struct kerr *err)
{
	return st->ops->import_put(st, hash, first_id, runs, err);
}

int store_get_run(struct store *st, int64_t id, struct run *out, struct kerr *err)
{
	return st->ops->get_run(st, id, out, err);
}

int store_delete_run(struct store *st, int64_t id, bool *deleted, struct kerr *err)
{
	return st->ops->delete_run(st, id, deleted, err);
}

int store_each_run(struct store *st, const struct run_filter *f,
		   int (*each)(const struct run *r, void *ctx), void *ctx, struct kerr *err)
{
	return st->ops->each_run(st, f, each, ctx, err);
}

int store_explain_listing(struct store *st, const struct run_filter *f, char *buf, size_t size,
			  struct kerr *err)
{
	return st->ops->explain_listing(st, f, buf, size, err);
}

int store_each_group(struct store *st, enum store_group g,
		     int (*each)(const struct store_group_row *row, void *ctx), void *ctx,
		     struct kerr *err)
{
	return st->ops->each_group(st, g, each, ctx, err);
}

int store_pvt_put(struct store *st, const char *system, const struct pvt_row *rows, size_t n,
		  struct kerr *err)
{
	return st->ops->pvt_put(st, system, rows, n, err);
}

long store_pvt_each(struct store *st, const char *system,
		    int (*each)(const struct pvt_row *row, void *ctx), void *ctx, struct kerr *err)
{
	return st->ops->pvt_each(st, system, each, ctx, err);
}

int store_token_add(struct store *st, const char *name, const char *hash_hex, struct kerr *err)
{
	return st->ops->token_add(st, name, hash_hex, err);
}

bool store_token_valid(struct store *st, const char *hash_hex)
{
	return st->ops->token_valid(st, hash_hex);
}

int store_token_revoke(struct store *st, const char *name, struct kerr *err)
{
	return st->ops->token_revoke(st, name, err);
}

int store_each_token(struct store *st,
		     int (*each)(const char *name, const char *created_at, const char *revoked_at,
				 void *ctx),
		     void *ctx, struct kerr *err)
{
	return st->ops->each_token(st, each, ctx, err);
}
