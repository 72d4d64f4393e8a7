/*
 * Scaling models of HTTP API v1: Extra-P's performance-model normal form
 * (analysis/pmnf.c) fitted to the points a client sends (POST
 * /api/v1/analysis/model) or to a stored series' runs (GET). Each answer
 * carries the model, its fit figures, every point's mean, median and
 * spread beside the model's value and confidence band, predictions where
 * asked, and warnings when the points cannot support the model.
 */
#include <errno.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "karted.h"
#include "model_body.h"
#include "models.h"
#include "analysis/pmnf.h"
#include "api/sort.h"
#include "core/xalloc.h"


/* Limits (documented in the README). The cross-validation of one
 * parameter costs 42 m^2 steps: 1000 coordinates are about 0.1 s. */
#define MODEL_POINTS_MAX 1000	/* distinct coordinates of one model */
#define MODEL_LISTED_MAX 100	/* other n (or p) values named in a GET answer */

/* What a model needs to be believed (each short of it is a warning). */
#define MODEL_FEW_VALUES 5	/* distinct values of a parameter, as Extra-P asks */
#define MODEL_LEAST_VALUES 3	/* fewer: unusable; MODEL_FEW_VALUES and over: may be good */
#define MODEL_NARROW_RANGE 8.0	/* largest / smallest value of a parameter */
#define MODEL_FAR 4.0		/* a prediction this far past the range extrapolates */
#define MODEL_CONFIDENCE 0.95
#define MODEL_POOR_SMAPE 15.0	/* percent: a model missing by more is poor */
#define MODEL_POOR_R2 0.5	/* adjusted R² below: poor (below 0: unusable) */


/* What the answer divides a value at x by: p for a resource model, else 1. */
static double per(const struct model_data *md, const double *x)
{
	return md->resource ? x[md->resource - 1] : 1;
}

static int cmp_obsv(const void *a, const void *b)
{
	const struct obsv *u = a, *v = b;
	int k;

	for (k = 0; k < KA_PMNF_PARAMS; k++)
		if (u->x[k] != v->x[k])
			return u->x[k] < v->x[k] ? -1 : 1;
	return u->v < v->v ? -1 : u->v > v->v;
}

static bool same_point(const struct obsv *a, const struct obsv *b)
{
	return a->x[0] == b->x[0] && a->x[1] == b->x[1];
}

static void model_data_free(struct model_data *md)
{
	free(md->x);
	free(md->mean);
	free(md->median);
	free(md->sd);
	free(md->lo);
	free(md->hi);
	free(md->var);
	free(md->reps);
	md->x = md->mean = md->median = md->sd = md->lo = md->hi = md->var = NULL;
	md->reps = NULL;
}

/* Does the body list each point's values together, the points in the
 * order of their coordinates (what clients send, more often than not)?
 * Then each point's values are sorted alone, as doubles (10^4 values in
 * 50 points: a fraction of one sort of all the structs). */
static bool in_point_order(const struct obsv *o, size_t nv)
{
	size_t i;

	for (i = 1; i < nv; i++)
		if (o[i - 1].x[0] > o[i].x[0] || (o[i - 1].x[0] == o[i].x[0] && o[i - 1].x[1] > o[i].x[1]))
			return false;
	return true;
}

/* Group nv values (sorted here; unused coordinates 0) into md's points.
 * 413 naming field when there are more than MODEL_POINTS_MAX. */
int model_group(struct obsv *o, size_t nv, struct model_data *md, const char *field,
			struct kerr *err)
{
	size_t i, j, m = 0, k;
	double *vals;
	bool each = in_point_order(o, nv);

	if (!each)	/* by coordinates, then values */
		qsort(o, nv, sizeof(*o), cmp_obsv);
	for (i = 0; i < nv; i++)
		m += i == 0 || !same_point(&o[i], &o[i - 1]);
	if (m > MODEL_POINTS_MAX)
		return kerr_field(err, KERR_TOO_LARGE, field,
				  "the values sit at %zu distinct coordinates, more than the %d one "
				  "model fits; send fewer", m, MODEL_POINTS_MAX);
	md->m = m;
	md->nvalues = nv;
	md->x = xmalloc(m * (size_t)md->nparams * sizeof(double));
	md->mean = xmalloc(m * sizeof(double));
	md->median = xmalloc(m * sizeof(double));
	md->sd = xmalloc(m * sizeof(double));
	md->lo = xmalloc(m * sizeof(double));
	md->hi = xmalloc(m * sizeof(double));
	md->var = xmalloc(m * sizeof(double));
	md->reps = xmalloc(m * sizeof(size_t));
	vals = xmalloc(nv * sizeof(double));
	md->repeated = true;
	for (i = 0, m = 0; i < nv; i = j, m++) {
		size_t r;

		for (j = i; j < nv && same_point(&o[j], &o[i]); j++)
			vals[j - i] = o[j].v;
		r = j - i;
		if (each)
			sort_doubles(vals, r);	/* ascending within the point */
		for (k = 0; k < (size_t)md->nparams; k++)
			md->x[m * (size_t)md->nparams + k] = o[i].x[k];
		md->reps[m] = r;
		md->mean[m] = gsl_stats_mean(vals, 1, r);
		md->median[m] = gsl_stats_median_from_sorted_data(vals, 1, r);
		md->sd[m] = r > 1 ? gsl_stats_sd_m(vals, 1, r, md->mean[m]) : 0;
		md->var[m] = r > 1 ? md->sd[m] * md->sd[m] / (double)r : 0;
		md->lo[m] = vals[0];
		md->hi[m] = vals[r - 1];
		md->repeated = md->repeated && r > 1;
	}
	free(vals);
	return 0;
}

static int model_fit(const struct model_data *md, struct ka_pmnf_model *mdl, struct kerr *err)
{
	double *work;
	int rc;

	if (md->nparams == 1) {
		work = xmalloc(3 * md->m * sizeof(double));
		rc = ka_pmnf_single(md->x, md->mean, md->m, work, mdl);
		free(work);
	} else {
		rc = ka_pmnf_multi(md->x, md->mean, md->m, mdl);
	}
	if (rc == -KA_ESPACE)
		return kerr_set(err, KERR_STORE, "out of memory while modelling; try again");
	if (rc)
		return kerr_set(err, KERR_INVALID, "these points cannot be modelled (a value or coordinate "
				"out of range)");
	ka_pmnf_drop_noise(mdl, md->x, md->m);
	return 0;
}

/* ---- the answer ------------------------------------------------------------ */

static json_t *coords_json(const double *x, int nparams)
{
	json_t *a = json_array();
	int k;

	for (k = 0; k < nparams; k++)
		json_array_append_new(a, json_real(x[k]));
	return a;
}

static json_t *terms_json(const struct model_data *md, const struct ka_pmnf_model *mdl)
{
	json_t *terms = json_array();
	int t, f;

	for (t = 0; t < mdl->nterms; t++) {
		json_t *factors = json_array();

		for (f = 0; f < mdl->t[t].nfactors; f++) {
			const struct ka_pmnf_factor *fa = &mdl->t[t].f[f];

			json_array_append_new(
				factors, json_pack("{s:s,s:f,s:i}", "parameter", md->names[fa->param],
						   "exponent", (double)fa->num / fa->den,
						   "log_exponent", fa->log));
		}
		json_array_append_new(terms, json_pack("{s:o,s:o}", "coefficient",
						       json_finite(mdl->t[t].coef), "factors", factors));
	}
	return terms;
}

/* Each parameter's smallest and largest value and how many differ. */
struct ranges {
	double lo[KA_PMNF_PARAMS], hi[KA_PMNF_PARAMS];
	size_t distinct[KA_PMNF_PARAMS];
};

static void param_ranges(const struct model_data *md, struct ranges *rg)
{
	size_t np = (size_t)md->nparams, i, j, k;

	for (k = 0; k < np; k++) {
		rg->lo[k] = INFINITY, rg->hi[k] = -INFINITY, rg->distinct[k] = 0;
		for (i = 0; i < md->m; i++) {	/* m <= MODEL_POINTS_MAX: m^2 is small */
			double v = md->x[i * np + k];

			for (j = 0; j < i && md->x[j * np + k] != v; j++)
				;
			rg->distinct[k] += j == i;
			rg->lo[k] = fmin(rg->lo[k], v);
			rg->hi[k] = fmax(rg->hi[k], v);
		}
	}
}

