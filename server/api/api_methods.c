/* The other three methods as what-if endpoints: power-capped runtime
 * (Inadomi et al.), power-trace correction (Osaka et al.), regression power
 * model and configuration search (ePRO-MP). Bodies are JSON; every bad value
 * is a 400 naming its field. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "karted.h"
#include "analysis/powercap.h"
#include "analysis/powermodel.h"
#include "render/report.h"
#include "analysis/trace.h"
#include "core/xalloc.h"


/* Limits on what one request may ask of these methods (documented in the
 * README): each bounds the time and memory of the work and the answer's
 * size, and a request past one is a 400 (413 for products) naming it. */
#define MODULES_MAX 100000	/* modules of a power-capped machine, or of a PVT */
#define BUDGETS_MAX 1000	/* power budgets of one request */
#define CAP_CELLS_MAX 25000	/* modules x budgets: the per-module rows answered (about 200 bytes each, twice: under the 16 MiB answer) */
#define RSAMPLES_MAX 10000	/* measured r(f) samples */
#define TRACE_SAMPLES_MAX LIMIT_TRACE_SAMPLES	/* samples of one trace */
#define SEGMENTS_MAX LIMIT_SEGMENTS	/* segments of a trace correction */
#define ROWS_MAX 100000		/* rows of a power model's training, verification or predict */
#define CONFIG_PARAMS_MAX 16	/* parameters of a configuration */
#define CONFIG_RUNS_MAX 100000	/* recorded configurations */

/* A positive finite number at key of o. */
static int num(json_t *o, const char *key, bool positive, double *out, struct resp *rs,
	       const char *field, long index)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v) || !isfinite(*out = json_number_value(v)) ||
	    (positive && !(*out > 0)))
		return resp_field_errorf(rs, field ? field : key, index, "%s must be a %snumber",
				 field ? field : key, positive ? "positive " : "");
	return 0;
}

/* An array of 1 to max numbers at key: into a new array *out of *n. */
static int num_array(json_t *o, const char *key, size_t max, double **out, size_t *n,
		     struct resp *rs)
{
	json_t *a = json_object_get(o, key), *v;
	size_t i;

	*out = NULL;
	if (!json_is_array(a) || json_array_size(a) == 0 || json_array_size(a) > max)
		return resp_field_errorf(rs, key, -1, "%s must be an array of 1 to %zu numbers", key,
					 max);
	*n = json_array_size(a);
	*out = xmalloc(*n * sizeof(double));
	json_array_foreach(a, i, v) {
		if (!json_is_number(v) || !isfinite((*out)[i] = json_number_value(v))) {
			free(*out);
			*out = NULL;
			return resp_field_errorf(rs, key, (long)i, "%s[%zu] must be a number", key, i);
		}
	}
	return 0;
}

/* ---- POST /api/v1/analysis/powercap ------------------------------------- */

static json_t *alloc_json(const struct ka_alloc *a, size_t n, bool infeasible,
			  const struct ka_inverse *two, const struct ka_three_point *three,
			  bool have_three, double t0)
{
	json_t *mods = json_array(), *o;
	double r2 = 0, r3 = 0;
	size_t i;

	double draw = 0;

	for (i = 0; i < n; i++) {
		/* each module's own r at its frequency; the budget's is the largest (eq. 1) */
		double m2 = ka_inverse_eval(two, a[i].f), m3 = have_three ? ka_three_point_eval(three, a[i].f) : NAN;
		json_t *mod = json_pack("{s:f,s:f,s:f,s:f,s:f,s:b,s:f}", "a", a[i].a, "a_raw", a[i].a_raw,
					"f_mhz", a[i].f, "p_w", a[i].p, "draw_w", a[i].draw, "clamped",
					a[i].clamped, "r_two_point", m2);

		json_object_set_new(mod, "r_three_point", have_three ? json_real(m3) : json_null());
		json_array_append_new(mods, mod);
		r2 = fmax(r2, m2);
		if (have_three)
			r3 = fmax(r3, m3);
		draw += a[i].draw;
	}
	o = json_pack("{s:o,s:b,s:f,s:f,s:f}", "modules", mods, "infeasible", infeasible,
		      "r_two_point", r2, "t_two_point_s", t0 * r2, "total_draw_w", draw);
	json_object_set_new(o, "r_three_point", have_three ? json_real(r3) : json_null());
	json_object_set_new(o, "t_three_point_s", have_three ? json_real(t0 * r3) : json_null());
	return o;
}

static int modules_of(struct karted *k, json_t *root, struct ka_module **mod, size_t *nm,
		      struct resp *rs);

/* The sample at root[key] MHz, when the request names one: into *at. A
 * frequency that is not measured is a 400 naming key. */
static int inner_sample(json_t *root, const char *key, const double *fs, size_t nf, size_t hi,
			size_t lo, size_t *at, struct resp *rs)
{
	double f;
	size_t i;

	if (!json_object_get(root, key))
		return 0;
	if (num(root, key, true, &f, rs, NULL, -1))
		return -1;
	for (i = 0; i < nf; i++)
		if (fabs(fs[i] - f) <= 1e-9 * f && fs[i] < fs[hi] && fs[i] > fs[lo]) {
			*at = i;
			return 0;
		}
	return resp_field_errorf(rs, key, -1, "%s (%g MHz) is not a frequency of the r samples strictly "
				 "between f_min and f_max", key, f);
}

/* {pearson_r, r2} of a model (two, or else three) against the samples. */
static json_t *fit_quality(const double *fs, const double *r, size_t nf, const struct ka_inverse *two,
			   const struct ka_three_point *three)
{
	double *pred = xmalloc(nf * sizeof(double)), pr, r2;
	json_t *o;
	size_t i;

	for (i = 0; i < nf; i++)
		pred[i] = two ? ka_inverse_eval(two, fs[i]) : ka_three_point_eval(three, fs[i]);
	if (ka_fit_quality(pred, r, nf, &pr, &r2))
		o = json_null();
	else
		o = json_pack("{s:o,s:o}", "pearson_r", json_finite(pr), "r2",
			      json_finite(r2));
	free(pred);
	return o;
}

