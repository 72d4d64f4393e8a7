#include "checkpointer.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "store.h"
#include "core/xalloc.h"
#include "core/klog.h"
#include "core/mono.h"

struct checkpointer {
	struct store *st;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stopping;
};

static void *checkpointer_main(void *arg)
{
	struct checkpointer *c = arg;
	struct timespec until;
	struct kerr err;
	int pages = 0;

	pthread_mutex_lock(&c->lock);
	while (!c->stopping) {
		until = clock_in(CLOCK_REALTIME, CHECKPOINT_EVERY_NS);
		pthread_cond_timedwait(&c->wake, &c->lock, &until);
		if (c->stopping)
			break;
		pthread_mutex_unlock(&c->lock);
		kerr_clear(&err);
		if (store_checkpoint(c->st, pages > CHECKPOINT_TRUNCATE_PAGES, &pages, &err))
			klog(KLOG_WARNING, "%s", KERR_TEXT(&err));
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct checkpointer *checkpointer_start(const char *db_path, struct kerr *err)
{
	struct checkpointer *c = xcalloc(1, sizeof(*c));

	c->st = store_open(db_path, 0, err);
	if (!c->st) {
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	if (pthread_create(&c->thread, NULL, checkpointer_main, c)) {
		kerr_set(err, KERR_INTERNAL, "cannot start the checkpoint thread: %s", "pthread_create failed");
		store_close(c->st);
		free(c);
		return NULL;
	}
	pthread_setname_np(c->thread, "karted-ckpt");
	return c;
}

void checkpointer_stop(struct checkpointer *c)
{
	struct kerr err;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stopping = true;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	kerr_clear(&err);
	store_checkpoint(c->st, true, NULL, &err);
	store_close(c->st);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->wake);
	free(c);
}
