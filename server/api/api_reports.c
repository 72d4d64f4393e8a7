/* GET /api/v1/reports/{kind}.{svg|png|pdf}: the analyses drawn. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy_fit.h"
#include "series.h"
#include "karted.h"
#include "models.h"
#include "regions.h"
#include "render/report.h"
#include "core/xalloc.h"

#define SERIES_MAX 8

/* One series of a report with everything its report_series points into. */
struct loaded {
	char name[3 * RUN_NAME_MAX + 3];
	struct series_data sd;
	struct energy_model em;
	double *mp, *mde;
};

static void loaded_free(struct loaded *l)
{
	energy_model_free(&l->em);
	series_free(&l->sd);
	free(l->mp);
	free(l->mde);
}

struct series_names {
	char spec[SERIES_MAX][3 * RUN_NAME_MAX + 3];
	size_t n;
	bool too_many;
};

static void add_series(const char *value, void *ctx)
{
	struct series_names *s = ctx;

	if (s->n == SERIES_MAX) {
		s->too_many = true;
		return;
	}
	snprintf(s->spec[s->n++], sizeof(s->spec[0]), "%s", value);
}

/* Split "system:application:variant" (variant may be absent or empty). */
static int split_series(char *spec, const char **sys, const char **app, const char **var,
			struct kerr *err)
{
	char *c1 = strchr(spec, ':'), *c2;

	if (!c1)
		goto bad;
	*c1 = '\0';
	c2 = strchr(c1 + 1, ':');
	if (c2)
		*c2 = '\0';
	*sys = spec;
	*app = c1 + 1;
	*var = c2 ? c2 + 1 : "";
	if (**sys && **app)
		return 0;
bad:
	return kerr_field(err, KERR_INVALID, "series",
			  "series must be system:application or system:application:variant");
}

static int load_one(struct karted *k, struct req *rq, enum report_kind kind, char *spec,
		    const struct label_set *ls, struct loaded *l, struct report_series *rs,
		    struct kerr *err)
{
	const char *sys = NULL, *app = NULL, *var = NULL;

	if (spec) {
		if (split_series(spec, &sys, &app, &var, err))
			return -1;
	} else {
		sys = req_query(rq, "system");
		app = req_query(rq, "application");
		var = req_query(rq, "variant");
	}
	memset(rs, 0, sizeof(*rs));
	if (series_load_in(k, rq, sys, app, var, ls,
			   report_needs_runs(kind) ? SERIES_ONE_FREQUENCY : SERIES_WITH_REGIONS,
			   &l->sd, err))
		return -1;
	snprintf(l->name, sizeof(l->name), "%s", series_label(&l->sd));
	rs->name = l->name;
	if (report_needs_runs(kind)) {
		rs->runs = l->sd.runs;
		rs->nruns = l->sd.nruns;
		return 0;
	}
	l->em.f_std = NAN;
	if (fields_read(rq, NULL, &(const struct field){"f_std", FIELD_NUMBER, FIELD_ABOVE_LO, 0, HUGE_VAL,
							 &l->em.f_std, 0}, 1, err))
		return -1;
	if (energy_model_build(&l->sd, &l->em, err))
		return -1;
	l->mp = xmalloc((l->sd.nall + 1) * sizeof(double));
	l->mde = xmalloc((l->sd.nall + 1) * sizeof(double));
	rs->nmeasured = energy_measured(&l->sd, &l->em, l->mp, l->mde);
	rs->measured_p = l->mp;
	rs->measured_de = l->mde;
	rs->regions = l->em.model;
	rs->region_names = (const char *const *)l->em.names;
	rs->nregions = l->em.nregions;
	rs->f_std = l->em.f_std;
	return 0;
}

/* What a report overlays: each series= (or the one system=&application=)
 * for each value of the one label key given more than once (label.commit=A
 * &label.commit=B: the runs of A beside those of B), at most SERIES_MAX. */
struct items {
	size_t n;
	char spec[SERIES_MAX][3 * RUN_NAME_MAX + 3];	/* "" for the query's series */
	struct label_set ls[SERIES_MAX];
};

