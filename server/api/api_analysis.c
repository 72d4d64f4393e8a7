/* Analyses of HTTP API v1: isoefficiency (Orii) and energy (Kimura et al.). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy_fit.h"
#include "series.h"
#include "core/num.h"
#include "analysis/energy.h"
#include "analysis/isoeff.h"
#include "karted.h"
#include "models.h"
#include "core/xalloc.h"

#define LEVELS_MAX 32
#define ISO_LIST_MAX 20000	/* max_pairs at most: every answer stays under 16 MiB */
#define ISO_LIST_DEFAULT 200	/* max_pairs by default (detail=compact): 1,000 points answer in ~0.4 MB */
#define ISO_LIST_FULL 1000	/* max_pairs by default with detail=full */
#define ENERGY_P_MAX 16384	/* node counts of one energy what-if */
#define ENERGY_CELLS_MAX 200000	/* regions x node counts: the shares in one answer */

/* ---- GET /api/v1/analysis/isoefficiency ---------------------------------- */

struct iso_out {
	const struct ka_obs *obs;
	struct jw sps, cand, not, steps, boundary, bases;	/* each a list, written as found */
	struct ka_step *step;	/* the steps again, for the models' statement of the C1 turn */
	size_t nstep;
	size_t max_pairs;		/* listed per kind at most */
	size_t nsps, ncand, nnot;	/* counted, listed or not */
};

/* The lists in the order of the answer, and their keys there. */
#define ISO_LISTS 6
static const char *const iso_list_keys[ISO_LISTS] = {"sps", "candidates", "not_sps", "bases", "steps",
						     "c1_c3_boundary"};

static struct jw *iso_list(struct iso_out *o, size_t i)
{
	struct jw *lists[ISO_LISTS] = {&o->sps, &o->cand, &o->not, &o->bases, &o->steps, &o->boundary};

	return lists[i];
}

static void iso_out_init(struct iso_out *o, const struct ka_obs *obs, size_t nobs, size_t max_pairs)
{
	size_t i;

	*o = (struct iso_out){.obs = obs, .max_pairs = max_pairs};
	o->step = xmalloc((nobs ? nobs : 1) * sizeof(*o->step));	/* fewer steps than points */
	for (i = 0; i < ISO_LISTS; i++) {
		jw_init(iso_list(o, i), HTTP_ANSWER_MAX);
		jw_open(iso_list(o, i), '[');
	}
}

static void iso_out_free(struct iso_out *o)
{
	size_t i;

	for (i = 0; i < ISO_LISTS; i++)
		jw_free(iso_list(o, i));
	free(o->step);
}

/* Room for one more in a list of n so far? */
static bool listed(const struct iso_out *o, size_t n)
{
	return n < o->max_pairs;
}

/* {"p", "n"} of a point */
static void put_pn(struct jw *w, const struct ka_obs *o)
{
	jw_open(w, '{');
	jw_key(w, "p");
	jw_int(w, o->p);
	jw_key(w, "n");
	jw_real(w, o->n);
	jw_close(w, '}');
}

static void put_key_pn(struct jw *w, const char *key, const struct ka_obs *o)
{
	jw_key(w, key);
	put_pn(w, o);
}

static void put_key_real(struct jw *w, const char *key, double v)
{
	jw_key(w, key);
	jw_real(w, v);
}