static void warnings_json(json_t *w, const struct model_data *md, const struct ka_pmnf_model *mdl,
			  const struct ranges *rg, const struct ka_band *b, bool far)
{
	int k;

	for (k = 0; k < md->nparams; k++) {
		double lo = rg->lo[k], hi = rg->hi[k];
		size_t d = rg->distinct[k];	/* too few: a quality reason */

		if (d > 1 && hi / lo < MODEL_NARROW_RANGE)
			json_array_append_new(
				w, json_sprintf("%s spans only %g to %g (a factor of %.3g): over less "
						"than a factor of %g the exponents are hard to tell "
						"apart, so extrapolate with care",
						md->names[k], lo, hi, hi / lo, MODEL_NARROW_RANGE));
	}
	if (b->from == KA_BAND_RESIDUALS)
		json_array_append_new(w, json_string("some points have one value: the band comes from "
						     "the scatter around the model, not from "
						     "repeated runs"));
	else if (b->from == KA_BAND_NONE)
		json_array_append_new(w, json_sprintf("no confidence band: the points have no "
						      "repetitions and are too few for the model's "
						      "%d coefficients", mdl->nterms + 1));
	if (far)
		json_array_append_new(w, json_sprintf("a prediction lies more than %g times beyond "
						      "the measured range: it rests on the model "
						      "alone", MODEL_FAR));
}


void model_fitted_free(struct fitted *f)
{
	model_data_free(&f->md);
	free(f->b.cov);
	f->b.cov = NULL;
	f->b.from = KA_BAND_NONE;
}

/* Fit f->md (grouped) and work out the band. */
int model_fit_band(struct fitted *f, struct kerr *err)
{
	f->b.cov = NULL;
	f->b.from = KA_BAND_NONE;
	if (model_fit(&f->md, &f->mdl, err))
		return -1;
	f->b.cov = xmalloc(((size_t)f->mdl.nterms + 1) * ((size_t)f->mdl.nterms + 1) * sizeof(double));
	ka_pmnf_band(&f->mdl, f->md.x, f->md.mean, f->md.repeated ? f->md.var : NULL, f->md.m,
		     f->md.nvalues, MODEL_CONFIDENCE, &f->b);
	return 0;
}

/* The model's value at x and the half-width of its band (NAN: none). */
static double model_at(const struct fitted *f, const double *x, double *half)
{
	*half = f->b.from != KA_BAND_NONE ? f->b.q * ka_pmnf_se(&f->mdl, f->b.cov, x) : NAN;
	return ka_pmnf_eval(&f->mdl, x);
}

/* {"model", "low", "high"} at x into o, in the metric's units (a resource
 * model's divided by p). */
static void put_value(json_t *o, const struct fitted *f, const double *x)
{
	double d = per(&f->md, x), h, v = model_at(f, x, &h) / d;

	h /= d;
	json_object_set_new(o, "model", json_finite(v));
	json_object_set_new(o, "low", json_finite(v - h));
	json_object_set_new(o, "high", json_finite(v + h));
}

/* The function as text; a resource model's as "(...) / p". */
static void model_text(const struct model_data *md, const struct ka_pmnf_model *mdl, char *text,
		       size_t size)
{
	char fn[960];	/* room for "(" fn ") / p" in the callers' 1024 */

	ka_pmnf_format(mdl, md->names, fn, sizeof(fn));
	if (md->resource)
		snprintf(text, size, "(%s) / p", fn);	/* resource is always over p */
	else
		snprintf(text, size, "%s", fn);
}

/* A constant model explains none of the variance: no adjusted R² (Extra-P
 * writes 1 there as a placeholder). */
static bool has_r2(const struct ka_pmnf_model *mdl)
{
	return mdl->nterms > 0 && isfinite(mdl->adj_r2);
}

/* The model's quality, as the contract reads it (docs/methods.md): with a
 * sentence for each reason into reasons. A parameter of fewer than
 * MODEL_LEAST_VALUES distinct values makes it unusable, of fewer than
 * MODEL_FEW_VALUES at best poor; a constant model is judged on SMAPE. */
static const char *model_quality(const struct fitted *f, json_t *reasons)
{
	const struct model_data *md = &f->md;
	const struct ka_pmnf_model *mdl = &f->mdl;
	bool positive = true, unusable = false, poor = false;
	double h, v, worst = INFINITY;
	const double *at = NULL;
	struct ranges rg;
	char where[128];
	size_t i;
	int k;

	param_ranges(md, &rg);
	for (k = 0; k < md->nparams; k++) {
		size_t d = rg.distinct[k];

		if (d < MODEL_LEAST_VALUES) {
			json_array_append_new(reasons, json_sprintf("%s takes %zu distinct value%s: a model "
								    "needs at least %d to be more than a "
								    "line through its points", md->names[k], d,
								    d == 1 ? "" : "s", MODEL_LEAST_VALUES));
			unusable = true;
		} else if (d < MODEL_FEW_VALUES) {
			json_array_append_new(reasons, json_sprintf("%s takes only %zu distinct values: "
								    "Extra-P asks for %d, so this model is at "
								    "best poor", md->names[k], d,
								    MODEL_FEW_VALUES));
			poor = true;
		}
	}
	for (i = 0; i < md->m; i++)
		positive = positive && md->lo[i] > 0;
	for (i = 0; positive && i < md->m; i++) {
		v = model_at(f, md->x + i * (size_t)md->nparams, &h) / per(md, md->x + i * (size_t)md->nparams);
		if (!(v > 0) && !(v >= worst)) {
			worst = v;
			at = md->x + i * (size_t)md->nparams;
		}
	}
	if (at) {
		size_t len = 0;

		for (k = 0; k < md->nparams; k++)
			len += (size_t)snprintf(where + len, sizeof(where) - len, "%s%s = %g", k ? ", " : "",
						md->names[k], at[k]);
		json_array_append_new(reasons, json_sprintf("the model is %.4g at %s, where every measured "
							    "value is above 0", worst, where));
		unusable = true;
	}
	if (has_r2(mdl) && mdl->adj_r2 < 0) {
		json_array_append_new(reasons, json_sprintf("adjusted R² is %.3g: the model explains less "
							    "than the mean does", mdl->adj_r2));
		unusable = true;
	} else if (has_r2(mdl) && mdl->adj_r2 < MODEL_POOR_R2) {
		json_array_append_new(reasons, json_sprintf("adjusted R² is %.3g, below %g",
							    mdl->adj_r2, MODEL_POOR_R2));
		poor = true;
	}
	if (isfinite(mdl->smape) && mdl->smape > MODEL_POOR_SMAPE) {
		json_array_append_new(reasons, json_sprintf("its cross-validated SMAPE is %.4g %%, above "
							    "%g %%: it misses measured points by that much",
							    mdl->smape, MODEL_POOR_SMAPE));
		poor = true;
	}
	return unusable ? "unusable" : poor ? "poor" : "good";
}

/* The answer for f's model: the model, its fit figures and warnings; with
 * with_points also each point's spread beside the model, and the
 * predictions at npred coordinates pred. */
