/* The reader pool (pool.h). */
#include <pthread.h>
#include <stdlib.h>

#include "pool.h"

#include "http/http.h"
#include "core/xalloc.h"

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	struct store **free;	/* stack of idle connections */
	unsigned nfree, size;
};

struct pool *pool_open(const char *path, unsigned size, double timeout_s, struct kerr *err)
{
	struct pool *p = xcalloc(1, sizeof(*p));

	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->freed, NULL);
	p->free = xcalloc(size, sizeof(*p->free));
	for (p->size = 0; p->size < size; p->size++) {
		p->free[p->size] = store_open(path, STORE_READONLY, err);
		if (!p->free[p->size] ||
		    (timeout_s > 0 && store_statement_timeout(p->free[p->size], timeout_s, err))) {
			if (p->free[p->size])
				p->size++;
			p->nfree = p->size;
			pool_close(p);
			return NULL;
		}
	}
	p->nfree = p->size;
	return p;
}

static void interrupt(void *st)
{
	store_interrupt(st);
}

struct store *pool_get(struct pool *p)
{
	struct store *st;

	pthread_mutex_lock(&p->lock);
	while (p->nfree == 0)
		pthread_cond_wait(&p->freed, &p->lock);
	st = p->free[--p->nfree];
	pthread_mutex_unlock(&p->lock);
	/* a worker's read is stopped when its client leaves or its time is up */
	store_interrupt_clear(st);
	req_on_cancel(http_current(), interrupt, st);
	return st;
}

void pool_put(struct pool *p, struct store *st)
{
	req_on_cancel(http_current(), NULL, NULL);
	pthread_mutex_lock(&p->lock);
	p->free[p->nfree++] = st;
	pthread_cond_signal(&p->freed);
	pthread_mutex_unlock(&p->lock);
}

void pool_close(struct pool *p)
{
	unsigned i;

	if (!p)
		return;
	for (i = 0; i < p->nfree; i++)
		store_close(p->free[i]);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->freed);
	free(p->free);
	free(p);
}