/* The r2 of fit_quality's model, or NAN when it is undefined. */
static double quality_r2(json_t *quality, const char *model)
{
	json_t *v = json_object_get(json_object_get(quality, model), "r2");

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Size of a drawn report: width and height from the query, as GET reports. */
static struct report_opts report_opts_of(struct req *rq)
{
	struct report_opts o = report_opts_default();
	const char *w = req_query(rq, "width"), *h = req_query(rq, "height");

	if (w && atof(w) >= CHART_SIZE_MIN && atof(w) <= CHART_SIZE_MAX)
		o.width = atof(w);
	if (h && atof(h) >= CHART_SIZE_MIN && atof(h) <= CHART_SIZE_MAX)
		o.height = atof(h);
	return o;
}


/* The analysis, answered as JSON, or drawn (chart: the format) as the
 * powercap report. */
static int powercap(void *app, struct req *rq, struct resp *rs, const enum chart_format *chart)
{
	json_t *root = req_json_object(rq, rs), *budgets, *models, *quality;
	double *tu2 = NULL, *tu3 = NULL, *ta2 = NULL, *ta3 = NULL, *rmod = NULL;
	struct ka_module *mod = NULL;
	struct ka_alloc *au = NULL, *av = NULL;
	double f_max, f_min, t0, *fs = NULL, *r = NULL, *bs = NULL;
	size_t nm = 0, nf = 0, nr = 0, nb = 0, i, j, lo = 0, hi = 0, lo2, hi2;
	struct ka_inverse two;
	struct ka_three_point three, best;
	bool have_three = false, have_best;

	if (!root)
		return 0;
	if (num(root, "f_max", true, &f_max, rs, NULL, -1) ||
	    num(root, "f_min", true, &f_min, rs, NULL, -1) ||
	    num(root, "t0", true, &t0, rs, NULL, -1))
		goto out;
	if (!(f_max > f_min)) {
		resp_field_errorf(rs, "f_min", -1, "f_min must be below f_max");
		goto out;
	}
	if (modules_of(app, root, &mod, &nm, rs))
		goto out;
	if (num_array(json_object_get(root, "r"), "f", RSAMPLES_MAX, &fs, &nf, rs) ||
	    num_array(json_object_get(root, "r"), "r", RSAMPLES_MAX, &r, &nr, rs))
		goto out;
	if (nf != nr || nf < 2) {
		resp_field_errorf(rs, "r", -1, "r needs {\"f\": [...], \"r\": [...]} of the same length, two or more");
		goto out;
	}
	for (i = 0; i < nf; i++)
		if (!(fs[i] > 0) || !(r[i] > 0)) {
			/* a time (normalised or not) and a frequency are positive: the
			 * cycle ratio and the inverse models divide by them */
			resp_field_errorf(rs, "r", (long)i, "r.f[%zu] and r.r[%zu] must be positive "
					  "(MHz, and time over the time at f_max)", i, i);
			goto out;
		}
	/* the samples at the highest and lowest frequency, and their neighbours */
	for (i = 0; i < nf; i++) {
		if (fs[i] > fs[hi])
			hi = i;
		if (fs[i] < fs[lo])
			lo = i;
	}
	if (ka_inverse_fit(fs[hi], r[hi], fs[lo], r[lo], &two)) {
		resp_field_errorf(rs, "r", -1, "r needs samples at two different frequencies");
		goto out;
	}
	hi2 = lo;
	lo2 = hi;
	for (i = 0; i < nf; i++) {
		if (i != hi && fs[i] < fs[hi] && fs[i] > fs[hi2])
			hi2 = i;
		if (i != lo && fs[i] > fs[lo] && fs[i] < fs[lo2])
			lo2 = i;
	}
	/* the inner two frequencies of the approximate model, when named */
	if (inner_sample(root, "f_high_mhz", fs, nf, hi, lo, &hi2, rs) ||
	    inner_sample(root, "f_low_mhz", fs, nf, hi, lo, &lo2, rs))
		goto out;
	if (nf >= 4 && fs[hi2] > fs[lo2]) {
		double f4[4] = {fs[hi], fs[hi2], fs[lo2], fs[lo]}, r4[4] = {r[hi], r[hi2], r[lo2], r[lo]};

		have_three = ka_three_point_fit(f4, r4, &three) == 0;
	}
	if (num_array(root, "budgets", BUDGETS_MAX, &bs, &nb, rs))
		goto out;
	if (nb * nm > CAP_CELLS_MAX) {
		resp_field_statusf(rs, 413, "budgets", -1, "budgets x modules is %zu x %zu = %zu rows, more "
				  "than the limit of %d; ask for fewer budgets", nb, nm, nb * nm,
				  CAP_CELLS_MAX);
		goto out;
	}
	models = json_pack("{s:{s:f,s:f}}", "two_point", "c", two.c, "d", two.d);
	have_best = ka_best_f3(fs, r, nf, hi, lo, &best) == 0;
	json_object_set_new(models, "best_f3", have_best ?
			    json_pack("{s:{s:f,s:f},s:{s:f,s:f},s:f}", "high", "c", best.high.c, "d",
				      best.high.d, "low", "c", best.low.c, "d", best.low.d, "f3_mhz",
				      best.f3) : json_null());
	quality = json_pack("{s:o,s:o,s:o}", "two_point", fit_quality(fs, r, nf, &two, NULL),
			    "three_point", have_three ? fit_quality(fs, r, nf, NULL, &three) : json_null(),
			    "best_f3", have_best ? fit_quality(fs, r, nf, NULL, &best) : json_null());
	json_object_set_new(models, "three_point",
			    have_three ? json_pack("{s:{s:f,s:f},s:{s:f,s:f},s:o}", "high", "c",
						   three.high.c, "d", three.high.d, "low", "c",
						   three.low.c, "d", three.low.d, "f3_mhz",
						   isnan(three.f3) ? json_null() : json_real(three.f3))
				       : json_null());
	budgets = json_array();
	au = xcalloc(nm, sizeof(*au));
	av = xcalloc(nm, sizeof(*av));
	tu2 = xcalloc(nb, sizeof(double));
	rmod = chart ? xcalloc(nb * nm, sizeof(double)) : NULL;
	tu3 = xcalloc(nb, sizeof(double));
	ta2 = xcalloc(nb, sizeof(double));
	ta3 = xcalloc(nb, sizeof(double));
	for (i = 0; i < nb; i++) {
		json_t *ju, *jv;
		bool iu, iv;

		if (!(bs[i] > 0) || ka_alloc_uniform(mod, nm, bs[i], f_max, f_min, au, &iu) ||
		    ka_alloc_aware(mod, nm, bs[i], f_max, f_min, av, &iv)) {
			json_decref(budgets);
			json_decref(models);
			json_decref(quality);
			resp_field_errorf(rs, "budgets", (long)i, "budgets[%zu] must be a positive power (W)", i);
			goto out;
		}
		ju = alloc_json(au, nm, iu, &two, &three, have_three, t0);
		for (j = 0; chart && j < nm; j++)	/* drawn only: the JSON has each module's r */
			rmod[i * nm + j] = ka_inverse_eval(&two, au[j].f);
		jv = alloc_json(av, nm, iv, &two, &three, have_three, t0);
		tu2[i] = json_real_value(json_object_get(ju, "t_two_point_s"));
		ta2[i] = json_real_value(json_object_get(jv, "t_two_point_s"));
		tu3[i] = json_number_value(json_object_get(ju, "t_three_point_s"));
		ta3[i] = json_number_value(json_object_get(jv, "t_three_point_s"));
		json_array_append_new(budgets, json_pack("{s:f,s:o,s:o}", "budget_w", bs[i], "uniform",
							 ju, "variation_aware", jv));
	}
	if (chart) {
		struct report_powercap in = {
			.f = fs, .r = r, .n = nf, .two = two, .three = have_three ? &three : NULL,
			.best = have_best ? &best : NULL, .r2_two = quality_r2(quality, "two_point"),
			.r2_three = quality_r2(quality, "three_point"),
			.r2_best = quality_r2(quality, "best_f3"),
			.cycle_ratio = ka_cycle_ratio(fs[hi], r[hi], fs[lo], r[lo]), .budget = bs,
			.t_uniform2 = tu2, .t_uniform3 = have_three ? tu3 : NULL, .t_aware2 = ta2,
			.t_aware3 = have_three ? ta3 : NULL, .nbudgets = nb, .r_module = rmod,
			.nmodules = nm};
		struct report_opts ro = report_opts_of(rq);

		report_respond(rs, report_build_powercap(&in, &ro), *chart);
		json_decref(budgets);
		json_decref(models);
		json_decref(quality);
	} else {
		resp_json(rs, 200, json_pack("{s:f,s:o,s:o,s:o}", "cycle_ratio",
					     ka_cycle_ratio(fs[hi], r[hi], fs[lo], r[lo]), "fit_quality",
					     quality, "models", models, "budgets", budgets));
	}
out:
	free(tu2);
	free(rmod);
	free(tu3);
	free(ta2);
	free(ta3);
	free(mod);
	free(au);
	free(av);
	free(fs);
	free(r);
	free(bs);
	json_decref(root);
	return 0;
}

static int post_powercap(void *app, struct req *rq, struct resp *rs)
{
	return powercap(app, rq, rs, NULL);
}

/* ---- POST /api/v1/analysis/trace-correction --------------------------------- */

/* A trace: an array of {t, p}, or CSV text "t,p" lines (a header allowed). */
static int trace_of(json_t *root, const char *key, struct ka_sample **out, size_t *n,
		    struct resp *rs)
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
				return resp_field_errorf(rs, key, line, "%s line %ld is not 't,p'", key, line);
			}
			if (*n == TRACE_SAMPLES_MAX)
				return resp_field_errorf(rs, key, line, "%s has more than %d samples",
							 key, TRACE_SAMPLES_MAX);
			if (*n == cap) {
				cap = cap ? 2 * cap : 256;
				*out = xrealloc(*out, cap * sizeof(**out));
			}
			(*out)[(*n)++] = (struct ka_sample){a, b};
		}
	} else if (json_is_array(v)) {
		if (json_array_size(v) > TRACE_SAMPLES_MAX)
			return resp_field_errorf(rs, key, -1, "%s has more than %d samples", key,
						 TRACE_SAMPLES_MAX);
		*n = json_array_size(v);
		*out = xcalloc(*n ? *n : 1, sizeof(**out));
		json_array_foreach(v, i, s) {
			if (num(s, "t", false, &(*out)[i].t, rs, key, (long)i) ||
			    num(s, "p", false, &(*out)[i].p, rs, key, (long)i))
				return -1;
		}
	}
	if (*n < 1)
		return resp_field_errorf(rs, key, -1, "%s must be an array of {t, p} or CSV text 't,p'", key);
	for (i = 1; i < *n; i++)
		if ((*out)[i].t < (*out)[i - 1].t)
			return resp_field_errorf(rs, key, (long)i, "%s must be in time order (sample %zu)", key, i);
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