json_t *model_answer_json(const struct fitted *f, const double *pred, size_t npred,
			  bool with_points)
{
	const struct model_data *md = &f->md;
	const struct ka_pmnf_model *mdl = &f->mdl;
	char text[1024];
	json_t *body, *meas = json_array(), *preds = json_array(), *params = json_array(), *o;
	json_t *reasons = json_array();
	const char *quality = model_quality(f, reasons);
	bool far = false, unusable = !strcmp(quality, "unusable"), withheld = false;
	struct ranges rg;
	size_t i;
	int k;

	model_text(md, mdl, text, sizeof(text));
	param_ranges(md, &rg);
	for (k = 0; k < md->nparams; k++)
		json_array_append_new(params, json_string(md->names[k]));
	for (i = 0; with_points && i < md->m; i++) {
		const double *x = md->x + i * (size_t)md->nparams;
		double d = per(md, x);

		o = json_pack("{s:o,s:I,s:f,s:f,s:f,s:f,s:f}", "coordinates",
			      coords_json(x, md->nparams), "repetitions", (json_int_t)md->reps[i],
			      "mean", md->mean[i] / d, "median", md->median[i] / d, "sd",
			      md->sd[i] / d, "min", md->lo[i] / d, "max", md->hi[i] / d);
		put_value(o, f, x);
		json_array_append_new(meas, o);
	}
	for (i = 0; i < npred; i++) {
		const double *x = pred + i * (size_t)md->nparams;
		bool beyond = false;

		for (k = 0; k < md->nparams; k++) {
			beyond = beyond || x[k] > rg.hi[k] || x[k] < rg.lo[k];
			far = far || x[k] > MODEL_FAR * rg.hi[k] || x[k] < rg.lo[k] / MODEL_FAR;
		}
		o = json_pack("{s:o,s:b}", "coordinates", coords_json(x, md->nparams), "extrapolated",
			      beyond);
		if (beyond && unusable) {	/* nothing extrapolated from an unusable model */
			json_object_update_new(o, json_pack("{s:n,s:n,s:n}", "model", "low", "high"));
			withheld = true;
		} else {
			put_value(o, f, x);
		}
		json_array_append_new(preds, o);
	}
	body = json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:I,s:I,s:o,s:f,s:s}", "function", text,
			 "constant", json_finite(mdl->constant), "terms", terms_json(md, mdl), "rss",
			 json_finite(mdl->rss), "smape", json_finite(mdl->smape), "adj_r2",
			 has_r2(mdl) ? json_real(mdl->adj_r2) : json_null(), "points", (json_int_t)mdl->points, "dof",
			 (json_int_t)mdl->dof, "parameters", params, "confidence", MODEL_CONFIDENCE,
			 "band_from", ka_band_name(f->b.from));
	if (with_points) {
		json_object_set_new(body, "measurements", meas);
		json_object_set_new(body, "predictions", preds);
	} else {
		json_decref(meas);
		json_decref(preds);
	}
	o = json_array();
	warnings_json(o, md, mdl, &rg, &f->b, far);
	if (withheld)
		json_array_append_new(o, json_string("the model is unusable: predictions beyond the "
						     "measured range are left out (null)"));
	json_object_set_new(body, "warnings", o);
	json_object_set_new(body, "quality", json_string(quality));
	json_object_set_new(body, "quality_reasons", reasons);
	if (f->resource_reason[0]) {
		json_object_set_new(body, "resource", json_boolean(md->resource));
		json_object_set_new(body, "resource_reason", json_string(f->resource_reason));
	}
	return body;
}

/* Model f->md and answer it (200), or the error. */
static void answer_model(struct resp *rs, struct fitted *f, const double *pred, size_t npred,
			 json_t *extra)
{
	struct kerr err;
	json_t *body;

	kerr_clear(&err);
	if (model_fit_band(f, &err)) {
		resp_error(rs, &err);
		json_decref(extra);
		return;
	}
	body = model_answer_json(f, pred, npred, true);
	if (extra)
		json_object_update_new(body, extra);
	resp_json(rs, 200, body);
}

/* ---- the reading: the metric, or p times it --------------------------------------- */

/* md's values multiplied by its one parameter, p: the resource, which the
 * answer divides by p again. */
static void as_resource(struct model_data *md)
{
	size_t i;

	for (i = 0; i < md->m; i++) {
		double p = md->x[i];

		md->mean[i] *= p, md->median[i] *= p, md->sd[i] *= p;
		md->lo[i] *= p, md->hi[i] *= p, md->var[i] *= p * p;
	}
	md->resource = 1;
}

/* Extra-P 4.2's check for strong scaling, on md grouped over one
 * parameter p: the means fall at every step of at least
 * MODEL_LEAST_VALUES distinct p. Then md becomes the resource (p times
 * the metric); either way why says so, naming metric. */
static void resource_auto(struct model_data *md, const char *metric, char *why, size_t size)
{
	size_t i;

	if (md->nparams != 1 || strcmp(md->names[0], "p")) {
		snprintf(why, size, "modelled as measured: the model is over %s, and only a model over p "
			 "at one n can be strong scaling", md->nparams == 1 ? md->names[0] : "two parameters");
		return;
	}
	if (md->m < MODEL_LEAST_VALUES) {
		snprintf(why, size, "modelled as measured: with %zu distinct p strong scaling cannot be "
			 "told (Extra-P's check needs %d)", md->m, MODEL_LEAST_VALUES);
		return;
	}
	for (i = 1; i < md->m; i++)
		if (!(md->mean[i] < md->mean[i - 1])) {
			snprintf(why, size, "modelled as measured: %s does not fall at every step of p (from "
				 "p = %g to %g its mean goes from %.4g to %.4g)", metric, md->x[i - 1], md->x[i],
				 md->mean[i - 1], md->mean[i]);
			return;
		}
	as_resource(md);
	snprintf(why, size, "%s falls at every step of the %zu measured p (strong scaling): modelled as "
		 "p × %s and divided by p again, as Extra-P 4.2 does, since its terms never fall", metric,
		 md->m, metric);
}

/* resource=true|false|auto of the query (def when absent). */
int model_query_resource(struct req *rq, enum model_resource def, enum model_resource *out,
			  struct kerr *err)
{
	const char *s = req_query(rq, "resource");

	*out = def;
	if (!s)
		return 0;
	if (!strcmp(s, "auto"))
		*out = MODEL_RESOURCE_AUTO;
	else if (!strcmp(s, "true") || !strcmp(s, "1"))
		*out = MODEL_RESOURCE;
	else if (!strcmp(s, "false") || !strcmp(s, "0"))
		*out = MODEL_AS_GIVEN;
	else
		return kerr_field(err, KERR_INVALID, "resource", "resource must be true, false or auto");
	return 0;
}

/* The reading asked for, applied to f->md once grouped, with its reason. */
static void choose_reading(struct fitted *f, enum model_resource asked, const char *metric)
{
	if (asked == MODEL_RESOURCE_AUTO)
		resource_auto(&f->md, metric, f->resource_reason, sizeof(f->resource_reason));
	else if (asked == MODEL_RESOURCE)
		snprintf(f->resource_reason, sizeof(f->resource_reason), "resource=true: modelled as p × %s "
			 "and divided by p again", metric);
	else
		snprintf(f->resource_reason, sizeof(f->resource_reason), "%s modelled as measured "
			 "(resource=false)", metric);
}

/* ---- POST /api/v1/analysis/model ---------------------------------------------- */

/* The body (model_body.h): {"parameters": ["p"], "points": [{"coordinates":
 * [4], "values": [1.2, 1.22]}, ...]} with an optional "predict": [[1024], ...]. */
static int post_model(void *app, struct req *rq, struct resp *rs)
{
	struct model_body mb;
	struct fitted f = {0};
	const char *body;
	size_t len;
	struct kerr err;
	int i;

	(void)app;
	body = req_body(rq, &len);
	if (model_body_read(body, len, &mb, &err))
		goto out;
	f.md.nparams = mb.nparams;
	for (i = 0; i < mb.nparams; i++)
		f.md.names[i] = mb.names[i];
	if (mb.resource == MODEL_RESOURCE && !(mb.nparams == 1 && !strcmp(mb.names[0], "p"))) {
		kerr_field(&err, KERR_INVALID, "resource", "resource=true models p times the values, so the "
			   "one parameter must be p");
		goto out;
	}
	if (model_group(mb.o, mb.nv, &f.md, "points", &err))
		goto out;
	if (mb.resource == MODEL_RESOURCE)
		as_resource(&f.md);
	choose_reading(&f, mb.resource, "the values");
	answer_model(rs, &f, mb.pred, mb.npred, NULL);
out:
	if (err.code)
		resp_error(rs, &err);
	model_fitted_free(&f);
	model_body_free(&mb);
	return 0;
}

