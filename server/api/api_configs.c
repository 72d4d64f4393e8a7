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

/* ---- POST /api/v1/analysis/configurations ---- */

/* The search's inputs: the parameters (d of them), their bounds [lo, hi],
 * the baseline (hi unless given) and the goal. */
struct search {
	json_t *params;
	size_t d;
	long *lo, *hi, *base;
	enum ka_goal goal;
};

static void search_free(struct search *s)
{
	free(s->lo);
	free(s->hi);
	free(s->base);
}

/* The integers of the d parameters in object o, into c[d]; err naming
 * field (and index) when one is missing or not an integer. */
static int config_read(json_t *o, json_t *params, long *c, const char *field, long index,
		       struct kerr *err)
{
	json_t *p, *v;
	size_t j;

	json_array_foreach(params, j, p) {
		v = json_object_get(o, json_string_value(p));
		if (!json_is_integer(v)) {
			if (index >= 0)
				kerr_field(err, KERR_INVALID, field, "runs[%ld].config needs an integer %s",
					   index, json_string_value(p));
			else
				kerr_field(err, KERR_INVALID, field, "%s needs an integer %s", field,
					   json_string_value(p));
			err->index = index;
			return -1;
		}
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

static int search_goal(json_t *root, enum ka_goal *goal, struct kerr *err)
{
	const char *g = json_string_value(json_object_get(root, "goal"));

	*goal = KA_GOAL_ENERGY;
	if (g && !strcmp(g, "time"))
		*goal = KA_GOAL_TIME;
	else if (g && !strcmp(g, "edp"))
		*goal = KA_GOAL_EDP;
	else if (g && strcmp(g, "energy"))
		return kerr_field(err, KERR_INVALID, "goal", "goal must be energy, time or edp");
	return 0;
}

static int search_params(json_t *root, struct search *s, struct kerr *err)
{
	json_t *p;
	size_t j;

	s->params = json_object_get(root, "parameters");
	if (!json_is_array(s->params) || (s->d = json_array_size(s->params)) == 0 ||
	    s->d > CONFIG_PARAMS_MAX)
		return kerr_field(err, KERR_INVALID, "parameters", "parameters must name the "
				  "configuration's 1 to %d parameters", CONFIG_PARAMS_MAX);
	json_array_foreach(s->params, j, p)
		if (!json_is_string(p) || !*json_string_value(p) || strlen(json_string_value(p)) > RUN_LABEL_MAX) {
			kerr_field(err, KERR_INVALID, "parameters", "parameters[%zu] must be a name of 1 to "
				   "%d bytes", j, RUN_LABEL_MAX);
			err->index = (long)j;
			return -1;
		}
	return 0;
}

/* bounds {name: [lowest, highest]} for every parameter; the baseline
 * (every parameter at its highest unless "baseline" names one inside). */
static int search_bounds(json_t *root, struct search *s, struct kerr *err)
{
	json_t *bounds = json_object_get(root, "bounds"), *p;
	size_t j;

	s->lo = xcalloc(s->d, sizeof(long));
	s->hi = xcalloc(s->d, sizeof(long));
	s->base = xcalloc(s->d, sizeof(long));
	json_array_foreach(s->params, j, p) {
		json_t *b = json_object_get(bounds, json_string_value(p));
		json_t *b0 = json_array_get(b, 0), *b1 = json_array_get(b, 1);

		if (!json_is_array(b) || json_array_size(b) != 2 || !json_is_integer(b0) ||
		    !json_is_integer(b1) || json_integer_value(b0) > json_integer_value(b1)) {
			kerr_field(err, KERR_INVALID, "bounds", "bounds.%s must be [lowest, highest]",
				   json_string_value(p));
			err->index = (long)j;
			return -1;
		}
		s->lo[j] = (long)json_integer_value(b0);
		s->base[j] = s->hi[j] = (long)json_integer_value(b1);
	}
	if (!json_object_get(root, "baseline"))
		return 0;
	if (config_read(json_object_get(root, "baseline"), s->params, s->base, "baseline", -1, err))
		return -1;
	for (j = 0; j < s->d; j++)
		if (s->base[j] < s->lo[j] || s->base[j] > s->hi[j])
			return kerr_field(err, KERR_INVALID, "baseline", "baseline.%s is %ld, outside its "
					  "bounds [%ld, %ld]", json_string_value(json_array_get(s->params, j)),
					  s->base[j], s->lo[j], s->hi[j]);
	return 0;
}

static int search_read(json_t *root, struct search *s, struct kerr *err)
{
	return search_goal(root, &s->goal, err) || search_params(root, s, err) ||
	       search_bounds(root, s, err) ? -1 : 0;
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

static void configs_alloc(struct configs *c, size_t n, size_t d)
{
	c->d = d;
	c->n = 0;
	c->cfg = xcalloc(n * d, sizeof(long));
	c->time = xcalloc(n, sizeof(double));
	c->energy = xcalloc(n, sizeof(double));
	c->value = xcalloc(n, sizeof(double));
	c->count = xcalloc(n, sizeof(size_t));
	c->first = xcalloc(n, sizeof(size_t));
}

/* Reads runs [{config, time_s, energy_j}] into c, merging repeats by a map
 * of the configurations' decimal keys, and the goal's value of each. */
static int configs_read(json_t *runs, const struct search *s, struct configs *c, struct kerr *err)
{
	json_t *map = json_object(), *r, *g;
	size_t i, j, d = s->d, u;
	long *row = xcalloc(d, sizeof(long));
	char key[CONFIG_PARAMS_MAX * 21 + 1];
	double t, e;
	int rc = -1;

	configs_alloc(c, json_array_size(runs), d);
	json_array_foreach(runs, i, r) {
		size_t at = 0;

		if (body_num(r, "time_s", true, &t, "runs.time_s", (long)i, err) ||
		    body_num(r, "energy_j", true, &e, "runs.energy_j", (long)i, err) ||
		    config_read(json_object_get(r, "config"), s->params, row, "runs.config", (long)i, err))
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
		c->value[u] = ka_goal_value(c->time[u], c->energy[u], s->goal);
	}
	rc = 0;
out:
	free(row);
	json_decref(map);
	return rc;
}

/* A stored run's configuration: an integer label for every parameter. */
static json_t *config_of_labels(json_t *labels, json_t *params)
{
	json_t *cfg = json_object(), *p;
	size_t j;

	json_array_foreach(params, j, p) {
		const char *v = json_string_value(json_object_get(labels, json_string_value(p)));
		char *end;
		long lv = v ? strtol(v, &end, 10) : 0;

		if (!v || !*v || *end) {
			json_decref(cfg);
			return NULL;
		}
		json_object_set_new(cfg, json_string_value(p), json_integer(lv));
	}
	return cfg;
}

/* The stored runs of a series as [{config, time_s, energy_j, run_id}]: the
 * configuration from integer labels, time from tau. */
static json_t *configs_of_series(void *app, json_t *root, json_t *params, struct kerr *err)
{
	struct series_data sd = {0};
	json_t *runs = NULL, *cfg;
	size_t i;

	if (!series_load_named(app, json_string_value(json_object_get(root, "system")),
			       json_string_value(json_object_get(root, "application")),
			       json_string_value(json_object_get(root, "variant")), NULL, NULL,
			       SERIES_WITH_REGIONS, &sd, err)) {
		runs = json_array();
		for (i = 0; i < sd.nall; i++)
			if (isfinite(sd.all[i].energy_j) && (cfg = config_of_labels(sd.all[i].labels, params)))
				json_array_append_new(runs, json_pack("{s:o,s:f,s:f,s:I}", "config", cfg,
								      "time_s", sd.all[i].tau, "energy_j",
								      sd.all[i].energy_j, "run_id",
								      (json_int_t)sd.all[i].id));
	}
	series_free(&sd);
	return runs;
}

/* The runs searched: the body's, or a named series' (*owned, new). */
static int search_runs(void *app, json_t *root, json_t *params, json_t **runs, json_t **owned,
		       struct kerr *err)
{
	*owned = NULL;
	*runs = json_object_get(root, "runs");
	if (!*runs && json_is_string(json_object_get(root, "system")) &&
	    !(*runs = *owned = configs_of_series(app, root, params, err)))
		return -1;
	if (!json_is_array(*runs) || json_array_size(*runs) == 0)
		return kerr_field(err, KERR_INVALID, "runs", *owned ? "no stored run of the series has "
				  "energy_j and a label with an integer for every parameter" :
				  "runs must be an array of {config, time_s, energy_j}, or name a series "
				  "with system and application");
	if (json_array_size(*runs) > CONFIG_RUNS_MAX)
		return kerr_field(err, KERR_TOO_LARGE, "runs", "there are %zu configurations; at most %d "
				  "are taken", json_array_size(*runs), CONFIG_RUNS_MAX);
	return 0;
}

static json_t *config_entry(json_t *params, const struct configs *c, size_t u, json_t *runs)
{
	return json_pack("{s:o,s:f,s:f,s:I,s:O?}", "config", config_json(params, c->cfg + u * c->d),
			 "time_s", c->time[u], "energy_j", c->energy[u], "runs", (json_int_t)c->count[u],
			 "run_id", json_object_get(json_array_get(runs, c->first[u]), "run_id"));
}

static json_t *improvement(double base, double best)
{
	return json_real((base - best) / base);
}

/* The baseline's figures and how much better the best is, when measured. */
static json_t *baseline_json(const struct search *s, const struct configs *c, size_t at, size_t best)
{
	bool m = at != SIZE_MAX;

	return json_pack("{s:o,s:o,s:o,s:o,s:o}", "config", config_json(s->params, s->base),
			 "time_s", m ? json_real(c->time[at]) : json_null(),
			 "energy_j", m ? json_real(c->energy[at]) : json_null(),
			 "time_improvement", m ? improvement(c->time[at], c->time[best]) : json_null(),
			 "energy_improvement", m ? improvement(c->energy[at], c->energy[best]) : json_null());
}

static json_t *search_json(const struct search *s, const struct configs *c, size_t best,
			   const struct ka_walk *w, const long *next, json_t *runs)
{
	json_t *executed = json_array(), *ans;
	size_t i;

	for (i = 0; i < w->nexecuted; i++)
		json_array_append_new(executed, config_entry(s->params, c, w->executed[i], runs));
	ans = json_pack("{s:o,s:o,s:o,s:{s:o,s:b},s:o,s:I}",
			"best", config_entry(s->params, c, best, runs),
			"next", w->want_next ? config_json(s->params, next) : json_null(),
			"executed", executed,
			"walk", "at", w->end == SIZE_MAX ? json_null() : config_json(s->params, c->cfg + w->end * s->d),
			"ended", w->ended,
			"baseline", baseline_json(s, c, w->baseline, best), "configurations", (json_int_t)c->n);
	json_object_set_new(json_object_get(ans, "best"), "index", json_integer((json_int_t)c->first[best]));
	return ans;
}

int post_configurations(void *app, struct req *rq, struct resp *rs)
{
	json_t *root = req_json_object(rq, rs), *runs, *owned = NULL;
	struct search s = {0};
	struct configs c = {0};
	struct ka_walk w = {0};
	size_t *order = NULL, best;
	long *next = NULL;
	struct kerr err;

	if (!root)
		return 0;
	kerr_clear(&err);
	if (search_read(root, &s, &err) || search_runs(app, root, s.params, &runs, &owned, &err) ||
	    configs_read(runs, &s, &c, &err))
		goto out;
	best = ka_best_config(c.time, c.energy, c.n, s.goal);
	order = xcalloc(c.n, sizeof(size_t));
	w.executed = xcalloc(c.n, sizeof(size_t));
	next = xcalloc(s.d, sizeof(long));
	if (ka_config_walk(c.cfg, c.value, c.n, s.d, s.lo, s.hi, s.base, order, &w, next))
		kerr_field(&err, KERR_INVALID, "runs", "a configuration's goal value is not finite");
	else
		resp_json(rs, 200, search_json(&s, &c, best, &w, next, runs));
out:
	if (err.code)
		resp_error(rs, &err);
	json_decref(owned);
	configs_free(&c);
	search_free(&s);
	free(next);
	free(order);
	free(w.executed);
	json_decref(root);
	return 0;
}
