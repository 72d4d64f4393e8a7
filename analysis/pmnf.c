#include "pmnf.h"

#include <gsl/gsl_fit.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Extra-P's default building blocks, in its order: {num, den, log}. */
static const signed char pairs[KA_PMNF_PAIRS][3] = {
	{0, 1, 1}, {0, 1, 2}, {1, 4, 0}, {1, 3, 0}, {1, 4, 1}, {1, 3, 1}, {1, 4, 2},
	{1, 3, 2}, {1, 2, 0}, {1, 2, 1}, {1, 2, 2}, {2, 3, 0}, {3, 4, 0}, {2, 3, 1},
	{3, 4, 1}, {4, 5, 0}, {2, 3, 2}, {3, 4, 2}, {1, 1, 0}, {1, 1, 1}, {1, 1, 2},
	{5, 4, 0}, {5, 4, 1}, {4, 3, 0}, {4, 3, 1}, {3, 2, 0}, {3, 2, 1}, {3, 2, 2},
	{5, 3, 0}, {7, 4, 0}, {2, 1, 0}, {2, 1, 1}, {2, 1, 2}, {9, 4, 0}, {7, 3, 0},
	{5, 2, 0}, {5, 2, 1}, {5, 2, 2}, {8, 3, 0}, {11, 4, 0}, {3, 1, 0}, {3, 1, 1},
};

void ka_pmnf_pair(int k, int *num, int *den, int *log)
{
	*num = pairs[k][0];
	*den = pairs[k][1];
	*log = pairs[k][2];
}

static double factor_eval(const struct ka_pmnf_factor *f, double x)
{
	double v = f->num ? pow(x, (double)f->num / f->den) : 1.0;

	if (f->log)
		v *= pow(log2(x), f->log);
	return v;
}

/* Term t at x without its coefficient. */
static double term_shape(const struct ka_pmnf_term *t, const double *x)
{
	double v = 1.0;
	int i;

	for (i = 0; i < t->nfactors; i++)
		v *= factor_eval(&t->f[i], x[t->f[i].param]);
	return v;
}

double ka_pmnf_term_eval(const struct ka_pmnf_term *t, const double *x)
{
	return t->coef * term_shape(t, x);
}

double ka_pmnf_eval(const struct ka_pmnf_model *mdl, const double *x)
{
	double v = mdl->constant;
	int k;

	for (k = 0; k < mdl->nterms; k++)
		v += ka_pmnf_term_eval(&mdl->t[k], x);
	return v;
}

/* SMAPE's share of one point, before the mean and the 100. */
static double smape_one(double actual, double predicted)
{
	double abssum = fabs(actual) + fabs(predicted);

	return abssum != 0 ? 2 * fabs(predicted - actual) / abssum : 0;
}

/* Least squares y = c0 + c1 t over n points (GSL); when every t is the
 * same, the minimum-norm solution numpy's lstsq (Extra-P's) gives. */
static void fit_line(const double *t, const double *y, size_t n, double *c0, double *c1)
{
	double cov00, cov01, cov11, sumsq, mean = 0;
	size_t i;
	bool flat = true;

	for (i = 1; i < n && flat; i++)
		flat = t[i] == t[0];
	if (!flat) {
		gsl_fit_linear(t, 1, y, 1, n, c0, c1, &cov00, &cov01, &cov11, &sumsq);
		return;
	}
	for (i = 0; i < n; i++)
		mean += y[i] / (double)n;
	*c0 = mean / (1 + t[0] * t[0]);
	*c1 = t[0] * mean / (1 + t[0] * t[0]);
}

static void constant_model(const double *y, size_t m, int nparams, struct ka_pmnf_model *out)
{
	double mean = 0, tss = 0, smape = 0;
	size_t i;

	for (i = 0; i < m; i++)
		mean += y[i];
	mean /= (double)m;
	for (i = 0; i < m; i++) {
		tss += (y[i] - mean) * (y[i] - mean);
		smape += smape_one(y[i], mean);
	}
	memset(out, 0, sizeof(*out));
	out->nparams = nparams;
	out->constant = mean;
	out->rss = tss;
	out->smape = smape / (double)m * 100;
	out->adj_r2 = 1;
	out->points = m;
	out->dof = (int)m - 1;
}

