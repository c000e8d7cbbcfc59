/* report/html_pool.c — the pooled part of the HTML report (html_pool.h). */
#include "report/html_pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"
#include "report/xalloc.h"

/* One line of the pool's TSV (pool.h): point, variant, runs, ratio,
 * conf_lo, conf_hi, pred_lo, pred_hi, verdict, df, between_sd, run_ratios;
 * after them the libraries' lines (pool_libs.h), first field
 * "vs-libraries" or "vs-libraries-total". */
#define NF 12
struct pline {
	char *f[NF];
	double ratio, clo, chi, plo, phi;
};

static int parse(char *text, struct pline **out)
{
	int n = 0, cap = 0;
	char *save = NULL;
	strtok_r(text, "\n", &save); /* the header */
	for (char *l; (l = strtok_r(NULL, "\n", &save));) {
		if (n == cap)
			*out = fl_xrealloc(*out, (size_t)(cap = 2 * cap + 16) * sizeof **out);
		struct pline *p = &(*out)[n++];
		for (int k = 0; k < NF; k++) {
			p->f[k] = l;
			l += strcspn(l, "\t");
			if (*l)
				*l++ = '\0';
		}
		double *v[5] = { &p->ratio, &p->clo, &p->chi, &p->plo, &p->phi };
		for (int k = 0; k < 5; k++)
			*v[k] = *p->f[3 + k] ? strtod(p->f[3 + k], NULL) : NAN;
	}
	return n;
}

