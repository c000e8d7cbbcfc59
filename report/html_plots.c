/* report/html_plots.c — a point's figures in the HTML report, inline SVG
 * (html_point.h): (a) each entry's paired ratio to the baseline with its
 * interval, (b) time against CPU per op, (c) wake-to-run p50 to p99 from
 * the probed rounds, (d) fairness (Jain's index): the last two where the
 * file has them. How to read them: report/report.md. */
#include "report/html_point.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/page.h"
#include "report/svg.h"
#include "fail/xalloc.h"
#include "model/catalog.h"

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
			fl_html_puts(f, r->usable ? "no ratio" : fl_html_status(r->y->status));
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

/* A label of the time-against-CPU plot: its point, its box once placed. */
struct cpu_label {
	const struct fl_cell *y;
	double px, py, x0, y0, x1, y1;
	bool lib, placed;
};

/* The libraries first, then the faster first: who gets a label when two
 * would overlap. */
static int label_order(const void *a, const void *b)
{
	const struct cpu_label *x = a, *y = b;
	if (x->lib != y->lib)
		return x->lib ? -1 : 1;
	return (x->y->shown > y->y->shown) - (x->y->shown < y->y->shown);
}

/* Whether box b (x0, y0, x1, y1) meets a label placed before l's (done,
 * ndone) or any marker but l's own (all n, a 10 px square each). */
static bool box_taken(const double b[4], const struct cpu_label *l, const struct cpu_label *all,
		      int n, int ndone)
{
	for (int j = 0; j < n; j++) {
		const struct cpu_label *o = &all[j];
		if (o != l && b[0] < o->px + 5 && o->px - 5 < b[2] && b[1] < o->py + 5 &&
		    o->py - 5 < b[3])
			return true;
		if (j < ndone && o->placed && b[0] < o->x1 && o->x0 < b[2] && b[1] < o->y1 &&
		    o->y0 < b[3])
			return true;
	}
	return false;
}

/* Places label l (all[ndone]) at the first of eight spots around its
 * marker (right, left, above, below, then the diagonals) whose box, as
 * wide as its text at 10px (an upper bound of the glyphs' average width),
 * stays in the plot (area: right of its y axis at area[0], within
 * area[1], above its x axis at area[2]) and meets no marker and no label placed
 * before; returns whether one was free. */
static bool place_label(struct cpu_label *l, const struct cpu_label *all, int n, int ndone,
			const double area[3])
{
	double tw = (double)strlen(l->y->variant) * (l->lib ? 7.2 : 6.6) + 2;
	/* the box's left edge and its baseline, from the marker */
	const double dx[8] = { 7, -7 - tw, -tw / 2, -tw / 2, 6, 6, -6 - tw, -6 - tw },
		     dy[8] = { 4, 4, -8, 16, -6, 14, -6, 14 };
	for (int c = 0; c < 8; c++) {
		double box[4] = { l->px + dx[c], l->py + dy[c] - 11, l->px + dx[c] + tw,
				  l->py + dy[c] + 3 };
		if (box[0] < area[0] || box[2] > area[1] || box[1] < 0 || box[3] > area[2] ||
		    box_taken(box, l, all, n, ndone))
			continue;
		l->x0 = box[0], l->y0 = box[1], l->x1 = box[2], l->y1 = box[3];
		l->placed = true;
		return true;
	}
	return false;
}

/* (b) ns per op against CPU ns per op: every usable entry, the libraries
 * labelled in bold; a label that would overlap another is left out, and
 * the caption names those entries with their numbers. */
static int plot_cpu(FILE *f, const struct fl_hpoint *p)
{
	double xl = INFINITY, xh = 0, yl = INFINITY, yh = 0;
	struct cpu_label *l = fl_xcalloc((size_t)p->nrow + 1, sizeof *l);
	int n = 0;
	for (int i = 0; i < p->nrow; i++) {
		const struct fl_cell *y = p->r[i].y;
		if (!p->r[i].usable || !(y->cpu.median > 0) || !(y->shown > 0))
			continue;
		xl = fmin(xl, y->cpu.median), xh = fmax(xh, y->cpu.median);
		yl = fmin(yl, y->shown), yh = fmax(yh, y->shown);
		l[n++].y = y;
	}
	if (!n) {
		free(l);
		return 0;
	}
	double h = 440;
	struct fl_axis ax, ay;
	fl_axis_fit(&ax, xl, xh, true, 90, W - 150);
	fl_axis_fit(&ay, yl, yh, true, h - BOTTOM, 14);
	fig_open(f, p, "cpu", h);
	fl_svg_xaxis(f, &ax, h - BOTTOM + 6, 14, "CPU ns per op (user+sys, every thread), median");
	fl_svg_yaxis(f, &ay, 90, W - 150, p->c->value == FL_VALUE_NS ? "ns per op, median"
							       : "the program's figure, median");
	for (int i = 0; i < n; i++) {
		const struct fl_cell *y = l[i].y;
		struct fl_svg_style s = fl_svg_style(y->variant, p->baseline);
		l[i].px = fl_axis_px(&ax, y->cpu.median), l[i].py = fl_axis_px(&ay, y->shown);
		l[i].lib = s.shape == 's';
		char tip[160];
		snprintf(tip, sizeof tip, "%s: %.1f ns/op, %.1f CPU ns/op", y->variant, y->shown,
			 y->cpu.median);
		fl_svg_marker(f, &s, l[i].px, l[i].py, tip);
	}
	qsort(l, (size_t)n, sizeof *l, label_order);
	int dropped = 0;
	const double area[3] = { 92, W, h - BOTTOM };
	for (int i = 0; i < n; i++) {
		if (!place_label(&l[i], l, n, i, area)) {
			dropped++;
			continue;
		}
		fprintf(f, "<text class=\"pl%s\" x=\"%.1f\" y=\"%.1f\">", l[i].lib ? " lib" : "",
			l[i].x0 + 1, l[i].y1 - 3);
		fl_html_puts(f, l[i].y->variant);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n<figcaption>(b) time against CPU per op, each entry's medians over its timed "
	      "rounds: lower is faster, further left burns less CPU; squares (bold names) are the "
	      "shipped libraries.", f);
	if (dropped)
		fprintf(f, " Not labelled (no room beside the marker), ns per op at CPU ns per op:");
	for (int i = 0, k = 0; i < n; i++) {
		if (l[i].placed)
			continue;
		fputs(k++ ? "; " : " ", f);
		fputs("<span class=\"dropped\">", f);
		fl_html_puts(f, l[i].y->variant);
		fprintf(f, "</span> %.4g at %.4g", l[i].y->shown, l[i].y->cpu.median);
	}
	fputs("</figcaption>\n</figure>\n", f);
	free(l);
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
