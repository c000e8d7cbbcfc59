/* model/model.c — runs x points x entries (model.h). */
#include "model/model.h"
#include "model/catalog.h"
#include "model/evidence.h"
#include "model/rule.h"
#include "model/regimes.h"
#include "fail/fail.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail/xalloc.h"

/* The index of s in list[0..*n), appended when missing. */
static int intern(char ***list, int *n, const char *s)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*list)[i], s))
			return i;
	*list = fl_xrealloc(*list, (size_t)(*n + 1) * sizeof **list);
	(*list)[*n] = fl_xstrdup(s);
	return (*n)++;
}

/* What the run's ratio table says of cell y at its point. */
static struct fl_mcell cell_of(const struct fl_cells *c, const struct fl_cell *y,
			       const char *baseline)
{
	struct fl_mcell m = { .src = y, .present = true, .status = y->status, .value = NAN,
			      .value_lo = NAN, .value_hi = NAN, .cpu = NAN,
			      .verdict = FL_UNDECIDED };
	m.usable = fl_cell_usable(y);
	if (!m.usable)
		return m;
	m.reps = y->ns.n;
	m.value = y->shown;
	m.value_lo = fl_value_shown(y->value, y->ns.ci_lo);
	m.value_hi = fl_value_shown(y->value, y->ns.ci_hi);
	if (m.value_lo > m.value_hi) { /* a higher-is-better figure, shown as is */
		double x = m.value_lo;
		m.value_lo = m.value_hi;
		m.value_hi = x;
	}
	m.cpu = y->cpu.n ? y->cpu.median : NAN;
	const struct fl_cell *ref = fl_cell_find(c, y->point, baseline);
	if (!ref || !fl_cell_usable(ref))
		return m;
	m.regimes = fl_point_has_regimes(ref);
	/* the judgement pairs the rows once; the ratio alone only where there
	 * is none (the baseline against itself, or no pairs) */
	m.judged = y != ref && fl_cell_judge(c, y, ref, baseline, &m.j);
	if (!m.judged) {
		if (!fl_cell_ratio(y, ref, &m.ratio))
			m.ratio = (struct fl_ratio){ .n = 0 };
		return m;
	}
	m.ratio = m.j.q; /* its resolution: the control's band included */
	m.verdict = m.regimes ? FL_UNDECIDED : m.j.v;
	if (m.j.cpu) {
		m.cpu_ratio = m.j.cq;
		m.more_cpu = m.j.cv == FL_SLOWER && m.j.cq.median >= FL_CPU_NOTE;
	}
	return m;
}

/* ---- per point: the fastest group and why (fl_mpoint) ------------------------- */

static bool candidate(const struct fl_model *m, int r, int p, int e)
{
	enum fl_entry_kind k = fl_model_kind(m, e);
	const struct fl_mcell *x = fl_model_cell(m, r, p, e);
	return x->usable && x->ratio.n > 0 && k != FL_ENTRY_CONTROL && k != FL_ENTRY_FLOOR;
}

static const struct fl_cell *cell_at(const struct fl_model *m, int r, int p, int e)
{
	return fl_cell_find(&m->run[r].c, m->point[p], m->entry[e]);
}

/* Whether the table's rule tells a (the faster) from b: a / b is `faster`. */
static bool apart(const struct fl_model *m, int r, int p, int a, int b)
{
	return fl_cell_verdict(&m->run[r].c, cell_at(m, r, p, a), cell_at(m, r, p, b), NULL,
			       m->baseline) == FL_FASTER;
}

static void why(const struct fl_model *m, int r, int p, struct fl_mpoint *x)
{
	int b = fl_model_entry(m, m->baseline), other = b;
	if (x->fastest == b) { /* the fastest candidate outside the group */
		other = -1;
		for (int e = 0; e < m->nentry; e++) {
			bool in = false;
			for (int g = 0; g < x->ngroup && !in; g++)
				in = x->group[g] == e;
			if (!in && candidate(m, r, p, e) &&
			    (other < 0 || fl_model_cell(m, r, p, e)->ratio.median <
						  fl_model_cell(m, r, p, other)->ratio.median))
				other = e;
		}
	}
	if (other < 0 || !apart(m, r, p, x->fastest, other))
		return; /* no result to explain */
	x->against = other;
	char ctrl_name[96];
	const struct fl_cell *ctrl = fl_cell_find(&m->run[r].c, m->point[p],
						  fl_control_name(ctrl_name, sizeof ctrl_name,
								  m->baseline));
	if (ctrl && !fl_cell_usable(ctrl))
		ctrl = NULL;
	fl_why_toward(x->why, sizeof x->why, cell_at(m, r, p, x->fastest),
		      cell_at(m, r, p, other), ctrl, -1);
	x->none_why = !x->why[0];
}

static void point_of(const struct fl_model *m, int r, int p, struct fl_mpoint *x)
{
	*x = (struct fl_mpoint){ .fastest = -1, .against = -1 };
	int b = fl_model_entry(m, m->baseline);
	if (b < 0 || fl_model_cell(m, r, p, b)->regimes || !fl_model_cell(m, r, p, b)->usable)
		return;
	int *order = fl_xcalloc((size_t)m->nentry, sizeof *order), n = 0;
	for (int e = 0; e < m->nentry; e++) {
		if (!candidate(m, r, p, e))
			continue;
		double q = fl_model_cell(m, r, p, e)->ratio.median;
		int j = n++;
		for (; j > 0 && fl_model_cell(m, r, p, order[j - 1])->ratio.median > q; j--)
			order[j] = order[j - 1];
		order[j] = e;
	}
	if (!n) {
		free(order);
		return;
	}
	x->fastest = order[0];
	x->group = order;
	x->ngroup = 1;
	for (int j = 1; j < n; j++)
		if (!apart(m, r, p, order[0], order[j]))
			order[x->ngroup++] = order[j];
	why(m, r, p, x);
}

