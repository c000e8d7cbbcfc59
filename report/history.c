/* report/history.c — a machine's runs over time and their change points
 * (history.h). */
#include "report/history.h"
#include "report/judge.h"
#include "report/page.h"
#include "report/svg.h"
#include "fail/fail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fail/xalloc.h"
#include "stats/edivisive.h"

/* The positions of one machine's series: a run each, or a revision each
 * (its runs' values averaged on the log scale). */
struct axis {
	const char *fp;      /* the machine */
	const char *set;     /* its runs' settings (judge.h): each settings its own history */
	int npos;
	int *first;          /* the first run of each position */
	int *pos_of;         /* per run of the model: its position, -1: another machine */
};

/* One series' values per position (NAN: none), and its change points. */
struct series {
	int p, e;
	bool baseline;       /* its ratio is 1: no change points of its own */
	double *ratio, *ns;  /* per position, as shown (not logs) */
	int *idx;            /* the positions with a value, in order */
	int nv;
	struct fl_change_point cp[16];
	int ncp;
	bool test;           /* some run of it is a test run (--as) */
};

static void axis_of(const struct fl_model *m, const char *fp, char (*set)[160], int r0,
		    bool by_rev, struct axis *a)
{
	a->fp = fp;
	a->set = set[r0];
	a->npos = 0;
	a->first = fl_xcalloc((size_t)m->nrun, sizeof *a->first);
	a->pos_of = fl_xcalloc((size_t)m->nrun, sizeof *a->pos_of);
	for (int r = 0; r < m->nrun; r++) {
		a->pos_of[r] = -1;
		if (strcmp(m->run[r].machine.fingerprint, fp) || strcmp(set[r], a->set))
			continue;
		int k = -1;
		for (int i = 0; by_rev && i < a->npos && k < 0; i++)
			if (!strcmp(m->run[a->first[i]].revision, m->run[r].revision))
				k = i;
		if (k < 0) {
			k = a->npos++;
			a->first[k] = r;
		}
		a->pos_of[r] = k;
	}
}

static double logv(double x)
{
	return x > 0 ? log(x) : NAN;
}

/* The geometric means over each position's runs of the ratio and the time. */
static void values(const struct fl_model *m, const struct axis *a, struct series *s)
{
	double *lr = fl_xcalloc((size_t)a->npos, sizeof *lr), *lt = fl_xcalloc((size_t)a->npos, sizeof *lt);
	int *kr = fl_xcalloc((size_t)a->npos, sizeof *kr), *kt = fl_xcalloc((size_t)a->npos, sizeof *kt);
	for (int r = 0; r < m->nrun; r++) {
		int k = a->pos_of[r];
		const struct fl_mcell *c = fl_model_cell(m, r, s->p, s->e);
		if (k < 0 || !c->present || !c->usable)
			continue;
		s->test |= m->run[r].as != NULL;
		double x = logv(c->ratio.n ? c->ratio.median : NAN), t = logv(c->value);
		if (isfinite(x))
			lr[k] += x, kr[k]++;
		if (isfinite(t))
			lt[k] += t, kt[k]++;
	}
	s->ratio = fl_xcalloc((size_t)a->npos, sizeof *s->ratio);
	s->ns = fl_xcalloc((size_t)a->npos, sizeof *s->ns);
	s->idx = fl_xcalloc((size_t)a->npos, sizeof *s->idx);
	for (int k = 0; k < a->npos; k++) {
		s->ratio[k] = kr[k] ? exp(lr[k] / kr[k]) : NAN;
		s->ns[k] = kt[k] ? exp(lt[k] / kt[k]) : NAN;
		if (isfinite(s->baseline ? s->ns[k] : s->ratio[k]))
			s->idx[s->nv++] = k;
	}
	free(lr), free(lt), free(kr), free(kt);
}

/* The change points of the series' figure, steps below the threshold left
 * out; their `at` turned from an index among the values into a position. */
