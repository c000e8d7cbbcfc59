/* report/pool.c — compare --pool (pool.h): the pool built as data, then
 * its text and TSV views. */
#include "report/pool.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/catalog.h"
#include "model/rule.h"
#include "model/stats_text.h"
#include "fail/fail.h"
#include "fail/xalloc.h"

/* ---- building ------------------------------------------------------------ */

static int fail(struct fl_pool_result *r, char *err, int errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct fl_pool_result *r, char *err, int errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, (size_t)errlen, fmt, ap);
	va_end(ap);
	fl_pool_result_free(r);
	return -1;
}

/* Run j, the rerun at j == nruns. */
static struct fl_loaded_run *run_at(const struct fl_pool_result *r, int j)
{
	return j < r->nruns ? &r->runs[j] : r->against;
}

/* Run j's cells, with rows and the baseline in them (run.h's check); -1
 * with err otherwise. */
static int cells(struct fl_pool_result *r, int j, char *err, int errlen)
{
	return fl_loaded_check(run_at(r, j), r->baseline, err, errlen);
}

/* The first point of run a that run b lacks, or entry of a point b lacks:
 * one line in err, -1. */
static int first_missing(const struct fl_pool_result *r, int a, int b, const char *what,
			 char *err, int errlen)
{
	const struct fl_cells *ca = &run_at(r, a)->c, *cb = &run_at(r, b)->c;
	for (int i = 0; i < ca->n; i++) {
		const struct fl_cell *x = &ca->c[i];
		bool point = false;
		for (int k = 0; k < cb->n && !point; k++)
			point = !strcmp(cb->c[k].point, x->point);
		if (!point)
			return snprintf(err, (size_t)errlen, "%s has no point '%s' (%s has it): %s",
					run_at(r, b)->path, x->point, run_at(r, a)->path, what), -1;
		if (!fl_cell_find(cb, x->point, x->variant))
			return snprintf(err, (size_t)errlen, "%s has no '%s' at '%s' (%s has it): %s",
					run_at(r, b)->path, x->variant, x->point, run_at(r, a)->path, what), -1;
	}
	return 0;
}

/* The same configuration: the same points, the same entries at each, the
 * same value (ns per op, or one metric). */
static int same_config(const struct fl_pool_result *r, int b, const char *what, char *err,
		       int errlen)
{
	const struct fl_cells *x = &run_at(r, 0)->c, *y = &run_at(r, b)->c;
	if (first_missing(r, 0, b, what, err, errlen) || first_missing(r, b, 0, what, err, errlen))
		return -1;
	if (x->value != y->value || (x->metric && strcmp(x->metric, y->metric)))
		return snprintf(err, (size_t)errlen, "%s and %s time different figures (%s, %s): %s",
				run_at(r, 0)->path, run_at(r, b)->path, x->metric ? x->metric : "ns per op",
				y->metric ? y->metric : "ns per op", what), -1;
	return 0;
}

/* faster against slower, either way */
static bool contradict(enum fl_verdict a, enum fl_verdict b)
{
	return (a == FL_FASTER && b == FL_SLOWER) || (a == FL_SLOWER && b == FL_FASTER);
}

/* The rerun's ratio and verdict of one row, checked against the pool;
 * the checked pairs' prediction half-widths gathered in half. */
static void check_rerun(struct fl_pool_result *r, const struct fl_pool_pt *p,
			struct fl_pool_row *w, double *half)
{
	const struct fl_cells *nc = &run_at(r, r->nruns)->c;
	const struct fl_cell *nb = fl_cell_find(nc, p->point, r->baseline),
			     *x = fl_cell_find(nc, p->point, w->variant);
	struct fl_ratio q = { .n = 0 };
	w->against_v = fl_cell_verdict(nc, x, nb, &q, r->baseline);
	w->checked = fl_cell_usable(x) && fl_cell_usable(nb) && fl_cell_ratio(x, nb, &q) &&
		     isfinite(w->e.pred_half);
	if (!w->checked)
		return;
	w->against_ratio = q.median;
	w->inside = q.median >= w->e.pred_lo && q.median <= w->e.pred_hi;
	w->contradicts = contradict(w->verdict, w->against_v);
	half[r->pairs++] = w->e.pred_half;
	r->inside += w->inside;
	r->contra += w->contradicts;
}

