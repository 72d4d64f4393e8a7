/* Unit tests of chart (server/render/chart.c): tick labels and legends write
 * numbers as a paper would; an SVG holds every marker of its layers as a
 * <use> at the pixel the frame maps its data to; a view narrows the axes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "render/chart.h"
#include "render/report.h"

static void check(double v, const char *want)
{
	char buf[64];

	chart_number(v, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_numbers(void **state)
{
	(void)state;
	check(0, "0");
	check(25, "25");
	check(0.5, "0.5");
	check(-0.5, "\xe2\x88\x92" "0.5");		/* a real minus sign */
	check(9999, "9999");
	check(39200, "39\xe2\x80\x89" "200");		/* a thin space between thousands */
	check(80000, "80\xe2\x80\x89" "000");
	check(1e6, "10\xe2\x81\xb6");			/* 10⁶ */
	check(1.2e6, "1.2\xc3\x97" "10\xe2\x81\xb6");	/* 1.2×10⁶ */
	check(1e-4, "10\xe2\x81\xbb\xe2\x81\xb4");	/* 10⁻⁴ */
	check(2.5e-4, "2.5\xc3\x97" "10\xe2\x81\xbb\xe2\x81\xb4");
	check(-1e5, "\xe2\x88\x92" "10\xe2\x81\xb5");
	check(1e12, "10\xc2\xb9\xc2\xb2");		/* 10¹² */
	check(1e-3, "0.001");
}

static size_t count(const char *hay, size_t len, const char *needle)
{
	size_t n = 0, k = strlen(needle);
	const char *at = hay, *hit;

	while ((hit = memmem(at, len - (size_t)(at - hay), needle, k))) {
		n++;
		at = hit + k;
	}
	return n;
}

/* Two markers layers, one point off the plane (log axis, x <= 0), one far
 * outside a fixed range: the SVG has a <use> for each drawable point, at
 * the pixel the frame maps it to, no placeholder left, in drawing order. */
static void test_svg_markers_where_the_frame_says(void **state)
{
	static const double x1[] = {1, 10, 100, 0}, y1[] = {1, 10, 100, 5};
	static const double x2[] = {3, 1e9}, y2[] = {30, 30};
	struct chart_layer layers[2] = {
		{.kind = LAYER_MARKERS, .x = x1, .y = y1, .n = 4, .color = {0, 0.45, 0.7},
		 .marker = MARK_CIRCLE, .size = 3.5},
		{.kind = LAYER_MARKERS, .x = x2, .y = y2, .n = 2, .color = {0.9, 0.6, 0},
		 .marker = MARK_STAR, .size = 4},
	};
	struct chart_panel panel = {.title = "t", .x = {"x", true, 0.5, 200, NULL, 0},
				    .y = {"y", true, 0.5, 200, NULL, 0}, .layers = layers,
				    .nlayers = 2};
	struct chart_spec spec = {.title = "test", .width = 400, .height = 300, .panels = &panel, .npanels = 1};
	struct chart_frame fr;
	struct kerr err;
	char *svg, want[128], *json;
	size_t len;
	double px, py;

	(void)state;
	assert_int_equal(chart_render(&spec, CHART_SVG, &svg, &len, &fr, &err), 0);
	assert_true(fr.drawn && fr.xlog && fr.ylog);
	assert_true(fabs(fr.xmin - 0.5) < 1e-12 && fabs(fr.xmax - 200) < 1e-12);
	assert_int_equal(count(svg, len, "12.5%"), 0);		/* no placeholder left */
	assert_int_equal(count(svg, len, "xlink:href=\"#karte-m0\""), 3);	/* x = 0 left out */
	assert_int_equal(count(svg, len, "xlink:href=\"#karte-m1\""), 1);	/* 1e9: off the plot */
	/* (10, 10): the frame's map, to a tenth of a pixel */
	px = fr.left + (log10(10) - log10(fr.xmin)) / (log10(fr.xmax) - log10(fr.xmin)) *
		       (fr.right - fr.left);
	py = fr.bottom - (log10(10) - log10(fr.ymin)) / (log10(fr.ymax) - log10(fr.ymin)) *
			 (fr.bottom - fr.top);
	snprintf(want, sizeof(want), "x=\"%g\" y=\"%g\"", round(px * 10) / 10, round(py * 10) / 10);
	assert_int_equal(count(svg, len, want), 1);
	assert_true(memmem(svg, len, "karte-m0", 8) < memmem(svg, len, "karte-m1", 8));
	json = chart_frames_json(&spec, &fr);
	/* 0.5 ... 200 on a log axis: labelled 1, 2, 5 in each decade */
	assert_non_null(strstr(json, "\"x\":{\"log\":true,\"min\":0.5,\"max\":200,"
			       "\"ticks\":[0.5,1,2,5,10,20,50,100,200]}"));
	assert_non_null(strstr(json, "\"legend\":[]"));
	free(json);
	free(svg);
	/* PNG and PDF draw from the same frame */
	assert_int_equal(chart_render(&spec, CHART_PNG, &svg, &len, &fr, &err), 0);
	assert_true(fr.drawn && fabs(fr.xmax - 200) < 1e-12);
	free(svg);
}

