/*
 * report: the plots of the papers, built as chart specs from analysis
 * inputs: the tau-chi isoefficiency plane (Orii Figs. 1-3), p-eps and p-tau
 * (Orii Fig. 4), Delta E versus nodes (Kimura Fig. 4) and the energy shares
 * of the regions (Kimura Fig. 3). One series, or several overlaid for
 * comparison. The same code serves karted and the offline `karte plot`.
 */
#ifndef KARTE_REPORT_H
#define KARTE_REPORT_H

#include <stddef.h>

#include "chart.h"
#include "core/fields.h"
#include "analysis/energy.h"
#include "analysis/history.h"
#include "analysis/isoeff.h"

/* One series' inputs; what a report does not use may be empty. */
struct report_series {
	const char *name;		/* "system:application:variant", shown in legends */
	struct ka_run *runs;		/* isoefficiency, efficiency (pooled in place) */
	size_t nruns;
	const struct ka_region_model *regions;	/* energy, energy-shares */
	const char *const *region_names;
	size_t nregions;
	double f_std;
	const double *measured_p, *measured_de;	/* measured Delta E, may be empty */
	size_t nmeasured;
};

struct report_opts {
	double width, height;
	double scale;		/* PNG: device pixels per px, 1..CHART_SCALE_MAX */
	bool has_base;		/* isoefficiency: draw this base's line and regions */
	int64_t base_p;
	double base_n;
	double max_p;		/* energy: predict up to this p (default 4096) */

	struct ka_iso_opts iso;
	bool tol_auto;		/* isoefficiency: iso from each series' spread of repeated
				 * runs (ka_iso_auto_tolerance) */
	bool has_view;		/* view[] set: x_min, x_max, y_min, y_max shown (NAN: fitted
				 * to the data); x for every panel, y for a report of one
				 * panel; a bound at or below 0 on a log axis is ignored */
	double view[4];
};

/* 800 x 600, Orii's default tolerances, energy up to p = 4096, no view. */
struct report_opts report_opts_default(void);

/* The options by name, from get(ctx, name) (a query string, command line
 * options): width, height (px), scale (PNG), base=P,N, tolerance (a
 * number, or auto), c2_rtol, max_p and the view x_min, x_max, y_min,
 * y_max; report_opts_default for the rest. -1 with err naming the bad one
 * (KERR_TOO_LARGE naming scale when the image would pass 4000 x 4000
 * device pixels). */
int report_opts_read(field_text_fn *get, void *ctx, struct report_opts *o, struct kerr *err);

/* An energy report's regions from JSON (the body of POST
 * /api/v1/analysis/energy/model, karte plot --model): each {name, alpha_p,
 * beta_on, f_opt, power_std_w, power_opt_w, time_std_s} and nothing else,
 * into m and names (room for the array's size; names borrowed from it).
 * -1 with err naming regions[i].KEY. */
int report_regions_read(json_t *regions, struct ka_region_model *m, const char **names, struct kerr *err);

enum report_kind { REPORT_ISOEFFICIENCY, REPORT_EFFICIENCY, REPORT_ENERGY, REPORT_SHARES,
		   REPORT_KINDS };

/* "isoefficiency", "efficiency", "energy", "energy-shares"; -1 unknown. */
int report_kind_parse(const char *name, enum report_kind *k);

/* Which inputs a kind needs: runs (true) or an energy model (false). */
bool report_needs_runs(enum report_kind k);

struct report;	/* a built chart and the memory behind it */

#include "analysis/powercap.h"
#include "analysis/trace.h"

/* Inadomi et al.: measured r(f) with the 2-point, 3-point and best-f3
 * models and their R^2 (Figs. 4 and 6; the cycle ratio of Fig. 3 in the
 * note), predicted T per budget for both caps and both models, and each
 * module's own r under the uniform cap at up to six of the budgets. */
struct report_powercap {
	const double *f, *r;		/* measured normalised times */
	size_t n;
	struct ka_inverse two;
	const struct ka_three_point *three;	/* NULL when not fitted */
	const struct ka_three_point *best;	/* the best-f3 model, or NULL */
	double r2_two, r2_three, r2_best;	/* fit quality; NAN when undefined */
	double cycle_ratio;
	const double *budget;		/* W */
	const double *t_uniform2, *t_uniform3, *t_aware2, *t_aware3;	/* s; 3: may be NULL */
	size_t nbudgets;
	const double *r_module;		/* nbudgets x nmodules: uniform cap, 2-point */
	size_t nmodules;
};

struct report *report_build_powercap(const struct report_powercap *in, const struct report_opts *o);

/* Osaka et al.: instrumented, reference and corrected power versus time
 * (Figs. 8 and 9), and each segment's duration ratio, reference over
 * instrumented (Fig. 7). */
struct report_trace {
	const struct ka_sample *inst, *ref, *corrected;
	size_t n, m;			/* samples of inst and corrected; of ref */
	const struct ka_segment *seg;
	const char *const *names;	/* k names (an entry may be NULL), or NULL */
	size_t k;
};

