/*
 * writer: group commit on karted's one writing connection, in a thread of
 * its own. The event loop queues each job as soon as its request is parsed;
 * whenever the thread is free it takes every job queued so far, runs them
 * in one transaction and commits once; then the loop calls each job's
 * done(), which sends the answer. So an acknowledged run is committed (in
 * the WAL) before the client hears of it, the loop parses the next requests
 * while a batch commits, and the batch grows with the load. If a
 * transaction fails, each of its jobs is retried in a transaction of its
 * own.
 */
#ifndef KARTE_WRITER_H
#define KARTE_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kerr.h"
#include "core/run.h"
#include "store.h"

enum wjob_kind { WJOB_RUNS, WJOB_DELETE, WJOB_PVT, WJOB_CALL };

struct wjob {
	enum wjob_kind kind;
	struct run_batch batch;	/* WJOB_RUNS: in, owned by the job's creator */
	int64_t *ids;		/* WJOB_RUNS: out, batch.count ids, in room the creator
				 * gives and frees (memory stays with the loop thread) */
	size_t fresh;		/* WJOB_RUNS: out, how many were new (not idempotent repeats) */
	const char *import_hash; /* WJOB_RUNS of an import, or NULL: a repeat of that hash
				  * answers the first import's ids and stores nothing */
	unsigned char *verdicts; /* WJOB_RUNS, NULL or room for batch.count from the creator:
				  * each run's WJOB_* mark below, then the after hook's */
	char *alerts;		/* WJOB_RUNS: out, the after hook's alerts as a JSON array
				 * text, or NULL (the creator frees it) */
	int64_t id;		/* WJOB_DELETE: in */
	bool deleted;		/* WJOB_DELETE: out */
	char *pvt_system;	/* WJOB_PVT: in, the table of this system ... */
	struct pvt_row *pvt;	/* ... replaced by these rows (creator frees both) */
	size_t npvt;
	int (*call)(struct store *st, struct wjob *job); /* WJOB_CALL: run in the transaction,
							 * 0 or -1 with job->err */
	void *arg;		/* WJOB_CALL: the call's, the creator's */
	int rc;			/* out: 0 or -1 with err */
	struct kerr err;
	void (*done)(struct wjob *job); /* called after the commit; may free the job */
	bool done_in_writer;	/* done() on the writer thread at once, not on the loop's
				 * next turn: for a worker that waits (it must be
				 * thread-safe; the loop may be stopped by then) */
	struct wjob *next;	/* queue link, the writer's */
};

/* verdicts[i]: WJOB_NEW for a run stored by this job, WJOB_REPEAT for an
 * idempotent repeat; the after hook may replace WJOB_NEW with its own
 * verdict (any other value). */
enum { WJOB_NEW = 0, WJOB_REPEAT = 1 };

struct writer;

/* Call after(st, jobs, ctx) on the writer thread after each batch is
 * committed and before its jobs are answered (their rc tells which were
 * stored), and once with jobs NULL before the first batch begins (to
 * learn the store's state before anything is written). Set once, before
 * the first job is submitted. */
void writer_after(struct writer *w, void (*after)(struct store *st, struct wjob *jobs, void *ctx),
		  void *ctx);

struct writer_stats {
	uint64_t commits;	/* batches committed (or tried) */
	uint64_t jobs;		/* requests they carried */
	uint64_t busy_ns;	/* time the writer spent running them */
	uint64_t runs;		/* new runs stored (repeats not counted) */
	uint64_t queued;	/* jobs waiting for the writer now */
};

/* A commit delay: when commits are slow (PostgreSQL, an fsync per commit),
 * the jobs of a batch come back as new requests soon after their answers,
 * a little too late for the next batch, and every client waits two commits
 * per request. So before a commit the writer may wait, with jobs queued,
 * until as many are queued as the last batch carried, for at most a
 * quarter of a batch's typical time (smoothed over the last few) and
 * WRITER_GATHER_MAX_NS; not at all while batches typically take less than
 * WRITER_GATHER_MIN_NS (SQLite without fsync: a wait would cost more than
 * it gathers) or when enough are queued. */
#define WRITER_GATHER_MIN_NS 400000u
#define WRITER_GATHER_MAX_NS 500000u

/* How often the writer looks whether SQLite's staged runs make a chunk to
 * move, and whether the WAL can be started again (store_merge): after a
 * batch at most this often (at once while a move goes on in slices), and
 * once this long after the last batch when idle. A quarter second keeps
 * the WAL under journal_size_limit, so starting it again truncates
 * nothing (a truncation of 200 MB held a batch 24-46 ms). */
#define WRITER_MERGE_EVERY_S 0.25

/* The longest wait (ns) before committing queued jobs, after a batch of
 * last_jobs, when batches typically take typical_ns. */
uint64_t writer_gather_ns(uint64_t typical_ns, uint64_t last_jobs, uint64_t queued);

/* Whether batches typically take less than WRITER_GATHER_MIN_NS (any
 * thread, no lock): then answers come soon after a request, and the event
 * loop may wait awake for them. */
bool writer_commits_short(const struct writer *w);

/* Counters since start, for /api/v1/health. */
const struct writer_stats *writer_stats(const struct writer *w);

/* Start the writer thread on st; the writer owns st from now on and
 * closes it in writer_close. NULL with err on failure. */
struct writer *writer_open(struct store *st, struct kerr *err);

/* An eventfd that becomes readable when a batch is committed while the
 * loop sleeps (see writer_loop_sleeps): poll it, and read it once it was
 * readable, to reset it. */
int writer_fd(const struct writer *w);

/* Whether committed jobs wait for writer_turn (any thread, no lock). */
bool writer_has_done(struct writer *w);

/* The loop tells before it sleeps (true) and after (false); while it
 * sleeps, every commit writes writer_fd. Look at writer_has_done after
 * saying true. */
void writer_loop_sleeps(struct writer *w, bool sleeps);

/* Queue a job (event loop thread). */
void writer_submit(struct writer *w, struct wjob *job);

/* Once per loop turn: call done() of every job committed since the last
 * turn. Returns how many jobs were answered; *waiting tells whether jobs
 * are still queued or in flight. */
size_t writer_turn(struct writer *w, bool *waiting);

/* Answer everything queued or in flight, stop the thread, close the store.
 * Accepts NULL. */
void writer_close(struct writer *w);

/* Run the chain of jobs in one transaction on st (what a flush does; also
 * used by the tests). Every job gets rc/err set; done() is not called. */
void writer_run_batch(struct store *st, struct wjob *jobs);

#endif
