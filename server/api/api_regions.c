/* The call tree of a stored series (see regions.h). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "regions.h"
#include "core/fields.h"
#include "core/xalloc.h"
#include "http/resp.h"

#define AT_BEYOND 8.0	/* at_p defaults to this times the largest measured p */

/* ---- the query ---------------------------------------------------------- */

static int regions_query(struct req *rq, struct model_data *md, struct regions *rg, struct kerr *err)
{
	struct model_sel *sel = &rg->sel;
	const char *metric = req_query(rq, "metric");
	double at_p, at_n;

	memset(sel, 0, sizeof(*sel));
	sel->chosen = NAN;
	if (metric && strcmp(metric, "time") && strcmp(metric, "energy") && strcmp(metric, "tau") &&
	    strcmp(metric, "energy_j"))
		return kerr_field(err, KERR_INVALID, "metric", "metric must be time (each path's time "
				  "against tau) or energy (its energy_j against the run's)");
	rg->energy = metric && !strncmp(metric, "energy", 6);
	sel->metric_name = rg->energy ? "energy_j" : "tau";
	if (model_sel_runs(rq, md, sel, err) || model_query_positive(rq, "at_p", &at_p, err) ||
	    model_query_positive(rq, "at_n", &at_n, err))
		return -1;
	/* ranked along p unless the model is over n alone */
	rg->xk = md->nparams == 2 ? (sel->is_p[0] ? 0 : 1) : 0;
	rg->xname = md->nparams == 1 && !sel->is_p[0] ? "n" : "p";
	rg->at = rg->xname[0] == 'p' ? at_p : at_n;
	rg->fix = md->nparams == 2 ? (rg->xname[0] == 'p' ? at_n : at_p) : NAN;
	return 0;
}

/* ---- reading the runs ----------------------------------------------------- */

static size_t path_index(struct regions *rg, const char *key, size_t depth)
{
	json_t *at = json_object_get(rg->index, key);
	struct rpath *pa;

	if (at)
		return (size_t)json_integer_value(at);
	if (rg->npaths == rg->cpaths) {
		rg->cpaths = rg->cpaths ? 2 * rg->cpaths : 64;
		rg->paths = xrealloc(rg->paths, rg->cpaths * sizeof(*rg->paths));
	}
	pa = &rg->paths[rg->npaths];
	memset(pa, 0, sizeof(*pa));
	pa->key = xstrdup(key);
	pa->depth = depth;
	json_object_set_new(rg->index, key, json_integer((json_int_t)rg->npaths));
	return rg->npaths++;
}

static void add_value(struct rpath *pa, const struct obsv *o)
{
	if (pa->nv == pa->cap) {
		pa->cap = pa->cap ? 2 * pa->cap : 8;
		pa->o = xrealloc(pa->o, pa->cap * sizeof(*pa->o));
	}
	pa->o[pa->nv++] = *o;
}

/* Run r's regions into their paths at coordinates c. A series' runs
 * mostly carry their regions in one order: last[j] remembers the path of
 * the j-th region of the run before, so a lookup is a comparison. */
static int run_paths(struct regions *rg, const struct series_run *r, const double *c, double times,
		     size_t **last, size_t *nlast, size_t *cells, struct kerr *err)
{
	char key[RUN_KEY_SIZE];
	json_t *reg;
	size_t j;

	if (json_array_size(r->regions) > *nlast) {
		*last = xrealloc(*last, json_array_size(r->regions) * sizeof(**last));
		for (j = *nlast; j < json_array_size(r->regions); j++)
			(*last)[j] = SIZE_MAX;
		*nlast = json_array_size(r->regions);
	}
	json_array_foreach(r->regions, j, reg) {
		json_t *v = json_object_get(reg, rg->energy ? "energy_j" : "time_s");
		size_t depth = run_region_key(reg, key, sizeof(key)), at = (*last)[j];
		struct obsv o = {{c[0], c[1]}, json_number_value(v) * times};

		if (!depth || !json_is_number(v))
			continue;
		if (++*cells > REGIONS_CELLS_MAX)
			return kerr_field(err, KERR_TOO_LARGE, "series", "the runs carry more than %d region "
					  "values; choose fewer runs with label.K=V or n=", REGIONS_CELLS_MAX);
		if (at == SIZE_MAX || strcmp(rg->paths[at].key, key)) {
			if (rg->npaths == REGIONS_PATHS_MAX && !json_object_get(rg->index, key))
				return kerr_field(err, KERR_TOO_LARGE, "series", "the runs carry more than %d "
						  "call paths; choose fewer runs with label.K=V", REGIONS_PATHS_MAX);
			at = (*last)[j] = path_index(rg, key, depth);
		}
		add_value(&rg->paths[at], &o);
	}
	return 0;
}

