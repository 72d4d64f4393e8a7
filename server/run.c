#include "run.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "xalloc.h"

#define BAD 400

/* A number from JSON: integer or real, finite (jansson rejects 1e999 at
 * parse time, so only the type needs checking). */
static bool get_number(json_t *v, double *out)
{
	if (json_is_integer(v)) {
		*out = (double)json_integer_value(v);
		return true;
	}
	if (json_is_real(v)) {
		*out = json_real_value(v);
		return isfinite(*out);
	}
	return false;
}

/* Printable text: no control characters (they break logs, CSV and charts). */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static int check_name(json_t *v, const char *field, size_t minlen, size_t maxlen,
		      bool colon_ok, struct kerr *err)
{
	const char *s;
	size_t len;

	if (!json_is_string(v))
		return kerr_field(err, BAD, field, "%s must be a string", field);
	s = json_string_value(v);
	len = json_string_length(v);
	if (len < minlen)
		return kerr_field(err, BAD, field, "%s must not be empty", field);
	if (len > maxlen)
		return kerr_field(err, BAD, field, "%s is %zu bytes long; at most %zu are allowed",
				  field, len, maxlen);
	if (strlen(s) != len || !printable(s))
		return kerr_field(err, BAD, field, "%s must not contain control characters", field);
	if (!colon_ok && strchr(s, ':'))
		return kerr_field(err, BAD, field,
				  "%s must not contain ':' (series are named system:application:variant)",
				  field);
	return 0;
}

enum range { GT0, GE0 };

static int check_number(json_t *v, const char *field, enum range range, double *out,
			struct kerr *err)
{
	if (!get_number(v, out))
		return kerr_field(err, BAD, field, "%s must be a finite number", field);
	if (range == GT0 && !(*out > 0))
		return kerr_field(err, BAD, field, "%s must be greater than 0 (got %g)", field, *out);
	if (range == GE0 && !(*out >= 0))
		return kerr_field(err, BAD, field, "%s must be 0 or more (got %g)", field, *out);
	return 0;
}

/* ISO 8601 date-time: YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM). */
static bool iso8601(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	size_t i;

	for (i = 0; shape[i]; i++) {
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) :
		    (s[i] != shape[i] && !(shape[i] == 'T' && s[i] == ' ')))
			return false;
	}
	s += i;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'Z')
		return s[1] == '\0';
	if (*s == '+' || *s == '-')
		return isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]) && s[3] == ':' &&
		       isdigit((unsigned char)s[4]) && isdigit((unsigned char)s[5]) && s[6] == '\0';
	return false;
}

static int check_counters(json_t *v, const char *where, struct kerr *err)
{
	char field[64];
	const char *key;
	json_t *val;
	double x;

	snprintf(field, sizeof(field), "%s.counters", where);
	if (!json_is_object(v))
		return kerr_field(err, BAD, field, "%s must be an object of name: number", field);
	if (json_object_size(v) > RUN_COUNTERS_MAX)
		return kerr_field(err, BAD, field, "%s has %zu counters; at most %d are allowed", field,
				  json_object_size(v), RUN_COUNTERS_MAX);
	json_object_foreach(v, key, val) {
		if (!*key || strlen(key) > RUN_NAME_MAX || !printable(key))
			return kerr_field(err, BAD, field,
					  "counter names in %s must be 1 to %d printable bytes", field,
					  RUN_NAME_MAX);
		if (!get_number(val, &x) || x < 0)
			return kerr_field(err, BAD, field,
					  "counter '%.64s' in %s must be a finite number, 0 or more", key,
					  field);
	}
	return 0;
}

