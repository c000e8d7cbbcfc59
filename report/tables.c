/* report/tables.c — one run's ratio table and TSV, views of its model
 * (tables.h). */
#include "report/tables.h"
#include "report/changes.h"
#include "model/evidence.h"
#include "report/peers.h"
#include "model/regimes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/catalog.h"
#include "fail/xalloc.h"
#include "model/stats_text.h"

/* Control summary across points: how often ~, and the resolutions. */
struct control_sum {
	int points, same;
	double res[512];
	int nres;
};

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}


/* The columns every row of the ratio table starts with (CPU and context
 * switches per op are in the evidence block under it: evidence.h). */
static void row_start(FILE *f, const struct fl_cell *y)
{
	if (y->value == FL_VALUE_NS)
		fprintf(f, "  %-20s %11.1f", y->variant, y->shown);
	else /* the program's figure, in its own units and precision */
		fprintf(f, "  %-20s %11.6g", y->variant, y->shown);
}

/* A usable row whose baseline ran: the model's judgement of it. */
static void print_row(FILE *f, const struct fl_model *m, const struct fl_mcell *x, bool base,
		      struct control_sum *cs)
{
	const struct fl_cell *y = x->src;
	const struct fl_judged *j = &x->j;
	row_start(f, y);
	if (base) {
		fprintf(f, " %7.3f  baseline (%d rounds)\n", 1.0, y->ns.n);
		return;
	}
	if (!x->judged) {
		fprintf(f, " %7s  (no baseline rounds to pair with)\n", "-");
		return;
	}
	char ci[64], vt[64], res[32];
	snprintf(ci, sizeof ci, "[%.3f, %.3f] %2.0f%%", j->q.lo, j->q.hi, 100 * j->q.level);
	fprintf(f, " %7.3f  %-22s %*s  %s\n", j->q.median, ci, 9 + FL_FACTOR_EXTRA,
		fl_factor_text(res, sizeof res, j->q.resolution),
		x->regimes ? "regimes (below)" /* one median, two states */
			   : fl_judged_text(vt, sizeof vt, j));
	if (cs && fl_is_control(y->variant, m->baseline)) {
		cs->points++;
		cs->same += j->v == FL_SAME;
		if (cs->nres < 512)
			cs->res[cs->nres++] = j->q.resolution;
	}
}


const char *const fl_extra_heads[FL_NEXTRA] = { "jain",    "cv",  "min/max", "starve",
						"lat p50", "p99", "p99.9",   "max" };

const char *fl_extra_text(char *b, size_t n, int k, double x)
{
	if (k >= 3) /* starve and the latencies: durations */
		return fl_dur_text(b, n, x);
	if (isnan(x))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.3f", x);
	return b;
}

/* Under a point's ratios: the medians over its rounds of the fairness and
 * latency columns, where the file has them (workloads/README.md). */
static void print_extras(FILE *f, const struct fl_cell **row, int nrow)
{
	static const int w[FL_NEXTRA] = { 6, 6, 7, 8, 8, 8, 8, 8 };
	bool any = false;
	for (int j = 0; j < nrow; j++)
		for (int k = 0; k < FL_NEXTRA; k++)
			any |= fl_cell_usable(row[j]) && !isnan(row[j]->extra[k]);
	if (!any)
		return;
	fprintf(f, "  %-20s", "");
	for (int k = 0; k < FL_NEXTRA; k++)
		fprintf(f, " %*s", w[k], fl_extra_heads[k]);
	fprintf(f, "  (medians over rounds)\n");
	for (int j = 0; j < nrow; j++) {
		const struct fl_cell *y = row[j];
		if (!fl_cell_usable(y))
			continue;
		fprintf(f, "  %-20s", y->variant);
		for (int k = 0; k < FL_NEXTRA; k++) {
			char b[16];
			fprintf(f, " %*s", w[k], fl_extra_text(b, sizeof b, k, y->extra[k]));
		}
		fputc('\n', f);
	}
}

/* A point's first line, with its rounds (the baseline's timed rounds),
 * then the columns' names. */
static void point_header(FILE *f, const struct fl_cell *x, const struct fl_cell *ref)
{
	fprintf(f, "\n%s", x->point);
	if (fl_cell_usable(ref))
		fprintf(f, "  (%d round%s)", ref->ns.n, ref->ns.n == 1 ? "" : "s");
	fprintf(f, "\n  %-20s %11s %7s  %-22s %*s  %s\n", "variant",
		x->value == FL_VALUE_NS ? "median ns" : "metric", "ratio", "interval, coverage",
		9 + FL_FACTOR_EXTRA, "\u00d7/\u00f7res", "verdict");
}