/* The series' runs at the frequency: the root's values into *root (as
 * GET /api/v1/analysis/model takes the metric) and every path's. */
static int read_runs(struct regions *rg, const struct series_data *sd, const struct model_data *md,
		     struct obsv **root, size_t *nroot, struct kerr *err)
{
	const bool *is_p = rg->sel.is_p;
	size_t i, *last = NULL, nlast = 0, cells = 0;
	int rc = 0;

	*root = xmalloc((sd->nall ? sd->nall : 1) * sizeof(**root));
	*nroot = 0;
	rg->index = json_object();
	for (i = 0; i < sd->nall && !rc; i++) {
		const struct series_run *r = &sd->all[i];
		double v = rg->energy ? r->energy_j : r->tau, p = (double)r->p, c[2], times;

		if (!series_same_frequency(r->freq, rg->sel.freq))
			continue;
		if (md->nparams == 2)
			c[0] = is_p[0] ? p : r->n, c[1] = is_p[1] ? p : r->n;
		else
			c[0] = is_p[0] ? r->n : p, c[1] = is_p[0] ? p : r->n;
		if (isnan(v)) {
			rg->sel.skipped++;
			continue;
		}
		times = rg->sel.resource == MODEL_RESOURCE ? p : 1;	/* resource=true: p times each */
		(*root)[(*nroot)++] = (struct obsv){{c[0], c[1]}, v * times};
		rc = run_paths(rg, r, c, times, &last, &nlast, &cells, err);
	}
	free(last);
	json_decref(rg->index);
	rg->index = NULL;
	return rc;
}

/* A path's values as the root's were chosen: one parameter at the fixed
 * value (or every run for weak scaling), moved to x[0]. */
static void keep_chosen(const struct regions *rg, const struct model_data *md, struct rpath *pa)
{
	size_t i, kept = 0;

	if (md->nparams != 1)
		return;
	for (i = 0; i < pa->nv; i++)
		if (rg->sel.weak || pa->o[i].x[0] == rg->sel.chosen)
			pa->o[kept++] = (struct obsv){{pa->o[i].x[1], 0}, pa->o[i].v};
	pa->nv = kept;
}

/* ---- the models -------------------------------------------------------------- */

void regions_coords(const struct regions *rg, double x, double *c)
{
	c[0] = c[1] = 0;
	c[rg->xk] = x;
	if (rg->root.md.nparams == 2)
		c[1 - rg->xk] = rg->fix;
}

/* The measured mean at x (and the value held), in the metric's units; NAN
 * when not measured there. */
static double measured_at(const struct regions *rg, const struct fitted *f, double x)
{
	const struct model_data *md = &f->md;
	double c[2];
	size_t i;

	regions_coords(rg, x, c);
	for (i = 0; i < md->m; i++) {
		const double *px = md->x + i * (size_t)md->nparams;

		if (px[0] == c[0] && (md->nparams == 1 || px[1] == c[1]))
			return md->mean[i] / (md->resource ? px[md->resource - 1] : 1);
	}
	return NAN;
}

static int quality_rank(json_t *model)
{
	const char *q = json_string_value(json_object_get(model, "quality"));

	return !q ? 3 : !strcmp(q, "good") ? 0 : !strcmp(q, "poor") ? 1 : 2;
}

/* Model f (its values grouped into f->md already) as the GET model does:
 * the reading of the query, the fit, the answer. */
static json_t *model_one(const struct regions *rg, struct fitted *f, const char *words)
{
	struct model_sel sel = rg->sel;	/* each thread writes its own reason */
	struct kerr err;

	kerr_clear(&err);
	model_sel_reading_as(&f->md, &sel, words);
	memcpy(f->resource_reason, sel.resource_reason, sizeof(f->resource_reason));
	if (model_fit_band(f, &err))
		return NULL;
	return model_answer_json(f, NULL, 0, false);
}

