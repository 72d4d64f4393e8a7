/*
 * Unit tests of track/: the regression watcher on a real SQLite file (runs
 * stored by the writer's own batch, then held against the runs before
 * them), and the alert webhook against a receiver on a loopback port.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "analysis/history.h"
#include "store/store.h"
#include "store/writer.h"
#include "track/watch.h"
#include "track/webhook.h"

/* ---- the watcher ---- */

struct fixture {
	char dir[64];
	char path[96];
	struct store *st;
	struct watch wt;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kerr err;

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/karte-test-track-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/k.db", f->dir);
	if (!(f->st = store_open(f->path, STORE_MIGRATE, &err)))
		return -1;
	f->wt.enabled = true;
	watch_batch(f->st, NULL, &f->wt);	/* as the writer does before its first batch */
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	watch_free(&f->wt);
	store_close(f->st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	free(f);
	return system(cmd) ? -1 : 0;
}

/* POST one run of tau (and energy_j when > 0) at (p=4, n=1000) as karted
 * does: stored in a batch, then checked; its verdict. */
static unsigned char post_json(struct fixture *f, const char *json, char **alerts)
{
	struct wjob job = {0};
	struct kerr err;
	int64_t id;
	unsigned char verdict = WJOB_NEW;

	job.kind = WJOB_RUNS;
	if (run_parse_body(json, strlen(json), BODY_JSON, &job.batch, &err))
		fail_msg("%s", err.msg);
	job.ids = &id;
	job.verdicts = &verdict;
	writer_run_batch(f->st, &job);
	assert_int_equal(job.rc, 0);
	watch_batch(f->st, &job, &f->wt);
	run_batch_free(&job.batch);
	if (alerts)
		*alerts = job.alerts;
	else
		free(job.alerts);
	return verdict;
}

static unsigned char post(struct fixture *f, double tau, double energy, char **alerts)
{
	char json[256];

	snprintf(json, sizeof(json), "{\"system\":\"s\",\"application\":\"a\",\"p\":4,\"n\":1000,\"tau\":%.17g%s",
		 tau, energy > 0 ? "" : "}");
	if (energy > 0)
		snprintf(json + strlen(json), sizeof(json) - strlen(json), ",\"energy_j\":%.17g}", energy);
	return post_json(f, json, alerts);
}

/* One run of tau at frequency mhz (and power cap watts when > 0). */
static unsigned char post_at(struct fixture *f, double tau, double mhz, double watts)
{
	char json[256];

	snprintf(json, sizeof(json), "{\"system\":\"s\",\"application\":\"f\",\"p\":1,\"n\":1000,\"tau\":%.17g,"
		 "\"frequency_mhz\":%.17g%s", tau, mhz, watts > 0 ? "" : "}");
	if (watts > 0)
		snprintf(json + strlen(json), sizeof(json) - strlen(json), ",\"power_cap_w\":%.17g}", watts);
	return post_json(f, json, NULL);
}

/* A point of the check is (series, p, n, frequency, cap): five runs at
 * 3000 MHz and one at 1200 MHz, 2.3 times longer as physics says, is no
 * regression; runs at 1200 MHz are judged against 1200 MHz alone, as are
 * those at 3000 MHz among them, and a power cap is a setting of its own. */
static void test_a_frequency_is_its_own_baseline(void **state)
{
	struct fixture *f = *state;
	const double base[5] = {2.0, 2.01, 1.99, 2.0, 2.02};
	int i;

	for (i = 0; i < 5; i++)
		assert_int_equal(post_at(f, base[i], 3000, 0), WATCH_OK + KA_OK);
	assert_int_equal(post_at(f, 4.6, 1200, 0), WATCH_OK + KA_OK);	/* none before at 1200: not judged */
	for (i = 0; i < 5; i++)
		assert_int_equal(post_at(f, 4.6 + 0.01 * i, 1200, 0), WATCH_OK + KA_OK);
	/* against all runs the median would be 4.6 or so and 2.01 an improvement */
	assert_int_equal(post_at(f, 2.01, 3000, 0), WATCH_OK + KA_OK);
	assert_int_equal(post_at(f, 2.5, 3000, 0), WATCH_OK + KA_REGRESSION);
	assert_int_equal(post_at(f, 5.75, 1200, 0), WATCH_OK + KA_REGRESSION);
	assert_int_equal(post_at(f, 4.61, 1200, 0), WATCH_OK + KA_OK);
	/* a cap of 100 W at 3000 MHz: a setting of its own, not judged yet */
	assert_int_equal(post_at(f, 3.0, 3000, 100), WATCH_OK + KA_OK);
	assert_int_equal(post_at(f, 2.0, 3000, 0), WATCH_OK + KA_OK);
}

static int count_alert(const struct store_alert *a, void *ctx)
{
	(void)a;
	(*(int *)ctx)++;
	return 0;
}

/* Five runs at 2 s (min_runs), then 2.5 s: 25 % above the median, beyond
 * 5 % and beyond 3 x 1.4826 MAD: a regression, with an alert stored and
 * named in the answer; 1.5 s is an improvement (no alert), 2.02 s is ok. */
static void test_a_slower_run_is_a_regression(void **state)
{
	struct fixture *f = *state;
	struct alert_filter af = {.acknowledged = -1, .limit = 100};
	const double base[5] = {2.0, 2.01, 1.99, 2.0, 2.02};
	struct kerr err;
	char *alerts;
	int n = 0, i;

	for (i = 0; i < 5; i++)	/* too few before each: ok, not judged */
		assert_int_equal(post(f, base[i], 0, NULL), WATCH_OK + KA_OK);
	assert_int_equal(post(f, 2.5, 0, &alerts), WATCH_OK + KA_REGRESSION);
	assert_non_null(alerts);
	assert_non_null(strstr(alerts, "\"metric\":\"tau\""));
	free(alerts);
	assert_int_equal(atomic_load(&f->wt.alerts), 1);
	assert_int_equal(store_each_alert(f->st, &af, count_alert, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(post(f, 1.5, 0, &alerts), WATCH_OK + KA_IMPROVEMENT);
	assert_null(alerts);
	assert_int_equal(post(f, 2.02, 0, NULL), WATCH_OK + KA_OK);
	assert_int_equal(atomic_load(&f->wt.checked), 8);
	assert_int_equal(atomic_load(&f->wt.alerts), 1);
}

/* Runs written by another connection (another karted) count too: the
 * watcher's cached window is read anew when the store says runs were
 * added since its last batch. */
static void test_runs_of_another_writer_join_the_baseline(void **state)
{
	struct fixture *f = *state;
	struct store *other;
	struct kerr err;
	int i;

	for (i = 0; i < 5; i++)
		post(f, 10.0, 0, NULL);
	/* another connection adds five runs at 20 s: the median moves to 15 */
	other = store_open(f->path, 0, &err);
	assert_non_null(other);
	for (i = 0; i < 5; i++) {
		const char *json = "{\"system\":\"s\",\"application\":\"a\",\"p\":4,\"n\":1000,\"tau\":20}";
		struct wjob job = {0};
		int64_t id;

		job.kind = WJOB_RUNS;
		assert_int_equal(run_parse_body(json, strlen(json), BODY_JSON, &job.batch, &err), 0);
		job.ids = &id;
		writer_run_batch(other, &job);
		assert_int_equal(job.rc, 0);
		run_batch_free(&job.batch);
	}
	store_close(other);
	/* 16 s against the ten: within noise of a median of 15 (MAD 5); against
	 * the five the watcher saw itself it would be a regression */
	assert_int_equal(post(f, 16.0, 0, NULL), WATCH_OK + KA_OK);
}

/* The energy is held against its own baseline: tau steady, energy 30 %
 * up is a regression of energy_j. */
static void test_energy_has_its_own_baseline(void **state)
{
	struct fixture *f = *state;
	char *alerts;
	int i;

	for (i = 0; i < 5; i++)
		post(f, 3.0, 100.0 + i, NULL);
	assert_int_equal(post(f, 3.0, 130.0, &alerts), WATCH_OK + KA_REGRESSION);
	assert_non_null(alerts);
	assert_non_null(strstr(alerts, "\"metric\":\"energy_j\""));
	assert_null(strstr(alerts, "\"metric\":\"tau\""));
	free(alerts);
}

/* One batch of runs at points p = 1..points of tau each, as karted stores
 * and checks a bulk body; the verdict of each (all alike). */
static unsigned char post_points(struct fixture *f, int points, double tau)
{
	size_t cap = (size_t)points * 96 + 1, len = 0;
	char *body = malloc(cap);
	int64_t *ids = calloc((size_t)points, sizeof(*ids));
	unsigned char *verdicts = malloc((size_t)points), first;
	struct wjob job = {0};
	struct kerr err;
	int i;

	assert_non_null(body);
	for (i = 1; i <= points; i++)
		len += (size_t)snprintf(body + len, cap - len,
					"{\"system\":\"s\",\"application\":\"b\",\"p\":%d,\"n\":10,\"tau\":%.17g}\n",
					i, tau);
	memset(verdicts, WJOB_NEW, (size_t)points);
	job.kind = WJOB_RUNS;
	if (run_parse_body(body, len, BODY_NDJSON, &job.batch, &err))
		fail_msg("%s", err.msg);
	job.ids = ids;
	job.verdicts = verdicts;
	writer_run_batch(f->st, &job);
	assert_int_equal(job.rc, 0);
	watch_batch(f->st, &job, &f->wt);
	first = verdicts[0];
	for (i = 1; i < points; i++)	/* every point judged alike */
		assert_int_equal(verdicts[i], first);
	run_batch_free(&job.batch);
	free(job.alerts);
	free(verdicts);
	free(ids);
	free(body);
	return first;
}

/* The windows kept between batches stay within --check-memory: with room
 * for all, every point met is kept (and none read: the series is new);
 * with 1 MiB for 3,000 points of six runs, windows are let go of (the
 * clock's choice) and the total never passes the budget, and a point let
 * go of is read anew when met, so its verdict is the same. */
static void test_windows_stay_within_the_budget(void **state)
{
	struct fixture *f = *state;
	int round;

	for (round = 0; round < 6; round++)
		assert_int_equal(post_points(f, 3000, 2.0), WATCH_OK + KA_OK);
	assert_int_equal(f->wt.nall, 3000);
	assert_int_equal(atomic_load(&f->wt.evicted), 0);
	/* the series was made in the first batch: followed whole, never read */
	assert_int_equal(atomic_load(&f->wt.begun), 3000);
	assert_int_equal(atomic_load(&f->wt.reads), 0);
	assert_true(f->wt.bytes > WATCH_MEMORY_MIN);	/* so that 1 MiB cannot hold them */
	assert_true(f->wt.bytes < WATCH_MEMORY_DEFAULT);

	f->wt.budget = WATCH_MEMORY_MIN;
	for (round = 0; round < 3; round++) {
		assert_int_equal(post_points(f, 3000, 2.0), WATCH_OK + KA_OK);
		assert_true(f->wt.bytes <= WATCH_MEMORY_MIN);
	}
	assert_true(atomic_load(&f->wt.evicted) > 0);
	assert_true(f->wt.nall < 3000);
	/* a window let go of ends the series' being whole: read, not begun */
	assert_true(atomic_load(&f->wt.reads) > 0);
	assert_int_equal(atomic_load(&f->wt.begun), 3000);
	/* nine runs of 2 s at every point, kept or read anew: 2.5 s regresses */
	assert_int_equal(post_points(f, 3000, 2.5), WATCH_OK + KA_REGRESSION);
	assert_int_equal(post_points(f, 3000, 2.0), WATCH_OK + KA_OK);
	assert_true(f->wt.bytes <= WATCH_MEMORY_MIN);
	assert_int_equal(atomic_load(&f->wt.checked), 11 * 3000);
}

/* ---- the webhook ---- */

/* A receiver on a loopback port: answers its first `fail` requests with
 * 500, then 204; keeps the last body. */
struct receiver {
	int fd;
	unsigned port;
	int fail, requests;
	char body[4096];
	pthread_t t;
};

static void *receive(void *arg)
{
	struct receiver *r = arg;
	char buf[8192];
	int c;

	while ((c = accept(r->fd, NULL, NULL)) >= 0) {
		ssize_t len = 0, got;
		char *b;
		const char *ans;

		while ((size_t)len < sizeof(buf) - 1 && (got = read(c, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0) {
			len += got;
			buf[len] = '\0';
			if ((b = strstr(buf, "\r\n\r\n")) && strstr(buf, "Content-Length: ") &&
			    (size_t)(buf + len - (b + 4)) >= strtoul(strstr(buf, "Content-Length: ") + 16, NULL, 10))
				break;
		}
		buf[len] = '\0';
		if ((b = strstr(buf, "\r\n\r\n")))
			snprintf(r->body, sizeof(r->body), "%s", b + 4);
		ans = r->requests++ < r->fail ? "HTTP/1.1 500 Oops\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
					      : "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n";
		if (write(c, ans, strlen(ans)) < 0)
			break;
		close(c);
	}
	return NULL;
}

static void receiver_start(struct receiver *r, int fail)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);

	memset(r, 0, sizeof(*r));
	r->fail = fail;
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	r->fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(r->fd >= 0);
	assert_int_equal(bind(r->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(r->fd, 16), 0);
	getsockname(r->fd, (struct sockaddr *)&a, &len);
	r->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&r->t, NULL, receive, r), 0);
}

static void receiver_stop(struct receiver *r)
{
	shutdown(r->fd, SHUT_RDWR);
	close(r->fd);
	pthread_join(r->t, NULL);
}

/* Wait (at most 10 s) until the hook has sent or failed n. */
static void settle(struct webhook *h, uint64_t n, struct webhook_stats *st)
{
	int i;

	for (i = 0; i < 1000; i++) {
		webhook_stats(h, st);
		if (st->sent + st->failed >= n && st->queued == 0)
			return;
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
}

/* An alert after one 500: tried again after the backoff, sent once, the
 * body as given. */
static void test_webhook_retries_then_delivers(void **state)
{
	struct receiver r;
	struct webhook_stats st;
	struct webhook *h;
	struct kerr err;
	char url[64];
	json_t *alert = json_pack("{s:I,s:s}", "id", (json_int_t)7, "metric", "tau"), *got;

	(void)state;
	receiver_start(&r, 1);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/hook", r.port);
	h = webhook_open(url, &err);
	assert_non_null(h);
	webhook_send(h, alert);
	settle(h, 1, &st);
	assert_int_equal(st.sent, 1);
	assert_int_equal(st.retries, 1);
	assert_int_equal(st.failed, 0);
	assert_int_equal(r.requests, 2);
	got = json_loads(r.body, 0, NULL);
	assert_true(json_equal(got, alert));
	json_decref(got);
	json_decref(alert);
	webhook_close(h);
	receiver_stop(&r);
}

/* Only http:// and https:// URLs are taken. */
static void test_webhook_url_is_checked(void **state)
{
	struct kerr err;

	(void)state;
	assert_null(webhook_open("ftp://127.0.0.1/x", &err));
	assert_non_null(strstr(err.msg, "http"));
	assert_null(webhook_open("not a url", &err));
}

/* Beyond WEBHOOK_QUEUE waiting, alerts are dropped and counted, never
 * waited for; closing drops what is still queued. */
static void test_webhook_queue_is_bounded(void **state)
{
	struct receiver r;
	struct webhook_stats st;
	struct webhook *h;
	struct kerr err;
	char url[64];
	json_t *alert = json_pack("{s:s}", "metric", "tau");
	int i;

	(void)state;
	receiver_start(&r, 1000000);	/* fails every attempt: the first alert waits in backoff */
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/hook", r.port);
	h = webhook_open(url, &err);
	assert_non_null(h);
	for (i = 0; i < WEBHOOK_QUEUE + 50; i++)
		webhook_send(h, alert);
	webhook_stats(h, &st);
	assert_true(st.dropped >= 49);
	assert_true(st.queued <= WEBHOOK_QUEUE);
	assert_int_equal(st.sent, 0);
	webhook_close(h);
	receiver_stop(&r);
	json_decref(alert);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_slower_run_is_a_regression, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs_of_another_writer_join_the_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_energy_has_its_own_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_windows_stay_within_the_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_frequency_is_its_own_baseline, setup, teardown),
		cmocka_unit_test(test_webhook_retries_then_delivers),
		cmocka_unit_test(test_webhook_url_is_checked),
		cmocka_unit_test(test_webhook_queue_is_bounded),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("track", tests, NULL, NULL);
}
