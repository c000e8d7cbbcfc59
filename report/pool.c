/* report/pool.c — compare --pool (pool.h). */
#include "report/pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/pool_libs.h"
#include "report/usage.h"
#include "report/ratios.h"
#include "report/stats_text.h"
#include "report/table.h"
#include "report/xalloc.h"
#include "report/catalog.h"

struct run {
	const char *path;
	struct fl_table t;
	struct fl_cells c;
};

static void load(struct run *r, const char *path, const char *baseline)
{
	char err[300];
	r->path = path;
	if (fl_table_load(&r->t, path, err, sizeof err) ||
	    fl_cells_build(&r->t, &r->c, err, sizeof err))
		fl_usage_error("compare --pool: %s", err);
	if (!fl_cell_find_variant(&r->c, baseline))
		fl_usage_error("compare --pool: baseline '%s' is not in %s (see --baseline)",
			       baseline, path);
}

/* The first point of a that b lacks, or entry of a point b lacks: one line. */
static bool first_missing(const struct run *a, const struct run *b, const char *what)
{
	for (int i = 0; i < a->c.n; i++) {
		const struct fl_cell *x = &a->c.c[i];
		bool point = false;
		for (int k = 0; k < b->c.n && !point; k++)
			point = !strcmp(b->c.c[k].point, x->point);
		if (!point)
			fl_usage_error("compare --pool: %s has no point '%s' (%s has it): %s",
				       b->path, x->point, a->path, what);
		if (!fl_cell_find(&b->c, x->point, x->variant))
			fl_usage_error("compare --pool: %s has no '%s' at '%s' (%s has it): %s",
				       b->path, x->variant, x->point, a->path, what);
	}
	return false;
}

/* The same configuration: the same points, the same entries at each, the
 * same value (ns per op, or one metric). */
static void same_config(const struct run *a, const struct run *b, const char *what)
{
	first_missing(a, b, what);
	first_missing(b, a, what);
	if (a->c.value != b->c.value || (a->c.metric && strcmp(a->c.metric, b->c.metric)))
		fl_usage_error("compare --pool: %s and %s time different figures (%s, %s): %s",
			       a->path, b->path, a->c.metric ? a->c.metric : "ns per op",
			       b->c.metric ? b->c.metric : "ns per op", what);
}

static const char *range(char *b, size_t n, double lo, double hi)
{
	if (isnan(lo))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "[%.3f, %.3f]", lo, hi);
	return b;
}

/* what an entry without a ratio in run r has instead */
static const char *run_status(const struct run *r, const char *point, const char *variant)
{
	const struct fl_cell *x = fl_cell_find(&r->c, point, variant);
	return x && !fl_cell_usable(x) ? x->status : "-";
}

/* faster against slower, either way */
static bool contradict(enum fl_verdict a, enum fl_verdict b)
{
	return (a == FL_FASTER && b == FL_SLOWER) || (a == FL_SLOWER && b == FL_FASTER);
}

static void header(FILE *f, struct run *runs, int nruns, const struct run *next,
		   const char *baseline)
{
	fprintf(f, "futexlab compare --pool:");
	for (int j = 0; j < nruns; j++)
		fprintf(f, " %s", runs[j].path);
	if (next)
		fprintf(f, " --against %s", next->path);
	fputc('\n', f);
	for (int j = 0; j < nruns; j++) {
		fprintf(f, "run %d: %s, futexlab %s, %s, seed %s\n", j + 1, runs[j].path,
			fl_table_meta(&runs[j].t, "revision"), fl_table_meta(&runs[j].t, "date"),
			fl_table_meta(&runs[j].t, "seed"));
		fl_table_as_marks(f, &runs[j].t, "       "); /* a --as run is a test run */
	}
	int nall = nruns + (next != NULL);
	for (int j = 1; j < nall; j++)
		if (strcmp(fl_table_meta(&runs[j].t, "revision"), fl_table_meta(&runs[0].t, "revision")) ||
		    strcmp(fl_table_meta(&runs[j].t, "cpu"), fl_table_meta(&runs[0].t, "cpu")) ||
		    strcmp(fl_table_meta(&runs[j].t, "kernel"), fl_table_meta(&runs[0].t, "kernel"))) {
			fprintf(f, "warning: %s and %s differ in revision, cpu or kernel: not identical "
				   "runs (a change of the code or the machine is not a rerun)\n",
				runs[0].path, runs[j].path);
			break;
		}
	fprintf(f, "ratio: each run's median per-round ratio to %s (its ratio table's), pooled "
		   "over the runs on the\nlog scale (the geometric mean); the run is the top level "
		   "(stats/stats.h, \"Runs as the top level\")\n", baseline);
	fprintf(f, "long-run ratio, over runs (%.0f%%): where the ratio of infinitely many such "
		   "runs lies\nnext run's ratio (%.0f%%): where the median ratio of the next "
		   "identical run will land (check a rerun against it)\n",
		100 * FL_POOL_CONF, 100 * FL_POOL_PRED);
	fprintf(f, "(a single run's interval covers only that run's rounds: it is narrower and "
		   "misses a rerun far more often)\nverdict faster/slower when the long-run "
		   "interval excludes 1 and the ratio is beyond the control's band\n(%s#2's "
		   "long-run half-width at the point), else ~; ? with fewer than 2 runs of the entry\n",
		baseline);
	if (next)
		fprintf(f, "against %s: its median ratio inside the next run's interval (in) or "
			   "not (OUT), its own verdict;\n! where the two verdicts contradict (faster "
			   "against slower)\n", next->path);
}

