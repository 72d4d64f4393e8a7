/* history: baselines and verdicts of a point's runs over time. */
#include "history.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <string.h>

int ka_baseline(const double *v, size_t n, double *work, struct ka_baseline *out)
{
	size_t i;

	if (n == 0)
		return -KA_ENODATA;
	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return -KA_EDOM;
	/* quickselect (gsl_stats_median reorders work): O(n), on every run stored */
	memcpy(work, v, n * sizeof(double));
	out->median = gsl_stats_median(work, 1, n);
	for (i = 0; i < n; i++)
		work[i] = fabs(v[i] - out->median);
	out->mad = gsl_stats_median(work, 1, n);
	out->runs = n;
	return 0;
}

enum ka_verdict ka_verdict(double x, const struct ka_baseline *b, const struct ka_thresholds *t)
{
	double by = fmax(t->rel * fabs(b->median), t->noise * KA_MAD_SIGMA * b->mad);

	if (b->runs < t->min_runs || !isfinite(x))
		return KA_OK;
	if (x - b->median > by)
		return KA_REGRESSION;
	if (b->median - x > by)
		return KA_IMPROVEMENT;
	return KA_OK;
}

const char *ka_verdict_name(enum ka_verdict v)
{
	return v == KA_REGRESSION ? "regression" : v == KA_IMPROVEMENT ? "improvement" : "ok";
}
