/*
 * pool: the read-only store connections the handlers' reads take, one per
 * request that needs one; a connection taken on a worker is stopped with
 * its request (when the client hangs up or the read's time is up).
 */
#ifndef KARTE_POOL_H
#define KARTE_POOL_H

#include "store/store.h"

struct pool;

/* Reader pool: `size` read-only connections to path, each statement of
 * which stops after timeout_s (0: none; store_statement_timeout). A
 * connection taken on a worker is stopped with its request (req_on_cancel):
 * when the client hangs up or the read's time is up. */
struct pool *pool_open(const char *path, unsigned size, double timeout_s, struct kerr *err);
struct store *pool_get(struct pool *p);	/* blocks until one is free */
void pool_put(struct pool *p, struct store *st);
void pool_close(struct pool *p);

#endif