static void pool_table(FILE *f, const struct pline *p, int n)
{
	fputs("<table class=\"ratios pool\"><tr><th class=\"entry\">entry</th><th>runs</th>"
	      "<th>pooled ratio</th><th>long-run ratio, 95%</th><th>next run's ratio, 99%</th>"
	      "<th>verdict</th><th>each run's ratio</th></tr>\n", f);
	for (int i = 0; i < n; i++) {
		fputs("<tr data-entry=\"", f);
		fl_html_puts(f, p[i].f[1]);
		fputs("\"><td class=\"entry\">", f);
		fl_html_puts(f, p[i].f[1]);
		fputs("</td><td>", f);
		fl_html_puts(f, p[i].f[2]);
		fputs("</td><td class=\"ratio\">", f);
		fl_html_puts(f, p[i].f[3]);
		fputs("</td><td>", f);
		if (*p[i].f[4])
			fprintf(f, "[%.4f, %.4f]</td><td>[%.4f, %.4f]", p[i].clo, p[i].chi, p[i].plo,
				p[i].phi);
		else
			fputs("</td><td>", f);
		fputs("</td><td class=\"v\">", f);
		fl_html_puts(f, p[i].f[8]);
		fputs("</td><td>", f);
		fl_html_puts(f, p[i].f[11]);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The pooled ratio per entry: the dot, the long-run interval thick, the
 * next run's interval thin. */
static void pool_plot(FILE *f, const struct pline *p, int n, int id, const char *baseline)
{
	double lo = 1, hi = 1, h = 22 + 18.0 * n + 46, L = 170, R = 630;
	for (int i = 0; i < n; i++)
		if (p[i].plo > 0)
			lo = fmin(lo, p[i].plo), hi = fmax(hi, p[i].phi);
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
		double y = 22 + 18.0 * i + 9;
		struct fl_svg_style s = fl_svg_style(p[i].f[1], baseline);
		fprintf(f, "<text class=\"rl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", L - 8, y + 4);
		fl_html_puts(f, p[i].f[1]);
		fputs("</text>\n", f);
		if (p[i].plo > 0)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
				   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				   "stroke-width=\"4\"/>\n", fl_axis_px(&a, p[i].plo), y,
				fl_axis_px(&a, p[i].phi), y, s.color, fl_axis_px(&a, p[i].clo), y,
				fl_axis_px(&a, p[i].chi), y, s.color);
		if (p[i].ratio > 0)
			fl_svg_marker(f, &s, fl_axis_px(&a, p[i].ratio), y, p[i].f[1]);
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

/* The libraries' lines (pool_libs.h: vs-libraries, point, library, its
 * figure, entry, time ratio, conf_lo, conf_hi, CPU ratio, verdict; then
 * vs-libraries-total, runs, points, ahead, faster) as a table. */
static void libs_table(FILE *f, const struct pline *p, int n)
{
	fputs("<section class=\"pool libs\" id=\"pool-libs\" data-point=\"vs-libraries\">\n"
	      "<h3>vs the libraries <small>(pooled)</small></h3>\n<p>At each point the fastest "
	      "shipped library and the futexlab entry with the lowest pooled time ratio to it "
	      "among those at no more than its CPU per op (harness/verdicts.md, \"Runs as the "
	      "top level\"). ", f);
	for (int i = 0; i < n; i++)
		if (!strcmp(p[i].f[0], "vs-libraries-total"))
			fprintf(f, "Pooled over %s runs: some futexlab entry at or below the fastest "
				   "library's time at &lt;= 1.00x its CPU at %s of %s points, faster "
				   "beyond the noise at %s.", p[i].f[1], p[i].f[3], p[i].f[2], p[i].f[4]);
	fputs("</p>\n<table class=\"ratios pool\"><tr><th>point</th><th>fastest library</th>"
	      "<th>its ns/op (or metric), pooled</th><th>best futexlab entry</th><th>time ratio"
	      "</th><th>long-run time ratio, 95%</th><th>CPU ratio</th><th>verdict</th></tr>\n", f);
	for (int i = 0; i < n; i++) {
		char *const *x = p[i].f;
		if (strcmp(x[0], "vs-libraries"))
			continue;
		fputs("<tr data-entry=\"", f);
		fl_html_puts(f, x[1]);
		fputs("\">", f);
		cell(f, NULL, x[1]);
		cell(f, NULL, x[2]);
		cell(f, NULL, x[3]);
		cell(f, NULL, x[4]);
		cell(f, "ratio", x[5]);
		fputs("<td>[", f);
		fl_html_puts(f, x[6]);
		fputs(", ", f);
		fl_html_puts(f, x[7]);
		fputs("]</td>", f);
		cell(f, NULL, x[8]);
		cell(f, "v", x[9]);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n</section>\n", f);
}

int fl_html_pool(FILE *f, const char *tsv, int nruns, const char *baseline)
{
	char *text = fl_xstrdup(tsv);
	struct pline *p = NULL;
	int n = parse(text, &p), figs = 0, m = 0;
	while (m < n && strncmp(p[m].f[0], "vs-libraries", 12))
		m++; /* the entries' lines; the libraries' after them */
	fprintf(f, "<h2 id=\"pool\">The %d runs pooled</h2>\n<p>The run as the top level "
		   "(futexlab compare --pool; harness/verdicts.md, \"Runs as the top level\"): each "
		   "run's median ratio per entry, their geometric mean, where the long-run ratio lies "
		   "and where the next identical run's will land. Each run's own page follows.</p>\n",
		nruns);
	for (int i = 0, j; i < m; i = j) {
		for (j = i; j < m && !strcmp(p[j].f[0], p[i].f[0]); j++)
			;
		fprintf(f, "<section class=\"point pool\" id=\"pool-p%d\" data-point=\"", figs + 1);
		fl_html_puts(f, p[i].f[0]);
		fputs("\">\n<h3>", f);
		fl_html_puts(f, p[i].f[0]);
		fputs(" <small>(pooled)</small></h3>\n", f);
		pool_table(f, p + i, j - i);
		pool_plot(f, p + i, j - i, ++figs, baseline);
		fputs("</section>\n", f);
	}
	if (m < n)
		libs_table(f, p + m, n - m);
	free(p);
	free(text);
	return figs;
}
