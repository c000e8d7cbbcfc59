/* report/pool_libs.c — compare --pool's libraries judgement (pool_libs.h). */
#include "report/pool_libs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/catalog.h"
#include "model/rule.h"
#include "fail/xalloc.h"

/* Whether the variant has a usable cell at the point in every run. */
static bool in_every_run(const struct fl_pool_libs_in *in, const char *variant)
{
	for (int j = 0; j < in->nrun; j++)
		if (!fl_cell_usable(fl_cell_find(in->cells[j], in->point, variant)))
			return false;
	return true;
}

/* The library with the lowest pooled ratio to the baseline (the baseline's
 * own: 1), of those with a ratio in every run; NULL: none. */
static const char *fastest_library(const struct fl_pool_libs_in *in)
{
	const char *lib = NULL;
	double low = INFINITY;
	if (fl_catalog_kind(in->baseline) == FL_KIND_LIBRARY && in_every_run(in, in->baseline)) {
		lib = in->baseline;
		low = 1;
	}
	for (int e = 0; e < in->nent; e++)
		if (fl_catalog_kind(in->ent[e]->variant) == FL_KIND_LIBRARY &&
		    in->out[e].runs == in->nrun && in->out[e].ratio < low) {
			lib = in->ent[e]->variant;
			low = in->out[e].ratio;
		}
	return lib;
}

/* The geometric mean over the runs of the library's median figure. */
static double pooled_figure(const struct fl_pool_libs_in *in, const char *lib)
{
	double s = 0;
	for (int j = 0; j < in->nrun; j++)
		s += log(fl_cell_find(in->cells[j], in->point, lib)->shown);
	return exp(s / in->nrun);
}

/* The rows against the library, pooled: time (t) and CPU (c). */
struct against {
	const struct fl_cell **row;   /* every row of the point but the library's */
	int n;
	struct fl_pool_entry *t, *c;
};

static void pool_against(const struct fl_pool_libs_in *in, const char *lib, struct against *a)
{
	const struct fl_cell *base = fl_cell_find(in->cells[0], in->point, in->baseline);
	a->row = fl_xcalloc((size_t)in->nent + 1, sizeof(void *)); /* an array of pointers */
	a->n = 0;
	if (base && strcmp(lib, in->baseline))
		a->row[a->n++] = base;
	for (int e = 0; e < in->nent; e++)
		if (strcmp(in->ent[e]->variant, lib))
			a->row[a->n++] = in->ent[e];
	struct fl_ratio *r = fl_xcalloc((size_t)(in->nrun * a->n) + 1, sizeof *r);
	a->t = fl_xcalloc((size_t)a->n + 1, sizeof *a->t);
	a->c = fl_xcalloc((size_t)a->n + 1, sizeof *a->c);
	struct fl_pool_grid g = { in->nrun, in->cells, in->point, a->row, a->n };
	fl_pool_ratios(&g, lib, false, r);
	fl_pool_point(in->nrun, a->n, r, a->t, NULL);
	fl_pool_ratios(&g, lib, true, r);
	fl_pool_point(in->nrun, a->n, r, a->c, NULL);
	free(r);
}

/* Whether row e's CPU ratio, pooled from every run, is at most the bound. */
static bool cheap(const struct fl_pool_libs_in *in, const struct against *a, int e)
{
	return a->c[e].runs == in->nrun && a->c[e].ratio <= FL_POOL_LIBS_CPU;
}

/* The design with the lowest time ratio among the CPU-cheap ones, else
 * among all; -1: no design with a time ratio in every run. */
static int best_entry(const struct fl_pool_libs_in *in, const struct against *a)
{
	int best = -1;
	for (int e = 0; e < a->n; e++) {
		if (fl_catalog_kind(a->row[e]->variant) != FL_KIND_DESIGN ||
		    a->t[e].runs != in->nrun)
			continue;
		if (best < 0 || cheap(in, a, e) > cheap(in, a, best) ||
		    (cheap(in, a, e) == cheap(in, a, best) && a->t[e].ratio < a->t[best].ratio))
			best = e;
	}
	return best;
}

