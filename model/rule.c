/* model/rule.c — the table's rule: a row judged against the baseline and
 * the control's band, the rows' order (rule.h). */
#include "model/rule.h"
#include "model/regimes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fail/xalloc.h"
#include "model/catalog.h"
#include "model/stats_text.h"

/* The run's A/A floor at a point (stats.h): the control's resolution, of
 * the time ratio or (cpu) the CPU ratio; 0 without a usable control. */
static double control_floor(const struct fl_cells *c, const char *point, const char *baseline,
			    bool cpu)
{
	char name[80];
	fl_control_name(name, sizeof name, baseline);
	const struct fl_cell *x = fl_cell_find(c, point, name), *b = fl_cell_find(c, point, baseline);
	struct fl_ratio q;
	if (!(cpu ? fl_cell_cpu_ratio(x, b, &q) : fl_cell_ratio(x, b, &q)) || q.level < 0.95)
		return 0;
	return q.resolution;
}

double fl_control_band(const struct fl_cells *c, const char *point, const char *baseline)
{
	return control_floor(c, point, baseline, false);
}

/* The control is judged by its own intervals, every other row also against
 * the control's floor (time's and CPU's), which its resolution then
 * includes. False: no pairs. */
static bool judge(const struct fl_cells *c, const struct fl_cell *y, const struct fl_cell *ref,
		  const char *baseline, struct fl_judged *j)
{
	if (!fl_cell_ratio(y, ref, &j->q))
		return false;
	bool control = fl_is_control(y->variant, baseline);
	double floor = control ? 0 : control_floor(c, y->point, baseline, false);
	if (floor > j->q.resolution)
		j->q.resolution = floor;
	j->v = fl_ratio_verdict(&j->q, floor);
	j->cpu = fl_cell_cpu_ratio(y, ref, &j->cq);
	if (j->cpu) {
		double cfloor = control ? 0 : control_floor(c, y->point, baseline, true);
		if (cfloor > j->cq.resolution)
			j->cq.resolution = cfloor;
		j->cv = fl_ratio_verdict(&j->cq, cfloor);
	}
	return true;
}

const char *fl_judged_words(char *b, size_t n, const char *word, const char *short_word,
			    const struct fl_judged *j)
{
	double factor = j->cq.median;
	if (!j->cpu || !fl_cpu_note(j->v, j->cv, factor)) {
		snprintf(b, n, "%s", word);
		return b;
	}
	const char *w = j->v == FL_SAME ? short_word : word;
	if (factor >= 9.95)
		snprintf(b, n, "%s, %.0fx CPU", w, factor);
	else if (factor >= 0.095)
		snprintf(b, n, "%s, %.1fx CPU", w, factor);
	else
		snprintf(b, n, "%s, %.2gx CPU", w, factor);
	return b;
}

/* Rows of a point in a fixed order whatever order the rounds ran in: the
 * registry's (variants/meson.build), the control after its baseline, then
 * the floors and anything else. */
static int rank(const char *variant, const char *baseline)
{
	char base[64];
	snprintf(base, sizeof base, "%s", variant);
	size_t l = strlen(base);
	bool control = fl_is_control(base, baseline);
	if (control)
		base[l - 2] = '\0';
	bool is_base = !strcmp(base, baseline);
	base[strcspn(base, "@")] = '\0'; /* NAME@POLICY: beside NAME */
	int n, i = fl_catalog_rank(base, &n);
	if (i >= 0)
		return 4 * i + (is_base ? control : 2);
	if (is_base) /* no catalog: the baseline and its control still lead */
		return control;
	return 4 * n + 2 + (strncmp(base, "floor-", 6) != 0);
}

int fl_entry_order(const char *a, const char *b, const char *baseline)
{
	int d = rank(a, baseline) - rank(b, baseline);
	return d ? d : strcmp(a, b);
}

static const char *sort_baseline;
static int by_rank(const void *a, const void *b)
{
	const struct fl_cell *x = *(const struct fl_cell *const *)a,
			     *y = *(const struct fl_cell *const *)b;
	return fl_entry_order(x->variant, y->variant, sort_baseline);
}

const struct fl_cell **fl_point_rows(const struct fl_cells *c, int i, const char *baseline,
				     int *nrow)
{
	for (int j = 0; j < i; j++)
		if (!strcmp(c->c[j].point, c->c[i].point))
			return NULL;
	const struct fl_cell **row = fl_xcalloc((size_t)(c->n - i), sizeof(void *));
	*nrow = 0;
	for (int j = i; j < c->n; j++)
		if (!strcmp(c->c[j].point, c->c[i].point))
			row[(*nrow)++] = &c->c[j];
	sort_baseline = baseline;
	qsort(row, (size_t)*nrow, sizeof(void *), by_rank); /* an array of pointers */
	return row;
}

enum fl_verdict fl_cell_verdict(const struct fl_cells *c, const struct fl_cell *y,
				const struct fl_cell *ref, struct fl_ratio *q, const char *baseline)
{
	struct fl_judged j;
	if (!fl_cell_usable(y) || !fl_cell_usable(ref) || y == ref ||
	    !judge(c, y, ref, baseline, &j))
		return FL_UNDECIDED;
	if (q)
		*q = j.q;
	return fl_point_has_regimes(ref) ? FL_UNDECIDED : j.v;
}

bool fl_cell_judge(const struct fl_cells *c, const struct fl_cell *y, const struct fl_cell *ref,
		   const char *baseline, struct fl_judged *j)
{
	return fl_cell_usable(y) && fl_cell_usable(ref) && y != ref && judge(c, y, ref, baseline, j);
}

const char *fl_judged_text(char *b, size_t n, const struct fl_judged *j)
{
	return fl_judged_words(b, n, fl_verdict_name(j->v), "~", j);
}

void fl_pool_ratios(const struct fl_pool_grid *g, const char *ref, bool cpu, struct fl_ratio *r)
{
	for (int j = 0; j < g->nrun; j++) {
		const struct fl_cell *b = fl_cell_find(g->cells[j], g->point, ref);
		for (int e = 0; e < g->nent; e++) {
			const struct fl_cell *x = fl_cell_find(g->cells[j], g->point, g->ent[e]->variant);
			struct fl_ratio *q = &r[j * g->nent + e];
			if (!(cpu ? fl_cell_cpu_ratio : fl_cell_ratio)(x, b, q))
				*q = (struct fl_ratio){ .n = 0 };
		}
	}
}
