/*
 * POST /api/v1/analysis/power-model[/predict] (ePRO-MP): a regression power
 * model of counter rates fitted by least squares, the terms that are not
 * significant dropped; and power and energy predicted from a model.
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

		if (method_num(row, "time_s", true, &(*t)[i], rs, key, (long)i) ||
		    (need_power && method_num(row, "power_w", true, &(*y)[i], rs, key, (long)i)))
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

int post_power_model(void *app, struct req *rq, struct resp *rs)
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
	if (json_object_get(root, "alpha") && (method_num(root, "alpha", true, &alpha, rs, NULL, -1) || alpha >= 1)) {
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

int post_power_predict(void *app, struct req *rq, struct resp *rs)
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
	    method_num(model, "intercept", false, &m.intercept, rs, "model.intercept", -1)) {
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