/* One point being pooled: its rows' cells in run 1, their pooled figures,
 * the runs' ratios (q[j * nrow + e]), the reruns' prediction half-widths. */
struct point_build {
	struct fl_pool_result *r;
	struct fl_pool_pt *p;
	const struct fl_cell **ent;
	const struct fl_pool_entry *out;
	const struct fl_ratio *q;
	double *half;
};

/* Row e of the point: the pooled figure, the verdict, each run's own. */
static void row_build(const struct point_build *k, int e)
{
	struct fl_pool_result *r = k->r;
	struct fl_pool_pt *p = k->p;
	const struct fl_ratio *q = k->q;
	struct fl_pool_row *w = &p->row[e];
	w->variant = k->ent[e]->variant;
	w->e = k->out[e];
	w->verdict = fl_pool_verdict(&w->e, fl_is_control(w->variant, r->baseline) ? 0 : p->band);
	w->run_ratio = fl_xcalloc((size_t)r->nruns, sizeof *w->run_ratio);
	w->run_status = fl_xcalloc((size_t)r->nruns, sizeof(void *)); /* an array of pointers */
	for (int j = 0; j < r->nruns; j++) {
		const struct fl_ratio *x = &q[j * p->nrow + e];
		const struct fl_cell *c = fl_cell_find(&run_at(r, j)->c, p->point, w->variant);
		w->run_ratio[j] = x->n ? x->median : NAN;
		w->run_status[j] = c && !fl_cell_usable(c) ? c->status : "-";
	}
	if (r->against)
		check_rerun(r, p, w, k->half);
}

/* The rows of point i (run 1's order) but the baseline's; NULL when an
 * earlier cell has the point. */
static const struct fl_cell **entries(const struct fl_pool_result *r, int i, int *nent)
{
	int nrow;
	const struct fl_cell **row = fl_point_rows(&run_at(r, 0)->c, i, r->baseline, &nrow);
	if (!row)
		return NULL;
	*nent = 0;
	for (int e = 0; e < nrow; e++)
		if (strcmp(row[e]->variant, r->baseline))
			row[(*nent)++] = row[e];
	return row;
}

/* Point i pooled, its rows built and judged against the libraries. */
static void point_build(struct fl_pool_result *r, int i, double *half)
{
	int nent;
	const struct fl_cell **ent = entries(r, i, &nent);
	if (!ent)
		return;
	struct fl_pool_pt *p = &r->pt[r->npt++];
	const struct fl_cells **cs = fl_xcalloc((size_t)r->nruns, sizeof(void *));
	for (int j = 0; j < r->nruns; j++)
		cs[j] = &run_at(r, j)->c;
	p->point = r->runs[0].c.c[i].point;
	p->nrow = nent;
	struct fl_ratio *q = fl_xcalloc((size_t)(r->nruns * nent) + 1, sizeof *q);
	fl_pool_ratios(&(struct fl_pool_grid){ r->nruns, cs, p->point, ent, nent }, r->baseline,
		       false, q);
	struct fl_pool_entry *out = fl_xcalloc((size_t)nent + 1, sizeof *out);
	fl_pool_point(r->nruns, nent, q, out, &p->pp);
	for (int e = 0; e < nent; e++)
		if (fl_is_control(ent[e]->variant, r->baseline) && isfinite(out[e].conf_half))
			p->band = out[e].conf_half;
	p->row = fl_xcalloc((size_t)nent + 1, sizeof *p->row);
	struct point_build k = { r, p, ent, out, q, half };
	for (int e = 0; e < nent; e++)
		row_build(&k, e);
	struct fl_pool_libs_in in = {
		.nrun = r->nruns, .cells = cs, .point = p->point, .baseline = r->baseline,
		.ent = ent, .out = out, .nent = nent, .band = p->band,
	};
	r->nlibs += fl_pool_libs_judge(&in, &r->libs[r->nlibs]);
	free(out);
	free(q);
	free((void *)cs);
	free((void *)ent);
}