static void changes(struct series *s, double threshold)
{
	s->ncp = 0;
	if (s->baseline)
		return;
	double *x = fl_xcalloc((size_t)s->nv, sizeof *x);
	for (int i = 0; i < s->nv; i++)
		x[i] = log(s->ratio[s->idx[i]]);
	struct fl_change_point cp[16];
	int n = fl_change_points(x, s->nv, NULL, cp, 16);
	if (n < 0) {
		fputs("futexlab: out of memory\n", stderr);
		exit(1);
	}
	for (int i = 0; i < n; i++)
		if (fabs(cp[i].after - cp[i].before) >= log1p(threshold)) {
			s->cp[s->ncp] = cp[i];
			s->cp[s->ncp++].at = s->idx[cp[i].at];
		}
	free(x);
}

static bool matches(const struct fl_model *m, const struct fl_history_opts *o, int p, int e)
{
	if (fl_model_is_control(m, e))
		return false; /* the baseline again: its series is the baseline's */
	if (o->variant && strcmp(o->variant, m->entry[e]))
		return false;
	return !o->point || !strncmp(m->point[p], o->point, strlen(o->point));
}

static void pos_text(char *b, size_t n, const struct fl_model *m, const struct axis *a, int k,
		     bool by_rev)
{
	const struct fl_loaded_run *r = &m->run[a->first[k]];
	snprintf(b, n, "%s %d of %d (%s, rev %s)", by_rev ? "revision" : "run", k + 1, a->npos,
		 r->date, r->revision);
}

static void change_line(FILE *f, const struct fl_model *m, const struct axis *a,
			const struct series *s, const struct fl_change_point *c, bool by_rev)
{
	char at[200];
	pos_text(at, sizeof at, m, a, c->at, by_rev);
	/* the stretch means are of ln(figure): the step is their difference */
	double before = exp(c->before), after = exp(c->after);
	fprintf(f, "change point at %s: %s | %s | %s: ratio %.4g -> %.4g (x%.3g, p %.2g)",
		at, m->run[a->first[0]].machine.label, m->point[s->p], m->entry[s->e], before,
		after, after / before, c->p);
	if (isfinite(s->ns[c->at]) && c->at > 0 && isfinite(s->ns[c->at - 1]))
		fprintf(f, "; ns/op %.4g -> %.4g (the runs either side)", s->ns[c->at - 1],
			s->ns[c->at]);
	fputc('\n', f);
}

static bool is_change(const struct series *s, int k)
{
	for (int i = 0; i < s->ncp; i++)
		if (s->cp[i].at == k)
			return true;
	return false;
}

static void table(FILE *f, const struct fl_model *m, const struct axis *a, const struct series *s)
{
	fprintf(f, "\nseries %s | %s | %s (%s)\n  %4s  %-20s  %-10s  %10s  %8s\n",
		m->run[a->first[0]].machine.label, m->point[s->p], m->entry[s->e],
		s->baseline ? "the baseline: its time; a change of it moves every other ratio"
			    : "ratio to the baseline", "pos", "date",
		"revision", "ns/op", "ratio");
	for (int k = 0; k < a->npos; k++) {
		const struct fl_loaded_run *r = &m->run[a->first[k]];
		fprintf(f, "  %4d  %-20s  %-10s  %10.4g  %8.4g%s%s\n", k + 1, r->date, r->revision,
			s->ns[k], s->ratio[k], is_change(s, k) ? "  <- change point" : "",
			r->as ? "  (test run: --as)" : "");
	}
}

static void tsv_rows(FILE *f, const struct fl_model *m, const struct axis *a, const struct series *s)
{
	for (int k = 0; k < a->npos; k++) {
		const struct fl_loaded_run *r = &m->run[a->first[k]];
		fprintf(f, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%.6g\t%.6g\t%d\t%d\n",
			r->machine.label, m->point[s->p], m->entry[s->e], k + 1, r->path, r->date,
			r->revision, s->ns[k], s->ratio[k], r->as != NULL, is_change(s, k));
	}
}