static void o_sps(const struct ka_sps *s, void *ctx)
{
	struct iso_out *o = ctx;
	struct jw *w = &o->sps;

	if (!listed(o, o->nsps++))
		return;
	jw_open(w, '{');
	put_key_pn(w, "base", &o->obs[s->base]);
	put_key_pn(w, "grown_n", &o->obs[s->grown_n]);
	put_key_pn(w, "grown_p", &o->obs[s->grown_p]);
	put_key_real(w, "efficiency", s->efficiency);
	jw_key(w, "crossing");
	jw_str(w, s->equal ? "equal" : "crossed");
	jw_key(w, "crossing_point");
	jw_open(w, '{');
	put_key_real(w, "p", s->cross_p);
	put_key_real(w, "tau", s->cross_tau);
	put_key_real(w, "chi", s->cross_chi);
	jw_close(w, '}');
	jw_key(w, "arrow_region");
	jw_str(w, ka_cclass_name(s->arrow));
	jw_key(w, "step_region");
	jw_str(w, ka_cclass_name(s->step));
	jw_key(w, "uncertain");
	jw_bool(w, s->uncertain);
	jw_close(w, '}');
}

static void put_pair(struct jw *w, const struct iso_out *o, const struct ka_pair *c)
{
	jw_open(w, '{');
	put_key_pn(w, "base", &o->obs[c->base]);
	put_key_pn(w, "grown_n", &o->obs[c->grown_n]);
	jw_key(w, "uncertain");
	jw_bool(w, c->uncertain);
	jw_close(w, '}');
}

static void o_cand(const struct ka_pair *c, void *ctx)
{
	struct iso_out *o = ctx;

	if (listed(o, o->ncand++))
		put_pair(&o->cand, o, c);
}

static void o_not(const struct ka_pair *c, void *ctx)
{
	struct iso_out *o = ctx;

	if (listed(o, o->nnot++))
		put_pair(&o->not, o, c);
}

static void o_step(const struct ka_step *s, void *ctx)
{
	struct iso_out *o = ctx;
	struct jw *w = &o->steps;

	o->step[o->nstep++] = *s;
	jw_open(w, '{');
	put_key_real(w, "n", o->obs[s->from].n);
	jw_key(w, "from_p");
	jw_int(w, o->obs[s->from].p);
	jw_key(w, "to_p");
	jw_int(w, o->obs[s->to].p);
	jw_key(w, "region");
	jw_str(w, ka_cclass_name(s->cls));
	put_key_real(w, "slope", s->slope);
	jw_key(w, "uncertain");
	jw_bool(w, s->uncertain);
	jw_close(w, '}');
}

static void o_boundary(size_t i, void *ctx)
{
	struct iso_out *o = ctx;

	put_pn(&o->boundary, &o->obs[i]);
}

static void o_base(size_t i, enum ka_base_status st, bool unc, void *ctx)
{
	static const char *const names[] = {"untested", "not_sps", "candidate", "sps"};
	struct iso_out *o = ctx;
	struct jw *w = &o->bases;

	jw_open(w, '{');
	jw_key(w, "p");
	jw_int(w, o->obs[i].p);
	put_key_real(w, "n", o->obs[i].n);
	jw_key(w, "status");
	jw_str(w, names[st]);
	jw_key(w, "uncertain");
	jw_bool(w, unc);
	jw_close(w, '}');
}

/* The pooled points: id, count, p, n, tau, chi, efficiency, effective_p;
 * with full, every point's ids and spreads, else only those of a point of
 * several runs (one run's spread is its value, its ids its id). */
