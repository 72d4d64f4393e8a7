/*
 * make bench, part 3: rendering the tau-chi isoefficiency SVG of 10,000 runs
 * (report build + Cairo/Pango render), beside bare Cairo drawing the same
 * number of markers as plain paths into an SVG surface of the same size, in
 * the same process. Medians of ROUNDS.
 */
#include <cairo-svg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/chart.h"
#include "render/report.h"
#include "core/mono.h"

#define ROUNDS 7
#define SIDE 100

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void series(struct ka_run *r)
{
	size_t k = 0;
	int i, j;

	for (i = 0; i < SIDE; i++)
		for (j = 0; j < SIDE; j++) {
			double p = 1 + j, n = 1e4 * pow(1.08, i);

			r[k] = (struct ka_run){(int64_t)k, (int64_t)p, n,
					       n * 1e-5 / p + 0.02 * sqrt(p), 0.02 * sqrt(p)};
			k++;
		}
}

static cairo_status_t discard(void *c, const unsigned char *d, unsigned int n)
{
	(void)d;
	*(size_t *)c += n;
	return CAIRO_STATUS_SUCCESS;
}

/* One render of the chart (report build and Cairo/Pango), seconds. */
static double render_once(struct ka_run *runs, double *build, size_t *len)
{
	struct report_opts o = report_opts_default();
	struct report_series s = {"bench:md", runs, SIDE * SIDE, NULL, NULL, 0, 0, NULL, NULL, 0};
	struct report *rep;
	struct kerr err;
	char *svg;
	double t0;

	series(runs);
	t0 = mono_s();
	rep = report_build(REPORT_ISOEFFICIENCY, &s, 1, &o);
	if (build)
		*build = mono_s() - t0;
	if (chart_render(report_spec(rep), CHART_SVG, &svg, len, NULL, &err))
		exit(1);
	t0 = mono_s() - t0;
	report_free(rep);
	free(svg);
	return t0;
}

/* --serve: after a warm-up, one render per line of standard input, its
 * milliseconds on a line of standard output, so that a script can
 * alternate it with another renderer round by round (tests/bench_render.py). */
static int serve(struct ka_run *runs)
{
	char line[64];
	size_t len;

	render_once(runs, NULL, &len);
	while (fgets(line, sizeof(line), stdin)) {
		printf("%.3f\n", render_once(runs, NULL, &len) * 1e3);
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct ka_run runs[SIDE * SIDE];
	double ours[ROUNDS], build[ROUNDS], bare[ROUNDS], t0;
	size_t len = 0, bare_len = 0;
	int k, i;

	if (argc > 1 && !strcmp(argv[1], "--serve"))
		return serve(runs);

	for (k = 0; k < ROUNDS; k++) {
		ours[k] = render_once(runs, &build[k], &len);
		t0 = mono_s();
		{
			cairo_surface_t *surf;
			cairo_t *cr;

			bare_len = 0;
			surf = cairo_svg_surface_create_for_stream(discard, &bare_len, 800, 600);
			cr = cairo_create(surf);
			for (i = 0; i < SIDE * SIDE; i++) {
				cairo_new_path(cr);
				cairo_arc(cr, 60 + (i % SIDE) * 6.5, 40 + (i / SIDE) * 5.0, 3.5, 0,
					  2 * M_PI);
				cairo_set_source_rgb(cr, 0.2, 0.4, 0.6);
				cairo_fill(cr);
			}
			cairo_destroy(cr);
			cairo_surface_destroy(surf);
		}
		bare[k] = mono_s() - t0;
	}
	qsort(ours, ROUNDS, sizeof(double), cmp_double);
	qsort(bare, ROUNDS, sizeof(double), cmp_double);
	qsort(build, ROUNDS, sizeof(double), cmp_double);
	printf("isoefficiency SVG of 10,000 runs, render step: %.1f ms (%zu bytes; of it the report "
	       "build, pooling and analysis, %.1f ms); bare Cairo, 10,000 filled circles: %.1f ms "
	       "(%zu bytes); ratio %.2f\n", ours[ROUNDS / 2] * 1e3, len, build[ROUNDS / 2] * 1e3,
	       bare[ROUNDS / 2] * 1e3, bare_len, ours[ROUNDS / 2] / bare[ROUNDS / 2]);
	return len < 1000000 ? 0 : 1;
}
