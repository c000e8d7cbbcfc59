/* report/summary.c — the answer first (summary.h). */
#include "report/summary.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/evidence.h"
#include "report/ratios.h"
#include "report/regimes.h"
#include "report/xalloc.h"
#include "report/stats_text.h"
#include "report/catalog.h"

/* ---- the model ---------------------------------------------------------------- */

/* Whether an entry may win a point: not the control, not a floor. */
static bool candidate(const struct fl_sum_entry *e)
{
	return !e->control && strncmp(e->label, "floor-", 6) != 0;
}

static int entry_index(const struct fl_sum *s, const char *label)
{
	for (int e = 0; e < s->nentries; e++)
		if (!strcmp(s->entries[e].label, label))
			return e;
	return -1;
}

/* The points (each at its first cell) and the entries (in the table's row
 * order, the union over the points in order of first appearance). */
static void collect(struct fl_sum *s, const struct fl_cells *c, const char *baseline)
{
	s->points = fl_xcalloc((size_t)c->n + 1, sizeof *s->points);
	s->entries = fl_xcalloc((size_t)c->n + 1, sizeof *s->entries);
	for (int i = 0; i < c->n; i++) {
		int nrow;
		const struct fl_cell **row = fl_point_rows(c, i, baseline, &nrow);
		if (!row)
			continue;
		struct fl_sum_point *p = &s->points[s->npoints++];
		*p = (struct fl_sum_point){ .point = c->c[i].point, .workload = c->c[i].workload,
					    .threads = c->c[i].threads, .winner = -1,
					    .runner_up = -1 };
		for (int j = 0; j < nrow; j++) {
			if (entry_index(s, row[j]->variant) >= 0)
				continue;
			struct fl_sum_entry *e = &s->entries[s->nentries++];
			*e = (struct fl_sum_entry){ .label = row[j]->variant,
						    .kind = fl_catalog_kind(row[j]->variant),
						    .gmean = NAN, .lo = NAN, .hi = NAN,
						    .baseline = !strcmp(row[j]->variant, baseline),
						    .control = fl_is_control(row[j]->variant, baseline) };
		}
		free(row);
	}
}

/* One cell: the table's ratio and verdict; *se the standard error of its
 * log (NAN: none). */
static void fill_cell(struct fl_sum_cell *x, const struct fl_cells *c, const struct fl_cell *y,
		      const struct fl_cell *ref, const char *baseline, double *se)
{
	*x = (struct fl_sum_cell){ .v = FL_UNDECIDED, .status = y ? y->status : NULL };
	*se = NAN;
	if (!y || !fl_cell_usable(y) || !ref || !fl_cell_usable(ref))
		return;
	if (y == ref) {
		*x = (struct fl_sum_cell){ true, 1, 1, 1, FL_SAME, y->status };
		*se = 0;
		return;
	}
	struct fl_ratio q = { .n = 0 };
	enum fl_verdict v = fl_cell_verdict(c, y, ref, &q, baseline);
	if (q.n <= 0)
		return;
	*x = (struct fl_sum_cell){ true, q.median, q.lo, q.hi, v, y->status };
	*se = fl_ratio_log_se(&q);
}

/* The overall of entry e: the geometric mean over its usable points and
 * the interval of summary.h, from the cells' log standard errors. */