/* Each segment's ratio, reference over instrumented duration. */
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

static int trace(void *app, struct req *rq, struct resp *rs, const enum chart_format *chart)
{
	json_t *root = req_json_object(rq, rs), *segs, *s;
	struct ka_sample *inst = NULL, *ref = NULL, *out = NULL;
	struct ka_segment *seg = NULL;
	struct ka_trace_origin *origin = NULL;
	size_t n, m, k, i;
	double before, after;

	(void)app;
	if (!root)
		return 0;
	if (trace_of(root, "instrumented", &inst, &n, rs) || trace_of(root, "reference", &ref, &m, rs))
		goto out;
	segs = json_object_get(root, "segments");
	if (!json_is_array(segs) || (k = json_array_size(segs)) == 0 || k > SEGMENTS_MAX) {
		resp_field_errorf(rs, "segments", -1, "segments must be an array of 1 to %d "
				  "{start, end, ref_start, ref_end}", SEGMENTS_MAX);
		goto out;
	}
	seg = xcalloc(k, sizeof(*seg));
	json_array_foreach(segs, i, s) {
		json_t *name = json_object_get(s, "name");

		if (name && (!json_is_string(name) || !json_string_length(name) ||
			     json_string_length(name) > 128)) {
			resp_field_errorf(rs, "segments.name", (long)i, "a segment's name must be a string of 1 "
					  "to 128 bytes");
			goto out;
		}
		if (num(s, "start", false, &seg[i].start, rs, "segments.start", (long)i) ||
		    num(s, "end", false, &seg[i].end, rs, "segments.end", (long)i) ||
		    num(s, "ref_start", false, &seg[i].ref_start, rs, "segments.ref_start", (long)i) ||
		    num(s, "ref_end", false, &seg[i].ref_end, rs, "segments.ref_end", (long)i))
			goto out;
	}
	out = xcalloc(n, sizeof(*out));
	origin = xcalloc(n, sizeof(*origin));
	if (ka_trace_correct(inst, n, ref, m, seg, k, out, origin)) {
		resp_field_errorf(rs, "segments", -1, "segments must be in time order, not overlap, and end "
			  "after they start, in both runs");
		goto out;
	}
	ka_trace_rms(inst, n, ref, m, &before);
	ka_trace_rms(out, n, ref, m, &after);
	if (chart) {
		struct report_opts ro = report_opts_of(rq);

		const char **names = xcalloc(k, sizeof(*names));
		struct report_trace in = {.inst = inst, .ref = ref, .corrected = out, .n = n, .m = m,
					  .seg = seg, .names = names, .k = k};

		for (i = 0; i < k; i++)
			names[i] = json_string_value(json_object_get(json_array_get(segs, i), "name"));
		report_respond(rs, report_build_trace(&in, &ro), *chart);
		free(names);
		goto out;
	}
	resp_json(rs, 200, json_pack(
		"{s:o,s:o,s:o,s:{s:f,s:f,s:f},s:{s:f,s:f},s:{s:f,s:f}}", "corrected",
		corrected_json(out, origin, n, segs, k, m), "segments",
		segment_ratios(seg, segs, k, inst[n - 1].t, ref[m - 1].t),
		"time_map", time_map(seg, k),
		"durations_s", "instrumented", inst[n - 1].t, "reference", ref[m - 1].t, "corrected",
		out[n - 1].t, "rms_power_error_w", "before", before, "after", after,
		"duration_error_s", "before", fabs(inst[n - 1].t - ref[m - 1].t), "after",
		fabs(out[n - 1].t - ref[m - 1].t)));
out:
	free(origin);
	free(inst);
	free(ref);
	free(out);
	free(seg);
	json_decref(root);
	return 0;
}

