#include "chart.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <ctype.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <pixman.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

#define FONT "DejaVu Sans"
#define TEXT_PT 9.0		/* tick labels, legend */
#define TITLE_PT 12.0

struct rgb chart_palette(size_t i)
{
	static const struct rgb okabe_ito[] = {
		{0.000, 0.447, 0.698}, /* blue */
		{0.835, 0.369, 0.000}, /* vermillion */
		{0.000, 0.620, 0.451}, /* bluish green */
		{0.800, 0.475, 0.655}, /* reddish purple */
		{0.902, 0.624, 0.000}, /* orange */
		{0.337, 0.706, 0.914}, /* sky blue */
		{0.941, 0.894, 0.259}, /* yellow */
		{0.000, 0.000, 0.000}, /* black */
	};

	return okabe_ito[i % (sizeof(okabe_ito) / sizeof(okabe_ito[0]))];
}

struct rgb chart_ramp(double t)
{
	/* viridis at 5 stops, interpolated: dark purple .. yellow, monotone in lightness */
	static const struct rgb stops[] = {
		{0.267, 0.005, 0.329}, {0.231, 0.322, 0.545}, {0.129, 0.569, 0.549},
		{0.369, 0.788, 0.384}, {0.992, 0.906, 0.145},
	};
	double s;
	size_t i;

	if (!(t > 0))
		t = 0;
	if (t > 1)
		t = 1;
	s = t * 4;
	i = s >= 4 ? 3 : (size_t)s;
	s -= (double)i;
	return (struct rgb){stops[i].r + s * (stops[i + 1].r - stops[i].r),
			    stops[i].g + s * (stops[i + 1].g - stops[i].g),
			    stops[i].b + s * (stops[i + 1].b - stops[i].b)};
}

/* ---- text ------------------------------------------------------------------ */

enum anchor { A_LEFT = 0, A_CENTER = 1, A_RIGHT = 2 };

/* Lay out text (plain, never markup: user data cannot change the layout),
 * ellipsized to max_w px when max_w > 0. */
static PangoLayout *layout(cairo_t *cr, const char *text, double pt, bool bold, double max_w)
{
	PangoLayout *l = pango_cairo_create_layout(cr);
	PangoFontDescription *fd = pango_font_description_from_string(FONT);

	pango_font_description_set_absolute_size(fd, pt * PANGO_SCALE * 96.0 / 72.0);
	if (bold)
		pango_font_description_set_weight(fd, PANGO_WEIGHT_BOLD);
	pango_layout_set_font_description(l, fd);
	pango_font_description_free(fd);
	if (g_utf8_validate(text, -1, NULL)) {
		pango_layout_set_text(l, text, -1);
	} else {	/* a name cut inside a character, or bytes from a file */
		gchar *valid = g_utf8_make_valid(text, -1);

		pango_layout_set_text(l, valid, -1);
		g_free(valid);
	}
	if (max_w > 0) {
		pango_layout_set_width(l, (int)(max_w * PANGO_SCALE));
		pango_layout_set_ellipsize(l, PANGO_ELLIPSIZE_END);
	}
	return l;
}

static void text_size(cairo_t *cr, const char *text, double pt, bool bold, double *w, double *h)
{
	PangoLayout *l = layout(cr, text, pt, bold, 0);
	int iw, ih;

	pango_layout_get_pixel_size(l, &iw, &ih);
	*w = iw;
	*h = ih;
	g_object_unref(l);
}

/* Draw text with its box anchored at (x, y): horizontally by a, vertically
 * centred when vcenter, else from the top. rot: radians. */
static void text(cairo_t *cr, const char *s, double x, double y, enum anchor a, bool vcenter,
		 double pt, bool bold, double max_w, double rot, struct rgb c)
{
	PangoLayout *l = layout(cr, s, pt, bold, max_w);
	int w, h;

	pango_layout_get_pixel_size(l, &w, &h);
	cairo_save(cr);
	cairo_translate(cr, x, y);
	cairo_rotate(cr, rot);
	cairo_move_to(cr, -(double)a * w / 2, vcenter ? -h / 2.0 : 0);
	cairo_set_source_rgb(cr, c.r, c.g, c.b);
	pango_cairo_show_layout(cr, l);
	cairo_restore(cr);
	g_object_unref(l);
}

static const struct rgb INK = {0.1, 0.1, 0.1}, GRID = {0.88, 0.88, 0.88};

/* A panel's note, under its legend: wrapped at max_w px onto two lines at
 * most, the second ellipsized. *lines: how many it takes. */
static PangoLayout *note_layout(cairo_t *cr, const char *note, double max_w, int *lines)
{
	PangoLayout *l = layout(cr, note, TEXT_PT * 0.9, false, max_w);

	pango_layout_set_wrap(l, PANGO_WRAP_WORD);
	pango_layout_set_height(l, -2);	/* negative: lines, not Pango units */
	*lines = pango_layout_get_line_count(l);
	return l;
}

/* ---- axes -------------------------------------------------------------------- */

struct scale {
	bool log;
	double lo, hi;		/* data range shown */
	double p0, p1;		/* pixel range (p0 at lo) */
};

static double map(const struct scale *s, double v)
{
	double t = s->log ? (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo)) :
			    (v - s->lo) / (s->hi - s->lo);

	return s->p0 + t * (s->p1 - s->p0);
}

static bool usable(const struct scale *s, double v)
{
	return isfinite(v) && (!s->log || v > 0);
}

/* The data range of the layers along one axis (x or y), padded. */
static void auto_range(const struct chart_panel *p, bool x_axis, const struct chart_axis *ax,
		       double *lo, double *hi)
{
	double mn = INFINITY, mx = -INFINITY, near_lo = -INFINITY, near_hi = INFINITY;
	size_t i, j;
	int pass;

	/* the data first, then the soft layers (models) near it; soft layers
	 * alone (no data) set the range themselves */
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1 && isfinite(mn) && !x_axis) {
			if (ax->log) {
				near_lo = mn / 10;
				near_hi = mx * 10;
			} else {
				near_lo = mn - (mx - mn);
				near_hi = mx + (mx - mn);
			}
		}
		for (i = 0; i < p->nlayers; i++) {
			const struct chart_layer *l = &p->layers[i];

			if (l->kind == LAYER_RAY || l->soft != (pass == 1))
				continue;
			for (j = 0; j < l->n; j++) {
				double v[2] = {x_axis ? l->x[j] : l->y[j],
					       !x_axis && l->y0 ? l->y0[j] : NAN};
				int k;

				for (k = 0; k < 2; k++) {
					if (!isfinite(v[k]) || (ax->log && !(v[k] > 0)) ||
					    v[k] < near_lo || v[k] > near_hi)
						continue;
					mn = fmin(mn, v[k]);
					mx = fmax(mx, v[k]);
				}
			}
		}
	}
	if (!isfinite(mn)) {
		mn = ax->log ? 1 : 0;
		mx = ax->log ? 10 : 1;
	}
	if (ax->log) {
		double a = log10(mn), b = log10(mx), pad = fmax((b - a) * 0.06, 0.04);

		mn = pow(10, a - pad);
		mx = pow(10, b + pad);
	} else {
		double pad = (mx - mn) * 0.06;
		bool positive = mn >= 0;	/* no data below 0: the axis neither */

		if (pad == 0)	/* one value: a tenth of it either side */
			pad = mx != 0 ? fabs(mx) * 0.1 : 0.5;
		mn -= pad;
		mx += pad;
		if (positive && mn < 0)
			mn = 0;	/* positive data: never below zero, and still inside */
	}
	*lo = isfinite(ax->min) ? ax->min : mn;
	*hi = isfinite(ax->max) ? ax->max : mx;
	if (!(*hi > *lo))
		*hi = *lo + (ax->log ? *lo * 9 : 1);
}