static void overall(struct fl_sum *s, int e, const double *se)
{
	struct fl_sum_entry *x = &s->entries[e];
	double sy = 0, sv = 0;
	int n = 0;
	for (int p = 0; p < s->npoints; p++) {
		const struct fl_sum_cell *k = &s->cells[p * s->nentries + e];
		if (!k->have || s->points[p].regimes || !(k->ratio > 0))
			continue;
		double w = se[p * s->nentries + e];
		sy += log(k->ratio);
		sv += w * w; /* NAN when a point has no error: then no interval */
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

/* Point p's winner: the fastest candidate by time ratio, a tie when the
 * table's rule cannot tell it from the next; why: the count that differs
 * most from the baseline's (the runner-up's when the baseline wins). */
static void winner(struct fl_sum *s, int p, const struct fl_cells *c, const char *baseline)
{
	struct fl_sum_point *pt = &s->points[p];
	if (pt->regimes)
		return;
	int w = -1, r = -1;
	for (int e = 0; e < s->nentries; e++) {
		const struct fl_sum_cell *k = &s->cells[p * s->nentries + e];
		if (!k->have || !candidate(&s->entries[e]))
			continue;
		if (w < 0 || k->ratio < s->cells[p * s->nentries + w].ratio)
			r = w, w = e;
		else if (r < 0 || k->ratio < s->cells[p * s->nentries + r].ratio)
			r = e;
	}
	pt->winner = w;
	pt->runner_up = r;
	if (w < 0)
		return;
	const struct fl_cell *cw = fl_cell_find(c, pt->point, s->entries[w].label),
			     *cr = r >= 0 ? fl_cell_find(c, pt->point, s->entries[r].label) : NULL,
			     *ref = fl_cell_find(c, pt->point, baseline);
	pt->tie = cr && fl_cell_verdict(c, cw, cr, NULL, baseline) != FL_FASTER;
	char ctrl_name[96], why[160];
	fl_control_name(ctrl_name, sizeof ctrl_name, baseline);
	const struct fl_cell *ctrl = fl_cell_find(c, pt->point, ctrl_name);
	if (ctrl && !fl_cell_usable(ctrl))
		ctrl = NULL;
	const struct fl_cell *other = cw == ref ? cr : ref;
	if (!other)
		return;
	if (fl_why_short(why, sizeof why, cw, other, ctrl)[0])
		snprintf(pt->why, sizeof pt->why, "vs %s: %s", other->variant, why);
}

/* The cells of point p, its regimes, its libraries' tally. */
static void point_cells(struct fl_sum *s, int p, const struct fl_cells *c, const char *baseline,
			double *se)
{
	struct fl_sum_point *pt = &s->points[p];
	const struct fl_cell *ref = fl_cell_find(c, pt->point, baseline);
	pt->regimes = ref && fl_cell_usable(ref) && fl_point_has_regimes(ref);
	for (int e = 0; e < s->nentries; e++) {
		const struct fl_cell *y = fl_cell_find(c, pt->point, s->entries[e].label);
		fill_cell(&s->cells[p * s->nentries + e], c, y, ref, baseline,
			  &se[p * s->nentries + e]);
		s->errors += y && !strcmp(y->status, "error");
	}
	int first = -1, nrow;
	for (int i = 0; i < c->n && first < 0; i++)
		if (!strcmp(c->c[i].point, pt->point))
			first = i;
	const struct fl_cell **row = fl_point_rows(c, first, baseline, &nrow);
	if (row && ref && fl_cell_usable(ref))
		fl_peers_count(row, nrow, pt->regimes, &s->peers);
	free(row);
}

void fl_summary_build(struct fl_sum *s, const struct fl_table *t, const struct fl_cells *c,
		      const char *baseline)
{
	(void)t;
	*s = (struct fl_sum){ .baseline = baseline, .value = c->value };
	collect(s, c, baseline);
	size_t n = (size_t)s->npoints * (size_t)s->nentries + 1;
	s->cells = fl_xcalloc(n, sizeof *s->cells);
	double *se = fl_xcalloc(n, sizeof *se);
	for (int p = 0; p < s->npoints; p++)
		point_cells(s, p, c, baseline, se);
	for (int e = 0; e < s->nentries; e++)
		overall(s, e, se);
	for (int p = 0; p < s->npoints; p++)
		winner(s, p, c, baseline);
	free(se);
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

/* A point's column tag: its workload shortened and its threads ("pool2"). */
static const char *point_tag(char *b, size_t n, const struct fl_sum_point *p)
{
	static const char *const from[] = { "uncontended", "pingpong", "oversub", "prodcons",
					    "barrier", "timeouts", "waitany", "wake-each" },
			  *const to[] = { "unc", "ping", "ovs", "prod", "barr", "tmo", "wany", "wkea" };
	const char *w = p->workload;
	for (int k = 0; k < 8; k++)
		if (!strcmp(w, from[k]))
			w = to[k];
	snprintf(b, n, "%.4s%d", w, p->threads);
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
	snprintf(b, n, "%s%c", ratio_text(r, sizeof r, k->ratio), mark);
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

#define CELL_W 7

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
		fprintf(f, "%*s", CELL_W, point_tag(b, sizeof b, &s->points[p]));
	fprintf(f, "   overall (geomean, %.0f%%, points)\n", 100 * FL_SUM_LEVEL);
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
		fprintf(f, "  %2d %-6s", p + 1, point_tag(b, sizeof b, &s->points[p]));
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

/* Per point: its key, the winner and why. */
static void winners(FILE *f, const struct fl_sum *s)
{
	char k[128], b[64], r[16], r2[16];
	fprintf(f, "fastest per point (time ratio; \"tie\": the table's rule cannot tell it from the next)"
		   "; why: the count that differs most\n");
	for (int p = 0; p < s->npoints; p++) {
		const struct fl_sum_point *pt = &s->points[p];
		fprintf(f, "  %2d %-27s ", p + 1, point_key(k, sizeof k, s, pt->point));
		if (pt->regimes) {
			fprintf(f, "two regimes: no winner (per state: the full table)\n");
			continue;
		}
		if (pt->winner < 0) {
			fprintf(f, "-\n");
			continue;
		}
		const struct fl_sum_cell *w = &s->cells[p * s->nentries + pt->winner];
		fprintf(f, "%s %s", short_label(b, sizeof b, s->entries[pt->winner].label),
			ratio_text(r, sizeof r, w->ratio));
		if (pt->tie)
			fprintf(f, ", tie %s %s", short_label(b, sizeof b, s->entries[pt->runner_up].label),
				ratio_text(r2, sizeof r2, s->cells[p * s->nentries + pt->runner_up].ratio));
		fprintf(f, "%s%s\n", pt->why[0] ? "  " : "", pt->why);
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
		   "control's band); ~ neither;\n  ? too few rounds; r: %s runs in two states there "
		   "(left out of the overall); . not run; skip; ERR; @a: adaptive\n", s->baseline,
		s->baseline);
	winners(f, s);
	fl_peers_summary(f, &s->peers);
	if (s->errors)
		fprintf(f, "ERROR: %d cell(s) broke an invariant (the full table has the rows)\n",
			s->errors);
}

/* The full tables in memory (the ratio table, then more's), once for the
 * file and the screen alike. */
static char *detail_text(const struct fl_table *t, const struct fl_cells *c, const char *baseline,
			 void (*more)(FILE *f, void *arg), void *arg, size_t *len, int *errors)
{
	char *buf = NULL;
	FILE *m = fl_xcheck(open_memstream(&buf, len));
	*errors = fl_print_ratios(m, t, c, baseline);
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

int fl_report_text(FILE *out, const char *detail_path, bool show_detail,
		   const struct fl_table *t, const struct fl_cells *c, const char *baseline,
		   void (*more)(FILE *f, void *arg), void *arg)
{
	size_t len = 0;
	int errors;
	char *buf = detail_text(t, c, baseline, more, arg, &len, &errors);
	struct fl_sum s;
	fl_summary_build(&s, t, c, baseline);
	fl_table_as_marks(out, t, ""); /* first: a --as run is never a measurement */
	if (show_detail)
		fwrite(buf, 1, len, out);
	bool kept = detail_path && write_detail(detail_path, buf, len, &s);
	if (detail_path && !kept)
		fprintf(stderr, "futexlab: cannot write %s: %s\n", detail_path, strerror(errno));
	free(buf);
	fl_summary_print(out, &s);
	fl_summary_free(&s);
	if (kept)
		fprintf(out, "full tables: %s (%s)\n", detail_path,
			show_detail ? "and above" : "or --detail");
	else
		fprintf(out, "full tables: %s\n", show_detail ? "above" : "--detail");
	return errors;
}

const char *fl_detail_path(const char *csv_path, char *out, size_t n)
{
	size_t l = strlen(csv_path);
	if (l > 4 && !strcmp(csv_path + l - 4, ".csv"))
		snprintf(out, n, "%.*s.txt", (int)(l - 4), csv_path);
	else
		snprintf(out, n, "%s.txt", csv_path);
	return out;
}
