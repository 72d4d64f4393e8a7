/*
 * Extra-P's input formats: the text format (as Extra-P's own reader takes
 * it), JSON lines, Talpas (JSON lines with ';' between fields) and the two
 * JSON documents (the current {"parameters", "measurements"} and the legacy
 * one with ids).
 */
#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_xp.h"
#include "core/xalloc.h"

#define WORD_MAX 4096		/* a name in a text file */

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* ---- text ------------------------------------------------------------------ */

/* The next word of s[0, len) from *i: true with it at s[*a, *i). */
static bool next_word(const char *s, size_t len, size_t *i, size_t *a)
{
	while (*i < len && blank(s[*i]))
		(*i)++;
	if (*i == len)
		return false;
	*a = *i;
	while (*i < len && !blank(s[*i]))
		(*i)++;
	return true;
}

struct text {
	struct xp *x;
	uint32_t *order;	/* the points in POINTS order */
	size_t norder, corder;
	uint32_t metric, path;	/* current, XP_NONE before the first */
	size_t next;		/* the point the next DATA line is for */
	long line;
};

static int text_fail(struct text *t, struct kerr *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int text_fail(struct text *t, struct kerr *err, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return kerr_field(err, KERR_INVALID, "body", "line %ld: %s", t->line, what);
}

/* One point of n values from s[0, len): numbers between blanks. */
static int text_point(struct text *t, const char *s, size_t len, struct kerr *err)
{
	double v[IMPORT_PARAMS_MAX];
	size_t i = 0, k = 0, a;
	uint32_t pt;

	while (next_word(s, len, &i, &a)) {
		if (k == t->x->nparams)
			return text_fail(t, err, "a point has more values than the file has parameters "
					 "('%.*s')", (int)len, s);
		if (!xp_number(s + a, i - a, &v[k]) || !isfinite(v[k]))
			return text_fail(t, err, "'%.*s' is not a parameter value", (int)(i - a), s + a);
		k++;
	}
	if (k != t->x->nparams)
		return text_fail(t, err, "a point has fewer values than the file has parameters "
				 "('%.*s')", (int)len, s);
	if ((pt = xp_point(t->x, v, err)) == XP_NONE)
		return -1;
	if (t->norder == t->corder) {
		t->corder = t->corder ? 2 * t->corder : 64;
		t->order = xrealloc(t->order, t->corder * sizeof(*t->order));
	}
	t->order[t->norder++] = pt;
	return 0;
}

static int text_points(struct text *t, const char *s, size_t len, struct kerr *err)
{
	size_t i = 0, a, n = t->x->nparams;

	if (!n)
		return text_fail(t, err, "POINTS comes before any PARAMETER");
	if (memchr(s, '(', len)) {
		/* ( v1 v2 ) ( v1 v2 ) ... */
		while (i < len) {
			while (i < len && blank(s[i]))
				i++;
			if (i == len)
				break;
			if (s[i] != '(')
				return text_fail(t, err, "'%.*s' is outside the brackets of a point",
						 (int)(len - i > 20 ? 20 : len - i), s + i);
			a = ++i;
			while (i < len && s[i] != ')' && s[i] != '(')
				i++;
			if (i == len || s[i] != ')')
				return text_fail(t, err, "a point's '(' has no ')'");
			if (text_point(t, s + a, i - a, err))
				return -1;
			i++;
		}
		return 0;
	}
	/* bare values: a point each for one parameter, n at a time for n */
	while (i < len) {
		size_t k = 0;

		while (i < len && blank(s[i]))
			i++;
		if (i == len)
			break;
		a = i;
		while (i < len && k < n) {
			while (i < len && !blank(s[i]))
				i++;
			k++;
			while (k < n && i < len && blank(s[i]))
				i++;
		}
		if (text_point(t, s + a, i - a, err))
			return -1;
	}
	return 0;
}

static int text_data(struct text *t, const char *s, size_t len, struct kerr *err)
{
	size_t i = 0, a, reps = 0;
	uint32_t pt;
	double v;

	if (!t->x->nparams)
		return text_fail(t, err, "DATA comes before any PARAMETER");
	if (t->next >= t->norder)
		return text_fail(t, err, "there are more DATA lines for this region and metric "
				 "than points");
	if (t->metric == XP_NONE && (t->metric = xp_metric(t->x, "", 0, err)) == XP_NONE)
		return -1;
	if (t->path == XP_NONE && (t->path = xp_path(t->x, "", 0, err)) == XP_NONE)
		return -1;
	pt = t->order[t->next++];
	while (next_word(s, len, &i, &a)) {
		if (!xp_number(s + a, i - a, &v))
			return text_fail(t, err, "'%.*s' is not a number", (int)(i - a), s + a);
		if (xp_value(t->x, t->path, t->metric, pt, v, err))
			return -1;
		reps++;
	}
	if (!reps)
		return text_fail(t, err, "a DATA line has no value");
	return 0;
}

/* A name with its runs of blanks made one space, as Extra-P reads it. */
static size_t squeeze(const char *s, size_t len, char *out)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (blank(s[i])) {
			if (n && out[n - 1] != ' ')
				out[n++] = ' ';
		} else {
			out[n++] = s[i];
		}
	}
	while (n && out[n - 1] == ' ')
		n--;
	return n;
}

