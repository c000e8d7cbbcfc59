/* report/html_pool.c — the pooled part of the HTML report (html_pool.h).
 * Its numbers are printed at the TSV's precision (pool.c's tsv_row, 4
 * decimals), so the page and `compare --pool --tsv` agree digit for digit. */
#include "report/html_pool.h"

#include <math.h>
#include <string.h>

#include "model/stats_text.h"
#include "report/svg.h"

/* Each run's median ratio, comma-separated (a run without one: its
 * status), as the TSV's run_ratios field. */
static void runs_own(FILE *f, const struct fl_pool_result *r, const struct fl_pool_row *w)
{
	for (int j = 0; j < r->nruns; j++) {
		if (j)
			fputc(',', f);
		if (!isnan(w->run_ratio[j]))
			fprintf(f, "%.3f", w->run_ratio[j]);
		else
			fl_html_puts(f, w->run_status[j]);
	}
}

static void pool_row(FILE *f, const struct fl_pool_result *r, const struct fl_pool_row *w)
{
	const struct fl_pool_entry *o = &w->e;
	fputs("<tr data-entry=\"", f);
	fl_html_puts(f, w->variant);
	fputs("\"><td class=\"entry\">", f);
	fl_html_puts(f, w->variant);
	fprintf(f, "</td><td>%d</td><td class=\"ratio\">", o->runs);
	if (o->runs > 0)
		fprintf(f, "%.4f", o->ratio);
	fputs("</td><td>", f);
	if (isfinite(o->pred_half))
		fprintf(f, "[%.4f, %.4f]</td><td>[%.4f, %.4f]", o->conf_lo, o->conf_hi, o->pred_lo,
			o->pred_hi);
	else
		fputs("</td><td>", f);
	fputs("</td><td class=\"v\">", f);
	fl_html_puts(f, fl_verdict_name(w->verdict));
	fputs("</td><td>", f);
	runs_own(f, r, w);
	fputs("</td></tr>\n", f);
}

static void pool_table(FILE *f, const struct fl_pool_result *r, const struct fl_pool_pt *p)
{
	fputs("<table class=\"ratios pool\"><tr><th class=\"entry\">entry</th><th>runs</th>"
	      "<th>pooled ratio</th><th>long-run ratio, 95%</th><th>next run's ratio, 99%</th>"
	      "<th>verdict</th><th>each run's ratio</th></tr>\n", f);
	for (int e = 0; e < p->nrow; e++)
		pool_row(f, r, &p->row[e]);
	fputs("</table>\n", f);
}

/* Whether row w has a prediction interval to draw (the pool's two runs
 * or more). */
static bool has_pred(const struct fl_pool_row *w)
{
	return isfinite(w->e.pred_half) && w->e.pred_lo > 0;
}

/* The pooled ratio per entry: the dot, the long-run interval thick, the
 * next run's interval thin. */
static void pool_plot(FILE *f, const struct fl_pool_pt *p, int id, const char *baseline)
{
	int n = p->nrow;
	double lo = 1, hi = 1, h = 22 + 18.0 * n + 46, L = 170, R = 630;
	for (int i = 0; i < n; i++)
		if (has_pred(&p->row[i]))
			lo = fmin(lo, p->row[i].e.pred_lo), hi = fmax(hi, p->row[i].e.pred_hi);
	struct fl_axis a;
	fl_axis_fit(&a, lo, hi, true, L, R);
	fprintf(f, "<figure class=\"plot\" id=\"pool-p%d-ratio\">\n<svg xmlns=\"http://www.w3.org/2000/"
		   "svg\" viewBox=\"0 0 760 %.0f\" width=\"760\" height=\"%.0f\" role=\"img\">\n", id,
		h, h);
	fl_svg_xaxis(f, &a, h - 40, 16, "pooled ratio to the baseline (geometric mean of the runs' "
		     "median ratios)");
	double x1 = fl_axis_px(&a, 1);
	fprintf(f, "<line class=\"one\" x1=\"%.1f\" y1=\"14\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x1, x1,
		h - 40);
	for (int i = 0; i < n; i++) {
		const struct fl_pool_row *w = &p->row[i];
		double y = 22 + 18.0 * i + 9;
		struct fl_svg_style s = fl_svg_style(w->variant, baseline);
		fprintf(f, "<text class=\"rl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", L - 8, y + 4);
		fl_html_puts(f, w->variant);
		fputs("</text>\n", f);
		if (has_pred(w))
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
				   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				   "stroke-width=\"4\"/>\n", fl_axis_px(&a, w->e.pred_lo), y,
				fl_axis_px(&a, w->e.pred_hi), y, s.color, fl_axis_px(&a, w->e.conf_lo), y,
				fl_axis_px(&a, w->e.conf_hi), y, s.color);
		if (w->e.runs > 0 && w->e.ratio > 0)
			fl_svg_marker(f, &s, fl_axis_px(&a, w->e.ratio), y, w->variant);
	}
	fputs("</svg>\n<figcaption>Runs pooled: the dot is the pooled ratio, the thick bar where "
	      "the long-run ratio lies (95%), the thin bar where the next identical run's ratio "
	      "will land (99% prediction interval).</figcaption>\n</figure>\n", f);
}