/* A point's rows in run r of the model (fl_model_rows): the table's
 * order, v[j] row j's time verdict against ref, its baseline's cell. */
struct point_rows {
	const struct fl_cell **row;
	const enum fl_verdict *v;
	int nrow;
	const struct fl_cell *ref;
};

/* What the ratio table prints under a point's rows (before regimes): the
 * regimes block, the fairness and latency medians, the evidence block and
 * its why line, the libraries line (counted in peers). probed: some row of
 * the file was probed. Returns whether the point runs in two regimes. */
static bool point_notes(FILE *f, const struct fl_model *m, int r, const struct point_rows *x,
			bool probed, struct fl_peers_tally *peers)
{
	const struct fl_cells *c = &m->run[r].c;
	const char *baseline = m->baseline;
	const struct fl_cell **row = x->row, *ref = x->ref;
	int nrow = x->nrow;
	const enum fl_verdict *v = x->v;
	bool regimes = fl_print_regimes(f, c, row, nrow, ref, baseline);
	print_extras(f, row, nrow);
	fl_print_evidence(f, row, nrow, ref, v, probed);
	fl_peers_line(f, row, nrow, fl_point_has_regimes(ref),
		      ref ? fl_control_band(c, ref->point, baseline) : 0, peers);
	return regimes;
}

const struct fl_cell **fl_model_rows(const struct fl_model *m, int r, int p, enum fl_verdict **v,
				     int *nrow)
{
	const struct fl_cell **row = fl_xcalloc((size_t)m->nentry + 1, sizeof(void *));
	*v = fl_xcalloc((size_t)m->nentry + 1, sizeof **v);
	*nrow = 0;
	for (int e = 0; e < m->nentry; e++) {
		const struct fl_mcell *x = fl_model_cell(m, r, p, e);
		if (!x->present)
			continue;
		(*v)[*nrow] = x->judged ? x->j.v : FL_UNDECIDED;
		row[(*nrow)++] = x->src;
	}
	return row;
}

/* Whether every time of the table was taken in a probed round: some cell
 * has ok reps and none an unprobed one (a --probes run, or an older file
 * with the counts on every row; a cell with both keeps its unprobed reps:
 * table.h). */
static bool times_probed(const struct fl_cells *c)
{
	bool any = false;
	for (int i = 0; i < c->n; i++) {
		for (int r = 0; r < c->c[i].nr; r++)
			if (!c->c[i].probed_r[r])
				return false;
		any |= c->c[i].nr > 0;
	}
	return any;
}

/* The table's legend: what the value, the ratio, its interval, the
 * verdict and the evidence are. */
static void legend(FILE *f, const struct fl_cells *c, const char *baseline)
{
	/* what the value column and the ratios are of (table.h) */
	char what[160];
	if (c->value == FL_VALUE_NS)
		snprintf(what, sizeof what, "ns per op / %s's", baseline);
	else
		fprintf(f, "metric: the program's figure (--metric %s), its median in the value "
			   "column; wall time: the per-program report\n", c->metric);
	if (c->value == FL_VALUE_LOWER)
		snprintf(what, sizeof what, "the figure / %s's", baseline);
	else if (c->value == FL_VALUE_HIGHER) /* > 1 still worse */
		snprintf(what, sizeof what, "%s's figure / the row's", baseline);
	fprintf(f, "ratio: %s, round by round, median over the rounds; interval: "
		   "of that median over\nthis run's rounds (order statistics, coverage shown; "
		   "the next run's ratio: compare --pool);\n\u00d7/\u00f7res: its half-width "
		   "as a factor, on the log scale; verdict faster/slower when the interval\n"
		   "excludes 1 and the ratio lies beyond the control's band (%s#2, the run's A/A: "
		   "\u00d7/\u00f7 its own res),\nelse ~ (no difference beyond about "
		   "\u00d7/\u00f7res); ? when too few rounds for 95%%; \", 2.0x CPU\": the CPU\n"
		   "ratio, paired the same way, when beyond its noise and %.0f%% or more against "
		   "the verdict (more CPU\nwhen faster, less when slower) or beside a ~\n",
		what, baseline, 100 * (FL_CPU_NOTE - 1));
	fprintf(f, "evidence (under each point), per op: CPU ns (user+sys, every thread; exec: every "
		   "process of the run) and\ncontext switches (csw), medians over the timed rounds; the "
		   "kernel's counts, medians over the probed rounds:\nfutex syscalls, waits, wakes, "
		   "wakes that woke nobody (woke 0), EAGAINs, wakes per post (wk/post),\nresleeps, "
		   "herd bursts per 1000 ops (herd/1k), wake-to-run p50 and p99 (w2r); why: the "
		   "counts that\ndiffer most from the baseline's, for each design faster or slower\n");
	if (times_probed(c))
		fprintf(f, "probed: every round (as with --probes): the times carry the collector's tax, "
			   "6-16%% at the median contended entry, unequal across designs "
			   "(probes/overhead.md, results/resolution.md)\n");
}

