/* report/html_plots.c — a point's figures in the HTML report, inline SVG
 * (html_point.h): (a) each entry's paired ratio to the baseline with its
 * interval, (b) time against CPU per op, (c) wake-to-run p50 to p99 from
 * the probed rounds, (d) fairness (Jain's index): the last two where the
 * file has them. How to read them: report/report.md. */
#include "report/html_point.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"
#include "report/xalloc.h"
#include "report/catalog.h"

#define W 760.0
#define LEFT 170.0
#define RIGHT 130.0
#define TOP 22.0
#define ROW 18.0
#define BOTTOM 46.0

static void fig_open(FILE *f, const struct fl_hpoint *p, const char *kind, double h)
{
	fprintf(f, "<figure class=\"plot\" id=\"%sp%d-%s\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		   "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\">\n",
		p->prefix, p->id, kind, W, h, W, h);
}

static void fig_close(FILE *f, const char *caption)
{
	fputs("</svg>\n<figcaption>", f);
	fl_html_puts(f, caption);
	fputs("</figcaption>\n</figure>\n", f);
}

/* The row labels of a row plot: the entry, marked when it is the baseline
 * or the control; returns the row's y. */
static double row_label(FILE *f, const struct fl_hpoint *p, int i, const char *variant)
{
	double y = TOP + ROW * i + ROW / 2;
	const char *role = !strcmp(variant, p->baseline) ? " (baseline)"
			   : fl_is_control(variant, p->baseline)	 ? " (control)"
							 : "";
	fprintf(f, "<text class=\"rl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", LEFT - 8, y + 4);
	fl_html_puts(f, variant);
	fprintf(f, "%s</text>\n", role);
	return y;
}

/* (a) the ratio to the baseline per entry: dot at the median, whisker
 * over its interval, the baseline's 1 a dashed line. */
static void plot_ratio(FILE *f, const struct fl_hpoint *p)
{
	double lo = 1, hi = 1, h = TOP + ROW * p->nrow + BOTTOM;
	for (int i = 0; i < p->nrow; i++)
		if (p->r[i].have && p->r[i].q.lo > 0)
			lo = fmin(lo, p->r[i].q.lo), hi = fmax(hi, p->r[i].q.hi);
	struct fl_axis a;
	fl_axis_fit(&a, lo, hi, true, LEFT, W - RIGHT);
	fig_open(f, p, "ratio", h);
	double x1 = fl_axis_px(&a, 1);
	fl_svg_xaxis(f, &a, h - BOTTOM + 6, TOP - 6, "ratio to the baseline: ns per op / its ns per "
		     "op, same round, median over rounds");
	fprintf(f, "<line class=\"one\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">1 = ", x1,
		TOP - 8, x1, h - BOTTOM + 6, x1, TOP - 10);
	fl_html_puts(f, p->baseline);
	fputs("</text>\n", f);
	for (int i = 0; i < p->nrow; i++) {
		const struct fl_hrow *r = &p->r[i];
		double y = row_label(f, p, i, r->y->variant);
		struct fl_svg_style s = fl_svg_style(r->y->variant, p->baseline);
		if (!r->have) {
			fprintf(f, "<text class=\"na\" x=\"%.1f\" y=\"%.1f\">", LEFT + 4, y + 4);
			fl_html_puts(f, r->usable ? "no ratio" : r->y->status);
			fputs("</text>\n", f);
			continue;
		}
		char tip[160];
		snprintf(tip, sizeof tip, "%s: %.3f [%.3f, %.3f] %s", r->y->variant, r->q.median,
			 r->q.lo, r->q.hi, r->vt);
		if (r->y != p->ref)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				   "stroke-width=\"2\"/>\n", fl_axis_px(&a, r->q.lo), y,
				fl_axis_px(&a, r->q.hi), y, s.color);
		fl_svg_marker(f, &s, fl_axis_px(&a, r->q.median), y, tip);
		fprintf(f, "<text class=\"vt v%d\" x=\"%.1f\" y=\"%.1f\">", r->v, W - RIGHT + 8, y + 4);
		fl_html_puts(f, r->vt);
		fputs("</text>\n", f);
	}
	fig_close(f, "(a) ratio to the baseline per entry: the dot is the median over the rounds of "
		  "the per-round ratio, the whisker its interval; left of 1 is faster. Filled: a "
		  "design; hollow: a design under a waiting policy (same hue) or the control; "
		  "squares: the shipped libraries; grey triangles: the floors.");
}