static int post_trace(void *app, struct req *rq, struct resp *rs)
{
	return trace(app, rq, rs, NULL);
}

/* POST /api/v1/reports/{powercap|trace}.{svg|png|pdf}: the analysis' body, drawn. */
static int post_report(void *app, struct req *rq, struct resp *rs)
{
	char what[64], *dot;
	enum chart_format fmt;

	snprintf(what, sizeof(what), "%s", req_param(rq));
	dot = strrchr(what, '.');
	if (dot && !chart_format_parse(dot + 1, &fmt)) {
		*dot = '\0';
		if (!strcmp(what, "powercap"))
			return powercap(app, rq, rs, &fmt);
		if (!strcmp(what, "trace"))
			return trace(app, rq, rs, &fmt);
	}
	resp_errorf(rs, 404, "reports drawn from a posted body are powercap and trace, each as "
		    ".svg, .png or .pdf (got %.60s)", req_param(rq));
	return 0;
}

/* ---- POST /api/v1/analysis/power-model[/predict] -------------------------- */

/* Rows {time_s, counters: {name: count}[, power_w]} as rates of the named
 * counters (count / time). */
static int rates_of(json_t *rows, const char *key, json_t *names, bool need_power, double **x,
		    double **y, double **t, size_t *n, struct resp *rs)
{
	size_t k = json_array_size(names), i, j;
	json_t *row, *name;

	*x = *y = *t = NULL;
	if (!json_is_array(rows) || (*n = json_array_size(rows)) == 0 || *n > ROWS_MAX)
		return resp_field_errorf(rs, key, -1, "%s must be an array of 1 to %d rows", key,
					 ROWS_MAX);
	*x = xcalloc(*n * (k ? k : 1), sizeof(double));
	*y = xcalloc(*n, sizeof(double));
	*t = xcalloc(*n, sizeof(double));
	json_array_foreach(rows, i, row) {
		json_t *c = json_object_get(row, "counters");

		if (num(row, "time_s", true, &(*t)[i], rs, key, (long)i) ||
		    (need_power && num(row, "power_w", true, &(*y)[i], rs, key, (long)i)))
			return -1;
		json_array_foreach(names, j, name) {
			json_t *v = json_object_get(c, json_string_value(name));

			if (!json_is_number(v))
				return resp_field_errorf(rs, key, (long)i, "%s[%zu] lacks counter '%s'", key, i,
						 json_string_value(name));
			(*x)[i * k + j] = json_number_value(v) / (*t)[i];
		}
	}
	return 0;
}


/* One row of the regression table. */
static json_t *term(const char *counter, double coef, double se, double t, double p)
{
	return json_pack("{s:s,s:f,s:f,s:o,s:f}", "counter", counter, "coefficient", coef, "se", se,
			 "t", json_finite(t), "p_value", p);
}

static int post_power_model(void *app, struct req *rq, struct resp *rs)
{
	json_t *root = req_json_object(rq, rs), *names, *name, *coef, *pv, *kept, *dropped, *terms, *out;
	double *x = NULL, *y = NULL, *t = NULL, *vx = NULL, *vy = NULL, *vt = NULL, alpha = 0.05;
	size_t n, vn, k, j;
	struct ka_pm m;
	int rc;

	(void)app;
	if (!root)
		return 0;
	names = json_object_get(root, "counters");
	if (!json_is_array(names) || (k = json_array_size(names)) == 0 || k > KA_PM_MAX) {
		resp_field_errorf(rs, "counters", -1, "counters must name 1 to %d counters", KA_PM_MAX);
		goto out;
	}
	json_array_foreach(names, j, name) {
		if (!json_is_string(name)) {
			resp_field_errorf(rs, "counters", (long)j, "counters must be names");
			goto out;
		}
	}
	if (json_object_get(root, "alpha") && (num(root, "alpha", true, &alpha, rs, NULL, -1) || alpha >= 1)) {
		if (alpha >= 1)
			resp_field_errorf(rs, "alpha", -1, "alpha must be between 0 and 1");
		goto out;
	}
	if (rates_of(json_object_get(root, "training"), "training", names, true, &x, &y, &t, &n, rs))
		goto out;
	rc = ka_pm_fit(x, n, k, y, alpha, &m);
	if (rc) {
		resp_field_errorf(rs, "training", -1, rc == -KA_ENODATA ?
			  "training needs more rows than counters + 1" : "the fit failed on these rows");
		goto out;
	}
	coef = json_object();
	pv = json_object();
	kept = json_array();
	dropped = json_array();
	/* the regression table (SAS's parameter estimates): the intercept first */
	terms = json_array();
	json_array_append_new(terms, term("(intercept)", m.intercept, m.intercept_se, m.intercept_t,
					  m.intercept_p));
	json_array_foreach(names, j, name) {
		const char *nm = json_string_value(name);

		json_object_set_new(coef, nm, json_real(m.coef[j]));
		json_object_set_new(pv, nm, json_real(m.pvalue[j]));
		if (m.kept[j]) {
			json_array_append_new(kept, json_string(nm));
			json_array_append_new(terms, term(nm, m.coef[j], m.se[j], m.t[j], m.pvalue[j]));
		}
	}
	for (j = 0; j < m.ndropped; j++)	/* as each was when it was dropped */
		json_array_append_new(dropped, json_pack("{s:s,s:o,s:f}", "counter",
							 json_string_value(json_array_get(names, m.dropped[j])),
							 "t", json_finite(m.t[m.dropped[j]]),
							 "p_value", m.pvalue[m.dropped[j]]));
	out = json_pack("{s:f,s:o,s:o,s:o,s:o,s:o,s:f,s:f,s:f,s:I,s:I,s:f}", "intercept", m.intercept,
			"coefficients", coef, "p_values", pv, "terms", terms, "kept", kept, "dropped",
			dropped, "r2", m.r2, "adj_r2", m.adj_r2, "sigma", m.sigma, "dof",
			(json_int_t)m.dof, "rows", (json_int_t)n, "alpha", alpha);
	if (json_object_get(root, "verification")) {
		double mean, max;

		if (rates_of(json_object_get(root, "verification"), "verification", names, true, &vx,
			     &vy, &vt, &vn, rs)) {
			json_decref(out);
			goto out;
		}
		ka_pm_errors(&m, vx, vn, vy, &mean, &max);
		json_object_set_new(out, "verification", json_pack("{s:I,s:f,s:f}", "rows",
								   (json_int_t)vn, "mean_rel_error",
								   mean, "max_rel_error", max));
	}
	resp_json(rs, 200, out);
out:
	free(x);
	free(y);
	free(t);
	free(vx);
	free(vy);
	free(vt);
	json_decref(root);
	return 0;
}