static int check(const double *x, size_t nx, const double *y, size_t m)
{
	size_t i;

	if (m == 0)
		return -KA_ENODATA;
	for (i = 0; i < nx; i++)
		if (!(x[i] > 0) || !isfinite(x[i]))
			return -KA_EDOM;
	for (i = 0; i < m; i++)
		if (!isfinite(y[i]))
			return -KA_EDOM;
	return 0;
}

/* A term whose largest share of the measured values is below epsilon is
 * dropped (Extra-P's term contribution; a 0/0 share does not count as
 * small). */
static bool contributes(double coef, const double *shape, const double *y, size_t m)
{
	double most = 0;
	size_t i;

	if (coef == 0)
		return false;
	for (i = 0; i < m; i++) {
		double c = fabs(coef * shape[i] / y[i]);

		if (isnan(c))
			return true;
		if (c > most)
			most = c;
	}
	return most >= KA_PMNF_EPSILON;
}

int ka_pmnf_single(const double *x, const double *y, size_t m, double *work,
		   struct ka_pmnf_model *out)
{
	double *t = work, *ft = work + m, *fy = work + 2 * m;
	double tss, best_smape;
	bool logs = true;
	size_t i, j, k;
	int pk, rc = check(x, m, y, m);

	if (rc)
		return rc;
	constant_model(y, m, 1, out);
	tss = out->rss;
	if (tss == 0)
		return 0;	/* the constant fits exactly */
	best_smape = out->smape;
	for (i = 0; i < m; i++)
		logs = logs && x[i] >= 1;
	for (pk = 0; pk < KA_PMNF_PAIRS; pk++) {
		struct ka_pmnf_factor f = {0, pairs[pk][0], pairs[pk][1], pairs[pk][2]};
		double rss = 0, smape = 0, c0, c1;

		if (f.log && !logs)
			continue;
		for (i = 0; i < m; i++)
			t[i] = factor_eval(&f, x[i]);
		/* leave one out: fit on the others, predict the one */
		for (k = 0; k < m; k++) {
			double miny = INFINITY, pred;

			for (i = 0, j = 0; i < m; i++) {
				if (i == k)
					continue;
				ft[j] = t[i];
				fy[j++] = y[i];
				if (y[i] < miny)
					miny = y[i];
			}
			if (j == 0) {
				c0 = 0, c1 = 0;
			} else {
				fit_line(ft, fy, j, &c0, &c1);
				/* a constant that should be 0 (Extra-P's cleaning) */
				if (miny == 0 ? fabs(c0) < KA_PMNF_EPSILON :
						fabs(c0 / miny) < KA_PMNF_EPSILON)
					c0 = 0;
			}
			pred = c0 + c1 * t[k];
			rss += (pred - y[k]) * (pred - y[k]);
			smape += smape_one(y[k], pred) / (double)m * 100;
		}
		if (!isfinite(rss))
			continue;	/* numeric trouble: Extra-P ignores the hypothesis */
		fit_line(t, y, m, &c0, &c1);
		/* ties (within 1e-12 relative: rounding) keep the earlier pair */
		if (!contributes(c1, t, y, m) || !(smape < best_smape - 1e-12 * fmax(1, fabs(best_smape))))
			continue;
		best_smape = smape;
		out->constant = c0;
		out->nterms = 1;
		out->t[0] = (struct ka_pmnf_term){c1, 1, {f}};
		out->rss = rss;
		out->smape = smape;
		out->dof = (int)m - 2;
		out->adj_r2 = 1 - (rss / tss) * ((double)m - 1) / ((double)m - 2);
	}
	return 0;
}

/* ---- two parameters -------------------------------------------------------- */

struct mp_point {
	double x[KA_PMNF_PARAMS];
	double y;
};

/* Points by x[0], then x[1]; and by x[1], then x[0]. */
static int cmp_x0_first(const void *a, const void *b)
{
	const struct mp_point *u = a, *v = b;

	if (u->x[0] != v->x[0])
		return u->x[0] < v->x[0] ? -1 : 1;
	if (u->x[1] != v->x[1])
		return u->x[1] < v->x[1] ? -1 : 1;
	return 0;
}

static int cmp_x1_first(const void *a, const void *b)
{
	const struct mp_point *u = a, *v = b;

	if (u->x[1] != v->x[1])
		return u->x[1] < v->x[1] ? -1 : 1;
	if (u->x[0] != v->x[0])
		return u->x[0] < v->x[0] ? -1 : 1;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double u = *(const double *)a, v = *(const double *)b;

	return u < v ? -1 : u > v;
}

