/*
 * POST /api/v1/analysis/trace-correction (Osaka et al.): a power trace
 * taken under a heavy profiler mapped, segment by segment, onto a light
 * reference run; answered as JSON or drawn as the trace report.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_methods.h"
#include "analysis/trace.h"
#include "core/xalloc.h"

#define TRACE_SAMPLES_MAX LIMIT_TRACE_SAMPLES	/* samples of one trace */
#define SEGMENTS_MAX LIMIT_SEGMENTS	/* segments of a trace correction */

/* ---- POST /api/v1/analysis/trace-correction --------------------------------- */

/* A trace: an array of {t, p}, or CSV text "t,p" lines (a header allowed). */
/* A bad trace: err naming key at index (a line, a sample; -1: none). */
static int trace_bad(struct kerr *err, const char *key, long index, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int trace_bad(struct kerr *err, const char *key, long index, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kerr_vset(err, KERR_INVALID, fmt, ap);
	va_end(ap);
	snprintf(err->field, sizeof(err->field), "%s", key);
	err->index = index;
	return -1;
}

static int trace_of(json_t *root, const char *key, struct ka_sample **out, size_t *n,
		    struct kerr *err)
{
	json_t *v = json_object_get(root, key), *s;
	size_t i, cap = 0;

	*out = NULL;
	*n = 0;
	if (json_is_string(v)) {
		const char *t = json_string_value(v);
		long line = 0;

		while (*t) {
			double a, b;
			const char *nl = strchr(t, '\n');
			char buf[256];
			size_t l = nl ? (size_t)(nl - t) : strlen(t);

			line++;
			snprintf(buf, sizeof(buf), "%.*s", (int)(l < 255 ? l : 255), t);
			t += l + (nl ? 1 : 0);
			if (!buf[strspn(buf, " \r\t")])
				continue;
			if (sscanf(buf, "%lf , %lf", &a, &b) != 2) {
				if (line == 1)
					continue;	/* a header */
				return trace_bad(err, key, line, "%s line %ld is not 't,p'", key, line);
			}
			if (*n == TRACE_SAMPLES_MAX)
				return trace_bad(err, key, line, "%s has more than %d samples", key,
						 TRACE_SAMPLES_MAX);
			if (*n == cap) {
				cap = cap ? 2 * cap : 256;
				*out = xrealloc(*out, cap * sizeof(**out));
			}
			(*out)[(*n)++] = (struct ka_sample){a, b};
		}
	} else if (json_is_array(v)) {
		if (json_array_size(v) > TRACE_SAMPLES_MAX)
			return trace_bad(err, key, -1, "%s has more than %d samples", key, TRACE_SAMPLES_MAX);
		*n = json_array_size(v);
		*out = xcalloc(*n ? *n : 1, sizeof(**out));
		json_array_foreach(v, i, s) {
			if (body_num(s, "t", false, &(*out)[i].t, key, (long)i, err) ||
			    body_num(s, "p", false, &(*out)[i].p, key, (long)i, err))
				return -1;
		}
	}
	if (*n < 1)
		return trace_bad(err, key, -1, "%s must be an array of {t, p} or CSV text 't,p'", key);
	for (i = 1; i < *n; i++)
		if ((*out)[i].t < (*out)[i - 1].t)
			return trace_bad(err, key, (long)i, "%s must be in time order (sample %zu)", key, i);
	return 0;
}

/* How segment i is named in an answer: its "name", or its index. */
static json_t *segment_id(json_t *segs, size_t i)
{
	json_t *name = json_object_get(json_array_get(segs, i), "name");

	return json_is_string(name) ? json_incref(name) : json_integer((json_int_t)i);
}

/* The corrected samples, each saying where it came from (Osaka et al.'s
 * Fig. 7): the segment it lies in (null outside every one) and the 0-based
 * index of the reference sample whose power it took (null for none). */
static json_t *corrected_json(const struct ka_sample *s, const struct ka_trace_origin *o, size_t n,
			      json_t *segs, size_t k, size_t m)
{
	json_t *a = json_array(), **ids = xcalloc(k, sizeof(*ids));
	size_t i;

	for (i = 0; i < k; i++)
		ids[i] = segment_id(segs, i);
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:f,s:f,s:O,s:o}", "t", s[i].t, "p", s[i].p,
						   "segment", o[i].segment < k ? ids[o[i].segment] : json_null(),
						   "source_index", o[i].source < m ?
						   json_integer((json_int_t)o[i].source) : json_null()));
	for (i = 0; i < k; i++)
		json_decref(ids[i]);
	free(ids);
	return a;
}

/* Each segment's durations in both runs, their ratio (Fig. 7) and their
 * shares of each run's duration, durations_s (Fig. 6). */
static json_t *segment_ratios(const struct ka_segment *seg, json_t *segs, size_t k,
			      double inst_total, double ref_total)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < k; i++) {
		double di = seg[i].end - seg[i].start, dr = seg[i].ref_end - seg[i].ref_start;

		json_array_append_new(a, json_pack("{s:o,s:f,s:f,s:f,s:o,s:o}", "segment",
						   segment_id(segs, i), "ratio", ka_segment_ratio(&seg[i]),
						   "instrumented_s", di, "reference_s", dr,
						   "instrumented_share", inst_total > 0 ?
						   json_real(di / inst_total) : json_null(),
						   "reference_share", ref_total > 0 ?
						   json_real(dr / ref_total) : json_null()));
	}
	return a;
}

/* The knots [t_instrumented, t_reference] of the piecewise-linear time map,
 * from [0, 0]; a knot that touching segments share is listed once. */