static int post_power_predict(void *app, struct req *rq, struct resp *rs)
{
	json_t *root = req_json_object(rq, rs), *model, *coefs, *names = NULL, *v, *preds;
	json_t *rows = json_object_get(root, "rows"), *origin = NULL;
	double *x = NULL, *y = NULL, *t = NULL;
	struct series_data sd = {0};
	const char *key;
	struct ka_pm m;
	double cores = 0;
	size_t n, i;

	if (!root)
		return 0;
	memset(&m, 0, sizeof(m));
	model = json_object_get(root, "model");
	coefs = json_object_get(model, "coefficients");
	if (!json_is_object(coefs) || json_object_size(coefs) > KA_PM_MAX ||
	    num(model, "intercept", false, &m.intercept, rs, "model.intercept", -1)) {
		if (!json_is_object(coefs))
			resp_field_errorf(rs, "model", -1, "model must be {intercept, coefficients: {counter: W per event/s}}");
		goto out;
	}
	names = json_array();
	json_object_foreach(coefs, key, v) {
		json_t *kept = json_object_get(model, "kept"), *q;
		size_t qi;
		bool in = !json_is_array(kept);

		/* a fitted model lists what it kept: dropped counters are not needed */
		json_array_foreach(kept, qi, q)
			in = in || (json_is_string(q) && !strcmp(json_string_value(q), key));
		if (!in)
			continue;
		if (!json_is_number(v)) {
			resp_field_errorf(rs, "model.coefficients", -1, "coefficient %s must be a number", key);
			goto out;
		}
		m.coef[m.k] = json_number_value(v);
		m.kept[m.k++] = true;
		json_array_append_new(names, json_string(key));
	}
	if (json_is_string(json_object_get(root, "system"))) {
		/* the stored runs' regions that have counters but no power */
		struct kerr err;
		size_t q;

		kerr_clear(&err);
		if (series_load_named(app, json_string_value(json_object_get(root, "system")),
				      json_string_value(json_object_get(root, "application")),
				      json_string_value(json_object_get(root, "variant")), NULL, NULL,
				      SERIES_WITH_REGIONS, &sd, &err)) {
			resp_error(rs, &err);
			goto out;
		}
		rows = json_array();
		origin = json_array();
		for (i = 0; i < sd.nall; i++) {
			json_t *reg;

			json_array_foreach(sd.all[i].regions, q, reg) {
				json_t *c = json_object_get(reg, "counters"), *nm;
				size_t z;
				bool all = json_is_number(json_object_get(reg, "time_s")) &&
					   json_number_value(json_object_get(reg, "time_s")) > 0 &&
					   !json_object_get(reg, "power_w") && !json_object_get(reg, "energy_j");

				json_array_foreach(names, z, nm)
					all = all && json_is_number(json_object_get(c, json_string_value(nm)));
				if (!all)
					continue;
				if (json_array_size(rows) == ROWS_MAX) {
					resp_field_statusf(rs, 413, "system", -1, "series %s has more than %d "
							  "regions to predict; select fewer runs",
							  series_label(&sd), ROWS_MAX);
					goto out;
				}
				json_array_append(rows, reg);
				json_array_append_new(origin, json_pack("{s:I,s:O}", "run_id",
									(json_int_t)sd.all[i].id, "region",
									json_object_get(reg, "name")));
			}
		}
		if (!json_array_size(rows)) {
			resp_errorf(rs, 404, "no stored run of series %s has regions with the model's "
				    "counters and a time but no power", series_label(&sd));
			goto out;
		}
	}
	if (json_object_get(root, "cores_per_chip")) {
		json_t *c = json_object_get(root, "cores_per_chip");

		if (!json_is_integer(c) || json_integer_value(c) < 1 || json_integer_value(c) > 4096) {
			resp_field_errorf(rs, "cores_per_chip", -1, "cores_per_chip must be a whole number "
					  "from 1 to 4096");
			goto out;
		}
		cores = (double)json_integer_value(c);
	}
	if (rates_of(rows, "rows", names, false, &x, &y, &t, &n, rs))
		goto out;
	preds = json_array();
	for (i = 0; i < n; i++) {
		double p = ka_pm_predict(&m, x + i * m.k);
		json_t *one = json_pack("{s:f,s:f}", "power_w", p, "energy_j", p * t[i]);

		/* a thread on one core: its own counters, F_const shared by the
		 * chip's cores (the paper's F_const / 4 on four, section 5) */
		if (cores > 0)
			json_object_set_new(one, "thread_power_w", json_real(p - m.intercept + m.intercept / cores));

		if (origin)
			json_object_update(one, json_array_get(origin, i));
		json_array_append_new(preds, one);
	}
	resp_json(rs, 200, json_pack("{s:o}", "predictions", preds));
out:
	free(x);
	free(y);
	free(t);
	json_decref(names);
	if (origin) {
		json_decref(rows);
		json_decref(origin);
	}
	series_free(&sd);
	json_decref(root);
	return 0;
}

/* ---- POST /api/v1/analysis/configurations -------------------------------------- */

/* The integers of the d parameters in object o, into c[d]; a 400 naming
 * field (and index) when one is missing or not an integer. */