/* One compare --pool: its runs, the rerun checked against them, and the
 * tally of that check. */
struct pool_run {
	FILE *f;
	struct run *runs, *next; /* next: --against's run, or NULL */
	const struct fl_cells **cells; /* the pooled runs' cells */
	int nfiles;
	const char *baseline;
	bool tsv;
	int pairs, inside, contra, nhalf;
	double *half;            /* the checked pairs' prediction half-widths */
	struct fl_pool_libs_point *libs; /* the points judged against the libraries */
	int nlibs;
};

/* One point's pool: its entries (every row but the baseline's), their
 * ratios in each run, what the pool says of each, and the control's band. */
struct pool_point {
	const char *point;
	const struct fl_cell **ent;
	int nent;
	struct fl_ratio *r;      /* r[j * nent + e]: entry e in run j (n == 0: none) */
	struct fl_pool_entry *out;
	struct fl_pool_point pp;
	double band;
};

/* Each run's median ratio of entry e: "0.812 0.790" (tsv: comma-separated),
 * a run without one giving its status (skipped, error). */
static void runs_own(const struct pool_run *P, const struct pool_point *Q, int e, char *own,
		     size_t n)
{
	size_t ol = 0;
	own[0] = '\0';
	for (int j = 0; j < P->nfiles && ol < n - 16; j++) {
		const char *sep = j ? (P->tsv ? "," : " ") : "";
		const struct fl_ratio *q = &Q->r[j * Q->nent + e];
		if (q->n)
			ol += (size_t)snprintf(own + ol, n - ol, "%s%.3f", sep, q->median);
		else
			ol += (size_t)snprintf(own + ol, n - ol, "%s%s", sep,
					      run_status(&P->runs[j], Q->point, Q->ent[e]->variant));
	}
}

/* The rerun's ratio and verdict of one entry, checked against the pool. */
struct checked {
	struct fl_ratio q;
	enum fl_verdict v;
	bool have, in, contra;
};

static struct checked check_rerun(struct pool_run *P, const struct pool_point *Q, int e,
				  enum fl_verdict pv)
{
	struct checked k = { .q = { .n = 0 }, .v = FL_UNDECIDED };
	if (!P->next)
		return k;
	const struct fl_pool_entry *o = &Q->out[e];
	const struct fl_cell *nb = fl_cell_find(&P->next->c, Q->point, P->baseline),
			     *x = fl_cell_find(&P->next->c, Q->point, Q->ent[e]->variant);
	k.v = fl_cell_verdict(&P->next->c, x, nb, &k.q, P->baseline);
	k.have = fl_cell_usable(x) && fl_cell_usable(nb) && fl_cell_ratio(x, nb, &k.q) &&
		 isfinite(o->pred_half);
	if (k.have) {
		k.in = k.q.median >= o->pred_lo && k.q.median <= o->pred_hi;
		k.contra = contradict(pv, k.v);
		P->pairs++;
		P->inside += k.in;
		P->contra += k.contra;
		P->half[P->nhalf++] = o->pred_half;
	}
	return k;
}

