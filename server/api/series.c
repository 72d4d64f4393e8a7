/* Stored series loaded for the analyses (series.h). */
#include "series.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"


/* ---- loading a series ---------------------------------------------------- */

struct loader {
	struct series_data *sd;
	unsigned flags;
	size_t cap;
	struct ka_run *runs;	/* every run, before the frequency is chosen */
	double *freqs;		/* run-level frequency of runs[i], NAN when none */
	size_t n;
};

/* regions without those nested under another (a path of two names or more). */
static void first_level(json_t *regions)
{
	size_t i, kept = 0;
	json_t *r;

	for (i = 0; i < json_array_size(regions); i++) {
		r = json_array_get(regions, i);
		if (json_array_size(json_object_get(r, "path")) <= 1)
			json_array_set(regions, kept++, r);
	}
	while (json_array_size(regions) > kept)
		json_array_remove(regions, kept);
}

static int load_run(const struct run *r, void *ctx)
{
	struct loader *l = ctx;
	json_error_t je;

	if (l->n == SERIES_RUNS_MAX)
		return 1;	/* stop: too many (series_load_named answers 413) */
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->runs = xrealloc(l->runs, l->cap * sizeof(*l->runs));
		l->freqs = xrealloc(l->freqs, l->cap * sizeof(*l->freqs));
		if (l->flags & (SERIES_WITH_REGIONS | SERIES_ALL_RUNS))
			l->sd->all = xrealloc(l->sd->all, l->cap * sizeof(*l->sd->all));
	}
	l->runs[l->n] = (struct ka_run){r->id, r->p, r->n, r->tau, r->chi};
	/* what a page may draw beside tau (GET /api/v1/analysis/scaling says) */
	l->sd->with_chi += (r->has & RUN_HAS_CHI) != 0;
	l->sd->with_energy += (r->has & RUN_HAS_ENERGY) != 0 ||
			      (r->regions && (strstr(r->regions, "\"energy_j\"") ||
					      strstr(r->regions, "\"power_w\"")));
	l->sd->with_regions += r->regions != NULL;
	l->sd->with_frequency += (r->has & RUN_HAS_FREQ) ||
				 (r->regions && strstr(r->regions, "\"frequency_mhz\""));
	l->freqs[l->n] = (r->has & RUN_HAS_FREQ) ? r->frequency_mhz : NAN;
	if (l->flags & (SERIES_WITH_REGIONS | SERIES_ALL_RUNS)) {
		struct series_run *s = &l->sd->all[l->n];
		bool parse = l->flags & SERIES_WITH_REGIONS;

		s->id = r->id;
		s->p = r->p;
		s->n = r->n;
		s->tau = r->tau;
		s->chi = (r->has & RUN_HAS_CHI) ? r->chi : NAN;
		s->gamma = (r->has & RUN_HAS_CHI) ? r->gamma : NAN;
		s->energy_j = (r->has & RUN_HAS_ENERGY) ? r->energy_j : NAN;
		s->freq = l->freqs[l->n];
		s->regions_text = parse && r->regions && (l->flags & SERIES_REGIONS_TEXT) ?
				  xstrdup(r->regions) : NULL;
		s->regions = parse && r->regions && !s->regions_text ? json_loads(r->regions, 0, &je) : NULL;
		if (s->regions && !(l->flags & SERIES_WITH_TREE))
			first_level(s->regions);
		s->labels = parse && r->labels ? json_loads(r->labels, 0, &je) : NULL;
		l->sd->nall = l->n + 1;
	}
	l->n++;
	return 0;
}

