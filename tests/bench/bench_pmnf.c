/*
 * make bench: Extra-P's modelers in karte (analysis/pmnf.c) on the data
 * sets of issue #18, generated here: one region of 10^4 runs as 50 values
 * of p x 200 repetitions, and a 7 x 7 (p, n) grid x 200 repetitions. Each
 * time includes reducing the runs to the mean of each point (a sort), as a
 * model of a stored series needs. Extra-P 4.2.5 was measured at 77 ms and
 * 21 ms on this kind of machine (model only, after warm-up); the goal is
 * 20x faster. The baseline in this process is the sort alone, so the ratio
 * shows what the modeling adds to reading the runs. Last, every region of
 * 100 series (goal: under 1 s): 16 regions a series, each with its own
 * function, measured at p = 1, 2, ..., 512 with 5 repetitions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/pmnf.h"

#define REPS 200
#define ROUNDS 41

struct sample {
	double x[2];
	double v;
};

static unsigned seed = 12345;

static double noise(void)
{
	seed = seed * 1103515245u + 12345u;
	return 2.0 * ((seed >> 8) & 0xffff) / 65535.0 - 1.0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *u = a, *v = b;

	if (u->x[0] != v->x[0])
		return u->x[0] < v->x[0] ? -1 : 1;
	if (u->x[1] != v->x[1])
		return u->x[1] < v->x[1] ? -1 : 1;
	return 0;
}

/* Sort a copy of the runs and average each point: the baseline. */
static size_t reduce(const struct sample *in, size_t n, struct sample *work, double *x, double *y,
		     int dims)
{
	size_t i, j, m = 0;

	memcpy(work, in, n * sizeof(*in));
	qsort(work, n, sizeof(*work), cmp_sample);
	for (i = 0; i < n; i = j) {
		double sum = 0;

		for (j = i; j < n && !cmp_sample(&work[i], &work[j]); j++)
			sum += work[j].v;
		x[dims * m] = work[i].x[0];
		if (dims == 2)
			x[2 * m + 1] = work[i].x[1];
		y[m++] = sum / (double)(j - i);
	}
	return m;
}

static int cmp_double(const void *a, const void *b)
{
	double u = *(const double *)a, v = *(const double *)b;

	return u < v ? -1 : u > v;
}

static double median(double *t, size_t n)
{
	qsort(t, n, sizeof(*t), cmp_double);
	return t[n / 2];
}

/* Time the reduction alone and the reduction with the model, ROUNDS
 * times each, and print the medians beside Extra-P's figure and the goal. */
static void timed(const struct sample *s, size_t n, int dims, struct sample *work,
		  const char *what, double extrap_ms, double goal_ms)
{
	static const char *const names[] = {"p", "n"};
	double x[100], y[50], w[150], tb[ROUNDS], tm[ROUNDS], t0, model_ms;
	struct ka_pmnf_model m;
	char text[256];
	size_t r, k;

	for (r = 0; r < ROUNDS; r++) {
		t0 = now_ms();
		reduce(s, n, work, x, y, dims);
		tb[r] = now_ms() - t0;
		t0 = now_ms();
		k = reduce(s, n, work, x, y, dims);
		if (dims == 1)
			ka_pmnf_single(x, y, k, w, &m);
		else
			ka_pmnf_multi(x, y, k, &m);
		tm[r] = now_ms() - t0;
	}
	ka_pmnf_format(&m, names, text, sizeof(text));
	model_ms = median(tm, ROUNDS);
	printf("scaling model, %s x %d repetitions (%zu runs): %.3f ms (median of %d; Extra-P 4.2.5: %g ms, not measured here: a figure of issue #18, "
	       "goal < %g ms); the sort and means alone %.3f ms (model / sort %.1fx)\n  %s\n",
	       what, REPS, n, model_ms, ROUNDS, extrap_ms, goal_ms, median(tb, ROUNDS),
	       model_ms / median(tb, ROUNDS), text);
}

#define SERIES 100
#define REGIONS 16
#define SP_P 10
#define SP_REPS 5

/* Every region of SERIES series modelled over p, each reduced from its
 * runs first; the median of ROUNDS passes over all of them. */
