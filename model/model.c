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

const char *const fl_machine_keys[] = { "cpu", "cores", "numa", "kernel", "hypervisor",
					"host", "libc", "libraries", NULL };

/* FNV-1a 64: stable across builds and machines, which the store's
 * identity of a machine needs; not a defence against anyone. */
static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

void fl_machine_of(const struct fl_table *t, struct fl_machine_id *m)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (int i = 0; fl_machine_keys[i]; i++) {
		const char *v = fl_table_meta(t, fl_machine_keys[i]);
		if (!strcmp(v, "?"))
			continue; /* an older file: the key is not part of its identity */
		h = fnv(fnv(fnv(h, fl_machine_keys[i]), "="), v);
		h = fnv(h, "\n");
	}
	snprintf(m->fingerprint, sizeof m->fingerprint, "%016llx", (unsigned long long)h);
	const char *host = fl_table_meta(t, "host");
	if (strcmp(host, "?")) {
		snprintf(m->name, sizeof m->name, "%s", host);
	} else {
		/* "AMD EPYC/2c/6.18.44-fc-v1272": the CPU, its cores, the kernel's release */
		const char *k = fl_table_meta(t, "kernel"), *sp = strchr(k, ' ');
		const char *rel = sp ? sp + 1 : k;
		snprintf(m->name, sizeof m->name, "%s/%sc/%.*s", fl_table_meta(t, "cpu"),
			 fl_table_meta(t, "cores"), (int)strcspn(rel, " "), rel);
	}
	fl_machine_label(m->name, m->fingerprint, m->label, sizeof m->label);
}

void fl_machine_label(const char *name, const char *fingerprint, char *out, size_t n)
{
	snprintf(out, n, "%.159s [%.8s]", name, fingerprint);
}

bool fl_machine_same(const struct fl_table *a, const struct fl_table *b, const char **key)
{
	for (int i = 0; fl_machine_keys[i]; i++) {
		const char *x = fl_table_meta(a, fl_machine_keys[i]),
			   *y = fl_table_meta(b, fl_machine_keys[i]);
		if (strcmp(x, "?") && strcmp(y, "?") && strcmp(x, y)) {
			*key = fl_machine_keys[i];
			return false;
		}
	}
	return true;
}

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

