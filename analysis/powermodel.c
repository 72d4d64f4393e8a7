#include "powermodel.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
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
		if (!(y[i] != 0))
			return -KA_EDOM;
		e = fabs(ka_pm_predict(m, rates + i * m->k) - y[i]) / fabs(y[i]);
		*mean += e / (double)rows;
		*max = fmax(*max, e);
	}
	return 0;
}

size_t ka_best_config(const double *time, const double *energy, size_t n, enum ka_goal goal)
{
	size_t i, best = 0;
	double v, bv = INFINITY;

	for (i = 0; i < n; i++) {
		v = goal == KA_GOAL_TIME ? time[i] : goal == KA_GOAL_ENERGY ? energy[i] :
					   energy[i] * time[i];
		if (v < bv) {
			bv = v;
			best = i;
		}
	}
	return best;
}

static bool measured(const long *cfg, size_t n, size_t d, const long *c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!memcmp(cfg + i * d, c, d * sizeof(*c)))
			return true;
	return false;
}

bool ka_next_config(const long *cfg, size_t n, size_t d, size_t best, const long *lo,
		    const long *hi, long *next)
{
	static const long steps[] = {+1, -1};	/* the optimiser increments first */
	size_t s, j;

	for (s = 0; s < 2; s++)
		for (j = 0; j < d; j++) {
			memcpy(next, cfg + best * d, d * sizeof(*next));
			next[j] += steps[s];
			if (next[j] < lo[j] || next[j] > hi[j] || measured(cfg, n, d, next))
				continue;
			return true;
		}
	return false;
}