static int report_items(struct req *rq, const struct series_names *names, struct items *it,
			struct kerr *err)
{
	struct label_set all, base = {.n = 0};
	const char *key = NULL, *vals[RUN_FILTER_LABELS_MAX];
	size_t i, j, nv = 0, ns = names->n ? names->n : 1;

	if (query_labels(rq, &all, err))
		return -1;
	/* the key given with two different values, and the filters besides it */
	for (i = 0; i < all.n && !key; i++)
		for (j = i + 1; j < all.n; j++)
			if (!strcmp(all.eq[i].key, all.eq[j].key) &&
			    strcmp(all.eq[i].value, all.eq[j].value)) {
				key = all.eq[i].key;
				break;
			}
	for (i = 0; i < all.n; i++) {
		bool dup = false;

		if (key && strcmp(all.eq[i].key, key)) {
			for (j = 0; j < i; j++)
				if (!strcmp(all.eq[j].key, all.eq[i].key)) {
					if (strcmp(all.eq[j].value, all.eq[i].value))
						return kerr_field(err, KERR_INVALID, "label", "two values can "
								  "be compared for one label key at "
								  "a time (label.%.64s and label.%.64s "
								  "are both repeated)", key,
								  all.eq[i].key);
					dup = true;
				}
			if (!dup)
				base.eq[base.n++] = all.eq[i];
		} else if (key) {
			for (j = 0; j < nv; j++)
				dup |= !strcmp(vals[j], all.eq[i].value);
			if (!dup)
				vals[nv++] = all.eq[i].value;
		} else {
			base.eq[base.n++] = all.eq[i];
		}
	}
	if (!key)
		nv = 1;
	if (ns * nv > SERIES_MAX)
		return kerr_field(err, KERR_INVALID, key ? "label" : "series", "at most %d series can be "
				  "overlaid (%zu series x %zu label values asked for)", SERIES_MAX,
				  ns, nv);
	it->n = 0;
	for (i = 0; i < ns; i++)
		for (j = 0; j < nv; j++, it->n++) {
			snprintf(it->spec[it->n], sizeof(it->spec[0]), "%s",
				 names->n ? names->spec[i] : "");
			it->ls[it->n] = base;
			if (key)
				it->ls[it->n].eq[it->ls[it->n].n++] = (struct label_eq){key, vals[j]};
		}
	return 0;
}

/* The chart as the answer, with X-Karte-Frame: where each panel's data
 * went (chart_frames_json), so a browser can map pointer and data. */
void report_respond(struct resp *rs, struct report *rep, enum chart_format fmt)
{
	const struct chart_spec *spec = report_spec(rep);
	struct chart_frame *frames = xcalloc(spec->npanels ? spec->npanels : 1, sizeof(*frames));
	struct kerr err;

	kerr_clear(&err);
	if (chart_render(spec, fmt, &rs->body, &rs->len, frames, &err)) {
		resp_error(rs, &err);
	} else {
		rs->status = 200;
		rs->content_type = chart_content_type(fmt);
		rs->frame = chart_frames_json(spec, frames);
	}
	free(frames);
	report_free(rep);
}

/* GET /api/v1/reports/model.{fmt} (one metric's model of up to SERIES_MAX
 * series, overlaid) and isoefficiency-function.{fmt} (one series). */
static void model_report(struct karted *k, struct req *rq, struct resp *rs, bool iso,
			 struct items *it, const char *measured_title, const struct report_opts *o,
			 enum chart_format fmt)
{
	const char *sys = req_query(rq, "system"), *app = req_query(rq, "application");
	const char *var = req_query(rq, "variant");
	struct model_plot *mp;
	struct report_model *rm;
	struct iso_plot ip = {0};
	char title[160];
	size_t i;
	struct kerr err;