static int config_read(json_t *o, json_t *params, long *c, struct resp *rs, const char *field,
		       long index)
{
	json_t *p, *v;
	size_t j;

	json_array_foreach(params, j, p) {
		v = json_object_get(o, json_string_value(p));
		if (!json_is_integer(v) && index >= 0)
			return resp_field_errorf(rs, field, index, "runs[%ld].config needs an integer %s",
						 index, json_string_value(p));
		if (!json_is_integer(v))
			return resp_field_errorf(rs, field, index, "%s needs an integer %s", field,
						 json_string_value(p));
		c[j] = (long)json_integer_value(v);
	}
	return 0;
}

static json_t *config_json(json_t *params, const long *c)
{
	json_t *o = json_object(), *p;
	size_t j;

	json_array_foreach(params, j, p)
		json_object_set_new(o, json_string_value(p), json_integer(c[j]));
	return o;
}

/* The recorded configurations, each once: repeats are averaged. */
struct configs {
	size_t n, d;
	long *cfg;		/* n x d */
	double *time, *energy, *value;
	size_t *count, *first;	/* runs of each, and the index of its first run */
};

static void configs_free(struct configs *c)
{
	free(c->cfg);
	free(c->time);
	free(c->energy);
	free(c->value);
	free(c->count);
	free(c->first);
}

/* Reads runs [{config, time_s, energy_j}] into c, merging repeats by a map
 * of the configurations' decimal keys. */
static int configs_read(json_t *runs, json_t *params, struct configs *c, struct resp *rs)
{
	json_t *map = json_object(), *r, *g;
	size_t i, j, n = json_array_size(runs), d = json_array_size(params), u;
	long *row = xcalloc(d, sizeof(long));
	char key[CONFIG_PARAMS_MAX * 21 + 1];
	double t, e;
	int rc = -1;

	c->d = d;
	c->n = 0;
	c->cfg = xcalloc(n * d, sizeof(long));
	c->time = xcalloc(n, sizeof(double));
	c->energy = xcalloc(n, sizeof(double));
	c->value = xcalloc(n, sizeof(double));
	c->count = xcalloc(n, sizeof(size_t));
	c->first = xcalloc(n, sizeof(size_t));
	json_array_foreach(runs, i, r) {
		size_t at = 0;

		if (num(r, "time_s", true, &t, rs, "runs.time_s", (long)i) ||
		    num(r, "energy_j", true, &e, rs, "runs.energy_j", (long)i) ||
		    config_read(json_object_get(r, "config"), params, row, rs, "runs.config", (long)i))
			goto out;
		for (j = 0; j < d; j++)
			at += (size_t)snprintf(key + at, sizeof(key) - at, "%ld,", row[j]);
		if ((g = json_object_get(map, key))) {
			u = (size_t)json_integer_value(g);
		} else {
			u = c->n++;
			json_object_set_new(map, key, json_integer((json_int_t)u));
			memcpy(c->cfg + u * d, row, d * sizeof(long));
			c->first[u] = i;
		}
		c->time[u] += t;
		c->energy[u] += e;
		c->count[u]++;
	}
	for (u = 0; u < c->n; u++) {
		c->time[u] /= (double)c->count[u];
		c->energy[u] /= (double)c->count[u];
	}
	rc = 0;
out:
	free(row);
	json_decref(map);
	return rc;
}

static json_t *config_entry(json_t *params, const struct configs *c, size_t u, json_t *runs)
{
	return json_pack("{s:o,s:f,s:f,s:I,s:O?}", "config", config_json(params, c->cfg + u * c->d),
			 "time_s", c->time[u], "energy_j", c->energy[u], "runs", (json_int_t)c->count[u],
			 "run_id", json_object_get(json_array_get(runs, c->first[u]), "run_id"));
}

/* The stored runs of a series as [{config, time_s, energy_j, run_id}]: the
 * configuration from integer labels, time from tau. */
static json_t *configs_of_series(void *app, json_t *root, json_t *params, struct resp *rs)
{
	struct series_data sd = {0};
	struct kerr err;
	json_t *runs, *p;
	size_t i, j;

	kerr_clear(&err);
	if (series_load_named(app, json_string_value(json_object_get(root, "system")),
			      json_string_value(json_object_get(root, "application")),
			      json_string_value(json_object_get(root, "variant")), NULL, NULL,
			      SERIES_WITH_REGIONS, &sd, &err)) {
		resp_error(rs, &err);
		series_free(&sd);
		return NULL;
	}
	runs = json_array();
	for (i = 0; i < sd.nall; i++) {
		json_t *cfgj = json_object();
		bool ok = isfinite(sd.all[i].energy_j);

		json_array_foreach(params, j, p) {
			const char *v = json_string_value(json_object_get(sd.all[i].labels,
									  json_string_value(p)));
			char *end;
			long lv = v ? strtol(v, &end, 10) : 0;

			ok = ok && v && *v && !*end;
			if (ok)
				json_object_set_new(cfgj, json_string_value(p), json_integer(lv));
		}
		if (ok)
			json_array_append_new(runs, json_pack("{s:o,s:f,s:f,s:I}", "config", cfgj,
							      "time_s", sd.all[i].tau, "energy_j",
							      sd.all[i].energy_j, "run_id",
							      (json_int_t)sd.all[i].id));
		else
			json_decref(cfgj);
	}
	series_free(&sd);
	return runs;
}

static json_t *improvement(double base, double best)
{
	return json_real((base - best) / base);
}