/* ---- GET /api/v1/analysis/model --------------------------------------------------- */



static int parse_metric(const char *s, struct metric *m, struct kerr *err)
{
	if (!strcmp(s, "tau"))
		m->kind = M_TAU;
	else if (!strcmp(s, "chi"))
		m->kind = M_CHI;
	else if (!strcmp(s, "gamma"))
		m->kind = M_GAMMA;
	else if (!strncmp(s, "region:", 7) && s[7] && strlen(s + 7) < sizeof(m->key))
		m->kind = M_REGION, m->region = s + 7;
	else
		return kerr_field(err, KERR_INVALID, "metric", "metric must be tau, chi, gamma or "
				  "region:NAME (a region's name, or its call path \"main->solve\", of 1 to "
				  "%zu bytes)", sizeof(m->key) - 1);
	if (m->kind == M_REGION) {	/* "a->b" as a key: names joined by RUN_PATH_SEP */
		const char *in = m->region;
		size_t len = 0;

		while (*in) {
			if (in[0] == '-' && in[1] == '>')
				m->key[len++] = RUN_PATH_SEP, in += 2;
			else
				m->key[len++] = *in++;
		}
		m->key[len] = '\0';
	}
	return 0;
}

/* The metric's value in run r; NAN when the run does not carry it. */
static double metric_value(const struct metric *m, const struct series_run *r)
{
	json_t *reg;
	size_t i;

	switch (m->kind) {
	case M_TAU:
		return r->tau;
	case M_CHI:
		return r->chi;
	case M_GAMMA:
		return r->gamma;
	case M_REGION:
		json_array_foreach(r->regions, i, reg) {
			json_t *t = json_object_get(reg, "time_s");
			char key[RUN_KEY_SIZE];

			if (run_region_key(reg, key, sizeof(key)) && !strcmp(key, m->key))
				return json_is_number(t) ? json_number_value(t) : NAN;
		}
		return NAN;
	}
	return NAN;
}

/* parameters=p|n|p,n|n,p: the names and which run field each is. */
int model_parameters(const char *s, struct model_data *md, bool *is_p, struct kerr *err)
{
	static const char *const forms[] = {"p", "n", "p,n", "n,p"};
	size_t f;

	if (!s)
		s = "p";
	for (f = 0; f < 4 && strcmp(s, forms[f]); f++)
		;
	if (f == 4)
		return kerr_field(err, KERR_INVALID, "parameters", "parameters must be p, n or p,n");
	md->nparams = f < 2 ? 1 : 2;
	md->names[0] = f == 1 || f == 3 ? "n" : "p";
	md->names[1] = f == 3 ? "p" : "n";
	is_p[0] = md->names[0][0] == 'p';
	is_p[1] = md->names[1][0] == 'p';
	return 0;
}

/* A value per (fixed, free) pair: how many distinct free values each fixed
 * one has; the fixed value with the most (ties: the largest), and up to
 * MODEL_LISTED_MAX of them into list. */
static double busiest(struct obsv *o, size_t nv, const char *name, json_t *list)
{
	double best = NAN;
	size_t i, j, count, best_count = 0, listed = 0;

	qsort(o, nv, sizeof(*o), cmp_obsv);	/* x[0] fixed, x[1] free */
	for (i = 0; i < nv; i = j) {
		for (j = i, count = 0; j < nv && o[j].x[0] == o[i].x[0]; j++)
			count += j == i || o[j].x[1] != o[j - 1].x[1];
		if (count >= best_count)
			best = o[i].x[0], best_count = count;
		if (listed++ < MODEL_LISTED_MAX)
			json_array_append_new(list, json_pack("{s:f,s:I}", name, o[i].x[0], "points",
							      (json_int_t)count));
	}
	return best;
}

static int cmp_free_first(const void *a, const void *b)
{
	const struct obsv *u = a, *v = b;

	if (u->x[1] != v->x[1])
		return u->x[1] < v->x[1] ? -1 : 1;
	return u->x[0] < v->x[0] ? -1 : u->x[0] > v->x[0];
}

/* Weak scaling along the modelled parameter: each of its values was run
 * at one value of the fixed one, and those differ (n grown with p). */
static bool one_fixed_each(struct obsv *o, size_t nv)
{
	size_t i;
	bool varies = false;

	qsort(o, nv, sizeof(*o), cmp_free_first);
	for (i = 1; i < nv; i++) {
		if (o[i].x[1] == o[i - 1].x[1] && o[i].x[0] != o[i - 1].x[0])
			return false;
		varies = varies || o[i].x[0] != o[0].x[0];
	}
	return varies;
}

/* The number at key, above 0: absent leaves *out NAN. */
int model_query_positive(struct req *rq, const char *key, double *out, struct kerr *err)
{
	const struct field f = {key, FIELD_NUMBER, FIELD_ABOVE_LO, 0, MODEL_MAGNITUDE, out, 0};

	*out = NAN;
	return fields_read(rq, NULL, &f, 1, err);
}

/* predict=X,Y,... (one parameter) or predict=P:N,... (two). */
static int query_predict(struct req *rq, int nparams, double **pred, size_t *npred,
			 struct kerr *err)
{
	const char *s = req_query(rq, "predict");
	char *end;
	size_t n = 0;
	int k;

	*npred = 0;
	if (!s)
		return 0;
	*pred = xmalloc(MODEL_PREDICT_MAX * (size_t)nparams * sizeof(double));
	while (*s) {
		if (n == MODEL_PREDICT_MAX)
			return kerr_field(err, KERR_INVALID, "predict", "predict takes at most %d coordinates",
					  MODEL_PREDICT_MAX);
		for (k = 0; k < nparams; k++) {
			double v;

			errno = 0;
			v = strtod(s, &end);
			if (end == s || errno || !(v > 0) || v > MODEL_MAGNITUDE ||
			    (k + 1 < nparams ? *end != ':' : *end && *end != ','))
				return kerr_field(err, KERR_INVALID, "predict", "predict must be a comma-"
						  "separated list of %s above 0", nparams == 1 ?
						  "numbers" : "p:n pairs");
			(*pred)[n * (size_t)nparams + (size_t)k] = v;
			s = *end ? end + 1 : end;
		}
		n++;
	}
	*npred = n;
	return 0;
}


static void model_sel_free(struct model_sel *sel)
{
	json_decref(sel->series);
	json_decref(sel->values);
	sel->series = sel->values = NULL;
}

/* metric, parameters, n, p and resource of the query, checked together. */
int model_sel_runs(struct req *rq, struct model_data *md, struct model_sel *sel, struct kerr *err)
{
	if (model_parameters(req_query(rq, "parameters"), md, sel->is_p, err) ||
	    model_query_positive(rq, "n", &sel->fixed_n, err) || model_query_positive(rq, "p", &sel->fixed_p, err) ||
	    model_query_resource(rq, MODEL_RESOURCE_AUTO, &sel->resource, err))
		return -1;
	if (sel->resource == MODEL_RESOURCE && md->nparams == 1 && !sel->is_p[0])
		return kerr_field(err, KERR_INVALID, "resource", "resource=true models p times the metric, "
				  "so parameters must include p");
	if (sel->resource == MODEL_RESOURCE)	/* which parameter is p, plus one */
		md->resource = md->nparams == 2 && sel->is_p[1] ? 2 : 1;
	if (md->nparams == 2 && (!isnan(sel->fixed_n) || !isnan(sel->fixed_p)))
		return kerr_field(err, KERR_INVALID, isnan(sel->fixed_n) ? "p" : "n", "parameters=p,n "
				  "models every run; n= and p= choose the runs of one-parameter models");
	if (md->nparams == 1 && !isnan(sel->is_p[0] ? sel->fixed_p : sel->fixed_n))
		return kerr_field(err, KERR_INVALID, sel->is_p[0] ? "p" : "n", "parameters=%s models over "
				  "%s; choose the runs with %s= instead", md->names[0], md->names[0],
				  sel->is_p[0] ? "n" : "p");
	return 0;
}

