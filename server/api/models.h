/*
 * models: Extra-P's scaling models (analysis/pmnf.c) of stored series, for
 * the analyses and reports beside GET /api/v1/analysis/model: the models
 * of work p·gamma, overhead p·chi and resource p·tau joined to Orii's
 * method, and the series a model report draws.
 */
#ifndef KARTE_MODELS_H
#define KARTE_MODELS_H

#include <jansson.h>

#include "series.h"
#include "model_body.h"
#include "render/report.h"

/* ---- one model, as GET /api/v1/analysis/model makes it ---------------------- */

/* The values grouped by coordinates: what the modeler and the answer use. */
struct model_data {
	int nparams;
	const char *names[KA_PMNF_PARAMS];
	size_t m;
	double *x;		/* m * nparams coordinates, ascending */
	double *mean, *median, *sd, *lo, *hi;
	double *var;		/* the variance of each mean (sd^2 / r); 0 for one value */
	size_t *reps;
	size_t nvalues;		/* the sum of reps */
	bool repeated;		/* every point has two or more values */
	int resource;		/* k + 1: the values were multiplied by parameter k (p), so
				 * the answer divides by it again; 0: as measured */
};

/* A model with the points it was fitted to and its band, and, for a model
 * whose reading was chosen (GET, POST, the report), why it is of the
 * metric or of p times it. */
struct fitted {
	struct model_data md;
	struct ka_pmnf_model mdl;
	struct ka_band b;
	char resource_reason[320];	/* "": no reading chosen (Orii's models) */
};

enum metric_kind { M_TAU, M_CHI, M_GAMMA, M_REGION };

struct metric {
	enum metric_kind kind;
	const char *region;	/* M_REGION: the name, or a call path "main->solve" */
	char key[RUN_KEY_SIZE];	/* M_REGION: its key (run_region_key's form) */
};

/* What the query selects of a series for a model, and what came of it:
 * what GET /api/v1/analysis/model and the model report share. */
struct model_sel {
	struct metric metric;
	const char *metric_name;
	bool is_p[KA_PMNF_PARAMS];	/* parameters[i] is p (else n) */
	double fixed_n, fixed_p;	/* n=, p=: NAN when not given */
	enum model_resource resource;	/* asked: p times the metric, as measured, or auto */
	char resource_reason[320];	/* what came of it */
	/* what the series gave */
	char name[SERIES_LABEL_SIZE];	/* series_label() */
	json_t *series;			/* series_json() */
	double freq;			/* the frequency modelled (NAN: none) */
	size_t skipped;			/* runs without the metric */
	bool weak;			/* weak scaling along the parameter */
	const char *fixed_name;		/* "n" or "p" held fixed (one parameter, not weak), or NULL */
	double chosen;			/* its value */
	json_t *values;			/* the fixed one's values, [{n|p, points}] */
};

/* Group nv values (sorted here; unused coordinates 0) into md's points.
 * 413 naming field past MODEL_POINTS_MAX coordinates. */
int model_group(struct obsv *o, size_t nv, struct model_data *md, const char *field, struct kerr *err);

/* Fit f->md (grouped) and work out its band. */
int model_fit_band(struct fitted *f, struct kerr *err);
void model_fitted_free(struct fitted *f);

/* The answer for f's model (function, terms, fit figures, quality and
 * its reasons, the reading); with_points adds each point beside the model
 * and the predictions at npred coordinates pred. */
json_t *model_answer_json(const struct fitted *f, const double *pred, size_t npred, bool with_points);

/* f's value at x in the metric's units (a resource model's divided by p). */
double model_value(const struct fitted *f, const double *x);

/* parameters=p|n|p,n of the query into md's names, which of them is p. */
int model_parameters(const char *s, struct model_data *md, bool *is_p, struct kerr *err);

/* The number at key, above 0: absent leaves *out NAN. */
int model_query_positive(struct req *rq, const char *key, double *out, struct kerr *err);

/* resource=true|false|auto of the query (def when absent). */
int model_query_resource(struct req *rq, enum model_resource def, enum model_resource *out,
			 struct kerr *err);

/* parameters, n, p and resource of the query into md and sel (zeroed,
 * chosen NAN, by the caller), checked together: 400 naming the field. */
int model_sel_runs(struct req *rq, struct model_data *md, struct model_sel *sel, struct kerr *err);

/* One parameter: every value o[0, nv) (x[0] the fixed parameter, x[1] the
 * modelled one) when they scale weakly along it, else those at the fixed
 * value asked for or the one with the most points; what was chosen into
 * sel, the values kept moved to x[0]. */
int model_choose(const struct model_data *md, struct model_sel *sel, struct obsv *o, size_t *nv,
		 struct kerr *err);

/* The reading sel->resource asks for applied to md (grouped), the metric
 * named words in the reason put into sel. */
void model_sel_reading_as(struct model_data *md, struct model_sel *sel, const char *words);

/* The "models" object of the isoefficiency answer for sd's runs[] (pooled
 * into obs): the models of work, overhead and resource, the isoefficiency
 * function they predict at each level, the p where tau stops falling at
 * each n, and the predictions the query asks for (predict=P:N,... or
 * predict=P,... for one n). A series that is neither a grid nor a strong-
 * scaling line, or too large, gets {"skipped": why}. steps: the measured
 * C1/C2/C3 steps (nsteps, in the order the analysis found them), which the statement of
 * where tau stops falling never contradicts. NULL and err for a bad query. */
json_t *iso_models_json(struct req *rq, const struct series_data *sd, const struct ka_obs *obs,
			size_t nobs, const double *levels, size_t nlevels, const struct ka_step *steps,
			size_t nsteps, struct kerr *err);

/* One series of the model report, with the memory behind it. */
struct model_plot {
	struct report_model rm;
	char name[SERIES_LABEL_SIZE];
	char function[1024];
	char axis[2][160];		/* x and y titles */
	char at[96];			/* " at n = 1000, modelled as p × τ": the fixed p or n, the reading */
	char title[SERIES_LABEL_SIZE + 128];	/* "scaling model: " the series and at */
	bool unusable;			/* drawn where measured, never beyond */
	double *mem;
};

/* The model the query asks for (metric, parameters=p|n, n, p,
 * frequency_mhz, max_x) of the series sys:app:var, drawn out to max_x (or
 * four times the largest measured value). */
int model_plot_load(struct karted *k, struct req *rq, const char *sys, const char *app,
		    const char *var, const struct label_set *ls, struct model_plot *mp,
		    struct kerr *err);
void model_plot_free(struct model_plot *mp);

/* The isoefficiency-function report of one series (levels=, default 0.2,
 * 0.4, 0.6, 0.8): measured and predicted n(p) per level. */
struct iso_plot {
	struct report_isofunction ri;
	double level[REPORT_LEVELS_MAX];
	char name[SERIES_LABEL_SIZE];
	char note[256];
	double *mem;
};

int iso_plot_load(struct karted *k, struct req *rq, const char *sys, const char *app,
		  const char *var, struct iso_plot *ip, struct kerr *err);
void iso_plot_free(struct iso_plot *ip);

#endif