static void points_of_run(struct fl_model *m, int r)
{
	for (int p = 0; p < m->npoint; p++)
		point_of(m, r, p, &m->pt[(size_t)r * m->npoint + p]);
}

const struct fl_mpoint *fl_model_pt(const struct fl_model *m, int r, int p)
{
	return &m->pt[(size_t)r * m->npoint + p];
}

static void fill_run(struct fl_model *m, int r)
{
	const struct fl_cells *c = &m->run[r].c;
	for (int i = 0; i < c->n; i++) {
		int p = fl_model_point(m, c->c[i].point), e = fl_model_entry(m, c->c[i].variant);
		m->cell[((size_t)r * m->npoint + p) * m->nentry + e] =
			cell_of(c, &c->c[i], m->baseline);
	}
}

static int by_order(const void *a, const void *b, void *baseline)
{
	return fl_entry_order(*(char *const *)a, *(char *const *)b, baseline);
}

/* The cells and the points of every run, once the runs' points and
 * entries are known (the entries put in the ratio table's row order). */
static void fill(struct fl_model *m)
{
	if (m->nentry > 1) /* none: no array at all */
		qsort_r(m->entry, (size_t)m->nentry, sizeof *m->entry, by_order, (void *)m->baseline);
	size_t np = (size_t)m->nrun * (size_t)m->npoint;
	m->cell = fl_xcalloc(np * (size_t)m->nentry + 1, sizeof *m->cell);
	m->pt = fl_xcalloc(np + 1, sizeof *m->pt);
	for (int r = 0; r < m->nrun; r++)
		fill_run(m, r);
	for (int r = 0; r < m->nrun; r++)
		points_of_run(m, r);
}

/* The model's arrays over m->run[0..m->nrun), whose cells are built. */
static void build(struct fl_model *m)
{
	for (int r = 0; r < m->nrun; r++)
		for (int i = 0; i < m->run[r].c.n; i++) {
			intern(&m->point, &m->npoint, m->run[r].c.c[i].point);
			intern(&m->entry, &m->nentry, m->run[r].c.c[i].variant);
		}
	fill(m);
}

int fl_model_build(struct fl_model *m, struct fl_loaded_run *runs, int n, const char *baseline,
		   char *err, int errlen)
{
	memset(m, 0, sizeof *m);
	for (int r = 0; r < n; r++)
		if (fl_loaded_cells(&runs[r], err, errlen))
			return -1;
	*m = (struct fl_model){ .baseline = baseline, .nrun = n, .run = runs };
	build(m);
	return 0;
}

void fl_model_of_run(struct fl_model *m, struct fl_loaded_run *run, const char *baseline)
{
	*m = (struct fl_model){ .baseline = baseline, .nrun = 1, .run = run };
	build(m);
}

void fl_model_free(struct fl_model *m)
{
	if (m->pt)
		for (size_t i = 0; i < (size_t)m->nrun * (size_t)m->npoint; i++)
			free(m->pt[i].group);
	free(m->pt);
	for (int p = 0; p < m->npoint; p++)
		free(m->point[p]);
	for (int e = 0; e < m->nentry; e++)
		free(m->entry[e]);
	free(m->point);
	free(m->entry);
	free(m->cell);
	memset(m, 0, sizeof *m);
}

const struct fl_mcell *fl_model_cell(const struct fl_model *m, int r, int p, int e)
{
	return &m->cell[((size_t)r * m->npoint + p) * m->nentry + e];
}

static int find(char *const *list, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return i;
	return -1;
}

int fl_model_point(const struct fl_model *m, const char *key)
{
	return find(m->point, m->npoint, key);
}

int fl_model_entry(const struct fl_model *m, const char *label)
{
	return find(m->entry, m->nentry, label);
}

bool fl_model_is_baseline(const struct fl_model *m, int e)
{
	return !strcmp(m->entry[e], m->baseline);
}

bool fl_model_is_control(const struct fl_model *m, int e)
{
	return fl_is_control(m->entry[e], m->baseline);
}

enum fl_entry_kind fl_model_kind(const struct fl_model *m, int e)
{
	if (fl_model_is_baseline(m, e))
		return FL_ENTRY_BASELINE;
	if (fl_model_is_control(m, e))
		return FL_ENTRY_CONTROL;
	if (!strncmp(m->entry[e], "floor-", 6))
		return FL_ENTRY_FLOOR;
	switch (fl_catalog_kind(m->entry[e])) {
	case FL_KIND_DESIGN: return FL_ENTRY_DESIGN;
	case FL_KIND_LIBRARY: return FL_ENTRY_LIBRARY;
	default: return FL_ENTRY_OTHER;
	}
}

const char *fl_entry_kind_name(enum fl_entry_kind k)
{
	static const char *const name[] = { "baseline", "control", "floor", "design", "library",
					    "other" };
	return name[k];
}