struct report *report_build_trace(const struct report_trace *in, const struct report_opts *o);

/* Scaling models (Extra-P's normal form) of one metric over one parameter:
 * each series' measured medians with their min-max spread, the model and
 * its confidence band along cx (dashed beyond the largest measured x), and
 * the function as text in the legend. Several series overlay. A series
 * with nc = 0 and no function is drawn as measured: its medians joined by
 * a line. title: NULL for "scaling model(s)". */
struct report_model {
	const char *name, *function;
	const double *x, *median, *lo, *hi;	/* the measured points */
	size_t m;
	const double *cx, *cy, *clow, *chigh;	/* the model and its band (NAN: none) */
	size_t nc;
	double x_measured;			/* the largest measured x */
};

struct report *report_build_model(const struct report_model *s, size_t ns, const char *title,
				  const char *xtitle, const char *ytitle, const char *note,
				  const struct report_opts *o);

/* Which part does not scale (GET /api/v1/reports/regions): the top call
 * paths' time against p, the measured means as markers and each model
 * solid over the measured p, dashed out to at (an unusable one measured
 * only); a second panel with each path's share of tau at the largest
 * measured p and at at, joined. Every line named. */
struct report_region_line {
	const char *name;		/* "solve->MPI_Allreduce: 0.02 + 0.02 * log2(p)" */
	const char *path;		/* "solve->MPI_Allreduce": the shares' legend */
	const double *x, *y;		/* measured means */
	size_t m;
	const double *cx, *cy;		/* the model (nc 0: none drawn) */
	size_t nc;
	double share_measured, share_at;	/* NAN: not known */
};

struct report_regions {
	const char *title, *xtitle, *ytitle, *note;
	const char *stitle, *sheading;	/* the shares' axis, and their panel's title */
	const char *snote;		/* NULL, or the shares panel's small print */
	const struct report_region_line *lines;
	size_t n;
	double x_measured, at;		/* the largest measured p, and at_p */
};

struct report *report_build_regions(const struct report_regions *in, const struct report_opts *o);

/* The isoefficiency function n(p) at a few efficiency levels: where eps
 * falls to each level in the measured runs (Orii, interpolated) as markers,
 * and the function predicted from the models of work and overhead as lines,
 * dashed beyond the measured p. */
#define REPORT_LEVELS_MAX 8

struct report_isofunction {
	const char *name;
	size_t nlevels;
	const double *level;
	const double *ep[REPORT_LEVELS_MAX], *en[REPORT_LEVELS_MAX];	/* measured */
	size_t ne[REPORT_LEVELS_MAX];
	const double *mp[REPORT_LEVELS_MAX], *mn[REPORT_LEVELS_MAX];	/* from the models */
	size_t nm[REPORT_LEVELS_MAX];
	double p_measured;		/* the largest measured p */
	const char *note;
};

struct report *report_build_isofunction(const struct report_isofunction *in,
					const struct report_opts *o);

/* A point's history (GET /api/v1/reports/history): each run's metric at x
 * (its place in time, or its label value's), the band around the baseline
 * median a run must leave to be judged a regression or an improvement, and
 * the verdicts in colour and shape. */
struct report_history {
	const char *title, *xtitle, *ytitle;
	const double *x, *y;		/* the runs */
	const double *median, *lo, *hi;	/* each run's baseline and band; NAN: none */
	const int *verdict;		/* enum ka_verdict, -1: too few runs before */
	size_t n;
	const char *const *groups;	/* ngroups label values at x = 1, 2, ...; or none */
	size_t ngroups;
	struct ka_thresholds t;
	/* each run's setting (a frequency and power cap), and their names: with
	 * more than one (and no groups), each is a line of its own with its own
	 * baseline, named in the legend */
	const size_t *setting;
	const char *const *settings;
	size_t nsettings;
};

struct report *report_build_history(const struct report_history *in, const struct report_opts *o);

/* Strong scaling from tau alone (GET /api/v1/reports/scaling): panel 0 tau
 * against p, one line per (series, n); panel 1 the speedup against p (or
 * the efficiency, with efficiency), the ideal dotted. Every line has a
 * colour, a marker and a dash of its own and is named in the legend ("n =
 * 39 200", or "SP2:md n = 39 200" when several series are drawn), so a
 * greyscale print tells them apart. */
struct report_scaling {
	const char *name;
	const struct ka_obs *obs;	/* pooled, sorted by (n, p) */
	size_t nobs;
	const double *speedup, *efficiency;	/* per point (ka_strong_scaling) */
	const int64_t *base_p;
};

struct report *report_build_scaling(const struct report_scaling *s, size_t ns, bool efficiency,
				    const struct report_opts *o);

/* Build the chart of kind for series s[0..ns). Never fails for lack of
 * data: an empty series draws a labelled placeholder. */
struct report *report_build(enum report_kind kind, struct report_series *s, size_t ns,
			    const struct report_opts *o);
const struct chart_spec *report_spec(const struct report *r);
void report_free(struct report *r);

#endif