bool series_same_frequency(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static int cmp_freq(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	if (isnan(x) || isnan(y))
		return isnan(y) - isnan(x);	/* NAN (no frequency) first */
	return x < y ? -1 : x > y;
}

/* The frequency most runs have (ties: the highest; runs without one count
 * as one group), and the others with their run counts, lowest first, into
 * others (NULL: not wanted). O(n log n) on a copy, however many differ. */
static double common_frequency(const double *f, size_t n, json_t *others)
{
	double *s, best = NAN;
	size_t i, j, best_c = 0;

	for (i = 1; i < n && series_same_frequency(f[i], f[0]); i++)
		;
	if (i >= n)	/* one frequency (or none), as most series: no sort */
		return n ? f[0] : NAN;
	s = xmalloc(n * sizeof(*s));
	memcpy(s, f, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_freq);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && series_same_frequency(s[j], s[i]); j++)
			;
		if (j - i >= best_c) {	/* ascending: a tie goes to the higher */
			best = s[i];
			best_c = j - i;
		}
	}
	for (i = 0; i < n && others; i = j) {
		for (j = i + 1; j < n && series_same_frequency(s[j], s[i]); j++)
			;
		if (!series_same_frequency(s[i], best))
			json_array_append_new(others, json_pack("{s:o,s:I}", "frequency_mhz",
								isnan(s[i]) ? json_null() :
									      json_real(s[i]),
								"runs", (json_int_t)(j - i)));
	}
	free(s);
	return best;
}

static const char *the_text(void *text, const char *key)
{
	(void)key;
	return text;
}

/* The frequency_mhz parameter: a number above 0. */
static int parse_frequency(const char *frequency, double *out, struct kerr *err)
{
	const struct field f = {"frequency_mhz", FIELD_NUMBER, FIELD_ABOVE_LO, 0, HUGE_VAL, out, 0};

	return fields_get(the_text, (void *)(uintptr_t)frequency, NULL, &f, 1, err);
}

int series_frequency(const struct series_data *sd, const char *frequency, double *out,
		     struct kerr *err)
{
	double *f;
	size_t i;

	if (frequency)
		return parse_frequency(frequency, out, err);
	f = xmalloc((sd->nall ? sd->nall : 1) * sizeof(*f));
	for (i = 0; i < sd->nall; i++)
		f[i] = sd->all[i].freq;
	*out = common_frequency(f, sd->nall, NULL);
	free(f);
	return 0;
}

