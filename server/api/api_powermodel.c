/*
 * POST /api/v1/analysis/power-model[/predict] (ePRO-MP): a regression power
 * model of counter rates fitted by least squares, the terms that are not
 * significant dropped; and power and energy predicted from a model. Each
 * handler reads (rows as rates), calls analysis/powermodel.c, and writes
 * the answer from its structs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_methods.h"
#include "series.h"
#include "analysis/powermodel.h"
#include "core/xalloc.h"

#define ROWS_MAX 100000		/* rows of a power model's training, verification or predict */

/* Rows as rates: x[i * k + j] of counter j, y the power (when asked), t the time. */
struct rates {
	double *x, *y, *t;
	size_t n;
};

static void rates_free(struct rates *r)
{
	free(r->x);
	free(r->y);
	free(r->t);
	memset(r, 0, sizeof(*r));
}

/* Rows {time_s, counters: {name: count}[, power_w]} as rates of the named
 * counters (count / time); errors name key and the row. */
static int rates_of(json_t *rows, const char *key, json_t *names, bool need_power, struct rates *r,
		    struct kerr *err)
{
	size_t k = json_array_size(names), i, j;
	json_t *row, *name;

	memset(r, 0, sizeof(*r));
	if (!json_is_array(rows) || (r->n = json_array_size(rows)) == 0 || r->n > ROWS_MAX)
		return kerr_field(err, KERR_INVALID, key, "%s must be an array of 1 to %d rows", key, ROWS_MAX);
	r->x = xcalloc(r->n * (k ? k : 1), sizeof(double));
	r->y = xcalloc(r->n, sizeof(double));
	r->t = xcalloc(r->n, sizeof(double));
	json_array_foreach(rows, i, row) {
		json_t *c = json_object_get(row, "counters");

		if (body_num(row, "time_s", true, &r->t[i], key, (long)i, err) ||
		    (need_power && body_num(row, "power_w", true, &r->y[i], key, (long)i, err)))
			return -1;
		json_array_foreach(names, j, name) {
			json_t *v = json_object_get(c, json_string_value(name));

			if (!json_is_number(v)) {
				kerr_field(err, KERR_INVALID, key, "%s[%zu] lacks counter '%s'", key, i,
					   json_string_value(name));
				err->index = (long)i;
				return -1;
			}
			r->x[i * k + j] = json_number_value(v) / r->t[i];
		}
	}
	return 0;
}

/* ---- POST /api/v1/analysis/power-model ---- */

/* "counters": 1 to KA_PM_MAX names, and "alpha" in (0, 1). */
static int model_inputs(json_t *root, json_t **names, double *alpha, struct kerr *err)
{
	const struct field f = {"alpha", FIELD_NUMBER, FIELD_ABOVE_LO, 0, 1, alpha, 0};
	json_t *name;
	size_t j, k;

	*names = json_object_get(root, "counters");
	if (!json_is_array(*names) || (k = json_array_size(*names)) == 0 || k > KA_PM_MAX)
		return kerr_field(err, KERR_INVALID, "counters", "counters must name 1 to %d counters",
				  KA_PM_MAX);
	json_array_foreach(*names, j, name)
		if (!json_is_string(name))
			return kerr_field(err, KERR_INVALID, "counters", "counters must be names");
	if (fields_read(NULL, root, &f, 1, err))
		return -1;
	if (*alpha >= 1)
		return kerr_field(err, KERR_INVALID, "alpha", "alpha must be between 0 and 1");
	return 0;
}

/* One row of the regression table. */
static json_t *term(const char *counter, double coef, double se, double t, double p)
{
	return json_pack("{s:s,s:f,s:f,s:o,s:f}", "counter", counter, "coefficient", coef, "se", se,
			 "t", json_finite(t), "p_value", p);
}

/* The fitted model: coefficients and p-values by counter, the regression
 * table (SAS's parameter estimates, the intercept first), what was kept
 * and what dropped (as each was when it was dropped), and the fit. */