static void tsv_entry(const struct pool_run *P, const struct pool_point *Q, int e,
		      enum fl_verdict pv, const char *own, const struct checked *k)
{
	const struct fl_pool_entry *o = &Q->out[e];
	FILE *f = P->f;
	fprintf(f, "%s\t%s\t%d\t", Q->point, Q->ent[e]->variant, o->runs);
	if (o->runs > 0)
		fprintf(f, "%.4f", o->ratio);
	if (isfinite(o->pred_half))
		fprintf(f, "\t%.4f\t%.4f\t%.4f\t%.4f\t%s\t%.2f\t%.4f\t%s", o->conf_lo, o->conf_hi,
			o->pred_lo, o->pred_hi, fl_verdict_name(pv), o->df, sqrt(o->tau2), own);
	else
		fprintf(f, "\t\t\t\t\t%s\t\t\t%s", fl_verdict_name(pv), own);
	if (P->next && k->have)
		fprintf(f, "\t%.4f\t%s\t%s\t%s", k->q.median, k->in ? "in" : "out",
			fl_verdict_name(k->v), k->contra ? "yes" : "no");
	else if (P->next)
		fprintf(f, "\t\t\t%s\t", fl_verdict_name(k->v));
	fputc('\n', f);
}

static void text_entry(const struct pool_run *P, const struct pool_point *Q, int e,
		       enum fl_verdict pv, const char *own, const struct checked *k)
{
	const struct fl_pool_entry *o = &Q->out[e];
	char rt[16] = "      -", cb[64], pb[64], cl[96], pl[96];
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
	fprintf(P->f, "  %-20s %s  %-27s %-27s  %-*s  %-6s", Q->ent[e]->variant, rt, cl, pl,
		6 * P->nfiles, own, fl_verdict_name(pv));
	if (P->next && k->have)
		fprintf(P->f, "  %7.3f %-3s %s%s", k->q.median, k->in ? "in" : "OUT",
			fl_verdict_name(k->v), k->contra ? " !" : "");
	else if (P->next)
		fprintf(P->f, "  %7s     %s", "-", fl_verdict_name(k->v));
	fputc('\n', P->f);
}

/* Gathers point i's entries and their ratios in every run, and pools them. */
static bool point_pool(const struct pool_run *P, int i, struct pool_point *Q)
{
	const struct fl_cells *c0 = &P->runs[0].c;
	int nrow;
	const struct fl_cell **row = fl_point_rows(c0, i, P->baseline, &nrow);
	if (!row)
		return false;
	Q->point = c0->c[i].point;
	Q->nent = 0;
	Q->ent = fl_xcalloc((size_t)nrow, sizeof(void *)); /* an array of pointers */
	for (int e = 0; e < nrow; e++)
		if (strcmp(row[e]->variant, P->baseline))
			Q->ent[Q->nent++] = row[e];
	free(row);
	Q->r = fl_xcalloc((size_t)(P->nfiles * Q->nent) + 1, sizeof *Q->r);
	fl_pool_ratios(P->nfiles, P->cells, Q->point, P->baseline, Q->ent, Q->nent, false, Q->r);
	Q->out = fl_xcalloc((size_t)Q->nent + 1, sizeof *Q->out);
	fl_pool_point(P->nfiles, Q->nent, Q->r, Q->out, &Q->pp);
	Q->band = 0;
	for (int e = 0; e < Q->nent; e++)
		if (fl_is_control(Q->ent[e]->variant, P->baseline) && isfinite(Q->out[e].conf_half))
			Q->band = Q->out[e].conf_half;
	return true;
}

static void point_header(const struct pool_run *P, const struct pool_point *Q)
{
	const struct fl_pool_point *pp = &Q->pp;
	fprintf(P->f, "\n%s  (%d runs", Q->point, P->nfiles);
	if (isfinite(pp->tau2))
		fprintf(P->f, "; between runs: the point's excess sd %.3f in ln ratio, "
			   "%.0f%% of it common to its entries, df %.1f", sqrt(pp->tau2),
			pp->common + pp->spread > 0 ? 100 * pp->common / (pp->common + pp->spread) : 0,
			pp->df);
	fprintf(P->f, ")\n  %-20s %7s  %-27s %-27s  %-*s  %s\n", "variant", "ratio",
		"long-run ratio, over runs", "next run's ratio", 6 * P->nfiles, "runs' own",
		P->next ? "verdict      against" : "verdict");
}