static void run_identity(struct fl_mrun *r, const struct fl_table *t, const char *path, long id)
{
	r->path = fl_xstrdup(path ? path : "-");
	r->store_id = id;
	r->revision = fl_table_meta(t, "revision");
	r->date = fl_table_meta(t, "date");
	r->seed = fl_table_meta(t, "seed");
	r->command = fl_table_meta(t, "command");
	const char *as = fl_table_meta(t, "as");
	r->as = strcmp(as, "?") ? as : NULL;
	fl_machine_of(t, &r->machine);
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
	if (!fl_cell_ratio(y, ref, &m.ratio))
		m.ratio = (struct fl_ratio){ .n = 0 };
	if (y != ref && (m.judged = fl_cell_judge(c, y, ref, baseline, &m.j))) {
		m.ratio = m.j.q; /* its resolution: the control's band included */
		m.verdict = m.regimes ? FL_UNDECIDED : m.j.v;
		if (m.j.cpu) {
			m.cpu_ratio = m.j.cq;
			m.more_cpu = m.j.cv == FL_SLOWER && m.j.cq.median >= FL_CPU_NOTE;
		}
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
	return fl_cell_find(&m->c[r], m->point[p], m->entry[e]);
}

/* Whether the table's rule tells a (the faster) from b: a / b is `faster`. */
static bool apart(const struct fl_model *m, int r, int p, int a, int b)
{
	return fl_cell_verdict(&m->c[r], cell_at(m, r, p, a), cell_at(m, r, p, b), NULL,
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
	const struct fl_cell *ctrl = fl_cell_find(&m->c[r], m->point[p],
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
	const struct fl_cells *c = &m->c[r];
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

int fl_model_build(struct fl_model *m, int n, struct fl_table *t, char *const *paths,
		   const long *store_ids, const char *baseline, char *err, int errlen)
{
	memset(m, 0, sizeof *m);
	m->baseline = baseline;
	m->nrun = n;
	m->t = t;
	m->c = fl_xcalloc((size_t)n, sizeof *m->c);
	m->run = fl_xcalloc((size_t)n, sizeof *m->run);
	for (int r = 0; r < n; r++) {
		run_identity(&m->run[r], &t[r], paths[r], store_ids ? store_ids[r] : 0);
		if (fl_cells_build(&t[r], &m->c[r], err, errlen)) {
			m->nrun = r + 1; /* free what was made */
			fl_model_free(m);
			return -1;
		}
		for (int i = 0; i < m->c[r].n; i++) {
			intern(&m->point, &m->npoint, m->c[r].c[i].point);
			intern(&m->entry, &m->nentry, m->c[r].c[i].variant);
		}
	}
	fill(m);
	return 0;
}

void fl_model_of_run(struct fl_model *m, const struct fl_table *t, const struct fl_cells *c,
		     const char *path, const char *baseline)
{
	memset(m, 0, sizeof *m);
	m->baseline = baseline;
	m->nrun = 1;
	m->borrowed = true;
	m->t = (struct fl_table *)t; /* read only: fl_model_free leaves it */
	m->c = (struct fl_cells *)c;
	m->run = fl_xcalloc(1, sizeof *m->run);
	run_identity(&m->run[0], t, path, 0);
	for (int i = 0; i < c->n; i++) {
		intern(&m->point, &m->npoint, c->c[i].point);
		intern(&m->entry, &m->nentry, c->c[i].variant);
	}
	fill(m);
}

void fl_model_free(struct fl_model *m)
{
	for (int r = 0; r < m->nrun; r++) {
		free(m->run[r].path);
		if (!m->borrowed) {
			fl_cells_free(&m->c[r]);
			fl_table_free(&m->t[r]);
		}
	}
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
	free(m->run);
	if (!m->borrowed) {
		free(m->c);
		free(m->t);
	}
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

/* Two runs are one when their identity lines agree; a file without a date
 * and a seed (crafted, or older than them) has no identity, and is the
 * same run as another only when it is the same file. */
static bool same_run(const struct fl_table *a, const struct fl_table *b, const char *pa,
		     const char *pb)
{
	static const char *const keys[] = { "revision", "date", "seed", "command" };
	if (!strcmp(fl_table_meta(a, "date"), "?") && !strcmp(fl_table_meta(a, "seed"), "?")) {
		char *x = realpath(pa, NULL), *y = realpath(pb, NULL);
		bool same = x && y && !strcmp(x, y);
		free(x);
		free(y);
		return same;
	}
	for (int k = 0; k < 4; k++)
		if (strcmp(fl_table_meta(a, keys[k]), fl_table_meta(b, keys[k])))
			return false;
	return true;
}

void fl_runs_check(const struct fl_table *t, char *const *paths, int n, bool across,
		   bool once, const char *what, FILE *f)
{
	struct fl_machine_id m0, mj;
	fl_machine_of(&t[0], &m0);
	int revs = 1;
	for (int j = 1; j < n; j++) {
		for (int i = 0; i < j; i++)
			if (once && same_run(&t[i], &t[j], paths[i], paths[j]))
				fl_bad_input("%s: %s and %s are the same run (revision, date, seed "
					       "and command): a run counts once", what, paths[i],
					       paths[j]);
		fl_machine_of(&t[j], &mj);
		const char *key;
		if (!across && !fl_machine_same(&t[0], &t[j], &key))
			fl_bad_input("%s: %s ran on %s, %s on %s (their %s differs): runs of "
				       "different machines are not reruns (--across-machines compares "
				       "their same-run ratios only)", what, paths[0], m0.label, paths[j],
				       mj.label, key);
		bool seen = false;
		for (int i = 0; i < j && !seen; i++)
			seen = !strcmp(fl_table_meta(&t[i], "revision"),
				       fl_table_meta(&t[j], "revision"));
		revs += !seen;
	}
	if (revs > 1 && f) {
		fprintf(f, "note: the runs come from %d revisions (", revs);
		for (int j = 0; j < n; j++)
			fprintf(f, "%s%s %s", j ? ", " : "", paths[j], fl_table_meta(&t[j], "revision"));
		fputs("): a change of the code is not a rerun\n", f);
	}
}
