/* Kimura's model from stored runs (energy_fit.h). */
#include "energy_fit.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"


/* ---- Kimura's model from runs --------------------------------------------- */

enum run_kind { KIND_NONE, KIND_UNIFORM, KIND_OPTIMISED };

/* A region's figures: time, power (power_w, or energy/time) and energy
 * (energy_j, or power * time); NAN for what cannot be known. */
struct region_fig {
	double time, power, energy, freq;
};

static bool region_of(json_t *regions, const char *name, double run_freq, struct region_fig *f)
{
	json_t *r;
	size_t i;

	json_array_foreach(regions, i, r) {
		json_t *t, *p, *e, *fr;

		if (strcmp(json_string_value(json_object_get(r, "name")), name))
			continue;
		t = json_object_get(r, "time_s");
		p = json_object_get(r, "power_w");
		e = json_object_get(r, "energy_j");
		fr = json_object_get(r, "frequency_mhz");
		f->time = json_is_number(t) ? json_number_value(t) : NAN;
		f->power = json_is_number(p) ? json_number_value(p) : NAN;
		f->energy = json_is_number(e) ? json_number_value(e) : NAN;
		f->freq = json_is_number(fr) ? json_number_value(fr) : run_freq;
		if (isnan(f->power) && f->time > 0)
			f->power = f->energy / f->time;
		if (isnan(f->energy))
			f->energy = f->power * f->time;
		return true;
	}
	return false;
}

/* Uniform: every region at one frequency (the run's); optimised: regions at
 * frequencies of their own. *freq gets the uniform frequency. */
static enum run_kind kind_of(const struct series_run *s, double *freq)
{
	json_t *r;
	size_t i;
	double f = s->freq;

	if (!s->regions || json_array_size(s->regions) == 0)
		return KIND_NONE;
	json_array_foreach(s->regions, i, r) {
		json_t *fr = json_object_get(r, "frequency_mhz");
		double rf = json_is_number(fr) ? json_number_value(fr) : s->freq;

		if (isnan(f))
			f = rf;
		if (!series_same_frequency(rf, f))
			return KIND_OPTIMISED;
	}
	*freq = f;
	return isnan(f) ? KIND_NONE : KIND_UNIFORM;
}

/* Median of the values collected (GSL); NAN for none. */
static double median(double *v, size_t n)
{
	return n ? gsl_stats_median(v, 1, n) : NAN;
}

enum pick { PICK_TIME, PICK_POWER, PICK_ENERGY, PICK_FREQ };

/* Median of a figure of region name over the runs of kind at p (p 0: any)
 * and frequency f (NAN: any; for optimised runs f is the region's). */
static double median_fig(const struct series_data *sd, const char *name, enum run_kind kind,
			 int64_t p, double f, enum pick what, double *buf)
{
	struct region_fig fig;
	double uf = NAN, x;
	size_t i, n = 0;

	for (i = 0; i < sd->nall; i++) {
		const struct series_run *s = &sd->all[i];

		if ((p && s->p != p) || kind_of(s, &uf) != kind)
			continue;
		if (!region_of(s->regions, name, s->freq, &fig))
			continue;
		if (!isnan(f) && !series_same_frequency(kind == KIND_UNIFORM ? uf : fig.freq, f))
			continue;
		x = what == PICK_TIME ? fig.time : what == PICK_POWER ? fig.power :
		    what == PICK_ENERGY ? fig.energy : fig.freq;
		if (isfinite(x))
			buf[n++] = x;
	}
	return median(buf, n);
}

static int add_unique(double *v, size_t *n, double x)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (v[i] == x)
			return 0;
	v[(*n)++] = x;
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Every p of the uniform runs at frequency f (sorted), or every uniform
 * frequency at p (sorted). */
static size_t distinct(const struct series_data *sd, bool want_p, double f, int64_t p,
		       double *out)
{
	size_t i, n = 0;
	double uf = NAN;

	for (i = 0; i < sd->nall; i++) {
		if (kind_of(&sd->all[i], &uf) != KIND_UNIFORM)
			continue;
		if (want_p && series_same_frequency(uf, f))
			add_unique(out, &n, (double)sd->all[i].p);
		else if (!want_p && sd->all[i].p == p)
			add_unique(out, &n, uf);
	}
	qsort(out, n, sizeof(*out), cmp_double);
	return n;
}