static int post_configurations(void *app, struct req *rq, struct resp *rs)
{
	json_t *root = req_json_object(rq, rs), *params, *runs, *bounds, *p, *executed, *base_j;
	json_t *owned = NULL;
	struct configs c = {0};
	struct ka_walk w = {0};
	long *lo = NULL, *hi = NULL, *base = NULL, *next = NULL;
	size_t *order = NULL;
	const char *goal_s;
	enum ka_goal goal = KA_GOAL_ENERGY;
	size_t d, n, i, j, best;

	if (!root)
		return 0;
	params = json_object_get(root, "parameters");
	runs = json_object_get(root, "runs");
	bounds = json_object_get(root, "bounds");
	goal_s = json_string_value(json_object_get(root, "goal"));
	if (goal_s && !strcmp(goal_s, "time"))
		goal = KA_GOAL_TIME;
	else if (goal_s && !strcmp(goal_s, "edp"))
		goal = KA_GOAL_EDP;
	else if (goal_s && strcmp(goal_s, "energy")) {
		resp_field_errorf(rs, "goal", -1, "goal must be energy, time or edp");
		goto out;
	}
	if (!json_is_array(params) || (d = json_array_size(params)) == 0 || d > CONFIG_PARAMS_MAX) {
		resp_field_errorf(rs, "parameters", -1, "parameters must name the configuration's 1 to "
				  "%d parameters", CONFIG_PARAMS_MAX);
		goto out;
	}
	json_array_foreach(params, j, p) {
		if (!json_is_string(p) || !*json_string_value(p) ||
		    strlen(json_string_value(p)) > RUN_LABEL_MAX) {
			resp_field_errorf(rs, "parameters", (long)j, "parameters[%zu] must be a name of 1 "
					  "to %d bytes", j, RUN_LABEL_MAX);
			goto out;
		}
	}
	lo = xcalloc(d, sizeof(long));
	hi = xcalloc(d, sizeof(long));
	base = xcalloc(d, sizeof(long));
	next = xcalloc(d, sizeof(long));
	json_array_foreach(params, j, p) {
		json_t *b = json_object_get(bounds, json_string_value(p));

		if (!json_is_array(b) || json_array_size(b) != 2 ||
		    !json_is_integer(json_array_get(b, 0)) || !json_is_integer(json_array_get(b, 1)) ||
		    json_integer_value(json_array_get(b, 0)) > json_integer_value(json_array_get(b, 1))) {
			resp_field_errorf(rs, "bounds", (long)j, "bounds.%s must be [lowest, highest]",
				  json_string_value(p));
			goto out;
		}
		lo[j] = (long)json_integer_value(json_array_get(b, 0));
		base[j] = hi[j] = (long)json_integer_value(json_array_get(b, 1));
	}
	if (json_object_get(root, "baseline")) {
		if (config_read(json_object_get(root, "baseline"), params, base, rs, "baseline", -1))
			goto out;
		for (j = 0; j < d; j++)
			if (base[j] < lo[j] || base[j] > hi[j]) {
				resp_field_errorf(rs, "baseline", -1, "baseline.%s is %ld, outside its bounds "
						  "[%ld, %ld]", json_string_value(json_array_get(params, j)),
						  base[j], lo[j], hi[j]);
				goto out;
			}
	}
	if (!runs && json_is_string(json_object_get(root, "system"))) {
		if (!(runs = owned = configs_of_series(app, root, params, rs)))
			goto out;
	}
	if (!json_is_array(runs) || json_array_size(runs) == 0) {
		resp_field_errorf(rs, "runs", -1, owned ? "no stored run of the series has energy_j and a "
			  "label with an integer for every parameter" :
			  "runs must be an array of {config, time_s, energy_j}, or name a series with "
			  "system and application");
		goto out;
	}
	if (json_array_size(runs) > CONFIG_RUNS_MAX) {
		resp_field_statusf(rs, 413, "runs", -1, "there are %zu configurations; at most %d are taken",
				  json_array_size(runs), CONFIG_RUNS_MAX);
		goto out;
	}
	if (configs_read(runs, params, &c, rs))
		goto out;
	n = c.n;
	for (i = 0; i < n; i++)
		c.value[i] = ka_goal_value(c.time[i], c.energy[i], goal);
	best = ka_best_config(c.time, c.energy, n, goal);
	order = xcalloc(n, sizeof(size_t));
	w.executed = xcalloc(n, sizeof(size_t));
	if (ka_config_walk(c.cfg, c.value, n, d, lo, hi, base, order, &w, next)) {
		resp_field_errorf(rs, "runs", -1, "a configuration's goal value is not finite");
		goto out;
	}
	executed = json_array();
	for (i = 0; i < w.nexecuted; i++)
		json_array_append_new(executed, config_entry(params, &c, w.executed[i], runs));
	base_j = json_pack("{s:o}", "config", config_json(params, base));
	if (w.baseline != SIZE_MAX) {
		json_object_set_new(base_j, "time_s", json_real(c.time[w.baseline]));
		json_object_set_new(base_j, "energy_j", json_real(c.energy[w.baseline]));
		json_object_set_new(base_j, "time_improvement",
				    improvement(c.time[w.baseline], c.time[best]));
		json_object_set_new(base_j, "energy_improvement",
				    improvement(c.energy[w.baseline], c.energy[best]));
	} else {
		json_object_set_new(base_j, "time_s", json_null());
		json_object_set_new(base_j, "energy_j", json_null());
		json_object_set_new(base_j, "time_improvement", json_null());
		json_object_set_new(base_j, "energy_improvement", json_null());
	}
	{
		json_t *ans = json_pack("{s:o,s:o,s:o,s:{s:o,s:b},s:o,s:I}",
					"best", config_entry(params, &c, best, runs),
					"next", w.want_next ? config_json(params, next) : json_null(),
					"executed", executed,
					"walk", "at", w.end == SIZE_MAX ? json_null() :
					config_json(params, c.cfg + w.end * d), "ended", w.ended,
					"baseline", base_j, "configurations", (json_int_t)n);

		json_object_set_new(json_object_get(ans, "best"), "index", json_integer((json_int_t)c.first[best]));
		resp_json(rs, 200, ans);
	}
out:
	json_decref(owned);
	configs_free(&c);
	free(lo);
	free(hi);
	free(base);
	free(next);
	free(order);
	free(w.executed);
	json_decref(root);
	return 0;
}

/* ---- power variation tables: PUT / GET /api/v1/pvt/{system} ----------------- */

static void pvt_done(struct wjob *job)
{
	struct write_req *w = (struct write_req *)job;
	struct resp *rs = req_resp(w->rq);

	if (job->rc)
		resp_error(rs, &job->err);
	else
		resp_json(rs, 200, json_pack("{s:s,s:I}", "system", job->pvt_system, "modules",
					     (json_int_t)job->npvt));
	free(job->pvt_system);
	free(job->pvt);
	http_resume(w->rq);
	free(w);
}

static int by_module(const void *a, const void *b)
{
	const struct pvt_row *x = a, *y = b;

	return (x->module > y->module) - (x->module < y->module);
}

/* A module given twice: its index, or -1 (n log n, on a sorted copy). */
static long module_twice(const struct pvt_row *rows, size_t n)
{
	struct pvt_row *s = xmalloc(n * sizeof(*s));
	long twice = -1;
	size_t i;

	memcpy(s, rows, n * sizeof(*s));
	qsort(s, n, sizeof(*s), by_module);
	for (i = 1; i < n && twice < 0; i++)
		if (s[i].module == s[i - 1].module)
			twice = s[i].module;
	free(s);
	return twice;
}