static json_t *model_json(const struct ka_pm *m, json_t *names, size_t rows, double alpha)
{
	json_t *coef = json_object(), *pv = json_object(), *kept = json_array(), *dropped = json_array();
	json_t *terms = json_array(), *name;
	size_t j;

	json_array_append_new(terms, term("(intercept)", m->intercept, m->intercept_se, m->intercept_t,
					  m->intercept_p));
	json_array_foreach(names, j, name) {
		const char *nm = json_string_value(name);

		json_object_set_new(coef, nm, json_real(m->coef[j]));
		json_object_set_new(pv, nm, json_real(m->pvalue[j]));
		if (m->kept[j]) {
			json_array_append_new(kept, json_string(nm));
			json_array_append_new(terms, term(nm, m->coef[j], m->se[j], m->t[j], m->pvalue[j]));
		}
	}
	for (j = 0; j < m->ndropped; j++)
		json_array_append_new(dropped, json_pack("{s:s,s:o,s:f}", "counter",
							 json_string_value(json_array_get(names, m->dropped[j])),
							 "t", json_finite(m->t[m->dropped[j]]),
							 "p_value", m->pvalue[m->dropped[j]]));
	return json_pack("{s:f,s:o,s:o,s:o,s:o,s:o,s:f,s:f,s:f,s:I,s:I,s:f}", "intercept", m->intercept,
			 "coefficients", coef, "p_values", pv, "terms", terms, "kept", kept, "dropped",
			 dropped, "r2", m->r2, "adj_r2", m->adj_r2, "sigma", m->sigma, "dof",
			 (json_int_t)m->dof, "rows", (json_int_t)rows, "alpha", alpha);
}

/* The model's errors on the "verification" rows, when there are any. */
static int model_verified(json_t *root, json_t *names, const struct ka_pm *m, json_t *out,
			  struct kerr *err)
{
	struct rates v;
	double mean, max;

	if (!json_object_get(root, "verification"))
		return 0;
	if (rates_of(json_object_get(root, "verification"), "verification", names, true, &v, err)) {
		rates_free(&v);
		return -1;
	}
	ka_pm_errors(m, v.x, v.n, v.y, &mean, &max);
	json_object_set_new(out, "verification", json_pack("{s:I,s:f,s:f}", "rows", (json_int_t)v.n,
							   "mean_rel_error", mean, "max_rel_error", max));
	rates_free(&v);
	return 0;
}

int post_power_model(void *app, struct req *rq, struct resp *rs)
{
	json_t *root = req_json_object(rq, rs), *names, *out = NULL;
	struct rates tr = {0};
	double alpha = 0.05;
	struct kerr err;
	struct ka_pm m;
	int rc;

	(void)app;
	if (!root)
		return 0;
	kerr_clear(&err);
	if (model_inputs(root, &names, &alpha, &err) ||
	    rates_of(json_object_get(root, "training"), "training", names, true, &tr, &err))
		goto out;
	rc = ka_pm_fit(tr.x, tr.n, json_array_size(names), tr.y, alpha, &m);
	if (rc) {
		kerr_field(&err, KERR_INVALID, "training", rc == -KA_ENODATA ?
			   "training needs more rows than counters + 1" : "the fit failed on these rows");
		goto out;
	}
	out = model_json(&m, names, tr.n, alpha);
	if (model_verified(root, names, &m, out, &err))
		goto out;
	resp_json(rs, 200, out);
	out = NULL;
out:
	if (err.code)
		resp_error(rs, &err);
	json_decref(out);
	rates_free(&tr);
	json_decref(root);
	return 0;
}

/* ---- POST /api/v1/analysis/power-model/predict ---- */

/* A model's terms ({intercept, coefficients, kept}) into m, the counters'
 * names into *names (new): a fitted model lists what it kept, so dropped
 * counters are not needed. */
static int predict_model(json_t *model, struct ka_pm *m, json_t **names, struct kerr *err)
{
	json_t *coefs = json_object_get(model, "coefficients"), *kept = json_object_get(model, "kept");
	json_t *v, *q;
	const char *key;
	size_t qi;

	memset(m, 0, sizeof(*m));
	*names = json_array();
	if (!json_is_object(coefs))
		return kerr_field(err, KERR_INVALID, "model", "model must be {intercept, coefficients: "
				  "{counter: W per event/s}}");
	if (json_object_size(coefs) > KA_PM_MAX)
		return kerr_field(err, KERR_INVALID, "model.coefficients", "a model has at most %d "
				  "coefficients", KA_PM_MAX);
	if (body_num(model, "intercept", false, &m->intercept, "model.intercept", -1, err))
		return -1;
	json_object_foreach(coefs, key, v) {
		bool in = !json_is_array(kept);

		json_array_foreach(kept, qi, q)
			in = in || (json_is_string(q) && !strcmp(json_string_value(q), key));
		if (!in)
			continue;
		if (!json_is_number(v))
			return kerr_field(err, KERR_INVALID, "model.coefficients", "coefficient %s must be "
					  "a number", key);
		m->coef[m->k] = json_number_value(v);
		m->kept[m->k++] = true;
		json_array_append_new(*names, json_string(key));
	}
	return 0;
}