	kerr_clear(&err);
	if (iso) {
		if (it->n > 1)
			kerr_field(&err, KERR_INVALID, "series", "the isoefficiency-function report draws one "
				   "series");
		else if (*it->spec[0])
			split_series(it->spec[0], &sys, &app, &var, &err);
		if (!err.code && !iso_plot_load(k, rq, sys, app, var, &ip, &err))
			report_respond(rs, report_build_isofunction(&ip.ri, o), fmt);
		if (err.code)
			resp_error(rs, &err);
		iso_plot_free(&ip);
		return;
	}
	mp = xcalloc(it->n, sizeof(*mp));
	rm = xcalloc(it->n, sizeof(*rm));
	for (i = 0; i < it->n; i++) {
		if ((*it->spec[i] && split_series(it->spec[i], &sys, &app, &var, &err)) ||
		    model_plot_load(k, rq, sys, app, var, &it->ls[i], &mp[i], &err)) {
			if (it->n > 1)
				err.index = (long)i;
			resp_error(rs, &err);
			goto out;
		}
		rm[i] = mp[i].rm;
		if (measured_title) {	/* the measured curve alone */
			rm[i].nc = 0;
			rm[i].function = NULL;
		}
	}
	if (!measured_title && it->n > 1) {	/* the fixed value when all hold the same */
		for (i = 1; i < it->n && !strcmp(mp[i].at, mp[0].at); i++)
			;
		snprintf(title, sizeof(title), "scaling models: %zu series%s", it->n,
			 i == it->n ? mp[0].at : "");
	}
	for (i = 0; i < it->n && !mp[i].unusable; i++)
		;
	report_respond(rs, report_build_model(rm, it->n, measured_title ? measured_title :
					      it->n == 1 ? mp[0].title : title, mp[0].axis[0],
					      mp[0].axis[1], measured_title ?
					      "markers: median of the runs at each p; whiskers: "
					      "min–max" : i < it->n ?
					      "shaded: 95 % band; whiskers: min–max; dashed: extrapolated; "
					      "an unusable model is drawn where measured only" :
					      "shaded: 95 % band; whiskers: min–max of "
					      "the runs; dashed: extrapolated", o), fmt);
out:
	for (i = 0; i < it->n; i++)
		model_plot_free(&mp[i]);
	free(mp);
	free(rm);
}

/* GET /api/v1/reports/history.{fmt}: one point's metric over time (or over
 * a label's values, by=commit) with the band a run must leave to be a
 * regression or an improvement, and each verdict. */
/* The history's runs as points, x the run's place (or its label value's,
 * the runs of one value spread over [x - 0.3, x + 0.3] in time order),
 * with each run's baseline and band; d has room for 5 x cap. */
static size_t history_points(const struct history *h, double *d, int *verdict, size_t *setting, size_t cap)
{
	size_t i, m = 0, *seen = xcalloc(h->ngroups + 1, sizeof(*seen));
	size_t *count = xcalloc(h->ngroups + 1, sizeof(*count));

	for (i = h->first; h->by && i < h->nruns; i++)
		if (h->runs[i].gi != SIZE_MAX)
			count[h->runs[i].gi]++;
	for (i = h->first; i < h->nruns; i++) {
		const struct history_run *x = &h->runs[i];
		double by = fmax(h->t.rel * fabs(x->b.median), h->t.noise * KA_MAD_SIGMA * x->b.mad);
		bool judged = x->b.runs >= h->t.min_runs;

		if (!isfinite(x->v) || (h->by && x->gi == SIZE_MAX))
			continue;
		d[m] = !h->by ? (double)(i - h->first + 1) :
		       (double)(x->gi + 1) - 0.3 + 0.6 * ((double)seen[x->gi]++ + 0.5) / (double)count[x->gi];
		d[cap + m] = x->v;
		d[2 * cap + m] = judged ? x->b.median : NAN;
		d[3 * cap + m] = judged ? fmax(0, x->b.median - by) : NAN;	/* a time or an energy: never below 0 */
		d[4 * cap + m] = judged ? x->b.median + by : NAN;
		setting[m] = x->si;
		verdict[m++] = judged ? (int)x->verdict : -1;
	}
	free(seen);
	free(count);
	return m;
}

/* GET /api/v1/reports/history.{fmt}: one point's runs in order, each
 * against the baseline of the runs before it. */
