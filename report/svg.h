/* report/svg.h — the HTML report's plots: inline SVG written in C, nothing
 * fetched (report/report.md). An axis maps values to pixels, linear or
 * logarithmic; the helpers below draw an axis with its ticks, grid and
 * label, and the markers every plot of the page shares (svg.c).
 *
 * A marker's look says what an entry is (fl_svg_style): one hue per design
 * family, a design filled and its @POLICY entries hollow in the same hue;
 * the shipped libraries dark squares (the baseline's control hollow); the
 * floors grey triangles. */
#ifndef FUTEXLAB_SVG_H
#define FUTEXLAB_SVG_H

#include <stdbool.h>
#include <stdio.h>

struct fl_axis {
	double lo, hi;   /* the values at the two ends */
	bool log;        /* logarithmic (lo > 0) */
	double p0, p1;   /* their pixels (p1 < p0 for a y axis) */
};

/* An axis over the values [lo, hi] (NAN and, on a log axis, values <= 0
 * are the caller's to leave out): logarithmic when allow_log and hi/lo >
 * FL_SVG_LOG_SPAN (about a decade), padded a little either side; lo == hi
 * is widened. */
#define FL_SVG_LOG_SPAN 8.0
void fl_axis_fit(struct fl_axis *a, double lo, double hi, bool allow_log, double p0,
		 double p1);
double fl_axis_px(const struct fl_axis *a, double v);

/* A horizontal axis at pixel y (its grid lines up to ytop) and a vertical
 * one at pixel x (grid lines across to xright), with tick labels and the
 * axis's name (escaped). */
void fl_svg_xaxis(FILE *f, const struct fl_axis *a, double y, double ytop, const char *label);
void fl_svg_yaxis(FILE *f, const struct fl_axis *a, double x, double xright, const char *label);

/* The look of an entry's marker. */
struct fl_svg_style {
	char color[8];   /* "#rrggbb" */
	char shape;      /* 'o' circle, 's' square, 't' triangle */
	bool hollow;
};
struct fl_svg_style fl_svg_style(const char *label, const char *baseline);
/* A marker at (x, y), with a tooltip (escaped). */
void fl_svg_marker(FILE *f, const struct fl_svg_style *s, double x, double y, const char *tip);

/* Writes s HTML-escaped (& < > " '). */
void fl_html_puts(FILE *f, const char *s);

#endif
