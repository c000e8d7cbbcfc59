/* report/svg.c — axes, ticks and markers for the HTML report (svg.h). */
#include "report/svg.h"

#include <math.h>
#include <string.h>

#include "model/catalog.h"

void fl_html_puts(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

void fl_axis_fit(struct fl_axis *a, double lo, double hi, bool allow_log, double p0,
		 double p1)
{
	if (!(lo <= hi)) /* NAN or no values */
		lo = hi = 1;
	a->log = allow_log && lo > 0 && hi / lo > FL_SVG_LOG_SPAN;
	if (a->log) {
		lo /= 1.15, hi *= 1.15;
	} else {
		double pad = (hi - lo) * 0.06;
		if (pad == 0)
			pad = fabs(hi) > 0 ? fabs(hi) * 0.1 : 1;
		lo = lo >= 0 && lo - pad < 0 ? 0 : lo - pad;
		hi += pad;
	}
	a->lo = lo, a->hi = hi, a->p0 = p0, a->p1 = p1;
}

double fl_axis_px(const struct fl_axis *a, double v)
{
	double t = a->log ? log(v / a->lo) / log(a->hi / a->lo) : (v - a->lo) / (a->hi - a->lo);
	return a->p0 + t * (a->p1 - a->p0);
}

/* The ticks of an axis: on a log axis the decades, with 2 and 5 between
 * when it spans fewer than three; on a linear one 1, 2 or 5 times a power
 * of ten, about five of them. Returns how many (at most max). */
static int ticks(const struct fl_axis *a, double *t, int max)
{
	int n = 0;
	if (a->log) {
		bool fine = a->hi / a->lo < 1000;
		for (int e = (int)floor(log10(a->lo)); e <= (int)ceil(log10(a->hi)) && n < max; e++) {
			const double m[3] = { 1, 2, 5 }, d = pow(10, e);
			for (int i = 0; i < (fine ? 3 : 1) && n < max; i++)
				if (d * m[i] >= a->lo && d * m[i] <= a->hi)
					t[n++] = d * m[i];
		}
		return n;
	}
	double raw = (a->hi - a->lo) / 5, p = pow(10, floor(log10(raw))), step = p;
	if (raw / p > 5)
		step = 10 * p;
	else if (raw / p > 2)
		step = 5 * p;
	else if (raw / p > 1)
		step = 2 * p;
	for (long k = (long)ceil(a->lo / step); k * step <= a->hi + step * 1e-9 && n < max; k++)
		t[n++] = (double)k * step;
	return n;
}

static void tick_text(char *b, size_t n, double v)
{
	double m = fabs(v);
	if (m >= 1e6 || (m > 0 && m < 1e-3))
		snprintf(b, n, "%.0e", v);
	else
		snprintf(b, n, "%g", v);
}

/* A log axis's 2 and 5 ticks are labelled only when a decade is wide
 * enough for three labels. */
static bool labelled(const struct fl_axis *a, double v)
{
	if (!a->log)
		return true;
	double m = v / pow(10, floor(log10(v) + 1e-9));
	double decade = fabs(a->p1 - a->p0) / log10(a->hi / a->lo);
	return fabs(m - 1) < 1e-6 || decade > 150;
}

void fl_svg_xaxis(FILE *f, const struct fl_axis *a, double y, double ytop, const char *label)
{
	double t[40];
	int n = ticks(a, t, 40);
	double left = fmin(a->p0, a->p1), right = fmax(a->p0, a->p1);
	fprintf(f, "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", left, y,
		right, y);
	for (int i = 0; i < n; i++) {
		char b[32] = "";
		double x = fl_axis_px(a, t[i]);
		if (labelled(a, t[i]))
			tick_text(b, sizeof b, t[i]);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			x, ytop, x, y, x, y + 13, b);
	}
	fprintf(f, "<text class=\"lab\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		(left + right) / 2, y + 30);
	fl_html_puts(f, label);
	fputs(a->log ? " (log scale)</text>\n" : "</text>\n", f);
}

void fl_svg_yaxis(FILE *f, const struct fl_axis *a, double x, double xright, const char *label)
{
	double t[40];
	int n = ticks(a, t, 40);
	double top = fmin(a->p0, a->p1), bottom = fmax(a->p0, a->p1);
	fprintf(f, "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, top,
		x, bottom);
	for (int i = 0; i < n; i++) {
		char b[32] = "";
		double y = fl_axis_px(a, t[i]);
		if (labelled(a, t[i]))
			tick_text(b, sizeof b, t[i]);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			x, y, xright, y, x - 4, y + 4, b);
	}
	fprintf(f, "<text class=\"lab\" transform=\"translate(%.1f,%.1f) rotate(-90)\" "
		   "text-anchor=\"middle\">", x - 48, (top + bottom) / 2);
	fl_html_puts(f, label);
	fputs(a->log ? " (log scale)</text>\n" : "</text>\n", f);
}

/* One hue per design family, by the design's registry place (its name's
 * hash without a catalog). */
static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
	"#8c564b", "#e377c2", "#17becf", "#bcbd22", "#3b4cc0",
};
#define NPALETTE ((int)(sizeof palette / sizeof palette[0]))

struct fl_svg_style fl_svg_style(const char *label, const char *baseline)
{
	struct fl_svg_style s = { .shape = 'o' };
	bool control = fl_is_control(label, baseline);
	enum fl_kind k = fl_catalog_kind(label);
	if (!strncmp(label, "floor-", 6)) {
		snprintf(s.color, sizeof s.color, "#8a8a8a");
		s.shape = 't';
	} else if (k == FL_KIND_LIBRARY || control || !strcmp(label, baseline)) {
		snprintf(s.color, sizeof s.color, "#222222");
		s.shape = 's';
		s.hollow = control;
	} else {
		char b[64];
		const char *d = fl_catalog_design(label, b, sizeof b);
		int n, r = d ? fl_catalog_rank(d, &n) : -1;
		unsigned h = 0;
		for (const char *p = d ? d : label; r < 0 && *p; p++)
			h = h * 31 + (unsigned char)*p;
		snprintf(s.color, sizeof s.color, "%s", palette[(r >= 0 ? (unsigned)r : h) % NPALETTE]);
		s.hollow = strchr(label, '@') != NULL;
	}
	return s;
}

void fl_svg_marker(FILE *f, const struct fl_svg_style *s, double x, double y, const char *tip)
{
	char paint[64];
	snprintf(paint, sizeof paint, s->hollow ? "fill=\"#fff\" stroke=\"%s\" stroke-width=\"1.6\""
						 : "fill=\"%s\"", s->color);
	if (s->shape == 's')
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" %s>", x - 4, y - 4,
			paint);
	else if (s->shape == 't')
		fprintf(f, "<path d=\"M%.1f %.1fl5 9h-10z\" %s>", x, y - 5, paint);
	else
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" %s>", x, y, paint);
	fputs("<title>", f);
	fl_html_puts(f, tip);
	fprintf(f, "</title></%s>\n", s->shape == 's' ? "rect" : s->shape == 't' ? "path" : "circle");
}