/* Extra-P's points for the single-parameter model of param p: the longest
 * lines of points along p (equal other coordinate), their values averaged
 * at each p over the lines that the first p's group shares. Into sx, sy;
 * returns how many. pts and tmp: room for m points, qs for m doubles. */
static size_t line_points(const struct mp_point *in, size_t m, int p, struct mp_point *pts,
			  struct mp_point *tmp, double *qs, double *sx, double *sy)
{
	int q = 1 - p;
	size_t i, j, n = 0, longest = 0, ncand = 0, nq = 0, ns = 0;

	memcpy(pts, in, m * sizeof(*pts));
	/* lines: by the other coordinate first */
	qsort(pts, m, sizeof(*pts), p == 0 ? cmp_x1_first : cmp_x0_first);
	for (i = 0; i < m; i = j) {	/* the longest line length */
		for (j = i; j < m && pts[j].x[q] == pts[i].x[q]; j++)
			;
		if (j - i > longest)
			longest = j - i;
	}
	for (i = 0; i < m; i = j) {	/* the points of every longest line */
		for (j = i; j < m && pts[j].x[q] == pts[i].x[q]; j++)
			;
		if (j - i == longest) {
			memcpy(tmp + ncand, pts + i, (j - i) * sizeof(*pts));
			ncand += j - i;
		}
	}
	/* groups: by p first */
	qsort(tmp, ncand, sizeof(*tmp), p == 0 ? cmp_x0_first : cmp_x1_first);
	/* the other coordinates of the first group (the smallest p) */
	for (i = 0; i < ncand && tmp[i].x[p] == tmp[0].x[p]; i++)
		qs[nq++] = tmp[i].x[q];
	qsort(qs, nq, sizeof(*qs), cmp_double);
	for (i = 0; i < ncand; i = j) {
		double sum = 0;

		n = 0;
		for (j = i; j < ncand && tmp[j].x[p] == tmp[i].x[p]; j++)
			if (bsearch(&tmp[j].x[q], qs, nq, sizeof(*qs), cmp_double)) {
				sum += tmp[j].y;
				n++;
			}
		if (n) {
			sx[ns] = tmp[i].x[p];
			sy[ns++] = sum / (double)n;
		}
	}
	return ns;
}

/* The in-sample figures of mdl as it is (coefficients kept). */
static void cost_as_is(const struct mp_point *pts, size_t m, double tss, int factors,
		       struct ka_pmnf_model *mdl)
{
	double rss = 0, smape = 0;
	size_t i;

	for (i = 0; i < m; i++) {
		double pred = ka_pmnf_eval(mdl, pts[i].x);

		rss += (pred - pts[i].y) * (pred - pts[i].y);
		smape += smape_one(pts[i].y, pred);
	}
	mdl->rss = rss;
	mdl->smape = smape / (double)m * 100;
	mdl->points = m;
	mdl->dof = (int)m - factors - 1;
	mdl->adj_r2 = 1 - (rss / tss) * ((double)m - 1) / mdl->dof;
}

/* In-sample least squares of y over the columns of terms (their
 * coefficients set), with the model's figures; -KA_ESPACE when GSL cannot
 * allocate. */
static int fit_terms(const struct mp_point *pts, size_t m, double tss,
		     struct ka_pmnf_model *mdl)
{
	size_t cols = (size_t)mdl->nterms + 1, rows = m > cols ? m : cols, i;
	gsl_matrix *X = gsl_matrix_calloc(rows, cols), *cov = gsl_matrix_alloc(cols, cols);
	gsl_vector *Y = gsl_vector_calloc(rows), *c = gsl_vector_alloc(cols);
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(rows, cols);
	double chisq;
	int k, factors = 0, rc = -KA_ESPACE;

	if (!X || !cov || !Y || !c || !w)
		goto out;
	/* (rows beyond m stay 0: they do not change the solution) */
	for (i = 0; i < m; i++) {
		gsl_matrix_set(X, i, 0, 1.0);
		for (k = 0; k < mdl->nterms; k++)
			gsl_matrix_set(X, i, (size_t)k + 1, term_shape(&mdl->t[k], pts[i].x));
		gsl_vector_set(Y, i, pts[i].y);
	}
	if (gsl_multifit_linear(X, Y, c, cov, &chisq, w)) {
		rc = -KA_EDOM;
		goto out;
	}
	mdl->constant = gsl_vector_get(c, 0);
	for (k = 0; k < mdl->nterms; k++) {
		mdl->t[k].coef = gsl_vector_get(c, (size_t)k + 1);
		factors += mdl->t[k].nfactors;
	}
	cost_as_is(pts, m, tss, factors, mdl);
	rc = 0;
out:
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(Y);
	gsl_vector_free(c);
	gsl_multifit_linear_free(w);
	return rc;
}