/* Tick values for an axis: major (labelled) and minor. */
struct ticks {
	double major[64], minor[256];
	size_t nmajor, nminor;
};

static void log_ticks(double lo, double hi, struct ticks *t)
{
	int k0 = (int)floor(log10(lo)), k1 = (int)ceil(log10(hi)), k;
	double span = log10(hi) - log10(lo);
	static const int labelled[] = {1, 2, 5};
	int m;

	t->nmajor = t->nminor = 0;
	for (k = k0; k <= k1 && t->nmajor < 60; k++) {
		for (m = 1; m <= 9; m++) {
			double v = m * pow(10, k);
			/* under three decades a power of ten alone may label only two
			 * ticks: 2 and 5 are labelled too */
			bool major = m == 1 || (span < 3 && (m == labelled[1] || m == labelled[2]));

			if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9))
				continue;
			if (major && t->nmajor < 64)
				t->major[t->nmajor++] = v;
			else if (span <= 7 && t->nminor < 256)
				t->minor[t->nminor++] = v;
		}
	}
}

/* Nice steps (1, 2, 5 x 10^k), about as many as fit: at most max_ticks. */
static void lin_ticks(double lo, double hi, struct ticks *t, double max_ticks)
{
	double raw = (hi - lo) / fmax(2, fmin(6, max_ticks)), mag = pow(10, floor(log10(raw))), step, v;

	step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
	t->nmajor = t->nminor = 0;
	for (v = ceil(lo / step) * step; v <= hi + step * 1e-9 && t->nmajor < 64; v += step)
		t->major[t->nmajor++] = fabs(v) < step * 1e-9 ? 0 : v;
	for (v = ceil(lo / (step / 2)) * (step / 2); v <= hi && t->nminor < 256; v += step / 2)
		t->minor[t->nminor++] = v;
}

/* Linear steps on a log axis crowd at its top and leave its foot bare
 * (2.2 ... 12 labelled 4, 6, ... 12): below the lowest label, labels at half
 * the step while each stays min_px from the one above it. */
static void log_foot(double lo, double px_per_decade, struct ticks *t, double min_px)
{
	double half, v;

	if (t->nmajor < 2)
		return;
	half = (t->major[1] - t->major[0]) / 2;
	for (v = t->major[0] - half; v >= lo && v > 0 && t->nmajor < 64; v -= half) {
		if (px_per_decade * log10(t->major[0] / v) < min_px)
			break;
		memmove(t->major + 1, t->major, t->nmajor * sizeof(*t->major));
		t->major[0] = v;
		t->nmajor++;
	}
}

/* e in superscript digits (plain UTF-8: no markup, so nothing a user
 * posted can change a layout): "⁻⁴". */
static void superscript(int e, char *buf, size_t size)
{
	static const char *const digit[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
	char dec[16], *d;

	snprintf(dec, sizeof(dec), "%d", e);
	buf[0] = '\0';
	for (d = dec; *d; d++)
		strncat(buf, *d == '-' ? "⁻" : digit[*d - '0'], size - strlen(buf) - 1);
}

void chart_number(double v, char *buf, size_t size)
{
	char sup[40];

	if (!isfinite(v)) {
		snprintf(buf, size, "%g", v);
	} else if (v != 0 && (fabs(v) >= 1e5 || fabs(v) < 1e-3)) {
		int e = (int)floor(log10(fabs(v)) + 1e-9);
		double m = v / pow(10, e);

		superscript(e, sup, sizeof(sup));
		if (fabs(fabs(m) - 1) < 1e-9)
			snprintf(buf, size, "%s10%s", m < 0 ? "−" : "", sup);
		else
			snprintf(buf, size, "%.3g×10%s", m, sup);
	} else if (fabs(v) >= 1e4 && v == floor(v)) {
		long long i = (long long)fabs(v);	/* 39 200: a thin space between thousands */

		snprintf(buf, size, "%s%lld\xe2\x80\x89%03lld", v < 0 ? "−" : "", i / 1000, i % 1000);
	} else {
		snprintf(buf, size, "%s%g", v < 0 ? "−" : "", fabs(v));	/* a real minus sign */
	}
}

/* ---- markers ------------------------------------------------------------------ */

static void marker_path(cairo_t *cr, enum chart_marker m, double r)
{
	int i;

	switch (m) {
	case MARK_SQUARE:
		cairo_rectangle(cr, -r * 0.85, -r * 0.85, r * 1.7, r * 1.7);
		break;
	case MARK_TRIANGLE:
		cairo_move_to(cr, 0, -r * 1.1);
		cairo_line_to(cr, r, r * 0.75);
		cairo_line_to(cr, -r, r * 0.75);
		cairo_close_path(cr);
		break;
	case MARK_DIAMOND:
		cairo_move_to(cr, 0, -r * 1.2);
		cairo_line_to(cr, r, 0);
		cairo_line_to(cr, 0, r * 1.2);
		cairo_line_to(cr, -r, 0);
		cairo_close_path(cr);
		break;
	case MARK_RING:
		cairo_arc(cr, 0, 0, r * 1.6, 0, 2 * M_PI);
		break;
	case MARK_CROSS:
		cairo_move_to(cr, -r, -r);
		cairo_line_to(cr, r, r);
		cairo_move_to(cr, -r, r);
		cairo_line_to(cr, r, -r);
		break;
	case MARK_STAR:
	case MARK_STAR_OPEN:
		for (i = 0; i < 10; i++) {
			double a = -M_PI / 2 + i * M_PI / 5, rr = i % 2 ? r * 0.5 : r * 1.3;

			if (i == 0)
				cairo_move_to(cr, rr * cos(a), rr * sin(a));
			else
				cairo_line_to(cr, rr * cos(a), rr * sin(a));
		}
		cairo_close_path(cr);
		break;
	default:
		cairo_arc(cr, 0, 0, r, 0, 2 * M_PI);
		break;
	}
}

/* Markers drawn as an outline only, and the width of their stroke. */
static bool outline(enum chart_marker m)
{
	return m == MARK_CROSS || m == MARK_RING || m == MARK_STAR_OPEN;
}

static double outline_width(enum chart_marker m)
{
	return m == MARK_CROSS ? 1.6 : m == MARK_RING ? 1.3 : 1.1;
}

static void marker_paint(cairo_t *cr, enum chart_marker m, double r, struct rgb c, double alpha)
{
	cairo_new_path(cr);	/* text leaves a current point; an arc would join it */
	marker_path(cr, m, r);
	if (outline(m)) {
		cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha ? alpha : 1);
		cairo_set_line_width(cr, outline_width(m));
		cairo_stroke(cr);
		return;
	}
	cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha ? alpha : 1);
	cairo_fill_preserve(cr);
	cairo_set_source_rgba(cr, c.r * 0.5, c.g * 0.5, c.b * 0.5, alpha ? alpha : 1);
	cairo_set_line_width(cr, 0.6);
	cairo_stroke(cr);
}

/* Half the side of a marker's stamp, px: room for the marker and its outline. */
static double stamp_half(double r)
{
	return ceil(r * 1.5 + 1);
}

/* One marker drawn once; stamped for every point (see the header). The
 * stamp's extents start at (0, 0), the marker centred in them: Cairo's SVG
 * writer places the clip of a recording surface at (0, 0) whatever its
 * origin, so a stamp centred on (0, 0) showed its lower-right quarter only,
 * shifted by half its size, in every browser. */
static cairo_surface_t *marker_stamp(enum chart_marker m, double r, struct rgb c, double alpha)
{
	double e = stamp_half(r);
	cairo_surface_t *s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA,
							     &(cairo_rectangle_t){0, 0, 2 * e, 2 * e});
	cairo_t *cr = cairo_create(s);

	cairo_translate(cr, e, e);
	marker_paint(cr, m, r, c, alpha);
	cairo_destroy(cr);
	return s;
}

/* ---- layers ---------------------------------------------------------------------- */