/* (b) ns per op against CPU ns per op: every usable entry, the libraries
 * labelled in bold. */
static int plot_cpu(FILE *f, const struct fl_hpoint *p)
{
	double xl = INFINITY, xh = 0, yl = INFINITY, yh = 0;
	int n = 0;
	for (int i = 0; i < p->nrow; i++) {
		const struct fl_cell *y = p->r[i].y;
		if (!p->r[i].usable || !(y->cpu.median > 0) || !(y->shown > 0))
			continue;
		xl = fmin(xl, y->cpu.median), xh = fmax(xh, y->cpu.median);
		yl = fmin(yl, y->shown), yh = fmax(yh, y->shown);
		n++;
	}
	if (!n)
		return 0;
	double h = 440;
	struct fl_axis ax, ay;
	fl_axis_fit(&ax, xl, xh, true, 90, W - 150);
	fl_axis_fit(&ay, yl, yh, true, h - BOTTOM, 14);
	fig_open(f, p, "cpu", h);
	fl_svg_xaxis(f, &ax, h - BOTTOM + 6, 14, "CPU ns per op (user+sys, every thread), median");
	fl_svg_yaxis(f, &ay, 90, W - 150, p->c->value == FL_VALUE_NS ? "ns per op, median"
							       : "the program's figure, median");
	for (int i = 0; i < p->nrow; i++) {
		const struct fl_cell *y = p->r[i].y;
		if (!p->r[i].usable || !(y->cpu.median > 0) || !(y->shown > 0))
			continue;
		struct fl_svg_style s = fl_svg_style(y->variant, p->baseline);
		double px = fl_axis_px(&ax, y->cpu.median), py = fl_axis_px(&ay, y->shown);
		char tip[160];
		snprintf(tip, sizeof tip, "%s: %.1f ns/op, %.1f CPU ns/op", y->variant, y->shown,
			 y->cpu.median);
		fl_svg_marker(f, &s, px, py, tip);
		fprintf(f, "<text class=\"pl%s\" x=\"%.1f\" y=\"%.1f\">", s.shape == 's' ? " lib" : "",
			px + 7, py + 3);
		fl_html_puts(f, y->variant);
		fputs("</text>\n", f);
	}
	fig_close(f, "(b) time against CPU per op, each entry's medians over its timed rounds: "
		  "lower is faster, further left burns less CPU; squares (bold names) are the "
		  "shipped libraries.");
	return 1;
}

/* A row plot of one or two values per entry (c, d): rows with a value
 * only. get returns the value k (0, 1) of a row, NAN for none. */
struct rowplot {
	const char *kind, *xlabel, *caption;
	bool log;
	double (*get)(const struct fl_cell *y, int k);
};

