#include "writer.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "core/xalloc.h"
#include "core/klog.h"
#include "core/mono.h"

/*
 * Two lists, both under lock, move jobs between the event loop and the
 * writer thread: queue (head..tail) takes each job as soon as its request is
 * parsed, and the thread takes the whole queue whenever it is free, so a
 * batch is whatever arrived while the previous one committed; done
 * (done..done_tail) holds committed jobs until the loop answers them. After
 * a commit the thread sets has_done, and writes wake_fd only when the loop
 * said it sleeps (the loop sets loop_sleeps, then looks at has_done; the
 * thread sets has_done, then looks at loop_sleeps: with sequentially
 * consistent atomics one of them sees the other). The loop resets wake_fd
 * when its poll finds it readable. Both sides make their system calls (the
 * wake-up of the thread, the write of wake_fd) after letting go of the
 * lock, so neither blocks on it for the other's system call.
 */
struct writer {
	struct store *st;
	struct wjob *head, *tail;
	struct wjob *done, *done_tail;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int wake_fd;
	bool stopping, busy;
	uint64_t queued;	/* jobs in head..tail, under lock */
	uint64_t want;		/* gathering: wake the thread at this many queued (0: at the first) */
	atomic_bool has_done;	/* done is not empty */
	atomic_bool loop_sleeps;	/* the loop sleeps in poll: write wake_fd */
	atomic_bool long_commits;	/* batches typically take WRITER_GATHER_MIN_NS or more */
	uint64_t busy_ns, commits;	/* under lock */
	void (*after)(struct store *st, struct wjob *jobs, void *ctx);
	void *after_ctx;
	struct writer_stats stats;	/* loop thread only */
};

const struct writer_stats *writer_stats(const struct writer *w)
{
	return &w->stats;
}

static int do_runs(struct store *st, struct wjob *job)
{
	int64_t first, runs;
	size_t i;
	bool existed;
	int rc;

	job->fresh = 0;
	if (job->import_hash) {
		rc = store_import_find(st, job->import_hash, &first, &runs, &job->err);
		if (rc < 0)
			return -1;
		if (rc == 1) {	/* imported before: its ids, nothing new */
			for (i = 0; i < job->batch.count; i++)
				job->ids[i] = first + (int64_t)(i < (size_t)runs ? i : (size_t)runs - 1);
			return 0;
		}
	}
	for (i = 0; i < job->batch.count; i++) {
		if (store_put_run(st, &job->batch.runs[i], &job->ids[i], &existed, &job->err)) {
			job->err.index = job->batch.count > 1 ? (long)i : -1;
			return -1;
		}
		job->fresh += !existed;
		if (job->verdicts)
			job->verdicts[i] = existed ? WJOB_REPEAT : WJOB_NEW;
	}
	if (job->import_hash && job->batch.count) {
		/* one job's new runs take consecutive ids (the writer is alone) */
		for (i = 1; i < job->batch.count; i++)
			if (job->ids[i] != job->ids[0] + (int64_t)i)
				return kerr_set(&job->err, KERR_INTERNAL, "an import's runs did not get consecutive ids");
		return store_import_put(st, job->import_hash, job->ids[0], (int64_t)job->batch.count,
					&job->err);
	}
	return 0;
}

static int do_job(struct store *st, struct wjob *job)
{
	if (job->kind == WJOB_DELETE)
		return store_delete_run(st, job->id, &job->deleted, &job->err);
	if (job->kind == WJOB_PVT)
		return store_pvt_put(st, job->pvt_system, job->pvt, job->npvt, &job->err);
	if (job->kind == WJOB_CALL)
		return job->call(st, job);
	return do_runs(st, job);
}

/* Run jobs in one transaction; 0, or -1 when any failed (then nothing of
 * them is stored: the transaction is rolled back). */
static int run_together(struct store *st, struct wjob *jobs, struct kerr *err)
{
	struct wjob *j;

	if (store_begin(st, err))
		return -1;
	for (j = jobs; j; j = j->next) {
		j->rc = do_job(st, j);
		if (j->rc) {
			store_rollback(st);
			return -1;
		}
	}
	if (store_commit(st, err)) {
		store_rollback(st);
		return -1;
	}
	return 0;
}

void writer_run_batch(struct store *st, struct wjob *jobs)
{
	struct wjob *j, *next;
	struct kerr err;

	/* Validation happened before a job was queued, so a job fails here only
	 * on a database error. The common case is one transaction for all; if
	 * it fails, each job is retried alone, so a bad one cannot take the
	 * others down with it. */
	kerr_clear(&err);
	for (j = jobs; j; j = j->next)
		kerr_clear(&j->err);
	if (run_together(st, jobs, &err) == 0)
		return;
	for (j = jobs; j; j = next) {
		next = j->next;
		j->next = NULL;
		kerr_clear(&j->err);
		if (run_together(st, j, &err) && !j->err.code) {
			j->rc = -1;
			j->err = err;
		}
		j->next = next;
	}
}