static void set_dash(cairo_t *cr, enum chart_dash d, double w)
{
	static const double dashed[] = {6, 4};
	double dotted[] = {0.1, w * 2.2}, dashdot[] = {7, 3, 0.1, 3};

	if (d == DASH_DASHED)
		cairo_set_dash(cr, dashed, 2, 0);
	else if (d == DASH_DOTTED)
		cairo_set_dash(cr, dotted, 2, 0);
	else if (d == DASH_DASHDOT)
		cairo_set_dash(cr, dashdot, 4, 0);
	else
		cairo_set_dash(cr, NULL, 0, 0);
	cairo_set_line_cap(cr, d == DASH_DOTTED || d == DASH_DASHDOT ? CAIRO_LINE_CAP_ROUND
								      : CAIRO_LINE_CAP_BUTT);
}

static void source(cairo_t *cr, struct rgb c, double alpha)
{
	cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha ? alpha : 1);
}

/* Round to 1/100 px: shorter SVG, no visible difference. */
static double px(double v)
{
	return round(v * 100) / 100;
}

/* ---- markers in SVG, written by karte ----------------------------------------------
 * Cairo's SVG writer spends most of a large chart printing the six numbers
 * of each stamped marker's transform. In an SVG, a markers layer is
 * therefore drawn as a placeholder, a tiny fill in a colour nothing else
 * uses, and written by svg_marks_splice() in its place once Cairo is done:
 * the marker's path once in <defs> (Cairo's own path of it, so every format
 * shows the same shape) and a <use x y> for every point, positions in tenths
 * of a pixel. The placeholder sits where the layer was drawn, inside the
 * plot's clip group, so the order of layers and the clip are Cairo's. */

struct mark_batch {
	enum chart_marker m;
	double r, alpha;
	struct rgb c;
	int32_t *xy;	/* tenths of a px, x then y */
	size_t n;
	double clip[4];	/* the plot: left, top, right, bottom, px */
};

struct svg_marks {
	struct mark_batch *b;
	size_t n, cap;
};

static const cairo_user_data_key_t svg_marks_key;
static const struct rgb PLACEHOLDER = {0.125, 0.25, 0.375};	/* rgb(12.5%,25%,37.5%) */

/* Where (x, y) lands, in tenths of a px; false when the marker would be
 * wholly outside the plot (more than e px beyond it). */
static bool mark_at(const struct scale *sx, const struct scale *sy, double x, double y, double e,
		    int32_t *tx, int32_t *ty)
{
	double mx, my;

	if (!usable(sx, x) || !usable(sy, y))
		return false;
	mx = map(sx, x);
	my = map(sy, y);
	if (mx < fmin(sx->p0, sx->p1) - e || mx > fmax(sx->p0, sx->p1) + e ||
	    my < fmin(sy->p0, sy->p1) - e || my > fmax(sy->p0, sy->p1) + e)
		return false;
	*tx = (int32_t)lround(mx * 10);
	*ty = (int32_t)lround(my * 10);
	return true;
}

/* A PNG's markers: the raster stamp composited (OVER) onto the image by
 * pixman, clipped to the plot, on whole device pixels. Through Cairo each
 * stamp cost ~1.9 us of pattern set-up (10^5 markers: 190 ms); pixman's
 * own fast path for this case is a small copy. */
static void stamp_pixels(cairo_t *cr, cairo_surface_t *stamp, const struct chart_layer *l,
			 const struct scale *sx, const struct scale *sy, double e, double k)
{
	cairo_surface_t *t = cairo_get_target(cr);
	int sw = cairo_image_surface_get_width(stamp), sh = cairo_image_surface_get_height(stamp);
	pixman_image_t *dst, *src;
	pixman_region32_t clip;
	int32_t tx, ty;
	size_t i;

	cairo_surface_flush(t);
	cairo_surface_flush(stamp);
	dst = pixman_image_create_bits_no_clear(PIXMAN_a8r8g8b8, cairo_image_surface_get_width(t),
						cairo_image_surface_get_height(t),
						(uint32_t *)(void *)cairo_image_surface_get_data(t),
						cairo_image_surface_get_stride(t));
	src = pixman_image_create_bits_no_clear(PIXMAN_a8r8g8b8, sw, sh,
						(uint32_t *)(void *)cairo_image_surface_get_data(stamp),
						cairo_image_surface_get_stride(stamp));
	pixman_region32_init_rect(&clip, (int)floor(fmin(sx->p0, sx->p1) * k),
				  (int)floor(fmin(sy->p0, sy->p1) * k),
				  (unsigned)ceil(fabs(sx->p1 - sx->p0) * k),
				  (unsigned)ceil(fabs(sy->p1 - sy->p0) * k));
	pixman_image_set_clip_region32(dst, &clip);
	for (i = 0; i < l->n; i++)
		if (mark_at(sx, sy, l->x[i], l->y[i], e, &tx, &ty))
			pixman_image_composite32(PIXMAN_OP_OVER, src, NULL, dst, 0, 0, 0, 0,
						 (int32_t)lround((tx / 10.0 - e) * k),
						 (int32_t)lround((ty / 10.0 - e) * k), sw, sh);
	pixman_region32_fini(&clip);
	pixman_image_unref(src);
	pixman_image_unref(dst);
	cairo_surface_mark_dirty(t);
}

static void draw_markers(cairo_t *cr, const struct chart_layer *l, const struct scale *sx,
			 const struct scale *sy)
{
	double r = l->size ? l->size : 3.5, e = stamp_half(r);
	struct svg_marks *sm = cairo_surface_get_user_data(cairo_get_target(cr), &svg_marks_key);
	cairo_surface_t *stamp;
	int32_t tx, ty;
	size_t i;

	if (sm) {	/* SVG: recorded here, written by svg_marks_splice */
		struct mark_batch *b;

		if (sm->n == sm->cap) {
			sm->cap = sm->cap ? 2 * sm->cap : 16;
			sm->b = xrealloc(sm->b, sm->cap * sizeof(*sm->b));
		}
		b = &sm->b[sm->n++];
		*b = (struct mark_batch){l->marker, r, l->alpha, l->color,
					 xmalloc(2 * (l->n ? l->n : 1) * sizeof(int32_t)), 0,
					 {fmin(sx->p0, sx->p1), fmin(sy->p0, sy->p1),
					  fmax(sx->p0, sx->p1), fmax(sy->p0, sy->p1)}};
		for (i = 0; i < l->n; i++)
			if (mark_at(sx, sy, l->x[i], l->y[i], e, &b->xy[2 * b->n], &b->xy[2 * b->n + 1]))
				b->n++;
		cairo_new_path(cr);
		cairo_rectangle(cr, fmin(sx->p0, sx->p1) + 1, fmin(sy->p0, sy->p1) + 1, 0.5, 0.5);
		source(cr, PLACEHOLDER, 0);
		cairo_fill(cr);
		return;
	}
	stamp = marker_stamp(l->marker, r, l->color, l->alpha);
	if (cairo_surface_get_type(cairo_get_target(cr)) == CAIRO_SURFACE_TYPE_IMAGE) {
		/* PNG: the stamp rasterised once at the image's device scale,
		 * then composited by pixman (stamp_pixels) */
		cairo_surface_t *img;
		cairo_t *sc;
		double k;

		cairo_surface_get_device_scale(cairo_get_target(cr), &k, &k);
		img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)(2 * e * k), (int)(2 * e * k));
		cairo_surface_set_device_scale(img, k, k);
		sc = cairo_create(img);
		cairo_set_source_surface(sc, stamp, 0, 0);
		cairo_paint(sc);
		cairo_destroy(sc);
		stamp_pixels(cr, img, l, sx, sy, e, k);
		cairo_surface_destroy(img);
		cairo_surface_destroy(stamp);
		return;
	}
	for (i = 0; i < l->n; i++) {
		if (!mark_at(sx, sy, l->x[i], l->y[i], e, &tx, &ty))
			continue;
		/* PDF: the stamp is one form XObject, placed to 0.1 px */
		cairo_set_source_surface(cr, stamp, tx / 10.0 - e, ty / 10.0 - e);
		cairo_paint(cr);
	}
	cairo_surface_destroy(stamp);
}