static int fit_region(const struct series_data *sd, struct energy_model *em, size_t r,
		      double *buf, double *xs, double *ts, struct kerr *err)
{
	struct ka_region_model *m = &em->model[r];
	const char *name = em->names[r];
	double f_std = em->f_std, best = INFINITY, pt;
	size_t n, i;
	int rc;

	m->time_std = median_fig(sd, name, KIND_UNIFORM, 1, f_std, PICK_TIME, buf);
	m->power_std = median_fig(sd, name, KIND_UNIFORM, 1, f_std, PICK_POWER, buf);
	if (!(m->time_std > 0))
		return kerr_set(err, KERR_INVALID, "region %s has no time_s in the standard runs at p=1", name);
	if (!(m->power_std > 0))
		return kerr_set(err, KERR_INVALID, "region %s has neither power_w nor energy_j in the "
				"standard runs at p=1", name);

	/* eq. 5 over the standard runs' p */
	n = distinct(sd, true, f_std, 0, xs);
	for (i = 0; i < n; i++)
		ts[i] = median_fig(sd, name, KIND_UNIFORM, (int64_t)xs[i], f_std, PICK_TIME, buf);
	rc = ka_fit_alpha_p(xs, ts, n, m->time_std, &m->alpha_p);
	if (rc == -KA_ENODATA)
		return kerr_set(err, KERR_INVALID, "alpha_p for region %s needs standard runs (frequency_mhz "
				"%g) at p=1 and at one or more p > 1", name, f_std);
	if (rc)
		return kerr_set(err, KERR_INVALID, "alpha_p for region %s: a standard run lacks its time_s",
				name);

	/* eq. 6 over the frequencies measured at p = 1 */
	n = distinct(sd, false, 0, 1, xs);
	for (i = 0; i < n; i++)
		ts[i] = median_fig(sd, name, KIND_UNIFORM, 1, xs[i], PICK_TIME, buf);
	rc = ka_fit_beta_on(f_std, xs, ts, n, m->time_std, &m->beta_on);
	if (rc == -KA_ENODATA)
		return kerr_set(err, KERR_INVALID, "beta_on for region %s needs runs at p=1 at two or more "
				"frequencies", name);
	if (rc)
		return kerr_set(err, KERR_INVALID, "beta_on for region %s: a run at p=1 lacks its time_s",
				name);

	/* f_opt: as the optimised runs ran it, else the least P*T at p = 1 */
	m->f_opt = median_fig(sd, name, KIND_OPTIMISED, 0, NAN, PICK_FREQ, buf);
	em->f_opt_from[r] = "optimised runs";
	if (!(m->f_opt > 0)) {
		em->f_opt_from[r] = "least energy at p=1";
		for (i = 0; i < n; i++) {
			pt = median_fig(sd, name, KIND_UNIFORM, 1, xs[i], PICK_POWER, buf) * ts[i];
			if (pt < best) {
				best = pt;
				m->f_opt = xs[i];
			}
		}
	}
	if (!(m->f_opt > 0))
		return kerr_set(err, KERR_INVALID, "f_opt for region %s: no run at p=1 has its power", name);
	m->power_opt = median_fig(sd, name, KIND_OPTIMISED, 1, m->f_opt, PICK_POWER, buf);
	if (!(m->power_opt > 0))
		m->power_opt = median_fig(sd, name, KIND_UNIFORM, 1, m->f_opt, PICK_POWER, buf);
	if (!(m->power_opt > 0))
		return kerr_set(err, KERR_INVALID, "region %s: no power measured at p=1 at its f_opt %g MHz",
				name, m->f_opt);
	return 0;
}