int xp_read_extrap_text(struct xp *x, const char *body, size_t len, struct kerr *err)
{
	struct text t = {x, NULL, 0, 0, XP_NONE, XP_NONE, 0, 0};
	size_t pos = 0, n, k, a;
	const char *line;
	char name[WORD_MAX];
	int rc = -1;

	while (xp_next_line(body, len, &pos, &line, &n)) {
		t.line++;
		for (k = 0; k < n && blank(line[k]); k++)
			;
		if (k == n || line[k] == '#')
			continue;
		a = k;
		while (k < n && !blank(line[k]))
			k++;
		line += a;
		n -= a;
		k -= a;
#define IS(word) (k == sizeof(word) - 1 && !memcmp(line, word, k))
		if (IS("DATA")) {
			if (text_data(&t, line + k, n - k, err))
				goto out;
		} else if (IS("POINTS")) {
			if (text_points(&t, line + k, n - k, err))
				goto out;
		} else if (IS("PARAMETER")) {
			size_t i = k, b;

			while (next_word(line, n, &i, &b)) {
				if (xp_param(x, line + b, i - b, err)) {
					text_fail(&t, err, "%s", err->msg);
					goto out;
				}
			}
		} else if (IS("REGION") || IS("METRIC")) {
			size_t indent = 0, m;
			bool region = IS("REGION");

			if (n - k > WORD_MAX) {
				text_fail(&t, err, "a name is longer than %d bytes", WORD_MAX);
				goto out;
			}
			while (k + indent < n && blank(line[k + indent]))
				indent++;
			m = squeeze(line + k, n - k, name);
			if (!m) {
				text_fail(&t, err, "%.*s has no name", (int)k, line);
				goto out;
			}
			if (region) {
				t.path = xp_path(x, name, m, err);
				if (t.path != XP_NONE && x->paths[t.path].indent < 0)
					x->paths[t.path].indent = (int)indent;
			} else {
				t.metric = xp_metric(x, name, m, err);
			}
			if ((region ? t.path : t.metric) == XP_NONE)
				goto out;
			t.next = 0;	/* a new region or metric starts at the first point */
		} else {
			text_fail(&t, err, "'%.*s' is not a line of Extra-P's text format (PARAMETER, "
				  "POINTS, REGION, METRIC, DATA or # comment)", (int)(k > 40 ? 40 : k), line);
			goto out;
		}
#undef IS
	}
	if (!x->nparams) {
		kerr_field(err, KERR_INVALID, "body", "the file names no PARAMETER: is it Extra-P's text format?");
		goto out;
	}
	rc = xp_tree(x, err);
out:
	free(t.order);
	return rc;
}

/* ---- JSON lines and Talpas ------------------------------------------------ */

static bool json_num(json_t *v, double *out)
{
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return true;
	}
	/* Extra-P writes non-finite repetitions as the strings Python's json gives */
	if (json_is_string(v))
		return xp_number(json_string_value(v), json_string_length(v), out);
	return false;
}