int fl_print_ratios(FILE *f, const struct fl_model *m, int r)
{
	const struct fl_cells *c = &m->run[r].c;
	const char *baseline = m->baseline;
	fl_print_machine(f, "machine: ", &m->run[r].t);
	legend(f, c, baseline);
	if (!c->paired)
		fprintf(f, "warning: this file predates rounds (no round column): reps are paired "
			   "by index, not in time\n");
	struct control_sum cs = { 0 };
	struct fl_peers_tally peers = { 0 };
	int errors = 0, regimes = 0, points = 0;
	bool probed = false;
	for (int i = 0; i < c->n; i++)
		probed |= c->c[i].nprobed > 0;
	int b = fl_model_entry(m, baseline);
	for (int p = 0; p < m->npoint; p++) {
		enum fl_verdict *v;
		int nrow;
		const struct fl_cell **row = fl_model_rows(m, r, p, &v, &nrow);
		const struct fl_cell *ref = b >= 0 ? fl_model_cell(m, r, p, b)->src : NULL;
		if (nrow)
			point_header(f, row[0], ref);
		for (int e = 0; e < m->nentry; e++) {
			const struct fl_mcell *x = fl_model_cell(m, r, p, e);
			const struct fl_cell *y = x->src;
			if (!x->present) {
				continue;
			} else if (!x->usable) {
				fprintf(f, "  %-20s %s%s%s\n", y->variant, y->status,
					y->note[0] ? ": " : "", y->note);
				errors += !strcmp(y->status, "error");
			} else if (!fl_cell_usable(ref)) {
				row_start(f, y);
				fprintf(f, " %7s  (baseline %s did not run)\n", "-", baseline);
			} else {
				print_row(f, m, x, e == b, &cs);
			}
		}
		if (nrow)
			regimes += point_notes(f, m, r, &(struct point_rows){ row, v, nrow, ref },
					       probed, &peers);
		points += fl_cell_usable(ref);
		free(row);
		free(v);
	}
	if (cs.points) {
		qsort(cs.res, (size_t)cs.nres, sizeof *cs.res, cmp_d);
		char m[32], lo[32], hi[32];
		fprintf(f, "\ncontrol (%s#2, the baseline run twice per round): ~ at %d of %d points; "
			   "band %s median, %s to %s\n", baseline, cs.same, cs.points,
			fl_factor_text(m, sizeof m, cs.res[cs.nres / 2]),
			fl_factor_text(lo, sizeof lo, cs.res[0]),
			fl_factor_text(hi, sizeof hi, cs.res[cs.nres - 1]));
	}
	fl_peers_summary(f, &peers);
	if (regimes)
		fprintf(f, "regimes: %d of %d points run in two states\n", regimes, points);
	if (errors)
		fprintf(f, "%d row(s) broke an invariant (error above)\n", errors);
	return errors;
}


/* ---- TSV for the plots ----------------------------------------------------- */

/* The columns after the extras (added at the end, so a reader's column
 * numbers from before stay): CPU ns and context switches per op (medians),
 * the CPU ratio to the baseline and its interval, and the verdict with its
 * CPU note ("faster, 2.0x CPU"; the verdict column before stays the bare
 * word, which scripts/aa compares). */
static const char *const tsv_cpu_cols[] = { "cpu_ns_op", "csw_op", "cpu_ratio", "cpu_ratio_lo",
					    "cpu_ratio_hi", "verdict_cpu" };