/* metric, parameters, n, p and resource of the query, checked together. */
static int model_sel_read(struct req *rq, struct model_data *md, struct model_sel *sel, struct kerr *err)
{
	memset(sel, 0, sizeof(*sel));
	sel->metric_name = req_query(rq, "metric") ? req_query(rq, "metric") : "tau";
	sel->chosen = NAN;
	if (parse_metric(sel->metric_name, &sel->metric, err))
		return -1;
	return model_sel_runs(rq, md, sel, err);
}

/* The runs at the frequency that carry the metric, into o (room for
 * sd->nall): x[0] the fixed parameter and x[1] the modelled one for one
 * parameter, (parameters[0], parameters[1]) for two. */
static size_t model_values(const struct series_data *sd, const struct model_data *md,
			   struct model_sel *sel, struct obsv *o)
{
	const bool *is_p = sel->is_p;
	size_t i, nv = 0;

	for (i = 0; i < sd->nall; i++) {
		const struct series_run *r = &sd->all[i];
		double v, p = (double)r->p;

		if (!series_same_frequency(r->freq, sel->freq))
			continue;
		if (isnan(v = metric_value(&sel->metric, r))) {
			sel->skipped++;
			continue;
		}
		v *= sel->resource == MODEL_RESOURCE ? p : 1;
		if (md->nparams == 2)
			o[nv++] = (struct obsv){{is_p[0] ? p : r->n, is_p[1] ? p : r->n}, v};
		else
			o[nv++] = (struct obsv){{is_p[0] ? r->n : p, is_p[0] ? p : r->n}, v};
	}
	return nv;
}

/* One parameter: every run when they scale weakly along it, else the runs
 * at the fixed value asked for (or the one with the most points). */
int model_choose(const struct model_data *md, struct model_sel *sel, struct obsv *o,
			size_t *nv, struct kerr *err)
{
	double want = sel->is_p[0] ? sel->fixed_n : sel->fixed_p;
	size_t i, kept = 0;

	if (md->nparams != 1)
		return 0;
	if (isnan(want) && one_fixed_each(o, *nv)) {
		for (i = 0; i < *nv; i++)
			o[i] = (struct obsv){{o[i].x[1], 0}, o[i].v};
		sel->weak = true;
		return 0;
	}
	sel->fixed_name = sel->is_p[0] ? "n" : "p";
	sel->values = json_array();
	sel->chosen = busiest(o, *nv, sel->fixed_name, sel->values);
	if (!isnan(want))
		sel->chosen = want;
	for (i = 0; i < *nv; i++)
		if (o[i].x[0] == sel->chosen)
			o[kept++] = (struct obsv){{o[i].x[1], 0}, o[i].v};
	if (kept == 0)
		return kerr_field(err, KERR_NOT_FOUND, sel->fixed_name, "series %s has no %s runs at %s=%g "
				  "(%s_values in GET /api/v1/analysis/model lists them)", sel->name,
				  sel->metric.kind == M_REGION ? sel->metric.region : "such", sel->fixed_name,
				  want, sel->fixed_name);
	*nv = kept;
	return 0;
}

/* The metric as the pages name it. */
static const char *metric_words(const struct model_sel *sel, char *buf, size_t size)
{
	static const char *const sym[] = {[M_TAU] = "τ", [M_CHI] = "χ", [M_GAMMA] = "γ"};

	if (sel->metric.kind != M_REGION)
		return sym[sel->metric.kind];
	snprintf(buf, size, "the time in %.*s", RUN_NAME_MAX, sel->metric.region);
	return buf;
}

void model_sel_reading_as(struct model_data *md, struct model_sel *sel, const char *m)
{
	struct fitted f = {.md = *md};

	if (sel->resource == MODEL_RESOURCE_AUTO && sel->weak)
		snprintf(f.resource_reason, sizeof(f.resource_reason), "modelled as measured: each p ran at "
			 "its own n (weak scaling), and only a model over p at one n can be strong scaling");
	else
		choose_reading(&f, sel->resource, m);
	*md = f.md;
	memcpy(sel->resource_reason, f.resource_reason, sizeof(sel->resource_reason));
}

/* The reading of sel->resource applied to md (grouped), its reason into sel. */
static void model_sel_reading(struct model_data *md, struct model_sel *sel)
{
	char words[RUN_NAME_MAX + 16];

	model_sel_reading_as(md, sel, metric_words(sel, words, sizeof(words)));
}

double model_value(const struct fitted *f, const double *x)
{
	double h;

	return model_at(f, x, &h) / per(&f->md, x);
}

/* The runs of a stored series' metric grouped for a one- or two-parameter
 * model into md, as the query asks (metric, parameters, n, p,
 * frequency_mhz, label.K=V), and what was chosen into sel. */
static int series_model(struct karted *k, struct req *rq, const char *sys, const char *app,
			const char *var, const struct label_set *ls, struct model_data *md,
			struct model_sel *sel, struct kerr *err)
{
	struct series_data sd = {0};
	struct obsv *o = NULL;
	size_t nv;
	int rc = -1;

	if (model_sel_read(rq, md, sel, err) ||
	    series_load_in(k, rq, sys, app, var, ls, sel->metric.kind == M_REGION ?
			   SERIES_WITH_REGIONS | SERIES_WITH_TREE : SERIES_ALL_RUNS, &sd, err) ||
	    series_frequency(&sd, req_query(rq, "frequency_mhz"), &sel->freq, err))
		goto out;
	snprintf(sel->name, sizeof(sel->name), "%s", series_label(&sd));
	sel->series = series_json(&sd);
	o = xmalloc((sd.nall ? sd.nall : 1) * sizeof(*o));
	if (!(nv = model_values(&sd, md, sel, o))) {
		kerr_field(err, sel->metric.kind == M_REGION ? KERR_NOT_FOUND : KERR_INVALID, "metric",
			   "no run of series %s%s carries %s%s", sel->name, isnan(sel->freq) ? "" :
			   " at this frequency", sel->metric.kind == M_REGION ? "region " : "",
			   sel->metric.kind == M_REGION ? sel->metric.region : sel->metric_name);
		goto out;
	}
	rc = model_choose(md, sel, o, &nv, err) || model_group(o, nv, md, "series", err) ? -1 : 0;
	if (rc == 0)
		model_sel_reading(md, sel);
out:
	series_free(&sd);
	free(o);
	return rc;
}

/* The answer's fields about the series and the choice. */
static json_t *model_sel_json(const struct model_sel *sel)
{
	json_t *o = json_pack("{s:O,s:s,s:o,s:{s:I},s:s}", "series", sel->series, "metric",
			      sel->metric_name, "frequency_mhz", json_finite(sel->freq), "skipped",
			      "no_value", (json_int_t)sel->skipped, "scaling", sel->weak ? "weak" :
			      sel->fixed_name ? "strong" : "grid");

	if (sel->fixed_name) {
		char key[16];

		json_object_set_new(o, sel->fixed_name, json_real(sel->chosen));
		snprintf(key, sizeof(key), "%s_values", sel->fixed_name);
		json_object_set(o, key, sel->values);
	}
	return o;
}

static int get_model(void *app, struct req *rq, struct resp *rs)
{
	struct fitted f = {0};
	struct model_sel sel;
	double *pred = NULL;
	size_t npred = 0;
	struct kerr err;

	kerr_clear(&err);
	/* predict's form depends on parameters, which series_model checks */
	if (series_model(app, rq, req_query(rq, "system"), req_query(rq, "application"),
			 req_query(rq, "variant"), NULL, &f.md, &sel, &err) ||
	    query_predict(rq, f.md.nparams, &pred, &npred, &err)) {
		resp_error(rs, &err);
	} else {
		memcpy(f.resource_reason, sel.resource_reason, sizeof(f.resource_reason));
		answer_model(rs, &f, pred, npred, model_sel_json(&sel));
	}
	model_sel_free(&sel);
	model_fitted_free(&f);
	free(pred);
	return 0;
}

