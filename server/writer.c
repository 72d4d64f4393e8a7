#include "writer.h"

#include <pthread.h>
#include <stdlib.h>

#include "xalloc.h"

struct writer {
	struct store *st;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct wjob *head, *tail;	/* FIFO of jobs not yet taken */
	bool stopping;
};

static int do_runs(struct store *st, struct wjob *job)
{
	size_t i;
	bool existed;

	job->ids = xcalloc(job->batch.count, sizeof(*job->ids));
	job->fresh = 0;
	for (i = 0; i < job->batch.count; i++) {
		if (store_put_run(st, &job->batch.runs[i], &job->ids[i], &existed, &job->err)) {
			job->err.index = job->batch.count > 1 ? (long)i : -1;
			return -1;
		}
		job->fresh += !existed;
	}
	return 0;
}

static int do_job(struct store *st, struct wjob *job)
{
	if (job->kind == WJOB_DELETE)
		return store_delete_run(st, job->id, &job->deleted, &job->err);
	return do_runs(st, job);
}

void writer_run_batch(struct store *st, struct wjob *jobs)
{
	struct wjob *j;
	struct kerr err;
	bool single = jobs && !jobs->next;

	kerr_clear(&err);
	for (j = jobs; j; j = j->next) {
		kerr_clear(&j->err);
		j->rc = 0;
	}
	if (store_begin(st, &err))
		goto failed;
	for (j = jobs; j; j = j->next) {
		/* A lone job needs no savepoint: the transaction is its own. */
		if (!single && store_mark(st, &j->err)) {
			j->rc = -1;
			continue;
		}
		j->rc = do_job(st, j);
		if (single)
			break;
		if (j->rc)
			store_undo(st);
		else if (store_release(st, &j->err))
			j->rc = -1;
	}
	if (single && jobs->rc) {
		store_rollback(st);
		return;
	}
	if (store_commit(st, &err) == 0)
		return;
	store_rollback(st);
failed:
	for (j = jobs; j; j = j->next) {
		j->rc = -1;
		j->err = err;
	}
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct wjob *jobs, *j, *next;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->head && !w->stopping)
			pthread_cond_wait(&w->wake, &w->lock);
		if (!w->head && w->stopping)
			break;
		jobs = w->head;
		w->head = w->tail = NULL;
		pthread_mutex_unlock(&w->lock);

		writer_run_batch(w->st, jobs);
		for (j = jobs; j; j = next) {
			next = j->next;	/* done() may free j */
			j->next = NULL;
			j->done(j);
		}
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct writer *writer_start(struct store *st, struct kerr *err)
{
	struct writer *w = xcalloc(1, sizeof(*w));

	w->st = st;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	if (pthread_create(&w->thread, NULL, writer_main, w)) {
		kerr_set(err, 500, "cannot start the writer thread");
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->wake);
		free(w);
		return NULL;
	}
	return w;
}

void writer_submit(struct writer *w, struct wjob *job)
{
	job->next = NULL;
	pthread_mutex_lock(&w->lock);
	if (w->tail)
		w->tail->next = job;
	else
		w->head = job;
	w->tail = job;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

void writer_stop(struct writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	store_close(w->st);
	free(w);
}
