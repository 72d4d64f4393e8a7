/*
 * webhook: alerts POSTed as JSON to one URL (karted serve --alert-webhook)
 * by libcurl from a thread of its own. webhook_send only queues (bounded;
 * beyond it an alert is dropped and counted), so ingest never waits for the
 * receiver. Each alert is tried up to WEBHOOK_TRIES times, waiting
 * WEBHOOK_BACKOFF_MS, then twice as long each time; a 2xx answer is
 * success.
 */
#ifndef KARTE_WEBHOOK_H
#define KARTE_WEBHOOK_H

#include <stdint.h>

#include <jansson.h>

#include "core/kerr.h"

#define WEBHOOK_QUEUE 1000	/* alerts waiting at most */
#define WEBHOOK_TRIES 5		/* attempts per alert */
#define WEBHOOK_BACKOFF_MS 500	/* the first wait; 0.5, 1, 2, 4 s */
#define WEBHOOK_TIMEOUT_S 10	/* one attempt, connecting included */

struct webhook;

struct webhook_stats {
	uint64_t sent, retries, failed, dropped, queued;
};

/* Check url (http:// or https://) and start the thread; NULL with err. */
struct webhook *webhook_open(const char *url, struct kerr *err);

/* Queue alert (a JSON object, copied as text); any thread. */
void webhook_send(struct webhook *h, const json_t *alert);

void webhook_stats(struct webhook *h, struct webhook_stats *out);

/* Stop the thread (an attempt in flight ends within its timeout; what is
 * still queued is dropped and counted). Accepts NULL. */
void webhook_close(struct webhook *h);

#endif