bool fl_pool_libs_judge(const struct fl_pool_libs_in *in, struct fl_pool_libs_point *lp)
{
	const char *lib = fastest_library(in);
	if (!lib)
		return false;
	struct against a;
	pool_against(in, lib, &a);
	int e = best_entry(in, &a);
	if (e >= 0) {
		*lp = (struct fl_pool_libs_point){
			.point = in->point, .lib = lib, .entry = a.row[e]->variant,
			.value = fl_cell_find(in->cells[0], in->point, lib)->value,
			.lib_value = pooled_figure(in, lib),
			.time = a.t[e], .cpu = a.c[e].runs == in->nrun ? a.c[e].ratio : NAN,
			.cheap = cheap(in, &a, e), .v = FL_LIBS_BEHIND,
		};
		if (lp->time.ratio <= FL_POOL_LIBS_TIME && lp->cheap)
			lp->v = fl_pool_verdict(&lp->time, in->band) == FL_FASTER ? FL_LIBS_FASTER
										  : FL_LIBS_AHEAD;
	}
	free((void *)a.row);
	free(a.t);
	free(a.c);
	return e >= 0;
}

const char *fl_pool_libs_verdict_name(enum fl_pool_libs_verdict v)
{
	return v == FL_LIBS_FASTER ? "faster" : v == FL_LIBS_AHEAD ? "ahead" : "behind";
}

static void explain(FILE *f, const struct fl_pool_libs_point *p, int n, const char *baseline)
{
	int w = 5;
	for (int i = 0; i < n; i++)
		if ((int)strlen(p[i].point) > w)
			w = (int)strlen(p[i].point);
	fprintf(f, "\nvs the libraries, pooled: at each point the fastest shipped library (the "
		   "lowest pooled ratio to %s;\nits figure the geometric mean of the runs' medians) "
		   "and the futexlab entry with the lowest pooled\ntime ratio to it among those at "
		   "<= %.2fx its CPU per op (none: the lowest of all, over on CPU),\neach run's "
		   "median paired ratio to the library pooled as above; ahead: time <= %.2fx and "
		   "CPU\n<= %.2fx; faster: ahead, the long-run interval below 1 and beyond the "
		   "control's band; else behind\n", baseline, FL_POOL_LIBS_CPU, FL_POOL_LIBS_TIME,
		FL_POOL_LIBS_CPU);
	fprintf(f, "  %-*s  %-9s %9s  %-18s %6s  %-15s %-10s %s\n", w, "point", "library",
		p[0].value == FL_VALUE_NS ? "ns/op" : "metric", "entry", "time",
		"long-run, 95%", "CPU", "verdict");
	for (int i = 0; i < n; i++) {
		char v[24], lo[40], cpu[24] = "-";
		snprintf(v, sizeof v, p[i].value == FL_VALUE_NS ? "%.1f" : "%.6g", p[i].lib_value);
		snprintf(lo, sizeof lo, "[%.3f, %.3f]", p[i].time.conf_lo, p[i].time.conf_hi);
		if (!isnan(p[i].cpu))
			snprintf(cpu, sizeof cpu, "%.3f%s", p[i].cpu, p[i].cheap ? "" : " over");
		fprintf(f, "  %-*s  %-9s %9s  %-18s %6.3f  %-15s %-10s %s\n", w, p[i].point,
			p[i].lib, v, p[i].entry, p[i].time.ratio, lo, cpu, fl_pool_libs_verdict_name(p[i].v));
	}
}

static void tsv_lines(FILE *f, const struct fl_pool_libs_point *p, int n)
{
	for (int i = 0; i < n; i++) {
		fprintf(f, "vs-libraries\t%s\t%s\t%.6g\t%s\t%.4f\t%.4f\t%.4f\t", p[i].point, p[i].lib,
			p[i].lib_value, p[i].entry, p[i].time.ratio, p[i].time.conf_lo,
			p[i].time.conf_hi);
		if (!isnan(p[i].cpu))
			fprintf(f, "%.4f", p[i].cpu);
		fprintf(f, "\t%s\n", fl_pool_libs_verdict_name(p[i].v));
	}
}

void fl_pool_libs_count(const struct fl_pool_libs_point *p, int n, int *ahead, int *faster)
{
	*ahead = *faster = 0;
	for (int i = 0; i < n; i++) {
		*ahead += p[i].v != FL_LIBS_BEHIND;
		*faster += p[i].v == FL_LIBS_FASTER;
	}
}

void fl_pool_libs_print(FILE *f, const struct fl_pool_libs_point *p, int n, int nrun,
			const char *baseline, bool tsv)
{
	if (n == 0)
		return;
	int ahead, faster;
	fl_pool_libs_count(p, n, &ahead, &faster);
	if (tsv) {
		tsv_lines(f, p, n);
		fprintf(f, "vs-libraries-total\t%d\t%d\t%d\t%d\n", nrun, n, ahead, faster);
		return;
	}
	explain(f, p, n, baseline);
	fl_libs_line(f, nrun, ahead, n, faster);
}