static int check_region(json_t *reg, size_t i, struct kerr *err)
{
	static const struct {
		const char *key;
		enum range range;
	} nums[] = {
		{"time_s", GE0}, {"energy_j", GE0}, {"power_w", GE0}, {"frequency_mhz", GT0},
	};
	char where[32], field[64];
	const char *key;
	json_t *val;
	double x;
	size_t k;

	snprintf(where, sizeof(where), "regions[%zu]", i);
	if (!json_is_object(reg))
		return kerr_field(err, BAD, where, "%s must be an object", where);
	json_object_foreach(reg, key, val) {
		snprintf(field, sizeof(field), "%s.%.24s", where, key);
		if (!strcmp(key, "name")) {
			if (check_name(val, field, 1, RUN_NAME_MAX, true, err))
				return -1;
			continue;
		}
		if (!strcmp(key, "counters")) {
			if (!json_is_null(val) && check_counters(val, where, err))
				return -1;
			continue;
		}
		for (k = 0; k < sizeof(nums) / sizeof(nums[0]); k++)
			if (!strcmp(key, nums[k].key))
				break;
		if (k == sizeof(nums) / sizeof(nums[0]))
			return kerr_field(err, BAD, field,
					  "unknown field '%.64s' in %s (known: name, time_s, energy_j, "
					  "power_w, frequency_mhz, counters)", key, where);
		if (!json_is_null(val) && check_number(val, field, nums[k].range, &x, err))
			return -1;
	}
	if (!json_object_get(reg, "name")) {
		snprintf(field, sizeof(field), "%s.name", where);
		return kerr_field(err, BAD, field, "%s needs a name", where);
	}
	return 0;
}

static char *dump(json_t *v)
{
	char *s = json_dumps(v, KARTE_JSON_FLAGS);

	if (!s)
		return xstrdup("null");	/* only on out-of-memory inside jansson */
	return s;
}

static int take_regions(json_t *v, struct run *r, struct kerr *err)
{
	size_t i, j;

	if (!json_is_array(v))
		return kerr_field(err, BAD, "regions", "regions must be an array of objects");
	if (json_array_size(v) > RUN_REGIONS_MAX)
		return kerr_field(err, BAD, "regions", "a run may have at most %d regions (got %zu)",
				  RUN_REGIONS_MAX, json_array_size(v));
	for (i = 0; i < json_array_size(v); i++) {
		if (check_region(json_array_get(v, i), i, err))
			return -1;
		for (j = 0; j < i; j++) {
			if (!strcmp(json_string_value(json_object_get(json_array_get(v, i), "name")),
				    json_string_value(json_object_get(json_array_get(v, j), "name")))) {
				char field[40];

				snprintf(field, sizeof(field), "regions[%zu].name", i);
				return kerr_field(err, BAD, field,
						  "region name '%.64s' appears twice in one run",
						  json_string_value(json_object_get(json_array_get(v, i),
										    "name")));
			}
		}
	}
	r->regions = dump(v);
	return 0;
}

static int take_labels(json_t *v, struct run *r, struct kerr *err)
{
	const char *key;
	json_t *val;

	if (!json_is_object(v))
		return kerr_field(err, BAD, "labels", "labels must be an object of name: string");
	if (json_object_size(v) > RUN_LABELS_MAX)
		return kerr_field(err, BAD, "labels", "a run may have at most %d labels", RUN_LABELS_MAX);
	json_object_foreach(v, key, val) {
		if (!*key || strlen(key) > RUN_LABEL_MAX || !printable(key))
			return kerr_field(err, BAD, "labels", "label names must be 1 to %d printable bytes",
					  RUN_LABEL_MAX);
		if (!json_is_string(val) || json_string_length(val) > RUN_LABEL_VAL_MAX ||
		    strlen(json_string_value(val)) != json_string_length(val))
			return kerr_field(err, BAD, "labels",
					  "label '%.64s' must be a string of at most %d bytes", key,
					  RUN_LABEL_VAL_MAX);
	}
	r->labels = dump(v);
	return 0;
}

