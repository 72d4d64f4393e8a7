/*
 * Alerts of HTTP API v1: regressions found on ingest (watch.c), listed as
 * JSON or an Atom feed and acknowledged with a token; a series' thresholds.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/jsonw.h"
#include "series.h"
#include "analysis/history.h"
#include "karted.h"
#include "core/token.h"
#include "track/watch.h"
#include "track/webhook.h"
#include "core/xalloc.h"

/* Limits (documented in docs/api.md). */
#define ALERTS_LIMIT_DEFAULT 100
#define ALERTS_LIMIT_MAX 1000

/* since=: an ISO 8601 time (or a date) as the canonical UTC text karted
 * writes created_at in, so the two compare as text. 0, or -1. */
static int canonical_time(const char *s, char out[64])
{
	int y, mo, d, h = 0, mi = 0, sec = 0, oh = 0, om = 0, used = 0;
	long ms = 0;
	char sign = 0;
	struct tm tm = {0};
	time_t t;

	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &used) != 3)
		return -1;
	s += used;
	if (*s == 'T' || *s == ' ') {
		if (sscanf(s + 1, "%2d:%2d:%2d%n", &h, &mi, &sec, &used) != 3)
			return -1;
		s += 1 + used;
		if (*s == '.') {
			double frac = strtod(s, (char **)&s);

			ms = (long)(frac * 1000);
		}
		if (*s == '+' || *s == '-') {
			sign = *s;
			if (sscanf(s + 1, "%2d:%2d%n", &oh, &om, &used) != 2)
				return -1;
			s += 1 + used;
		} else if (*s == 'Z') {
			s++;
		}
	}
	if (*s || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm) - (sign == '+' ? 1 : sign == '-' ? -1 : 0) * (oh * 3600 + om * 60);
	store_utc_text(t, ms, out, 64);
	return 0;
}

struct list_ctx {
	json_t *alerts;
	int64_t last_id;
};

static int add_alert(const struct store_alert *a, void *ctx)
{
	struct list_ctx *c = ctx;

	json_array_append_new(c->alerts, alert_json(a, NULL));
	c->last_id = a->id;
	return 0;
}

/* XML text of s into f. */
static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* The alerts as an Atom feed (RFC 4287): an entry per alert, newest first. */
static void atom(struct resp *rs, struct req *rq, json_t *alerts)
{
	const char *host = req_header(rq, "Host");
	char *text = NULL, base[300];
	size_t len = 0, i;
	json_t *a;
	FILE *f = open_memstream(&text, &len);

	snprintf(base, sizeof(base), "http://%s", host && strlen(host) < 256 ? host : "localhost");
	fputs("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n"
	      "<title>karte: regressions</title>\n<id>urn:karte:alerts</id>\n<link rel=\"self\" href=\"",
	      f);
	xml_text(f, base);
	fputs("/api/v1/alerts?format=atom\"/>\n<updated>", f);
	a = json_array_get(alerts, 0);
	if (a) {
		xml_text(f, json_string_value(json_object_get(a, "created_at")));
	} else {
		char now[32];

		store_utc_now(now, sizeof(now));
		fputs(now, f);
	}
	fputs("</updated>\n<author><name>karted</name></author>\n", f);
	json_array_foreach(alerts, i, a) {
		char title[600];
		double change = json_number_value(json_object_get(
			json_array_get(json_object_get(a, "regressions"), 0), "change"));
		const char *variant = json_string_value(json_object_get(a, "variant"));

		snprintf(title, sizeof(title), "%s regression of %s:%s%s%s at p=%lld, n=%g: %+.1f %%",
			 json_string_value(json_object_get(a, "metric")),
			 json_string_value(json_object_get(a, "system")),
			 json_string_value(json_object_get(a, "application")), *variant ? ":" : "",
			 variant, (long long)json_integer_value(json_object_get(a, "p")),
			 json_number_value(json_object_get(a, "n")), 100 * change);
		fprintf(f, "<entry>\n<id>urn:karte:alert:%lld</id>\n<title>",
			(long long)json_integer_value(json_object_get(a, "id")));
		xml_text(f, title);
		fputs("</title>\n<updated>", f);
		xml_text(f, json_string_value(json_object_get(a, "created_at")));
		fputs("</updated>\n<link href=\"", f);
		xml_text(f, base);
		fprintf(f, "/api/v1/runs/%lld\"/>\n<content type=\"text\">",
			(long long)json_integer_value(json_object_get(a, "run_id")));
		{
			char *j = jsonw_string(a, NULL);

			xml_text(f, j);
			free(j);
		}
		fputs("</content>\n</entry>\n", f);
	}
	fputs("</feed>\n", f);
	fclose(f);
	rs->status = 200;
	rs->body = text;
	rs->len = len;
	rs->content_type = "application/atom+xml; charset=utf-8";
}

