#include "powermodel.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* OLS with intercept on the kept counters; coefficients and p-values. */
static int fit_once(const double *rates, size_t rows, size_t k, const double *y, struct ka_pm *m)
{
	size_t cols = 1, i, j, c;
	gsl_matrix *X, *cov;
	gsl_vector *Y, *b;
	gsl_multifit_linear_workspace *w;
	double chisq, dof, sst = 0, mean = 0;
	int rc = 0;

	for (j = 0; j < k; j++)
		cols += m->kept[j];
	if (rows <= cols)
		return -KA_ENODATA;
	X = gsl_matrix_alloc(rows, cols);
	Y = gsl_vector_alloc(rows);
	b = gsl_vector_alloc(cols);
	cov = gsl_matrix_alloc(cols, cols);
	w = gsl_multifit_linear_alloc(rows, cols);
	for (i = 0; i < rows; i++) {
		gsl_matrix_set(X, i, 0, 1.0);
		for (j = 0, c = 1; j < k; j++)
			if (m->kept[j])
				gsl_matrix_set(X, i, c++, rates[i * k + j]);
		gsl_vector_set(Y, i, y[i]);
		mean += y[i] / (double)rows;
	}
	if (gsl_multifit_linear(X, Y, b, cov, &chisq, w)) {
		rc = -KA_EDOM;
		goto out;
	}
	dof = (double)(rows - cols);
	for (i = 0; i < rows; i++)
		sst += (y[i] - mean) * (y[i] - mean);
	m->r2 = sst > 0 ? 1 - chisq / sst : 1;
	m->adj_r2 = 1 - (1 - m->r2) * (double)(rows - 1) / dof;
	m->sigma = sqrt(chisq / dof);
	m->dof = rows - cols;
	/* cov = s^2 (X'X)^-1 with s^2 = chisq/dof: the coefficients' variances */
	for (j = 0, c = 0; c < cols; c++) {
		double coef = gsl_vector_get(b, c), se = sqrt(gsl_matrix_get(cov, c, c));
		double t = se > 0 ? coef / se : INFINITY;
		double p = isfinite(t) ? 2 * gsl_cdf_tdist_Q(fabs(t), dof) : 0;

		if (c == 0) {
			m->intercept = coef;
			m->intercept_se = se;
			m->intercept_t = t;
			m->intercept_p = p;
			continue;
		}
		while (!m->kept[j])
			j++;
		m->coef[j] = coef;
		m->se[j] = se;
		m->t[j] = t;
		m->pvalue[j] = p;
		j++;
	}
out:
	gsl_matrix_free(X);
	gsl_vector_free(Y);
	gsl_vector_free(b);
	gsl_matrix_free(cov);
	gsl_multifit_linear_free(w);
	return rc;
}

int ka_pm_fit(const double *rates, size_t rows, size_t k, const double *y, double alpha,
	      struct ka_pm *m)
{
	size_t i, j, worst;
	int rc;

	if (k > KA_PM_MAX || !(alpha > 0 && alpha < 1))
		return -KA_EDOM;
	for (i = 0; i < rows; i++) {
		if (!isfinite(y[i]))
			return -KA_EDOM;
		for (j = 0; j < k; j++)
			if (!isfinite(rates[i * k + j]))
				return -KA_EDOM;
	}
	memset(m, 0, sizeof(*m));
	m->k = k;
	m->rows = rows;
	for (j = 0; j < k; j++)
		m->kept[j] = true;
	for (;;) {
		rc = fit_once(rates, rows, k, y, m);
		if (rc)
			return rc;
		worst = k;
		for (j = 0; j < k; j++)
			if (m->kept[j] && m->pvalue[j] > alpha &&
			    (worst == k || m->pvalue[j] > m->pvalue[worst]))
				worst = j;
		if (worst == k)
			return 0;
		m->kept[worst] = false;	/* not significant: drop it, refit */
		m->coef[worst] = 0;
		m->dropped[m->ndropped++] = worst;
	}
}

double ka_pm_predict(const struct ka_pm *m, const double *rates)
{
	double p = m->intercept;
	size_t j;

	for (j = 0; j < m->k; j++)
		if (m->kept[j])
			p += m->coef[j] * rates[j];
	return p;
}