static void history_report(struct karted *k, struct req *rq, struct resp *rs, struct items *it,
			   const struct report_opts *o, enum chart_format fmt)
{
	struct report_history in = {0};
	char title[SERIES_LABEL_SIZE + 96], xtitle[160];
	struct history h;
	struct kerr err;
	size_t cap, i, *setting;
	const char **names;
	double *d;
	int *verdict;

	(void)it;
	kerr_clear(&err);
	if (history_load(k, rq, &h, &err)) {
		resp_error(rs, &err);
		history_free(&h);
		return;
	}
	cap = h.nruns - h.first;
	d = xmalloc((5 * cap + 1) * sizeof(double));
	verdict = xmalloc((cap + 1) * sizeof(*verdict));
	snprintf(title, sizeof(title), "%s:%s%s%s at p = %lld, n = %g", h.system, h.application,
		 *h.variant ? ":" : "", h.variant, (long long)h.p, h.n);
	if (h.by)
		snprintf(xtitle, sizeof(xtitle), "label %.64s, in the order of its first run", h.by);
	else
		snprintf(xtitle, sizeof(xtitle), "run, in measured_at order%s",
			 h.first ? " (the latest asked for)" : "");
	setting = xmalloc((cap + 1) * sizeof(*setting));
	names = xmalloc((h.nsettings + 1) * sizeof(*names));
	for (i = 0; i < h.nsettings; i++)
		names[i] = h.settings[i].name;
	in = (struct report_history){title, xtitle, h.energy ? "energy (J)" : "τ (s)", d, d + cap,
				     d + 2 * cap, d + 3 * cap, d + 4 * cap, verdict,
				     history_points(&h, d, verdict, setting, cap), h.groups, h.by ? h.ngroups : 0,
				     h.t, setting, names, h.nsettings};
	report_respond(rs, report_build_history(&in, o), fmt);
	free(d);
	free(verdict);
	free(setting);
	free(names);
	history_free(&h);
}

/* GET /api/v1/reports/scaling.{fmt}: tau against p per n, and the
 * speedup (second=efficiency: the efficiency) relative to each n's
 * smallest p, of every item (series x label values) overlaid. */
static void strong_scaling(struct karted *k, struct req *rq, struct resp *rs, struct items *it,
			   const struct report_opts *o, enum chart_format fmt)
{
	struct scaling_data *sc = xcalloc(it->n, sizeof(*sc));
	struct report_scaling *in = xcalloc(it->n, sizeof(*in));
	const char *sys = req_query(rq, "system"), *app = req_query(rq, "application");
	const char *var = req_query(rq, "variant"), *second = req_query(rq, "second");
	char (*names)[SERIES_LABEL_SIZE] = xcalloc(it->n, sizeof(*names));
	struct kerr err;
	size_t i;

	kerr_clear(&err);
	if (second && strcmp(second, "speedup") && strcmp(second, "efficiency"))
		kerr_field(&err, KERR_INVALID, "second", "second must be speedup or efficiency (the second "
			   "panel; default speedup)");
	for (i = 0; i < it->n && !err.code; i++) {
		if ((*it->spec[i] && split_series(it->spec[i], &sys, &app, &var, &err)) ||
		    scaling_load(k, rq, sys, app, var, &it->ls[i], &sc[i], &err)) {
			if (it->n > 1)
				err.index = (long)i;
			break;
		}
		snprintf(names[i], sizeof(names[i]), "%s", series_label(&sc[i].sd));
		in[i] = (struct report_scaling){names[i], sc[i].obs, sc[i].nobs, sc[i].speedup,
						sc[i].efficiency, sc[i].base_p};
	}
	if (err.code)
		resp_error(rs, &err);
	else
		report_respond(rs, report_build_scaling(in, it->n, second && !strcmp(second, "efficiency"),
							o), fmt);
	for (i = 0; i < it->n; i++)
		scaling_free(&sc[i]);
	free(sc);
	free(in);
	free(names);
}

/* GET /api/v1/reports/scaling-history.{fmt}: the p-tau model of one value
 * of a label (by=, default commit; value=, default the latest) beside the
 * value before it, in the order of their first runs. */
