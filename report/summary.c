/* report/summary.c — the answer first (summary.h). */
#include "report/summary.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/evidence.h"
#include "model/rule.h"
#include "report/tables.h"
#include "model/regimes.h"
#include "fail/xalloc.h"
#include "model/stats_text.h"
#include "model/catalog.h"

/* ---- the view of one run of the model ------------------------------------------- */

/* The overall of entry e: the geometric mean over its usable points and
 * the interval of summary.h, from the cells' log standard errors. */
static void overall(struct fl_sum *s, int e)
{
	struct fl_sum_entry *x = &s->entries[e];
	double sy = 0, sv = 0;
	int n = 0;
	for (int p = 0; p < s->npoints; p++) {
		const struct fl_sum_cell *k = &s->cells[p * s->nentries + e];
		if (!k->have || s->points[p].regimes || !(k->ratio > 0))
			continue;
		sy += log(k->ratio);
		sv += k->se * k->se; /* NAN when a point has no error: then no interval */
		n++;
	}
	x->npoints = n;
	if (!n)
		return;
	double m = sy / n, half = fl_z_quantile((1 + FL_SUM_LEVEL) / 2) * sqrt(sv) / n;
	x->gmean = exp(m);
	x->lo = exp(m - half);
	x->hi = exp(m + half);
}

/* Model cell (r, p, me) as the matrix shows it. */
static void cell_of(struct fl_sum_cell *x, const struct fl_model *m, int r, int p, int me)
{
	const struct fl_mcell *y = fl_model_cell(m, r, p, me);
	*x = (struct fl_sum_cell){ .v = FL_UNDECIDED, .status = y->present ? y->status : NULL,
				   .se = NAN };
	if (!y->usable || y->ratio.n <= 0)
		return;
	if (fl_model_is_baseline(m, me)) {
		*x = (struct fl_sum_cell){ true, 1, 1, 1, 0, FL_SAME, y->status, false };
		return;
	}
	*x = (struct fl_sum_cell){ true, y->ratio.median, y->ratio.lo, y->ratio.hi,
				   fl_ratio_log_se(&y->ratio), y->verdict, y->status, y->more_cpu };
}

/* The index of point p's first cell in run r's cells (-1: none). */
static int first_cell(const struct fl_model *m, int r, int p)
{
	for (int i = 0; i < m->run[r].c.n; i++)
		if (!strcmp(m->run[r].c.c[i].point, m->point[p]))
			return i;
	return -1;
}

void fl_summary_build(struct fl_sum *s, const struct fl_model *m, int r)
{
	*s = (struct fl_sum){ .baseline = m->baseline, .value = m->run[r].c.value,
			      .npoints = m->npoint, .nentries = m->nentry };
	s->points = fl_xcalloc((size_t)m->npoint + 1, sizeof *s->points);
	s->entries = fl_xcalloc((size_t)m->nentry + 1, sizeof *s->entries);
	s->cells = fl_xcalloc((size_t)m->npoint * (size_t)m->nentry + 1, sizeof *s->cells);
	for (int me = 0; me < m->nentry; me++) { /* the model's order: the table's */
		enum fl_entry_kind k = fl_model_kind(m, me);
		s->entries[me] = (struct fl_sum_entry){ .label = m->entry[me],
						       .kind = fl_catalog_kind(m->entry[me]),
						       .gmean = NAN, .lo = NAN, .hi = NAN,
						       .baseline = k == FL_ENTRY_BASELINE,
						       .control = k == FL_ENTRY_CONTROL };
	}
	int b = fl_model_entry(m, m->baseline);
	for (int p = 0; p < m->npoint; p++) {
		int i = first_cell(m, r, p);
		const struct fl_cell *first = i >= 0 ? &m->run[r].c.c[i] : NULL;
		const struct fl_mpoint *q = fl_model_pt(m, r, p);
		struct fl_sum_point *pt = &s->points[p];
		*pt = (struct fl_sum_point){ .point = m->point[p], .winner = -1, .against = -1,
					     .workload = first ? first->workload : "",
					     .threads = first ? first->threads : 0,
					     .regimes = b >= 0 && fl_model_cell(m, r, p, b)->regimes,
					     .none_why = q->none_why };
		snprintf(pt->why, sizeof pt->why, "%s", q->why);
		for (int e = 0; e < m->nentry; e++) {
			const struct fl_mcell *y = fl_model_cell(m, r, p, e);
			cell_of(&s->cells[p * s->nentries + e], m, r, p, e);
			s->errors += y->present && !strcmp(y->status, "error");
		}
		pt->winner = q->fastest;
		pt->against = q->against;
		pt->group = q->group;
		pt->ngroup = q->ngroup;
		if (q->fastest >= 0) {
			pt->time = fl_model_cell(m, r, p, q->fastest)->value;
			pt->more_cpu = fl_model_cell(m, r, p, q->fastest)->more_cpu;
			pt->cpu = fl_model_cell(m, r, p, q->fastest)->cpu_ratio.median;
		}
		int nrow;
		const struct fl_cell **row = i >= 0 ? fl_point_rows(&m->run[r].c, i, m->baseline, &nrow)
						    : NULL;
		const struct fl_cell *ref = fl_cell_find(&m->run[r].c, m->point[p], m->baseline);
		if (row && ref && fl_cell_usable(ref))
			fl_peers_count(row, nrow, pt->regimes,
				       fl_control_band(&m->run[r].c, m->point[p], m->baseline), &s->peers);
		free(row);
	}
	for (int e = 0; e < s->nentries; e++)
		overall(s, e);
}

