/* GET /api/v1/reports/{kind}.{svg|png|pdf}: the analyses drawn. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_data.h"
#include "karted.h"
#include "models.h"
#include "report.h"
#include "xalloc.h"

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

static int size_param(struct req *rq, const char *key, double def, double *out, struct kerr *err)
{
	const char *s = req_query(rq, key);
	char *end;
	long v;

	*out = def;
	if (!s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < CHART_SIZE_MIN || v > CHART_SIZE_MAX)
		return kerr_field(err, 400, key, "%s must be a whole number of pixels from %d to %d",
				  key, CHART_SIZE_MIN, CHART_SIZE_MAX);
	*out = (double)v;
	return 0;
}

/* x_min, x_max, y_min, y_max: the part of the plane to show (a zoomed
 * view); each a finite number, a pair in increasing order. */
static int view_params(struct req *rq, bool *has, double view[4], struct kerr *err)
{
	static const char *const keys[4] = {"x_min", "x_max", "y_min", "y_max"};
	const char *s;
	char *end;
	int i;

	for (i = 0; i < 4; i++) {
		view[i] = NAN;
		if (!(s = req_query(rq, keys[i])))
			continue;
		*has = true;
		view[i] = strtod(s, &end);
		if (!*s || *end || !isfinite(view[i]))
			return kerr_field(err, 400, keys[i], "%s must be a finite number", keys[i]);
	}
	for (i = 0; i < 4; i += 2)
		if (!isnan(view[i]) && !isnan(view[i + 1]) && !(view[i + 1] > view[i]))
			return kerr_field(err, 400, keys[i + 1], "%s must be above %s", keys[i + 1],
					  keys[i]);
	return 0;
}

static int parse_opts(struct req *rq, struct report_opts *o, struct kerr *err)
{
	const char *s;
	char *end;

	*o = report_opts_default();
	if (size_param(rq, "width", CHART_WIDTH_DEFAULT, &o->width, err) ||
	    size_param(rq, "height", CHART_HEIGHT_DEFAULT, &o->height, err))
		return -1;
	if ((s = req_query(rq, "scale"))) {
		long v = strtol(s, &end, 10);

		if (!*s || *end || v < 1 || v > CHART_SCALE_MAX)
			return kerr_field(err, 400, "scale", "scale must be a whole number from 1 to %d "
					  "(device pixels per px of a PNG)", CHART_SCALE_MAX);
		o->scale = (double)v;
		/* the image in memory: width x height x scale^2 x 4 bytes, at most
		 * what 4000 x 4000 at scale 1 takes (64 MB) */
		if (o->width * o->height * o->scale * o->scale > (double)CHART_SIZE_MAX * CHART_SIZE_MAX)
			return kerr_field(err, 413, "scale", "width x height x scale^2 must not exceed "
					  "%d x %d device pixels", CHART_SIZE_MAX, CHART_SIZE_MAX);
	}
	if ((s = req_query(rq, "base"))) {
		long long p = strtoll(s, &end, 10);

		if (end == s || *end != ',' || p < 1)
			return kerr_field(err, 400, "base", "base must be P,N such as base=10,39200");
		o->base_p = p;
		o->base_n = strtod(end + 1, &end);
		if (*end || !(o->base_n > 0))
			return kerr_field(err, 400, "base", "base must be P,N such as base=10,39200");
		o->has_base = true;
	}
	if ((s = req_query(rq, "tolerance")) &&
	    (!(o->iso.tol = strtod(s, &end), *s && !*end) || !(o->iso.tol >= 0)))
		return kerr_field(err, 400, "tolerance", "tolerance must be a number, 0 or more");
	if ((s = req_query(rq, "c2_rtol")) &&
	    (!(o->iso.c2_rtol = strtod(s, &end), *s && !*end) || !(o->iso.c2_rtol >= 0)))
		return kerr_field(err, 400, "c2_rtol", "c2_rtol must be a number, 0 or more");
	if (view_params(rq, &o->has_view, o->view, err))
		return -1;
	if ((s = req_query(rq, "max_p")) &&
	    (!(o->max_p = strtod(s, &end), *s && !*end) || !(o->max_p >= 2 && o->max_p <= 1e9)))
		return kerr_field(err, 400, "max_p", "max_p must be a number from 2 to 1e9");
	return 0;
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
	return kerr_field(err, 400, "series",
			  "series must be system:application or system:application:variant");
}

static int load_one(struct karted *k, struct req *rq, enum report_kind kind, char *spec,
		    struct loaded *l, struct report_series *rs, struct kerr *err)
{
	const char *sys = NULL, *app = NULL, *var = NULL, *fs;
	char *end;