static bool terms_contribute(const struct ka_pmnf_model *mdl, const struct mp_point *pts, size_t m,
			     double *shape, double *y)
{
	size_t i;
	int k;

	for (k = 0; k < mdl->nterms; k++) {
		for (i = 0; i < m; i++) {
			shape[i] = term_shape(&mdl->t[k], pts[i].x);
			y[i] = pts[i].y;
		}
		if (!contributes(mdl->t[k].coef, shape, y, m))
			return false;
	}
	return true;
}

/* Whether h beats best, by the contract's rule: a lower cost (SMAPE) by
 * more than 1e-12 relative; within that a tie, which goes to the fewer
 * terms, then to the earlier hypothesis in Extra-P's order (best, which
 * was tried first). Rounding never decides. */
static bool beats(const struct ka_pmnf_model *h, const struct ka_pmnf_model *best)
{
	/* relative, and at least 1e-12 of a percentage point: the SMAPE of an
	 * exact fit is rounding, however small */
	double tol = 1e-12 * fmax(1, fmax(fabs(h->smape), fabs(best->smape)));

	if (h->smape < best->smape - tol)
		return true;
	return h->smape <= best->smape + tol && h->nterms < best->nterms;
}

int ka_pmnf_multi(const double *x, const double *y, size_t m, struct ka_pmnf_model *out)
{
	struct mp_point *in = NULL, *pts = NULL, *tmp = NULL;
	double *buf = NULL, *sx, *sy, *qs, *work, tss;
	struct ka_pmnf_model sp[KA_PMNF_PARAMS], best, h;
	struct ka_pmnf_factor used[KA_PMNF_PARAMS];
	int p, nused = 0, rc = check(x, 2 * m, y, m), i;
	size_t j, ns;

	if (rc)
		return rc;
	in = malloc(m * sizeof(*in));
	pts = malloc(m * sizeof(*pts));
	tmp = malloc(m * sizeof(*tmp));
	buf = malloc(6 * m * sizeof(*buf));
	if (!in || !pts || !tmp || !buf) {
		rc = -KA_ESPACE;
		goto out;
	}
	sx = buf, sy = buf + m, qs = buf + 2 * m, work = buf + 3 * m;
	for (j = 0; j < m; j++)
		in[j] = (struct mp_point){{x[2 * j], x[2 * j + 1]}, y[j]};
	for (p = 0; p < KA_PMNF_PARAMS; p++) {
		ns = line_points(in, m, p, pts, tmp, qs, sx, sy);
		if ((rc = ka_pmnf_single(sx, sy, ns, work, &sp[p])))
			goto out;
		if (sp[p].nterms) {
			used[nused] = sp[p].t[0].f[0];
			used[nused++].param = p;
		}
	}
	constant_model(y, m, 2, out);
	tss = out->rss;
	if (nused == 0)
		goto out;	/* the constant (Extra-P's in-sample figures) */
	if (nused == 1) {
		/* the single-parameter model as it is, against its refit on all */
		p = used[0].param;
		h = sp[p];
		h.nparams = 2;
		h.t[0].f[0].param = p;
		cost_as_is(in, m, tss, 1, &h);
		best = h;
		if ((rc = fit_terms(in, m, tss, &h)))
			goto out;
		if (beats(&h, &best))
			best = h;
		*out = best;
		goto out;
	}
	/* a*b, a+b, a*b+a, a*b+b: Extra-P's hypotheses for two parameters,
	 * the first one the starting best whatever its terms contribute */
	for (i = 0; i < 4; i++) {
		struct ka_pmnf_term a = {1, 1, {used[0]}}, b = {1, 1, {used[1]}};
		struct ka_pmnf_term ab = {1, 2, {used[0], used[1]}};

		memset(&h, 0, sizeof(h));
		h.nparams = 2;
		if (i == 0)
			h.nterms = 1, h.t[0] = ab;
		else if (i == 1)
			h.nterms = 2, h.t[0] = a, h.t[1] = b;
		else
			h.nterms = 2, h.t[0] = i == 2 ? a : b, h.t[1] = ab;
		if ((rc = fit_terms(in, m, tss, &h)))
			goto out;
		if (i == 0)
			best = h;
		else if (terms_contribute(&h, in, m, sx, sy) && beats(&h, &best))
			best = h;
	}
	*out = best;
out:
	free(in);
	free(pts);
	free(tmp);
	free(buf);
	return rc;
}