static void put_points(struct jw *w, const struct ka_obs *obs, size_t nobs, const struct ka_run *runs,
		       bool full)
{
	size_t i, k;

	jw_open(w, '[');
	for (i = 0; i < nobs; i++) {
		const struct ka_obs *o = &obs[i];

		jw_open(w, '{');
		jw_key(w, "id");
		jw_int(w, runs[o->first].id);
		if (full || o->count > 1) {
			jw_key(w, "ids");
			jw_open(w, '[');
			for (k = 0; k < o->count; k++)
				jw_int(w, runs[o->first + k].id);
			jw_close(w, ']');
		}
		jw_key(w, "count");
		jw_int(w, (int64_t)o->count);
		jw_key(w, "p");
		jw_int(w, o->p);
		put_key_real(w, "n", o->n);
		put_key_real(w, "tau", o->tau);
		put_key_real(w, "chi", o->chi);
		put_key_real(w, "efficiency", o->eps);
		put_key_real(w, "effective_p", ka_effective_p(o->p, o->eps));
		if (full || o->count > 1) {
			put_key_real(w, "tau_min", o->tau_lo);
			put_key_real(w, "tau_max", o->tau_hi);
			put_key_real(w, "chi_min", o->chi_lo);
			put_key_real(w, "chi_max", o->chi_hi);
			put_key_real(w, "efficiency_min", o->eps_lo);
			put_key_real(w, "efficiency_max", o->eps_hi);
		}
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

/* The empirical isoefficiency function at each level: its points (n, p)
 * and the power law n ~ p^k fitted to them (how n must grow with p to
 * hold the efficiency). */
static void put_functions(struct jw *w, const struct ka_obs *obs, size_t nobs, const double *levels,
			  size_t nlevels)
{
	double *ns = xmalloc((nobs + 1) * sizeof(double)), *ps = xmalloc((nobs + 1) * sizeof(double));
	double k, c, r2, plo, phi;
	size_t l, i, m;
	char text[320];

	jw_open(w, '[');
	for (l = 0; l < nlevels; l++) {
		ka_iso_function(obs, nobs, levels[l], ns, ps, &m);
		jw_open(w, '{');
		put_key_real(w, "efficiency", levels[l]);
		jw_key(w, "points");
		jw_open(w, '[');
		for (i = 0; i < m; i++) {
			jw_open(w, '{');
			put_key_real(w, "n", ns[i]);
			put_key_real(w, "p", ps[i]);
			jw_close(w, '}');
		}
		jw_close(w, ']');
		for (i = 0, plo = INFINITY, phi = 0; i < m; i++)
			plo = fmin(plo, ps[i]), phi = fmax(phi, ps[i]);
		if (ka_fit_power(ps, ns, m, &k, &c, &r2) == 0) {
			put_key_real(w, "exponent", k);
			put_key_real(w, "r2", r2);
			/* a power law through a few close p says little (k = 30 from p = 10..24) */
			if (m < 5 || phi / plo < 8) {
				snprintf(text, sizeof(text), "the exponent is fitted to %zu points over p = %.4g "
					 "to %.4g (a factor of %.3g); fewer than 5 points or less than a factor "
					 "of 8 cannot pin it down", m, plo, phi, phi / plo);
				jw_key(w, "warning");
				jw_str(w, text);
			}
		} else {
			jw_key(w, "exponent");
			jw_null(w);
			jw_key(w, "r2");
			jw_null(w);
		}
		jw_close(w, '}');
	}
	jw_close(w, ']');
	free(ns);
	free(ps);
}

/* ---- what grid the points form, said in words ------------------------------- */

#define SCALING_LIST_MAX 1000	/* weak-scaling efficiencies listed */
#define SCALING_SUGGEST_MAX 16	/* runs suggested to complete the grid */

struct pnt {
	int64_t p;
	double n, tau;
};

static int by_p(const void *a, const void *b)
{
	const struct pnt *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p;
}

/* One more run {p, n} that would complete the grid, while there is room. */
static void suggest_run(json_t *a, int64_t p, double n)
{
	if (json_array_size(a) < SCALING_SUGGEST_MAX)
		json_array_append_new(a, json_pack("{s:I,s:f}", "p", (json_int_t)p, "n", n));
}

/* {"kind", "explanation", "n_per_p", "weak_efficiency", "to_complete"}:
 * which of Orii's analyses the points support, and which runs would let
 * them say more. */
static json_t *scaling_json(const struct ka_obs *obs, size_t nobs)
{
	struct pnt *q = xmalloc((nobs ? nobs : 1) * sizeof(*q));
	int64_t *w = xmalloc((nobs ? nobs : 1) * sizeof(*w));
	json_t *o, *suggest = json_array(), *weak = json_array();
	enum ka_scaling kind;
	double npp;
	char text[640];
	size_t i;

	kind = ka_scaling_kind(obs, nobs, w, &npp);
	if (kind != KA_SCALING_GRID) {	/* a grid needs no suggestions: no sort */
		for (i = 0; i < nobs; i++)
			q[i] = (struct pnt){obs[i].p, obs[i].n, obs[i].tau};
		qsort(q, nobs, sizeof(*q), by_p);
	}
	switch (kind) {
	case KA_SCALING_WEAK:
		for (i = 0; i < nobs && i < SCALING_LIST_MAX; i++)
			json_array_append_new(weak, json_pack("{s:I,s:f,s:f,s:f}", "p", (json_int_t)q[i].p,
							      "n", q[i].n, "tau", q[i].tau, "efficiency",
							      q[0].tau / q[i].tau));
		for (i = 0; i + 1 < nobs; i++)
			suggest_run(suggest, q[i].p, q[i + 1].n);
		snprintf(text, sizeof(text),
			 "Weak scaling: one n per p (%s). Orii's SPS identification needs two or more n "
			 "at one p, and the C1/C2/C3 steps two or more p at one n; this series has "
			 "neither, so its weak-scaling efficiency tau(p0)/tau(p) stands in for them. A "
			 "run at p = %lld with n = %g (the next p's problem) would make a strong-scaling "
			 "triple with the runs there; one such run per step is listed.",
			 isnan(npp) ? "n changes with p" : "n proportional to p", (long long)q[0].p,
			 q[1].n);
		break;
	case KA_SCALING_STRONG:
		suggest_run(suggest, q[0].p, 2 * q[0].n);
		suggest_run(suggest, q[1].p, 2 * q[0].n);
		snprintf(text, sizeof(text),
			 "Strong scaling at one n = %g: the C1/C2/C3 steps compare its p, but SPS "
			 "identification needs a larger problem n' at the same p. Runs at n' = %g at p = "
			 "%lld and %lld would let it test one.", q[0].n, 2 * q[0].n, (long long)q[0].p,
			 (long long)q[1].p);
		break;
	case KA_SCALING_ONE_P:
		for (i = 0; i < nobs; i++)
			suggest_run(suggest, 2 * q[i].p, q[i].n);
		snprintf(text, sizeof(text),
			 "Every run is at p = %lld: nothing grows p, so there are no steps and no SPS. "
			 "Runs at p = %lld at the same n would start the analysis.", (long long)q[0].p,
			 (long long)(2 * q[0].p));
		break;
	case KA_SCALING_ONE_POINT:
		suggest_run(suggest, 2 * q[0].p, q[0].n);
		suggest_run(suggest, q[0].p, 2 * q[0].n);
		snprintf(text, sizeof(text), "One (p, n) point: measure more p at this n, and more n.");
		break;
	default:
		snprintf(text, sizeof(text), "A strong-scaling grid (two or more n at some p): "
			 "Orii's analyses apply.");
		break;
	}
	o = json_pack("{s:s,s:s,s:o,s:o,s:o}", "kind", ka_scaling_name(kind), "explanation", text,
		      "n_per_p", kind == KA_SCALING_WEAK ? json_finite(npp) : json_null(), "weak_efficiency",
		      weak, "to_complete", suggest);
	free(q);
	free(w);
	return o;
}

/* ---- GET /api/v1/analysis/points --------------------------------------------
 * The pooled (p, n) points of a series as compact rows, without the pair
 * walk: what a browser needs to find a chart's markers under the pointer,
 * about 80 bytes a point, so 10^5 points answer well under the cap. */
static int get_points(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	struct series_data sd = {0};
	struct ka_obs *obs = NULL;
	void *work = NULL;
	size_t nobs = 0, wsize, i;
	struct kerr err;
	json_t *rows;

	kerr_clear(&err);
	if (series_load(k, rq, SERIES_ONE_FREQUENCY, &sd, &err) ||
	    series_pool(&sd, &obs, &nobs, &work, &wsize, &err)) {
		resp_error(rs, &err);
		goto out;
	}
	rows = json_array();
	for (i = 0; i < nobs; i++) {
		const struct ka_obs *o = &obs[i];

		json_array_append_new(rows, json_pack("[I,I,I,f,f,f,f]", (json_int_t)sd.runs[o->first].id,
						      (json_int_t)o->count, (json_int_t)o->p, o->n,
						      o->tau, o->chi, o->eps));
	}
	resp_json(rs, 200,
		  json_pack("{s:o,s:o,s:[s,s,s,s,s,s,s],s:o,s:{s:I}}", "series", series_json(&sd),
			    "frequency_mhz", json_finite(sd.frequency_mhz), "columns", "id", "count", "p",
			    "n", "tau", "chi", "efficiency", "points", rows, "skipped", "no_chi",
			    (json_int_t)sd.no_chi));
out:
	free(obs);
	free(work);
	series_free(&sd);
	return 0;
}

/* tolerance=auto: the tolerances from the spread of repeated points
 * (ka_iso_auto_tolerance), and where they came from. */
static json_t *auto_tolerance(const struct ka_obs *obs, size_t nobs, struct ka_iso_opts *opts)
{
	double *scratch = xmalloc((2 * nobs + 1) * sizeof(double));
	size_t m = ka_iso_auto_tolerance(obs, nobs, scratch, opts);

	free(scratch);
	return json_pack("{s:I,s:s}", "repeated_points", (json_int_t)m, "source", m ?
			 "the median spread of the points with two or more runs" :
			 "no point has two or more runs: the default tolerances stand");
}

/* What GET /api/v1/analysis/isoefficiency is asked for, besides the series. */
struct iso_params {
	struct ka_iso_opts opts;
	bool is_auto, with_points, with_models, full;
	double levels[LEVELS_MAX];
	size_t nlevels;
	double max_pairs;
};

static int iso_params_read(struct req *rq, struct iso_params *ip, struct kerr *err)
{
	const char *detail = req_query(rq, "detail");

	*ip = (struct iso_params){{KA_ISO_TOL_DEFAULT, KA_C2_RTOL_DEFAULT}, false, true, true, false,
				  {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}, 9, ISO_LIST_DEFAULT};
	if (detail && strcmp(detail, "compact") && strcmp(detail, "full"))
		return kerr_field(err, KERR_INVALID, "detail", "detail must be compact (the default) or full");
	ip->full = detail && !strcmp(detail, "full");
	if (ip->full)
		ip->max_pairs = ISO_LIST_FULL;
	ip->is_auto = req_query(rq, "tolerance") && !strcmp(req_query(rq, "tolerance"), "auto");
	if (ip->is_auto && req_query(rq, "c2_rtol"))
		return kerr_field(err, KERR_INVALID, "c2_rtol", "tolerance=auto sets c2_rtol from the "
				  "spread too; give one or the other");
	return (!ip->is_auto && query_num(rq, "tolerance", 0, 1, &ip->opts.tol, err)) ||
	       query_num(rq, "c2_rtol", 0, 10, &ip->opts.c2_rtol, err) ||
	       query_list(rq, "levels", 0, 1, ip->levels, LEVELS_MAX, &ip->nlevels, err) ||
	       query_num(rq, "max_pairs", 1, ISO_LIST_MAX, &ip->max_pairs, err) ||
	       query_bool(rq, "points", true, &ip->with_points, err) ||
	       query_bool(rq, "models", true, &ip->with_models, err) ? -1 : 0;
}

/* The answer, written as it goes: the lists of the walk (points=false
 * leaves out the points of a large series), the functions, and how many
 * there are, listed or not (max_pairs bounds the lists). Takes out's
 * lists, and extra's members (tolerance_auto, models) at the end. */
static void iso_write(struct jw *w, const struct series_data *sd, const struct ka_obs *obs, size_t nobs,
		      const struct iso_params *ip, struct iso_out *out, json_t *extra)
{
	const char *key;
	json_t *v;
	size_t i;

	jw_open(w, '{');
	jw_key(w, "series");
	jw_value_new(w, series_json(sd));
	put_key_real(w, "frequency_mhz", sd->frequency_mhz);
	put_key_real(w, "tolerance", ip->opts.tol);
	put_key_real(w, "c2_rtol", ip->opts.c2_rtol);
	if (ip->with_points) {
		jw_key(w, "points");
		put_points(w, obs, nobs, sd->runs, ip->full);
	}
	for (i = 0; i < ISO_LISTS; i++) {
		jw_close(iso_list(out, i), ']');
		jw_key(w, iso_list_keys[i]);
		jw_splice(w, iso_list(out, i));
	}
	jw_key(w, "isoefficiency_functions");
	put_functions(w, obs, nobs, ip->levels, ip->nlevels);
	jw_key(w, "other_frequencies");
	jw_value_new(w, series_other_frequencies(sd));
	jw_key(w, "skipped");
	jw_value_new(w, json_pack("{s:I}", "no_chi", (json_int_t)sd->no_chi));
	jw_key(w, "scaling");
	jw_value_new(w, scaling_json(obs, nobs));
	jw_key(w, "counts");
	jw_value_new(w, json_pack("{s:I,s:I,s:I,s:b}", "sps", (json_int_t)out->nsps, "candidates",
				  (json_int_t)out->ncand, "not_sps", (json_int_t)out->nnot, "truncated",
				  out->nsps > out->max_pairs || out->ncand > out->max_pairs ||
				  out->nnot > out->max_pairs));
	json_object_foreach(extra, key, v) {
		jw_key(w, key);
		jw_value(w, v);
	}
	jw_close(w, '}');
}

static int get_isoefficiency(void *app, struct req *rq, struct resp *rs)
{
	struct series_data sd = {0};
	struct iso_out out = {0};
	struct iso_params ip;
	struct ka_obs *obs = NULL;
	json_t *extra = json_object(), *models;
	size_t nobs = 0, wsize;
	void *work = NULL;
	struct kerr err;
	struct jw w;

	kerr_clear(&err);
	if (iso_params_read(rq, &ip, &err) || series_load(app, rq, SERIES_ONE_FREQUENCY, &sd, &err) ||
	    series_pool(&sd, &obs, &nobs, &work, &wsize, &err))
		goto out;
	if (nobs < 2) {
		kerr_set(&err, KERR_INVALID, "the isoefficiency analysis needs runs at two or more (p, n) "
			 "points; series %s has runs at one point only", series_label(&sd));
		goto out;
	}
	if (ip.is_auto)
		json_object_set_new(extra, "tolerance_auto", auto_tolerance(obs, nobs, &ip.opts));
	iso_out_init(&out, obs, nobs, (size_t)ip.max_pairs);
	ka_iso_analyze(obs, nobs, &ip.opts, work, wsize,
		       &(struct ka_iso_visitor){o_step, o_boundary, o_sps, o_cand, o_not, o_base, &out});
	if (ip.with_models) {
		models = iso_models_json(rq, &sd, obs, nobs, ip.levels, ip.nlevels, out.step, out.nstep, &err);
		if (!models)
			goto out;
		json_object_set_new(extra, "models", models);
	}
	jw_init(&w, HTTP_ANSWER_MAX);
	iso_write(&w, &sd, obs, nobs, &ip, &out, extra);
	resp_jw(rs, 200, &w);
out:
	if (err.code)
		resp_error(rs, &err);
	json_decref(extra);
	iso_out_free(&out);
	free(obs);
	free(work);
	series_free(&sd);
	return 0;
}

/* ---- GET /api/v1/analysis/scaling: tau alone ------------------------------------- */

static int get_scaling(void *app, struct req *rq, struct resp *rs)
{
	struct scaling_data sc;
	struct label_set ls;
	json_t *pts, *base;
	struct kerr err;
	char key[NUM_TEXT_MAX];
	size_t i;

	kerr_clear(&err);
	if (query_labels(rq, &ls, &err) ||
	    scaling_load(app, rq, req_query(rq, "system"), req_query(rq, "application"),
			 req_query(rq, "variant"), &ls, &sc, &err)) {
		resp_error(rs, &err);
		scaling_free(&sc);
		return 0;
	}
	pts = json_array();
	base = json_object();
	for (i = 0; i < sc.nobs; i++) {
		const struct ka_obs *o = &sc.obs[i];

		json_array_append_new(pts, json_pack("{s:I,s:f,s:f,s:I,s:f,s:f}", "p", (json_int_t)o->p,
						     "n", o->n, "tau", o->tau, "runs",
						     (json_int_t)o->count, "speedup", sc.speedup[i],
						     "efficiency", sc.efficiency[i]));
		num_shortest(o->n, key, false);
		json_object_set_new(base, key, json_integer(sc.base_p[i]));
	}
	resp_json(rs, 200, json_pack("{s:o,s:o,s:o,s:o,s:o,s:{s:I,s:I,s:I,s:I,s:I},s:s}", "series",
				     series_json(&sc.sd), "frequency_mhz", json_finite(sc.frequency),
				     "points", pts, "base_p", base, "other_frequencies",
				     series_other_frequencies(&sc.sd), "runs", "all",
				     (json_int_t)sc.sd.nall, "with_chi", (json_int_t)sc.sd.with_chi,
				     "with_energy", (json_int_t)sc.sd.with_energy, "with_regions",
				     (json_int_t)sc.sd.with_regions, "with_frequency",
				     (json_int_t)sc.sd.with_frequency, "explanation",
				     "tau is the median of the runs at each (p, n); at each n, with p0 "
				     "its smallest measured p, speedup = tau(p0) / tau(p) and "
				     "efficiency = p0 tau(p0) / (p tau(p)): relative to p0, not to a "
				     "serial run"));
	scaling_free(&sc);
	return 0;
}

/* ---- energy ---------------------------------------------------------------- */

static json_t *predicted_json(const struct ka_region_model *m, const char *const *names, size_t nr,
			      double f_std, const double *ps, size_t np)
{
	json_t *a = json_array();
	double *sh = xmalloc(nr * sizeof(double)), de;
	size_t i, r;

	for (i = 0; i < np; i++) {
		json_t *shares;

		if (ka_delta_e(m, nr, f_std, ps[i], &de, sh))
			continue;	/* no energy at this p (every region's is 0) */
		shares = json_object();
		for (r = 0; r < nr; r++)
			json_object_set_new(shares, names[r], json_real(sh[r]));
		json_array_append_new(a, json_pack("{s:f,s:f,s:o}", "p", ps[i], "delta_e", de,
						   "shares", shares));
	}
	free(sh);
	return a;
}

static const double default_p[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};

static int get_energy(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	double ps[64];
	size_t np = sizeof(default_p) / sizeof(default_p[0]);
	struct energy_model em;
	struct series_data sd = {0};
	struct kerr err;
	json_t *regions, *body;
	size_t r;

	kerr_clear(&err);
	memcpy(ps, default_p, sizeof(default_p));
	memset(&em, 0, sizeof(em));
	em.f_std = NAN;
	if (query_num(rq, "f_std", 1e-3, 1e7, &em.f_std, &err) ||
	    query_list(rq, "predict_p", 1, 1e9, ps, 64, &np, &err) ||
	    series_load(k, rq, SERIES_WITH_REGIONS, &sd, &err) ||
	    energy_model_build(&sd, &em, &err)) {
		resp_error(rs, &err);
		energy_model_free(&em);
		series_free(&sd);
		return 0;
	}
	regions = json_array();
	for (r = 0; r < em.nregions; r++) {
		const struct ka_region_model *m = &em.model[r];

		json_array_append_new(
			regions,
			json_pack("{s:s,s:f,s:f,s:f,s:s,s:f,s:f,s:f,s:f}", "name", em.names[r], "alpha_p",
				  m->alpha_p, "beta_on", m->beta_on, "f_opt", m->f_opt, "f_opt_from",
				  em.f_opt_from[r], "power_std_w", m->power_std, "power_opt_w",
				  m->power_opt, "time_std_s", m->time_std, "energy_ratio",
				  ka_energy_ratio(m, em.f_std)));
	}
	body = json_pack("{s:o,s:f,s:o,s:o,s:o}", "series", series_json(&sd), "f_std", em.f_std,
			 "regions", regions, "predicted",
			 predicted_json(em.model, (const char *const *)em.names, em.nregions, em.f_std,
					ps, np),
			 "measured", energy_measured_json(&sd, &em));
	resp_json(rs, 200, body);
	energy_model_free(&em);
	series_free(&sd);
	return 0;
}

/* POST /api/v1/analysis/energy/model: the prediction from given parameters. */

static int post_energy_model(void *app, struct req *rq, struct resp *rs)
{
	json_t *root = req_json_object(rq, rs), *jr = NULL, *out;
	struct numbers ps = {NULL, 0};
	double f_std = 0;
	const struct field f[] = {
		{"f_std", FIELD_NUMBER, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, &f_std, 0},
		{"p", FIELD_NUMBERS, FIELD_REQUIRED, 1, HUGE_VAL, &ps, ENERGY_P_MAX},
		{"regions", FIELD_ARRAY, FIELD_REQUIRED, 1, RUN_REGIONS_MAX, &jr, 0},
	};
	struct ka_region_model *m = NULL;
	const char **names = NULL;
	struct kerr err;
	size_t nr, i;

	(void)app;
	if (!root)
		return 0;
	kerr_clear(&err);
	if (fields_only(root, FIELDS(f), &err))
		goto out;
	nr = json_array_size(jr);
	if (ps.n * nr > ENERGY_CELLS_MAX) {
		kerr_field(&err, KERR_TOO_LARGE, "regions", "regions x p is %zu x %zu = %zu shares, more "
			   "than the limit of %d; ask for fewer node counts or regions", nr, ps.n, nr * ps.n,
			   ENERGY_CELLS_MAX);
		goto out;
	}
	m = xcalloc(nr, sizeof(*m));
	names = xcalloc(nr, sizeof(*names));
	if (report_regions_read(jr, m, names, &err))
		goto out;
	out = json_array();
	for (i = 0; i < nr; i++)
		json_array_append_new(out, json_pack("{s:s,s:f}", "name", names[i], "energy_ratio",
						     ka_energy_ratio(&m[i], f_std)));
	resp_json(rs, 200, json_pack("{s:o,s:o}", "predicted", predicted_json(m, names, nr, f_std, ps.v, ps.n),
				     "regions", out));
out:
	if (err.code)
		resp_error(rs, &err);
	free(ps.v);
	free(m);
	free(names);
	json_decref(root);
	return 0;
}

const struct route api_analysis_routes[] = {
	{"GET", "/api/v1/analysis/isoefficiency", ROUTE_SLOW, get_isoefficiency, series_lane},
	{"GET", "/api/v1/analysis/points", ROUTE_SLOW, get_points, series_lane},
	{"GET", "/api/v1/analysis/scaling", ROUTE_SLOW, get_scaling, series_lane},
	{"GET", "/api/v1/analysis/energy", ROUTE_SLOW, get_energy, series_lane},
	{"POST", "/api/v1/analysis/energy/model", ROUTE_BODY | ROUTE_SLOW, post_energy_model, NULL},
	{NULL, NULL, 0, NULL, NULL},
};
