/* report/html.c — the HTML report's page (html.h): per run the fastest per
 * point, the summary matrix, the run's metadata (folded), each point's
 * ratio table, figures, fairness and evidence tables; the designs' lines.
 * The figures: html_plots.c; the pooled part: html_pool.c. */
#include "report/html.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/catalog.h"
#include "report/html_point.h"
#include "report/html_pool.h"
#include "report/page.h"
#include "report/peers.h"
#include "model/evidence.h"
#include "model/rule.h"
#include "report/tables.h"
#include "model/regimes.h"
#include "report/summary.h"
#include "report/svg.h"
#include "fail/fail.h"
#include "fail/xalloc.h"
#include "model/stats_text.h"

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1400px;padding:0 1em;"
	"color:#111}\np.testrun{color:#a00;border:2px solid #a00;padding:.4em .6em}\nh1{font-size:1.5em}h2{border-bottom:2px solid #ccc;margin-top:2em}"
	"h3{margin:1.6em 0 .4em;font-family:monospace;font-size:1.1em}\n"
	"table{border-collapse:collapse;margin:.4em 0}td,th{padding:2px 8px;border-bottom:1px solid "
	"#e4e4e4;text-align:right;white-space:nowrap}th{background:#f2f2f2;white-space:normal;"
	"vertical-align:bottom}\n"
	"td.entry,td.k,td.v,th.entry{text-align:left}td.v{white-space:normal}\n"
	"caption{caption-side:top;text-align:left;font-size:12px;color:#333;padding:.2em 0}\n"
	"div.wide{max-width:100%;overflow-x:auto}\n"
	"table.matrix td{font-family:monospace;font-size:12px;padding:2px 5px}table.matrix th.pt{"
	"text-align:center;font-weight:normal;font-size:11px;min-width:5.5em;max-width:7em;"
	"overflow-wrap:anywhere}table.matrix th.gm{font-weight:normal;font-size:11px;max-width:8em}\n"
	"table.matrix small.iv{font-size:10px;color:#555;font-weight:normal}sup.cpu{color:#b3261e}\n"
	"td.win{white-space:normal;font-size:11px;text-align:left;overflow-wrap:anywhere;"
	"vertical-align:top}table.fastest td.tie{white-space:normal;font-size:12px}"
	"table.fastest td.v{font-size:12px;min-width:14em}table.fastest td.tie{max-width:30em}\n"
	"details.meta{margin:1em 0}details.meta summary{cursor:pointer;font-weight:bold}"
	"table.meta td{padding:0 8px;font-size:12px;border:0}\n"
	"table.evidence td,table.fairness td{font-size:12px}p.why,p.libs,p.note{font-size:12px}\n"
	".v1,td.v1{color:#0a7a2a;font-weight:bold}.v2,td.v2{color:#b3261e;font-weight:bold}"
	".v0{color:#555}.v3{color:#999}\n"
	"pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:12px}\n"
	".figs{display:flex;flex-wrap:wrap;gap:1em}figure{margin:.5em 0;width:660px;max-width:100%}"
	"figure svg{width:100%;height:auto}figure#legend{width:460px}"
	"figcaption{font-size:12px;color:#333}\n"
	"svg text{font:11px system-ui,sans-serif;fill:#222}svg text.lab{font-size:12px}"
	"svg text.pl{font-size:10px}svg text.lib{font-weight:bold}svg text.na{fill:#999}\n"
	"svg .ax{stroke:#444}svg .grid{stroke:#e2e2e2}svg .one{stroke:#000;stroke-dasharray:4 3}\n"
	"svg text.v1{fill:#0a7a2a}svg text.v2{fill:#b3261e}\n";

const char *fl_report_path(char *b, size_t n, const char *first_csv, const char *out)
{
	size_t l;
	if (out && (l = strlen(out)) >= 5 && !strcmp(out + l - 5, ".html")) {
		snprintf(b, n, "%s", out);
	} else if (out) {
		if (mkdir(out, 0777) && errno != EEXIST)
			fl_bad_input("report: cannot make the directory %s: %s", out, strerror(errno));
		snprintf(b, n, "%s/index.html", out);
	} else {
		l = strlen(first_csv);
		if (l >= 4 && !strcmp(first_csv + l - 4, ".csv"))
			l -= 4;
		snprintf(b, n, "%.*s.html", (int)l, first_csv);
	}
	return b;
}