int energy_model_build(const struct series_data *sd, struct energy_model *em, struct kerr *err)
{
	double *buf, *xs, *ts, uf = NAN;
	size_t i, j, cap;
	json_t *r;
	int rc = 0;

	if (isnan(em->f_std)) {
		for (i = 0; i < sd->nall; i++)
			if (kind_of(&sd->all[i], &uf) == KIND_UNIFORM && !(uf <= em->f_std))
				em->f_std = uf;
		if (isnan(em->f_std))
			return kerr_field(err, KERR_INVALID, "f_std",
					  "series %s has no run whose regions ran at one frequency: "
					  "the energy analysis (Kimura) holds regions run at the standard "
					  "frequency against the same regions at others; post "
					  "\"frequency_mhz\" and regions with \"energy_j\" (or \"power_w\") "
					  "with each run, or give the standard frequency as f_std=MHz",
					  series_label(sd));
	}
	/* the regions: those of the standard runs at p = 1 */
	for (i = 0; i < sd->nall; i++) {
		if (sd->all[i].p != 1 || kind_of(&sd->all[i], &uf) != KIND_UNIFORM ||
		    !series_same_frequency(uf, em->f_std))
			continue;
		json_array_foreach(sd->all[i].regions, j, r) {
			const char *name = json_string_value(json_object_get(r, "name"));
			size_t q;

			for (q = 0; q < em->nregions && strcmp(em->names[q], name); q++)
				;
			if (q < em->nregions)
				continue;
			em->names = xrealloc(em->names, (em->nregions + 1) * sizeof(*em->names));
			em->names[em->nregions++] = xstrdup(name);
		}
	}
	if (em->nregions == 0)
		return kerr_set(err, KERR_INVALID, "the energy analysis needs a standard run (frequency_mhz "
				"%g, regions with time_s and power_w or energy_j) at p=1", em->f_std);
	em->model = xcalloc(em->nregions, sizeof(*em->model));
	em->f_opt_from = xcalloc(em->nregions, sizeof(*em->f_opt_from));
	cap = sd->nall + 1;
	buf = xmalloc(cap * sizeof(double));
	xs = xmalloc(cap * sizeof(double));
	ts = xmalloc(cap * sizeof(double));
	for (i = 0; i < em->nregions && rc == 0; i++)
		rc = fit_region(sd, em, i, buf, xs, ts, err);
	free(buf);
	free(xs);
	free(ts);
	return rc;
}

void energy_model_free(struct energy_model *em)
{
	size_t i;

	for (i = 0; i < em->nregions; i++)
		free(em->names[i]);
	free(em->names);
	free(em->model);
	free(em->f_opt_from);
	memset(em, 0, sizeof(*em));
}

size_t energy_measured(const struct series_data *sd, const struct energy_model *em, double *ps,
		       double *de)
{
	double *buf = xmalloc((sd->nall + 1) * sizeof(double));
	double *eo = xmalloc((em->nregions + 1) * sizeof(double));
	double *es = xmalloc((em->nregions + 1) * sizeof(double));
	size_t np = 0, i, r, out = 0;
	double uf;

	for (i = 0; i < sd->nall; i++)
		if (kind_of(&sd->all[i], &uf) == KIND_OPTIMISED)
			add_unique(ps, &np, (double)sd->all[i].p);
	qsort(ps, np, sizeof(*ps), cmp_double);
	for (i = 0; i < np; i++) {
		for (r = 0; r < em->nregions; r++) {
			eo[r] = median_fig(sd, em->names[r], KIND_OPTIMISED, (int64_t)ps[i], NAN,
					   PICK_ENERGY, buf);
			es[r] = median_fig(sd, em->names[r], KIND_UNIFORM, (int64_t)ps[i], em->f_std,
					   PICK_ENERGY, buf);
			if (!isfinite(eo[r]) || !isfinite(es[r]))
				break;
		}
		if (r == em->nregions && ka_delta_e_measured(eo, es, em->nregions, &de[out]) == 0)
			ps[out++] = ps[i];
	}
	free(buf);
	free(eo);
	free(es);
	return out;
}

json_t *energy_measured_json(const struct series_data *sd, const struct energy_model *em)
{
	double *ps = xmalloc((sd->nall + 1) * sizeof(double));
	double *de = xmalloc((sd->nall + 1) * sizeof(double));
	size_t n = energy_measured(sd, em, ps, de), i;
	json_t *out = json_array();

	for (i = 0; i < n; i++)
		json_array_append_new(out, json_pack("{s:f,s:f}", "p", ps[i], "delta_e", de[i]));
	free(ps);
	free(de);
	return out;
}