static int line_fail(struct kerr *err, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int line_fail(struct kerr *err, long line, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return kerr_field(err, KERR_INVALID, "body", "line %ld: %s", line, what);
}

/* One object of a JSON-lines or Talpas file; unknown counts the lines that
 * have each field Extra-P does not read. */
static int jsonl_object(struct xp *x, json_t *o, const char *pkey, json_t *unknown, long ln,
			struct kerr *err)
{
	json_t *params = json_object_get(o, pkey), *value = json_object_get(o, "value");
	json_t *cp = json_object_get(o, "callpath"), *mt = json_object_get(o, "metric");
	double v[IMPORT_PARAMS_MAX], d;
	uint32_t path, metric, pt;
	const char *key;
	json_t *pv;
	size_t i;

	if (!json_is_object(o))
		return line_fail(err, ln, "a line is not a JSON object");
	json_object_foreach(o, key, pv)
		if (strcmp(key, pkey) && strcmp(key, "value") && strcmp(key, "callpath") &&
		    strcmp(key, "metric") && (json_object_get(unknown, key) || json_object_size(unknown) < 20))
			json_object_set_new(unknown, key, json_integer(json_integer_value(
							  json_object_get(unknown, key)) + 1));
	if (!json_is_object(params))
		return line_fail(err, ln, "the object has no '%s' object", pkey);
	if (!value)
		return line_fail(err, ln, "the object has no 'value'");
	if (!x->nparams) {
		json_object_foreach(params, key, pv)
			if (xp_param(x, key, strlen(key), err))
				return line_fail(err, ln, "%s", err->msg);
		if (!x->nparams)
			return line_fail(err, ln, "'%s' is empty", pkey);
	} else if (json_object_size(params) != x->nparams) {
		xp_warn(x, "line %ld: %zu parameters where the first line has %zu; the others left out",
			ln, json_object_size(params), x->nparams);
	}
	for (i = 0; i < x->nparams; i++) {
		pv = json_object_get(params, x->params[i]);
		if (!pv)
			return line_fail(err, ln, "the parameter '%s' is missing", x->params[i]);
		if (!json_num(pv, &v[i]) || !isfinite(v[i]))
			return line_fail(err, ln, "the parameter '%s' is not a finite number",
					 x->params[i]);
	}
	if ((cp && !json_is_string(cp)) || (mt && !json_is_string(mt)))
		return line_fail(err, ln, "callpath and metric must be strings");
	/* as Extra-P: no callpath is the root "<root>", no metric "<default>" */
	path = cp ? xp_path(x, json_string_value(cp), json_string_length(cp), err) :
		    xp_path(x, "<root>", 6, err);
	metric = mt ? xp_metric(x, json_string_value(mt), json_string_length(mt), err) :
		      xp_metric(x, "<default>", 9, err);
	if (path == XP_NONE || metric == XP_NONE || (pt = xp_point(x, v, err)) == XP_NONE)
		return -1;
	if (json_is_array(value)) {
		json_array_foreach(value, i, pv) {
			if (!json_num(pv, &d))
				return line_fail(err, ln, "a repetition in 'value' is not a number");
			if (xp_value(x, path, metric, pt, d, err))
				return -1;
		}
		return 0;
	}
	if (!json_num(value, &d))
		return line_fail(err, ln, "'value' is not a number or an array of numbers");
	return xp_value(x, path, metric, pt, d, err);
}

int xp_read_extrap_jsonl(struct xp *x, const char *body, size_t len, bool talpas,
			 struct kerr *err)
{
	size_t pos = 0, n, k, cbuf = 0;
	const char *line, *key;
	json_t *unknown = json_object(), *v;
	char *buf = NULL;
	json_error_t je;
	long ln = 0;
	int rc = -1;

	while (xp_next_line(body, len, &pos, &line, &n)) {
		json_t *o;

		ln++;
		for (k = 0; k < n && blank(line[k]); k++)
			;
		if (k == n)
			continue;
		if (talpas) {
			/* Talpas separates fields with ';' */
			if (n + 1 > cbuf) {
				cbuf = 2 * n + 1;
				buf = xrealloc(buf, cbuf);
			}
			for (k = 0; k < n; k++)
				buf[k] = line[k] == ';' ? ',' : line[k];
			line = buf;
		}
		o = json_loadb(line, n, JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES,
			       &je);
		if (!o) {
			line_fail(err, ln, "not JSON: %s", je.text);
			goto out;
		}
		if (jsonl_object(x, o, talpas ? "parameters" : "params", unknown, ln, err)) {
			json_decref(o);
			goto out;
		}
		json_decref(o);
	}
	if (!x->nparams) {
		kerr_field(err, KERR_INVALID, "body", "the file has no measurement");
		goto out;
	}
	json_object_foreach(unknown, key, v)
		xp_warn(x, "the field '%.100s' (on %lld lines) is not one Extra-P reads: left out", key,
			(long long)json_integer_value(v));
	rc = xp_tree(x, err);
out:
	json_decref(unknown);
	free(buf);
	return rc;
}

/* ---- JSON --------------------------------------------------------------- */

static int json_fail(struct kerr *err, const char *what)
{
	return kerr_field(err, KERR_INVALID, "body", "not Extra-P's JSON: %s", what);
}

/* {"parameters": [names], "measurements": {callpath: {metric: [{"point", "values"}]}}} */
static int json_current(struct xp *x, json_t *doc, struct kerr *err)
{
	json_t *params = json_object_get(doc, "parameters"), *meas = json_object_get(doc, "measurements");
	json_t *v, *metrics, *list, *m, *pt, *vals;
	const char *cpname, *mname;
	size_t i, j, k;

	if (!json_is_array(params) || !json_is_object(meas))
		return json_fail(err, "it needs 'parameters' (an array) and 'measurements' (an object)");
	json_array_foreach(params, i, v) {
		if (!json_is_string(v))
			return json_fail(err, "a parameter name is not a string");
		if (xp_param(x, json_string_value(v), json_string_length(v), err))
			return -1;
	}
	json_object_foreach(meas, cpname, metrics) {
		uint32_t path = xp_path(x, cpname, strlen(cpname), err);

		if (path == XP_NONE)
			return -1;
		if (!json_is_object(metrics))
			return json_fail(err, "a call path's measurements are not an object of metrics");
		json_object_foreach(metrics, mname, list) {
			uint32_t metric = xp_metric(x, mname, strlen(mname), err), p;
			double c[IMPORT_PARAMS_MAX], d;

			if (metric == XP_NONE)
				return -1;
			if (!json_is_array(list))
				return json_fail(err, "a metric's measurements are not an array");
			json_array_foreach(list, j, m) {
				pt = json_object_get(m, "point");
				vals = json_object_get(m, "values");
				if (!json_is_array(vals))
					vals = json_object_get(m, "value");
				if (!json_is_array(pt) || json_array_size(pt) != x->nparams)
					return json_fail(err, "a measurement's 'point' does not have a value "
							 "per parameter");
				for (k = 0; k < x->nparams; k++)
					if (!json_num(json_array_get(pt, k), &c[k]) || !isfinite(c[k]))
						return json_fail(err, "a point's value is not a finite number");
				if ((p = xp_point(x, c, err)) == XP_NONE)
					return -1;
				if (json_is_number(vals))
					vals = json_pack("[O]", vals);
				else
					json_incref(vals);
				if (!json_is_array(vals)) {
					json_decref(vals);
					return json_fail(err, "a measurement has no 'values' array");
				}
				json_array_foreach(vals, k, v) {
					if (!json_num(v, &d) || xp_value(x, path, metric, p, d, err)) {
						json_decref(vals);
						return err->code ? -1 : json_fail(err, "a value is not a number");
					}
				}
				json_decref(vals);
			}
		}
	}
	return 0;
}

/* The array doc[key], its objects sorted by "id" into out (size n), ids 1..n
 * or 0..n-1 as the file has them. */
static int by_id(json_t *doc, const char *key, json_t ***out, size_t *n, struct kerr *err)
{
	json_t *a = json_object_get(doc, key), *o;
	size_t i, base = SIZE_MAX;

	if (!json_is_array(a))
		return kerr_field(err, KERR_INVALID, "body", "not Extra-P's JSON: '%s' is not an array", key);
	*n = json_array_size(a);
	*out = xcalloc(*n ? *n : 1, sizeof(**out));
	json_array_foreach(a, i, o) {
		json_int_t id = json_integer_value(json_object_get(o, "id"));

		if (!json_is_integer(json_object_get(o, "id")) || id < 0)
			goto bad;
		if ((size_t)id < base)
			base = (size_t)id;
	}
	json_array_foreach(a, i, o) {
		size_t at = (size_t)json_integer_value(json_object_get(o, "id")) - base;

		if (base > 1 || at >= *n || (*out)[at])
			goto bad;
		(*out)[at] = o;
	}
	return 0;
bad:
	free(*out);
	*out = NULL;
	return kerr_field(err, KERR_INVALID, "body", "not Extra-P's JSON: the ids of '%s' are not 1..%zu", key,
			  *n);
}

/* The "name" of each of items[0, n) added by add (xp_path or xp_metric),
 * its index into out. */
static int legacy_names(struct xp *x, json_t **items, size_t n,
			uint32_t (*add)(struct xp *, const char *, size_t, struct kerr *),
			const char *what, uint32_t *out, struct kerr *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		json_t *name = json_object_get(items[i], "name");

		if (!json_is_string(name))
			return kerr_field(err, KERR_INVALID, "body", "not Extra-P's JSON: a %s has no name", what);
		if ((out[i] = add(x, json_string_value(name), json_string_length(name), err)) == XP_NONE)
			return -1;
	}
	return 0;
}