static void scaling_history(struct karted *k, struct req *rq, struct resp *rs, struct items *it,
			    const struct report_opts *o, enum chart_format fmt)
{
	const char *sys, *app, *var, *by = req_query(rq, "by") ? req_query(rq, "by") : "commit";
	const char *want = req_query(rq, "value");
	json_t *labels = NULL, *vals;
	struct label_set base;
	char title[3 * RUN_NAME_MAX + 220];
	size_t i, at = 0, nv;
	struct kerr err;

	kerr_clear(&err);
	if (query_series(rq, &sys, &app, &var, &err))
		goto fail;
	if (it->n > 1 || *it->spec[0]) {
		kerr_field(&err, KERR_INVALID, "series", "scaling-history draws one series (system=, "
			   "application=, variant=) at two values of by=%.64s", by);
		goto fail;
	}
	if (!*by || strlen(by) > RUN_LABEL_MAX) {
		kerr_field(&err, KERR_INVALID, "by", "by must be a label key of 1 to %d bytes", RUN_LABEL_MAX);
		goto fail;
	}
	if (series_labels(k, sys, app, var, by, &labels, &err))
		goto fail;
	vals = json_object_get(json_array_get(json_object_get(labels, "labels"), 0), "values");
	if (!(nv = json_array_size(vals))) {
		kerr_field(&err, KERR_NOT_FOUND, "by", "no run of series %s:%s%s%s has the label %.64s", sys,
			   app, *var ? ":" : "", var, by);
		goto fail;
	}
	at = nv - 1;
	if (want) {
		for (at = 0; at < nv; at++)
			if (!strcmp(want, json_string_value(json_object_get(json_array_get(vals, at),
									   "value"))))
				break;
		if (at == nv) {
			kerr_field(&err, KERR_NOT_FOUND, "value", "no run of this series has the label "
				   "%.64s=%.64s", by, want);
			goto fail;
		}
	}
	/* the value before, then this one (the older drawn first), each with
	 * the query's other label filters */
	base = it->ls[0];
	if (base.n == RUN_FILTER_LABELS_MAX) {
		kerr_field(&err, KERR_INVALID, "label", "scaling-history adds label.%.64s to the filters: "
			   "give at most %d others", by, RUN_FILTER_LABELS_MAX - 1);
		goto fail;
	}
	it->n = 0;
	for (i = at ? at - 1 : at; i <= at; i++, it->n++) {
		it->spec[it->n][0] = '\0';
		it->ls[it->n] = base;
		it->ls[it->n].eq[it->ls[it->n].n++] = (struct label_eq){
			by, json_string_value(json_object_get(json_array_get(vals, i), "value"))};
	}
	snprintf(title, sizeof(title), "scaling history: %s:%s%s%s, %.64s %.40s%s%.40s", sys, app,
		 *var ? ":" : "", var, by, it->ls[0].eq[base.n].value, it->n > 1 ? " → " : "",
		 it->n > 1 ? it->ls[1].eq[base.n].value : " (no earlier value)");
	model_report(k, rq, rs, false, it, title, o, fmt);
	json_decref(labels);
	return;
fail:
	json_decref(labels);
	resp_error(rs, &err);
}

/* isoefficiency, efficiency, energy, energy-shares: one panel kind each,
 * every item (series x label values) loaded and overlaid. */
static void kind_report(struct karted *k, struct req *rq, struct resp *rs, struct items *it,
			const struct report_opts *o, enum chart_format fmt, enum report_kind kind)
{
	struct loaded *l = xcalloc(it->n, sizeof(*l));
	struct report_series *rsr = xcalloc(it->n, sizeof(*rsr));
	struct kerr err;
	size_t i;

	kerr_clear(&err);
	for (i = 0; i < it->n && !err.code; i++)
		if (load_one(k, rq, kind, *it->spec[i] ? it->spec[i] : NULL, &it->ls[i], &l[i], &rsr[i], &err) &&
		    it->n > 1)
			err.index = (long)i;
	if (err.code)
		resp_error(rs, &err);
	else
		report_respond(rs, report_build(kind, rsr, it->n, o), fmt);
	for (i = 0; i < it->n; i++)
		loaded_free(&l[i]);
	free(l);
	free(rsr);
}