/* Every run's cells, the same configuration as run 1's. */
static int runs_cells(struct fl_pool_result *r, char *err, int errlen)
{
	for (int j = 0; j < r->nruns; j++)
		if (cells(r, j, err, errlen) ||
		    (j > 0 && same_config(r, j, "pool only runs of one configuration", err, errlen)))
			return -1;
	if (r->against && (cells(r, r->nruns, err, errlen) ||
			   same_config(r, r->nruns, "--against takes a run of the pooled "
				       "configuration", err, errlen)))
		return -1;
	return 0;
}

int fl_pool_build(struct fl_pool_result *r, struct fl_loaded_run *runs, int nruns,
		  const struct fl_pool_opts *o, char *err, int errlen)
{
	*r = (struct fl_pool_result){ .nruns = nruns, .baseline = o->baseline, .runs = runs,
				      .against = o->against, .median_half = NAN };
	if (nruns < 2)
		return fail(r, err, errlen, "give two or more CSV files of one configuration "
			    "(got %d)", nruns);
	if (runs_cells(r, err, errlen)) {
		fl_pool_result_free(r);
		return -1;
	}
	int n = r->runs[0].c.n;
	r->pt = fl_xcalloc((size_t)n + 1, sizeof *r->pt);
	r->libs = fl_xcalloc((size_t)n + 1, sizeof *r->libs);
	double *half = fl_xcalloc((size_t)n + 1, sizeof *half);
	for (int i = 0; i < n; i++)
		point_build(r, i, half);
	if (r->pairs)
		r->median_half = fl_median(half, r->pairs);
	free(half);
	return 0;
}

void fl_pool_result_free(struct fl_pool_result *r)
{
	for (int i = 0; i < r->npt; i++) {
		for (int e = 0; e < r->pt[i].nrow; e++) {
			free(r->pt[i].row[e].run_ratio);
			free((void *)r->pt[i].row[e].run_status);
		}
		free(r->pt[i].row);
	}
	free(r->pt);
	free(r->libs);
	memset(r, 0, sizeof *r);
}

/* ---- the views ----------------------------------------------------------- */

static const char *range(char *b, size_t n, double lo, double hi)
{
	if (isnan(lo))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "[%.3f, %.3f]", lo, hi);
	return b;
}

/* Each run's median ratio of the row: "0.812 0.790" (tsv: comma-separated),
 * a run without one giving its status (skipped, error). */
static void runs_own(const struct fl_pool_result *r, const struct fl_pool_row *w, bool tsv,
		     char *own, size_t n)
{
	size_t ol = 0;
	own[0] = '\0';
	for (int j = 0; j < r->nruns && ol < n - 16; j++) {
		const char *sep = j ? (tsv ? "," : " ") : "";
		if (!isnan(w->run_ratio[j]))
			ol += (size_t)snprintf(own + ol, n - ol, "%s%.3f", sep, w->run_ratio[j]);
		else
			ol += (size_t)snprintf(own + ol, n - ol, "%s%s", sep, w->run_status[j]);
	}
}