/* ---- the models in Orii's method ---------------------------------------------------
 * Extra-P's exponents are never negative, so karte models what grows with
 * p: the work W = p·gamma, the overhead To = p·chi and the resource R =
 * p·tau, each over (p, n) for a grid or over p for one n. Then eps = W /
 * (W + To) and tau = R / p (analysis/pmnf.h). */

#define ISO_CURVE_POINTS 33	/* p values of a predicted isoefficiency function */
#define ISO_P_BEYOND 4.0	/* it runs this far past the largest measured p */
#define ISO_N_BELOW 16.0	/* the n searched: the smallest measured / this ... */
#define ISO_N_ABOVE 1e4		/* ... to the largest measured * this */
#define TURN_P_BEYOND 1024.0	/* where tau stops falling, sought this far past */

enum { Q_WORK, Q_OVERHEAD, Q_RESOURCE, Q_COUNT };

struct iso_fit {
	int nparams;		/* 2: a grid over (p, n); 1: one n, over p */
	double n1;		/* nparams 1: that n */
	struct fitted f[Q_COUNT];
	double plo, phi, nlo, nhi;	/* the measured ranges */
};

static void iso_fit_free(struct iso_fit *q)
{
	int k;

	for (k = 0; k < Q_COUNT; k++)
		model_fitted_free(&q->f[k]);
}

/* The three models of sd's runs: 0; 1 with *why when the series' points
 * cannot carry them; -1 with err. */
static int iso_fit(const struct series_data *sd, const struct ka_obs *obs, size_t nobs,
		   struct iso_fit *q, const char **why, struct kerr *err)
{
	int64_t *w;
	double npp;
	enum ka_scaling kind;
	struct obsv *o;
	size_t i;
	int k;

	if (nobs > MODEL_POINTS_MAX) {
		*why = "the series has more than 1000 (p, n) points, more than one model fits; "
		       "model a part of it with GET /api/v1/analysis/model";
		return 1;
	}
	w = xmalloc((nobs ? nobs : 1) * sizeof(*w));
	kind = ka_scaling_kind(obs, nobs, w, &npp);
	free(w);
	if (kind != KA_SCALING_GRID && kind != KA_SCALING_STRONG) {
		*why = "the models of work and overhead need runs at several p for some n (a "
		       "strong-scaling line or grid); this series has none";
		return 1;
	}
	q->nparams = kind == KA_SCALING_GRID ? 2 : 1;
	q->n1 = obs[0].n;
	q->plo = q->nlo = INFINITY;
	q->phi = q->nhi = 0;
	for (i = 0; i < nobs; i++) {
		q->plo = fmin(q->plo, (double)obs[i].p), q->phi = fmax(q->phi, (double)obs[i].p);
		q->nlo = fmin(q->nlo, obs[i].n), q->nhi = fmax(q->nhi, obs[i].n);
	}
	o = xmalloc(sd->nruns * sizeof(*o));
	for (k = 0; k < Q_COUNT; k++) {
		struct model_data *md = &q->f[k].md;

		md->nparams = q->nparams;
		md->names[0] = "p";
		md->names[1] = "n";
		for (i = 0; i < sd->nruns; i++) {
			const struct ka_run *r = &sd->runs[i];
			double p = (double)r->p;

			o[i] = (struct obsv){{p, q->nparams == 2 ? r->n : 0},
					     k == Q_WORK ? p * (r->tau - r->chi) :
					     k == Q_OVERHEAD ? p * r->chi : p * r->tau};
		}
		if (model_group(o, sd->nruns, md, "series", err) || model_fit_band(&q->f[k], err)) {
			free(o);
			return -1;
		}
	}
	free(o);
	return 0;
}

static int quality_rank(const char *q)
{
	return !strcmp(q, "unusable") ? 2 : !strcmp(q, "poor");
}

/* The worst quality of Orii's models that an answer uses (mask: bit Q_*),
 * each of their reasons named by the model into reasons. */
static const char *iso_quality(const struct iso_fit *q, unsigned mask, json_t *reasons)
{
	static const char *const what[Q_COUNT] = {"the work model", "the overhead model", "the resource model"};
	const char *worst = "good";
	size_t i;
	int k;

	for (k = 0; k < Q_COUNT; k++) {
		json_t *r, *x;
		const char *qk;

		if (!(mask & 1u << k))
			continue;
		r = json_array();
		qk = model_quality(&q->f[k], r);
		if (quality_rank(qk) > quality_rank(worst))
			worst = qk;
		json_array_foreach(r, i, x)
			json_array_append_new(reasons, json_sprintf("%s: %s", what[k], json_string_value(x)));
		json_decref(r);
	}
	return worst;
}

/* May the isoefficiency function be predicted from the models? Not from an
 * unusable work or overhead model. */
static bool iso_usable(const struct iso_fit *q)
{
	json_t *r = json_array();
	bool ok = strcmp(iso_quality(q, 1u << Q_WORK | 1u << Q_OVERHEAD, r), "unusable") != 0;

	json_decref(r);
	return ok;
}

/* The isoefficiency function the models predict at level: up to
 * ISO_CURVE_POINTS p from the smallest measured to ISO_P_BEYOND times the
 * largest, with the n each needs (where one is found); their number. */
static size_t iso_curve(const struct iso_fit *q, double level, double *p, double *n)
{
	double lo = log(q->plo), hi = log(ISO_P_BEYOND * q->phi);
	size_t i, m = 0;

	for (i = 0; i < ISO_CURVE_POINTS; i++) {
		double pp = exp(lo + (hi - lo) * (double)i / (ISO_CURVE_POINTS - 1));

		if (ka_pmnf_iso_n(&q->f[Q_WORK].mdl, &q->f[Q_OVERHEAD].mdl, pp, level,
				  q->nlo / ISO_N_BELOW, q->nhi * ISO_N_ABOVE, &n[m]) == 0)
			p[m++] = pp;
	}
	return m;
}

static bool outside(const struct iso_fit *q, double p, double n)
{
	return p < q->plo || p > q->phi || (q->nparams == 2 && (n < q->nlo || n > q->nhi));
}

static json_t *iso_functions_json(const struct iso_fit *q, const double *levels, size_t nlevels)
{
	double p[ISO_CURVE_POINTS], n[ISO_CURVE_POINTS], lp[ISO_CURVE_POINTS], ln[ISO_CURVE_POINTS];
	json_t *a = json_array();
	size_t l, i, m, inside;

	for (l = 0; q->nparams == 2 && iso_usable(q) && l < nlevels; l++) {
		json_t *pts = json_array(), *f;
		double k, c, r2;

		m = iso_curve(q, levels[l], p, n);
		for (i = 0, inside = 0; i < m; i++) {
			json_array_append_new(pts, json_pack("{s:f,s:f,s:b}", "p", p[i], "n", n[i],
							     "extrapolated", outside(q, p[i], n[i])));
			if (p[i] <= q->phi)
				lp[inside] = p[i], ln[inside++] = n[i];
		}
		f = json_pack("{s:f,s:o}", "efficiency", levels[l], "points", pts);
		/* n ~ p^k over the measured p, as the empirical function's exponent */
		if (ka_fit_power(lp, ln, inside, &k, &c, &r2) == 0)
			json_object_update_new(f, json_pack("{s:f,s:f}", "exponent", k, "r2", r2));
		json_array_append_new(a, f);
	}
	return a;
}

/* tau = R / p at (p, n) with its band. */
static void put_tau(json_t *o, const struct iso_fit *q, double p, double n)
{
	double x[KA_PMNF_PARAMS] = {p, n}, h, r = model_at(&q->f[Q_RESOURCE], x, &h);

	json_object_update_new(o, json_pack("{s:o,s:o,s:o}", "tau", json_finite(r / p), "tau_low",
					    json_finite((r - h) / p), "tau_high",
					    json_finite((r + h) / p)));
}

/* Where the measured steps at n turn (Orii's C1/C3 boundary: the last p
 * reached through C1 steps, *turn) and the measured p after it (*next,
 * INFINITY when the steps are C1 throughout, then *turn is the largest
 * measured p). steps: the analysis' steps in the order it found them. */
