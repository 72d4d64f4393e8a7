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

static int get_metrics(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	const struct writer_stats *ws = writer_stats(k->writer);
	struct http_metrics m;
	struct webhook_stats hs = {0};
	uint64_t cum = 0;
	char *text = NULL;
	size_t len = 0, b;
	int c;
	FILE *f = open_memstream(&text, &len);

	req_http_metrics(rq, &m);
	if (k->watch.hook)
		webhook_stats(k->watch.hook, &hs);
	fputs("# HELP karte_http_requests_total HTTP requests answered, by status class.\n"
	      "# TYPE karte_http_requests_total counter\n", f);
	for (c = 1; c <= 5; c++) {
		fprintf(f, "karte_http_requests_total{code=\"%dxx\"} %llu\n", c,
			(unsigned long long)m.by_class[c]);
	}
	fputs("# HELP karte_http_request_duration_seconds From a request's headers read to its "
	      "answer queued.\n# TYPE karte_http_request_duration_seconds histogram\n", f);
	for (b = 0; b < HTTP_LATENCY_BUCKETS; b++) {
		cum += m.latency[b];
		fprintf(f, "karte_http_request_duration_seconds_bucket{le=\"%g\"} %llu\n",
			http_latency_le[b], (unsigned long long)cum);
	}
	cum += m.latency[HTTP_LATENCY_BUCKETS];
	fprintf(f, "karte_http_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n"
		"karte_http_request_duration_seconds_sum %.9g\n"
		"karte_http_request_duration_seconds_count %llu\n",
		(unsigned long long)cum, m.latency_sum, (unsigned long long)cum);
	fprintf(f, "# HELP karte_http_requests_in_progress Requests between headers and answer.\n"
		"# TYPE karte_http_requests_in_progress gauge\nkarte_http_requests_in_progress %d\n"
		"# HELP karte_analysis_queue_depth Analyses and reports waiting for a worker.\n"
		"# TYPE karte_analysis_queue_depth gauge\nkarte_analysis_queue_depth %u\n"
		"# HELP karte_read_queue_depth Of those, by lane: quick reads, or slow work.\n"
		"# TYPE karte_read_queue_depth gauge\nkarte_read_queue_depth{lane=\"quick\"} %u\n"
		"karte_read_queue_depth{lane=\"slow\"} %u\n"
		"# HELP karte_reads_moved_total Reads sent from the quick lane to the slow one.\n"
		"# TYPE karte_reads_moved_total counter\nkarte_reads_moved_total %llu\n"
		"# HELP karte_reads_stopped_total Reads stopped: past the read deadline, or their client left.\n"
		"# TYPE karte_reads_stopped_total counter\n"
		"karte_reads_stopped_total{reason=\"deadline\"} %llu\n"
		"karte_reads_stopped_total{reason=\"hung_up\"} %llu\n"
		"# HELP karte_write_queue_depth Writes waiting for the writer.\n"
		"# TYPE karte_write_queue_depth gauge\nkarte_write_queue_depth %llu\n"
		"# HELP karte_runs_stored_total Runs this karted stored (repeats not counted).\n"
		"# TYPE karte_runs_stored_total counter\nkarte_runs_stored_total %llu\n"
		"# HELP karte_write_commits_total Write transactions committed.\n"
		"# TYPE karte_write_commits_total counter\nkarte_write_commits_total %llu\n"
		"# HELP karte_runs_checked_total Runs held against their baseline on ingest.\n"
		"# TYPE karte_runs_checked_total counter\nkarte_runs_checked_total %llu\n"
		"# HELP karte_alerts_total Regression alerts this karted made.\n"
		"# TYPE karte_alerts_total counter\nkarte_alerts_total %llu\n"
		"# HELP karte_alert_webhook_total Alerts to the webhook, by outcome.\n"
		"# TYPE karte_alert_webhook_total counter\n"
		"karte_alert_webhook_total{outcome=\"sent\"} %llu\n"
		"karte_alert_webhook_total{outcome=\"failed\"} %llu\n"
		"karte_alert_webhook_total{outcome=\"dropped\"} %llu\n"
		"# HELP karte_alert_webhook_retries_total Attempts repeated after a failure.\n"
		"# TYPE karte_alert_webhook_retries_total counter\n"
		"karte_alert_webhook_retries_total %llu\n"
		"# HELP karte_alert_webhook_queue_depth Alerts waiting for the webhook.\n"
		"# TYPE karte_alert_webhook_queue_depth gauge\nkarte_alert_webhook_queue_depth %llu\n"
		"# HELP karte_token_lookups_total Bearer tokens looked up in the store (not those "
		"seen within the last second).\n"
		"# TYPE karte_token_lookups_total counter\nkarte_token_lookups_total %llu\n",
		m.active, m.slow_queued, m.quick_queued, m.slow_queued - m.quick_queued,
		(unsigned long long)m.moved, (unsigned long long)m.cancelled_deadline,
		(unsigned long long)m.cancelled_hung_up, (unsigned long long)ws->queued,
		(unsigned long long)ws->runs, (unsigned long long)ws->commits,
		(unsigned long long)atomic_load(&k->watch.checked),
		(unsigned long long)atomic_load(&k->watch.alerts), (unsigned long long)hs.sent,
		(unsigned long long)hs.failed, (unsigned long long)hs.dropped,
		(unsigned long long)hs.retries, (unsigned long long)hs.queued,
		(unsigned long long)k->token_queries);
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