/* One cell: <td> (of class cls when not NULL), the escaped text. */
static void cell(FILE *f, const char *cls, const char *text)
{
	if (cls)
		fprintf(f, "<td class=\"%s\">", cls);
	else
		fputs("<td>", f);
	fl_html_puts(f, text);
	fputs("</td>", f);
}

/* One point judged against the libraries (pool_libs.h), its figures at
 * the vs-libraries line's precision. */
static void libs_row(FILE *f, const struct fl_pool_libs_point *p)
{
	char v[32], t[24], cpu[24] = "";
	snprintf(v, sizeof v, "%.6g", p->lib_value);
	snprintf(t, sizeof t, "%.4f", p->time.ratio);
	if (!isnan(p->cpu))
		snprintf(cpu, sizeof cpu, "%.4f", p->cpu);
	fputs("<tr data-entry=\"", f);
	fl_html_puts(f, p->point);
	fputs("\">", f);
	cell(f, NULL, p->point);
	cell(f, NULL, p->lib);
	cell(f, NULL, v);
	cell(f, NULL, p->entry);
	cell(f, "ratio", t);
	fprintf(f, "<td>[%.4f, %.4f]</td>", p->time.conf_lo, p->time.conf_hi);
	cell(f, NULL, cpu);
	cell(f, "v", fl_pool_libs_verdict_name(p->v));
	fputs("</tr>\n", f);
}

/* The libraries judgement as a table, its count first. */
static void libs_table(FILE *f, const struct fl_pool_result *r)
{
	int ahead, faster;
	fl_pool_libs_count(r->libs, r->nlibs, &ahead, &faster);
	fputs("<section class=\"pool libs\" id=\"pool-libs\" data-point=\"vs-libraries\">\n"
	      "<h3>vs the libraries <small>(pooled)</small></h3>\n<p>At each point the fastest "
	      "shipped library and the futexlab entry with the lowest pooled time ratio to it "
	      "among those at no more than its CPU per op (harness/verdicts.md, \"Runs as the "
	      "top level\"). ", f);
	fprintf(f, "Pooled over %d runs: some futexlab entry at or below the fastest library's "
		   "time at &lt;= 1.00x its CPU at %d of %d points, faster beyond the noise at %d.",
		r->nruns, ahead, r->nlibs, faster);
	fputs("</p>\n<table class=\"ratios pool\"><tr><th>point</th><th>fastest library</th>"
	      "<th>its ns/op (or metric), pooled</th><th>best futexlab entry</th><th>time ratio"
	      "</th><th>long-run time ratio, 95%</th><th>CPU ratio</th><th>verdict</th></tr>\n", f);
	for (int i = 0; i < r->nlibs; i++)
		libs_row(f, &r->libs[i]);
	fputs("</table>\n</section>\n", f);
}

int fl_html_pool(FILE *f, const struct fl_pool_result *r)
{
	int figs = 0;
	fprintf(f, "<h2 id=\"pool\">The %d runs pooled</h2>\n<p>The run as the top level "
		   "(futexlab compare --pool; harness/verdicts.md, \"Runs as the top level\"): each "
		   "run's median ratio per entry, their geometric mean, where the long-run ratio lies "
		   "and where the next identical run's will land. Each run's own page follows.</p>\n",
		r->nruns);
	for (int i = 0; i < r->npt; i++) {
		const struct fl_pool_pt *p = &r->pt[i];
		if (p->nrow == 0)
			continue; /* a point of the baseline alone: nothing pooled */
		fprintf(f, "<section class=\"point pool\" id=\"pool-p%d\" data-point=\"", figs + 1);
		fl_html_puts(f, p->point);
		fputs("\">\n<h3>", f);
		fl_html_puts(f, p->point);
		fputs(" <small>(pooled)</small></h3>\n", f);
		pool_table(f, r, p);
		pool_plot(f, p, ++figs, r->baseline);
		fputs("</section>\n", f);
	}
	if (r->nlibs > 0)
		libs_table(f, r);
	return figs;
}