/* The legacy document: parameters, callpaths, metrics and coordinates with
 * ids, measurements referring to them. */
static int json_legacy(struct xp *x, json_t *doc, struct kerr *err)
{
	json_t **params = NULL, **paths = NULL, **metrics = NULL, **coords = NULL, *meas, *m, *pv;
	size_t np = 0, ncp = 0, nm = 0, nc = 0, i, k;
	uint32_t *pt_of = NULL, *path_of = NULL, *metric_of = NULL;
	int rc = -1;

	if (by_id(doc, "parameters", &params, &np, err) || by_id(doc, "callpaths", &paths, &ncp, err) ||
	    by_id(doc, "metrics", &metrics, &nm, err) || by_id(doc, "coordinates", &coords, &nc, err))
		goto out;
	for (i = 0; i < np; i++) {
		json_t *name = json_object_get(params[i], "name");

		if (!json_is_string(name) || xp_param(x, json_string_value(name), json_string_length(name), err)) {
			if (!err->code)
				json_fail(err, "a parameter has no name");
			goto out;
		}
	}
	path_of = xcalloc(ncp + 1, sizeof(*path_of));
	metric_of = xcalloc(nm + 1, sizeof(*metric_of));
	pt_of = xcalloc(nc + 1, sizeof(*pt_of));
	if (legacy_names(x, paths, ncp, xp_path, "call path", path_of, err) ||
	    legacy_names(x, metrics, nm, xp_metric, "metric", metric_of, err))
		goto out;
	for (i = 0; i < nc; i++) {
		json_t *pairs = json_object_get(coords[i], "parameter_value_pairs");
		double c[IMPORT_PARAMS_MAX];

		if (!json_is_array(pairs) || json_array_size(pairs) != np) {
			json_fail(err, "a coordinate does not have a value per parameter");
			goto out;
		}
		json_array_foreach(pairs, k, pv) {
			json_int_t id = json_integer_value(json_object_get(pv, "parameter_id"));
			size_t at = (size_t)id - (json_integer_value(json_object_get(params[0], "id")) == 0 ? 0 : 1);

			if (at >= np || !json_num(json_object_get(pv, "parameter_value"), &c[at]) ||
			    !isfinite(c[at])) {
				json_fail(err, "a coordinate's parameter_value_pairs are not numbers of known "
					  "parameters");
				goto out;
			}
		}
		if ((pt_of[i] = xp_point(x, c, err)) == XP_NONE)
			goto out;
	}
	meas = json_object_get(doc, "measurements");
	if (!json_is_array(meas)) {
		json_fail(err, "'measurements' is not an array");
		goto out;
	}
	json_array_foreach(meas, i, m) {
		json_int_t c = json_integer_value(json_object_get(m, "coordinate_id"));
		json_int_t p = json_integer_value(json_object_get(m, "callpath_id"));
		json_int_t t = json_integer_value(json_object_get(m, "metric_id"));
		double d;

		/* ids count from 1 here, as Extra-P's reader has them */
		if (c < 1 || (size_t)c > nc || p < 1 || (size_t)p > ncp || t < 1 || (size_t)t > nm ||
		    !json_num(json_object_get(m, "value"), &d)) {
			json_fail(err, "a measurement refers to an unknown id or has no number 'value'");
			goto out;
		}
		if (xp_value(x, path_of[p - 1], metric_of[t - 1], pt_of[c - 1], d, err))
			goto out;
	}
	rc = 0;
out:
	free(params);
	free(paths);
	free(metrics);
	free(coords);
	free(pt_of);
	free(path_of);
	free(metric_of);
	return rc;
}

