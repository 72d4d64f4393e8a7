/* A drawn report's options read by name (report.h): karted's query string,
 * karte's command line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "core/run.h"

/* base=P,N: the base point of an isoefficiency report. */
static int base_read(const char *s, struct report_opts *o, struct kerr *err)
{
	char *end;
	long long p = strtoll(s, &end, 10);

	if (end == s || *end != ',' || p < 1)
		return kerr_field(err, KERR_INVALID, "base", "base must be P,N such as base=10,39200");
	o->base_p = p;
	o->base_n = strtod(end + 1, &end);
	if (*end || !(o->base_n > 0) || !isfinite(o->base_n))
		return kerr_field(err, KERR_INVALID, "base", "base must be P,N such as base=10,39200");
	o->has_base = true;
	return 0;
}

int report_opts_read(field_text_fn *get, void *ctx, struct report_opts *o, struct kerr *err)
{
	int64_t width = CHART_WIDTH_DEFAULT, height = CHART_HEIGHT_DEFAULT, scale = 1;
	const struct field f[] = {
		{"tolerance", FIELD_NUMBER, 0, 0, HUGE_VAL, &o->iso.tol, 0},	/* first: auto skips it */
		{"width", FIELD_INTEGER, 0, CHART_SIZE_MIN, CHART_SIZE_MAX, &width, 0},
		{"height", FIELD_INTEGER, 0, CHART_SIZE_MIN, CHART_SIZE_MAX, &height, 0},
		{"scale", FIELD_INTEGER, 0, 1, CHART_SCALE_MAX, &scale, 0},
		{"c2_rtol", FIELD_NUMBER, 0, 0, HUGE_VAL, &o->iso.c2_rtol, 0},
		{"max_p", FIELD_NUMBER, 0, 2, 1e9, &o->max_p, 0},
		{"x_min", FIELD_NUMBER, 0, -HUGE_VAL, HUGE_VAL, &o->view[0], 0},
		{"x_max", FIELD_NUMBER, 0, -HUGE_VAL, HUGE_VAL, &o->view[1], 0},
		{"y_min", FIELD_NUMBER, 0, -HUGE_VAL, HUGE_VAL, &o->view[2], 0},
		{"y_max", FIELD_NUMBER, 0, -HUGE_VAL, HUGE_VAL, &o->view[3], 0},
	};
	static const char *const view[4] = {"x_min", "x_max", "y_min", "y_max"};
	size_t n = sizeof(f) / sizeof(f[0]);
	int i;

	*o = report_opts_default();
	for (i = 0; i < 4; i++)
		o->view[i] = NAN;
	const char *base = get(ctx, "base"), *tol = get(ctx, "tolerance");

	o->tol_auto = tol && !strcmp(tol, "auto");
	if (o->tol_auto && get(ctx, "c2_rtol"))
		return kerr_field(err, KERR_INVALID, "c2_rtol", "tolerance=auto sets c2_rtol from the "
				  "spread too; give one or the other");
	if (fields_get(get, ctx, NULL, f + o->tol_auto, n - o->tol_auto, err) ||
	    (base && base_read(base, o, err)))
		return -1;
	o->width = (double)width;
	o->height = (double)height;
	o->scale = (double)scale;
	/* the image in memory: width x height x scale^2 x 4 bytes, at most what
	 * 4000 x 4000 at scale 1 takes (64 MB) */
	if (o->width * o->height * o->scale * o->scale > (double)CHART_SIZE_MAX * CHART_SIZE_MAX)
		return kerr_field(err, KERR_TOO_LARGE, "scale", "width x height x scale^2 must not exceed "
				  "%d x %d device pixels", CHART_SIZE_MAX, CHART_SIZE_MAX);
	for (i = 0; i < 4; i++)
		o->has_view = o->has_view || !isnan(o->view[i]);
	for (i = 0; i < 4; i += 2)
		if (!isnan(o->view[i]) && !isnan(o->view[i + 1]) && !(o->view[i + 1] > o->view[i]))
			return kerr_field(err, KERR_INVALID, view[i + 1], "%s must be above %s", view[i + 1],
					  view[i]);
	return 0;
}

int report_regions_read(json_t *jr, struct ka_region_model *m, const char **names, struct kerr *err)
{
	char prefix[32];
	json_t *reg;
	size_t i;

	json_array_foreach(jr, i, reg) {
		const struct field f[] = {
			{"name", FIELD_TEXT, FIELD_REQUIRED, 1, RUN_NAME_MAX, &names[i], 0},
			{"alpha_p", FIELD_NUMBER, FIELD_REQUIRED, -HUGE_VAL, HUGE_VAL, &m[i].alpha_p, 0},
			{"beta_on", FIELD_NUMBER, FIELD_REQUIRED, -HUGE_VAL, HUGE_VAL, &m[i].beta_on, 0},
			{"f_opt", FIELD_NUMBER, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL, &m[i].f_opt, 0},
			{"power_std_w", FIELD_NUMBER, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL,
			 &m[i].power_std, 0},
			{"power_opt_w", FIELD_NUMBER, FIELD_REQUIRED | FIELD_ABOVE_LO, 0, HUGE_VAL,
			 &m[i].power_opt, 0},
			{"time_std_s", FIELD_NUMBER, FIELD_REQUIRED, 0, HUGE_VAL, &m[i].time_std, 0},
		};

		snprintf(prefix, sizeof(prefix), "regions[%zu].", i);
		if (fields_in(reg, prefix, (long)i, FIELDS(f), true, err))
			return -1;
	}
	return 0;
}