/* A stored region to predict: a positive time, every counter, no power. */
static bool region_wants_power(json_t *reg, json_t *names)
{
	json_t *c = json_object_get(reg, "counters"), *t = json_object_get(reg, "time_s"), *nm;
	bool all = json_is_number(t) && json_number_value(t) > 0 && !json_object_get(reg, "power_w") &&
		   !json_object_get(reg, "energy_j");
	size_t z;

	json_array_foreach(names, z, nm)
		all = all && json_is_number(json_object_get(c, json_string_value(nm)));
	return all;
}

/* The rows of the series the body names ("system", "application",
 * "variant"): its stored runs' regions with counters but no power, each
 * with where it came from ({run_id, region}) in *origin. */
static int predict_stored(struct karted *k, json_t *root, json_t *names, json_t **rows, json_t **origin,
			  struct kerr *err)
{
	struct series_data sd = {0};
	size_t i, q;
	json_t *reg;
	int rc = -1;

	if (series_load_named(k, json_string_value(json_object_get(root, "system")),
			      json_string_value(json_object_get(root, "application")),
			      json_string_value(json_object_get(root, "variant")), NULL, NULL,
			      SERIES_WITH_REGIONS, &sd, err))
		goto out;
	*rows = json_array();
	*origin = json_array();
	for (i = 0; i < sd.nall; i++)
		json_array_foreach(sd.all[i].regions, q, reg) {
			if (!region_wants_power(reg, names))
				continue;
			if (json_array_size(*rows) == ROWS_MAX) {
				kerr_field(err, KERR_TOO_LARGE, "system", "series %s has more than %d regions "
					   "to predict; select fewer runs", series_label(&sd), ROWS_MAX);
				goto out;
			}
			json_array_append(*rows, reg);
			json_array_append_new(*origin, json_pack("{s:I,s:O}", "run_id", (json_int_t)sd.all[i].id,
								 "region", json_object_get(reg, "name")));
		}
	if (!json_array_size(*rows))
		kerr_set(err, KERR_NOT_FOUND, "no stored run of series %s has regions with the model's "
			 "counters and a time but no power", series_label(&sd));
	else
		rc = 0;
out:
	series_free(&sd);
	return rc;
}

/* Each row's power and energy; a thread on one core has its own counters
 * and F_const shared by the chip's cores (the paper's F_const / 4 on four,
 * section 5). */
static json_t *predictions(const struct ka_pm *m, const struct rates *r, double cores, json_t *origin)
{
	json_t *preds = json_array();
	size_t i;

	for (i = 0; i < r->n; i++) {
		double p = ka_pm_predict(m, r->x + i * m->k);
		json_t *one = json_pack("{s:f,s:f}", "power_w", p, "energy_j", p * r->t[i]);

		if (cores > 0)
			json_object_set_new(one, "thread_power_w", json_real(p - m->intercept + m->intercept / cores));
		if (origin)
			json_object_update(one, json_array_get(origin, i));
		json_array_append_new(preds, one);
	}
	return json_pack("{s:o}", "predictions", preds);
}

int post_power_predict(void *app, struct req *rq, struct resp *rs)
{
	json_t *root = req_json_object(rq, rs), *names = NULL, *rows, *origin = NULL;
	int64_t cores = 0;
	const struct field f = {"cores_per_chip", FIELD_INTEGER, 0, 1, 4096, &cores, 0};
	struct rates r = {0};
	struct kerr err;
	struct ka_pm m;

	if (!root)
		return 0;
	kerr_clear(&err);
	rows = json_object_get(root, "rows");
	if (predict_model(json_object_get(root, "model"), &m, &names, &err) ||
	    (json_is_string(json_object_get(root, "system")) &&
	     predict_stored(app, root, names, &rows, &origin, &err)) ||
	    fields_read(NULL, root, &f, 1, &err) || rates_of(rows, "rows", names, false, &r, &err))
		resp_error(rs, &err);
	else
		resp_json(rs, 200, predictions(&m, &r, (double)cores, origin));
	rates_free(&r);
	json_decref(names);
	if (origin) {
		json_decref(rows);
		json_decref(origin);
	}
	json_decref(root);
	return 0;
}