	if (spec) {
		if (split_series(spec, &sys, &app, &var, err))
			return -1;
	} else {
		sys = req_query(rq, "system");
		app = req_query(rq, "application");
		var = req_query(rq, "variant");
	}
	memset(rs, 0, sizeof(*rs));
	if (series_load_in(k, rq, sys, app, var,
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
	if ((fs = req_query(rq, "f_std"))) {
		l->em.f_std = strtod(fs, &end);
		if (!*fs || *end || !(l->em.f_std > 0))
			return kerr_field(err, 400, "f_std", "f_std must be a frequency in MHz above 0");
	}
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

/* The chart as the answer, with X-Karte-Frame: where each panel's data
 * went (chart_frames_json), so a browser can map pointer and data. */
void report_respond(struct resp *rs, struct report *rep, enum chart_format fmt)
{
	const struct chart_spec *spec = report_spec(rep);
	struct chart_frame *frames = xcalloc(spec->npanels ? spec->npanels : 1, sizeof(*frames));
	size_t cap = 64 + 320 * spec->npanels;
	struct kerr err;

	kerr_clear(&err);
	if (chart_render(spec, fmt, &rs->body, &rs->len, frames, &err)) {
		resp_error(rs, &err);
	} else {
		rs->status = 200;
		rs->content_type = chart_content_type(fmt);
		rs->frame = xmalloc(cap);
		chart_frames_json(spec, frames, rs->frame, cap);
	}
	free(frames);
	report_free(rep);
}

/* GET /api/v1/reports/model.{fmt} (one metric's model of up to SERIES_MAX
 * series, overlaid) and isoefficiency-function.{fmt} (one series). */
static void model_report(struct karted *k, struct req *rq, struct resp *rs, bool iso,
			 struct series_names *names, const struct report_opts *o,
			 enum chart_format fmt)
{
	const char *sys = req_query(rq, "system"), *app = req_query(rq, "application");
	const char *var = req_query(rq, "variant");
	struct model_plot *mp;
	struct report_model *rm;
	struct iso_plot ip = {0};
	size_t i, ns = names->n ? names->n : 1;
	struct kerr err;

	kerr_clear(&err);
	if (iso) {
		if (names->n > 1)
			kerr_field(&err, 400, "series", "the isoefficiency-function report draws one "
				   "series");
		else if (names->n)
			split_series(names->spec[0], &sys, &app, &var, &err);
		if (!err.code && !iso_plot_load(k, rq, sys, app, var, &ip, &err))
			report_respond(rs, report_build_isofunction(&ip.ri, o), fmt);
		if (err.code)
			resp_error(rs, &err);
		iso_plot_free(&ip);
		return;
	}
	mp = xcalloc(ns, sizeof(*mp));
	rm = xcalloc(ns, sizeof(*rm));
	for (i = 0; i < ns; i++) {
		if ((names->n && split_series(names->spec[i], &sys, &app, &var, &err)) ||
		    model_plot_load(k, rq, sys, app, var, &mp[i], &err)) {
			if (ns > 1)
				err.index = (long)i;
			resp_error(rs, &err);
			goto out;
		}
		rm[i] = mp[i].rm;
	}
	report_respond(rs, report_build_model(rm, ns, mp[0].axis[0], mp[0].axis[1],
					      "shaded: 95 % band; whiskers: min–max of the runs; "
					      "dashed: extrapolated",
					      o), fmt);
out:
	for (i = 0; i < ns; i++)
		model_plot_free(&mp[i]);
	free(mp);
	free(rm);
}

static int get_report(void *app, struct req *rq, struct resp *rs)
{
	struct karted *k = app;
	static struct series_names none;
	struct series_names names = none;
	struct loaded *l = NULL;
	struct report_series *rsr = NULL;
	struct report_opts o;
	enum report_kind kind;
	enum chart_format fmt;
	char what[64], *dot;
	struct kerr err;
	size_t i, ns;
	bool models;

	kerr_clear(&err);
	snprintf(what, sizeof(what), "%s", req_param(rq));
	dot = strrchr(what, '.');
	if (dot)
		*dot = '\0';
	models = !strcmp(what, "model") || !strcmp(what, "isoefficiency-function");
	if (!dot || (!models && report_kind_parse(what, &kind)) || chart_format_parse(dot + 1, &fmt)) {
		resp_errorf(rs, 404,
			    "there is no report %.60s: reports are isoefficiency, efficiency, energy, "
			    "energy-shares, model and isoefficiency-function, each as .svg, .png or "
			    ".pdf (powercap and trace take their data by POST)", req_param(rq));
		return 0;
	}
	if (parse_opts(rq, &o, &err)) {
		resp_error(rs, &err);
		return 0;
	}
	req_query_each(rq, "series", add_series, &names);
	if (names.too_many) {
		kerr_field(&err, 400, "series", "at most %d series can be overlaid", SERIES_MAX);
		resp_error(rs, &err);
		return 0;
	}
	if (models) {
		model_report(k, rq, rs, what[0] == 'i', &names, &o, fmt);
		return 0;
	}
	ns = names.n ? names.n : 1;
	l = xcalloc(ns, sizeof(*l));
	rsr = xcalloc(ns, sizeof(*rsr));
	for (i = 0; i < ns; i++)
		if (load_one(k, rq, kind, names.n ? names.spec[i] : NULL, &l[i], &rsr[i], &err)) {
			if (ns > 1)
				err.index = (long)i;
			resp_error(rs, &err);
			goto out;
		}
	report_respond(rs, report_build(kind, rsr, ns, &o), fmt);
out:
	for (i = 0; i < ns; i++)
		loaded_free(&l[i]);
	free(l);
	free(rsr);
	return 0;
}

const struct route api_report_routes[] = {
	{"GET", "/api/v1/reports/{}", ROUTE_SLOW, get_report},
	{NULL, NULL, 0, NULL},
};