static void measured_turn(const struct ka_obs *obs, const struct ka_step *steps, size_t nsteps, double n,
			  double *turn, double *next)
{
	size_t i;

	*turn = NAN;
	*next = INFINITY;
	for (i = 0; i < nsteps; i++) {
		const struct ka_step *s = &steps[i];

		if (obs[s->from].n != n)
			continue;
		if (s->cls != KA_C1) {
			*turn = (double)obs[s->from].p;
			*next = (double)obs[s->to].p;
			return;
		}
		*turn = (double)obs[s->to].p;
	}
}

/* For each n (at most MODEL_LISTED_MAX), where tau stops falling: the p
 * where C1 turns into C2/C3. Said from the resource model only when it is
 * good and agrees with the measured steps (its turn inside the measured
 * step that turns, or past the largest p when they are C1 throughout);
 * otherwise the measured boundary stands and the note says why. */
static json_t *turns_json(const struct iso_fit *q, const struct ka_obs *obs, size_t nobs,
			  const struct ka_step *steps, size_t nsteps)
{
	json_t *a = json_array(), *o, *reasons = json_array();
	const char *quality = model_quality(&q->f[Q_RESOURCE], reasons);
	bool good = !strcmp(quality, "good"), falls, agrees;
	size_t i, listed = 0;
	double turn, next;
	char fn[1024], why[2400];

	/* the note names the model it speaks of: τ = (p·τ's model) / p */
	ka_pmnf_format(&q->f[Q_RESOURCE].mdl, q->f[Q_RESOURCE].md.names, fn, sizeof(fn) - 32);
	if (json_array_size(reasons)) {
		char all[1024] = "";
		size_t r, at = 0;

		for (r = 0; r < json_array_size(reasons) && at + 1 < sizeof(all); r++)	/* every reason */
			at += (size_t)snprintf(all + at, sizeof(all) - at, "%s%s", r ? "; " : "",
					       json_string_value(json_array_get(reasons, r)));
		snprintf(why, sizeof(why), "the model τ = (%s) / p is %s (%s), so it cannot say where τ "
			 "stops falling; ", fn, quality, all);
	} else
		snprintf(why, sizeof(why), "the model τ = (%s) / p is %s, so it cannot say where τ stops "
			 "falling; ", fn, quality);
	json_decref(reasons);
	for (i = 0; i < nobs && listed < MODEL_LISTED_MAX; i++) {
		double n = obs[i].n, p;

		if (i > 0 && (obs[i - 1].n == n || q->nparams == 1))
			continue;	/* obs is sorted by (n, p) */
		listed++;
		measured_turn(obs, steps, nsteps, q->nparams == 1 ? q->n1 : n, &turn, &next);
		falls = ka_pmnf_tau_turn(&q->f[Q_RESOURCE].mdl, n, q->plo, TURN_P_BEYOND * q->phi, &p) != 0;
		agrees = isinf(next) ? falls || p >= turn : !falls && p >= turn && p <= next;
		if (good && agrees) {
			if (falls) {
				o = json_pack("{s:f,s:n,s:s,s:s}", "n", n, "p", "source", "model", "note",
					      "tau still falls at 1024 times the largest measured p: "
					      "C1 throughout");
			} else {
				o = json_pack("{s:f,s:f,s:b,s:s}", "n", n, "p", p, "extrapolated",
					      p > q->phi, "source", "model");
				put_tau(o, q, p, n);
			}
		} else {
			char note[2600];

			if (good)
				snprintf(note, sizeof(note), "the model τ = (%s) / p and the measured steps "
					 "disagree: the measurement stands", fn);
			else if (isfinite(next))
				snprintf(note, sizeof(note), "%sthe measured steps turn at p = %g (τ does not "
					 "fall from p = %g to %g)", why, turn, turn, next);
			else
				snprintf(note, sizeof(note), "%sthe measured steps are C1 throughout", why);
			o = json_pack("{s:f,s:o,s:s,s:o,s:s}", "n", n, "p",
				      isfinite(next) ? json_real(turn) : json_null(), "source", "measurement",
				      "model_p", falls ? json_null() : json_finite(p), "note", note);
		}
		/* the quality of the model it rests on (or was checked against) */
		json_object_set_new(o, "model_quality", json_string(quality));
		json_array_append_new(a, o);
	}
	return a;
}

/* tau, eps and their bands at the asked coordinates. The efficiency's band
 * combines the work's and the overhead's as if their errors were
 * independent (first order): h_eps = sqrt((To h_W)^2 + (W h_To)^2) / (W + To)^2. */
static json_t *iso_predictions_json(const struct iso_fit *q, const double *pred, size_t npred)
{
	json_t *a = json_array(), *o;
	size_t i;

	for (i = 0; i < npred; i++) {
		double p = pred[i * (size_t)q->nparams];
		double n = q->nparams == 2 ? pred[i * 2 + 1] : q->n1;
		double x[KA_PMNF_PARAMS] = {p, n}, hw, ho;
		double wv = model_at(&q->f[Q_WORK], x, &hw), ov = model_at(&q->f[Q_OVERHEAD], x, &ho);
		double eps = wv / (wv + ov), he = hypot(ov * hw, wv * ho) / ((wv + ov) * (wv + ov));

		o = json_pack("{s:f,s:f,s:b,s:o,s:o,s:o}", "p", p, "n", n, "extrapolated",
			      outside(q, p, n), "efficiency", json_finite(eps), "efficiency_low",
			      json_finite(eps - he), "efficiency_high", json_finite(eps + he));
		put_tau(o, q, p, n);
		json_array_append_new(a, o);
	}
	return a;
}

json_t *iso_models_json(struct req *rq, const struct series_data *sd, const struct ka_obs *obs,
			size_t nobs, const double *levels, size_t nlevels, const struct ka_step *steps,
			size_t nsteps, struct kerr *err)
{
	struct iso_fit q = {0};
	const char *why = NULL;
	double *pred = NULL;
	size_t npred = 0;
	json_t *out = NULL, *reasons;
	int rc = iso_fit(sd, obs, nobs, &q, &why, err);

	if (rc > 0)
		out = json_pack("{s:s}", "skipped", why);
	if (rc || query_predict(rq, q.nparams, &pred, &npred, err))
		goto out;
	out = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s}", "parameters",
			q.nparams == 2 ? json_pack("[s,s]", "p", "n") : json_pack("[s]", "p"),
			"work", model_answer_json(&q.f[Q_WORK], NULL, 0, false), "overhead",
			model_answer_json(&q.f[Q_OVERHEAD], NULL, 0, false), "resource",
			model_answer_json(&q.f[Q_RESOURCE], NULL, 0, false), "isoefficiency_functions",
			iso_functions_json(&q, levels, nlevels), "c1_c3", turns_json(&q, obs, nobs, steps, nsteps),
			"predictions", iso_predictions_json(&q, pred, npred), "explanation",
			"work = p·γ, overhead = p·χ and resource = p·τ are modelled (they grow with p, "
			"as Extra-P's terms do); ε = work / (work + overhead) and τ = resource / p");
	if (q.nparams == 1)
		json_object_set_new(out, "n", json_real(q.n1));
	reasons = json_array();
	json_object_set_new(out, "quality", json_string(iso_quality(&q, 7, reasons)));
	json_object_set_new(out, "quality_reasons", reasons);
	if (q.nparams == 2 && !iso_usable(&q))
		json_object_set_new(out, "isoefficiency_note", json_string(
			"no isoefficiency function is predicted: the work or the overhead model is unusable "
			"(its quality_reasons say why); the measured one stands"));
out:
	iso_fit_free(&q);
	free(pred);
	return out;
}

/* ---- what the reports draw -------------------------------------------------------- */

#define PLOT_CURVE_POINTS 97	/* the model's curve in a report */

static const char *axis_title(const char *name)
{
	return name[0] == 'p' ? "p, processors" : "n, problem size";
}

/* The plot's titles: the series, the value held fixed and the reading;
 * the function with its quality when not good; the axes. */