/* A view narrows the fitted axes of the tau-chi plane; a bound at or
 * below 0 on a log axis is left to the data. */
static void test_view(void **state)
{
	struct ka_run runs[4] = {{1, 1, 100, 10, 2}, {2, 2, 100, 6, 2}, {3, 1, 200, 20, 3},
				 {4, 2, 200, 11, 3}};
	struct report_series s = {.name = "a:b", .runs = runs, .nruns = 4};
	struct report_opts o = report_opts_default();
	struct chart_frame fr;
	struct report *rep;
	struct kerr err;
	char *out;
	size_t len;

	(void)state;
	o.has_view = true;
	o.view[0] = 5;
	o.view[1] = 12;
	o.view[2] = -1;	/* log axis: ignored */
	o.view[3] = NAN;
	rep = report_build(REPORT_ISOEFFICIENCY, &s, 1, &o);
	assert_int_equal(chart_render(report_spec(rep), CHART_PNG, &out, &len, &fr, &err), 0);
	assert_true(fabs(fr.xmin - 5) < 1e-12 && fabs(fr.xmax - 12) < 1e-12);
	assert_true(fr.ymin > 1 && fr.ymin < 2 && fr.ymax > 3);	/* fitted to chi 2..3 */
	free(out);
	report_free(rep);
}

struct png_read {
	const char *at;
	size_t left;
};

static cairo_status_t png_chunk(void *closure, unsigned char *data, unsigned int length)
{
	struct png_read *r = closure;

	if (length > r->left)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, r->at, length);
	r->at += length;
	r->left -= length;
	return CAIRO_STATUS_SUCCESS;
}

/* A model's curve and band are soft: on a log axis they widen the range a
 * decade either side of the data at most (a model that dives to 1e-6 or
 * climbs to 1e6 leaves the measurements their room), and a band whose
 * lower edge is at or below 0 is drawn down to the axis, not left out. */
static void test_soft_layers_and_bands_below_a_log_axis(void **state)
{
	static const double x[] = {1, 2, 4, 8}, y[] = {1, 2, 4, 10};
	static const double cx[] = {1, 2, 4, 8, 16}, cy[] = {1e-6, 2, 4, 10, 1e6};
	static const double hi[] = {3, 3, 3, 3, 3}, lo[] = {-1, -1, -1, -1, -1};
	struct chart_layer layers[3] = {
		{.kind = LAYER_AREA, .x = cx, .y = hi, .y0 = lo, .n = 5, .color = {0.8, 0, 0},
		 .alpha = 1, .soft = true},
		{.kind = LAYER_LINE, .x = cx, .y = cy, .n = 5, .color = {0, 0, 0}, .soft = true},
		{.kind = LAYER_MARKERS, .x = x, .y = y, .n = 4, .color = {0, 0.45, 0.7},
		 .marker = MARK_CIRCLE, .size = 3.5},
	};
	struct chart_panel panel = {.title = "t", .x = {"x", true, NAN, NAN, NULL, 0},
				    .y = {"y", true, NAN, NAN, NULL, 0}, .layers = layers,
				    .nlayers = 3};
	struct chart_spec spec = {.title = "test", .width = 400, .height = 300, .panels = &panel, .npanels = 1};
	struct chart_frame fr;
	struct kerr err;
	struct png_read rd;
	cairo_surface_t *img;
	unsigned char *px;
	char *png;
	size_t len;
	int stride, xm, yb;
	uint32_t v;

	(void)state;
	assert_int_equal(chart_render(&spec, CHART_PNG, &png, &len, &fr, &err), 0);
	assert_true(fr.ylog && fr.ymin >= 0.1 / 1.5 && fr.ymin < 1 && fr.ymax > 10 && fr.ymax <= 100 * 1.5);
	/* the band's red down to the plot's bottom edge, halfway across */
	rd = (struct png_read){png, len};
	img = cairo_image_surface_create_from_png_stream(png_chunk, &rd);
	assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
	px = cairo_image_surface_get_data(img);
	stride = cairo_image_surface_get_stride(img);
	xm = (int)((fr.left + fr.right) / 2);
	yb = (int)fr.bottom - 3;
	memcpy(&v, px + (size_t)yb * (size_t)stride + (size_t)xm * 4, 4);
	assert_true(((v >> 16) & 0xff) > 180 && ((v >> 8) & 0xff) < 60 && (v & 0xff) < 60);
	cairo_surface_destroy(img);
	free(png);
	/* hard, the same curve takes the axis to 1e-6 */
	layers[1].soft = false;
	assert_int_equal(chart_render(&spec, CHART_PNG, &png, &len, &fr, &err), 0);
	assert_true(fr.ymin < 1e-5);
	free(png);
}

/* The placeholders of marker layers in both forms Cairo writes fills
 * (chart.h), in SVG written here in each form's shape; nothing else
 * counts (a stroke, a group, another colour, a fill without a path). */
