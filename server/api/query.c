/* The query parameters of a request (query.h). */
#include "query.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"


struct label_query {
	struct label_set *ls;
	struct kerr *err;
	int rc;
};

static void label_param(const char *key, const char *value, void *ctx)
{
	struct label_query *q = ctx;
	const char *k = key + 6;

	if (q->rc || strncmp(key, "label.", 6))
		return;
	if (!*k || strlen(k) > RUN_LABEL_MAX || strlen(value) > RUN_LABEL_VAL_MAX)
		q->rc = kerr_field(q->err, KERR_INVALID, key, "label.KEY=VALUE takes a key of 1 to %d bytes "
				   "and a value of at most %d", RUN_LABEL_MAX, RUN_LABEL_VAL_MAX);
	else if (q->ls->n == RUN_FILTER_LABELS_MAX)
		q->rc = kerr_field(q->err, KERR_INVALID, key, "at most %d label filters", RUN_FILTER_LABELS_MAX);
	else
		q->ls->eq[q->ls->n++] = (struct label_eq){k, value};
}

int query_labels(struct req *rq, struct label_set *ls, struct kerr *err)
{
	struct label_query q = {ls, err, 0};

	ls->n = 0;
	req_query_all(rq, label_param, &q);
	return q.rc;
}


/* ---- fields ---- */

static const char *kind_text(const struct field *f, char *buf, size_t size)
{
	const char *what = f->kind == FIELD_INTEGER ? "an integer" : "a number";

	if (f->lo == -HUGE_VAL && f->hi == HUGE_VAL)
		snprintf(buf, size, "%s", what);
	else if (f->hi == HUGE_VAL)
		snprintf(buf, size, "%s %s %.15g", what, f->flags & FIELD_ABOVE_LO ? "above" : "from", f->lo);
	else
		snprintf(buf, size, "%s from %.15g to %.15g", what, f->lo, f->hi);
	return buf;
}

static bool in_range(const struct field *f, double v)
{
	return isfinite(v) && (f->flags & FIELD_ABOVE_LO ? v > f->lo : v >= f->lo) && v <= f->hi;
}

/* One value of a numeric field, from text (query) or JSON (body). */
static int one_number(const struct field *f, const char *text, json_t *j, long index, double *out,
		      struct kerr *err)
{
	char what[96], at[24] = "";
	double v = NAN;
	bool ok;

	if (index >= 0)
		snprintf(at, sizeof(at), "[%ld]", index);
	if (text) {
		char *end;

		errno = 0;
		v = f->kind == FIELD_INTEGER ? (double)strtoll(text, &end, 10) : strtod(text, &end);
		ok = *text && !*end && !errno;
	} else {
		v = json_is_number(j) ? json_number_value(j) : NAN;
		ok = json_is_number(j) && (f->kind != FIELD_INTEGER || json_is_integer(j));
	}
	if (!ok || !in_range(f, v)) {
		kerr_field(err, KERR_INVALID, f->name, text ? "%s%s must be %s (got '%.40s')" : "%s%s must be %s",
			   f->name, at, kind_text(f, what, sizeof(what)), text);
		err->index = index;
		return -1;
	}
	*out = v;
	return 0;
}

static int numbers(const struct field *f, const char *text, json_t *j, struct kerr *err)
{
	struct numbers *nums = f->out;
	double *v = xmalloc((f->max ? f->max : 1) * sizeof(double));
	size_t n = 0;

	if (text) {
		char item[64];

		while (*text) {
			const char *comma = strchr(text, ',');
			size_t len = comma ? (size_t)(comma - text) : strlen(text);

			if (n == f->max || len >= sizeof(item)) {
				free(v);
				return kerr_field(err, KERR_INVALID, f->name, n == f->max ? "%s takes at most %zu values" :
						  "%s must be a comma-separated list of numbers", f->name, f->max);
			}
			memcpy(item, text, len);
			item[len] = '\0';
			if (one_number(f, item, NULL, (long)n, &v[n], err)) {
				free(v);
				return -1;
			}
			n++;
			text = comma ? comma + 1 : text + len;
		}
	} else {
		json_t *x;
		size_t i;

		if (!json_is_array(j) || json_array_size(j) > f->max) {
			free(v);
			return kerr_field(err, KERR_INVALID, f->name, "%s must be an array of 1 to %zu numbers",
					  f->name, f->max);
		}
		json_array_foreach(j, i, x)
			if (one_number(f, NULL, x, (long)i, &v[n++], err)) {
				free(v);
				return -1;
			}
	}
	if (n == 0) {
		free(v);
		return kerr_field(err, KERR_INVALID, f->name, "%s is empty: give 1 to %zu numbers", f->name,
				  f->max);
	}
	nums->v = v;
	nums->n = n;
	return 0;
}