static int by_p_n(const void *a, const void *b)
{
	const struct ka_run *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* The number of pairs n < n' measured at one p, summed over p: what Orii's
 * SPS walk visits. O(N log N) on a copy, O(N) when they come in order. */
static double iso_pairs(const struct ka_run *runs, size_t n)
{
	struct ka_run *c = NULL;
	const struct ka_run *r = runs;
	double pairs = 0, k = 0;
	size_t i;

	for (i = 1; i < n && by_p_n(&runs[i - 1], &runs[i]) <= 0; i++)
		;
	if (i < n) {	/* not in (p, n) order as stored (a grid posted p by p is) */
		c = xmalloc(n * sizeof(*c));
		memcpy(c, runs, n * sizeof(*c));
		qsort(c, n, sizeof(*c), by_p_n);
		r = c;
	}
	for (i = 0; i < n; i++) {
		if (i && r[i].p != r[i - 1].p)
			k = 0;	/* a new p */
		if (i && r[i].p == r[i - 1].p && r[i].n == r[i - 1].n)
			continue;	/* a repeat of the same point */
		pairs += k;	/* this n pairs with every smaller n at its p */
		k++;
	}
	free(c);
	return pairs;
}

/* The series' names into sd (and its label, with the label filters) and
 * the filter that selects its runs. */
static int series_name(struct series_data *sd, const char *system, const char *application,
		       const char *variant, const struct label_set *labels, struct run_filter *f,
		       struct kerr *err)
{
	size_t j, len;

	if (!system || !*system)
		return kerr_field(err, KERR_INVALID, "system", "system is required to select a series");
	if (!application || !*application)
		return kerr_field(err, KERR_INVALID, "application",
				  "application is required to select a series");
	if (strlen(system) > RUN_NAME_MAX || strlen(application) > RUN_NAME_MAX ||
	    strlen(variant) > RUN_NAME_MAX)
		return kerr_set(err, KERR_INVALID, "series names are at most %d bytes", RUN_NAME_MAX);
	snprintf(sd->system, sizeof(sd->system), "%s", system);
	snprintf(sd->application, sizeof(sd->application), "%s", application);
	snprintf(sd->variant, sizeof(sd->variant), "%s", variant);
	snprintf(sd->label, sizeof(sd->label), "%s:%s%s%s", system, application, *variant ? ":" : "",
		 variant);
	*f = (struct run_filter){.system = system, .application = application, .variant = variant,
				 .oldest_first = true};
	if (!labels || !labels->n)
		return 0;
	f->labels = labels->eq;
	f->nlabels = labels->n;
	sd->labels = json_object();
	for (j = 0; j < labels->n; j++) {
		json_object_set_new(sd->labels, labels->eq[j].key, json_string(labels->eq[j].value));
		len = strlen(sd->label);
		snprintf(sd->label + len, sizeof(sd->label) - len, "%s%.60s=%.60s", j ? ", " : " [",
			 labels->eq[j].key, labels->eq[j].value);
	}
	len = strlen(sd->label);
	snprintf(sd->label + len, sizeof(sd->label) - len, "]");
	return 0;
}

/* SERIES_ONE_FREQUENCY: the runs with chi at one frequency (the one asked
 * for, or the most common), within the pair walk's bound. */
static int series_one_frequency(struct series_data *sd, struct loader *l, const char *frequency,
				struct kerr *err)
{
	size_t i, kept = 0;
	double pairs;

	for (i = 0; i < l->n; i++)
		if (isnan(l->runs[i].chi))
			sd->no_chi++;
		else {
			l->runs[kept] = l->runs[i];
			l->freqs[kept++] = l->freqs[i];
		}
	if (kept == 0)
		return kerr_set(err, KERR_INVALID, "the %zu runs of series %s carry tau alone; this analysis "
				"needs chi or gamma: post \"chi\" (or \"gamma\") with each run, or import with "
				"chi_regions=A,B naming the regions that are overhead; GET "
				"/api/v1/analysis/scaling needs tau alone", sd->no_chi, series_label(sd));
	l->n = kept;
	if (frequency && parse_frequency(frequency, &sd->frequency_mhz, err))
		return -1;
	if (!frequency)
		sd->frequency_mhz = common_frequency(l->freqs, l->n, sd->others);
	for (i = 0, kept = 0; i < l->n; i++)
		if (series_same_frequency(l->freqs[i], sd->frequency_mhz))
			l->runs[kept++] = l->runs[i];
	if (kept == 0)
		return kerr_set(err, KERR_NOT_FOUND, "series %s has no runs at frequency_mhz=%g",
				series_label(sd), sd->frequency_mhz);
	sd->runs = l->runs;
	sd->nruns = kept;
	l->runs = NULL;
	if ((pairs = iso_pairs(sd->runs, sd->nruns)) > ISO_PAIRS_MAX)
		return kerr_field(err, KERR_TOO_LARGE, "series", "the points of series %s make %.0f (p, n, "
				  "n') pairs to walk, more than the limit of %.0f; select fewer runs "
				  "(frequency_mhz, variant)", series_label(sd), pairs, ISO_PAIRS_MAX);
	return 0;
}

int series_load_named(struct karted *k, const char *system, const char *application,
		      const char *variant, const char *frequency, const struct label_set *labels,
		      unsigned flags, struct series_data *sd, struct kerr *err)
{
	struct run_filter f;
	struct loader l = {0};
	struct store *st;
	int rc = -1;

	memset(sd, 0, sizeof(*sd));
	sd->frequency_mhz = NAN;
	sd->others = json_array();
	if (series_name(sd, system, application, variant ? variant : "", labels, &f, err))
		return -1;
	l.sd = sd;
	l.flags = flags;
	/* the runs' numbers alone unless all[] keeps regions or labels: half
	 * the columns (the 1,000 runs of an isoefficiency in 0.6 ms, not 1.3) */
	f.values_only = !(flags & (SERIES_WITH_REGIONS | SERIES_ALL_RUNS));
	st = pool_get(k->readers);
	rc = store_each_run(st, &f, load_run, &l, err);
	pool_put(k->readers, st);
	if (rc > 0)
		kerr_field(err, KERR_TOO_LARGE, "series", "series %s has more than %d runs, the most one "
			   "analysis loads; select fewer (variant, frequency_mhz)", series_label(sd),
			   SERIES_RUNS_MAX);
	else if (rc == 0 && l.n == 0)
		kerr_set(err, KERR_NOT_FOUND, "there are no runs of series %s (GET /api/v1/series lists the "
			 "series)", series_label(sd));
	else if (rc == 0)
		rc = flags & SERIES_ONE_FREQUENCY ? series_one_frequency(sd, &l, frequency, err) : 0;
	rc = rc || l.n == 0 ? -1 : 0;
	free(l.runs);
	free(l.freqs);
	return rc;
}

int series_load_in(struct karted *k, struct req *rq, const char *system,
		   const char *application, const char *variant, const struct label_set *ls,
		   unsigned flags, struct series_data *sd, struct kerr *err)
{
	struct label_set own;

	memset(sd, 0, sizeof(*sd));
	if (!ls && query_labels(rq, &own, err))
		return -1;
	return series_load_named(k, system, application, variant, req_query(rq, "frequency_mhz"),
				 ls ? ls : &own, flags, sd, err);
}

int series_load(struct karted *k, struct req *rq, unsigned flags, struct series_data *sd,
		struct kerr *err)
{
	return series_load_in(k, rq, req_query(rq, "system"), req_query(rq, "application"),
			      req_query(rq, "variant"), NULL, flags, sd, err);
}

void series_free(struct series_data *sd)
{
	size_t i;

	for (i = 0; i < sd->nall; i++) {
		json_decref(sd->all[i].regions);
		json_decref(sd->all[i].labels);
		free(sd->all[i].regions_text);
	}
	free(sd->all);
	free(sd->runs);
	json_decref(sd->others);
	json_decref(sd->labels);
	memset(sd, 0, sizeof(*sd));
}

const char *series_label(const struct series_data *sd)
{
	return sd->label;
}

json_t *series_json(const struct series_data *sd)
{
	json_t *o = json_pack("{s:s,s:s,s:s}", "system", sd->system, "application",
			      sd->application, "variant", sd->variant);

	if (sd->labels)
		json_object_set(o, "labels", sd->labels);
	return o;
}

json_t *series_other_frequencies(const struct series_data *sd)
{
	return json_incref(sd->others);
}

/* The series' runs pooled into (p, n) points, into *obs (malloc'd; free
 * it) and the work space the analysis needs (*work, *wsize). */
int series_pool(const struct series_data *sd, struct ka_obs **obs, size_t *nobs, void **work,
		size_t *wsize, struct kerr *err)
{
	*obs = xmalloc((sd->nruns ? sd->nruns : 1) * sizeof(**obs));
	*wsize = ka_iso_work(sd->nruns) > ka_pool_work(sd->nruns) ? ka_iso_work(sd->nruns) :
								    ka_pool_work(sd->nruns);
	*work = xmalloc(*wsize ? *wsize : 1);
	if (ka_pool(sd->runs, sd->nruns, *obs, nobs, *work, *wsize))
		return kerr_set(err, KERR_INTERNAL, "a stored run of this series is out of domain");
	return 0;
}

struct lane_ctx {
	struct store *st;
	int64_t runs;
	bool failed;
};

static int add_count(const char *const *v, int ncol, void *ctx)
{
	(void)ncol;
	((struct lane_ctx *)ctx)->runs += v[0] ? strtoll(v[0], NULL, 10) : 0;
	return 0;
}

static void count_series(struct lane_ctx *c, const char *system, const char *application,
			 const char *variant)
{
	const char *params[3] = {system, application, variant ? variant : ""};
	struct kerr err;

	if (c->failed || !system || !application)
		return;
	if (store_query(c->st, "SELECT runs FROM series WHERE system = $1 AND application = $2 "
			"AND variant = $3", "ttt", params, add_count, c, NULL, &err) < 0)
		c->failed = true;
}

static void count_spec(const char *spec, void *ctx)
{
	char buf[3 * RUN_NAME_MAX + 3], *app, *var;

	snprintf(buf, sizeof(buf), "%s", spec);
	if (!(app = strchr(buf, ':')))
		return;
	*app++ = '\0';
	if ((var = strchr(app, ':')))
		*var++ = '\0';
	count_series(ctx, buf, app, var);
}

enum http_lane series_lane(void *app, struct req *rq)
{
	struct karted *k = app;
	struct lane_ctx c = {0};

	c.st = pool_get(k->readers);
	count_series(&c, req_query(rq, "system"), req_query(rq, "application"),
		     req_query(rq, "variant"));
	req_query_each(rq, "series", count_spec, &c);
	pool_put(k->readers, c.st);
	/* a store that fails here fails the handler too, which says so */
	return !c.failed && c.runs > LANE_QUICK_RUNS ? LANE_SLOW : LANE_QUICK;
}

int scaling_load(struct karted *k, struct req *rq, const char *system, const char *application,
		 const char *variant, const struct label_set *ls, struct scaling_data *sc,
		 struct kerr *err)
{
	struct ka_run *runs;
	size_t i, n = 0, wsize;
	void *work;
	int rc;

	memset(sc, 0, sizeof(*sc));
	if (series_load_in(k, rq, system, application, variant, ls, SERIES_ALL_RUNS, &sc->sd, err) ||
	    series_frequency(&sc->sd, req_query(rq, "frequency_mhz"), &sc->frequency, err))
		return -1;
	runs = xmalloc((sc->sd.nall ? sc->sd.nall : 1) * sizeof(*runs));
	for (i = 0; i < sc->sd.nall; i++)
		if (series_same_frequency(sc->sd.all[i].freq, sc->frequency))
			runs[n++] = (struct ka_run){sc->sd.all[i].id, sc->sd.all[i].p, sc->sd.all[i].n,
						    sc->sd.all[i].tau, 0};	/* tau alone */
	wsize = ka_pool_work(n);
	work = xmalloc(wsize ? wsize : 1);
	sc->obs = xmalloc((n ? n : 1) * sizeof(*sc->obs));
	sc->speedup = xmalloc((n ? n : 1) * sizeof(double));
	sc->efficiency = xmalloc((n ? n : 1) * sizeof(double));
	sc->base_p = xmalloc((n ? n : 1) * sizeof(int64_t));
	rc = ka_pool(runs, n, sc->obs, &sc->nobs, work, wsize) ||
	     ka_strong_scaling(sc->obs, sc->nobs, sc->speedup, sc->efficiency, sc->base_p);
	free(work);
	free(runs);
	if (rc)
		return kerr_set(err, KERR_INTERNAL, "a stored run of series %s is out of domain",
				series_label(&sc->sd));
	if (n == 0)
		return kerr_set(err, KERR_NOT_FOUND, "series %s has no runs at frequency_mhz %g",
				series_label(&sc->sd), sc->frequency);
	return 0;
}

void scaling_free(struct scaling_data *sc)
{
	series_free(&sc->sd);
	free(sc->obs);
	free(sc->speedup);
	free(sc->efficiency);
	free(sc->base_p);
	memset(sc, 0, sizeof(*sc));
}
