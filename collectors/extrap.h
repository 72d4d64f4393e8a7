/*
 * extrap: Extra-P's text input format as karte runs. The subset read:
 * '#' comments, PARAMETER lines, POINTS ( v1 v2 ... ) lines, REGION lines
 * (nesting by indentation, or '->' in the name) and METRIC lines, each
 * (region, metric) followed by one DATA line of repetitions per point in
 * POINTS order. One run per point and repetition: p and n from two of the
 * parameters, tau from one region's value of the metric, every other region
 * of that metric as a region of the run, chi or gamma as the sum of the
 * regions named for it.
 */
#ifndef KARTE_EXTRAP_H
#define KARTE_EXTRAP_H

#include <jansson.h>
#include <stddef.h>

struct extrap_opts {
	const char *p_param;		/* parameter giving p ("p") */
	const char *n_param;		/* parameter giving n ("n") */
	const char *metric;		/* "time" */
	const char *tau_region;		/* NULL: the first region */
	const char *chi_regions;	/* comma-separated, or NULL */
	const char *gamma_regions;	/* comma-separated, or NULL */
};

/* The runs of file as a JSON array (a new reference), or NULL with the
 * reason in err ("file:line: ..."). A warning may be left in err with a
 * non-NULL result (err[0] != 0). */
json_t *extrap_read(const char *file, const struct extrap_opts *o, char *err, size_t errsize);

#endif