static void all_regions(struct sample *work)
{
	static const char *const names[] = {"p", "n"};
	size_t n = SP_P * SP_REPS, series, reg, i, r, k, models = 0;
	struct sample *s = malloc(n * sizeof(*s));
	double x[SP_P], y[SP_P], w[3 * SP_P], t[ROUNDS], t0, check = 0;
	struct ka_pmnf_model m;
	char text[256];
	int round, num, den, log;

	for (round = 0; round < ROUNDS; round++) {
		t0 = now_ms();
		for (series = 0; series < SERIES; series++)
			for (reg = 0; reg < REGIONS; reg++) {
				/* region (series, reg): c0 + c * pair(series * REGIONS + reg) */
				ka_pmnf_pair((int)((series * REGIONS + reg) % KA_PMNF_PAIRS), &num, &den,
					     &log);
				for (i = 0, k = 0; i < SP_P; i++)
					for (r = 0; r < SP_REPS; r++, k++) {
						double p = (double)(1u << i);

						s[k] = (struct sample){{p, 1}, (1 + 0.1 * (double)reg +
							0.01 * pow(p, (double)num / den) *
							pow(log2(p), log)) * (1 + 0.02 * noise())};
					}
				k = reduce(s, n, work, x, y, 1);
				ka_pmnf_single(x, y, k, w, &m);
				check += m.smape;
				models += round == 0;
			}
		t[round] = now_ms() - t0;
	}
	ka_pmnf_format(&m, names, text, sizeof(text));
	printf("every region of %d series (%zu models of %d p x %d repetitions, runs generated, "
	       "sorted and averaged each time): %.1f ms (median of %d; goal < 1000 ms); "
	       "mean cross-validated SMAPE %.3g %% (a checksum of the work)\n  the last: %s\n", SERIES, models, SP_P, SP_REPS,
	       median(t, ROUNDS), ROUNDS, check / (double)(models * ROUNDS), text);
	free(s);
}

/* --model-file F: the observations of F (lines p,value; at most 50 p)
 * reduced to their means and modelled in p, median ms of ROUNDS on one
 * line: the in-process side of tests/bench_http.py. */
static int model_file(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1024, n = 0, r, k;
	struct sample *s = malloc(cap * sizeof(*s)), *work;
	double x[100], y[50], w[150], t[ROUNDS], t0, p, v;
	struct ka_pmnf_model m;

	if (!f || !s)
		return 1;
	while (fscanf(f, "%lf,%lf", &p, &v) == 2) {
		if (n == cap && !(s = realloc(s, (cap *= 2) * sizeof(*s))))
			return 1;
		s[n++] = (struct sample){{p, 1}, v};
	}
	fclose(f);
	if (!(work = malloc(n * sizeof(*work))))
		return 1;
	for (r = 0; r < ROUNDS; r++) {
		t0 = now_ms();
		k = reduce(s, n, work, x, y, 1);
		if (k > 50)
			return 1;
		ka_pmnf_single(x, y, k, w, &m);
		t[r] = now_ms() - t0;
	}
	printf("%.3f\n", median(t, ROUNDS));
	free(s);
	free(work);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n1 = 50 * REPS, n2 = 49 * REPS, i, r, k;
	struct sample *s1, *s2, *work;

	if (argc == 3 && !strcmp(argv[1], "--model-file"))
		return model_file(argv[2]);
	s1 = malloc(n1 * sizeof(*s1));
	s2 = malloc(n2 * sizeof(*s2));
	work = malloc(n1 * sizeof(*work));

	for (i = 0, k = 0; i < 50; i++)
		for (r = 0; r < REPS; r++, k++) {
			double p = 4.0 * (double)(i + 1);

			s1[k] = (struct sample){{p, 1}, (2 + 0.01 * p * log2(p)) * (1 + 0.02 * noise())};
		}
	for (i = 0, k = 0; i < 49; i++)
		for (r = 0; r < REPS; r++, k++) {
			double p = (double)(1u << (i / 7 + 1)), n = 1000.0 * (double)(1 + i % 7);

			s2[k] = (struct sample){{p, n}, (1 + 1e-5 * n * log2(n) * sqrt(p)) *
							(1 + 0.02 * noise())};
		}
	timed(s1, n1, 1, work, "50 p", 77, 4);
	timed(s2, n2, 2, work, "7 x 7 (p, n)", 21, 1);
	all_regions(work);
	free(s1);
	free(s2);
	free(work);
	return 0;
}