static int put_pvt(void *app, struct req *rq, struct resp *rs)
{
	json_t *root = req_json_object(rq, rs), *mods, *m;
	struct pvt_row *rows = NULL;
	struct write_req *w;
	const char *system = req_param(rq);
	size_t n, i;
	long twice;

	if (!root)
		return 0;
	mods = json_object_get(root, "modules");
	if (strlen(system) > RUN_NAME_MAX || !json_is_array(mods) || (n = json_array_size(mods)) == 0 ||
	    n > MODULES_MAX) {
		resp_field_errorf(rs, "modules", -1, "modules must be an array of 1 to %d "
				  "{module, ratio_max, ratio_min}", MODULES_MAX);
		goto fail;
	}
	rows = xcalloc(n, sizeof(*rows));
	json_array_foreach(mods, i, m) {
		json_t *id = json_object_get(m, "module");

		if (!json_is_integer(id) || json_integer_value(id) < 0) {
			resp_field_errorf(rs, "modules.module", (long)i, "modules[%zu].module must be an index, 0 or more", i);
			goto fail;
		}
		rows[i].module = (long)json_integer_value(id);
		if (num(m, "ratio_max", true, &rows[i].ratio_max, rs, "modules.ratio_max", (long)i) ||
		    num(m, "ratio_min", true, &rows[i].ratio_min, rs, "modules.ratio_min", (long)i))
			goto fail;
	}
	twice = module_twice(rows, n);
	if (twice >= 0) {	/* before the writer: the same 400 on either backend */
		resp_field_errorf(rs, "modules", -1, "module %ld appears twice", twice);
		goto fail;
	}
	json_decref(root);
	w = write_req_new(app, rq, WJOB_PVT, pvt_done);
	w->job.pvt_system = xstrdup(system);
	w->job.pvt = rows;
	w->job.npvt = n;
	req_defer(rq, write_req_submit, w);
	return HTTP_PENDING;
fail:
	free(rows);
	json_decref(root);
	return 0;
}

static int add_pvt(const struct pvt_row *row, void *ctx)
{
	json_array_append_new(ctx, json_pack("{s:I,s:f,s:f}", "module", (json_int_t)row->module,
					     "ratio_max", row->ratio_max, "ratio_min", row->ratio_min));
	return 0;
}

static int get_pvt(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	json_t *mods = json_array();
	struct store *st = pool_get(k->readers);
	struct kerr err;
	long n;

	kerr_clear(&err);
	n = store_pvt_each(st, req_param(rq), add_pvt, mods, &err);
	pool_put(k->readers, st);
	if (n <= 0) {
		json_decref(mods);
		if (n < 0)
			resp_error(rs, &err);
		else
			resp_errorf(rs, 404, "there is no power variation table for system %.128s",
				    req_param(rq));
		return 0;
	}
	resp_json(rs, 200, json_pack("{s:s,s:o}", "system", req_param(rq), "modules", mods));
	return 0;
}

struct pvt_mods {
	struct ka_module *m;
	size_t n;
	double mean_max, mean_min;
};

static int add_module(const struct pvt_row *row, void *ctx)
{
	struct pvt_mods *p = ctx;

	p->m = xrealloc(p->m, (p->n + 1) * sizeof(*p->m));
	p->m[p->n++] = ka_pvt_module(row->ratio_max, row->ratio_min, p->mean_max, p->mean_min);
	return 0;
}

/* Modules from the body, or from a stored table: "pvt": SYSTEM with the
 * application's mean powers at f_max and f_min. */
static int modules_of(struct karted *k, json_t *root, struct ka_module **mod, size_t *nm,
		      struct resp *rs)
{
	json_t *mods = json_object_get(root, "modules"), *m, *sys = json_object_get(root, "pvt");
	size_t i;

	if (json_is_string(sys)) {
		struct pvt_mods p = {NULL, 0, 0, 0};
		struct kerr err;
		struct store *st;

		if (num(root, "mean_p_max", true, &p.mean_max, rs, NULL, -1) ||
		    num(root, "mean_p_min", true, &p.mean_min, rs, NULL, -1))
			return -1;
		if (!(p.mean_max > p.mean_min))
			return resp_field_errorf(rs, "mean_p_min", -1, "mean_p_min must be below mean_p_max");
		st = pool_get(k->readers);
		store_pvt_each(st, json_string_value(sys), add_module, &p, &err);
		pool_put(k->readers, st);
		if (!p.n)
			return resp_field_errorf(rs, "pvt", -1, "there is no power variation table for system %.128s "
					 "(PUT /api/v1/pvt/SYSTEM)", json_string_value(sys));
		*mod = p.m;
		*nm = p.n;
		return 0;
	}
	if (!json_is_array(mods) || (*nm = json_array_size(mods)) == 0 || *nm > MODULES_MAX)
		return resp_field_errorf(rs, "modules", -1, "modules must be an array of 1 to %d "
					 "{p_max, p_min} (W), or name a stored table with pvt",
					 MODULES_MAX);
	*mod = xcalloc(*nm, sizeof(**mod));
	json_array_foreach(mods, i, m) {
		if (num(m, "p_max", true, &(*mod)[i].p_max, rs, "modules.p_max", (long)i) ||
		    num(m, "p_min", true, &(*mod)[i].p_min, rs, "modules.p_min", (long)i))
			return -1;
		if (!((*mod)[i].p_max > (*mod)[i].p_min))
			return resp_field_errorf(rs, "modules.p_max", (long)i, "modules[%zu]: p_max must exceed p_min", i);
	}
	return 0;
}

const struct route api_method_routes[] = {
	{"POST", "/api/v1/analysis/powercap", ROUTE_BODY | ROUTE_SLOW, post_powercap, NULL},
	{"POST", "/api/v1/analysis/trace-correction", ROUTE_BODY | ROUTE_SLOW, post_trace, NULL},
	{"POST", "/api/v1/analysis/power-model", ROUTE_BODY | ROUTE_SLOW, post_power_model, NULL},
	{"POST", "/api/v1/analysis/power-model/predict", ROUTE_BODY | ROUTE_SLOW, post_power_predict, NULL},
	{"POST", "/api/v1/analysis/configurations", ROUTE_BODY | ROUTE_SLOW, post_configurations, NULL},
	{"PUT", "/api/v1/pvt/{}", ROUTE_WRITE | ROUTE_BODY, put_pvt, NULL},
	{"GET", "/api/v1/pvt/{}", ROUTE_SLOW, get_pvt, NULL},
	{"POST", "/api/v1/reports/{}", ROUTE_BODY | ROUTE_SLOW, post_report, NULL},
	{NULL, NULL, 0, NULL, NULL},
};