const char *fl_sum_why(const struct fl_sum_point *q)
{
	return q->none_why ? "no count fell" : q->why;
}

void fl_summary_free(struct fl_sum *s)
{
	free(s->points);
	free(s->entries);
	free(s->cells);
	*s = (struct fl_sum){ 0 };
}

/* ---- the screen ------------------------------------------------------------------ */

/* A label as the matrix shows it: the waiting policies shortened (@a
 * adaptive, @sN spin:N, @yN spin-yield:N), at most LABEL_MAX columns. */
#define LABEL_MAX 18
static const char *short_label(char *b, size_t n, const char *label)
{
	static const char *const from[] = { "@adaptive", "@spin-yield:", "@spin:" },
			  *const to[] = { "@a", "@y", "@s" };
	snprintf(b, n, "%s", label);
	for (int k = 0; k < 3; k++) {
		char *at = strstr(b, from[k]);
		if (at)
			memmove(at + strlen(to[k]), at + strlen(from[k]), strlen(at + strlen(from[k])) + 1),
				memcpy(at, to[k], strlen(to[k]));
	}
	if (strlen(b) > LABEL_MAX && n > LABEL_MAX)
		b[LABEL_MAX - 1] = '+', b[LABEL_MAX] = '\0';
	return b;
}

/* A point's column tag: its workload shortened and its threads ("pool2");
 * where another point has the same, the first letter of the first key
 * token the two differ in ("barr4e", "barr4a": wake=exact, wake=all). */
static const char *short_tag(char *b, size_t n, const struct fl_sum_point *x)
{
	static const char *const from[] = { "uncontended", "pingpong", "oversub", "prodcons",
					    "barrier", "timeouts", "waitany", "wake-each" },
			  *const to[] = { "unc", "ping", "ovs", "prod", "barr", "tmo", "wany", "wkea" };
	const char *w = x->workload;
	for (int k = 0; k < 8; k++)
		if (!strcmp(w, from[k]))
			w = to[k];
	snprintf(b, n, "%.4s%d", w, x->threads);
	return b;
}

static const char *point_tag(char *b, size_t n, const struct fl_sum *s, int p)
{
	char own[24], other[24];
	short_tag(own, sizeof own, &s->points[p]);
	snprintf(b, n, "%s", own);
	for (int q = 0; q < s->npoints; q++) {
		if (q == p || strcmp(own, short_tag(other, sizeof other, &s->points[q])))
			continue;
		/* the same tag: the first letter of the value where the keys differ */
		const char *k = s->points[p].point, *a = k, *c = s->points[q].point;
		while (*a && *a == *c)
			a++, c++;
		while (a > k && a[-1] != ' ' && a[-1] != '=')
			a--;
		snprintf(b, n, "%s%c", own, *a ? *a : '?');
		break;
	}
	return b;
}

/* A ratio in at most 5 columns, 2-3 significant digits. */
static const char *ratio_text(char *b, size_t n, double r)
{
	if (r < 0.001)
		snprintf(b, n, "%.0e", r);
	else if (r < 0.0995)
		snprintf(b, n, "%.3f", r);
	else if (r < 9.95)
		snprintf(b, n, "%.2f", r);
	else if (r < 99.5)
		snprintf(b, n, "%.1f", r);
	else
		snprintf(b, n, "%.0f", r);
	return b;
}