static int plot_rows(FILE *f, const struct fl_hpoint *p, const struct rowplot *rp)
{
	int *idx = fl_xcalloc((size_t)p->nrow, sizeof *idx), n = 0;
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < p->nrow; i++) {
		double v0 = rp->get(p->r[i].y, 0), v1 = rp->get(p->r[i].y, 1);
		if (!p->r[i].usable || (!isfinite(v0) && !isfinite(v1)))
			continue;
		idx[n++] = i;
		for (int k = 0; k < 2; k++) {
			double v = k ? v1 : v0;
			if (isfinite(v) && (!rp->log || v > 0))
				lo = fmin(lo, v), hi = fmax(hi, v);
		}
	}
	if (!n || !(lo <= hi)) {
		free(idx);
		return 0;
	}
	double h = TOP + ROW * n + BOTTOM;
	struct fl_axis a;
	fl_axis_fit(&a, lo, hi, rp->log, LEFT, W - RIGHT);
	fig_open(f, p, rp->kind, h);
	fl_svg_xaxis(f, &a, h - BOTTOM + 6, TOP - 6, rp->xlabel);
	for (int j = 0; j < n; j++) {
		const struct fl_cell *y = p->r[idx[j]].y;
		double py = row_label(f, p, j, y->variant), v0 = rp->get(y, 0), v1 = rp->get(y, 1);
		struct fl_svg_style s = fl_svg_style(y->variant, p->baseline);
		bool ok0 = isfinite(v0) && (!rp->log || v0 > 0), ok1 = isfinite(v1) && (!rp->log || v1 > 0);
		char tip[128];
		snprintf(tip, sizeof tip, "%s: %.4g to %.4g", y->variant, v0, v1);
		if (ok0 && ok1)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				   "stroke-width=\"2\"/>\n", fl_axis_px(&a, v0), py, fl_axis_px(&a, v1),
				py, s.color);
		if (ok1)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				   "stroke-width=\"2\"/>\n", fl_axis_px(&a, v1), py - 6,
				fl_axis_px(&a, v1), py + 6, s.color);
		if (ok0)
			fl_svg_marker(f, &s, fl_axis_px(&a, v0), py, tip);
	}
	fig_close(f, rp->caption);
	free(idx);
	return 1;
}

static double w2r(const struct fl_cell *y, int k)
{
	return y->nprobed > 0 ? y->k[k ? FL_K_W2R_P99 : FL_K_W2R_P50] : NAN;
}

static double jain(const struct fl_cell *y, int k)
{
	return k ? NAN : y->extra[0]; /* fair_jain */
}

int fl_html_point_plots(FILE *f, const struct fl_hpoint *p)
{
	static const struct rowplot wake = {
		"w2r", "wake-to-run, ns: from the wake to the woken thread running (dot p50, bar p99)",
		"(c) wake-to-run per entry, medians over the probed rounds (the kernel's view, "
		"eBPF): the dot is the p50, the bar the p99.", true, w2r },
		fair = { "fair", "Jain's fairness index over the threads' ops (1: every thread alike)",
			 "(d) fairness per entry: Jain's index of the threads' op counts, median over "
			 "the rounds (1 is perfectly even; 1/T is one thread doing everything).", false,
			 jain };
	fputs("<div class=\"figs\">\n", f);
	plot_ratio(f, p);
	int n = 1 + plot_cpu(f, p);
	n += plot_rows(f, p, &wake);
	n += plot_rows(f, p, &fair);
	fputs("</div>\n", f);
	return n;
}

/* The markers' legend: one figure at the top of the page. */
void fl_html_legend(FILE *f, const char *baseline)
{
	static const char *const what[] = { "a futexlab design (one hue a family)",
					    "the design under a waiting policy (NAME@POLICY)",
					    "a shipped library (glibc, musl-libc, cxx-gnu, cxx-llvm)",
					    "the control: the baseline run again each round",
					    "a floor (floor-atomic, floor-inline, floor-futex)" };
	struct fl_svg_style s[5] = {
		{ "#1f77b4", 'o', false }, { "#1f77b4", 'o', true }, { "#222222", 's', false },
		{ "#222222", 's', true }, { "#8a8a8a", 't', false },
	};
	double h = 5 * ROW + 10;
	fprintf(f, "<figure class=\"plot\" id=\"legend\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		   "viewBox=\"0 0 460 %.0f\" width=\"460\" height=\"%.0f\" role=\"img\">\n", h, h);
	for (int i = 0; i < 5; i++) {
		fl_svg_marker(f, &s[i], 14, 14 + ROW * i, what[i]);
		fprintf(f, "<text class=\"rl\" x=\"28\" y=\"%.1f\">%s</text>\n", 18 + ROW * i, what[i]);
	}
	fputs("</svg>\n<figcaption>The markers of every plot (the control here: ", f);
	fl_html_puts(f, baseline);
	fputs("#2).</figcaption>\n</figure>\n", f);
}
