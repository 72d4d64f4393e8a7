/*
 * karted copy: one database into another through the store interface, so
 * any backend into any other (SQLite into PostgreSQL to scale out, or
 * back). Runs stream in id order, a chunk per transaction, so memory stays
 * flat and an interrupted copy goes on from the target's newest run when
 * started again. At the end every table's rows are counted and
 * checksummed on both sides.
 */
#include "copy.h"

#include <math.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_impl.h"

struct load_ctx {
	struct store *dst;
	enum store_table t;
	struct kerr *err;
	int64_t rows, last_id;
};

static int load_row(const char *const *v, void *ctx)
{
	struct load_ctx *c = ctx;

	if (store_load(c->dst, c->t, v, c->err))
		return -1;
	c->rows++;
	if (c->t == T_RUNS)
		c->last_id = strtoll(v[0], NULL, 10);
	return 0;
}

/* One table's rows (of T_RUNS: up to chunk after after_id) in one
 * transaction of dst. The rows copied, or -1. */
static int64_t copy_some(struct store *src, struct store *dst, enum store_table t,
			 int64_t after_id, int64_t chunk, int64_t *last_id, struct kerr *err)
{
	struct load_ctx c = {dst, t, err, 0, after_id};
	int rc;

	if (store_begin(dst, err))
		return -1;
	rc = store_dump(src, t, after_id, chunk, load_row, &c, err);
	if (rc == 0 && store_commit(dst, err) == 0) {
		*last_id = c.last_id;
		return c.rows;
	}
	if (rc > 0 && !err->code)
		kerr_set(err, KERR_INTERNAL, "copying %s failed", store_tables[t].name);
	store_rollback(dst);
	return -1;
}

static int newest(const struct run *r, void *ctx)
{
	*(int64_t *)ctx = r->id;
	return 1;
}

/* The largest run id of st, 0 when it has none. */
static int newest_id(struct store *st, int64_t *id, struct kerr *err)
{
	struct run_filter f = {.limit = 1};

	*id = 0;
	return store_each_run(st, &f, newest, id, err) < 0 ? -1 : 0;
}

struct sum_ctx {
	struct sha256_ctx sha;
	const char *types;
};

/* A row in a form that does not depend on the backend's text of numbers. */
static int sum_row(const char *const *v, void *ctx)
{
	struct sum_ctx *c = ctx;
	char num[48];
	size_t i;

	for (i = 0; c->types[i]; i++) {
		if (!v[i])
			snprintf(num, sizeof(num), "\x01N");
		else if (c->types[i] == 'r')
			snprintf(num, sizeof(num), "\x01%a", strtod(v[i], NULL));
		else if (c->types[i] == 'i')
			snprintf(num, sizeof(num), "\x01%lld", strtoll(v[i], NULL, 10));
		else
			num[0] = '\x02', num[1] = '\0';
		sha256_update(&c->sha, strlen(num), (const uint8_t *)num);
		if (v[i] && c->types[i] == 't')
			sha256_update(&c->sha, strlen(v[i]), (const uint8_t *)v[i]);
	}
	sha256_update(&c->sha, 1, (const uint8_t *)"\n");
	return 0;
}

/* SHA-256 over every table of st, hex into out. */
static int checksum(struct store *st, char out[SHA256_DIGEST_SIZE * 2 + 1], struct kerr *err)
{
	struct sum_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE];
	int t, i;

	sha256_init(&c.sha);
	for (t = 0; t < STORE_TABLES; t++) {
		c.types = store_tables[t].types;
		sha256_update(&c.sha, strlen(store_tables[t].name),
			      (const uint8_t *)store_tables[t].name);
		if (store_dump(st, (enum store_table)t, 0, 0, sum_row, &c, err))
			return -1;
	}
	sha256_digest(&c.sha, sizeof(d), d);
	for (i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
	return 0;
}

int store_copy(const char *from, const char *to, int64_t chunk, FILE *progress,
	       struct store_copy_result *res, struct kerr *err)
{
	struct store *src, *dst = NULL;
	int64_t src_newest, after, copied, last, total, had;
	char shown[512], sum_src[65], sum_dst[65];
	int t, rc = -1;

	memset(res, 0, sizeof(*res));
	src = store_open(from, STORE_READONLY, err);
	if (!src)
		return -1;
	dst = store_open(to, STORE_MIGRATE, err);
	if (!dst)
		goto out;
	if (newest_id(src, &src_newest, err) || newest_id(dst, &after, err))
		goto out;
	if (after > src_newest) {
		kerr_set(err, KERR_INVALID, "%s holds run %lld, newer than any in %s: copy into an empty "
			 "database (or one an interrupted copy of the same source left)",
			 store_shown(to, shown, sizeof(shown)), (long long)after, from);
		goto out;
	}
	total = store_count(src, T_RUNS, err);
	had = total < 0 ? -1 : store_count(dst, T_RUNS, err);
	if (had < 0)
		goto out;
	/* the small tables whole (rows already there are kept), then the runs */
	for (t = 0; t < T_RUNS; t++)
		if (copy_some(src, dst, (enum store_table)t, 0, 0, &last, err) < 0)
			goto out;
	if (progress && after)
		fprintf(progress, "karted copy: resuming after run %lld\n", (long long)after);
	for (;;) {
		copied = copy_some(src, dst, T_RUNS, after, chunk, &last, err);
		if (copied < 0)
			goto out;
		if (copied == 0)
			break;
		res->runs_copied += copied;
		after = last;
		if (progress) {	/* counted on, not counted again per chunk */
			int64_t have = had + res->runs_copied;

			fprintf(progress, "karted copy: %lld of %lld runs (%.0f %%)\n", (long long)have,
				(long long)total, total ? 100.0 * (double)have / (double)total : 100.0);
			fflush(progress);
		}
	}
	for (t = 0; t < STORE_TABLES; t++) {
		int64_t a = store_count(src, (enum store_table)t, err);
		int64_t b = a < 0 ? -1 : store_count(dst, (enum store_table)t, err);

		if (b < 0)
			goto out;
		if (a != b) {
			kerr_set(err, KERR_INTERNAL, "after the copy %s has %lld rows in %s but %s has %lld", from,
				 (long long)a, store_tables[t].name, store_shown(to, shown, sizeof(shown)),
				 (long long)b);
			goto out;
		}
		res->rows[t] = a;
	}
	if (checksum(src, sum_src, err) || checksum(dst, sum_dst, err))
		goto out;
	if (strcmp(sum_src, sum_dst)) {
		kerr_set(err, KERR_INTERNAL, "the copy differs from its source: checksum %s there, %s here",
			 sum_src, sum_dst);
		goto out;
	}
	memcpy(res->checksum, sum_src, sizeof(res->checksum));
	rc = 0;
out:
	store_close(dst);
	store_close(src);
	return rc;
}