/* v tenths as decimal text ("-12.3", "163"); the length. */
static size_t put_tenths(char *p, int32_t v)
{
	char tmp[16];
	size_t n = 0, k = 0;
	uint32_t u = v < 0 ? (uint32_t)(-(int64_t)v) : (uint32_t)v, whole = u / 10, frac = u % 10;

	if (v < 0)
		p[n++] = '-';
	do
		tmp[k++] = (char)('0' + whole % 10);
	while ((whole /= 10));
	while (k)
		p[n++] = tmp[--k];
	if (frac) {
		p[n++] = '.';
		p[n++] = (char)('0' + frac);
	}
	return n;
}

/* Output bytes, grown by doubling. */
struct sink {
	char *buf;
	size_t len, cap;
};

static void sink_put(struct sink *s, const char *data, size_t len)
{
	if (s->len + len > s->cap) {
		s->cap = s->cap ? s->cap : 65536;
		while (s->cap < s->len + len)
			s->cap *= 2;
		s->buf = xrealloc(s->buf, s->cap);
	}
	memcpy(s->buf + s->len, data, len);
	s->len += len;
}

static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int len)
{
	sink_put(closure, (const char *)data, len);
	return CAIRO_STATUS_SUCCESS;
}

/* The marker's path as SVG path data, from Cairo's own path of it. */
static void mark_path_data(struct sink *s, enum chart_marker m, double r)
{
	cairo_surface_t *surf;
	cairo_path_t *path;
	cairo_t *cr;
	char buf[128];
	int i, k, n;

	if (m == MARK_CIRCLE || m == MARK_RING) {	/* exact arcs: Cairo flattens small circles */
		double q = m == MARK_RING ? r * 1.6 : r;

		n = snprintf(buf, sizeof(buf), "M%.3f 0A%.3f %.3f 0 1 0 %.3f 0A%.3f %.3f 0 1 0 %.3f 0Z",
			     q, q, q, -q, q, q, q);
		sink_put(s, buf, (size_t)n);
		return;
	}
	surf = cairo_recording_surface_create(CAIRO_CONTENT_ALPHA, NULL);
	cr = cairo_create(surf);
	marker_path(cr, m, r);
	path = cairo_copy_path(cr);
	for (i = 0; i < path->num_data; i += path->data[i].header.length) {
		const cairo_path_data_t *d = &path->data[i];
		static const char op[] = {'M', 'L', 'C', 'Z'};

		n = snprintf(buf, sizeof(buf), "%c", op[d->header.type]);
		for (k = 1; k < d->header.length && n < (int)sizeof(buf); k++)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%.3f %.3f", k > 1 ? " " : "",
				      d[k].point.x, d[k].point.y);
		sink_put(s, buf, (size_t)n);
	}
	cairo_path_destroy(path);
	cairo_destroy(cr);
	cairo_surface_destroy(surf);
}

static int hex255(double v)
{
	return (int)lround(fmin(1, fmax(0, v)) * 255);
}

/* One batch as SVG: its path in <defs>, a <use> per point. */
static void mark_batch_svg(struct sink *s, const struct mark_batch *b, size_t id)
{
	double a = b->alpha ? b->alpha : 1;
	char buf[256];
	size_t i, n;

	/* clipped to the plot, as the PNG and PDF are: a marker at the edge of a
	 * zoomed view does not reach across the frame */
	n = (size_t)snprintf(buf, sizeof(buf), "<defs><clipPath id=\"karte-c%zu\"><rect x=\"%.1f\" "
			     "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath><path id=\"karte-m%zu\" d=\"",
			     id, b->clip[0], b->clip[1], b->clip[2] - b->clip[0], b->clip[3] - b->clip[1], id);
	sink_put(s, buf, n);
	mark_path_data(s, b->m, b->r);
	sink_put(s, "\"/></defs>\n", 10);
	if (outline(b->m))
		n = (size_t)snprintf(buf, sizeof(buf), "<g clip-path=\"url(#karte-c%zu)\" style=\"fill:none;"
				     "stroke:#%02x%02x%02x;stroke-opacity:%g;stroke-width:%g\">", id,
				     hex255(b->c.r), hex255(b->c.g), hex255(b->c.b), a, outline_width(b->m));
	else
		n = (size_t)snprintf(buf, sizeof(buf), "<g clip-path=\"url(#karte-c%zu)\" style=\"fill:#%02x%02x%02x;"
				     "fill-opacity:%g;stroke:#%02x%02x%02x;stroke-opacity:%g;stroke-width:0.6\">",
				     id, hex255(b->c.r), hex255(b->c.g), hex255(b->c.b), a,
				     hex255(b->c.r * 0.5), hex255(b->c.g * 0.5), hex255(b->c.b * 0.5), a);
	sink_put(s, buf, n);
	for (i = 0; i < b->n; i++) {
		n = (size_t)snprintf(buf, 48, "<use xlink:href=\"#karte-m%zu\" x=\"", id);
		n += put_tenths(buf + n, b->xy[2 * i]);
		memcpy(buf + n, "\" y=\"", 5);
		n += 5;
		n += put_tenths(buf + n, b->xy[2 * i + 1]);
		memcpy(buf + n, "\"/>\n", 4);
		n += 4;
		sink_put(s, buf, n);
	}
	sink_put(s, "</g>\n", 5);
}

/* p past spaces, up to end. */
static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Whether p starts "NUMBER%" with the number want (12.5, 25, 37.5: exact in
 * any decimal spelling); *next past the '%'. */
static bool percent_is(const char *p, const char *end, double want, const char **next)
{
	char num[16];
	size_t n = 0;

	while (p + n < end && n < sizeof(num) - 1 && (isdigit((unsigned char)p[n]) || p[n] == '.'))
		n++;
	if (!n || p + n >= end || p[n] != '%')
		return false;
	memcpy(num, p, n);
	num[n] = '\0';
	*next = p + n + 1;
	return strtod(num, NULL) == want;
}

bool chart_svg_placeholder(const char *svg, size_t len, size_t *start, size_t *stop)
{
	const char *end = svg + len, *at = svg, *rgb, *p, *open, *close, *q;
	static const double want[3] = {12.5, 25, 37.5};
	int i;

	while ((rgb = memmem(at, (size_t)(end - at), "rgb(", 4))) {
		at = rgb + 4;
		/* a fill: "fill:" in a style (1.16) or fill=" (>= 1.17.6), spaces allowed */
		for (q = rgb; q > svg && (q[-1] == ' ' || q[-1] == '"'); q--)
			;
		if (q - svg < 5 || (q[-1] != ':' && q[-1] != '=') || memcmp(q - 5, "fill", 4))
			continue;
		p = at;
		for (i = 0; i < 3; i++) {
			p = skip_blank(p, end);
			if (!percent_is(p, end, want[i], &p))
				break;
			p = skip_blank(p, end);
			if (p >= end || *p != (i < 2 ? ',' : ')'))
				break;
			p++;
		}
		if (i < 3)
			continue;
		/* the element around it: a path, written whole (<path .../>) */
		for (open = rgb; open > svg && *open != '<' && *open != '>'; open--)
			;
		close = memmem(p, (size_t)(end - p), "/>", 2);
		if (*open != '<' || (size_t)(end - open) < 5 || memcmp(open, "<path", 5) || !close ||
		    memchr(p, '<', (size_t)(close - p)))
			continue;
		*start = (size_t)(open - svg);
		*stop = (size_t)(close + 2 - svg);
		return true;
	}
	return false;
}