/* Top-level fields, in the order a missing one is reported. */
enum fld {
	F_SYSTEM, F_APPLICATION, F_VARIANT, F_P, F_N, F_TAU, F_CHI, F_GAMMA, F_FREQ, F_CAP,
	F_ENERGY, F_REGIONS, F_LABELS, F_MEASURED_AT, F_IDEM, F_COUNT
};

static const char *const fld_names[F_COUNT] = {
	"system", "application", "variant", "p", "n", "tau", "chi", "gamma", "frequency_mhz",
	"power_cap_w", "energy_j", "regions", "labels", "measured_at", "idempotency_key",
};

static int lookup_field(const char *key)
{
	int f;

	for (f = 0; f < F_COUNT; f++)
		if (!strcmp(key, fld_names[f]))
			return f;
	return -1;
}

static int take_p(json_t *v, struct run *r, struct kerr *err)
{
	double x;

	if (json_is_integer(v)) {
		if (json_integer_value(v) < 1 || json_integer_value(v) > 1000000000)
			return kerr_field(err, BAD, "p", "p must be an integer from 1 to 1e9 (got %lld)",
					  (long long)json_integer_value(v));
		r->p = json_integer_value(v);
		return 0;
	}
	if (!get_number(v, &x))
		return kerr_field(err, BAD, "p", "p must be an integer (processors used)");
	if (x != floor(x) || x < 1 || x > 1e9)
		return kerr_field(err, BAD, "p", "p must be an integer from 1 to 1e9 (got %g)", x);
	r->p = (int64_t)x;
	return 0;
}

static int convert(json_t *obj, struct run *r, struct kerr *err)
{
	json_t *f[F_COUNT] = {0};
	const char *key;
	json_t *val;
	int i;

	if (!json_is_object(obj))
		return kerr_set(err, BAD, "a run must be a JSON object");
	json_object_foreach(obj, key, val) {
		i = lookup_field(key);
		if (i < 0)
			return kerr_field(err, BAD, key[0] ? key : "(empty)",
					  "unknown field '%.64s' (check its spelling; see the API "
					  "reference for the fields of a run)", key);
		if (!json_is_null(val))
			f[i] = val;
	}
	for (i = F_SYSTEM; i <= F_TAU; i++)
		if (i != F_VARIANT && !f[i])
			return kerr_field(err, BAD, fld_names[i], "%s is required", fld_names[i]);
	if (!f[F_CHI] && !f[F_GAMMA])
		return kerr_field(err, BAD, "chi", "one of chi or gamma is required");

	if (check_name(f[F_SYSTEM], "system", 1, RUN_NAME_MAX, false, err) ||
	    check_name(f[F_APPLICATION], "application", 1, RUN_NAME_MAX, false, err) ||
	    (f[F_VARIANT] && check_name(f[F_VARIANT], "variant", 0, RUN_NAME_MAX, true, err)) ||
	    take_p(f[F_P], r, err) ||
	    check_number(f[F_N], "n", GT0, &r->n, err) ||
	    check_number(f[F_TAU], "tau", GT0, &r->tau, err))
		return -1;
	if (f[F_CHI]) {
		if (check_number(f[F_CHI], "chi", GE0, &r->chi, err))
			return -1;
		if (r->chi > r->tau)
			return kerr_field(err, BAD, "chi", "chi (%g) must not exceed tau (%g)", r->chi,
					  r->tau);
	}
	if (f[F_GAMMA]) {
		if (check_number(f[F_GAMMA], "gamma", GE0, &r->gamma, err))
			return -1;
		if (r->gamma > r->tau)
			return kerr_field(err, BAD, "gamma", "gamma (%g) must not exceed tau (%g)",
					  r->gamma, r->tau);
	}
	if (f[F_CHI] && f[F_GAMMA]) {
		if (fabs(r->chi + r->gamma - r->tau) > 1e-6 * r->tau)
			return kerr_field(err, BAD, "gamma",
					  "chi + gamma must equal tau (%g + %g != %g); post one of them",
					  r->chi, r->gamma, r->tau);
	} else if (f[F_CHI]) {
		r->gamma = r->tau - r->chi;
	} else {
		r->chi = r->tau - r->gamma;
	}
	if (f[F_FREQ]) {
		if (check_number(f[F_FREQ], "frequency_mhz", GT0, &r->frequency_mhz, err))
			return -1;
		r->has |= RUN_HAS_FREQ;
	}
	if (f[F_CAP]) {
		if (check_number(f[F_CAP], "power_cap_w", GT0, &r->power_cap_w, err))
			return -1;
		r->has |= RUN_HAS_CAP;
	}
	if (f[F_ENERGY]) {
		if (check_number(f[F_ENERGY], "energy_j", GE0, &r->energy_j, err))
			return -1;
		r->has |= RUN_HAS_ENERGY;
	}
	if (f[F_MEASURED_AT]) {
		if (!json_is_string(f[F_MEASURED_AT]) || !iso8601(json_string_value(f[F_MEASURED_AT])))
			return kerr_field(err, BAD, "measured_at",
					  "measured_at must be an ISO 8601 time such as "
					  "2026-11-21T10:00:00Z");
		r->measured_at = xstrdup(json_string_value(f[F_MEASURED_AT]));
	}
	if (f[F_IDEM]) {
		if (check_name(f[F_IDEM], "idempotency_key", 1, RUN_KEY_MAX, true, err))
			return -1;
		r->idempotency_key = xstrdup(json_string_value(f[F_IDEM]));
	}
	if (f[F_REGIONS] && take_regions(f[F_REGIONS], r, err))
		return -1;
	if (f[F_LABELS] && take_labels(f[F_LABELS], r, err))
		return -1;
	r->system = xstrdup(json_string_value(f[F_SYSTEM]));
	r->application = xstrdup(json_string_value(f[F_APPLICATION]));
	r->variant = xstrdup(f[F_VARIANT] ? json_string_value(f[F_VARIANT]) : "");
	return 0;
}