int xp_read_extrap_json(struct xp *x, const char *body, size_t len, struct kerr *err)
{
	json_error_t je;
	json_t *doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	int rc;

	if (!doc) {
		/* Extra-P's JSON reader takes JSON lines too */
		if (len && memchr(body, '\n', len) && body[0] == '{')
			return xp_read_extrap_jsonl(x, body, len, false, err);
		return kerr_field(err, KERR_INVALID, "body", "not JSON: line %d: %s", je.line, je.text);
	}
	if (!json_is_object(doc))
		rc = json_fail(err, "the document is not an object");
	else if (json_object_get(doc, "callpaths"))
		rc = json_legacy(x, doc, err);
	else
		rc = json_current(x, doc, err);
	json_decref(doc);
	return rc ? rc : xp_tree(x, err);
}

/* ---- a saved experiment (.extra-p) ----------------------------------------- */

#define EXPERIMENT_JSON_MAX (32u << 20)	/* experiment.json unpacked */

/* experiment.json of a ZIP (Extra-P 4 saves an experiment so), read
 * whole and bounded; NULL with err. */
static char *experiment_json(const char *body, size_t len, size_t *out_len, struct kerr *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char *buf = NULL;
	size_t n = 0;
	int r;

	archive_read_support_format_zip(a);
	if (archive_read_open_memory(a, body, len) != ARCHIVE_OK) {
		archive_read_free(a);
		kerr_field(err, KERR_INVALID, "body", "not a saved Extra-P experiment: not a ZIP archive");
		return NULL;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		la_ssize_t got;

		if (strcmp(archive_entry_pathname(e), "experiment.json"))
			continue;
		buf = xmalloc(EXPERIMENT_JSON_MAX + 1);
		while ((got = archive_read_data(a, buf + n, EXPERIMENT_JSON_MAX + 1 - n)) > 0)
			if ((n += (size_t)got) > EXPERIMENT_JSON_MAX)
				break;
		if (got < 0 || n > EXPERIMENT_JSON_MAX) {
			if (got < 0)
				kerr_field(err, KERR_INVALID, "body", "experiment.json cannot be unpacked: %s",
					   archive_error_string(a) ? archive_error_string(a) : "a broken ZIP");
			else
				kerr_field(err, KERR_TOO_LARGE, "body", "experiment.json unpacks to more than %u bytes",
					   EXPERIMENT_JSON_MAX);
			free(buf);
			buf = NULL;
		}
		break;
	}
	if (!buf && !err->code)
		kerr_field(err, KERR_INVALID, "body", "the ZIP holds no experiment.json: not an experiment saved "
			   "by Extra-P");
	archive_read_free(a);
	*out_len = n;
	return buf;
}

