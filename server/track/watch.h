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

/* Points whose windows the writer keeps; also the most points a batch
 * reads at once (one store_points_before). */
#define WATCH_CACHE STORE_POINTS_MAX

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
	struct window *cache;		/* WATCH_CACHE windows, the writer thread's */
	struct nametab thr;		/* series' thresholds, WATCH_THRESHOLDS slots (.cap 0 until the first) */
	unsigned evict, batch, part;
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