static int one_field(struct req *rq, json_t *body, const struct field *f, struct kerr *err)
{
	const char *text = body ? NULL : req_query(rq, f->name);
	json_t *j = body ? json_object_get(body, f->name) : NULL;
	double v;

	if (json_is_null(j))
		j = NULL;
	if (!text && !j)
		return f->flags & FIELD_REQUIRED ? kerr_field(err, KERR_INVALID, f->name, "%s is required",
							   f->name) : 0;
	switch (f->kind) {
	case FIELD_NUMBER:
	case FIELD_INTEGER:
		if (one_number(f, text, j, -1, &v, err))
			return -1;
		if (f->kind == FIELD_NUMBER)
			*(double *)f->out = v;
		else
			*(int64_t *)f->out = (int64_t)v;
		return 0;
	case FIELD_BOOL:
		if (text ? strcmp(text, "true") && strcmp(text, "false") : !json_is_boolean(j))
			return kerr_field(err, KERR_INVALID, f->name, "%s must be true or false", f->name);
		*(bool *)f->out = text ? !strcmp(text, "true") : json_is_true(j);
		return 0;
	case FIELD_TEXT:
		if (!text && !json_is_string(j))
			return kerr_field(err, KERR_INVALID, f->name, "%s must be a string", f->name);
		text = text ? text : json_string_value(j);
		if (f->hi > 0 && (strlen(text) < f->lo || strlen(text) > f->hi))
			return kerr_field(err, KERR_INVALID, f->name, "%s must be %.0f to %.0f bytes", f->name,
					  f->lo, f->hi);
		*(const char **)f->out = text;
		return 0;
	case FIELD_ARRAY:
		if (!json_is_array(j) || json_array_size(j) < f->lo || json_array_size(j) > f->hi)
			return kerr_field(err, KERR_INVALID, f->name, "%s must be an array of %.0f to %.0f items",
					  f->name, f->lo, f->hi);
		*(json_t **)f->out = j;
		return 0;
	default:
		return numbers(f, text, j, err);
	}
}

int fields_read(struct req *rq, json_t *body, const struct field *f, size_t n, struct kerr *err)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		if (one_field(rq, body, &f[i], err)) {
			for (k = 0; k < i; k++)	/* what was read before is not the caller's to free */
				if (f[k].kind == FIELD_NUMBERS) {
					free(((struct numbers *)f[k].out)->v);
					((struct numbers *)f[k].out)->v = NULL;
				}
			return -1;
		}
	return 0;
}

int fields_only(json_t *body, const struct field *f, size_t n, struct kerr *err)
{
	const char *key;
	json_t *v;
	size_t i;

	if (!json_is_object(body))
		return kerr_set(err, KERR_INVALID, "the body must be a JSON object");
	json_object_foreach(body, key, v) {
		for (i = 0; i < n && strcmp(key, f[i].name); i++)
			;
		if (i == n)
			return kerr_field(err, KERR_INVALID, key, "%.60s is not a field here", key);
	}
	return fields_read(NULL, body, f, n, err);
}

int fields_in(json_t *item, const char *prefix, long index, const struct field *f, size_t n,
	      bool only, struct kerr *err)
{
	char name[sizeof(err->field) + 64];

	if (!(only ? fields_only(item, f, n, err) : fields_read(NULL, item, f, n, err)))
		return 0;
	snprintf(name, sizeof(name), "%s%s", prefix, err->field);
	snprintf(err->field, sizeof(err->field), "%.*s", (int)sizeof(err->field) - 1, name);
	err->index = index;
	return -1;
}

int path_id(struct req *rq, const char *what, int64_t *id, struct kerr *err)
{
	const char *s = req_param(rq);
	char *end;

	errno = 0;
	*id = isdigit((unsigned char)s[0]) ? strtoll(s, &end, 10) : 0;
	if (*id <= 0 || errno || *end)
		return kerr_set(err, KERR_NOT_FOUND, "there is no %s with id '%.40s'", what, s);
	return 0;
}

int query_num(struct req *rq, const char *key, double lo, double hi, double *out,
	      struct kerr *err)
{
	const struct field f = {key, FIELD_NUMBER, 0, lo, hi, out, 0};

	return fields_read(rq, NULL, &f, 1, err);
}

int query_int(struct req *rq, const char *key, int64_t min, int64_t max, int64_t *out,
	      struct kerr *err)
{
	const struct field f = {key, FIELD_INTEGER, 0, (double)min, (double)max, out, 0};

	return fields_read(rq, NULL, &f, 1, err);
}