/* A cell: the ratio and its mark, or why there is none. */
static const char *cell_text(char *b, size_t n, const struct fl_sum_cell *k, bool regimes)
{
	if (!k->have) {
		snprintf(b, n, "%s", !k->status ? "." : !strcmp(k->status, "skipped") ? "skip"
				 : !strcmp(k->status, "error") ? "ERR" : "-");
		return b;
	}
	char r[16];
	char mark = k->v == FL_FASTER ? '+' : k->v == FL_SLOWER ? '-' : k->v == FL_SAME ? '~'
		    : regimes ? 'r' : '?';
	snprintf(b, n, "%s%c%s", ratio_text(r, sizeof r, k->ratio), mark, k->more_cpu ? "c" : "");
	return b;
}

/* An entry's overall: "0.512 ×/÷1.083 (10)"; "-" without a usable point. */
static const char *overall_text(char *b, size_t n, const struct fl_sum_entry *e)
{
	char r[16], h[32];
	if (!e->npoints)
		snprintf(b, n, "-");
	else if (isnan(e->lo))
		snprintf(b, n, "%s (%d)", ratio_text(r, sizeof r, e->gmean), e->npoints);
	else
		snprintf(b, n, "%-5s %s (%d)", ratio_text(r, sizeof r, e->gmean),
			 fl_factor_text(h, sizeof h, (log(e->hi) - log(e->lo)) / 2), e->npoints);
	return b;
}

#define CELL_W 8

static int label_width(const struct fl_sum *s)
{
	int w = 5;
	char b[64];
	for (int e = 0; e < s->nentries; e++)
		if (!s->entries[e].baseline && (int)strlen(short_label(b, sizeof b, s->entries[e].label)) > w)
			w = (int)strlen(b);
	return w;
}

/* Entries as rows, points as columns (numbered; their keys below). */
static void matrix_by_entry(FILE *f, const struct fl_sum *s)
{
	int lw = label_width(s);
	char b[64];
	fprintf(f, "  %-*s", lw, "");
	for (int p = 0; p < s->npoints; p++)
		fprintf(f, "%*d", CELL_W, p + 1);
	fprintf(f, "\n  %-*s", lw, "entry");
	for (int p = 0; p < s->npoints; p++)
		fprintf(f, "%*s", CELL_W, point_tag(b, sizeof b, s, p));
	fprintf(f, "   geomean, %.0f%% (points)\n", 100 * FL_SUM_LEVEL);
	for (int e = 0; e < s->nentries; e++) {
		if (s->entries[e].baseline)
			continue;
		fprintf(f, "  %-*s", lw, short_label(b, sizeof b, s->entries[e].label));
		for (int p = 0; p < s->npoints; p++)
			fprintf(f, "%*s", CELL_W, cell_text(b, sizeof b,
				&s->cells[p * s->nentries + e], s->points[p].regimes));
		fprintf(f, "   %s\n", overall_text(b, sizeof b, &s->entries[e]));
	}
}

/* Points as rows (numbered, tagged), entries as columns; the overall in
 * two rows under them: the geometric mean, then its interval's factor. */
static void matrix_by_point(FILE *f, const struct fl_sum *s)
{
	char b[64], h[32];
	int w[s->nentries + 1];
	fprintf(f, "  %-9s", "point");
	for (int e = 0; e < s->nentries; e++) {
		w[e] = (int)strlen(short_label(b, sizeof b, s->entries[e].label)) + 1;
		w[e] = w[e] < 10 ? 10 : w[e];
		if (!s->entries[e].baseline)
			fprintf(f, "%*s", w[e], b);
	}
	fputc('\n', f);
	for (int p = 0; p < s->npoints; p++) {
		fprintf(f, "  %2d %-6s", p + 1, point_tag(b, sizeof b, s, p));
		for (int e = 0; e < s->nentries; e++)
			if (!s->entries[e].baseline)
				fprintf(f, "%*s", w[e], cell_text(b, sizeof b,
					&s->cells[p * s->nentries + e], s->points[p].regimes));
		fputc('\n', f);
	}
	fprintf(f, "  %-9s", "geomean");
	for (int e = 0; e < s->nentries; e++)
		if (!s->entries[e].baseline)
			fprintf(f, "%*s", w[e], s->entries[e].npoints ?
				ratio_text(b, sizeof b, s->entries[e].gmean) : "-");
	fprintf(f, "\n  %-9s", "95%");
	for (int e = 0; e < s->nentries; e++)
		if (!s->entries[e].baseline)
			fprintf(f, "%*s", w[e] + FL_FACTOR_EXTRA, isnan(s->entries[e].lo) ? "-" :
				fl_factor_text(h, sizeof h, (log(s->entries[e].hi) -
							    log(s->entries[e].lo)) / 2));
	fputc('\n', f);
}

