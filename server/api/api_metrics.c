/*
 * GET /metrics: karted's own counters for Prometheus, in its text
 * exposition format 0.0.4: requests by class and latency, the read lanes,
 * the writer, regressions checked and alerts made, the webhook, tokens
 * looked up.
 */
#include <stdatomic.h>
#include <stdio.h>

#include "karted.h"
#include "track/webhook.h"
#include "core/version.h"
#include "store/store.h"

/* A metric family's HELP and TYPE lines. */
static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One sample: name{labels} value (labels "" for none). */
static void sample(FILE *f, const char *name, const char *labels, unsigned long long v)
{
	fprintf(f, "%s%s%s%s %llu\n", name, *labels ? "{" : "", labels, *labels ? "}" : "", v);
}

static void http_metrics(FILE *f, const struct http_metrics *m)
{
	char le[48];
	uint64_t cum = 0;
	size_t b;
	int c;

	family(f, "karte_http_requests_total", "counter", "HTTP requests answered, by status class.");
	for (c = 1; c <= 5; c++) {
		snprintf(le, sizeof(le), "code=\"%dxx\"", c);
		sample(f, "karte_http_requests_total", le, m->by_class[c]);
	}
	family(f, "karte_http_request_duration_seconds", "histogram",
	       "From a request's headers read to its answer queued.");
	for (b = 0; b < HTTP_LATENCY_BUCKETS; b++) {
		cum += m->latency[b];
		snprintf(le, sizeof(le), "le=\"%g\"", http_latency_le[b]);
		sample(f, "karte_http_request_duration_seconds_bucket", le, cum);
	}
	cum += m->latency[HTTP_LATENCY_BUCKETS];
	sample(f, "karte_http_request_duration_seconds_bucket", "le=\"+Inf\"", cum);
	fprintf(f, "karte_http_request_duration_seconds_sum %.9g\n", m->latency_sum);
	sample(f, "karte_http_request_duration_seconds_count", "", cum);
	family(f, "karte_http_requests_in_progress", "gauge", "Requests between headers and answer.");
	sample(f, "karte_http_requests_in_progress", "", (unsigned long long)m->active);
}

static void queue_metrics(FILE *f, const struct http_metrics *m, const struct writer_stats *ws)
{
	family(f, "karte_analysis_queue_depth", "gauge", "Analyses and reports waiting for a worker.");
	sample(f, "karte_analysis_queue_depth", "", m->slow_queued);
	family(f, "karte_read_queue_depth", "gauge", "Of those, by lane: quick reads, or slow work (writes' lane included).");
	sample(f, "karte_read_queue_depth", "lane=\"quick\"", m->quick_queued);
	sample(f, "karte_read_queue_depth", "lane=\"slow\"", m->slow_queued - m->quick_queued);
	family(f, "karte_reads_moved_total", "counter", "Reads sent from the quick lane to the slow one.");
	sample(f, "karte_reads_moved_total", "", m->moved);
	family(f, "karte_slow_lane_client_share_total", "counter",
	       "Slow-lane requests refused because their client (an address, or a token) held half of it.");
	sample(f, "karte_slow_lane_client_share_total", "", m->client_share);
	family(f, "karte_reads_stopped_total", "counter",
	       "Reads stopped: past the read deadline, or their client left.");
	sample(f, "karte_reads_stopped_total", "reason=\"deadline\"", m->cancelled_deadline);
	sample(f, "karte_reads_stopped_total", "reason=\"hung_up\"", m->cancelled_hung_up);
	family(f, "karte_write_queue_depth", "gauge", "Writes waiting for the writer.");
	sample(f, "karte_write_queue_depth", "", ws->queued);
	family(f, "karte_runs_stored_total", "counter", "Runs this karted stored (repeats not counted).");
	sample(f, "karte_runs_stored_total", "", ws->runs);
	family(f, "karte_write_commits_total", "counter", "Write transactions committed.");
	sample(f, "karte_write_commits_total", "", ws->commits);
}

static void watch_metrics(FILE *f, struct karted *k)
{
	struct webhook_stats hs = {0};

	if (k->watch.hook)
		webhook_stats(k->watch.hook, &hs);
	family(f, "karte_runs_checked_total", "counter", "Runs held against their baseline on ingest.");
	sample(f, "karte_runs_checked_total", "", atomic_load(&k->watch.checked));
	family(f, "karte_alerts_total", "counter", "Regression alerts this karted made.");
	sample(f, "karte_alerts_total", "", atomic_load(&k->watch.alerts));
	family(f, "karte_check_windows", "gauge",
	       "Points whose earlier runs the check keeps in memory (--check-memory).");
	sample(f, "karte_check_windows", "", atomic_load(&k->watch.kept));
	family(f, "karte_check_window_bytes", "gauge", "The memory they take.");
	sample(f, "karte_check_window_bytes", "", atomic_load(&k->watch.kept_bytes));
	family(f, "karte_check_window_reads_total", "counter",
	       "Points whose earlier runs the check read from the store.");
	sample(f, "karte_check_window_reads_total", "", atomic_load(&k->watch.reads));
	family(f, "karte_check_windows_begun_total", "counter",
	       "Windows begun empty without a read: new points of a series whose every run the "
	       "check has met since its first.");
	sample(f, "karte_check_windows_begun_total", "", atomic_load(&k->watch.begun));
	family(f, "karte_check_window_drops_total", "counter",
	       "Windows let go of: one at a time for the budget, or all at once (a delete, "
	       "new thresholds, an import, another connection's write on SQLite).");
	sample(f, "karte_check_window_drops_total", "reason=\"budget\"", atomic_load(&k->watch.evicted));
	sample(f, "karte_check_window_drops_total", "reason=\"reset\"", atomic_load(&k->watch.resets));
	family(f, "karte_alert_webhook_total", "counter", "Alerts to the webhook, by outcome.");
	sample(f, "karte_alert_webhook_total", "outcome=\"sent\"", hs.sent);
	sample(f, "karte_alert_webhook_total", "outcome=\"failed\"", hs.failed);
	sample(f, "karte_alert_webhook_total", "outcome=\"dropped\"", hs.dropped);
	family(f, "karte_alert_webhook_retries_total", "counter", "Attempts repeated after a failure.");
	sample(f, "karte_alert_webhook_retries_total", "", hs.retries);
	family(f, "karte_alert_webhook_queue_depth", "gauge", "Alerts waiting for the webhook.");
	sample(f, "karte_alert_webhook_queue_depth", "", hs.queued);
	family(f, "karte_token_lookups_total", "counter",
	       "Bearer tokens looked up in the store (not those seen within the last second).");
	sample(f, "karte_token_lookups_total", "", k->token_queries);
}

static int get_metrics(void *app, struct req *rq, struct resp *rs)
{
	struct http_metrics m;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		resp_errorf(rs, 503, "out of memory; try again");
		return 0;
	}
	req_http_metrics(rq, &m);
	family(f, "karte_build_info", "gauge", "The karted that answers: its version and schema, always 1.");
	fprintf(f, "karte_build_info{version=\"%s\",schema=\"%d\"} 1\n", KARTE_VERSION, store_schema_latest());
	http_metrics(f, &m);
	queue_metrics(f, &m, writer_stats(((struct karted *)app)->writer));
	watch_metrics(f, app);
	fclose(f);
	rs->status = 200;
	rs->body = text;
	rs->len = len;
	rs->content_type = "text/plain; version=0.0.4; charset=utf-8";
	return 0;
}

const struct route api_metric_routes[] = {
	{"GET", "/metrics", 0, get_metrics, NULL},
	{NULL, NULL, 0, NULL, NULL},
};