static void header_runs(FILE *f, const struct fl_pool_result *r)
{
	fprintf(f, "futexlab compare --pool:");
	for (int j = 0; j < r->nruns; j++)
		fprintf(f, " %s", r->runs[j].path);
	if (r->against)
		fprintf(f, " --against %s", r->against->path);
	fputc('\n', f);
	for (int j = 0; j < r->nruns; j++) {
		const struct fl_loaded_run *x = &r->runs[j];
		fprintf(f, "run %d: %s, futexlab %s, %s, seed %s\n", j + 1, x->path, x->revision,
			x->date, x->seed);
		fl_table_as_marks(f, &x->t, "       "); /* a --as run is a test run */
	}
	int nall = r->nruns + (r->against != NULL);
	const struct fl_table *t0 = &run_at(r, 0)->t;
	for (int j = 1; j < nall; j++)
		if (strcmp(fl_table_meta(&run_at(r, j)->t, "revision"), fl_table_meta(t0, "revision")) ||
		    strcmp(fl_table_meta(&run_at(r, j)->t, "cpu"), fl_table_meta(t0, "cpu")) ||
		    strcmp(fl_table_meta(&run_at(r, j)->t, "kernel"), fl_table_meta(t0, "kernel"))) {
			fprintf(f, "warning: %s and %s differ in revision, cpu or kernel: not identical "
				   "runs (a change of the code or the machine is not a rerun)\n",
				run_at(r, 0)->path, run_at(r, j)->path);
			break;
		}
}

static void header(FILE *f, const struct fl_pool_result *r)
{
	header_runs(f, r);
	fprintf(f, "ratio: each run's median per-round ratio to %s (its ratio table's), pooled "
		   "over the runs on the\nlog scale (the geometric mean); the run is the top level "
		   "(stats/stats.h, \"Runs as the top level\")\n", r->baseline);
	fprintf(f, "long-run ratio, over runs (%.0f%%): where the ratio of infinitely many such "
		   "runs lies\nnext run's ratio (%.0f%%): where the median ratio of the next "
		   "identical run will land (check a rerun against it)\n",
		100 * FL_POOL_CONF, 100 * FL_POOL_PRED);
	fprintf(f, "(a single run's interval covers only that run's rounds: it is narrower and "
		   "misses a rerun far more often)\nverdict faster/slower when the long-run "
		   "interval excludes 1 and the ratio is beyond the control's band\n(%s#2's "
		   "long-run half-width at the point), else ~; ? with fewer than 2 runs of the entry\n",
		r->baseline);
	if (r->against)
		fprintf(f, "against %s: its median ratio inside the next run's interval (in) or "
			   "not (OUT), its own verdict;\n! where the two verdicts contradict (faster "
			   "against slower)\n", r->against->path);
}

static void tsv_header(FILE *f, const struct fl_pool_result *r)
{
	fprintf(f, "point\tvariant\truns\tratio\tconf_lo\tconf_hi\tpred_lo\tpred_hi\tverdict"
		   "\tdf\tbetween_sd\trun_ratios");
	if (r->against)
		fprintf(f, "\tagainst_ratio\tinside\tagainst_verdict\tcontradicts");
	fputc('\n', f);
}

static void tsv_row(FILE *f, const struct fl_pool_result *r, const struct fl_pool_pt *p,
		    const struct fl_pool_row *w)
{
	const struct fl_pool_entry *o = &w->e;
	char own[256];
	runs_own(r, w, true, own, sizeof own);
	fprintf(f, "%s\t%s\t%d\t", p->point, w->variant, o->runs);
	if (o->runs > 0)
		fprintf(f, "%.4f", o->ratio);
	if (isfinite(o->pred_half))
		fprintf(f, "\t%.4f\t%.4f\t%.4f\t%.4f\t%s\t%.2f\t%.4f\t%s", o->conf_lo, o->conf_hi,
			o->pred_lo, o->pred_hi, fl_verdict_name(w->verdict), o->df, sqrt(o->tau2),
			own);
	else
		fprintf(f, "\t\t\t\t\t%s\t\t\t%s", fl_verdict_name(w->verdict), own);
	if (r->against && w->checked)
		fprintf(f, "\t%.4f\t%s\t%s\t%s", w->against_ratio, w->inside ? "in" : "out",
			fl_verdict_name(w->against_v), w->contradicts ? "yes" : "no");
	else if (r->against)
		fprintf(f, "\t\t\t%s\t", fl_verdict_name(w->against_v));
	fputc('\n', f);
}