/* The query of GET /api/v1/alerts: the series, acknowledged, since
 * (canonical into since[64]), limit and after; format=json|atom. */
static int alerts_query(struct req *rq, struct alert_filter *f, char *since, int64_t *limit, bool *atom_feed,
			struct kerr *err)
{
	const char *format = req_query(rq, "format"), *s = req_query(rq, "since");
	bool ack = false;
	const struct field q[] = {
		{"acknowledged", FIELD_BOOL, 0, 0, 0, &ack, 0},
		{"limit", FIELD_INTEGER, 0, 1, ALERTS_LIMIT_MAX, limit, 0},
		{"after", FIELD_INTEGER, 0, 1, (double)INT64_MAX, &f->before_id, 0},
	};

	memset(f, 0, sizeof(*f));
	f->system = req_query(rq, "system");
	f->application = req_query(rq, "application");
	f->variant = req_query(rq, "variant");
	*limit = ALERTS_LIMIT_DEFAULT;
	if (format && strcmp(format, "json") && strcmp(format, "atom"))
		return kerr_field(err, KERR_INVALID, "format", "format must be json or atom");
	*atom_feed = format && !strcmp(format, "atom");
	if (s && (strlen(s) > 40 || canonical_time(s, since)))
		return kerr_field(err, KERR_INVALID, "since", "since must be an ISO 8601 time such as "
				  "2026-11-24T10:00:00Z (or a date)");
	f->since = s ? since : NULL;
	if (fields_read(rq, NULL, FIELDS(q), err))
		return -1;
	f->acknowledged = req_query(rq, "acknowledged") ? ack : -1;
	f->limit = *limit + 1;	/* one more: is there a next page */
	return 0;
}

static int get_alerts(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	struct alert_filter f;
	struct list_ctx c = {json_array(), 0};
	char since[64];
	int64_t limit;
	bool atom_feed = false;
	struct store *st;
	struct kerr err;
	int rc = -1;

	kerr_clear(&err);
	if (!alerts_query(rq, &f, since, &limit, &atom_feed, &err)) {
		st = pool_get(k->readers);
		rc = store_each_alert(st, &f, add_alert, &c, &err);
		pool_put(k->readers, st);
	}
	if (rc < 0) {
		json_decref(c.alerts);
		resp_error(rs, &err);
		return 0;
	}
	c.last_id = 0;
	if (json_array_size(c.alerts) > (size_t)limit) {	/* there is a next page */
		json_array_remove(c.alerts, (size_t)limit);
		c.last_id = json_integer_value(json_object_get(json_array_get(c.alerts, (size_t)limit - 1),
							       "id"));
	}
	if (atom_feed) {
		atom(rs, rq, c.alerts);
		json_decref(c.alerts);
		return 0;
	}
	resp_json(rs, 200, json_pack("{s:o,s:o}", "alerts", c.alerts, "next", c.last_id ?
				     json_sprintf("%lld", (long long)c.last_id) : json_null()));
	if (c.last_id && rs->status == 200) {
		char next[24];

		snprintf(next, sizeof(next), "%lld", (long long)c.last_id);
		query_link_next(rq, rs, next);
	}
	return 0;
}