int run_from_json(json_t *obj, struct run *out, struct kerr *err)
{
	memset(out, 0, sizeof(*out));
	if (convert(obj, out, err)) {
		run_clear(out);
		return -1;
	}
	return 0;
}

void run_clear(struct run *r)
{
	free(r->system);
	free(r->application);
	free(r->variant);
	free(r->measured_at);
	free(r->idempotency_key);
	free(r->regions);
	free(r->labels);
	free(r->created_at);
	memset(r, 0, sizeof(*r));
}

void run_batch_free(struct run_batch *batch)
{
	size_t i;

	for (i = 0; i < batch->count; i++)
		run_clear(&batch->runs[i]);
	free(batch->runs);
	batch->runs = NULL;
	batch->count = 0;
}

static void batch_push(struct run_batch *b, size_t *cap, const struct run *r)
{
	if (b->count == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		b->runs = xrealloc(b->runs, *cap * sizeof(*b->runs));
	}
	b->runs[b->count++] = *r;
}

static int parse_error(struct kerr *err, const json_error_t *je, long line_offset)
{
	return kerr_set(err, BAD, "the body is not valid JSON: %s at line %ld, column %d", je->text,
			(long)je->line + line_offset, je->column);
}

static int add_item(json_t *item, struct run_batch *batch, size_t *cap, long index,
		    struct kerr *err)
{
	struct run r;

	if (run_from_json(item, &r, err)) {
		err->index = index;
		return -1;
	}
	batch_push(batch, cap, &r);
	return 0;
}

