/*
 * writer: the one thread that writes to the database, with group commit.
 * Requests hand it jobs; it takes every job queued so far, runs them in one
 * transaction (each inside its own savepoint, so one failing job does not
 * undo the others), commits once, and only then calls each job's done().
 * An acknowledged job is therefore committed (in the WAL) before the client
 * hears of it.
 */
#ifndef KARTE_WRITER_H
#define KARTE_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "kerr.h"
#include "run.h"
#include "store.h"

enum wjob_kind { WJOB_RUNS, WJOB_DELETE };

struct wjob {
	enum wjob_kind kind;
	struct run_batch batch;	/* WJOB_RUNS: in, owned by the job's creator */
	int64_t *ids;		/* WJOB_RUNS: out, batch.count ids (creator frees) */
	size_t fresh;		/* WJOB_RUNS: out, how many were new (not idempotent repeats) */
	int64_t id;		/* WJOB_DELETE: in */
	bool deleted;		/* WJOB_DELETE: out */
	int rc;			/* out: 0 or -1 with err */
	struct kerr err;
	void (*done)(struct wjob *job); /* called on the writer thread after commit */
	struct wjob *next;	/* queue link, the writer's */
};

struct writer;

/* Start the writer thread on st (the writer owns st from now on and closes
 * it in writer_stop). NULL with err on failure. */
struct writer *writer_start(struct store *st, struct kerr *err);

/* Queue a job; done() is called later from the writer thread. */
void writer_submit(struct writer *w, struct wjob *job);

/* Finish every queued job, stop the thread, close the store. Accepts NULL. */
void writer_stop(struct writer *w);

/* Run one batch of jobs synchronously on st (what the thread does; also
 * used by tests and the bulk path). Every job gets rc/err set. */
void writer_run_batch(struct store *st, struct wjob *jobs);

#endif