/* Cairo's SVG in svg (len bytes) with each placeholder replaced by its
 * batch, in drawing order, into out. -1 when the placeholders and the
 * batches do not pair up. */
static int svg_marks_splice(const char *svg, size_t len, const struct svg_marks *sm, struct sink *out)
{
	size_t at = 0, open, close, k = 0;

	while (chart_svg_placeholder(svg + at, len - at, &open, &close)) {
		if (k == sm->n)
			return -1;
		sink_put(out, svg + at, open);
		mark_batch_svg(out, &sm->b[k], k);
		k++;
		at += close;
		if (at < len && svg[at] == '\n')
			at++;
	}
	if (k != sm->n)
		return -1;
	sink_put(out, svg + at, len - at);
	return 0;
}

static void svg_marks_free(struct svg_marks *sm)
{
	size_t i;

	for (i = 0; i < sm->n; i++)
		free(sm->b[i].xy);
	free(sm->b);
}

static void draw_line(cairo_t *cr, const struct chart_layer *l, const struct scale *sx,
		      const struct scale *sy)
{
	bool pen = false;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (!usable(sx, l->x[i]) || !usable(sy, l->y[i])) {
			pen = false;
			continue;
		}
		if (pen)
			cairo_line_to(cr, px(map(sx, l->x[i])), px(map(sy, l->y[i])));
		else
			cairo_move_to(cr, px(map(sx, l->x[i])), px(map(sy, l->y[i])));
		pen = true;
	}
	source(cr, l->color, l->alpha);
	cairo_set_line_width(cr, l->size ? l->size : 1.5);
	set_dash(cr, l->dash, l->size ? l->size : 1.5);
	cairo_stroke(cr);
}

static void draw_arrows(cairo_t *cr, const struct chart_layer *l, const struct scale *sx,
			const struct scale *sy)
{
	double w = l->size ? l->size : 1.0, head = 4 + 2 * w;
	size_t i;

	source(cr, l->color, l->alpha);
	cairo_set_line_width(cr, w);
	set_dash(cr, l->dash, w);
	for (i = 0; i + 1 < l->n; i++) {
		double x0, y0, x1, y1, a, len;

		if (!usable(sx, l->x[i]) || !usable(sy, l->y[i]) || !usable(sx, l->x[i + 1]) ||
		    !usable(sy, l->y[i + 1]))
			continue;
		x0 = map(sx, l->x[i]);
		y0 = map(sy, l->y[i]);
		x1 = map(sx, l->x[i + 1]);
		y1 = map(sy, l->y[i + 1]);
		len = hypot(x1 - x0, y1 - y0);
		if (len < 1)
			continue;
		a = atan2(y1 - y0, x1 - x0);
		/* stop short of the marker at the end */
		x1 -= cos(a) * 3;
		y1 -= sin(a) * 3;
		cairo_move_to(cr, px(x0), px(y0));
		cairo_line_to(cr, px(x1), px(y1));
		cairo_stroke(cr);
		if (len > 2 * head) {
			cairo_move_to(cr, px(x1), px(y1));
			cairo_line_to(cr, px(x1 - head * cos(a - 0.4)), px(y1 - head * sin(a - 0.4)));
			cairo_line_to(cr, px(x1 - head * cos(a + 0.4)), px(y1 - head * sin(a + 0.4)));
			cairo_close_path(cr);
			cairo_fill(cr);
		}
	}
}

/* Diagonal lines 6 px apart over the rectangle (x, y, w, h), in c: what
 * tells a hatched area from a plain one on a greyscale printout. */
static void hatch(cairo_t *cr, double x, double y, double w, double h, struct rgb c)
{
	double d;

	cairo_new_path(cr);
	for (d = 0; d < w + h; d += 6) {
		cairo_move_to(cr, x + d, y);
		cairo_line_to(cr, x + d - h, y + h);
	}
	cairo_set_source_rgba(cr, c.r * 0.6, c.g * 0.6, c.b * 0.6, 0.55);
	cairo_set_line_width(cr, 0.8);
	set_dash(cr, DASH_SOLID, 0.8);
	cairo_stroke(cr);
}

static void draw_area(cairo_t *cr, const struct chart_layer *l, const struct scale *sx,
		      const struct scale *sy)
{
	size_t i, k;
	bool any = false;

	for (i = 0; i < l->n; i++) {
		if (!usable(sx, l->x[i]) || !usable(sy, l->y[i]))
			continue;
		if (any)
			cairo_line_to(cr, px(map(sx, l->x[i])), px(map(sy, l->y[i])));
		else
			cairo_move_to(cr, px(map(sx, l->x[i])), px(map(sy, l->y[i])));
		any = true;
	}
	for (k = l->n; any && k-- > 0;) {
		double b = l->y0 ? l->y0[k] : sy->lo;

		if (!usable(sx, l->x[k]) || !usable(sy, l->y[k]))
			continue;
		if (!usable(sy, b))	/* a band reaching below a log axis: to its edge */
			b = sy->lo;
		cairo_line_to(cr, px(map(sx, l->x[k])), px(map(sy, b)));
	}
	if (!any)
		return;
	cairo_close_path(cr);
	source(cr, l->color, l->alpha ? l->alpha : 0.6);
	if (l->hatch) {
		cairo_save(cr);
		cairo_fill_preserve(cr);
		cairo_clip(cr);
		hatch(cr, fmin(sx->p0, sx->p1), fmin(sy->p0, sy->p1), fabs(sx->p1 - sx->p0),
		      fabs(sy->p1 - sy->p0), l->color);
		cairo_restore(cr);
		return;
	}
	cairo_fill(cr);
}

/* Boxes of the ray labels drawn so far in a panel: a label that would
 * overlap one is left out (near eps = 0 the lines end close together). */
struct placed {
	double box[24][4];	/* x0, y0, x1, y1 */
	size_t n;
};

static bool overlaps(const struct placed *pl, const double b[4])
{
	size_t i;

	for (i = 0; i < pl->n; i++)
		if (b[0] < pl->box[i][2] + 2 && pl->box[i][0] < b[2] + 2 && b[1] < pl->box[i][3] + 1 &&
		    pl->box[i][1] < b[3] + 1)
			return true;
	return false;
}

/* The ray; true when its label was drawn. */
static bool draw_ray(cairo_t *cr, const struct chart_layer *l, const struct scale *sx,
		     const struct scale *sy, struct placed *pl)
{
	double x0 = sx->lo, x1 = sx->hi, w = l->size ? l->size : 0.8;

	if (!(l->slope > 0))
		return false;
	/* clip y = slope x to the plot: x in [ylo/slope, yhi/slope] too */
	x0 = fmax(x0, sy->lo / l->slope);
	x1 = fmin(x1, sy->hi / l->slope);
	if (!(x1 > x0))
		return false;
	cairo_move_to(cr, px(map(sx, x0)), px(map(sy, l->slope * x0)));
	cairo_line_to(cr, px(map(sx, x1)), px(map(sy, l->slope * x1)));
	source(cr, l->color, l->alpha);
	cairo_set_line_width(cr, w);
	set_dash(cr, l->dash, w);
	cairo_stroke(cr);
	if (l->label) {
		/* where the line leaves the plot: the right edge, or the top */
		double ex = map(sx, x1), ey = map(sy, l->slope * x1), tw, th, b[4];
		bool top = ey - sy->p1 < 12;

		text_size(cr, l->label, TEXT_PT * 0.85, false, &tw, &th);
		b[0] = top ? ex - tw - 4 : ex - tw - 3;
		b[1] = top ? ey + 2 : ey - th - 1;
		b[2] = b[0] + tw;
		b[3] = b[1] + th;
		if (overlaps(pl, b) || pl->n == sizeof(pl->box) / sizeof(pl->box[0]))
			return false;
		memcpy(pl->box[pl->n++], b, sizeof(b));
		/* on white, so the lines behind do not cross the text */
		cairo_rectangle(cr, b[0] - 1, b[1], tw + 2, th);
		cairo_set_source_rgba(cr, 1, 1, 1, 0.8);
		cairo_fill(cr);
		text(cr, l->label, b[0], b[1], A_LEFT, false, TEXT_PT * 0.85, false, 0, 0, l->color);
		return true;
	}
	return false;
}