/* ---- the page ------------------------------------------------------------------ */

static void plot(FILE *f, const struct fl_model *m, const struct axis *a, const struct series *s)
{
	const double W = 560, H = 200, L = 60, R = 10, T = 10, B = 36;
	const double *y = s->baseline ? s->ns : s->ratio;
	double lo = INFINITY, hi = -INFINITY;
	for (int k = 0; k < a->npos; k++)
		if (isfinite(y[k]) && y[k] > 0)
			lo = fmin(lo, y[k]), hi = fmax(hi, y[k]);
	if (!isfinite(lo))
		return;
	struct fl_axis ax, ay;
	fl_axis_fit(&ax, 1, a->npos > 1 ? a->npos : 2, false, L, W - R);
	fl_axis_fit(&ay, lo, hi, true, H - B, T);
	fputs("<figure><figcaption>", f);
	fl_html_puts(f, m->point[s->p]);
	fputs(" &mdash; ", f);
	fl_html_puts(f, m->entry[s->e]);
	fprintf(f, "</figcaption>\n<svg viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\">\n",
		W, H, W, H);
	fl_svg_xaxis(f, &ax, H - B, T, "run");
	fl_svg_yaxis(f, &ay, L, W - R, s->baseline ? "ns/op" : "ratio");
	for (int i = 0; i < s->ncp; i++) {
		double x = (fl_axis_px(&ax, s->cp[i].at) + fl_axis_px(&ax, s->cp[i].at + 1)) / 2;
		fprintf(f, "<line class=\"cp\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\"/>\n",
			x, x, T, H - B);
	}
	struct fl_svg_style st = fl_svg_style(m->entry[s->e], m->baseline);
	for (int k = 0; k < a->npos; k++) {
		if (!(y[k] > 0))
			continue;
		char tip[200];
		const struct fl_loaded_run *r = &m->run[a->first[k]];
		snprintf(tip, sizeof tip, "%d: %s %s: %.4g%s", k + 1, r->date, r->revision, y[k],
			 r->as ? " (test run)" : "");
		struct fl_svg_style sk = st;
		if (r->as)
			snprintf(sk.color, sizeof sk.color, "#d62728");
		fl_svg_marker(f, &sk, fl_axis_px(&ax, k + 1), fl_axis_px(&ay, y[k]), tip);
	}
	fputs("</svg></figure>\n", f);
}

static const char page_style[] =
	"body{font:14px system-ui,sans-serif;margin:1.5em;max-width:1200px}"
	"figure{display:inline-block;margin:0 1em 1em 0}figcaption{font-size:13px}"
	"svg text{font:11px system-ui,sans-serif;fill:#222}line.cp{stroke:#d62728;"
	"stroke-width:2;stroke-dasharray:5 3}.test{color:#d62728}";

/* The page's shell (report/page.h) and what it says first. */
static FILE *page_open(struct fl_page_file *p, const char *path, const struct fl_model *m)
{
	FILE *f = fl_page_open(p, "history", path);
	fl_page_head(f, "futexlab history", page_style, FL_PAGE_PACKED);
	fputs("<h1>futexlab history</h1>\n<p>", f);
	fprintf(f, "%d runs, ratios to ", m->nrun);
	fl_html_puts(f, m->baseline);
	fputs(" (the baseline: its own time); a dashed red line: a change point (E-Divisive "
	      "means, Hunter's t-test); a red marker: a test run (--as).</p>\n", f);
	return f;
}

/* ---- the whole ---------------------------------------------------------------- */

static void header(FILE *f, const struct fl_model *m, const struct fl_history_opts *o)
{
	fprintf(f, "history: %d runs, %s to %s, %s; change points on ln(ratio to %s) by "
		   "E-Divisive means with Hunter's t-test, steps >= %.0f%% (the baseline's own "
		   "series: its time, no change points: a change of it moves every ratio at its "
		   "point at once)\n", m->nrun, m->run[0].date, m->run[m->nrun - 1].date,
		o->by_rev ? "one value per revision" : "one value per run", m->baseline,
		100 * o->threshold);
	for (int r = 0; r < m->nrun; r++) {
		char prefix[300];
		snprintf(prefix, sizeof prefix, "run %d (%s): ", r + 1, m->run[r].path);
		fl_table_as_marks(f, &m->run[r].t, prefix);
	}
}