/* The root's value predicted at rg->at; NAN from an unusable model. */
static double root_predicted(const struct regions *rg)
{
	double c[2];

	regions_coords(rg, rg->at, c);
	return quality_rank(rg->root_model) < 2 ? model_value(&rg->root, c) : NAN;
}

/* Each path is modelled on its own, so the first-level paths' predictions
 * may add up to more than the root's model predicts (the shares stay of
 * the root's model). When they do by more than PARTS_OVER (a sum a hair
 * above the root's, as when one path is nearly all of it, is no news), a
 * sentence that says so in buf (short: for a chart's small print) and
 * true. */
#define PARTS_OVER 0.01
static bool parts_exceed_root(const struct regions *rg, bool brief, char *buf, size_t size)
{
	double sum = 0, root = root_predicted(rg);
	const char *of = rg->energy ? "the energy" : "τ", *unit = rg->energy ? "J" : "s";
	size_t i;

	for (i = 0; i < rg->npaths; i++)
		if (rg->paths[i].depth == 1 && isfinite(rg->paths[i].p_value))
			sum += rg->paths[i].p_value;
	if (!(root > 0) || sum <= root * (1 + PARTS_OVER))
		return false;
	if (brief)
		snprintf(buf, size, "at %s = %g the first-level paths predict %.0f %% of %s's model: "
			 "each model is fitted on its own", rg->xname, rg->at, 100 * sum / root, of);
	else
		snprintf(buf, size, "at %s = %g the first-level paths' models predict %.4g %s together, "
			 "%.0f %% of %s's model (%.4g %s): each is fitted on its own, so the shares there "
			 "add up to more than 100 %%; measure at larger %s before trusting either",
			 rg->xname, rg->at, sum, unit, 100 * sum / root, of, root, unit, rg->xname);
	return true;
}

/* Path pa modelled, its shares measured and predicted, its growth. */
static void path_model(const struct regions *rg, struct rpath *pa)
{
	struct kerr err;
	double c[2], root_at;
	char words[RUN_KEY_SIZE + 32], text[RUN_KEY_SIZE + 64];

	kerr_clear(&err);
	pa->qrank = 3;
	pa->lo_share = pa->m_value = pa->m_share = pa->p_value = pa->p_share = NAN;
	snprintf(pa->growth, sizeof(pa->growth), "not modelled");
	pa->f.md.nparams = rg->root.md.nparams;
	memcpy(pa->f.md.names, rg->root.md.names, sizeof(pa->f.md.names));
	pa->f.md.resource = rg->sel.resource == MODEL_RESOURCE ? rg->root.md.resource : 0;
	if (!pa->nv || model_group(pa->o, pa->nv, &pa->f.md, "series", &err))
		return;
	snprintf(words, sizeof(words), "the %s of %s", rg->energy ? "energy" : "time",
		 run_path_text(pa->key, text, sizeof(text)));
	if (!(pa->model = model_one(rg, &pa->f, words)))
		return;
	pa->fitted = true;
	pa->qrank = quality_rank(pa->model);
	pa->m_value = measured_at(rg, &pa->f, rg->xhi);
	pa->m_share = pa->m_value / measured_at(rg, &rg->root, rg->xhi);
	pa->lo_share = measured_at(rg, &pa->f, rg->xlo) / measured_at(rg, &rg->root, rg->xlo);
	ka_pmnf_growth(&pa->f.mdl, rg->xk, rg->xname, pa->f.md.resource != 0, pa->growth,
		       sizeof(pa->growth));
	if (pa->qrank < 2) {	/* nothing extrapolated from an unusable model */
		regions_coords(rg, rg->at, c);
		pa->p_value = model_value(&pa->f, c);
		root_at = root_predicted(rg);
		pa->p_share = root_at > 0 ? pa->p_value / root_at : NAN;
	}
	pa->share_grows = pa->qrank < 2 && pa->lo_share < pa->m_share && pa->m_share < pa->p_share;
}

/* Work items 0..count - 1 done by as many threads as there are cores (at
 * most REGIONS_THREADS_MAX; the caller's alone for fewer than 16 items),
 * each taking the next item in turn. How many threads worked. */
struct work {
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	size_t count;
	atomic_size_t next;
};

static void *worker(void *arg)
{
	struct work *w = arg;
	size_t i;

	while ((i = atomic_fetch_add(&w->next, 1)) < w->count)
		w->fn(w->ctx, i);
	return NULL;
}

