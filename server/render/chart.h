/*
 * chart: karte's plots, drawn with Cairo and laid out with Pango. A chart is
 * a plain description (struct chart_spec: axes, layers of data, legend);
 * chart_draw() paints it on any cairo_t, and chart_render() makes SVG, PNG
 * or PDF bytes of it, the formats differing only in the surface. Markers are
 * drawn once into a recording surface and stamped, so an SVG of 10,000
 * points holds one marker definition and 10,000 short <use> references.
 */
#ifndef KARTE_CHART_H
#define KARTE_CHART_H

#include <cairo.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "core/kerr.h"

enum chart_format { CHART_SVG, CHART_PNG, CHART_PDF };

struct rgb {
	double r, g, b;
};

/* Okabe & Ito's palette, distinguishable with the common colour-vision
 * deficiencies; index modulo its size. */
struct rgb chart_palette(size_t i);

/* A sequential colour (viridis-like, also readable in grey) for t in 0..1. */
struct rgb chart_ramp(double t);

enum chart_marker { MARK_CIRCLE, MARK_SQUARE, MARK_TRIANGLE, MARK_DIAMOND, MARK_CROSS,
		    MARK_STAR, MARK_RING, MARK_STAR_OPEN, MARK_COUNT };
		    /* CROSS, RING and STAR_OPEN: outlines only, so what lies under
		     * them shows through */

enum chart_dash { DASH_SOLID, DASH_DASHED, DASH_DOTTED, DASH_DASHDOT };

enum layer_kind {
	LAYER_MARKERS,	/* one marker per point */
	LAYER_LINE,	/* a polyline through the points */
	LAYER_ARROWS,	/* segments between consecutive points with arrowheads */
	LAYER_AREA,	/* the band between y0 and y (y0 NULL: down to the axis) */
	LAYER_RAY,	/* the line y = slope * x through the origin across the plot
			 * (a straight line on log-log axes too), labelled */
};

struct chart_layer {
	enum layer_kind kind;
	const double *x, *y, *y0;	/* data coordinates; borrowed */
	size_t n;
	double slope;			/* LAYER_RAY */
	struct rgb color;
	double alpha;			/* 0: opaque */
	enum chart_marker marker;
	double size;			/* marker size or line width, px */
	enum chart_dash dash;
	const char *label;		/* LAYER_RAY: drawn at its end; else NULL */
	bool hatch;			/* LAYER_AREA: diagonal lines over the fill, so
					 * two areas differ in greyscale too */
	bool soft;			/* a model's curve or band: widens the axes only
					 * near the other layers' range (a decade either
					 * side on a log axis, one span on a linear one), so
					 * a curve diving to 0 cannot squash the data; the
					 * rest is clipped */
};

struct chart_axis {
	const char *title;	/* with its unit, e.g. "tau (s)" */
	bool log;
	double min, max;	/* NAN: from the data */
	const double *at;	/* the labelled ticks (e.g. the measured p), borrowed; */
	size_t nat;		/* 0: nice values chosen here */
	const char *const *at_text;	/* nat labels for at[] instead of numbers, or NULL */
};

struct chart_legend {
	const char *text;
	struct rgb color;
	enum chart_marker marker;	/* MARK_COUNT: a line swatch */
	enum chart_dash dash;
	bool hatch;			/* an area's swatch, hatched (with MARK_SQUARE) */
};

/* One plot area: axes, layers in drawing order, legend. */
struct chart_panel {
	const char *title;
	struct chart_axis x, y;
	const struct chart_layer *layers;
	size_t nlayers;
	const struct chart_legend *legend;
	size_t nlegend;
	/* the same in fewer entries (each series once, each n once), or NULL:
	 * used when the full legend would leave the plot under half the
	 * panel's width or height (a chart at a paper's column width) */
	const struct chart_legend *legend_short;
	size_t nlegend_short;
	const char *placeholder;	/* not NULL: draw this message instead of data */
	const char *note;		/* small print under the plot, or NULL */
	bool legend_inside;		/* in the plot's top right corner, on white */
};

/* A whole image: a title and panels side by side. */
struct chart_spec {
	const char *title;
	double width, height;	/* px (pt for PDF) */
	double scale;		/* PNG: device pixels per px (a HiDPI screen: 2); 0 or 1: one */
	const struct chart_panel *panels;
	size_t npanels;
};

#define CHART_WIDTH_DEFAULT 800
#define CHART_HEIGHT_DEFAULT 600
#define CHART_SIZE_MIN 200
#define CHART_SIZE_MAX 4000
#define CHART_SCALE_MAX 4

/* v as a chart writes numbers: %g up to 10^4, 39 200 with a thin space to
 * 10^5, 1.2×10⁶ and 10⁻⁴ beyond (Unicode superscripts, real minus signs). */
void chart_number(double v, char *buf, size_t size);

/* Where a panel's data went: the plot rectangle (px from the image's top
 * left) and the range each axis shows. A browser maps a data point to the
 * pixel it was drawn at with these (hover, click, zoom over the picture). */
#define CHART_FRAME_TICKS 32	/* labelled ticks a frame lists, per axis */

struct chart_frame {
	bool drawn;			/* false: placeholder, or no room */
	double left, top, right, bottom;
	bool xlog, ylog;
	double xmin, xmax, ymin, ymax;
	bool short_legend;		/* the panel's legend_short was drawn */
	double xticks[CHART_FRAME_TICKS], yticks[CHART_FRAME_TICKS];	/* the labelled values */
	size_t nxticks, nyticks;
	uint64_t labels;		/* bit k: the k-th labelled ray of the panel had room
					 * for its label (a label that would overlap another
					 * is left out, and not listed in the frame's legend) */
};

/* Paint spec on cr (whose surface is spec->width x spec->height); frames,
 * when not NULL, receives spec->npanels frames. */
void chart_draw(cairo_t *cr, const struct chart_spec *spec, struct chart_frame *frames);

/* Render spec in format into a malloc'd buffer (*out, *len); frames as for
 * chart_draw. -1 with err when Cairo fails. */
int chart_render(const struct chart_spec *spec, enum chart_format format, char **out,
		 size_t *len, struct chart_frame *frames, struct kerr *err);

/* The frames as JSON (malloc'd), {"width", "height", "panels": [{"left",
 * "top", "right", "bottom", "x": {"log", "min", "max"}, "y": {...}}],
 * "title", "legend": [...]}: the chart's title; legend holds the text of every legend entry and direct
 * label (a ray's), panel by panel, in the order drawn. */
char *chart_frames_json(const struct chart_spec *spec, const struct chart_frame *frames);

/* "svg", "png", "pdf" and their content types; -1 for an unknown name. */
/* Where in svg[0, len) the next placeholder of a marker layer is (an SVG's
 * markers are written by karte: chart_render draws each layer as a tiny
 * path filled with rgb(12.5%, 25%, 37.5%), then puts the markers in its
 * place): *start at its '<', *stop past its "/>"; false when there is none.
 * It takes the fill as Cairo 1.16 writes it, in a style attribute
 * (style="...;fill:rgb(12.5%,25%,37.5%);...") and as Cairo 1.17.6 and
 * later do, as an attribute (fill="rgb(12.5%, 25%, 37.5%)"), with any
 * spaces and any spelling of the numbers, and only on a path element:
 * never a stroke, a group or another colour. */
bool chart_svg_placeholder(const char *svg, size_t len, size_t *start, size_t *stop);

int chart_format_parse(const char *name, enum chart_format *f);
const char *chart_content_type(enum chart_format f);

#endif
