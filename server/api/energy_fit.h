/*
 * energy_fit: Kimura's energy model of a stored series: the standard runs
 * at p = 1 and the runs at other frequencies sorted out of the series'
 * runs, each region's alpha_p, beta_on, f_opt, P and T fitted (eqs. 5, 6),
 * and the energy saved as measured (eq. 1).
 */
#ifndef KARTE_ENERGY_FIT_H
#define KARTE_ENERGY_FIT_H

#include <jansson.h>
#include <stddef.h>

#include "analysis/energy.h"
#include "series.h"

/* Kimura's per-region parameters, fitted from a series' runs. */
struct energy_model {
	double f_std;		/* in: NAN to take the highest run frequency */
	size_t nregions;
	char **names;
	struct ka_region_model *model;
	const char **f_opt_from;	/* "optimised runs" or "least energy at p=1" */
};

/* Fit alpha_p (eq. 5), beta_on (eq. 6), f_opt, P and T for each region of
 * the standard runs at p = 1. 400 with a sentence naming what is missing. */
int energy_model_build(const struct series_data *sd, struct energy_model *em, struct kerr *err);
void energy_model_free(struct energy_model *em);

/* Delta E measured (eq. 1) at every p with optimised and standard runs of
 * the model's regions, into ps and de (room for sd->nall + 1); the count. */
size_t energy_measured(const struct series_data *sd, const struct energy_model *em, double *ps,
		       double *de);

/* The same as [{p, delta_e}]; a new reference. */
json_t *energy_measured_json(const struct series_data *sd, const struct energy_model *em);

#endif