int query_list(struct req *rq, const char *key, double lo, double hi, double *out,
	       size_t max, size_t *n, struct kerr *err)
{
	struct numbers nums = {NULL, 0};
	const struct field f = {key, FIELD_NUMBERS, 0, lo, hi, &nums, max};

	if (fields_read(rq, NULL, &f, 1, err))
		return -1;
	if (nums.v) {
		memcpy(out, nums.v, nums.n * sizeof(double));
		*n = nums.n;
		free(nums.v);
	}
	return 0;
}

int query_bool(struct req *rq, const char *key, bool def, bool *out, struct kerr *err)
{
	const struct field f = {key, FIELD_BOOL, 0, 0, 0, out, 0};

	*out = def;
	return fields_read(rq, NULL, &f, 1, err);
}

int query_series(struct req *rq, const char **system, const char **application,
		 const char **variant, struct kerr *err)
{
	*system = req_query(rq, "system");
	*application = req_query(rq, "application");
	*variant = req_query(rq, "variant") ? req_query(rq, "variant") : "";
	if (!*system || !**system || !*application || !**application)
		return kerr_field(err, KERR_INVALID, *system && **system ? "application" : "system",
				  "system and application (and variant) select the series");
	return 0;
}

/* ---- a drawn report's query ---- */

/* base=P,N: the base point of an isoefficiency report. */
static int base_read(const char *s, struct report_opts *o, struct kerr *err)
{
	char *end;
	long long p = strtoll(s, &end, 10);

	if (end == s || *end != ',' || p < 1)
		return kerr_field(err, KERR_INVALID, "base", "base must be P,N such as base=10,39200");
	o->base_p = p;
	o->base_n = strtod(end + 1, &end);
	if (*end || !(o->base_n > 0) || !isfinite(o->base_n))
		return kerr_field(err, KERR_INVALID, "base", "base must be P,N such as base=10,39200");
	o->has_base = true;
	return 0;
}

int report_opts_read(struct req *rq, struct report_opts *o, struct kerr *err)
{
	int64_t width = CHART_WIDTH_DEFAULT, height = CHART_HEIGHT_DEFAULT, scale = 1;
	const struct field f[] = {
		{"width", FIELD_INTEGER, 0, CHART_SIZE_MIN, CHART_SIZE_MAX, &width, 0},
		{"height", FIELD_INTEGER, 0, CHART_SIZE_MIN, CHART_SIZE_MAX, &height, 0},
		{"scale", FIELD_INTEGER, 0, 1, CHART_SCALE_MAX, &scale, 0},
		{"tolerance", FIELD_NUMBER, 0, 0, HUGE_VAL, &o->iso.tol, 0},
		{"c2_rtol", FIELD_NUMBER, 0, 0, HUGE_VAL, &o->iso.c2_rtol, 0},
		{"max_p", FIELD_NUMBER, 0, 2, 1e9, &o->max_p, 0},
		{"x_min", FIELD_NUMBER, 0, -HUGE_VAL, HUGE_VAL, &o->view[0], 0},
		{"x_max", FIELD_NUMBER, 0, -HUGE_VAL, HUGE_VAL, &o->view[1], 0},
		{"y_min", FIELD_NUMBER, 0, -HUGE_VAL, HUGE_VAL, &o->view[2], 0},
		{"y_max", FIELD_NUMBER, 0, -HUGE_VAL, HUGE_VAL, &o->view[3], 0},
	};
	static const char *const view[4] = {"x_min", "x_max", "y_min", "y_max"};
	int i;

	*o = report_opts_default();
	for (i = 0; i < 4; i++)
		o->view[i] = NAN;
	if (fields_read(rq, NULL, FIELDS(f), err) ||
	    (req_query(rq, "base") && base_read(req_query(rq, "base"), o, err)))
		return -1;
	o->width = (double)width;
	o->height = (double)height;
	o->scale = (double)scale;
	/* the image in memory: width x height x scale^2 x 4 bytes, at most what
	 * 4000 x 4000 at scale 1 takes (64 MB) */
	if (o->width * o->height * o->scale * o->scale > (double)CHART_SIZE_MAX * CHART_SIZE_MAX)
		return kerr_field(err, KERR_TOO_LARGE, "scale", "width x height x scale^2 must not exceed "
				  "%d x %d device pixels", CHART_SIZE_MAX, CHART_SIZE_MAX);
	for (i = 0; i < 4; i++)
		o->has_view = o->has_view || !isnan(o->view[i]);
	for (i = 0; i < 4; i += 2)
		if (!isnan(o->view[i]) && !isnan(o->view[i + 1]) && !(o->view[i + 1] > o->view[i]))
			return kerr_field(err, KERR_INVALID, view[i + 1], "%s must be above %s", view[i + 1],
					  view[i]);
	return 0;
}