/* {"parameters": [...], "measurements": {callpath: {metric: [{"coordinate":
 * [...], "values": [...]} or {"coordinate", "mean", "median", ...}]}}}: a
 * measurement saved without its values becomes one repetition, its mean. */
/* One measurement of an experiment.json: its point, then its values (or
 * the mean Extra-P saved in their place: *means counts those); 0, or -1
 * with err. */
static int experiment_measurement(struct xp *x, json_t *m, uint32_t path, uint32_t metric, size_t *means,
				  struct kerr *err)
{
	json_t *pt = json_object_get(m, "coordinate"), *vals = json_object_get(m, "values"), *v;
	double c[IMPORT_PARAMS_MAX], d;
	uint32_t p;
	size_t k;

	if (!pt)
		pt = json_object_get(m, "point");
	if (!json_is_array(pt) || json_array_size(pt) != x->nparams)
		return json_fail(err, "a measurement's 'coordinate' does not have a value per parameter");
	for (k = 0; k < x->nparams; k++)
		if (!json_num(json_array_get(pt, k), &c[k]) || !isfinite(c[k]))
			return json_fail(err, "a coordinate's value is not a finite number");
	if ((p = xp_point(x, c, err)) == XP_NONE)
		return -1;
	if (json_is_array(vals) && json_array_size(vals)) {
		json_array_foreach(vals, k, v)
			if (!json_num(v, &d) || xp_value(x, path, metric, p, d, err))
				return err->code ? -1 : json_fail(err, "a value is not a number");
		return 0;
	}
	if (!json_num(json_object_get(m, "mean"), &d))
		return json_fail(err, "a measurement has neither 'values' nor a 'mean'");
	++*means;
	return xp_value(x, path, metric, p, d, err);
}