#define NTSV_CPU ((int)(sizeof tsv_cpu_cols / sizeof tsv_cpu_cols[0]))
/* Then the evidence block's kernel counts (evidence.h): the cell's probed
 * rounds and the medians over them, per op (wakes_per_post per post, the
 * wake-to-run quantiles in ns), in table.h's order (enum fl_kcount). */
static const char *const tsv_k_cols[1 + FL_NKCOUNT] = {
	"probed_rounds", "futex_op", "waits_op", "wakes_op", "wake_none_op", "eagain_op",
	"wakes_per_post", "resleeps_op", "herd_op", "wake_to_run_p50_ns", "wake_to_run_p99_ns",
	"xnode_op",
};

static void tsv_num(FILE *f, double x);

/* The kernel counts' columns of a line (empty where the cell has none). */
static void tsv_kcounts(FILE *f, const struct fl_cell *x)
{
	bool have = fl_cell_usable(x) && x->nprobed > 0;
	if (have)
		fprintf(f, "\t%d", x->nprobed);
	else
		fputc('\t', f);
	for (int k = 0; k < FL_NKCOUNT; k++)
		tsv_num(f, have ? x->k[k] : NAN);
}

static void tsv_num(FILE *f, double x)
{
	if (isnan(x))
		fputc('\t', f);
	else
		fprintf(f, "\t%.6g", x);
}

static void tsv_line(FILE *f, const struct fl_mcell *m, bool base)
{
	const struct fl_cell *x = m->src;
	const char *op = fl_catalog_op(x->workload); /* what one op is, for plot titles */
	if (!m->usable) {
		fprintf(f, "%s\t%s\t%s\t%d\t%s\t0\t\t\t\t\t\t\t\t%s\t\t\t\t", x->workload,
			x->point, x->variant, x->threads, x->status, op);
		for (int k = 0; k < FL_NEXTRA + NTSV_CPU; k++)
			fputc('\t', f);
		tsv_kcounts(f, x);
		fputc('\n', f);
		return;
	}
	fprintf(f, "%s\t%s\t%s\t%d\tok\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f\t%s",
		x->workload, x->point, x->variant, x->threads, x->ns.n, x->ns.median, x->ns.mad,
		x->ns.ci_lo, x->ns.ci_hi, x->ns.min, x->ns.max, x->ops_s, op);
	const struct fl_judged *j = &m->j;
	char vt[64] = "";
	if (base)
		fprintf(f, "\t1\t1\t1\tbaseline");
	else if (m->judged)
		fprintf(f, "\t%.4f\t%.4f\t%.4f\t%s", j->q.median, j->q.lo, j->q.hi,
			fl_verdict_name(j->v));
	else
		fprintf(f, "\t\t\t\t");
	for (int k = 0; k < FL_NEXTRA; k++) /* the fairness and latency medians */
		tsv_num(f, x->extra[k]);
	tsv_num(f, x->cpu.median);
	tsv_num(f, x->csw.median);
	if (base && x->cpu.n > 0)
		fprintf(f, "\t1\t1\t1");
	else if (m->judged && j->cpu)
		fprintf(f, "\t%.4f\t%.4f\t%.4f", j->cq.median, j->cq.lo, j->cq.hi);
	else
		fprintf(f, "\t\t\t");
	if (m->judged)
		fl_judged_text(vt, sizeof vt, j);
	fprintf(f, "\t%s", base ? "baseline" : vt);
	tsv_kcounts(f, x);
	fputc('\n', f);
}

void fl_print_tsv(FILE *f, const struct fl_model *m, int r)
{
	fprintf(f, "workload\tpoint\tvariant\tthreads\tstatus\tn\tmedian_ns\tmad_ns\tci_lo\tci_hi\t"
		   "min_ns\tmax_ns\tops_s\top\tratio\tratio_lo\tratio_hi\tverdict");
	for (int k = 0; k < FL_NEXTRA; k++)
		fprintf(f, "\t%s", fl_extra_cols[k]);
	for (int k = 0; k < NTSV_CPU; k++)
		fprintf(f, "\t%s", tsv_cpu_cols[k]);
	for (int k = 0; k < 1 + FL_NKCOUNT; k++)
		fprintf(f, "\t%s", tsv_k_cols[k]);
	fputc('\n', f);
	for (int p = 0; p < m->npoint; p++)
		for (int e = 0; e < m->nentry; e++)
			if (fl_model_cell(m, r, p, e)->present)
				tsv_line(f, fl_model_cell(m, r, p, e), fl_model_is_baseline(m, e));
}