/* Tokens ("wake=exact") every point's key has: said once, above. */
static bool common_token(const struct fl_sum *s, const char *tok, size_t l)
{
	for (int p = 0; p < s->npoints; p++) {
		const char *k = s->points[p].point, *at = k;
		bool found = false;
		while (!found && (at = strstr(at, tok)) != NULL) {
			found = (at == k || at[-1] == ' ') && (at[l] == ' ' || at[l] == '\0') &&
				!strncmp(at, tok, l);
			at++;
		}
		if (!found)
			return false;
	}
	return s->npoints > 1;
}

/* A point's key without the common tokens. */
static const char *point_key(char *b, size_t n, const struct fl_sum *s, const char *key)
{
	b[0] = '\0';
	const char *at = key;
	while (*at) {
		size_t l = strcspn(at, " ");
		char tok[64];
		snprintf(tok, sizeof tok, "%.*s", (int)l, at);
		if (!strchr(tok, '=') || !common_token(s, tok, l))
			snprintf(b + strlen(b), n - strlen(b), "%s%s", b[0] ? " " : "", tok);
		at += l + (at[l] == ' ');
	}
	return b;
}

/* The why of point p: "wakes/op 2.035 -> 0.004", with " vs NAME" when
 * it is not against the baseline; "no count fell" (model.h: none moved its way). */
static const char *why_text(char *b, size_t n, const struct fl_sum *s, const struct fl_sum_point *pt)
{
	b[0] = '\0';
	if (pt->against < 0)
		return b;
	const char *vs = s->entries[pt->against].baseline ? "" : s->entries[pt->against].label;
	snprintf(b, n, "%s%s%s", fl_sum_why(pt), vs[0] ? " vs " : "", vs);
	return b;
}

/* The fastest, its own time and its CPU when more than the baseline's:
 * "negcount@a 0.73 (32.2us, 1.8x CPU)". */
static const char *fastest_text(char *b, size_t n, const struct fl_sum *s,
				const struct fl_sum_point *pt)
{
	char l[64], r[16], t[24], c[24] = "";
	const struct fl_sum_cell *w = &s->cells[(pt - s->points) * s->nentries + pt->winner];
	if (s->value == FL_VALUE_NS)
		fl_dur_text(t, sizeof t, pt->time);
	else
		snprintf(t, sizeof t, "%.4g", pt->time);
	if (pt->more_cpu)
		snprintf(c, sizeof c, ", %.1fx CPU", pt->cpu);
	snprintf(b, n, "%s %s (%s%s)", short_label(l, sizeof l, s->entries[pt->winner].label),
		 ratio_text(r, sizeof r, w->ratio), t, c);
	return b;
}

/* The group after the fastest, its first k names: " = musl, split +3". */
static const char *group_text(char *b, size_t n, const struct fl_sum *s,
			      const struct fl_sum_point *pt, int k)
{
	char l[64];
	b[0] = '\0';
	if (pt->ngroup < 2)
		return b;
	int shown = 0;
	for (int g = 1; g < pt->ngroup && shown < k; g++, shown++)
		snprintf(b + strlen(b), n - strlen(b), "%s%s", shown ? ", " : " = ",
			 short_label(l, sizeof l, s->entries[pt->group[g]].label));
	if (pt->ngroup - 1 > shown)
		snprintf(b + strlen(b), n - strlen(b), "%s+%d", shown ? " " : " = ",
			 pt->ngroup - 1 - shown);
	return b;
}

#define LINE_MAX_COLS 119

/* Per point: its key, the fastest and its group, why. */
static void winners(FILE *f, const struct fl_sum *s)
{
	char k[128], w[128], g[256], y[200], line[512];
	fprintf(f, "fastest per point: the least time ratio (its own time; its CPU when more than "
		   "%s's); \"= a, b +N\": the entries\n  the table's rule cannot tell from it (a tie "
		   "is a group); then the count that fell most vs %s (the why rule)\n",
		s->baseline, s->baseline);
	for (int p = 0; p < s->npoints; p++) {
		const struct fl_sum_point *pt = &s->points[p];
		int head = snprintf(line, sizeof line, "  %2d %-27s ", p + 1,
				    point_key(k, sizeof k, s, pt->point));
		if (pt->regimes) {
			fprintf(f, "%stwo regimes: no winner (per state: the full table)\n", line);
			continue;
		}
		if (pt->winner < 0) {
			fprintf(f, "%s-\n", line);
			continue;
		}
		fastest_text(w, sizeof w, s, pt);
		why_text(y, sizeof y, s, pt);
		/* as many of the group's names as the line has room for */
		int names = pt->ngroup - 1;
		do
			group_text(g, sizeof g, s, pt, names);
		while (names-- > 0 &&
		       head + strlen(w) + strlen(g) + (y[0] ? 2 + strlen(y) : 0) > LINE_MAX_COLS);
		fprintf(f, "%s%s%s%s%s\n", line, w, g, y[0] ? "  " : "", y);
	}
}

