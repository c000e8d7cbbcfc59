/* report/across.c — one report across machines, kernels or libcs (across.h). */
#include "report/across.h"
#include "report/page.h"
#include "model/catalog.h"
#include "report/peers.h"
#include "report/pool.h"
#include "report/summary.h"
#include "report/svg.h"
#include "fail/fail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fail/xalloc.h"

/* A group's figure of one (point, entry). */
struct fig {
	bool have;
	double ratio;
	double lo, hi;     /* where its next run lands (one run: the ratio's interval) */
	double clo, chi;   /* the long-run ratio's interval (one run: the same) */
	enum fl_verdict v;
};

struct group {
	const char *key;   /* the fingerprint, or the kernel's or libc's line */
	char label[200];
	int *run, n;       /* the model's runs of the group */
	bool pooled;
	char note[300];    /* why not pooled, when it has runs that do not pool */
	struct fig *fig;   /* [p * nentry + e] */
	int libs_ahead, libs_faster, libs_points; /* pooled: pool_libs' tally */
	struct fl_peers_tally peers;             /* one run: the run's */
};

struct across {
	const struct fl_model *m;
	enum fl_by by;
	struct group *g;
	int ng, tests;
};

static const char *const by_names[] = { "machine", "kernel", "libc" };

const char *fl_by_name(enum fl_by by)
{
	return by_names[by];
}

int fl_by_parse(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, by_names[i]))
			return i;
	return -1;
}

static const char *key_of(const struct fl_model *m, int r, enum fl_by by)
{
	if (by == FL_BY_MACHINE)
		return m->run[r].machine.fingerprint;
	return fl_table_meta(&m->run[r].t, by == FL_BY_KERNEL ? "kernel" : "libc");
}

static void group_runs(struct across *a)
{
	const struct fl_model *m = a->m;
	a->g = fl_xcalloc((size_t)m->nrun + 1, sizeof *a->g);
	for (int r = 0; r < m->nrun; r++) {
		if (m->run[r].as) {
			a->tests++;
			continue;
		}
		const char *k = key_of(m, r, a->by);
		int i = 0;
		while (i < a->ng && strcmp(a->g[i].key, k))
			i++;
		struct group *g = &a->g[i];
		if (i == a->ng) {
			a->ng++;
			g->key = k;
			g->run = fl_xcalloc((size_t)m->nrun, sizeof *g->run);
			if (a->by == FL_BY_MACHINE)
				snprintf(g->label, sizeof g->label, "%s", m->run[r].machine.label);
			else
				snprintf(g->label, sizeof g->label, "%s", k);
		}
		g->run[g->n++] = r;
	}
}

/* One run's figures: its table's. */
static void single(const struct fl_model *m, struct group *g)
{
	int r = g->run[g->n - 1];
	for (int p = 0; p < m->npoint; p++)
		for (int e = 0; e < m->nentry; e++) {
			const struct fl_mcell *c = fl_model_cell(m, r, p, e);
			struct fig *x = &g->fig[p * m->nentry + e];
			if (!c->usable || c->ratio.n <= 0)
				continue;
			bool base = fl_model_is_baseline(m, e);
			*x = (struct fig){ true, base ? 1 : c->ratio.median, base ? 1 : c->ratio.lo,
					   base ? 1 : c->ratio.hi, 0, 0,
					   base ? FL_SAME : c->verdict };
			x->clo = x->lo, x->chi = x->hi;
		}
	struct fl_sum s;
	fl_summary_build(&s, m, r);
	g->peers = s.peers;
	fl_summary_free(&s);
}

