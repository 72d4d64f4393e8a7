/*
 * libFuzzer harness: the two JSON parsers of karte agree. Runs are read by
 * yajl (server/core/run.c, streaming: a POST of 10^5 runs builds no tree);
 * every other JSON, and every reader of a stored run's regions and labels,
 * is jansson. For any body run_parse_body accepts as JSON, jansson must read
 * the same document, with as many runs, each field of each run the value
 * jansson reads (names, p, n, tau, chi or gamma, the optional numbers,
 * measured_at, idempotency_key), and the run's regions and labels, stored as
 * canonical text, must read back with jansson to what the body held. A body
 * run_parse_body refuses must be one jansson refuses too, or one whose runs
 * break a rule of a run (then it says which, as a 400 or 413).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"

/* The same JSON value, numbers compared by value (1 and 1.0 agree). */
static int same(json_t *a, json_t *b)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (json_typeof(a) != json_typeof(b))
		return 0;
	if (json_is_object(a)) {
		if (json_object_size(a) != json_object_size(b))
			return 0;
		json_object_foreach(a, k, v)
			if (!json_object_get(b, k) || !same(v, json_object_get(b, k)))
				return 0;
		return 1;
	}
	if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b))
			return 0;
		json_array_foreach(a, i, v)
			if (!same(v, json_array_get(b, i)))
				return 0;
		return 1;
	}
	return json_equal(a, b);
}

/* A field of the body's run as jansson reads it, null taken as absent. */
static json_t *field(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_null(v) ? NULL : v;
}

static void want_string(json_t *o, const char *key, const char *got, const char *absent)
{
	json_t *v = field(o, key);

	if (v ? !got || strcmp(json_string_value(v), got) : (absent ? !got || strcmp(got, absent) : got != NULL))
		abort();
}

static void want_number(json_t *o, const char *key, double got, int set)
{
	json_t *v = field(o, key);

	if (v ? !set || json_number_value(v) != got : set)
		abort();
}

static void want_text(json_t *o, const char *key, const char *text)
{
	json_t *v = field(o, key), *back;

	if (!v || (json_is_object(v) && !json_object_size(v)) || (json_is_array(v) && !json_array_size(v))) {
		if (text && strcmp(text, "[]") && strcmp(text, "{}"))
			abort();
		return;
	}
	back = text ? json_loads(text, JSON_DECODE_INT_AS_REAL, NULL) : NULL;
	if (!back || !same(v, back))
		abort();
	json_decref(back);
}

/* NDJSON as jansson reads it: one value after another, blanks between;
 * NULL when any is not JSON. */
static json_t *values(const char *s, size_t len)
{
	json_t *all = json_array(), *v;
	json_error_t je;
	size_t at = 0;

	for (;;) {
		while (at < len && (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' || s[at] == '\r'))
			at++;
		if (at == len)
			return all;
		v = json_loadb(s + at, len - at, JSON_DISABLE_EOF_CHECK | JSON_DECODE_INT_AS_REAL |
			       JSON_REJECT_DUPLICATES, &je);
		if (!v) {
			json_decref(all);
			return NULL;
		}
		json_array_append_new(all, v);
		at += (size_t)je.position;
	}
}

/* The body as one kind, by both parsers. */
static void agree(const char *data, size_t size, enum body_kind kind)
{
	struct run_batch b;
	struct kerr err;
	json_error_t je;
	json_t *doc, *list, *o;
	size_t i;

	if (run_parse_body(data, size, kind, &b, &err)) {
		if (!(err.code == KERR_INVALID || err.code == KERR_TOO_LARGE) || !err.msg[0])
			abort();
		return;
	}
	doc = kind == BODY_NDJSON ? values(data, size) :
	      json_loadb(data, size, JSON_DECODE_INT_AS_REAL | JSON_REJECT_DUPLICATES, &je);
	if (!doc)
		abort();	/* yajl took what jansson refuses */
	list = json_is_array(doc) ? json_incref(doc) : json_pack("[O]", doc);
	if (json_array_size(list) != b.count)
		abort();
	for (i = 0; i < b.count; i++) {
		const struct run *r = &b.runs[i];

		o = json_array_get(list, i);
		want_string(o, "system", r->system, NULL);
		want_string(o, "application", r->application, NULL);
		want_string(o, "variant", r->variant, "");
		want_string(o, "measured_at", r->measured_at, NULL);
		want_string(o, "idempotency_key", r->idempotency_key, NULL);
		if (json_number_value(field(o, "p")) != (double)r->p)
			abort();
		want_number(o, "n", r->n, 1);
		want_number(o, "tau", r->tau, 1);
		want_number(o, "frequency_mhz", r->frequency_mhz, r->has & RUN_HAS_FREQ);
		want_number(o, "power_cap_w", r->power_cap_w, r->has & RUN_HAS_CAP);
		want_number(o, "energy_j", r->energy_j, r->has & RUN_HAS_ENERGY);
		if (field(o, "chi"))
			want_number(o, "chi", r->chi, r->has & RUN_HAS_CHI);
		else if (field(o, "gamma"))
			want_number(o, "gamma", r->gamma, r->has & RUN_HAS_CHI);
		want_text(o, "regions", r->regions);
		want_text(o, "labels", r->labels);
	}
	json_decref(list);
	json_decref(doc);
	run_batch_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	agree((const char *)data, size, BODY_JSON);
	agree((const char *)data, size, BODY_NDJSON);
	return 0;
}