/* ---- panels ---------------------------------------------------------------------- */

/* An axis' ticks, grid and labels; the labelled values into labelled
 * (CHART_FRAME_TICKS at most, *nlabelled of them). */
static void draw_axis_ticks(cairo_t *cr, const struct scale *s, const struct chart_axis *ax,
			    bool x_axis, double other, double span0, double span1, double *labelled,
			    size_t *nlabelled)
{
	struct ticks t;
	const char *name[64];	/* at_text: each major tick's label */
	double room = 0;	/* at_text: px between ticks, the most a label takes */
	double last_right = -INFINITY, tw, th;	/* x labels: where the last one drawn ends */
	char buf[48];
	size_t i;

	if (ax->nat) {	/* the values asked for (e.g. the measured p), and no minor ticks */
		t.nmajor = t.nminor = 0;
		for (i = 0; i < ax->nat && t.nmajor < 64; i++)
			if (usable(s, ax->at[i]) && ax->at[i] >= s->lo && ax->at[i] <= s->hi) {
				name[t.nmajor] = ax->at_text ? ax->at_text[i] : NULL;
				t.major[t.nmajor++] = ax->at[i];
			}
		if (ax->at_text && t.nmajor > 1)
			room = fabs(map(s, t.major[1]) - map(s, t.major[0])) - 4;
	} else if (s->log) {
		log_ticks(s->lo, s->hi, &t);
		if (t.nmajor < 3) {	/* under half a decade: nice linear steps read better */
			lin_ticks(s->lo, s->hi, &t, fabs(s->p1 - s->p0) / (x_axis ? 70 : 35));
			log_foot(s->lo, fabs(s->p1 - s->p0) / (log10(s->hi) - log10(s->lo)), &t,
				 x_axis ? 70 : 35);
		}
	} else {	/* a label every 70 px across, 35 px up */
		lin_ticks(s->lo, s->hi, &t, fabs(s->p1 - s->p0) / (x_axis ? 70 : 35));
	}
	*nlabelled = 0;
	cairo_set_line_width(cr, 1);
	set_dash(cr, DASH_SOLID, 1);
	/* grid at the major ticks, light, behind the data */
	for (i = 0; i < t.nmajor; i++) {
		double v = px(map(s, t.major[i]));

		source(cr, GRID, 0);
		if (x_axis) {
			cairo_move_to(cr, v, span0);
			cairo_line_to(cr, v, span1);
		} else {
			cairo_move_to(cr, span0, v);
			cairo_line_to(cr, span1, v);
		}
		cairo_stroke(cr);
		source(cr, INK, 0);
		if (x_axis) {
			cairo_move_to(cr, v, other);
			cairo_line_to(cr, v, other + 5);
		} else {
			cairo_move_to(cr, other, v);
			cairo_line_to(cr, other - 5, v);
		}
		cairo_stroke(cr);
		chart_number(t.major[i], buf, sizeof(buf));
		if (x_axis && ax->nat && ax->at_text)
			text(cr, name[i] ? name[i] : "", v, other + 7, A_CENTER, false, TEXT_PT * 0.85,
			     false, room > 8 ? room : 0, 0, INK);
		else if (x_axis) {
			/* a label that would touch the one before is left out (a narrow
			 * chart of many measured p); the tick stays */
			text_size(cr, buf, TEXT_PT, false, &tw, &th);
			if (v - tw / 2 < last_right + 4)
				continue;
			text(cr, buf, v, other + 7, A_CENTER, false, TEXT_PT, false, 0, 0, INK);
			last_right = v + tw / 2;
		} else
			text(cr, buf, other - 8, v, A_RIGHT, true, TEXT_PT, false, 0, 0, INK);
		if (*nlabelled < CHART_FRAME_TICKS)
			labelled[(*nlabelled)++] = t.major[i];
	}
	source(cr, INK, 0);
	for (i = 0; i < t.nminor; i++) {
		double v = px(map(s, t.minor[i]));

		if (x_axis) {
			cairo_move_to(cr, v, other);
			cairo_line_to(cr, v, other + 3);
		} else {
			cairo_move_to(cr, other, v);
			cairo_line_to(cr, other - 3, v);
		}
	}
	cairo_set_line_width(cr, 0.7);
	cairo_stroke(cr);
}

/* The legend in cols columns of width w from (x, y), entries down each
 * column in turn. */
static void draw_legend(cairo_t *cr, const struct chart_panel *p, double x, double y, double w,
			size_t cols)
{
	double row = TEXT_PT * 96 / 72 + 6;
	size_t i, rows = (p->nlegend + cols - 1) / cols;

	for (i = 0; i < p->nlegend; i++) {
		const struct chart_legend *e = &p->legend[i];
		double cy = y + row * (double)(i % rows) + row / 2, cx = x + w * (double)(i / rows);

		cairo_save(cr);
		cairo_translate(cr, cx + 8, cy);
		if (e->marker == MARK_COUNT) {
			cairo_move_to(cr, -7, 0);
			cairo_line_to(cr, 7, 0);
			source(cr, e->color, 0);
			cairo_set_line_width(cr, 2);
			set_dash(cr, e->dash, 2);
			cairo_stroke(cr);
		} else if (e->hatch) {
			cairo_rectangle(cr, -6, -5, 12, 10);
			cairo_set_source_rgba(cr, e->color.r, e->color.g, e->color.b, 0.25);
			cairo_fill_preserve(cr);
			cairo_clip(cr);
			hatch(cr, -6, -5, 12, 10, e->color);
		} else {
			if (e->dash != DASH_SOLID) {	/* a dashed line's marker: on its dash */
				cairo_move_to(cr, -9, 0);
				cairo_line_to(cr, 9, 0);
				source(cr, e->color, 0);
				cairo_set_line_width(cr, 1.4);
				set_dash(cr, e->dash, 1.4);
				cairo_stroke(cr);
			}
			marker_paint(cr, e->marker, 3.5, e->color, 0);
		}
		cairo_restore(cr);
		text(cr, e->text, cx + 20, cy, A_LEFT, true, TEXT_PT, false, w - 22, 0, INK);
	}
}

/* The width the legend needs to show every name whole, px. */
static double legend_width(cairo_t *cr, const struct chart_panel *p)
{
	double w = 0, tw, th;
	size_t i;

	for (i = 0; i < p->nlegend; i++) {
		text_size(cr, p->legend[i].text, TEXT_PT, false, &tw, &th);
		w = fmax(w, tw + 26);
	}
	return w;
}

/* The legend's place: inside the plot (when asked) if it takes at most
 * 55 % of the width and 40 % of the height (more would cover the data),
 * beside it if at most 40 % of the width and the plot keeps half the
 * panel's, else below it in as many columns
 * as fit: names are cut short only past the panel's width. */
struct legend_place {
	bool inside, below;
	double lw, row, lh;	/* width of a column, a row's height, height below */
	size_t cols;
};

static struct legend_place legend_place(cairo_t *cr, const struct chart_panel *p, double w, double h)
{
	struct legend_place lp;