/* ---- the rows of a point ------------------------------------------------ */

/* The rows of run r at point p as the model judged them. */
static struct fl_hrow *hrows(const struct fl_model *m, int r, int p, int *nrow)
{
	struct fl_hrow *h = fl_xcalloc((size_t)m->nentry + 1, sizeof *h);
	*nrow = 0;
	for (int e = 0; e < m->nentry; e++) {
		const struct fl_mcell *x = fl_model_cell(m, r, p, e);
		if (!x->present)
			continue;
		struct fl_hrow *w = &h[(*nrow)++];
		*w = (struct fl_hrow){ .y = x->src, .usable = x->usable, .v = x->verdict,
				       .q = x->ratio, .have = x->judged };
		bool base = fl_model_is_baseline(m, e) && x->usable;
		if (base) {
			w->have = true;
			w->q = (struct fl_ratio){ .n = x->src->ns.n, .median = 1, .lo = 1, .hi = 1 };
		}
		snprintf(w->vt, sizeof w->vt, "%s", base ? "baseline" : !x->judged ? "-"
					   : x->regimes ? "regimes (below)" : "");
		if (!base && x->judged && !x->regimes)
			fl_judged_text(w->vt, sizeof w->vt, &x->j);
	}
	return h;
}

const char *fl_html_status(const char *status)
{
	return !status ? "" : !strcmp(status, "skipped") ? "skip" : !strcmp(status, "error") ? "ERR"
			     : strcmp(status, "ok") ? "\u2013" : "-";
}

/* An entry's name, linked to its design's line when it has one. */
static void entry_name(FILE *f, const char *label)
{
	char b[64];
	const char *d = fl_catalog_design(label, b, sizeof b);
	if (d && fl_catalog_summary(label)) {
		fprintf(f, "<a href=\"#design-");
		fl_html_puts(f, d);
		fputs("\">", f);
		fl_html_puts(f, label);
		fputs("</a>", f);
	} else {
		fl_html_puts(f, label);
	}
}

static void ratio_row(FILE *f, const struct fl_hrow *r, const struct fl_cell *ref)
{
	const struct fl_cell *y = r->y;
	fputs("<tr data-entry=\"", f);
	fl_html_puts(f, y->variant);
	fputs("\"><td class=\"entry\">", f);
	entry_name(f, y->variant);
	if (!r->usable) { /* the status as the matrix says it, then the note */
		fprintf(f, "</td><td class=\"st\">%s</td><td colspan=\"4\" class=\"v\">",
			fl_html_status(y->status));
		fl_html_puts(f, y->note[0] ? y->note : y->status);
		fputs("</td></tr>\n", f);
		return;
	}
	fprintf(f, y->value == FL_VALUE_NS ? "</td><td class=\"ns\">%.1f" : "</td><td class=\"ns\">%.6g",
		y->shown);
	char res[32];
	if (y == ref)
		fprintf(f, "</td><td class=\"ratio\">1.000</td><td class=\"ci\">baseline (%d rounds)"
			   "</td><td></td>", y->ns.n);
	else if (!r->have)
		fputs("</td><td class=\"ratio\">-</td><td class=\"ci\">no baseline rounds to pair with"
		      "</td><td></td>", f);
	else
		fprintf(f, "</td><td class=\"ratio\">%.3f</td><td class=\"ci\">[<span class=\"lo\">%.3f"
			   "</span>, <span class=\"hi\">%.3f</span>] %.0f%%</td><td>%s</td>",
			r->q.median, r->q.lo, r->q.hi, 100 * r->q.level,
			fl_factor_text(res, sizeof res, r->q.resolution));
	fprintf(f, "<td class=\"v v%d\">", r->v);
	fl_html_puts(f, r->vt);
	fputs("</td></tr>\n", f);
}

/* The fairness and latency medians (the cells' extra[]) as a table, where
 * the point's rows have them. */