/* Two or more runs: pooled (pool.h); runs that do not pool: the last one. */
static void pooled(const struct fl_model *m, struct group *g)
{
	/* the group's runs side by side: shallow copies of the model's, whose
	 * cells are built (the pool reads them; only the array is freed) */
	struct fl_loaded_run *runs = fl_xcalloc((size_t)g->n, sizeof *runs);
	for (int i = 0; i < g->n; i++)
		runs[i] = m->run[g->run[i]];
	struct fl_pool_result pr;
	char err[256];
	if (fl_pool_build(&pr, runs, g->n, &(struct fl_pool_opts){ .baseline = m->baseline }, err,
			  sizeof err)) {
		snprintf(g->note, sizeof g->note, "its %d runs do not pool (%s): its last run only",
			 g->n, err);
		single(m, g);
	} else {
		g->pooled = true;
		for (int i = 0; i < pr.npt; i++) {
			int p = fl_model_point(m, pr.pt[i].point), b = fl_model_entry(m, m->baseline);
			if (p < 0)
				continue;
			if (b >= 0)
				g->fig[p * m->nentry + b] = (struct fig){ true, 1, 1, 1, 1, 1, FL_SAME };
			for (int j = 0; j < pr.pt[i].nrow; j++) {
				const struct fl_pool_row *w = &pr.pt[i].row[j];
				int e = fl_model_entry(m, w->variant);
				if (e < 0 || w->e.runs < 2 || !isfinite(w->e.pred_lo))
					continue;
				g->fig[p * m->nentry + e] = (struct fig){
					true, w->e.ratio, w->e.pred_lo, w->e.pred_hi, w->e.conf_lo,
					w->e.conf_hi, w->verdict };
			}
		}
		fl_pool_libs_count(pr.libs, pr.nlibs, &g->libs_ahead, &g->libs_faster);
		g->libs_points = pr.nlibs;
		fl_pool_result_free(&pr);
	}
	free(runs);
}

static bool candidate(const struct fl_model *m, int e)
{
	enum fl_entry_kind k = fl_model_kind(m, e);
	return k != FL_ENTRY_CONTROL && k != FL_ENTRY_FLOOR;
}

static const char *mark(enum fl_verdict v)
{
	return v == FL_FASTER ? "+" : v == FL_SLOWER ? "-" : v == FL_SAME ? "~" : "?";
}

/* The fastest of group g at point p (-1: none). */
static int fastest(const struct fl_model *m, const struct group *g, int p)
{
	int w = -1;
	for (int e = 0; e < m->nentry; e++) {
		const struct fig *x = &g->fig[p * m->nentry + e];
		if (x->have && candidate(m, e) &&
		    (w < 0 || x->ratio < g->fig[p * m->nentry + w].ratio))
			w = e;
	}
	return w;
}

/* Whether the fastest w cannot be told from e: their long-run intervals meet. */
static bool tied(const struct fl_model *m, const struct group *g, int p, int w, int e)
{
	const struct fig *a = &g->fig[p * m->nentry + w], *b = &g->fig[p * m->nentry + e];
	return e != w && b->have && candidate(m, e) && b->clo <= a->chi;
}

static bool decided(enum fl_verdict v)
{
	return v == FL_FASTER || v == FL_SLOWER || v == FL_SAME;
}

/* Groups a and b disagree on (p, e): both decided, the verdicts differ,
 * each ratio outside the other's interval. */
static bool disagree(const struct fig *a, const struct fig *b)
{
	return a->have && b->have && decided(a->v) && decided(b->v) && a->v != b->v &&
	       (a->ratio < b->lo || a->ratio > b->hi) && (b->ratio < a->lo || b->ratio > a->hi);
}

/* ---- the text ---------------------------------------------------------------- */