/* ---- POST /api/v1/alerts/{id}/ack ---- */

struct ack_arg {
	int64_t id;
	char hash[TOKEN_HASH_LEN + 1];
	json_t *alert;		/* out */
};

static int ack_call(struct store *st, struct wjob *job)
{
	struct ack_arg *a = job->arg;
	struct alert_filter f = {.acknowledged = -1, .id = a->id, .limit = 1};
	struct list_ctx c = {json_array(), 0};
	bool found, already;

	if (store_alert_ack(st, a->id, a->hash, &found, &already, &job->err) ||
	    store_each_alert(st, &f, add_alert, &c, &job->err) < 0) {
		json_decref(c.alerts);
		return -1;
	}
	if (!found) {
		json_decref(c.alerts);
		return kerr_set(&job->err, KERR_NOT_FOUND, "there is no alert with id %lld", (long long)a->id);
	}
	a->alert = json_incref(json_array_get(c.alerts, 0));
	json_decref(c.alerts);
	return 0;
}

/* The end of every call job here, after its answer is in the resp. */
static void call_done(struct wjob *job)
{
	struct write_req *w = (struct write_req *)job;

	http_resume(w->rq);
	free(w);
}

static void ack_done(struct wjob *job)
{
	struct write_req *w = (struct write_req *)job;
	struct ack_arg *a = job->arg;

	if (job->rc)
		resp_error(req_resp(w->rq), &job->err);
	else
		resp_json(req_resp(w->rq), 200, a->alert);
	free(a);
	job->arg = NULL;
	call_done(job);
}

static int post_ack(void *app, struct req *rq, struct resp *rs)
{
	const char *auth = req_header(rq, "Authorization");
	struct ack_arg *a;
	struct kerr err;
	int64_t id;

	kerr_clear(&err);
	if (path_id(rq, "alert", &id, &err)) {
		resp_error(rs, &err);
		return 0;
	}
	a = xcalloc(1, sizeof(*a));
	a->id = id;
	auth += 7;	/* "Bearer ": http.c checked it */
	while (*auth == ' ')
		auth++;
	token_hash(auth, strlen(auth), a->hash);
	return write_call(app, rq, ack_call, a, ack_done);
}

/* ---- GET, PUT, DELETE /api/v1/series/thresholds ---- */

struct thr_arg {
	char *system, *application, *variant;
	struct store_thresholds t;
	bool reset;
};

/* The answer: the series' thresholds (its own or the defaults). */
static json_t *thresholds_json(const char *system, const char *application, const char *variant,
			       const struct store_thresholds *t)
{
	struct ka_thresholds d = KA_THRESHOLDS_DEFAULT;

	return json_pack("{s:{s:s,s:s,s:s},s:{s:f,s:f,s:I},s:b,s:{s:f,s:f,s:I}}", "series",
			 "system", system, "application", application, "variant", variant,
			 "thresholds", "rel", t->set ? t->rel : d.rel, "noise",
			 t->set ? t->noise : d.noise, "min_runs",
			 (json_int_t)(t->set ? t->min_runs : (int64_t)d.min_runs), "set", t->set,
			 "defaults", "rel", d.rel, "noise", d.noise, "min_runs",
			 (json_int_t)d.min_runs);
}

static int get_thresholds(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	const char *system, *application, *variant;
	struct store_thresholds t;
	struct store *st;
	struct kerr err;
	int found;

	kerr_clear(&err);
	if (query_series(rq, &system, &application, &variant, &err)) {
		resp_error(rs, &err);
		return 0;
	}
	st = pool_get(k->readers);
	found = store_thresholds_get(st, system, application, variant, &t, &err);
	pool_put(k->readers, st);
	if (found == 0)
		kerr_set(&err, KERR_NOT_FOUND, "there is no series %s:%s%s%s", system, application,
			 *variant ? ":" : "", variant);
	if (found <= 0)
		resp_error(rs, &err);
	else
		resp_json(rs, 200, thresholds_json(system, application, variant, &t));
	return 0;
}