static void print_point(struct pool_run *P, const struct pool_point *Q)
{
	if (!P->tsv)
		point_header(P, Q);
	for (int e = 0; e < Q->nent; e++) {
		enum fl_verdict pv = fl_pool_verdict(&Q->out[e],
						     fl_is_control(Q->ent[e]->variant, P->baseline) ? 0
												 : Q->band);
		char own[256];
		runs_own(P, Q, e, own, sizeof own);
		struct checked k = check_rerun(P, Q, e, pv);
		(P->tsv ? tsv_entry : text_entry)(P, Q, e, pv, own, &k);
	}
}

/* The point against the fastest library (pool_libs.h), kept for the block
 * after the tables. */
static void libs_point(struct pool_run *P, const struct pool_point *Q)
{
	struct fl_pool_libs_in in = {
		.nrun = P->nfiles, .cells = P->cells, .point = Q->point, .baseline = P->baseline,
		.ent = Q->ent, .out = Q->out, .nent = Q->nent, .band = Q->band,
	};
	P->nlibs += fl_pool_libs_judge(&in, &P->libs[P->nlibs]);
}

static void load_runs(struct pool_run *P, char *const *paths, const char *against)
{
	for (int j = 0; j < P->nfiles; j++) {
		load(&P->runs[j], paths[j], P->baseline);
		if (j > 0)
			same_config(&P->runs[0], &P->runs[j], "pool only runs of one configuration");
	}
	if (against) {
		P->next = &P->runs[P->nfiles];
		load(P->next, against, P->baseline);
		same_config(&P->runs[0], P->next, "--against takes a run of the pooled configuration");
	}
}

static void summary(const struct pool_run *P)
{
	double mh = P->nhalf ? fl_median(P->half, P->nhalf) : NAN;
	fprintf(P->f, "\nprediction: %s's ratio inside for %d of %d (point, entry) pairs "
		      "(%.1f%%); median half-width ×/÷%.2f; verdicts contradicting: %d\n",
		P->next->path, P->inside, P->pairs, P->pairs ? 100.0 * P->inside / P->pairs : 0,
		exp(mh), P->contra);
}

int fl_pool_compare(FILE *f, int nfiles, char *const *paths, const char *against,
		    const char *baseline, bool tsv)
{
	if (nfiles < 2)
		fl_usage_error("compare --pool: give two or more CSV files of one configuration "
			       "(got %d)", nfiles);
	struct pool_run P = { .f = f, .nfiles = nfiles, .baseline = baseline, .tsv = tsv };
	P.runs = fl_xcalloc((size_t)nfiles + 1, sizeof *P.runs);
	load_runs(&P, paths, against);
	P.cells = fl_xcalloc((size_t)nfiles, sizeof(void *)); /* an array of pointers */
	for (int j = 0; j < nfiles; j++)
		P.cells[j] = &P.runs[j].c;
	if (tsv) {
		fprintf(f, "point\tvariant\truns\tratio\tconf_lo\tconf_hi\tpred_lo\tpred_hi\tverdict"
			   "\tdf\tbetween_sd\trun_ratios");
		if (P.next)
			fprintf(f, "\tagainst_ratio\tinside\tagainst_verdict\tcontradicts");
		fputc('\n', f);
	} else {
		header(f, P.runs, nfiles, P.next, baseline);
	}
	P.half = fl_xcalloc((size_t)P.runs[0].c.n + 1, sizeof *P.half);
	P.libs = fl_xcalloc((size_t)P.runs[0].c.n + 1, sizeof *P.libs);
	for (int i = 0; i < P.runs[0].c.n; i++) {
		struct pool_point Q;
		if (!point_pool(&P, i, &Q))
			continue;
		print_point(&P, &Q);
		libs_point(&P, &Q);
		free(Q.out);
		free(Q.r);
		free((void *)Q.ent);
	}
	fl_pool_libs_print(f, P.libs, P.nlibs, nfiles, baseline, tsv);
	if (P.next && !tsv)
		summary(&P);
	free(P.half);
	free(P.libs);
	free((void *)P.cells);
	for (int j = 0; j < nfiles + (P.next != NULL); j++) {
		fl_cells_free(&P.runs[j].c);
		fl_table_free(&P.runs[j].t);
	}
	free(P.runs);
	return 0;
}
