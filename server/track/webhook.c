/* webhook: alerts to one URL through libcurl, from a thread (webhook.h). */
#include "webhook.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "core/run.h"
#include "core/version.h"
#include "core/xalloc.h"
#include "core/jsonw.h"
#include "core/klog.h"
#include "core/mono.h"

struct item {
	char *body;
	struct item *next;
};

struct webhook {
	char *url;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct item *head, *tail;	/* under lock */
	size_t count;
	bool stopping;
	struct webhook_stats stats;	/* under lock */
};

/* The answer is not wanted: count it away. */
static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

/* One attempt: true on a 2xx answer. */
static bool post(CURL *c, struct curl_slist *headers, const char *url, const char *body,
		 char why[CURL_ERROR_SIZE])
{
	long status = 0;
	CURLcode rc;

	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)WEBHOOK_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, why);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "karted/" KARTE_VERSION);
	why[0] = '\0';
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK && !why[0])
		snprintf(why, CURL_ERROR_SIZE, "%s", curl_easy_strerror(rc));
	else if (rc == CURLE_OK && (status < 200 || status > 299))
		snprintf(why, CURL_ERROR_SIZE, "HTTP %ld", status);
	return rc == CURLE_OK && status >= 200 && status <= 299;
}

/* Wait ms unless stopping (under lock); true when stopping. */
static bool wait_ms(struct webhook *h, long ms)
{
	struct timespec until;

	until = clock_in(CLOCK_REALTIME, (int64_t)ms * 1000000);
	while (!h->stopping && pthread_cond_timedwait(&h->cond, &h->lock, &until) != ETIMEDOUT)
		;
	return h->stopping;
}

static void *webhook_main(void *arg)
{
	struct webhook *h = arg;
	struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
	CURL *c = curl_easy_init();
	char why[CURL_ERROR_SIZE];
	struct item *it;
	int tries;
	long wait;
	bool ok;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		while (!h->head && !h->stopping)
			pthread_cond_wait(&h->cond, &h->lock);
		if (h->stopping)
			break;
		it = h->head;	/* stays queued (and counted) until it is done */
		ok = false;
		for (tries = 0, wait = WEBHOOK_BACKOFF_MS; tries < WEBHOOK_TRIES; tries++, wait *= 2) {
			if (tries) {
				h->stats.retries++;
				if (wait_ms(h, wait))
					break;
			}
			pthread_mutex_unlock(&h->lock);
			ok = c && post(c, headers, h->url, it->body, why);
			pthread_mutex_lock(&h->lock);
			if (ok || h->stopping)
				break;
			klog(KLOG_WARNING, "alert webhook, attempt %d of %d: %s", tries + 1,
				WEBHOOK_TRIES, c ? why : "libcurl did not start");
		}
		if (!ok && h->stopping)
			break;
		h->head = it->next;
		if (!h->head)
			h->tail = NULL;
		h->count--;
		h->stats.queued = h->count;
		if (ok) {
			h->stats.sent++;
			klog(KLOG_DEBUG, "alert webhook: an alert delivered after %d attempt%s", tries + 1,
			     tries ? "s" : "");
		} else {
			h->stats.failed++;
			klog(KLOG_ERROR, "alert webhook: an alert not delivered after %d attempts", WEBHOOK_TRIES);
		}
		free(it->body);
		free(it);
	}
	pthread_mutex_unlock(&h->lock);
	curl_slist_free_all(headers);
	curl_easy_cleanup(c);
	return NULL;
}

struct webhook *webhook_open(const char *url, struct kerr *err)
{
	struct webhook *h;

	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		kerr_set(err, KERR_INVALID, "--alert-webhook takes an http:// or https:// URL (got '%.200s')",
			 url);
		return NULL;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		kerr_set(err, KERR_INTERNAL, "libcurl did not start");
		return NULL;
	}
	h = xcalloc(1, sizeof(*h));
	h->url = xstrdup(url);
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	if (pthread_create(&h->thread, NULL, webhook_main, h)) {
		kerr_set(err, KERR_INTERNAL, "cannot start the webhook thread");
		pthread_mutex_destroy(&h->lock);
		pthread_cond_destroy(&h->cond);
		free(h->url);
		free(h);
		return NULL;
	}
	pthread_setname_np(h->thread, "karted-webhook");
	return h;
}

void webhook_send(struct webhook *h, const json_t *alert)
{
	struct item *it = xcalloc(1, sizeof(*it));

	/* serialised outside the lock; the bound checked and the item queued
	 * under one hold of it, so senders together never pass the bound */
	it->body = jsonw_string(alert, NULL);
	pthread_mutex_lock(&h->lock);
	if (h->count >= WEBHOOK_QUEUE || h->stopping) {
		uint64_t dropped = ++h->stats.dropped;

		pthread_mutex_unlock(&h->lock);
		free(it->body);
		free(it);
		/* the first drop, then every 1000th: a flood of alerts is not a flood of log */
		if (dropped % 1000 == 1)
			klog(KLOG_WARNING, "alert webhook queue full (%d): %llu alert%s dropped so far "
			     "(karte_alert_webhook_total{outcome=\"dropped\"})", WEBHOOK_QUEUE,
				(unsigned long long)dropped, dropped == 1 ? "" : "s");
		return;
	}
	if (h->tail)
		h->tail->next = it;
	else
		h->head = it;
	h->tail = it;
	h->stats.queued = ++h->count;
	pthread_mutex_unlock(&h->lock);
	pthread_cond_signal(&h->cond);
}

void webhook_stats(struct webhook *h, struct webhook_stats *out)
{
	pthread_mutex_lock(&h->lock);
	*out = h->stats;
	pthread_mutex_unlock(&h->lock);
}

void webhook_close(struct webhook *h)
{
	struct item *it, *next;

	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stopping = true;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->thread, NULL);
	for (it = h->head; it; it = next) {
		next = it->next;
		free(it->body);
		free(it);
	}
	pthread_mutex_destroy(&h->lock);
	pthread_cond_destroy(&h->cond);
	free(h->url);
	free(h);
	curl_global_cleanup();
}