/* Take the jobs whose done() runs on the writer thread out of the chain
 * jobs: into *direct; the rest is returned, *last its last job (NULL for none). */
static struct wjob *split_direct(struct wjob *jobs, struct wjob **direct, struct wjob **last)
{
	struct wjob *keep = NULL, **tail = &keep, *j, *next;

	*direct = NULL;
	*last = NULL;
	for (j = jobs; j; j = next) {
		next = j->next;
		if (j->done_in_writer) {
			j->next = *direct;
			*direct = j;
		} else {
			*tail = j;
			tail = &j->next;
			*last = j;
		}
	}
	*tail = NULL;
	return keep;
}

uint64_t writer_gather_ns(uint64_t typical_ns, uint64_t last_jobs, uint64_t queued)
{
	uint64_t wait = typical_ns / 4;

	if (typical_ns < WRITER_GATHER_MIN_NS || queued >= last_jobs)
		return 0;
	return wait < WRITER_GATHER_MAX_NS ? wait : WRITER_GATHER_MAX_NS;
}

/* With jobs queued and the lock held: wait as writer_gather_ns says, or
 * until want jobs are queued (writer_submit wakes the thread then). */
static void gather(struct writer *w, uint64_t typical_ns, uint64_t last_jobs)
{
	uint64_t ns = writer_gather_ns(typical_ns, last_jobs, w->queued);
	struct timespec until;

	if (!ns)
		return;
	until = clock_in(CLOCK_MONOTONIC, (int64_t)ns);
	w->want = last_jobs;
	while (w->queued < last_jobs && !w->stopping &&
	       pthread_cond_timedwait(&w->cond, &w->lock, &until) == 0)
		;
	w->want = 0;
}

static double thread_cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* SQLite's move of staged runs into the large table (store_merge), on the
 * writer's own connection: between batches, so it never waits for the
 * lock, and no other connection's commit makes the regression check read
 * its windows anew (a move changes no run). Returns whether it moved any
 * (more may be left). */
static bool merge(struct writer *w)
{
	struct kerr err;
	int64_t moved = 0;
	double t0 = mono_s(), c0 = thread_cpu_s();

	kerr_clear(&err);
	if (store_merge(w->st, false, &moved, &err))
		klog(KLOG_WARNING, "%s", KERR_TEXT(&err));
	else if (moved)
		klog(KLOG_DEBUG, "moved %lld runs into runs_base in %.0f ms (%.0f ms of CPU)",
		     (long long)moved, 1e3 * (mono_s() - t0), 1e3 * (thread_cpu_s() - c0));
	return moved > 0;
}

/* Wait (under lock) for jobs or stopping; while runs may wait to be moved
 * (due), only until the next move's time. Returns whether that came. */
