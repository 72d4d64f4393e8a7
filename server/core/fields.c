/* Inputs read by field (fields.h). */
#include "fields.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"


static const char *kind_text(const struct field *f, char *buf, size_t size)
{
	const char *what = f->kind == FIELD_INTEGER ? "an integer" : "a number";

	if (f->lo == -HUGE_VAL && f->hi == HUGE_VAL)
		snprintf(buf, size, "%s", what);
	else if (f->hi == HUGE_VAL && f->flags & FIELD_ABOVE_LO)
		snprintf(buf, size, "%s above %.15g", what, f->lo);
	else if (f->hi == HUGE_VAL)
		snprintf(buf, size, "%s, %.15g or more", what, f->lo);
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
	if (f->kind == FIELD_INTEGER && !(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
		ok = false;	/* 2^63 (INT64_MAX as a double) would not cast back */
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

static int one_field(field_text_fn *get, void *ctx, json_t *body, const struct field *f, struct kerr *err)
{
	const char *text = body ? NULL : get(ctx, f->name);
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

int fields_get(field_text_fn *get, void *ctx, json_t *body, const struct field *f, size_t n,
	       struct kerr *err)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		if (one_field(get, ctx, body, &f[i], err)) {
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
	return fields_get(NULL, NULL, body, f, n, err);
}

int fields_in(json_t *item, const char *prefix, long index, const struct field *f, size_t n,
	      bool only, struct kerr *err)
{
	char name[sizeof(err->field) + 64];

	if (!(only ? fields_only(item, f, n, err) : fields_get(NULL, NULL, item, f, n, err)))
		return 0;
	snprintf(name, sizeof(name), "%s%s", prefix, err->field);
	snprintf(err->field, sizeof(err->field), "%.*s", (int)sizeof(err->field) - 1, name);
	err->index = index;
	return -1;
}
