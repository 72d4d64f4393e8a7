/* history: baselines and verdicts of a point's runs over time. */
#include "history.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stddef.h>
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

void ka_baseline_sorted(const double *v, size_t n, struct ka_baseline *out)
{
	size_t l = (n - 1) / 2, j = l + 1, k;
	ptrdiff_t i = (ptrdiff_t)l;
	double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, d = 0, lower = 0;

	/* v[0..l] lie at or below the median and v[l+1..] at or above: the
	 * deviations med - v[i] going left and v[j] - med going right both
	 * grow, so merging them gives the deviations in order; the MAD is the
	 * middle one (the mean of the two middle ones for even n, as
	 * gsl_stats_median takes them) */
	for (k = 0; k <= n / 2; k++) {
		double dl = i >= 0 ? med - v[i] : INFINITY, dr = j < n ? v[j] - med : INFINITY;

		if (dl <= dr) {
			d = dl;
			i--;
		} else {
			d = dr;
			j++;
		}
		if (k == (n - 1) / 2)
			lower = d;
	}
	out->median = med;
	out->mad = n % 2 ? d : (lower + d) / 2;
	out->runs = n;
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

enum ka_verdict ka_verdict_sorted(double x, const double *v, size_t n,
				  const struct ka_thresholds *t, struct ka_baseline *b)
{
	double median;

	b->runs = 0;
	if (n == 0 || n < t->min_runs || !isfinite(x))
		return KA_OK;
	median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (fabs(x - median) <= t->rel * fabs(median))
		return KA_OK;
	ka_baseline_sorted(v, n, b);
	return ka_verdict(x, b, t);
}

const char *ka_verdict_name(enum ka_verdict v)
{
	return v == KA_REGRESSION ? "regression" : v == KA_IMPROVEMENT ? "improvement" : "ok";
}