static json_t *time_map(const struct ka_segment *seg, size_t k)
{
	json_t *a = json_array();
	double last_t = 0, last_r = 0;
	size_t i, j;

	json_array_append_new(a, json_pack("[f,f]", 0.0, 0.0));
	for (i = 0; i < k; i++) {
		const double knot[2][2] = {{seg[i].start, seg[i].ref_start}, {seg[i].end, seg[i].ref_end}};

		for (j = 0; j < 2; j++) {
			/* the same knot again (a touching segment, or [0, 0]) is the same point */
			if (knot[j][0] == last_t && knot[j][1] == last_r)
				continue;
			json_array_append_new(a, json_pack("[f,f]", knot[j][0], knot[j][1]));
			last_t = knot[j][0];
			last_r = knot[j][1];
		}
	}
	return a;
}

/* The segments [{start, end, ref_start, ref_end[, name]}] into *seg (new) of *k. */
static int segments_read(json_t *segs, struct ka_segment **seg, size_t *k, struct kerr *err)
{
	static const char *const key[4] = {"start", "end", "ref_start", "ref_end"};
	char field[32];
	json_t *s;
	size_t i;
	int j;

	*seg = NULL;
	if (!json_is_array(segs) || (*k = json_array_size(segs)) == 0 || *k > SEGMENTS_MAX)
		return kerr_field(err, KERR_INVALID, "segments", "segments must be an array of 1 to %d "
				  "{start, end, ref_start, ref_end}", SEGMENTS_MAX);
	*seg = xcalloc(*k, sizeof(**seg));
	json_array_foreach(segs, i, s) {
		json_t *name = json_object_get(s, "name");
		double *at[4] = {&(*seg)[i].start, &(*seg)[i].end, &(*seg)[i].ref_start, &(*seg)[i].ref_end};

		if (name && (!json_is_string(name) || !json_string_length(name) ||
			     json_string_length(name) > 128)) {
			kerr_field(err, KERR_INVALID, "segments.name", "a segment's name must be a string of "
				   "1 to 128 bytes");
			err->index = (long)i;
			return -1;
		}
		for (j = 0; j < 4; j++) {
			snprintf(field, sizeof(field), "segments.%s", key[j]);
			if (body_num(s, key[j], false, at[j], field, (long)i, err))
				return -1;
		}
	}
	return 0;
}

/* A correction: the two traces, the segments, and what came of them. */
struct correction {
	struct ka_sample *inst, *ref, *out;
	size_t n, m, k;
	struct ka_segment *seg;
	struct ka_trace_origin *origin;
	double before, after;	/* RMS power error against the reference */
};

static void correction_free(struct correction *c)
{
	free(c->inst);
	free(c->ref);
	free(c->out);
	free(c->seg);
	free(c->origin);
}

static int correction_run(json_t *root, struct correction *c, struct kerr *err)
{
	if (trace_of(root, "instrumented", &c->inst, &c->n, err) ||
	    trace_of(root, "reference", &c->ref, &c->m, err) ||
	    segments_read(json_object_get(root, "segments"), &c->seg, &c->k, err))
		return -1;
	c->out = xcalloc(c->n, sizeof(*c->out));
	c->origin = xcalloc(c->n, sizeof(*c->origin));
	if (ka_trace_correct(c->inst, c->n, c->ref, c->m, c->seg, c->k, c->out, c->origin))
		return kerr_field(err, KERR_INVALID, "segments", "segments must be in time order, not "
				  "overlap, and end after they start, in both runs");
	ka_trace_rms(c->inst, c->n, c->ref, c->m, &c->before);
	ka_trace_rms(c->out, c->n, c->ref, c->m, &c->after);
	return 0;
}

static json_t *correction_json(const struct correction *c, json_t *segs)
{
	double ti = c->inst[c->n - 1].t, tr = c->ref[c->m - 1].t, to = c->out[c->n - 1].t;

	return json_pack("{s:o,s:o,s:o,s:{s:f,s:f,s:f},s:{s:f,s:f},s:{s:f,s:f}}",
			 "corrected", corrected_json(c->out, c->origin, c->n, segs, c->k, c->m),
			 "segments", segment_ratios(c->seg, segs, c->k, ti, tr),
			 "time_map", time_map(c->seg, c->k),
			 "durations_s", "instrumented", ti, "reference", tr, "corrected", to,
			 "rms_power_error_w", "before", c->before, "after", c->after,
			 "duration_error_s", "before", fabs(ti - tr), "after", fabs(to - tr));
}

static void correction_draw(const struct correction *c, json_t *segs, const struct report_opts *ro,
			    struct resp *rs, enum chart_format fmt)
{
	const char **names = xcalloc(c->k, sizeof(*names));
	struct report_trace in = {.inst = c->inst, .ref = c->ref, .corrected = c->out, .n = c->n,
				  .m = c->m, .seg = c->seg, .names = names, .k = c->k};
	size_t i;

	for (i = 0; i < c->k; i++)
		names[i] = json_string_value(json_object_get(json_array_get(segs, i), "name"));
	report_respond(rs, report_build_trace(&in, ro), fmt);
	free(names);
}

int trace_answer(void *app, struct req *rq, struct resp *rs, const enum chart_format *chart)
{
	json_t *root = req_json_object(rq, rs);
	struct correction c = {0};
	struct report_opts ro;
	struct kerr err;

	(void)app;
	if (!root)
		return 0;
	kerr_clear(&err);
	if ((chart && report_opts_of(rq, &ro, &err)) || correction_run(root, &c, &err))
		resp_error(rs, &err);
	else if (chart)
		correction_draw(&c, json_object_get(root, "segments"), &ro, rs, *chart);
	else
		resp_json(rs, 200, correction_json(&c, json_object_get(root, "segments")));
	correction_free(&c);
	json_decref(root);
	return 0;
}
