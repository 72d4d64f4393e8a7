/*
 * POST /api/v1/analysis/configurations (ePRO-MP): the next configuration
 * to run in a search from every parameter at its lowest bound, one raised
 * at a time while it improves the goal, then the baseline; and the best.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_methods.h"
#include "series.h"
#include "analysis/powermodel.h"
#include "core/xalloc.h"

#define CONFIG_PARAMS_MAX 16	/* parameters of a configuration */
#define CONFIG_RUNS_MAX 100000	/* recorded configurations */

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

		if (method_num(r, "time_s", true, &t, rs, "runs.time_s", (long)i) ||
		    method_num(r, "energy_j", true, &e, rs, "runs.energy_j", (long)i) ||
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

int post_configurations(void *app, struct req *rq, struct resp *rs)
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