static int thr_call(struct store *st, struct wjob *job)
{
	struct thr_arg *a = job->arg;

	return store_thresholds_put(st, a->system, a->application, a->variant,
				    a->reset ? NULL : &a->t, &job->err);
}

static void thr_done(struct wjob *job)
{
	struct write_req *w = (struct write_req *)job;
	struct thr_arg *a = job->arg;

	if (job->rc)
		resp_error(req_resp(w->rq), &job->err);
	else
		resp_json(req_resp(w->rq), 200,
			  thresholds_json(a->system, a->application, a->variant, &a->t));
	free(a->system);
	free(a->application);
	free(a->variant);
	free(a);
	call_done(job);
}

/* One threshold from the body: a number within [lo, hi] (an integer when
 * integral), else a 400 naming it. */
static int body_num(json_t *o, const char *key, double lo, double hi, bool integral, double *out,
		    struct kerr *err)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return 0;
	if (!json_is_number(v) || !(json_number_value(v) >= lo && json_number_value(v) <= hi) ||
	    (integral && !json_is_integer(v)))
		return kerr_field(err, KERR_INVALID, key, "%s must be %s from %g to %g", key,
				  integral ? "an integer" : "a number", lo, hi);
	*out = json_number_value(v);
	return 0;
}

static int put_thresholds(void *app, struct req *rq, struct resp *rs)
{
	bool reset = !strcmp(req_method(rq), "DELETE");
	struct ka_thresholds d = KA_THRESHOLDS_DEFAULT;
	const char *system, *application, *variant, *key;
	double rel = d.rel, noise = d.noise, min_runs = (double)d.min_runs;
	struct thr_arg *a;
	json_t *body = NULL, *v;
	struct kerr err;

	kerr_clear(&err);
	if (query_series(rq, &system, &application, &variant, &err))
		goto fail;
	if (!reset) {
		body = req_json_object(rq, rs);
		if (!body)
			return 0;
		json_object_foreach(body, key, v) {
			if (strcmp(key, "rel") && strcmp(key, "noise") && strcmp(key, "min_runs")) {
				kerr_field(&err, KERR_INVALID, key, "thresholds are rel, noise and min_runs; "
					   "'%.64s' is none of them", key);
				goto fail;
			}
		}
		if (body_num(body, "rel", 0, 10, false, &rel, &err) ||
		    body_num(body, "noise", 0, 100, false, &noise, &err) ||
		    body_num(body, "min_runs", 1, WATCH_WINDOW, true, &min_runs, &err))
			goto fail;
		json_decref(body);
	}
	a = xcalloc(1, sizeof(*a));
	a->system = xstrdup(system);
	a->application = xstrdup(application);
	a->variant = xstrdup(variant);
	a->reset = reset;
	a->t = (struct store_thresholds){rel, noise, (int64_t)min_runs, !reset};
	return write_call(app, rq, thr_call, a, thr_done);
fail:
	json_decref(body);
	resp_error(rs, &err);
	return 0;
}

const struct route api_alert_routes[] = {
	{"GET", "/api/v1/alerts", ROUTE_SLOW, get_alerts, NULL},
	{"POST", "/api/v1/alerts/{}/ack", ROUTE_WRITE, post_ack, NULL},
	{"GET", "/api/v1/series/thresholds", ROUTE_SLOW, get_thresholds, NULL},
	{"PUT", "/api/v1/series/thresholds", ROUTE_WRITE | ROUTE_BODY, put_thresholds, NULL},
	{"DELETE", "/api/v1/series/thresholds", ROUTE_WRITE, put_thresholds, NULL},
	{NULL, NULL, 0, NULL, NULL},
};