int ka_pm_errors(const struct ka_pm *m, const double *rates, size_t rows, const double *y,
		 double *mean, double *max)
{
	size_t i;
	double e;

	*mean = *max = 0;
	if (!rows)
		return -KA_ENODATA;
	for (i = 0; i < rows; i++) {
		/* the relative error is undefined at a measured 0 W only: any other
		 * power, however small, gives a finite (if large) error, the truth */
		if (!(y[i] != 0))
			return -KA_EDOM;
		e = fabs(ka_pm_predict(m, rates + i * m->k) - y[i]) / fabs(y[i]);
		*mean += e / (double)rows;
		*max = fmax(*max, e);
	}
	return 0;
}

double ka_goal_value(double time, double energy, enum ka_goal goal)
{
	return goal == KA_GOAL_TIME ? time : goal == KA_GOAL_ENERGY ? energy : energy * time;
}

size_t ka_best_config(const double *time, const double *energy, size_t n, enum ka_goal goal)
{
	size_t i, best = 0;
	double v, bv = INFINITY;

	for (i = 0; i < n; i++) {
		v = ka_goal_value(time[i], energy[i], goal);
		if (v < bv) {
			bv = v;
			best = i;
		}
	}
	return best;
}

struct cfg_rows {
	const long *cfg;
	size_t d;
};

static int cmp_rows(const long *a, const long *b, size_t d)
{
	size_t j;

	for (j = 0; j < d; j++)
		if (a[j] != b[j])
			return a[j] < b[j] ? -1 : 1;
	return 0;
}

static int by_config(const void *a, const void *b, void *ctx)
{
	const struct cfg_rows *r = ctx;

	return cmp_rows(r->cfg + *(const size_t *)a * r->d, r->cfg + *(const size_t *)b * r->d, r->d);
}

/* The index of configuration c among the sorted rows, or SIZE_MAX. */
static size_t find_config(const struct cfg_rows *r, const size_t *order, size_t n, const long *c)
{
	size_t lo = 0, hi = n, mid;
	int k;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		k = cmp_rows(r->cfg + order[mid] * r->d, c, r->d);
		if (!k)
			return order[mid];
		if (k < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

int ka_config_walk(const long *cfg, const double *value, size_t n, size_t d, const long *lo,
		   const long *hi, const long *baseline, size_t *order, struct ka_walk *w, long *next)
{
	struct cfg_rows rows = {cfg, d};
	size_t i, j, k, cur, up;

	w->nexecuted = 0;
	w->end = SIZE_MAX;
	w->ended = w->want_next = false;
	w->baseline = SIZE_MAX;
	if (!n || !d)
		return -KA_ENODATA;
	for (j = 0; j < d; j++)
		if (lo[j] > hi[j] || baseline[j] < lo[j] || baseline[j] > hi[j])
			return -KA_EDOM;
	for (i = 0; i < n; i++) {
		order[i] = i;
		if (!isfinite(value[i]))
			return -KA_EDOM;
	}
	qsort_r(order, n, sizeof(*order), by_config, &rows);
	for (i = 1; i < n; i++)
		if (!cmp_rows(cfg + order[i - 1] * d, cfg + order[i] * d, d))
			return -KA_EDOM;	/* repeats are the caller's to merge */
	w->baseline = find_config(&rows, order, n, baseline);

	/* from the smallest configuration; every step raises one parameter by one */
	memcpy(next, lo, d * sizeof(*next));
	if ((cur = find_config(&rows, order, n, next)) == SIZE_MAX) {
		w->want_next = true;
		return 0;
	}
	w->executed[w->nexecuted++] = w->end = cur;
	for (;;) {
		up = SIZE_MAX;
		for (j = 0; j < d; j++) {
			if (cfg[cur * d + j] >= hi[j])
				continue;
			memcpy(next, cfg + cur * d, d * sizeof(*next));
			next[j]++;
			if ((k = find_config(&rows, order, n, next)) == SIZE_MAX) {
				w->want_next = true;	/* the walk waits for this one */
				return 0;
			}
			/* the raised neighbours' sum of parameters grows by one a step:
			 * none was executed before, and executed[] holds at most n */
			w->executed[w->nexecuted++] = k;
			if (up == SIZE_MAX || value[k] < value[up])
				up = k;
		}
		if (up == SIZE_MAX || !(value[up] < value[cur]))
			break;
		w->end = cur = up;
	}
	w->ended = true;
	if (w->baseline == SIZE_MAX) {
		memcpy(next, baseline, d * sizeof(*next));
		w->want_next = true;
		return 0;
	}
	for (i = 0; i < w->nexecuted; i++)
		if (w->executed[i] == w->baseline)
			return 0;
	w->executed[w->nexecuted++] = w->baseline;
	return 0;
}
