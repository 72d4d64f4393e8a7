/*
 * watch: regressions on ingest. After each batch the writer commits, every
 * run POSTed to /api/v1/runs is held against the earlier runs of its point
 * (analysis/history.c): tau, energy_j and the energy of its regions. Each
 * run gets a verdict, and a run with a regression gets an alert: stored,
 * named in its POST answer and handed to the webhook. Runs on the writer
 * thread, between the commit and the answers.
 */
#ifndef KARTE_WATCH_H
#define KARTE_WATCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "core/nametab.h"
#include "store/store.h"
#include "store/writer.h"

/* Limits (documented in docs/api.md). */
#define WATCH_WINDOW 100	/* earlier runs a baseline takes, the latest */
#define WATCH_REGIONS 32	/* regions of a run whose energy is checked, the first */
#define WATCH_REGIONS_SEEN 64	/* regions of a run kept in a window, the first */
#define WATCH_REGION_NAMES 64	/* region names a point's window follows, the first met */
#define WATCH_REGIONS_TEXT 65536	/* longer regions text: tau and energy_j only */

/* verdicts[i] of a checked run: WATCH_OK + enum ka_verdict. */
#define WATCH_OK 2

/* The most points a batch reads at once (one store_points_before): a
 * batch is checked in parts of at most this many points. */
#define WATCH_CACHE STORE_POINTS_MAX

/* The bytes the windows kept between batches may take by default
 * (--check-memory): about 600 bytes a point with a few runs, 3 KiB at
 * 36, 7 KiB at a full window of 100 runs with one region each. */
#define WATCH_MEMORY_DEFAULT ((size_t)256 << 20)
#define WATCH_MEMORY_MIN ((size_t)1 << 20)
#define WATCH_MEMORY_MAX ((size_t)64 << 30)

/* Series whose thresholds the writer keeps between batches (emptied with
 * the windows, and when three quarters full). */
#define WATCH_THRESHOLDS 16384

struct webhook;
struct window;

struct watch {
	bool enabled;			/* --regression-check on (the default) */
	struct webhook *hook;		/* --alert-webhook, or NULL */
	atomic_uint_fast64_t alerts;	/* made since start */
	atomic_uint_fast64_t checked;	/* runs checked since start */
	size_t budget;			/* --check-memory in bytes (0: WATCH_MEMORY_DEFAULT) */
	/* the windows kept, the writer thread's: every point met since the
	 * last reset while they fit the budget, then the clock's choice */
	struct window **buckets;	/* nbuckets (a power of two), chained by key */
	struct window **all;		/* nall of them, room for nbuckets */
	size_t nbuckets, nall, hand;	/* hand: the clock's, in all */
	size_t bytes;			/* what they take, malloc's headers included */
	/* for /metrics, from other threads */
	atomic_uint_fast64_t evicted;	/* windows let go of for the budget */
	atomic_uint_fast64_t reads;	/* windows read from the store */
	atomic_uint_fast64_t resets;	/* every window let go of (another's write, a delete, ...) */
	atomic_uint_fast64_t kept, kept_bytes;	/* nall and bytes after the last batch */
	atomic_uint_fast64_t begun;	/* windows begun empty without a read (a series' new point) */
	/* series' thresholds and whether each is whole (struct seen),
	 * WATCH_THRESHOLDS slots (.cap 0 until the first) */
	struct nametab thr;
	/* A series is whole while every run it holds was met here since the
	 * batch that stored its first one: a point of it with no window has
	 * no runs, so its window begins empty without a read. Whatever may
	 * break that (another's runs, a window let go of, runs stored
	 * without the check) starts a new generation, and no series is
	 * whole of an older one. */
	uint64_t whole_gen;
	int64_t batch_first;		/* the first id of the batch's runs */
	bool batch_whole;		/* a series new in this batch may be found whole */
	unsigned part;			/* parts checked since start */
	uint64_t epoch;			/* batches in which another connection had added runs */
	int64_t added, changed;		/* store_data_version at the last batch */
	bool version_known;
	bool foreign;			/* another connection may have added runs since */
};

/* Let go of the cached windows (at the end). */
void watch_free(struct watch *wt);

/* The writer's after hook (writer_after) with a struct watch as ctx. */
void watch_batch(struct store *st, struct wjob *jobs, void *ctx);

/* The API's form of alert a; its regressions from regs when given (a
 * borrowed JSON array), else parsed from a->regressions. A new reference. */
json_t *alert_json(const struct store_alert *a, json_t *regs);

/* "ok", "regression", "improvement" for a checked run's verdicts[i], else NULL. */
const char *watch_verdict_name(unsigned char v);

#endif