static void header(FILE *f, const struct across *a)
{
	const struct fl_model *m = a->m;
	fprintf(f, "across %ss: %d %s%s, %d runs; every figure an entry's paired ratio to its "
		   "own %s in the same run\n(never a time across %ss); two or more runs: pooled, "
		   "[where its next run lands]; one run: [its rounds only]\n",
		fl_by_name(a->by), a->ng, fl_by_name(a->by), a->ng == 1 ? "" : "s",
		m->nrun - a->tests, m->baseline, fl_by_name(a->by));
	if (a->tests)
		fprintf(f, "left out: %d test run%s (--as: a mutant under a design's name)\n",
			a->tests, a->tests == 1 ? "" : "s");
	for (int i = 0; i < a->ng; i++) {
		const struct group *g = &a->g[i];
		const struct fl_table *t = &m->run[g->run[g->n - 1]].t;
		fprintf(f, "  %c  %s: %d run%s%s; %s, cores %s, %s, %s\n", 'A' + i, g->label, g->n,
			g->n == 1 ? "" : "s", g->pooled ? " pooled" : "", fl_table_meta(t, "cpu"),
			fl_table_meta(t, "cores"), fl_table_meta(t, "kernel"),
			fl_table_meta(t, "libc"));
		if (g->note[0])
			fprintf(f, "     %s\n", g->note);
	}
	if (a->ng == 1)
		fprintf(f, "every run has one %s: nothing to set side by side (the figures below are "
			   "its own)\n", fl_by_name(a->by));
}

static void winners(FILE *f, const struct across *a)
{
	const struct fl_model *m = a->m;
	fprintf(f, "\nfastest per point on each %s (the least ratio; = the entries whose "
		   "long-run interval meets its own)\n", fl_by_name(a->by));
	for (int p = 0; p < m->npoint; p++) {
		fprintf(f, "  %2d %s\n", p + 1, m->point[p]);
		for (int i = 0; i < a->ng; i++) {
			const struct group *g = &a->g[i];
			int w = fastest(m, g, p), shown = 0, more = 0;
			if (w < 0) {
				fprintf(f, "       %c  -\n", 'A' + i);
				continue;
			}
			const struct fig *x = &g->fig[p * m->nentry + w];
			fprintf(f, "       %c  %s %.3g%s", 'A' + i, m->entry[w], x->ratio, mark(x->v));
			for (int e = 0; e < m->nentry; e++)
				if (tied(m, g, p, w, e)) {
					if (shown < 4)
						fprintf(f, "%s%s", shown ? ", " : " = ", m->entry[e]);
					else
						more++;
					shown++;
				}
			if (more)
				fprintf(f, " +%d", more);
			fputc('\n', f);
		}
	}
}

static int disagreements(FILE *f, const struct across *a)
{
	const struct fl_model *m = a->m;
	int n = 0;
	fprintf(f, "\nwhere the %ss disagree beyond their between-run spread (the verdicts "
		   "differ, each ratio outside the other's interval)\n", fl_by_name(a->by));
	for (int p = 0; p < m->npoint; p++)
		for (int e = 0; e < m->nentry; e++)
			for (int i = 0; i < a->ng; i++)
				for (int j = i + 1; j < a->ng; j++) {
					const struct fig *x = &a->g[i].fig[p * m->nentry + e],
							 *y = &a->g[j].fig[p * m->nentry + e];
					if (!disagree(x, y))
						continue;
					n++;
					fprintf(f, "  %-36s %-20s %c %.3g%s [%.3g, %.3g]   %c %.3g%s "
						   "[%.3g, %.3g]\n", m->point[p], m->entry[e], 'A' + i,
						x->ratio, mark(x->v), x->lo, x->hi, 'A' + j, y->ratio,
						mark(y->v), y->lo, y->hi);
				}
	fprintf(f, "%d (point, entry) pair%s of %ss disagree%s\n", n, n == 1 ? "" : "s",
		fl_by_name(a->by), n == 1 ? "s" : "");
	return n;
}

static void libraries(FILE *f, const struct across *a)
{
	fprintf(f, "\nvs the libraries, per %s\n", fl_by_name(a->by));
	for (int i = 0; i < a->ng; i++) {
		const struct group *g = &a->g[i];
		fprintf(f, "  %c  ", 'A' + i);
		if (g->pooled)
			fl_libs_line(f, g->n, g->libs_ahead, g->libs_points, g->libs_faster);
		else
			fl_libs_line(f, 1, g->peers.ahead, g->peers.points, g->peers.faster);
	}
}