/* ---- uncertainty --------------------------------------------------------- */

int ka_pmnf_covariance(const struct ka_pmnf_model *mdl, const double *x, const double *y,
		       const double *var, size_t m, double *cov)
{
	size_t k = (size_t)mdl->nterms + 1, i, a, b;
	double ata[(KA_PMNF_TERMS + 1) * (KA_PMNF_TERMS + 1)] = {0};
	double mid[(KA_PMNF_TERMS + 1) * (KA_PMNF_TERMS + 1)] = {0};
	double inv[(KA_PMNF_TERMS + 1) * (KA_PMNF_TERMS + 1)], row[KA_PMNF_TERMS + 1];
	double s2 = 0;
	int np = mdl->nparams;
	gsl_matrix_view A = gsl_matrix_view_array(ata, k, k), I = gsl_matrix_view_array(inv, k, k);
	gsl_permutation *perm;
	int sign;

	if (!var && m <= k)
		return -KA_ENODATA;
	for (i = 0; i < m; i++) {
		row[0] = 1;
		for (a = 1; a < k; a++)
			row[a] = term_shape(&mdl->t[a - 1], x + i * (size_t)np);
		if (!var) {
			double d = ka_pmnf_eval(mdl, x + i * (size_t)np) - y[i];

			s2 += d * d;
		}
		for (a = 0; a < k; a++)
			for (b = 0; b < k; b++) {
				ata[a * k + b] += row[a] * row[b];
				mid[a * k + b] += row[a] * row[b] * (var ? var[i] : 1);
			}
	}
	perm = gsl_permutation_alloc(k);
	if (!perm)
		return -KA_ESPACE;
	if (gsl_linalg_LU_decomp(&A.matrix, perm, &sign) ||
	    gsl_linalg_LU_invert(&A.matrix, perm, &I.matrix)) {
		gsl_permutation_free(perm);
		return -KA_EDOM;
	}
	gsl_permutation_free(perm);
	if (!var) {	/* s^2 (A'A)^-1 */
		s2 /= (double)(m - k);
		for (a = 0; a < k * k; a++)
			cov[a] = s2 * inv[a];
		return 0;
	}
	/* (A'A)^-1 A' diag(var) A (A'A)^-1 */
	for (a = 0; a < k; a++)
		for (b = 0; b < k; b++) {
			double s = 0;
			size_t c, d;

			for (c = 0; c < k; c++)
				for (d = 0; d < k; d++)
					s += inv[a * k + c] * mid[c * k + d] * inv[d * k + b];
			cov[a * k + b] = s;
		}
	return 0;
}

double ka_pmnf_se(const struct ka_pmnf_model *mdl, const double *cov, const double *x)
{
	size_t k = (size_t)mdl->nterms + 1, a, b;
	double g[KA_PMNF_TERMS + 1], v = 0;

	g[0] = 1;
	for (a = 1; a < k; a++)
		g[a] = term_shape(&mdl->t[a - 1], x);
	for (a = 0; a < k; a++)
		for (b = 0; b < k; b++)
			v += g[a] * cov[a * k + b] * g[b];
	return v > 0 ? sqrt(v) : 0;
}

/* ---- the models in Orii's method ------------------------------------------ */

#define SCAN_STEPS 256		/* geometric steps of a scan over a range */
#define REFINE_STEPS 80		/* bisection / golden-section steps on the log */

static double at_pn(const struct ka_pmnf_model *m, double p, double n)
{
	double x[KA_PMNF_PARAMS] = {p, n};

	return ka_pmnf_eval(m, x);
}

/* (1 - level) W - level To: above 0 when eps > level (W + To > 0). */
static double iso_gap(const struct ka_pmnf_model *w, const struct ka_pmnf_model *o, double p,
		      double level, double logn)
{
	double n = exp(logn);

	return (1 - level) * at_pn(w, p, n) - level * at_pn(o, p, n);
}

