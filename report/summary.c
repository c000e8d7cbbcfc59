/* report/summary.c — the answer first (summary.h). */
#include "report/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/evidence.h"
#include "report/ratios.h"
#include "report/regimes.h"
#include "report/xalloc.h"

/* ---- the model ---------------------------------------------------------------- */

static bool is_control(const char *label, const char *baseline)
{
	size_t l = strlen(label), b = strlen(baseline);
	return l == b + 2 && !strncmp(label, baseline, b) && !strcmp(label + b, "#2");
}

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
						    .control = is_control(row[j]->variant, baseline) };
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
	snprintf(ctrl_name, sizeof ctrl_name, "%s#2", baseline);
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

void fl_summary_print(FILE *f, const struct fl_sum *s)
{
	fprintf(f, "summary: %d points, %d entries against %s\n", s->npoints, s->nentries,
		s->baseline);
}

int fl_report_text(FILE *out, const char *detail_path, bool show_detail,
		   const struct fl_table *t, const struct fl_cells *c, const char *baseline,
		   void (*more)(FILE *f, void *arg), void *arg)
{
	(void)detail_path;
	(void)show_detail;
	int errors = fl_print_ratios(out, t, c, baseline);
	if (more)
		more(out, arg);
	return errors;
}
