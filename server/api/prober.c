/* The health probe (prober.h): a thread, its own connection, a deadline. */
#include "prober.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/mono.h"
#include "core/xalloc.h"
#include "store/store.h"

struct prober {
	char *path;
	pthread_t thread;
	pthread_mutex_t lock;	/* what it learned, and stop */
	pthread_cond_t wake;
	bool stop;
	double last_ok;		/* monotonic: the last answer; 0 none yet */
	bool ok;		/* the last ask was answered */
	int schema;		/* -1 before the first answer */
	const char *backend;
	char why[256];
	struct store *st;	/* its own connection (the thread's, after the first ask) */
};

static void learned(struct prober *pr, bool ok, int schema, const char *why)
{
	pthread_mutex_lock(&pr->lock);
	pr->ok = ok;
	if (ok) {
		pr->last_ok = mono_s();
		if (schema >= 0)
			pr->schema = schema;
	} else {
		snprintf(pr->why, sizeof(pr->why), "%s", why);
	}
	pthread_mutex_unlock(&pr->lock);
}

/* One ask (opening the connection first when there is none). */
static void probe_once(struct prober *pr)
{
	struct kerr err;

	kerr_clear(&err);
	if (!pr->st && (pr->st = store_open(pr->path, STORE_READONLY, &err)) != NULL) {
		store_set_deadline(pr->st, PROBE_DEADLINE_S);
		pr->backend = store_backend(pr->st);
	}
	if (!pr->st)
		learned(pr, false, -1, KERR_TEXT(&err));
	else if (store_query(pr->st, "SELECT 1", "", NULL, NULL, NULL, NULL, &err) < 0)
		learned(pr, false, -1, KERR_TEXT(&err));
	else	/* the schema once: it changes only with a migration and a restart */
		learned(pr, true, pr->schema < 0 ? store_schema_version(pr->st) : -1, "");
}

static void *probe_main(void *arg)
{
	struct prober *pr = arg;
	struct timespec until;
	bool stop;

	for (;;) {
		pthread_mutex_lock(&pr->lock);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)(PROBE_EVERY_S * 1e9);
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		while (!pr->stop && pthread_cond_timedwait(&pr->wake, &pr->lock, &until) == 0)
			;
		stop = pr->stop;
		pthread_mutex_unlock(&pr->lock);
		if (stop)
			break;
		probe_once(pr);
	}
	store_close(pr->st);
	return NULL;
}

struct prober *prober_start(const char *path, struct kerr *err)
{
	struct prober *pr = xcalloc(1, sizeof(*pr));

	pr->path = xstrdup(path);
	pr->schema = -1;
	pr->backend = store_is_uri(path) ? "postgresql" : "sqlite";
	snprintf(pr->why, sizeof(pr->why), "not asked yet");
	pthread_mutex_init(&pr->lock, NULL);
	pthread_cond_init(&pr->wake, NULL);
	probe_once(pr);	/* the first before karted serves: health knows at once */
	if (pthread_create(&pr->thread, NULL, probe_main, pr)) {
		kerr_set(err, KERR_INTERNAL, "cannot start the health probe's thread");
		store_close(pr->st);
		pthread_mutex_destroy(&pr->lock);
		pthread_cond_destroy(&pr->wake);
		free(pr->path);
		free(pr);
		return NULL;
	}
	pthread_setname_np(pr->thread, "karted-probe");
	return pr;
}

void prober_stop(struct prober *pr)
{
	if (!pr)
		return;
	pthread_mutex_lock(&pr->lock);
	pr->stop = true;
	pthread_cond_signal(&pr->wake);
	pthread_mutex_unlock(&pr->lock);
	pthread_join(pr->thread, NULL);
	pthread_mutex_destroy(&pr->lock);
	pthread_cond_destroy(&pr->wake);
	free(pr->path);
	free(pr);
}

bool prober_ok(struct prober *pr, const char **backend, int *schema_version, char *why, size_t size)
{
	bool ok;

	pthread_mutex_lock(&pr->lock);
	ok = pr->ok && pr->last_ok > 0 && mono_s() - pr->last_ok < PROBE_FRESH_S;
	*backend = pr->backend;
	*schema_version = pr->schema;
	snprintf(why, size, "%s", pr->ok ? "the database has not answered for over 2 s" : pr->why);
	pthread_mutex_unlock(&pr->lock);
	return ok;
}