static void text_row(FILE *f, const struct fl_pool_result *r, const struct fl_pool_row *w)
{
	const struct fl_pool_entry *o = &w->e;
	char rt[16] = "      -", cb[64], pb[64], cl[96], pl[96], own[256];
	runs_own(r, w, false, own, sizeof own);
	if (o->runs > 0)
		snprintf(rt, sizeof rt, "%7.3f", o->ratio);
	snprintf(cl, sizeof cl, "%s %.0f%%", range(cb, sizeof cb, o->conf_lo, o->conf_hi),
		 100 * FL_POOL_CONF);
	snprintf(pl, sizeof pl, "%s %.0f%%", range(pb, sizeof pb, o->pred_lo, o->pred_hi),
		 100 * FL_POOL_PRED);
	if (!isfinite(o->pred_half)) {
		snprintf(cl, sizeof cl, "- (%d run%s)", o->runs, o->runs == 1 ? "" : "s");
		snprintf(pl, sizeof pl, "-");
	}
	fprintf(f, "  %-20s %s  %-27s %-27s  %-*s  %-6s", w->variant, rt, cl, pl, 6 * r->nruns,
		own, fl_verdict_name(w->verdict));
	if (r->against && w->checked)
		fprintf(f, "  %7.3f %-3s %s%s", w->against_ratio, w->inside ? "in" : "OUT",
			fl_verdict_name(w->against_v), w->contradicts ? " !" : "");
	else if (r->against)
		fprintf(f, "  %7s     %s", "-", fl_verdict_name(w->against_v));
	fputc('\n', f);
}

static void point_header(FILE *f, const struct fl_pool_result *r, const struct fl_pool_pt *p)
{
	const struct fl_pool_point *pp = &p->pp;
	fprintf(f, "\n%s  (%d runs", p->point, r->nruns);
	if (isfinite(pp->tau2))
		fprintf(f, "; between runs: the point's excess sd %.3f in ln ratio, "
			   "%.0f%% of it common to its entries, df %.1f", sqrt(pp->tau2),
			pp->common + pp->spread > 0 ? 100 * pp->common / (pp->common + pp->spread) : 0,
			pp->df);
	fprintf(f, ")\n  %-20s %7s  %-27s %-27s  %-*s  %s\n", "variant", "ratio",
		"long-run ratio, over runs", "next run's ratio", 6 * r->nruns, "runs' own",
		r->against ? "verdict      against" : "verdict");
}

static void summary(FILE *f, const struct fl_pool_result *r)
{
	fprintf(f, "\nprediction: %s's ratio inside for %d of %d (point, entry) pairs "
		   "(%.1f%%); median half-width ×/÷%.2f; verdicts contradicting: %d\n",
		r->against->path, r->inside, r->pairs, r->pairs ? 100.0 * r->inside / r->pairs : 0,
		exp(r->median_half), r->contra);
}

void fl_pool_print(FILE *f, const struct fl_pool_result *r, bool tsv)
{
	(tsv ? tsv_header : header)(f, r);
	for (int i = 0; i < r->npt; i++) {
		const struct fl_pool_pt *p = &r->pt[i];
		if (!tsv)
			point_header(f, r, p);
		for (int e = 0; e < p->nrow; e++)
			if (tsv)
				tsv_row(f, r, p, &p->row[e]);
			else
				text_row(f, r, &p->row[e]);
	}
	fl_pool_libs_print(f, r->libs, r->nlibs, r->nruns, r->baseline, tsv);
	if (r->against && !tsv)
		summary(f, r);
}

int fl_pool_compare(FILE *f, struct fl_loaded_run *runs, int nruns, const struct fl_pool_opts *o)
{
	struct fl_pool_result r;
	char err[400];
	if (fl_pool_build(&r, runs, nruns, o, err, sizeof err))
		fl_bad_input("compare --pool: %s", err);
	fl_pool_print(f, &r, o->tsv);
	fl_pool_result_free(&r);
	return 0;
}