static int parse_json(const char *body, size_t len, struct run_batch *batch, struct kerr *err)
{
	json_error_t je;
	json_t *root;
	size_t cap = 0, i;
	int rc = 0;

	root = json_loadb(body, len, 0, &je);
	if (!root)
		return parse_error(err, &je, 0);
	if (json_is_array(root)) {
		if (json_array_size(root) == 0) {
			rc = kerr_set(err, BAD, "the body is an empty array: post at least one run");
			goto out;
		}
		for (i = 0; i < json_array_size(root) && !rc; i++)
			rc = add_item(json_array_get(root, i), batch, &cap, (long)i, err);
	} else if (json_is_object(root)) {
		rc = add_item(root, batch, &cap, -1, err);
	} else {
		rc = kerr_set(err, BAD, "the body must be a run object or an array of runs");
	}
out:
	json_decref(root);
	return rc;
}

static int parse_ndjson(const char *body, size_t len, struct run_batch *batch, struct kerr *err)
{
	const char *line = body, *end = body + len, *nl;
	size_t cap = 0;
	long lineno = 0, index = 0;
	json_error_t je;
	json_t *item;
	int rc;

	for (; line < end; line = nl + 1) {
		const char *p;

		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		lineno++;
		for (p = line; p < nl && isspace((unsigned char)*p); p++)
			;
		if (p == nl)
			continue;	/* blank line */
		item = json_loadb(line, (size_t)(nl - line), 0, &je);
		if (!item) {
			kerr_set(err, BAD, "line %ld is not valid JSON: %s (column %d)", lineno, je.text,
				 je.column);
			err->index = index;
			return -1;
		}
		rc = add_item(item, batch, &cap, index, err);
		json_decref(item);
		if (rc) {
			size_t n = strlen(err->msg);

			snprintf(err->msg + n, sizeof(err->msg) - n, " (line %ld)", lineno);
			return -1;
		}
		index++;
	}
	if (batch->count == 0)
		return kerr_set(err, BAD, "the NDJSON body holds no runs");
	return 0;
}

int run_parse_body(const char *body, size_t len, enum body_kind kind, struct run_batch *batch,
		   struct kerr *err)
{
	int rc;

	batch->runs = NULL;
	batch->count = 0;
	kerr_clear(err);
	rc = kind == BODY_NDJSON ? parse_ndjson(body, len, batch, err) :
				   parse_json(body, len, batch, err);
	if (rc)
		run_batch_free(batch);
	return rc;
}

static void set_text(json_t *o, const char *key, const char *text)
{
	json_error_t je;
	json_t *v;

	if (!text)
		return;
	v = json_loads(text, 0, &je);
	if (v)
		json_object_set_new(o, key, v);
}

json_t *run_to_json(const struct run *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(r->id));
	json_object_set_new(o, "system", json_string(r->system));
	json_object_set_new(o, "application", json_string(r->application));
	json_object_set_new(o, "variant", json_string(r->variant ? r->variant : ""));
	json_object_set_new(o, "p", json_integer(r->p));
	json_object_set_new(o, "n", json_real(r->n));
	json_object_set_new(o, "tau", json_real(r->tau));
	json_object_set_new(o, "chi", json_real(r->chi));
	json_object_set_new(o, "gamma", json_real(r->gamma));
	json_object_set_new(o, "efficiency", json_real(1.0 - r->chi / r->tau));
	if (r->has & RUN_HAS_FREQ)
		json_object_set_new(o, "frequency_mhz", json_real(r->frequency_mhz));
	if (r->has & RUN_HAS_CAP)
		json_object_set_new(o, "power_cap_w", json_real(r->power_cap_w));
	if (r->has & RUN_HAS_ENERGY)
		json_object_set_new(o, "energy_j", json_real(r->energy_j));
	set_text(o, "regions", r->regions);
	set_text(o, "labels", r->labels);
	if (r->measured_at)
		json_object_set_new(o, "measured_at", json_string(r->measured_at));
	if (r->idempotency_key)
		json_object_set_new(o, "idempotency_key", json_string(r->idempotency_key));
	if (r->created_at)
		json_object_set_new(o, "created_at", json_string(r->created_at));
	return o;
}