static size_t in_parallel(void (*fn)(void *ctx, size_t i), void *ctx, size_t count)
{
	struct work w = {.fn = fn, .ctx = ctx, .count = count};
	pthread_t th[REGIONS_THREADS_MAX];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cores < 1 ? 1 : cores > REGIONS_THREADS_MAX ? REGIONS_THREADS_MAX : (size_t)cores, t, started = 0;

	atomic_init(&w.next, 0);
	if (count < 16)
		n = 1;
	for (t = 1; t < n; t++)
		if (pthread_create(&th[started], NULL, worker, &w) == 0)
			started++;
	worker(&w);
	for (t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	return started + 1;
}

static void model_one_path(void *ctx, size_t i)
{
	struct regions *rg = ctx;

	path_model(rg, &rg->paths[i]);
}

/* Every path modelled, the models independent. */
static void model_paths(struct regions *rg)
{
	rg->threads = in_parallel(model_one_path, rg, rg->npaths);
}

static void parse_one(void *ctx, size_t i)
{
	struct series_run *r = &((struct series_data *)ctx)->all[i];
	json_error_t je;

	if (r->regions_text)
		r->regions = json_loads(r->regions_text, 0, &je);
	free(r->regions_text);
	r->regions_text = NULL;
}

/* Each run's regions parsed, the runs independent (jansson keeps no state
 * between documents). */
static void parse_regions(struct series_data *sd)
{
	in_parallel(parse_one, sd, sd->nall);
}

static const struct regions *rank_of;	/* qsort's context, under rank_lock */
static pthread_mutex_t rank_lock = PTHREAD_MUTEX_INITIALIZER;

/* Modelled first, unusable after; by predicted share, then measured share. */
static int cmp_rank(const void *a, const void *b)
{
	const struct rpath *u = &rank_of->paths[*(const size_t *)a], *v = &rank_of->paths[*(const size_t *)b];
	int qu = u->qrank >= 2, qv = v->qrank >= 2;
	double su = u->p_share, sv = v->p_share;

	if (qu != qv)
		return qu - qv;
	if (isnan(su) != isnan(sv))
		return isnan(su) ? 1 : -1;
	if (!isnan(su) && su != sv)
		return su > sv ? -1 : 1;
	su = isnan(u->m_share) ? -1 : u->m_share, sv = isnan(v->m_share) ? -1 : v->m_share;
	if (su != sv)
		return su > sv ? -1 : 1;
	return strcmp(u->key, v->key);
}

static void rank_paths(struct regions *rg)
{
	size_t i;

	rg->order = xmalloc((rg->npaths + 1) * sizeof(*rg->order));
	for (i = 0; i < rg->npaths; i++) {
		rg->order[i] = i;
		rg->candidates += rg->paths[i].share_grows;
	}
	pthread_mutex_lock(&rank_lock);
	rank_of = rg;
	qsort(rg->order, rg->npaths, sizeof(*rg->order), cmp_rank);
	pthread_mutex_unlock(&rank_lock);
}

/* The root's model, and the range of x the ranking reads shares over. */
static int model_root(struct regions *rg, struct obsv *o, size_t nv, struct kerr *err)
{
	size_t i;
	double c;

	if (model_choose(&rg->root.md, &rg->sel, o, &nv, err) ||
	    model_group(o, nv, &rg->root.md, "series", err))
		return -1;
	rg->root_model = model_one(rg, &rg->root, rg->energy ? "the energy" : "τ");
	if (!rg->root_model)
		return kerr_set(err, KERR_INVALID, "the series' %s cannot be modelled (a value or coordinate "
				"out of range)", rg->sel.metric_name);
	if (rg->root.md.nparams == 2 && isnan(rg->fix))
		for (i = 0, rg->fix = 0; i < rg->root.md.m; i++)
			rg->fix = fmax(rg->fix, rg->root.md.x[2 * i + 1 - (size_t)rg->xk]);
	rg->xlo = INFINITY, rg->xhi = -INFINITY;
	for (i = 0; i < rg->root.md.m; i++) {
		const double *px = rg->root.md.x + i * (size_t)rg->root.md.nparams;

		if (rg->root.md.nparams == 2 && px[1 - rg->xk] != rg->fix)
			continue;
		c = px[rg->xk];
		rg->xlo = fmin(rg->xlo, c), rg->xhi = fmax(rg->xhi, c);
	}
	if (!isfinite(rg->xhi))
		return kerr_field(err, KERR_NOT_FOUND, rg->xname[0] == 'p' ? "at_n" : "at_p", "no run of "
				  "series %s at %s = %g", rg->sel.name, rg->xname[0] == 'p' ? "n" : "p", rg->fix);
	if (isnan(rg->at))
		rg->at = AT_BEYOND * rg->xhi;
	return 0;
}

int regions_load(struct karted *k, struct req *rq, const char *sys, const char *app, const char *var,
		 const struct label_set *ls, struct regions *rg, struct kerr *err)
{
	struct series_data sd = {0};
	struct obsv *root = NULL;
	size_t nroot = 0, i;
	int rc = -1;

	memset(rg, 0, sizeof(*rg));
	if (regions_query(rq, &rg->root.md, rg, err) ||
	    series_load_in(k, rq, sys, app, var, ls, SERIES_WITH_REGIONS | SERIES_WITH_TREE |
			   SERIES_REGIONS_TEXT, &sd, err) ||
	    series_frequency(&sd, req_query(rq, "frequency_mhz"), &rg->sel.freq, err))
		goto out;
	snprintf(rg->sel.name, sizeof(rg->sel.name), "%s", series_label(&sd));
	rg->sel.series = series_json(&sd);
	parse_regions(&sd);
	if (read_runs(rg, &sd, &rg->root.md, &root, &nroot, err))
		goto out;
	if (!nroot || !rg->npaths) {
		kerr_field(err, KERR_NOT_FOUND, "series", "no run of series %s%s carries %s", rg->sel.name,
			   isnan(rg->sel.freq) ? "" : " at this frequency", !nroot ? rg->sel.metric_name :
			   rg->energy ? "regions with energy_j" : "regions with time_s");
		goto out;
	}
	series_free(&sd);	/* the runs are read: their memory goes before the models' */
	if (model_root(rg, root, nroot, err))
		goto out;
	for (i = 0; i < rg->npaths; i++)
		keep_chosen(rg, &rg->root.md, &rg->paths[i]);
	model_paths(rg);
	rank_paths(rg);
	rc = 0;
out:
	series_free(&sd);
	free(root);
	return rc;
}

void regions_free(struct regions *rg)
{
	size_t i;

	for (i = 0; i < rg->npaths; i++) {
		free(rg->paths[i].key);
		free(rg->paths[i].o);
		json_decref(rg->paths[i].model);
		model_fitted_free(&rg->paths[i].f);
	}
	free(rg->paths);
	free(rg->order);
	json_decref(rg->root_model);
	json_decref(rg->index);
	model_fitted_free(&rg->root);
	json_decref(rg->sel.series);
	json_decref(rg->sel.values);
	memset(rg, 0, sizeof(*rg));
}

size_t regions_names(const char *key, char *buf, const char **names)
{
	size_t n = 0;
	char *s = buf;

	snprintf(buf, RUN_KEY_SIZE, "%s", key);
	while (n < RUN_PATH_MAX) {
		char *sep = strchr(s, RUN_PATH_SEP);

		names[n++] = s;
		if (!sep)
			break;
		*sep = '\0';
		s = sep + 1;
	}
	return n;
}

/* ---- the regions report ------------------------------------------------------- */

#define CURVE_POINTS 64

/* Path pa's line: its measured means (at the value held) and its model
 * from the smallest measured x out to at (to the largest measured for an
 * unusable one), into d (room for 2 m + 2 CURVE_POINTS); its name and path
 * into name[0, size) and name[size, 2 size). */
static void region_line(const struct regions *rg, const struct rpath *pa, double *d, char *name,
			size_t size, struct report_region_line *ln)
{
	const struct model_data *md = &pa->f.md;
	double hi = pa->qrank < 2 ? rg->at : rg->xhi, c[2];
	char text[RUN_KEY_SIZE + 64];
	size_t i, k;

	ln->x = d, ln->y = d + md->m, ln->m = 0;
	for (i = 0; i < md->m; i++) {
		const double *px = md->x + i * (size_t)md->nparams;

		if (md->nparams == 2 && px[1 - rg->xk] != rg->fix)
			continue;
		d[ln->m] = px[rg->xk];
		d[md->m + ln->m++] = md->mean[i] / (md->resource ? px[md->resource - 1] : 1);
	}
	ln->cx = d + 2 * md->m, ln->cy = ln->cx + CURVE_POINTS;
	ln->nc = pa->fitted ? CURVE_POINTS : 0;
	for (k = 0; k < ln->nc; k++) {
		double x = rg->xlo * pow(hi / rg->xlo, (double)k / (CURVE_POINTS - 1));

		regions_coords(rg, x, c);
		((double *)ln->cx)[k] = x;
		((double *)ln->cy)[k] = model_value(&pa->f, c);
	}
	run_path_text(pa->key, text, sizeof(text));
	snprintf(name, size, "%s: %s%s", text,
		 pa->model ? json_string_value(json_object_get(pa->model, "function")) : "not modelled",
		 pa->qrank == 2 ? " (unusable)" : pa->share_grows ? " (share grows)" : "");
	ln->name = name;
	ln->path = name + size;	/* the caller's room holds the path alone after name */
	snprintf(name + size, size, "%s", text);
	ln->share_measured = pa->m_share;
	ln->share_at = pa->p_share;
}

void regions_report(struct karted *k, struct req *rq, struct resp *rs, const struct report_opts *o,
		    enum chart_format fmt)
{
	int64_t top = 5;
	const struct field f = {"top", FIELD_INTEGER, 0, 1, REGIONS_TOP_MAX, &top, 0};
	struct report_region_line lines[REGIONS_TOP_MAX];
	char (*names)[2][RUN_KEY_SIZE + 1200] = xmalloc(REGIONS_TOP_MAX * sizeof(*names));
	char title[SERIES_LABEL_SIZE + 160], note[256], why[320];
	char xtitle[64], stitle[64], sheading[96];
	double *mem[REGIONS_TOP_MAX] = {0};
	struct report_regions in = {0};
	struct regions rg;
	struct kerr err;
	size_t i;

	kerr_clear(&err);
	memset(&rg, 0, sizeof(rg));
	if (fields_read(rq, NULL, &f, 1, &err) ||
	    regions_load(k, rq, req_query(rq, "system"), req_query(rq, "application"),
			 req_query(rq, "variant"), NULL, &rg, &err)) {
		resp_error(rs, &err);
		regions_free(&rg);
		free(names);
		return;
	}
	in.n = rg.npaths < (size_t)top ? rg.npaths : (size_t)top;
	for (i = 0; i < in.n; i++) {
		const struct rpath *pa = &rg.paths[rg.order[i]];

		mem[i] = xmalloc((2 * pa->f.md.m + 2 * CURVE_POINTS + 1) * sizeof(double));
		region_line(&rg, pa, mem[i], names[i][0], sizeof(names[i][0]), &lines[i]);
	}
	snprintf(title, sizeof(title), "call paths of %s: the top %zu of %zu by predicted share at %s = %g",
		 rg.sel.name, in.n, rg.npaths, rg.xname, rg.at);
	snprintf(note, sizeof(note), "markers: mean of the runs; solid: the model; "
		 "dashed: extrapolated to %s = %g (an unusable model is not)", rg.xname, rg.at);
	snprintf(xtitle, sizeof(xtitle), "%s", rg.xname[0] == 'p' ? "processes p" : "problem size n");
	snprintf(stitle, sizeof(stitle), "share of %s (%%)", rg.energy ? "the energy" : "τ");
	snprintf(sheading, sizeof(sheading), "share at %s = %g (measured) and %s = %g", rg.xname, rg.xhi,
		 rg.xname, rg.at);
	in.title = title, in.xtitle = xtitle, in.stitle = stitle, in.sheading = sheading, in.note = note;
	in.snote = parts_exceed_root(&rg, true, why, sizeof(why)) ? why : NULL;
	in.ytitle = rg.energy ? "energy (J)" : "time (s)";
	in.lines = lines;
	in.x_measured = rg.xhi, in.at = rg.at;
	report_respond(rs, report_build_regions(&in, o), fmt);
	for (i = 0; i < in.n; i++)
		free(mem[i]);
	free(names);
	regions_free(&rg);
}

/* ---- GET /api/v1/analysis/regions ---------------------------------------------- */

/* {x, value, share} with the metric's name for the value. */
static json_t *at_json(const struct regions *rg, double x, double value, double share)
{
	return json_pack("{s:o,s:o,s:o,s:o}", rg->xname, json_finite(x), rg->energy ? "energy_j" : "time",
			 json_finite(value), "value", json_finite(value), "share", json_finite(share));
}

static json_t *path_json(const struct regions *rg, const struct rpath *pa, size_t rank)
{
	const char *names[RUN_PATH_MAX];
	char buf[RUN_KEY_SIZE];
	size_t n = regions_names(pa->key, buf, names), i;
	json_t *path = json_array();

	for (i = 0; i < n; i++)
		json_array_append_new(path, json_string(names[i]));
	return json_pack("{s:I,s:o,s:I,s:o,s:O,s:s,s:o,s:b,s:I}", "rank", (json_int_t)rank, "path", path,
			 "depth", (json_int_t)pa->depth, "measured", at_json(rg, rg->xhi, pa->m_value,
			 pa->m_share), "model", pa->model ? pa->model : json_null(), "growth", pa->growth,
			 "predicted", at_json(rg, rg->at, pa->p_value, pa->p_share), "share_grows",
			 pa->share_grows, "runs", (json_int_t)pa->nv);
}

static int get_regions(void *app, struct req *rq, struct resp *rs)
{
	struct regions rg;
	struct kerr err;
	json_t *paths, *body, *root, *warnings;
	char why[320];
	size_t i, limit;
	int64_t lim = REGIONS_PATHS_MAX;
	const struct field fl = {"limit", FIELD_INTEGER, 0, 1, REGIONS_PATHS_MAX, &lim, 0};

	kerr_clear(&err);
	memset(&rg, 0, sizeof(rg));
	if (fields_read(rq, NULL, &fl, 1, &err) ||
	    regions_load(app, rq, req_query(rq, "system"), req_query(rq, "application"),
			 req_query(rq, "variant"), NULL, &rg, &err)) {
		resp_error(rs, &err);
		regions_free(&rg);
		return 0;
	}
	limit = (size_t)lim;
	paths = json_array();
	for (i = 0; i < rg.npaths && i < limit; i++)
		json_array_append_new(paths, path_json(&rg, &rg.paths[rg.order[i]], i + 1));
	root = json_deep_copy(rg.root_model);
	warnings = json_array();
	json_object_set_new(root, "measured", at_json(&rg, rg.xhi, measured_at(&rg, &rg.root, rg.xhi), 1));
	json_object_set_new(root, "predicted", at_json(&rg, rg.at, root_predicted(&rg), 1));
	if (parts_exceed_root(&rg, false, why, sizeof(why)))
		json_array_append_new(warnings, json_string(why));
	body = json_pack("{s:O,s:s,s:s,s:o,s:s,s:o,s:f,s:f,s:o,s:I,s:I,s:I,s:I,s:{s:I}}", "series",
			 rg.sel.series, "metric", rg.energy ? "energy" : "time", "along", rg.xname,
			 "frequency_mhz", json_finite(rg.sel.freq), "scaling", rg.sel.weak ? "weak" :
			 rg.sel.fixed_name ? "strong" : "grid", "root", root, "smallest", rg.xlo, "largest",
			 rg.xhi, "paths", paths, "count", (json_int_t)rg.npaths, "listed",
			 (json_int_t)json_array_size(paths), "candidates", (json_int_t)rg.candidates, "threads",
			 (json_int_t)rg.threads, "skipped", "no_value", (json_int_t)rg.sel.skipped);
	json_object_set_new(body, rg.xname[0] == 'p' ? "at_p" : "at_n", json_real(rg.at));
	json_object_set_new(body, "warnings", warnings);
	if (rg.sel.fixed_name)
		json_object_set_new(body, rg.sel.fixed_name, json_real(rg.sel.chosen));
	if (rg.root.md.nparams == 2)
		json_object_set_new(body, rg.xname[0] == 'p' ? "n" : "p", json_real(rg.fix));
	resp_json(rs, 200, body);
	regions_free(&rg);
	return 0;
}

enum http_lane regions_lane(void *app, struct req *rq)
{
	(void)app;
	(void)rq;
	return LANE_SLOW;
}

const struct route api_region_routes[] = {
	{"GET", "/api/v1/analysis/regions", ROUTE_SLOW, get_regions, regions_lane},
	{NULL, NULL, 0, NULL, NULL},
};