static int placeholders(const char *svg, size_t *first_start, size_t *first_stop)
{
	size_t at = 0, s, e, n = 0, len = strlen(svg);

	while (chart_svg_placeholder(svg + at, len - at, &s, &e)) {
		if (!n) {
			*first_start = at + s;
			*first_stop = at + e;
		}
		n++;
		at += e;
	}
	return (int)n;
}

static void test_svg_placeholders_of_both_cairos(void **state)
{
	/* Cairo 1.16: fills in a style attribute */
	static const char old[] =
		"<g clip-path=\"url(#clip-1)\">\n"
		"<path style=\"fill:none;stroke-width:1;stroke:rgb(12.5%,25%,37.5%);\" d=\"M 1 1 L 2 2\"/>\n"
		"<path style=\" stroke:none;fill-rule:nonzero;fill:rgb(12.5%,25%,37.5%);fill-opacity:1;\" "
		"d=\"M 63 67 L 63.5 67 L 63.5 67.5 L 63 67.5 Z M 63 67 \"/>\n"
		"<path style=\" stroke:none;fill-rule:nonzero;fill:rgb(12.5%,25%,37.6%);fill-opacity:1;\" d=\"M 0 0\"/>\n"
		"<path style=\" stroke:none;fill-rule:nonzero;fill:rgb(12.5%,25%,37.5%);fill-opacity:1;\" "
		"d=\"M 80 90 L 80.5 90 L 80.5 90.5 L 80 90.5 Z M 80 90 \"/>\n</g>\n";
	/* Cairo >= 1.17.6 (1.18 in Debian 13, Ubuntu 24.04): presentation attributes with spaces */
	static const char new[] =
		"<g fill=\"rgb(12.5%, 25%, 37.5%)\" fill-opacity=\"1\">\n"
		"<use xlink:href=\"#glyph-0-1\" x=\"10\" y=\"20\"/>\n</g>\n"
		"<path fill=\"none\" stroke-width=\"1\" stroke=\"rgb(12.5%, 25%, 37.5%)\" d=\"M 1 1 L 2 2\"/>\n"
		"<path fill-rule=\"nonzero\" fill=\"rgb(12.5%, 25%, 37.5%)\" fill-opacity=\"1\" "
		"d=\"M 63 67 L 63.5 67 L 63.5 67.5 L 63 67.5 Z M 63 67 \"/>\n"
		"<path fill-rule=\"nonzero\" fill=\"rgb(10%, 10%, 10%)\" fill-opacity=\"1\" d=\"M 0 0\"/>\n"
		"<path fill-rule=\"nonzero\" fill=\"rgb( 12.50% ,25.0%, 37.5% )\" fill-opacity=\"1\" "
		"d=\"M 80 90 Z\"/>\n";
	size_t s = 0, e = 0;

	(void)state;
	assert_int_equal(placeholders(old, &s, &e), 2);
	assert_memory_equal(old + s, "<path style=\" stroke:none;fill-rule:nonzero;fill:rgb(12.5%", 58);
	assert_memory_equal(old + e - 4, " \"/>", 4);
	assert_int_equal(placeholders(new, &s, &e), 2);
	assert_memory_equal(new + s, "<path fill-rule=\"nonzero\" fill=\"rgb(12.5%, 25%, 37.5%)\"", 55);
	assert_memory_equal(new + e - 4, " \"/>", 4);
	assert_int_equal(placeholders("<rect fill=\"rgb(12.5%, 25%, 37.5%)\"/>", &s, &e), 0);
	assert_int_equal(placeholders("", &s, &e), 0);
}

/* The real files (KARTE_EXTERNAL_DATA, as shared/external-data is laid
 * out): the SVG both Cairos wrote for one chart with two marker layers
 * holds two placeholders each. */
static void test_svg_placeholders_of_real_cairo_files(void **state)
{
	const char *dir = getenv("KARTE_EXTERNAL_DATA"), *names[2] = {"cairo-1.16.0.svg", "cairo-1.17.9.svg"};
	char path[4096], *buf;
	size_t i, n, s, e;
	FILE *f;

	(void)state;
	if (!dir || !*dir) {
		print_message("# skipped: KARTE_EXTERNAL_DATA is not set (the real Cairo SVG files)\n");
		return;
	}
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/cairo-svg/%s", dir, names[i]);
		f = fopen(path, "rb");
		assert_non_null(f);
		buf = calloc(1, 1 << 20);
		n = fread(buf, 1, (1 << 20) - 1, f);
		fclose(f);
		assert_true(n > 0);
		assert_int_equal(placeholders(buf, &s, &e), 2);
		print_message("# %s: 2 placeholders found\n", names[i]);
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_svg_markers_where_the_frame_says),
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_soft_layers_and_bands_below_a_log_axis),
		cmocka_unit_test(test_svg_placeholders_of_both_cairos),
		cmocka_unit_test(test_svg_placeholders_of_real_cairo_files),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("chart", tests, NULL, NULL);
}