/* The measurements: call path -> metric -> a list of measurements. */
static int experiment_measurements(struct xp *x, json_t *meas, size_t *means, struct kerr *err)
{
	const char *cpname, *mname;
	json_t *metrics, *list, *m;
	size_t j;

	json_object_foreach(meas, cpname, metrics) {
		uint32_t path = xp_path(x, cpname, strlen(cpname), err), metric;

		if (path == XP_NONE)
			return -1;
		if (!json_is_object(metrics))
			return json_fail(err, "a call path's measurements are not an object of metrics");
		json_object_foreach(metrics, mname, list) {
			if ((metric = xp_metric(x, mname, strlen(mname), err)) == XP_NONE)
				return -1;
			if (!json_is_array(list))
				return json_fail(err, "a metric's measurements are not an array");
			json_array_foreach(list, j, m)
				if (experiment_measurement(x, m, path, metric, means, err))
					return -1;
		}
	}
	return 0;
}

int xp_read_extrap_experiment(struct xp *x, const char *body, size_t len, struct kerr *err)
{
	size_t jlen, i, means = 0;
	char *text = experiment_json(body, len, &jlen, err);
	json_t *doc, *params, *meas, *v;
	json_error_t je;
	int rc = -1;

	if (!text)
		return -1;
	doc = json_loadb(text, jlen, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (!doc)
		return kerr_field(err, KERR_INVALID, "body", "experiment.json: not JSON: line %d: %s", je.line, je.text);
	params = json_object_get(doc, "parameters");
	meas = json_object_get(doc, "measurements");
	if (!json_is_array(params) || !json_is_object(meas)) {
		json_fail(err, "experiment.json needs 'parameters' (an array) and 'measurements' (an object)");
		goto out;
	}
	json_array_foreach(params, i, v) {
		json_t *name = json_is_object(v) ? json_object_get(v, "name") : v;

		if (!json_is_string(name)) {
			json_fail(err, "a parameter is not a name");
			goto out;
		}
		if (xp_param(x, json_string_value(name), json_string_length(name), err))
			goto out;
	}
	if (experiment_measurements(x, meas, &means, err))
		goto out;
	if (means)
		xp_warn(x, "%zu measurements were saved without their values: each is one run whose "
			"value is its saved mean, where Extra-P had its repetitions", means);
	rc = xp_tree(x, err);
out:
	json_decref(doc);
	return rc;
}