static void fairness_table(FILE *f, const struct fl_cell **row, int nrow)
{
	bool col[FL_NEXTRA] = { false }, any = false;
	for (int j = 0; j < nrow; j++)
		for (int k = 0; k < FL_NEXTRA; k++)
			if (fl_cell_usable(row[j]) && !isnan(row[j]->extra[k]))
				col[k] = any = true;
	if (!any)
		return;
	fputs("<table class=\"fairness\"><caption>fairness and latency, medians over the rounds"
	      "</caption>\n<tr><th class=\"entry\">entry</th>", f);
	for (int k = 0; k < FL_NEXTRA; k++)
		if (col[k])
			fprintf(f, "<th>%s</th>", fl_extra_heads[k]);
	fputs("</tr>\n", f);
	for (int j = 0; j < nrow; j++) {
		if (!fl_cell_usable(row[j]))
			continue;
		fputs("<tr><td class=\"entry\">", f);
		fl_html_puts(f, row[j]->variant);
		fputs("</td>", f);
		for (int k = 0; k < FL_NEXTRA; k++) {
			char b[24];
			if (col[k])
				fprintf(f, "<td>%s</td>", fl_extra_text(b, sizeof b, k, row[j]->extra[k]));
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The evidence block (evidence.h) as a table: per usable row CPU, context
 * switches and the kernel's counts per op; a column no row has a value of
 * is left out. */
static void evidence_table(FILE *f, const struct fl_cell *const *row, int nrow, bool probed)
{
	bool col[FL_NEV] = { false }, any = false;
	for (int j = 0; j < nrow; j++) {
		double v[FL_NEV];
		if (!fl_cell_usable(row[j]))
			continue;
		any = true;
		fl_evidence_values(row[j], v);
		for (int k = 0; k < FL_NEV; k++)
			col[k] |= !isnan(v[k]) && fl_evidence_shown(k, row, nrow);
	}
	if (!any)
		return;
	char t[200];
	fl_evidence_title(t, sizeof t, row, nrow, fl_catalog_op(row[0]->workload));
	fputs("<table class=\"evidence\"><caption>", f);
	fl_html_puts(f, t);
	fputs("</caption>\n<tr><th class=\"entry\">entry</th>", f);
	for (int k = 0; k < FL_NEV; k++)
		if (col[k]) {
			fputs("<th>", f);
			fl_html_puts(f, fl_evidence_head(k));
			fputs("</th>", f);
		}
	fputs("</tr>\n", f);
	for (int j = 0; j < nrow; j++) {
		double v[FL_NEV];
		if (!fl_cell_usable(row[j]))
			continue;
		fl_evidence_values(row[j], v);
		fputs("<tr><td class=\"entry\">", f);
		fl_html_puts(f, row[j]->variant);
		fputs("</td>", f);
		for (int k = 0; k < FL_NEV; k++) {
			char b[24];
			if (col[k])
				fprintf(f, "<td>%s</td>", fl_evidence_text(b, sizeof b, k, v[k]));
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	if (!probed)
		fputs("<p class=\"note\">No kernel counts in this file: run with --probe-rounds N, "
		      "or --probes, as root.</p>\n", f);
}

/* Text a function of the report prints (the why line, the libraries line,
 * the regimes block), as it prints it, in element tag of class cls. */
static void text_block(FILE *f, const char *tag, const char *cls, char *text, size_t len)
{
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	const char *t = text;
	while (*t == ' ')
		t++;
	if (*t) {
		fprintf(f, "<%s class=\"%s\">", tag, cls);
		fl_html_puts(f, t);
		fprintf(f, "</%s>\n", tag);
	}
	free(text);
}

/* What compare prints under the point's rows, in its order: the regimes
 * block (text, as compare prints it), the fairness and latency medians and
 * the evidence as tables, the why line and the libraries line as lines. */
static void point_notes(FILE *f, const struct fl_hpoint *p, const struct fl_cell **row,
			bool probed)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = fl_xcheck(open_memstream(&text, &len));
	fl_print_regimes(m, p->c, row, p->nrow, p->ref, p->baseline);
	fclose(m);
	text_block(f, "pre", "regimes", text, len);
	fairness_table(f, row, p->nrow);
	evidence_table(f, row, p->nrow, probed);
	m = fl_xcheck(open_memstream(&text, &len));
	if (fl_cell_usable(p->ref))
		fl_print_why(m, row, p->nrow, p->ref, p->v, fl_catalog_op(row[0]->workload));
	fclose(m);
	text_block(f, "p", "why", text, len);
	m = fl_xcheck(open_memstream(&text, &len));
	struct fl_peers_tally tally = { 0 };
	fl_peers_line(m, row, p->nrow, fl_point_has_regimes(p->ref),
		      p->ref ? fl_control_band(p->c, p->ref->point, p->baseline) : 0, &tally);
	fclose(m);
	text_block(f, "p", "libs", text, len);
}

static int point_section(FILE *f, const struct fl_hpoint *p, const struct fl_cell **row,
			 bool probed)
{
	const struct fl_cell *x = row[0];
	fprintf(f, "<section class=\"point\" id=\"%sp%d\" data-point=\"", p->prefix, p->id);
	fl_html_puts(f, x->point);
	fputs("\">\n<h3>", f);
	fl_html_puts(f, x->point);
	if (fl_cell_usable(p->ref))
		fprintf(f, " <small>(%d rounds)</small>", p->ref->ns.n);
	fputs("</h3>\n<p>one op: ", f);
	fl_html_puts(f, fl_catalog_op(x->workload));
	fprintf(f, "; ratios against %s", p->baseline);
	fputs("</p>\n<table class=\"ratios\"><tr><th class=\"entry\">entry</th><th>", f);
	fputs(x->value == FL_VALUE_NS ? "median ns" : "metric", f);
	fputs("</th><th>ratio</th><th>interval, coverage</th><th>\u00d7/\u00f7res</th>"
	      "<th>verdict</th></tr>\n", f);
	for (int j = 0; j < p->nrow; j++)
		ratio_row(f, &p->r[j], p->ref);
	fputs("</table>\n", f);
	int n = fl_html_point_plots(f, p);
	point_notes(f, p, row, probed);
	fputs("</section>\n", f);
	return n;
}

/* ---- the summary matrix (summary.h's model) ------------------------------ */

/* A cell: the ratio and its verdict's mark, its interval under it. */
static void matrix_cell(FILE *f, const struct fl_sum *s, int p, int e)
{
	static const char *const mark[] = { "~", "\u25bc", "\u25b2", "?" };
	const struct fl_sum_cell *x = &s->cells[p * s->nentries + e];
	fputs("<td data-point=\"", f);
	fl_html_puts(f, s->points[p].point);
	fputs("\" data-entry=\"", f);
	fl_html_puts(f, s->entries[e].label);
	if (s->entries[e].baseline && x->have)
		fputs("\" class=\"v0\"><span class=\"ratio\">1.000</span></td>", f);
	else if (!x->have)
		fprintf(f, "\" class=\"v3\">%s</td>", fl_html_status(x->status));
	else
		fprintf(f, "\" class=\"v%d\"><span class=\"ratio\">%.3f</span> %s%s<br><small "
			   "class=\"iv\"><span class=\"lo\">%.3f</span>\u2013<span class=\"hi\">%.3f"
			   "</span></small></td>", x->v, x->ratio, s->points[p].regimes ? "R" : mark[x->v],
			x->more_cpu ? "<sup class=\"cpu\" title=\"more CPU than the baseline\">c</sup>"
				    : "", x->lo, x->hi);
}

static void matrix_head(FILE *f, const struct fl_sum *s, const char *prefix)
{
	fputs("<div class=\"wide\"><table class=\"matrix\"><tr><th class=\"entry\">entry</th>", f);
	for (int p = 0; p < s->npoints; p++) {
		fprintf(f, "<th class=\"pt\"><a href=\"#%sp%d\">%d. ", prefix, p + 1, p + 1);
		fl_html_puts(f, s->points[p].point);
		fputs("</a></th>", f);
	}
	fputs("<th class=\"gm\">geometric mean, 95% (points)</th></tr>\n", f);
}

static void matrix(FILE *f, const struct fl_sum *s, const char *prefix)
{
	matrix_head(f, s, prefix);
	for (int e = 0; e < s->nentries; e++) {
		const struct fl_sum_entry *x = &s->entries[e];
		fputs("<tr><td class=\"entry\">", f);
		entry_name(f, x->label);
		fputs(x->control ? " (control)" : x->baseline ? " (baseline)" : "", f);
		fputs("</td>", f);
		for (int p = 0; p < s->npoints; p++)
			matrix_cell(f, s, p, e);
		if (isfinite(x->gmean) && !x->baseline)
			fprintf(f, "<td class=\"gm\">%.3f (%d)<br><small class=\"iv\">%.3f\u2013%.3f"
				   "</small></td>", x->gmean, x->npoints, x->lo, x->hi);
		else
			fputs("<td></td>", f);
		fputs("</tr>\n", f);
	}
	fputs("<tr><td class=\"entry\">fastest</td>", f);
	for (int p = 0; p < s->npoints; p++) {
		const struct fl_sum_point *q = &s->points[p];
		fputs("<td class=\"win\">", f);
		if (q->regimes)
			fputs("two regimes", f);
		for (int g = 0; !q->regimes && g < q->ngroup; g++) {
			fputs(g ? ",<br>" : "", f);
			fl_html_puts(f, s->entries[q->group[g]].label);
		}
		fputs("</td>", f);
	}
	fputs("<td></td></tr>\n</table></div>\n", f);
}

/* The answer first: per point the fastest, its ratio and own time, the
 * rest of its group (a tie), its CPU when more than the baseline's, why. */
/* A point's why, when it has one: BEFORE, the entry it is against, MID, the
 * count (summary.h). */
static void why_html(FILE *f, const struct fl_sum *s, const struct fl_sum_point *q,
		     const char *before, const char *mid)
{
	if (q->against < 0)
		return;
	fputs(before, f);
	fl_html_puts(f, s->entries[q->against].label);
	fputs(mid, f);
	fl_html_puts(f, fl_sum_why(q));
}

static void fastest_table(FILE *f, const struct fl_sum *s, const char *prefix)
{
	fputs("<table class=\"fastest\"><tr><th class=\"entry\">point</th><th class=\"entry\">"
	      "fastest</th><th>ratio</th><th>its time</th><th class=\"entry\">a tie with</th>"
	      "<th>CPU</th><th class=\"entry\">why</th></tr>\n", f);
	for (int p = 0; p < s->npoints; p++) {
		const struct fl_sum_point *q = &s->points[p];
		fputs("<tr class=\"fast\" data-point=\"", f);
		fl_html_puts(f, q->point);
		fputs("\" data-entry=\"", f);
		fl_html_puts(f, q->winner >= 0 && !q->regimes ? s->entries[q->winner].label : "");
		fprintf(f, "\"><td class=\"entry\"><a href=\"#%sp%d\">%d. ", prefix, p + 1, p + 1);
		fl_html_puts(f, q->point);
		fputs("</a></td>", f);
		if (q->regimes || q->winner < 0) {
			fprintf(f, "<td class=\"v\" colspan=\"6\">%s</td></tr>\n", q->regimes
				? "the baseline runs in two regimes here: no single fastest (see the point)"
				: "no entry with a ratio");
			continue;
		}
		const struct fl_sum_cell *w = &s->cells[p * s->nentries + q->winner];
		fputs("<td class=\"entry\">", f);
		entry_name(f, s->entries[q->winner].label);
		fprintf(f, "</td><td class=\"ratio\">%.3f</td><td class=\"ns\">", w->ratio);
		fprintf(f, s->value == FL_VALUE_NS ? "%.1f ns" : "%.6g", q->time);
		fputs("</td><td class=\"entry tie\">", f);
		for (int g = 1; g < q->ngroup; g++) {
			fputs(g > 1 ? ", " : "", f);
			entry_name(f, s->entries[q->group[g]].label);
		}
		fputs("</td><td class=\"cpu\">", f);
		if (q->more_cpu && isfinite(q->cpu))
			fprintf(f, "%.1fx CPU", q->cpu);
		fputs("</td><td class=\"v\">", f);
		why_html(f, s, q, "against ", ": ");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<p class=\"note\">A tie: the entries the ratio table's rule cannot tell "
	      "from the fastest (their paired ratio judged against the control's band is not "
	      "faster). Its time: the fastest's own median. CPU: its CPU ratio to the baseline, "
	      "shown when it costs more CPU. Why: the count that moved the way of the result "
	      "(fewer per op when faster), against the baseline.</p>\n", f);
}

/* ---- one run ----------------------------------------------------------------- */

static void metadata(FILE *f, const struct fl_table *t)
{
	fprintf(f, "<details class=\"meta\"><summary>The machine and the run (%d lines of the "
		   "CSV's metadata)</summary>\n<table class=\"meta\">\n", t->nmeta);
	for (int i = 0; i < t->nmeta; i++) {
		fputs("<tr><td class=\"k\">", f);
		fl_html_puts(f, t->meta[i][0]);
		fputs("</td><td class=\"v\">", f);
		fl_html_puts(f, t->meta[i][1]);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n</details>\n", f);
}

/* A point's section: its rows judged, its winner from the summary. */
static int point_of(FILE *f, const struct fl_model *m, const struct fl_sum *s, int p,
		    const char *prefix, bool probed)
{
	int nrow, b = fl_model_entry(m, m->baseline);
	enum fl_verdict *v;
	const struct fl_cell **row = fl_model_rows(m, 0, p, &v, &nrow);
	struct fl_hpoint hp = { .c = &m->run[0].c, .baseline = s->baseline, .prefix = prefix,
				.id = p + 1, .nrow = nrow, .v = v,
				.ref = b >= 0 ? fl_model_cell(m, 0, p, b)->src : NULL };
	hp.r = hrows(m, 0, p, &nrow);
	int n = nrow ? point_section(f, &hp, row, probed) : 0;
	const struct fl_sum_point *q = &s->points[p];
	if (q->winner >= 0) {
		fputs("<p class=\"win\">fastest here: ", f);
		fl_html_puts(f, s->entries[q->winner].label);
		for (int g = 1; g < q->ngroup; g++) {
			fputs(g == 1 ? ", a tie with (the ratio table's rule cannot tell them apart) "
				     : ", ", f);
			fl_html_puts(f, s->entries[q->group[g]].label);
		}
		why_html(f, s, q, "; why (against ", "): ");
		fputs("</p>\n", f);
	}
	free(hp.r);
	free(v);
	free((void *)row);
	return n;
}

static int run_part(FILE *f, struct fl_loaded_run *r, int k, int nruns, const char *baseline)
{
	char prefix[16] = "";
	if (nruns > 1)
		snprintf(prefix, sizeof prefix, "f%d-", k + 1);
	struct fl_model m;
	fl_model_of_run(&m, r, baseline);
	struct fl_sum s;
	fl_summary_build(&s, &m, 0);
	fprintf(f, "<h2 id=\"%srun\">Run: ", prefix);
	fl_html_puts(f, r->path);
	fputs("</h2>\n<h3>Fastest per point</h3>\n", f);
	fastest_table(f, &s, prefix);
	fputs("<h3>Summary: ratio to ", f);
	fl_html_puts(f, baseline);
	fputs(" per point and entry</h3>\n<p>Each cell: the median over the rounds of the paired "
	      "ratio (ns per op / the baseline's, same round) and the ratio table's verdict: "
	      "<span class=\"v1\">\u25bc faster</span>, <span class=\"v2\">\u25b2 slower</span>, "
	      "~ within the noise, ? too few rounds, R the point's baseline runs in two regimes "
	      "(see the point); <sup>c</sup>: more CPU than the baseline; under it, its interval "
	      "(this run's rounds, the coverage its ratio table shows); skip, ERR: the entry was "
	      "skipped or broke there. A point's name leads to its section.</p>\n", f);
	matrix(f, &s, prefix);
	metadata(f, &r->t);
	bool probed = false;
	for (int i = 0; i < r->c.n; i++)
		probed |= r->c.c[i].nprobed > 0;
	int n = 0;
	for (int p = 0; p < s.npoints; p++)
		n += point_of(f, &m, &s, p, prefix, probed);
	fl_summary_free(&s);
	fl_model_free(&m);
	return n;
}

static int by_rank(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int n, rx = fl_catalog_rank(x, &n), ry = fl_catalog_rank(y, &n);
	return rx != ry ? (rx > ry) - (rx < ry) : strcmp(x, y);
}

/* The designs that ran, in the registry's order, each with its line
 * (catalog.h), anchored #design-NAME for the entries' links. */
static void designs(FILE *f, struct fl_loaded_run *runs, int nruns)
{
	const char **seen = NULL;
	int nseen = 0;
	for (int k = 0; k < nruns; k++)
		for (int i = 0; i < runs[k].c.n; i++) {
			char b[64];
			const char *label = runs[k].c.c[i].variant, *d = fl_catalog_design(label, b, sizeof b);
			bool dup = false;
			for (int j = 0; d && j < nseen; j++)
				dup |= !strcmp(seen[j], d);
			if (!d || !fl_catalog_summary(label) || dup)
				continue;
			seen = fl_xrealloc(seen, (size_t)(nseen + 1) * sizeof *seen);
			seen[nseen++] = fl_xstrdup(d);
		}
	if (nseen)
		qsort(seen, (size_t)nseen, sizeof *seen, by_rank);
	fputs("<h2 id=\"designs\">The designs</h2>\n<dl class=\"designs\">\n", f);
	for (int j = 0; j < nseen; j++) {
		fputs("<dt id=\"design-", f);
		fl_html_puts(f, seen[j]);
		fputs("\">", f);
		fl_html_puts(f, seen[j]);
		fputs("</dt><dd>", f);
		fl_html_puts(f, fl_catalog_summary(seen[j]));
		fputs("</dd>\n", f);
		free((void *)seen[j]);
	}
	fputs("</dl>\n", f);
	free(seen);
}

/* Records each figure's rendered size on it (data-rendered="WxH") and the
 * count on the body; then, at the window's width, every table cell, header
 * and caption whose text is cut (its scrollWidth or scrollHeight beyond its
 * client box) or that reaches past the viewport's right edge, and every
 * pair of overlapping point labels in a time-against-CPU plot: their
 * count and the first few on the body (data-overflow, data-overflows,
 * data-collisions). What the browser test reads (tests/test_report.sh). */
static const char script[] =
	"<script>\n(function(){var n=0,W=document.documentElement.clientWidth,o=[],c=0;\n"
	"document.querySelectorAll('figure.plot').forEach("
	"function(g){var s=g.querySelector('svg'),r=s?s.getBoundingClientRect():{width:0,height:0};"
	"g.setAttribute('data-rendered',Math.round(r.width)+'x'+Math.round(r.height));n++;});\n"
	"document.querySelectorAll('td,th,figcaption,caption,summary').forEach(function(e){"
	"var r=e.getBoundingClientRect(),cut=e.scrollWidth>e.clientWidth+1||"
	"e.scrollHeight>e.clientHeight+1,past=r.right>W+1;if(cut||past)o.push((cut?'cut ':'past ')"
	"+e.tagName.toLowerCase()+' '+e.textContent.trim().slice(0,24));});\n"
	"document.querySelectorAll('figure.plot svg').forEach(function(s){"
	"var b=[].map.call(s.querySelectorAll('text.pl'),function(t){return t.getBoundingClientRect();});"
	"for(var i=0;i<b.length;i++)for(var j=i+1;j<b.length;j++)if(b[i].left<b[j].right&&"
	"b[j].left<b[i].right&&b[i].top<b[j].bottom&&b[j].top<b[i].bottom)c++;});\n"
	"var d=document.body;d.setAttribute('data-figures',String(n));"
	"d.setAttribute('data-overflow',String(o.length));"
	"d.setAttribute('data-overflows',o.slice(0,8).join(' | '));"
	"d.setAttribute('data-collisions',String(c));})();\n</script>\n";

/* A --as run's mark (table.h), above everything: its rows are not the
 * design's code. */
static void as_marks(FILE *f, struct fl_loaded_run *runs, int nruns)
{
	char m[300];
	for (int r = 0; r < nruns; r++)
		for (int k = 0; fl_table_as_mark(&runs[r].t, k, m, sizeof m) == 0; k++) {
			fputs("<p class=\"testrun\"><strong>", f);
			fl_html_puts(f, m);
			if (nruns > 1) {
				fputs(" (", f);
				fl_html_puts(f, runs[r].path);
				fputs(")", f);
			}
			fputs("</strong></p>\n", f);
		}
}

int fl_html_page(FILE *f, struct fl_loaded_run *runs, int nruns, const char *baseline,
		 const struct fl_pool_result *pool)
{
	char *title;
	if (asprintf(&title, "futexlab report: %s%s", runs[0].path, nruns > 1 ? " ..." : "") < 0)
		title = NULL;
	fl_page_head(f, fl_xcheck(title), style, FL_PAGE_LINES);
	free(title);
	fputs("<h1>futexlab report</h1>\n<p>", f);
	for (int k = 0; k < nruns; k++) {
		fputs(k ? ", " : "Runs: ", f);
		fl_html_puts(f, runs[k].path);
	}
	fputs(".</p>\n", f);
	as_marks(f, runs, nruns);
	fputs("<p>Read with <a href=\"#designs\">the designs</a> at the end; what the page holds "
	      "and how to read its plots: report/report.md in futexlab's tree.</p>\n", f);
	fl_html_legend(f, baseline);
	int n = 1;
	if (pool)
		n += fl_html_pool(f, pool);
	for (int k = 0; k < nruns; k++)
		n += run_part(f, &runs[k], k, nruns, baseline);
	designs(f, runs, nruns);
	fputs(script, f);
	return n;
}
