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
#include "render/report.h"

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