#define KIND_REPORT(fn, kind)                                                                          \
	static void fn(struct karted *k, struct req *rq, struct resp *rs, struct items *it,            \
		       const struct report_opts *o, enum chart_format fmt)                             \
	{                                                                                              \
		kind_report(k, rq, rs, it, o, fmt, kind);                                              \
	}
KIND_REPORT(isoefficiency_report, REPORT_ISOEFFICIENCY)
KIND_REPORT(efficiency_report, REPORT_EFFICIENCY)
KIND_REPORT(energy_report, REPORT_ENERGY)
KIND_REPORT(shares_report, REPORT_SHARES)

static void scaling_model_report(struct karted *k, struct req *rq, struct resp *rs, struct items *it,
				 const struct report_opts *o, enum chart_format fmt)
{
	model_report(k, rq, rs, false, it, NULL, o, fmt);
}

static void call_paths_report(struct karted *k, struct req *rq, struct resp *rs, struct items *it,
			      const struct report_opts *o, enum chart_format fmt)
{
	(void)it;
	regions_report(k, rq, rs, o, fmt);
}

static void isofunction_report(struct karted *k, struct req *rq, struct resp *rs, struct items *it,
			       const struct report_opts *o, enum chart_format fmt)
{
	model_report(k, rq, rs, true, it, NULL, o, fmt);
}

/* Every report, by the name in its path; items: it takes series= and
 * the label filters as items to overlay. */
static const struct report_entry {
	const char *name;
	void (*draw)(struct karted *k, struct req *rq, struct resp *rs, struct items *it,
		     const struct report_opts *o, enum chart_format fmt);
	bool items;
} reports[] = {
	{"isoefficiency", isoefficiency_report, true},
	{"efficiency", efficiency_report, true},
	{"scaling", strong_scaling, true},
	{"energy", energy_report, true},
	{"energy-shares", shares_report, true},
	{"model", scaling_model_report, true},
	{"isoefficiency-function", isofunction_report, true},
	{"history", history_report, false},
	{"scaling-history", scaling_history, true},
	{"regions", call_paths_report, false},
};

static int get_report(void *app, struct req *rq, struct resp *rs)
{
	static const struct series_names none;
	struct series_names names = none;
	const struct report_entry *e = NULL;
	struct items *it = xcalloc(1, sizeof(*it));
	char what[64], *dot;
	struct report_opts o;
	enum chart_format fmt;
	struct kerr err;
	size_t i;

	kerr_clear(&err);
	snprintf(what, sizeof(what), "%s", req_param(rq));
	if ((dot = strrchr(what, '.')))
		*dot = '\0';
	for (i = 0; dot && i < sizeof(reports) / sizeof(reports[0]); i++)
		if (!strcmp(what, reports[i].name))
			e = &reports[i];
	if (!e || chart_format_parse(dot + 1, &fmt))
		resp_errorf(rs, 404, "there is no report %.60s: reports are isoefficiency, efficiency, scaling, "
			    "energy, energy-shares, model, isoefficiency-function, history, "
			    "scaling-history and regions, each as .svg, .png or .pdf (powercap and trace take "
			    "their data by POST)", req_param(rq));
	else if (report_opts_of(rq, &o, &err))
		resp_error(rs, &err);
	else if (!e->items)
		e->draw(app, rq, rs, it, &o, fmt);
	else {
		req_query_each(rq, "series", add_series, &names);
		if (names.too_many)
			kerr_field(&err, KERR_INVALID, "series", "at most %d series can be overlaid", SERIES_MAX);
		if (err.code || report_items(rq, &names, it, &err))
			resp_error(rs, &err);
		else
			e->draw(app, rq, rs, it, &o, fmt);
	}
	free(it);
	return 0;
}

/* The regions report in the slow lane from the start (regions_lane), the
 * others as the series they read. */
static enum http_lane report_lane(void *app, struct req *rq)
{
	return !strncmp(req_param(rq), "regions.", 8) ? regions_lane(app, rq) : series_lane(app, rq);
}

const struct route api_report_routes[] = {
	{"GET", "/api/v1/reports/{}", ROUTE_SLOW, get_report, report_lane},
	{NULL, NULL, 0, NULL, NULL},
};