	lp.lw = p->nlegend ? legend_width(cr, p) : 0;
	lp.row = TEXT_PT * 96 / 72 + 6;
	lp.inside = p->legend_inside && lp.lw <= w * 0.55 && lp.row * (double)p->nlegend <= (h - 80) * 0.4;
	/* beside only while the plot keeps half the panel's width */
	lp.below = !lp.inside && (lp.lw > w * 0.4 || w - 74 - lp.lw < w * 0.5);
	lp.lw = fmin(lp.lw, lp.below ? w - 20 : w * 0.55);
	lp.cols = lp.below ? (size_t)fmax(1, floor((w - 70) / (lp.lw + 10))) : 1;
	lp.lh = lp.below ? lp.row * ceil((double)p->nlegend / (double)lp.cols) + 8 : 0;
	if (lp.below && h - 80 - lp.lh < h * 0.35) {
		/* below, it would leave the plot no room: beside it, names cut
		 * short at 40 % of the width (a small chart with a long legend) */
		lp.below = false;
		lp.lw = fmin(lp.lw, w * 0.4);
		lp.cols = 1;
		lp.lh = 0;
	}
	return lp;
}

static void draw_panel_as(cairo_t *cr, const struct chart_panel *p, double x, double y, double w,
			  double h, struct chart_frame *fr);

static void draw_panel(cairo_t *cr, const struct chart_panel *p, double x, double y, double w,
		       double h, struct chart_frame *fr)
{
	if (p->legend_short && p->nlegend) {
		struct legend_place lp = legend_place(cr, p, w, h);
		double pw = w - 74 - (lp.inside || lp.below ? 0 : lp.lw), ph = h - 80 - lp.lh;

		bool beside = !lp.inside && !lp.below;

		/* the full legend would crowd the plot out, or run past its foot */
		if (pw < w * 0.5 || ph < h * 0.5 || (beside && lp.row * (double)p->nlegend > ph)) {
			struct chart_panel q = *p;

			q.legend = p->legend_short;
			q.nlegend = p->nlegend_short;
			q.legend_short = NULL;
			draw_panel_as(cr, &q, x, y, w, h, fr);
			fr->short_legend = true;
			return;
		}
	}
	draw_panel_as(cr, p, x, y, w, h, fr);
}

static void draw_panel_as(cairo_t *cr, const struct chart_panel *p, double x, double y, double w,
			  double h, struct chart_frame *fr)
{
	struct legend_place lp = legend_place(cr, p, w, h);
	bool inside = lp.inside, below = lp.below;
	double lw = lp.lw, row = lp.row, lh = lp.lh, tw, th, tpt = TEXT_PT * 1.15;
	size_t cols = lp.cols;
	double left = x + 62, right = x + w - 12 - (inside || below ? 0 : lw), top = y + 8,
	       bottom = y + h - 46 - lh;
	struct scale sx, sy;
	struct placed pl = {.n = 0};
	size_t i, nlabel = 0;
	PangoLayout *note = NULL;
	int note_lines = 0;

	if (p->title) {	/* smaller, down to the text size, before it is cut short */
		text_size(cr, p->title, tpt, true, &tw, &th);
		if (tw > w - 20)
			tpt = fmax(TEXT_PT, tpt * (w - 20) / tw);
		text(cr, p->title, x + w / 2, top, A_CENTER, false, tpt, true, w - 20, 0, INK);
		text_size(cr, p->title, tpt, true, &tw, &th);
		top += th + 6;
	}
	if (p->note) {
		note = note_layout(cr, p->note, w - 70, &note_lines);
		bottom -= 14.0 * note_lines;
	}
	if (right - left < 40 || bottom - top < 40) {
		if (note)
			g_object_unref(note);
		return;	/* no room: nothing sensible to draw */
	}
	sx = (struct scale){p->x.log, 0, 0, left, right};
	sy = (struct scale){p->y.log, 0, 0, bottom, top};
	auto_range(p, true, &p->x, &sx.lo, &sx.hi);
	auto_range(p, false, &p->y, &sy.lo, &sy.hi);
	*fr = (struct chart_frame){.drawn = !p->placeholder, .left = left, .top = top, .right = right,
				   .bottom = bottom, .xlog = sx.log, .ylog = sy.log, .xmin = sx.lo,
				   .xmax = sx.hi, .ymin = sy.lo, .ymax = sy.hi};

	/* frame, ticks, titles */
	draw_axis_ticks(cr, &sx, &p->x, true, bottom, top, bottom, fr->xticks, &fr->nxticks);
	draw_axis_ticks(cr, &sy, &p->y, false, left, left, right, fr->yticks, &fr->nyticks);
	source(cr, INK, 0);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, left, top, right - left, bottom - top);
	cairo_stroke(cr);
	if (p->x.title)
		text(cr, p->x.title, (left + right) / 2, bottom + 24, A_CENTER, false, TEXT_PT * 1.05,
		     false, right - left, 0, INK);
	if (p->y.title)
		text(cr, p->y.title, x + 6, (top + bottom) / 2, A_CENTER, false, TEXT_PT * 1.05,
		     false, bottom - top, -M_PI / 2, INK);
	if (note) {
		cairo_move_to(cr, left, y + h - 14.0 * note_lines);
		cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
		pango_cairo_show_layout(cr, note);
		g_object_unref(note);
	}

	if (p->placeholder) {
		text(cr, p->placeholder, (left + right) / 2, (top + bottom) / 2, A_CENTER, true,
		     TEXT_PT * 1.3, false, right - left - 20, 0, (struct rgb){0.4, 0.4, 0.4});
	} else {
		cairo_save(cr);
		cairo_rectangle(cr, left, top, right - left, bottom - top);
		cairo_clip(cr);
		for (i = 0; i < p->nlayers; i++) {
			const struct chart_layer *l = &p->layers[i];

			switch (l->kind) {
			case LAYER_MARKERS:
				draw_markers(cr, l, &sx, &sy);
				break;
			case LAYER_LINE:
				draw_line(cr, l, &sx, &sy);
				break;
			case LAYER_ARROWS:
				draw_arrows(cr, l, &sx, &sy);
				break;
			case LAYER_AREA:
				draw_area(cr, l, &sx, &sy);
				break;
			case LAYER_RAY:
				if (draw_ray(cr, l, &sx, &sy, &pl) && nlabel < 64)
					fr->labels |= UINT64_C(1) << nlabel;
				nlabel += l->label != NULL;
				break;
			}
		}
		cairo_restore(cr);
	}
	if (p->nlegend && inside) {
		cairo_rectangle(cr, right - lw - 14, top + 6, lw + 8, row * (double)p->nlegend + 6);
		cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
		cairo_fill_preserve(cr);
		source(cr, GRID, 0);
		cairo_set_line_width(cr, 1);
		set_dash(cr, DASH_SOLID, 1);
		cairo_stroke(cr);
		draw_legend(cr, p, right - lw - 12, top + 9, lw, 1);
	} else if (below) {
		/* above the note's second line, if it takes two */
		draw_legend(cr, p, left, y + h - lh - 4 - 14.0 * (note_lines > 1 ? note_lines - 1 : 0), lw + 10,
			    cols);
	} else if (p->nlegend) {
		draw_legend(cr, p, right + 10, top, lw, 1);
	}
}

void chart_draw(cairo_t *cr, const struct chart_spec *spec, struct chart_frame *frames)
{
	double top = 10, th = 0, tw, w;
	struct chart_frame scratch;
	size_t i;

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	if (spec->title) {
		text(cr, spec->title, spec->width / 2, top, A_CENTER, false, TITLE_PT, true,
		     spec->width - 20, 0, INK);
		text_size(cr, spec->title, TITLE_PT, true, &tw, &th);
		top += th + 6;
	}
	w = spec->width / (double)(spec->npanels ? spec->npanels : 1);
	for (i = 0; i < spec->npanels; i++) {
		struct chart_frame *fr = frames ? &frames[i] : &scratch;

		fr->drawn = false;
		fr->labels = 0;
		fr->short_legend = false;
		draw_panel(cr, &spec->panels[i], w * (double)i, top, w, spec->height - top, fr);
	}
}

/* A JSON string of text (valid UTF-8: chart_draw's texts are) into s, in
 * ASCII (\uXXXX for the rest): it travels in an HTTP header, which
 * browsers read as Latin-1. */