static void model_plot_text(struct model_plot *mp, const struct fitted *f, const struct model_sel *sel,
			    const char *quality)
{
	const char *metric = sel->metric_name, *y = !strcmp(metric, "chi") ? "χ" :
			     !strcmp(metric, "gamma") ? "γ" : "τ";
	size_t len = 0;

	snprintf(mp->name, sizeof(mp->name), "%s", sel->name);
	if (sel->fixed_name) {
		char num[48];

		chart_number(sel->chosen, num, sizeof(num));
		len += (size_t)snprintf(mp->at, sizeof(mp->at), " at %s = %s", sel->fixed_name, num);
	}
	if (f->md.resource)
		snprintf(mp->at + len, sizeof(mp->at) - len, ", modelled as p × %s",
			 sel->metric.kind == M_REGION ? "the region's time" : y);
	snprintf(mp->title, sizeof(mp->title), "scaling model: %s%s", mp->name, mp->at);
	model_text(&f->md, &f->mdl, mp->function, sizeof(mp->function));
	if (strcmp(quality, "good"))	/* the legend says what the table says */
		snprintf(mp->function + strlen(mp->function), sizeof(mp->function) - strlen(mp->function),
			 " (%s fit)", quality);
	snprintf(mp->axis[0], sizeof(mp->axis[0]), "%s", axis_title(f->md.names[0]));
	if (sel->metric.kind == M_REGION)
		snprintf(mp->axis[1], sizeof(mp->axis[1]), "time in region %.128s (s)", sel->metric.region);
	else
		snprintf(mp->axis[1], sizeof(mp->axis[1]), "%s (s)", y);
}

/* The measured points (x, median, lo, hi) and the model with its band at
 * nc points from the smallest x to max_x, in mp->mem. */
static void model_plot_curves(struct model_plot *mp, const struct fitted *f, double max_x)
{
	size_t i, m = f->md.m, nc = PLOT_CURVE_POINTS;
	double lo = f->md.x[0], *d = mp->mem = xmalloc((4 * m + 4 * nc) * sizeof(double)), *c = d + 4 * m;

	for (i = 0; i < m; i++) {
		double by = per(&f->md, &f->md.x[i]);

		d[i] = f->md.x[i];
		d[m + i] = f->md.median[i] / by;
		d[2 * m + i] = f->md.lo[i] / by;
		d[3 * m + i] = f->md.hi[i] / by;
	}
	for (i = 0; i < nc; i++) {
		double x = lo == max_x ? lo : exp(log(lo) + (log(max_x) - log(lo)) * (double)i /
						  (double)(nc - 1)), h;
		double by = per(&f->md, &x), v = model_at(f, &x, &h) / by;

		h /= by;
		c[i] = x;
		c[nc + i] = v;
		c[2 * nc + i] = v - h;	/* below a log axis: the band is drawn to its edge */
		c[3 * nc + i] = v + h;
	}
	mp->rm = (struct report_model){mp->name, mp->function, d, d + m, d + 2 * m, d + 3 * m, m,
				       c, c + nc, c + 2 * nc, c + 3 * nc, nc, f->md.x[m - 1]};
}

int model_plot_load(struct karted *k, struct req *rq, const char *sys, const char *app,
		    const char *var, const struct label_set *ls, struct model_plot *mp,
		    struct kerr *err)
{
	struct fitted f = {0};
	struct model_sel sel = {0};
	json_t *reasons = json_array();
	const char *quality;
	double max_x, hi;
	int rc = -1;

	memset(mp, 0, sizeof(*mp));
	if (model_query_positive(rq, "max_x", &max_x, err) ||
	    series_model(k, rq, sys, app, var, ls, &f.md, &sel, err))
		goto out;
	if (f.md.nparams != 1) {
		kerr_field(err, KERR_INVALID, "parameters", "the model report draws one parameter: "
			   "parameters=p (the default) or parameters=n");
		goto out;
	}
	if (model_fit_band(&f, err))
		goto out;
	hi = f.md.x[f.md.m - 1];
	max_x = isnan(max_x) ? MODEL_FAR * hi : fmax(max_x, hi);
	quality = model_quality(&f, reasons);
	mp->unusable = !strcmp(quality, "unusable");
	if (mp->unusable)
		max_x = hi;	/* an unusable model is drawn where measured, never beyond */
	model_plot_text(mp, &f, &sel, quality);
	model_plot_curves(mp, &f, max_x);
	rc = 0;
out:
	json_decref(reasons);
	model_sel_free(&sel);
	model_fitted_free(&f);
	return rc;
}

void model_plot_free(struct model_plot *mp)
{
	free(mp->mem);
	mp->mem = NULL;
}

int iso_plot_load(struct karted *k, struct req *rq, const char *sys, const char *app,
		  const char *var, struct iso_plot *ip, struct kerr *err)
{
	struct series_data sd = {0};
	struct iso_fit q = {0};
	struct ka_obs *obs = NULL;
	void *work = NULL;
	size_t nobs, wsize, nl = 4, nn, i, l;
	const char *why = NULL;
	double *d;
	int rc = -1, fitted_rc;

	memset(ip, 0, sizeof(*ip));
	for (l = 0; l < nl; l++)
		ip->level[l] = 0.2 * (double)(l + 1);
	if (query_list(rq, "levels", 0, 1, ip->level, REPORT_LEVELS_MAX, &nl, err) ||
	    series_load_in(k, rq, sys, app, var, NULL, SERIES_ONE_FREQUENCY, &sd, err) ||
	    series_pool(&sd, &obs, &nobs, &work, &wsize, err))
		goto out;
	fitted_rc = iso_fit(&sd, obs, nobs, &q, &why, err);
	if (fitted_rc < 0)
		goto out;
	for (i = 0, nn = 0; i < nobs; i++)
		nn += i == 0 || obs[i].n != obs[i - 1].n;
	d = ip->mem = xmalloc(nl * 2 * (nn + ISO_CURVE_POINTS) * sizeof(double));
	for (l = 0; l < nl; l++, d += 2 * (nn + ISO_CURVE_POINTS)) {
		ka_iso_function(obs, nobs, ip->level[l], d + nn, d, &ip->ri.ne[l]);
		ip->ri.ep[l] = d;
		ip->ri.en[l] = d + nn;
		ip->ri.mp[l] = d + 2 * nn;
		ip->ri.mn[l] = d + 2 * nn + ISO_CURVE_POINTS;
		if (fitted_rc == 0 && q.nparams == 2 && iso_usable(&q))
			ip->ri.nm[l] = iso_curve(&q, ip->level[l], d + 2 * nn,
						 d + 2 * nn + ISO_CURVE_POINTS);
	}
	snprintf(ip->name, sizeof(ip->name), "%s", series_label(&sd));
	if (why)
		snprintf(ip->note, sizeof(ip->note), "no models: %s", why);
	else if (q.nparams == 1)
		snprintf(ip->note, sizeof(ip->note), "one n only: no isoefficiency function to "
			 "predict");
	else if (!iso_usable(&q))
		snprintf(ip->note, sizeof(ip->note), "no lines from the models: the work or the overhead "
			 "model is unusable (GET /api/v1/analysis/isoefficiency says why)");
	else
		snprintf(ip->note, sizeof(ip->note), "lines: ε = W / (W + To) from the models of "
			 "the work W = p·γ and the overhead To = p·χ; dashed beyond the measured p");
	ip->ri.name = ip->name;
	ip->ri.nlevels = nl;
	ip->ri.level = ip->level;
	ip->ri.p_measured = q.phi;
	ip->ri.note = ip->note;
	rc = 0;
out:
	iso_fit_free(&q);
	series_free(&sd);
	free(obs);
	free(work);
	return rc;
}

void iso_plot_free(struct iso_plot *ip)
{
	free(ip->mem);
	ip->mem = NULL;
}

const struct route api_model_routes[] = {
	{"GET", "/api/v1/analysis/model", ROUTE_SLOW, get_model, series_lane},
	{"POST", "/api/v1/analysis/model", ROUTE_BODY | ROUTE_SLOW, post_model, NULL},
	{NULL, NULL, 0, NULL, NULL},
};