/* The common tokens, said once. */
static void common_line(FILE *f, const struct fl_sum *s)
{
	char tok[64];
	bool any = false;
	const char *at = s->npoints ? s->points[0].point : "";
	while (*at) {
		size_t l = strcspn(at, " ");
		snprintf(tok, sizeof tok, "%.*s", (int)l, at);
		if (strchr(tok, '=') && common_token(s, tok, l))
			fprintf(f, "%s%s", any ? " " : " (every point: ", tok), any = true;
		at += l + (at[l] == ' ');
	}
	if (any)
		fputc(')', f);
}

void fl_summary_print(FILE *f, const struct fl_sum *s)
{
	fprintf(f, "\nsummary: %s / %s's, paired by round, median over the rounds",
		s->value == FL_VALUE_NS ? "time per op" : "the figure", s->baseline);
	common_line(f, s);
	fputc('\n', f);
	int cols = 0;
	for (int e = 0; e < s->nentries; e++)
		cols += !s->entries[e].baseline;
	if (cols > s->npoints)
		matrix_by_entry(f, s);
	else
		matrix_by_point(f, s);
	fprintf(f, "  + faster, - slower than %s (the table's verdict: interval excludes 1, beyond the "
		   "control's band); ~ neither;\n  c: and more CPU than %s (its CPU ratio so, >= "
		   "%.2fx); ? too few rounds; r: %s runs in two states there\n  (left out of the "
		   "overall); . not run; skip; ERR; @a: adaptive\n", s->baseline, s->baseline,
		FL_CPU_NOTE, s->baseline);
	winners(f, s);
	fl_peers_summary(f, &s->peers);
	if (s->errors)
		fprintf(f, "ERROR: %d cell(s) broke an invariant (the full table has the rows)\n",
			s->errors);
}

/* The full tables in memory (the ratio table, then more's), once for the
 * file and the screen alike. */
static char *detail_text(const struct fl_model *model, void (*more)(FILE *f, void *arg),
			 void *arg, size_t *len, int *errors)
{
	char *buf = NULL;
	FILE *m = fl_xcheck(open_memstream(&buf, len));
	*errors = fl_print_ratios(m, model, 0);
	if (more)
		more(m, arg);
	if (fclose(m))
		fl_xcheck(NULL); /* out of memory: one line, the end */
	return buf;
}

/* Writes the full tables and the summary to path; false (errno) if not. */
static bool write_detail(const char *path, const char *buf, size_t len, const struct fl_sum *s)
{
	FILE *d = fopen(path, "w");
	if (!d)
		return false;
	fwrite(buf, 1, len, d);
	fl_summary_print(d, s);
	return fclose(d) == 0;
}

int fl_report_text(FILE *out, struct fl_loaded_run *run, const struct fl_text_opts *o)
{
	size_t len = 0;
	int errors;
	const char *detail_path = o->detail_path;
	bool show_detail = o->show_detail;
	struct fl_model m;
	fl_model_of_run(&m, run, o->baseline);
	char *buf = detail_text(&m, o->more, o->arg, &len, &errors);
	struct fl_sum s;
	fl_summary_build(&s, &m, 0);
	fl_table_as_marks(out, &run->t, ""); /* first: a --as run is never a measurement */
	if (show_detail)
		fwrite(buf, 1, len, out);
	bool kept = detail_path && write_detail(detail_path, buf, len, &s);
	if (detail_path && !kept)
		fprintf(stderr, "futexlab: cannot write %s: %s\n", detail_path, strerror(errno));
	free(buf);
	fl_summary_print(out, &s);
	fl_summary_free(&s);
	fl_model_free(&m);
	if (kept)
		fprintf(out, "full tables: %s (%s)\n", detail_path,
			show_detail ? "and above" : "or --detail");
	else
		fprintf(out, "full tables: %s\n", show_detail ? "above" : "--detail");
	return errors;
}
