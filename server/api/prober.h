/*
 * prober: whether the database answers, asked by a thread of its own
 * every PROBE_EVERY_S on a connection of its own, each ask within
 * PROBE_DEADLINE_S (store_set_deadline). GET /api/v1/health answers from
 * what it last learned and never waits on the database: a database that
 * stalls (accepts and never answers) is a 503 within 2 s, and a 200 again
 * within 2 s of its waking.
 */
#ifndef KARTE_PROBER_H
#define KARTE_PROBER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/kerr.h"

#define PROBE_EVERY_S 0.5	/* between two asks */
#define PROBE_DEADLINE_S 1.0	/* an ask's answer within */
#define PROBE_FRESH_S 2.0	/* an answer older than this says nothing: 503 */

struct prober;

/* Probe the database at path (a file or a postgresql:// URI). NULL with err. */
struct prober *prober_start(const char *path, struct kerr *err);
void prober_stop(struct prober *pr);

/* What the prober knows now: true when the database answered within
 * PROBE_FRESH_S; its backend ("sqlite", "postgresql") and schema version
 * (-1 before the first answer); why not, when not. Any thread. */
bool prober_ok(struct prober *pr, const char **backend, int *schema_version, char *why, size_t size);

#endif