/* ---- the page ---------------------------------------------------------------- */

static void page_point(FILE *f, const struct across *a, int p)
{
	const struct fl_model *m = a->m;
	fputs("<h3>", f);
	fl_html_puts(f, m->point[p]);
	fputs("</h3>\n<table class=\"across\"><tr><th>entry</th>", f);
	for (int i = 0; i < a->ng; i++) {
		fprintf(f, "<th>%c ", 'A' + i);
		fl_html_puts(f, a->g[i].label);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (int e = 0; e < m->nentry; e++) {
		bool any = false;
		for (int i = 0; i < a->ng; i++)
			any |= a->g[i].fig[p * m->nentry + e].have;
		if (!any || fl_model_is_baseline(m, e))
			continue;
		fputs("<tr><td>", f);
		fl_html_puts(f, m->entry[e]);
		fputs("</td>", f);
		for (int i = 0; i < a->ng; i++) {
			const struct fig *x = &a->g[i].fig[p * m->nentry + e];
			bool apart = false;
			for (int j = 0; j < a->ng; j++)
				apart |= j != i && disagree(x, &a->g[j].fig[p * m->nentry + e]);
			if (!x->have)
				fputs("<td>-</td>", f);
			else
				fprintf(f, "<td class=\"v%d%s\">%.3f %s <span class=\"iv\">[%.3f, "
					   "%.3f]</span></td>", x->v, apart ? " apart" : "", x->ratio,
					mark(x->v), x->lo, x->hi);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static const char page_style[] =
	"body{font:14px system-ui,sans-serif;margin:1.5em;max-width:1400px}"
	"table{border-collapse:collapse;margin-bottom:1em}"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
	".v1{color:#1a7f37}.v2{color:#c62828}.apart{background:#fff3b0;font-weight:bold}"
	".iv{color:#666;font-size:12px}pre{font-size:12px}";

static void page(const char *path, const struct across *a)
{
	struct fl_page_file pf;
	FILE *f = fl_page_open(&pf, "report", path);
	char title[64];
	snprintf(title, sizeof title, "futexlab across %ss", fl_by_name(a->by));
	fl_page_head(f, title, page_style, FL_PAGE_PACKED);
	fprintf(f, "<h1>futexlab: across %ss</h1>\n", fl_by_name(a->by));
	char *text = NULL;
	size_t len = 0;
	FILE *m = fl_xcheck(open_memstream(&text, &len));
	header(m, a);
	disagreements(m, a);
	libraries(m, a);
	fclose(m);
	fputs("<pre>", f);
	fl_html_puts(f, text);
	fputs("</pre>\n<p>Per point: each entry's ratio to its own baseline on each group, its "
	      "verdict and [where the group's next run lands; one run: its rounds only]; "
	      "highlighted: a disagreement beyond the between-run spread.</p>\n", f);
	free(text);
	for (int p = 0; p < a->m->npoint; p++)
		page_point(f, a, p);
	fl_page_close(&pf);
}

int fl_across(FILE *f, const struct fl_model *m, enum fl_by by, const char *html)
{
	struct across a = { .m = m, .by = by };
	group_runs(&a);
	if (!a.ng)
		fl_bad_input("report: --by %s: every run selected is a test run (--as)",
			       fl_by_name(by));
	for (int i = 0; i < a.ng; i++) {
		struct group *g = &a.g[i];
		g->fig = fl_xcalloc((size_t)m->npoint * (size_t)m->nentry + 1, sizeof *g->fig);
		if (g->n >= 2)
			pooled(m, g);
		else
			single(m, g);
	}
	header(f, &a);
	winners(f, &a);
	int n = disagreements(f, &a);
	libraries(f, &a);
	if (html) {
		page(html, &a);
		fprintf(f, "page: %s\n", html);
	}
	for (int i = 0; i < a.ng; i++)
		free(a.g[i].run), free(a.g[i].fig);
	free(a.g);
	return n;
}