static bool wait_jobs(struct writer *w, bool due, double next_merge)
{
	struct timespec until;
	double at;

	while (!w->head && !w->stopping) {
		if (!due) {
			pthread_cond_wait(&w->cond, &w->lock);
			continue;
		}
		at = next_merge - mono_s();
		if (at <= 0)
			return true;
		until = clock_in(CLOCK_MONOTONIC, (int64_t)(at * 1e9));
		pthread_cond_timedwait(&w->cond, &w->lock, &until);
	}
	return false;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct wjob *jobs, *last, *direct, *next;
	struct timespec t0, t1;
	uint64_t one = 1, last_ns = 0, typical_ns = 0, last_jobs = 0;
	double next_merge = 0;
	bool wake, due = false, started = false;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		if (wait_jobs(w, due, next_merge)) {	/* idle, with runs to move */
			pthread_mutex_unlock(&w->lock);
			due = merge(w);	/* idle: the next slice at once (a job waits one at most) */
			next_merge = due ? 0 : mono_s() + WRITER_MERGE_EVERY_S;
			pthread_mutex_lock(&w->lock);
			continue;
		}
		if (!w->head)
			break;
		gather(w, typical_ns, last_jobs);
		last_jobs = w->queued;
		jobs = w->head;
		last = w->tail;
		w->head = w->tail = NULL;
		w->queued = 0;
		w->busy = true;
		pthread_mutex_unlock(&w->lock);

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (w->after && !started) {	/* before the first commit: see writer_after */
			w->after(w->st, NULL, w->after_ctx);
			started = true;
		}
		writer_run_batch(w->st, jobs);
		if (w->after)
			w->after(w->st, jobs, w->after_ctx);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		last_ns = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec));
		/* a batch's time, smoothed: one slow commit (a checkpoint) is no trend */
		typical_ns = typical_ns ? typical_ns - typical_ns / 8 + last_ns / 8 : last_ns;
		atomic_store_explicit(&w->long_commits, typical_ns >= WRITER_GATHER_MIN_NS,
				      memory_order_relaxed);
		jobs = split_direct(jobs, &direct, &last);

		pthread_mutex_lock(&w->lock);
		w->busy_ns += last_ns;
		w->commits++;
		w->busy = false;
		wake = false;
		if (jobs) {
			if (w->done_tail)
				w->done_tail->next = jobs;
			else
				w->done = jobs;
			w->done_tail = last;
			atomic_store(&w->has_done, true);
			wake = atomic_load(&w->loop_sleeps);
		}
		pthread_mutex_unlock(&w->lock);
		/* outside the lock, so the loop never waits on it for a system call */
		if (wake && write(w->wake_fd, &one, sizeof(one)) < 0)
			klog(KLOG_ERROR, "cannot wake the event loop: %s", strerror(errno));
		for (; direct; direct = next) {
			next = direct->next;	/* done() may free the job */
			direct->done(direct);
		}
		due = true;
		if (mono_s() >= next_merge) {	/* after the batch's answers */
			due = merge(w);
			/* a move in slices goes on after the next batch */
			next_merge = due ? 0 : mono_s() + WRITER_MERGE_EVERY_S;
		}
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct writer *writer_open(struct store *st, struct kerr *err)
{
	struct writer *w = xcalloc(1, sizeof(*w));
	pthread_condattr_t ca;

	w->st = st;
	w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->wake_fd < 0) {
		kerr_set(err, KERR_INTERNAL, "cannot create the writer's eventfd: %s", strerror(errno));
		goto fail;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);	/* gather's deadline */
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&w->thread, NULL, writer_main, w)) {
		kerr_set(err, KERR_INTERNAL, "cannot start the writer thread");
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cond);
		close(w->wake_fd);
		goto fail;
	}
	pthread_setname_np(w->thread, "karted-writer");
	return w;
fail:
	free(w);
	return NULL;
}

void writer_after(struct writer *w, void (*after)(struct store *st, struct wjob *jobs, void *ctx),
		  void *ctx)
{
	w->after = after;
	w->after_ctx = ctx;
}

bool writer_commits_short(const struct writer *w)
{
	return !atomic_load_explicit(&w->long_commits, memory_order_relaxed);
}

bool writer_has_done(struct writer *w)
{
	return atomic_load(&w->has_done);
}

void writer_loop_sleeps(struct writer *w, bool sleeps)
{
	atomic_store(&w->loop_sleeps, sleeps);
}

int writer_fd(const struct writer *w)
{
	return w->wake_fd;
}

void writer_submit(struct writer *w, struct wjob *job)
{
	bool idle;

	job->next = NULL;
	pthread_mutex_lock(&w->lock);
	if (w->tail)
		w->tail->next = job;
	else
		w->head = job;
	w->tail = job;
	w->queued++;
	idle = !w->busy && w->queued >= w->want;
	pthread_mutex_unlock(&w->lock);
	/* idle: start a batch now. Signalled after the unlock, so the woken
	 * thread does not block at once on the lock the loop still holds (it
	 * looks at head under the lock, so the wake-up cannot be lost). */
	if (idle)
		pthread_cond_signal(&w->cond);
}

size_t writer_turn(struct writer *w, bool *waiting)
{
	struct wjob *done, *j, *next;
	size_t count = 0;

	pthread_mutex_lock(&w->lock);
	done = w->done;
	w->done = w->done_tail = NULL;
	atomic_store(&w->has_done, false);
	*waiting = w->busy || w->head;
	w->stats.busy_ns = w->busy_ns;
	w->stats.commits = w->commits;
	w->stats.queued = w->queued;
	pthread_mutex_unlock(&w->lock);
	for (j = done; j; j = next) {
		next = j->next;	/* done() may free j */
		j->next = NULL;
		w->stats.jobs++;
		if (j->kind == WJOB_RUNS && !j->rc)
			w->stats.runs += j->fresh;
		j->done(j);
		count++;
	}
	return count;
}

void writer_close(struct writer *w)
{
	bool waiting = true;
	struct pollfd pfd;
	uint64_t n;

	if (!w)
		return;
	writer_loop_sleeps(w, true);	/* every commit from now on writes wake_fd */
	/* answer everything still queued or in flight */
	while (waiting) {
		writer_turn(w, &waiting);
		if (waiting) {
			pfd.fd = w->wake_fd;
			pfd.events = POLLIN;
			if (poll(&pfd, 1, 100) > 0 && read(w->wake_fd, &n, sizeof(n)) < 0)
				n = 0;	/* reset */
		}
	}
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	close(w->wake_fd);
	store_close(w->st);
	free(w);
}