int ka_pmnf_iso_n(const struct ka_pmnf_model *work, const struct ka_pmnf_model *overhead,
		  double p, double level, double nlo, double nhi, double *n)
{
	double a = log(nlo), b, ga, gb, step;
	int i;

	if (!(level > 0 && level < 1) || !(p > 0) || !(nlo > 0) || !(nhi > nlo) || !isfinite(nhi))
		return -KA_EDOM;
	step = (log(nhi) - a) / SCAN_STEPS;
	ga = iso_gap(work, overhead, p, level, a);
	for (i = 1; i <= SCAN_STEPS; i++, a = b, ga = gb) {
		b = log(nlo) + i * step;
		gb = iso_gap(work, overhead, p, level, b);
		if ((ga < 0) != (gb < 0))
			break;
	}
	if (i > SCAN_STEPS || !isfinite(ga) || !isfinite(gb))
		return -KA_ENODATA;
	for (i = 0; i < REFINE_STEPS; i++) {
		double c = (a + b) / 2, gc = iso_gap(work, overhead, p, level, c);

		if ((gc < 0) == (ga < 0))
			a = c, ga = gc;
		else
			b = c;
	}
	*n = exp((a + b) / 2);
	return 0;
}

static double tau_at(const struct ka_pmnf_model *r, double n, double logp)
{
	double p = exp(logp);

	return at_pn(r, p, n) / p;
}

int ka_pmnf_tau_turn(const struct ka_pmnf_model *r, double n, double plo, double phi, double *p)
{
	const double golden = (sqrt(5.0) - 1) / 2;
	double lo = log(plo), step, prev, cur, a, b, c, d, fc, fd;
	int i;

	if (!(plo > 0) || !(phi > plo) || !isfinite(phi) || (r->nparams == 2 && !(n > 0)))
		return -KA_EDOM;
	step = (log(phi) - lo) / SCAN_STEPS;
	prev = tau_at(r, n, lo);
	for (i = 1; i <= SCAN_STEPS; i++, prev = cur) {
		cur = tau_at(r, n, lo + i * step);
		if (cur > prev)
			break;
	}
	if (i > SCAN_STEPS)
		return -KA_ENODATA;
	if (i == 1) {
		*p = plo;
		return 0;
	}
	/* the minimum lies between steps i - 2 and i */
	a = lo + (i - 2) * step;
	b = lo + i * step;
	c = b - golden * (b - a);
	d = a + golden * (b - a);
	fc = tau_at(r, n, c);
	fd = tau_at(r, n, d);
	for (i = 0; i < REFINE_STEPS; i++) {
		if (fc <= fd) {
			b = d, d = c, fd = fc;
			c = b - golden * (b - a);
			fc = tau_at(r, n, c);
		} else {
			a = c, c = d, fc = fd;
			d = a + golden * (b - a);
			fd = tau_at(r, n, d);
		}
	}
	*p = exp((a + b) / 2);
	return 0;
}

/* ---- rounding noise ------------------------------------------------------- */

void ka_pmnf_drop_noise(struct ka_pmnf_model *mdl, const double *x, size_t m)
{
	double most[KA_PMNF_TERMS], largest = fabs(mdl->constant);
	size_t i;
	int k, kept;

	for (k = 0; k < mdl->nterms; k++) {
		most[k] = 0;
		for (i = 0; i < m; i++)
			most[k] = fmax(most[k], fabs(ka_pmnf_term_eval(&mdl->t[k], x + i * (size_t)mdl->nparams)));
		largest = fmax(largest, most[k]);
	}
	if (!(largest > 0) || !isfinite(largest))
		return;
	if (fabs(mdl->constant) < KA_PMNF_NOISE * largest)
		mdl->constant = 0;
	for (k = 0, kept = 0; k < mdl->nterms; k++)
		if (!(most[k] < KA_PMNF_NOISE * largest))
			mdl->t[kept++] = mdl->t[k];
	mdl->nterms = kept;
}

/* ---- text ------------------------------------------------------------------ */

static size_t put(char *buf, size_t size, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t put(char *buf, size_t size, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len >= size)
		return len;
	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	return n < 0 ? len : len + (size_t)n;
}