struct tally {
	int series, cps;
	FILE *page;
};

/* Every matching series of one machine's runs of one settings (run r0's). */
static void machine(FILE *f, const struct fl_model *m, const struct fl_history_opts *o,
		    char (*set)[160], int r0, struct tally *n)
{
	struct axis a;
	axis_of(m, m->run[r0].machine.fingerprint, set, r0, o->by_rev, &a);
	for (int p = 0; p < m->npoint; p++)
		for (int e = 0; e < m->nentry; e++) {
			if (!matches(m, o, p, e))
				continue;
			struct series s = { .p = p, .e = e, .baseline = fl_model_is_baseline(m, e) };
			values(m, &a, &s);
			if (s.nv) {
				n->series++;
				changes(&s, o->threshold);
				n->cps += s.ncp;
				if (o->tsv)
					tsv_rows(f, m, &a, &s);
				for (int i = 0; i < s.ncp && !o->tsv; i++)
					change_line(f, m, &a, &s, &s.cp[i], o->by_rev);
				if (o->all && !o->tsv)
					table(f, m, &a, &s);
				if (n->page && (s.ncp || o->all))
					plot(n->page, m, &a, &s);
			}
			free(s.ratio), free(s.ns), free(s.idx);
		}
	free(a.first);
	free(a.pos_of);
}

/* Whether any series matches: checked before a line is printed. */
static bool any_series(const struct fl_model *m, const struct fl_history_opts *o)
{
	for (int r = 0; r < m->nrun; r++)
		for (int p = 0; p < m->npoint; p++)
			for (int e = 0; e < m->nentry; e++)
				if (matches(m, o, p, e) && fl_model_cell(m, r, p, e)->usable)
					return true;
	return false;
}

int fl_history(FILE *f, const struct fl_model *m, const struct fl_history_opts *o)
{
	if (!any_series(m, o))
		fl_bad_input("history: no series matches (--point '%s', --variant '%s')",
			       o->point ? o->point : "", o->variant ? o->variant : "");
	struct tally n = { 0 };
	struct fl_page_file pf;
	if (o->html)
		n.page = page_open(&pf, o->html, m);
	if (o->tsv)
		fputs("machine\tpoint\tvariant\tpos\trun\tdate\trevision\tns\tratio\ttest\tchange\n", f);
	else
		header(f, m, o);
	/* Quick and standard runs (or other rounds, durations) are never one
	 * series: each machine's runs of each settings are a history of their own,
	 * said when a machine has more than one. */
	char (*set)[160] = fl_xcalloc((size_t)m->nrun, sizeof *set);
	for (int r = 0; r < m->nrun; r++)
		snprintf(set[r], sizeof set[r], "%s", m->run[r].settings);
	for (int r = 0; r < m->nrun; r++) {
		bool seen = false, other = false;
		for (int i = 0; i < r && !seen; i++) {
			bool same = !strcmp(m->run[i].machine.fingerprint, m->run[r].machine.fingerprint);
			seen = same && !strcmp(set[i], set[r]);
			other |= same;
		}
		if (seen)
			continue;
		if (other && !o->tsv)
			fprintf(f, "note: %s: runs of other settings from run %d (%s): a history of "
				   "their own\n", m->run[r].machine.name, r + 1, set[r]);
		machine(f, m, o, set, r, &n);
	}
	free(set);
	if (!o->tsv)
		fprintf(f, "%d change point%s in %d series\n", n.cps, n.cps == 1 ? "" : "s",
			n.series);
	if (n.page)
		fl_page_close(&pf);
	return n.cps;
}