static void sink_json_string(struct sink *s, const char *text)
{
	const unsigned char *t = (const unsigned char *)text;
	char esc[16];
	unsigned cp;
	int extra;

	sink_put(s, "\"", 1);
	while (*t) {
		if (*t >= 0x20 && *t < 0x80 && *t != '"' && *t != '\\') {
			sink_put(s, (const char *)t++, 1);
			continue;
		}
		if (*t < 0x80) {
			snprintf(esc, sizeof(esc), *t == '"' || *t == '\\' ? "\\%c" : "\\u%04x", *t);
			t++;
		} else {
			extra = *t >= 0xf0 ? 3 : *t >= 0xe0 ? 2 : 1;
			cp = *t++ & (0x3fu >> extra);
			for (; extra && (*t & 0xc0) == 0x80; extra--)
				cp = cp << 6 | (*t++ & 0x3fu);
			if (cp > 0xffff)	/* a surrogate pair */
				snprintf(esc, sizeof(esc), "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
					 0xdc00 + ((cp - 0x10000) & 0x3ff));
			else
				snprintf(esc, sizeof(esc), "\\u%04x", cp);
		}
		sink_put(s, esc, strlen(esc));
	}
	sink_put(s, "\"", 1);
}

/* [v0,v1,...] with the digits to read each back. */
static void sink_numbers(struct sink *s, const double *v, size_t n)
{
	char buf[32];
	size_t i;

	sink_put(s, "[", 1);
	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%s%.17g", i ? "," : "", v[i]);
		sink_put(s, buf, strlen(buf));
	}
	sink_put(s, "]", 1);
}

char *chart_frames_json(const struct chart_spec *spec, const struct chart_frame *frames)
{
	struct sink s = {0};
	char buf[512];
	size_t i, k;
	bool first = true;

	snprintf(buf, sizeof(buf), "{\"width\":%g,\"height\":%g,\"panels\":[", spec->width,
		 spec->height);
	sink_put(&s, buf, strlen(buf));
	for (i = 0; i < spec->npanels; i++) {
		const struct chart_frame *f = &frames[i];

		if (!f->drawn) {
			snprintf(buf, sizeof(buf), "%snull", i ? "," : "");
			sink_put(&s, buf, strlen(buf));
			continue;
		}
		snprintf(buf, sizeof(buf),
			 "%s{\"left\":%.2f,\"top\":%.2f,\"right\":%.2f,\"bottom\":%.2f,"
			 "\"x\":{\"log\":%s,\"min\":%.17g,\"max\":%.17g,\"ticks\":",
			 i ? "," : "", f->left, f->top, f->right, f->bottom,
			 f->xlog ? "true" : "false", f->xmin, f->xmax);
		sink_put(&s, buf, strlen(buf));
		sink_numbers(&s, f->xticks, f->nxticks);
		snprintf(buf, sizeof(buf), "},\"y\":{\"log\":%s,\"min\":%.17g,\"max\":%.17g,\"ticks\":",
			 f->ylog ? "true" : "false", f->ymin, f->ymax);
		sink_put(&s, buf, strlen(buf));
		sink_numbers(&s, f->yticks, f->nyticks);
		sink_put(&s, "}}", 2);
	}
	sink_put(&s, "],\"title\":", 10);
	sink_json_string(&s, spec->title ? spec->title : "");
	/* every legend entry and direct label, panel by panel, as drawn */
	sink_put(&s, ",\"legend\":[", 11);
	for (i = 0; i < spec->npanels; i++) {
		const struct chart_panel *p = &spec->panels[i];
		size_t nlabel = 0;

		for (k = 0; k < p->nlayers; k++) {
			if (p->layers[k].kind != LAYER_RAY || !p->layers[k].label)
				continue;
			/* the labels drawn: one left out for want of room is not listed */
			if (nlabel >= 64 || !(frames[i].labels >> nlabel++ & 1))
				continue;
			if (!first)
				sink_put(&s, ",", 1);
			sink_json_string(&s, p->layers[k].label);
			first = false;
		}
		const struct chart_legend *lg = frames[i].short_legend ? p->legend_short : p->legend;
		size_t nlg = frames[i].short_legend ? p->nlegend_short : p->nlegend;

		for (k = 0; k < nlg; k++) {
			if (!first)
				sink_put(&s, ",", 1);
			sink_json_string(&s, lg[k].text);
			first = false;
		}
	}
	/* each panel's small print (and placeholder), so that a page can say it */
	sink_put(&s, "],\"notes\":[", 11);
	for (i = 0; i < spec->npanels; i++) {
		if (i)
			sink_put(&s, ",", 1);
		sink_json_string(&s, spec->panels[i].placeholder ? spec->panels[i].placeholder :
				 spec->panels[i].note ? spec->panels[i].note : "");
	}
	sink_put(&s, "]}", 3);	/* with the NUL */
	return s.buf;
}

/* ---- output ------------------------------------------------------------------------ */

int chart_render(const struct chart_spec *spec, enum chart_format format, char **out,
		 size_t *len, struct chart_frame *frames, struct kerr *err)
{
	struct sink s = {0};
	struct svg_marks sm = {0};
	cairo_surface_t *surf;
	double k;
	cairo_status_t st;
	cairo_t *cr;

	switch (format) {
	case CHART_SVG:
		surf = cairo_svg_surface_create_for_stream(sink_write, &s, spec->width, spec->height);
		/* width and height in px: a browser shows the size asked for
		 * (Cairo's default, pt, is 4/3 larger on screen) */
		cairo_svg_surface_set_document_unit(surf, CAIRO_SVG_UNIT_PX);
		cairo_surface_set_user_data(surf, &svg_marks_key, &sm, NULL);
		break;
	case CHART_PDF:
		surf = cairo_pdf_surface_create_for_stream(sink_write, &s, spec->width, spec->height);
		break;
	default:
		k = spec->scale >= 1 ? fmin(spec->scale, CHART_SCALE_MAX) : 1;
		surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)(spec->width * k),
						  (int)(spec->height * k));
		/* the same layout, k device pixels per px: frames stay in px */
		cairo_surface_set_device_scale(surf, k, k);
		break;
	}
	cr = cairo_create(surf);
	chart_draw(cr, spec, frames);
	st = cairo_status(cr);	/* sticky: checked once, at the end */
	cairo_destroy(cr);
	if (st == CAIRO_STATUS_SUCCESS && format == CHART_PNG)
		st = cairo_surface_write_to_png_stream(surf, sink_write, &s);
	cairo_surface_finish(surf);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(surf);
	cairo_surface_destroy(surf);
	if (st != CAIRO_STATUS_SUCCESS) {
		free(s.buf);
		svg_marks_free(&sm);
		return kerr_set(err, KERR_INTERNAL, "cannot draw the chart: %s", cairo_status_to_string(st));
	}
	if (format == CHART_SVG) {
		struct sink spliced = {0};

		if (svg_marks_splice(s.buf, s.len, &sm, &spliced)) {
			free(spliced.buf);
			free(s.buf);
			svg_marks_free(&sm);
			return kerr_set(err, KERR_INTERNAL, "cannot draw the chart: the markers of the SVG "
					"were not where Cairo was asked to draw them");
		}
		free(s.buf);
		s = spliced;
	}
	svg_marks_free(&sm);
	*out = s.buf;
	*len = s.len;
	return 0;
}

int chart_format_parse(const char *name, enum chart_format *f)
{
	if (!strcmp(name, "svg"))
		*f = CHART_SVG;
	else if (!strcmp(name, "png"))
		*f = CHART_PNG;
	else if (!strcmp(name, "pdf"))
		*f = CHART_PDF;
	else
		return -1;
	return 0;
}

const char *chart_content_type(enum chart_format f)
{
	return f == CHART_SVG ? "image/svg+xml" : f == CHART_PDF ? "application/pdf" : "image/png";
}