void ka_pmnf_format(const struct ka_pmnf_model *mdl, const char *const *names, char *buf,
		    size_t size)
{
	size_t len = 0;
	int k, i;

	if (!size)
		return;
	buf[0] = '\0';
	if (mdl->constant != 0 || mdl->nterms == 0)	/* a constant of 0 is left out */
		len = put(buf, size, len, "%.6g", mdl->constant);
	for (k = 0; k < mdl->nterms; k++) {
		const struct ka_pmnf_term *t = &mdl->t[k];

		if (len == 0)
			len = put(buf, size, len, "%s%.6g", t->coef < 0 ? "-" : "", fabs(t->coef));
		else
			len = put(buf, size, len, " %c %.6g", t->coef < 0 ? '-' : '+', fabs(t->coef));
		for (i = 0; i < t->nfactors; i++) {
			const struct ka_pmnf_factor *f = &t->f[i];
			const char *name = names[f->param];

			if (f->num && f->den == 1 && f->num == 1)
				len = put(buf, size, len, " * %s", name);
			else if (f->num && f->den == 1)
				len = put(buf, size, len, " * %s^%d", name, f->num);
			else if (f->num)
				len = put(buf, size, len, " * %s^(%d/%d)", name, f->num, f->den);
			if (f->log == 1)
				len = put(buf, size, len, " * log2(%s)", name);
			else if (f->log)
				len = put(buf, size, len, " * log2(%s)^%d", name, f->log);
		}
	}
}

/* a / b in lowest terms, b > 0 */
static void reduce(int *a, int *b)
{
	int x = abs(*a), y = *b, t;

	while (y)
		t = x % y, x = y, y = t;
	if (x > 1)
		*a /= x, *b /= x;
}

enum ka_growth ka_pmnf_growth(const struct ka_pmnf_model *mdl, int param, const char *name, int per,
			      char *buf, size_t size)
{
	/* the dominant term: exponent num / den and log of param, and its sign */
	int num = -per, den = 1, lg = 0, k, i;
	double coef = mdl->constant;
	size_t len = 0;

	for (k = 0; k < mdl->nterms; k++) {
		const struct ka_pmnf_term *t = &mdl->t[k];
		int tn = -per, td = 1, tl = 0;

		if (t->coef == 0)
			continue;
		for (i = 0; i < t->nfactors; i++)
			if (t->f[i].param == param)
				tn = t->f[i].num - per * t->f[i].den, td = t->f[i].den, tl = t->f[i].log;
		if (coef == 0 || (long)tn * den > (long)num * td || ((long)tn * den == (long)num * td && tl > lg))
			num = tn, den = td, lg = tl, coef = t->coef;
	}
	reduce(&num, &den);
	buf[0] = '\0';
	if (num < 0 || (coef < 0 && (num > 0 || lg > 0))) {
		put(buf, size, 0, "falls");
		return KA_FALLS;
	}
	if (num == 0 && lg == 0) {
		put(buf, size, 0, "constant");
		return KA_FLAT;
	}
	if (num == 1 && den == 1)
		len = put(buf, size, len, "%s", name);
	else if (num && den == 1)
		len = put(buf, size, len, "%s^%d", name, num);
	else if (num)
		len = put(buf, size, len, "%s^(%d/%d)", name, num, den);
	if (lg)
		len = put(buf, size, len, "%slog2(%s)", len ? " * " : "", name);
	if (lg > 1)
		put(buf, size, len, "^%d", lg);
	return KA_GROWS;
}

enum ka_band_from ka_pmnf_band(const struct ka_pmnf_model *mdl, const double *x, const double *y,
			       const double *var, size_t m, size_t nvalues, double level,
			       struct ka_band *b)
{
	size_t k = (size_t)mdl->nterms + 1;

	b->from = KA_BAND_NONE;
	b->q = NAN;
	if (var && nvalues > m && ka_pmnf_covariance(mdl, x, y, var, m, b->cov) == 0) {
		b->q = gsl_cdf_tdist_Pinv(0.5 + level / 2, (double)(nvalues - m));
		b->from = KA_BAND_REPETITIONS;
	} else if (m > k && ka_pmnf_covariance(mdl, x, y, NULL, m, b->cov) == 0) {
		b->q = gsl_cdf_tdist_Pinv(0.5 + level / 2, (double)(m - k));
		b->from = KA_BAND_RESIDUALS;
	}
	return b->from;
}

const char *ka_band_name(enum ka_band_from from)
{
	return from == KA_BAND_REPETITIONS ? "repetitions" : from == KA_BAND_RESIDUALS ? "residuals" : "none";
}
