/* report/summary.h — the answer first: one screen at the end of run,
 * sweep, exec and `compare FILE`, the full tables (tables.h) in a file
 * beside the CSV (X.csv -> X.txt) or on the screen with --detail.
 *
 * It is a view of one run of the results model (model.h), which holds the
 * figures — per point and entry the paired ratio to the baseline, its
 * interval and its verdict, exactly the ratio table's; whether it costs
 * more CPU than the baseline; per point the fastest and the group the
 * table's rule cannot tell from it (a tie is a group), and why — and it
 * adds what only the screen says:
 *   - per entry the geometric mean of its ratios over the points where it
 *     is usable (a ratio, the point not in two regimes) with an interval
 *     (below);
 *   - the libraries line's tally (peers.h).
 *
 * The overall interval. Per point p an entry's ratio r_p has an
 * order-statistics interval of coverage L_p (stats.h); on the log scale it
 * is near enough symmetric, and its half-width h_p = (ln hi - ln lo) / 2
 * read as a normal interval gives the standard error of ln r_p:
 * se_p = h_p / z((1 + L_p) / 2) (fl_ratio_log_se, the pool's within-run
 * error, stats.h). The overall is g = exp(mean_p ln r_p) over the P usable
 * points; the points are measured in disjoint reps, so their errors are
 * taken as independent and se(mean) = sqrt(sum_p se_p^2) / P; the interval
 * is exp(ln g +- z(0.975) se(mean)) (95%), symmetric on the log scale,
 * printed as the factor x/÷ exp(z se). It is wide when a few points are
 * noisy and narrows as 1/sqrt(P) when all are alike. It covers the rounds
 * of THIS run only, like each point's interval: not the between-run spread
 * (the machine's state between runs moves ratios more than rounds do;
 * `compare --pool` pools runs, harness/verdicts.md), and not the choice of
 * points — it is a mean over the points run, not over workloads in
 * general, so a sweep of other points has another mean. Nor is it a
 * verdict: no control floor applies to it (the per-point marks carry the
 * verdicts).
 *
 * The name: stats.h already has a `struct fl_summary` (a median with its
 * interval), so the model is `struct fl_sum`; the functions keep the
 * fl_summary_ prefix. */
#ifndef FUTEXLAB_SUMMARY_H
#define FUTEXLAB_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "model/catalog.h"
#include "model/model.h"
#include "report/peers.h"
#include "stats/stats.h"
#include "model/table.h"

#define FL_SUM_LEVEL 0.95 /* the overall interval's coverage */

struct fl_sum_cell {
	bool have;              /* a paired ratio (ratio, lo, hi, se, v hold) */
	double ratio, lo, hi;   /* the median paired ratio and its interval (the table's) */
	double se;              /* the standard error of its log (above; NAN: none) */
	enum fl_verdict v;      /* the table's verdict (FL_UNDECIDED: ?, or two regimes) */
	const char *status;     /* !have: the cell's status ("skipped", "error", "ok": no
				 * pairs); NULL: the entry does not run at the point */
	bool more_cpu;          /* costs more CPU than the baseline (model.h) */
};

struct fl_sum_entry {
	const char *label;      /* the entry's label as in the CSV (NAME, NAME@POLICY, B#2) */
	enum fl_kind kind;      /* catalog.h (FL_KIND_OTHER without a catalog) */
	double gmean, lo, hi;   /* over its usable points (NAN: none) */
	int npoints;            /* those points */
	bool baseline;          /* the baseline itself: ratio 1 wherever it ran (not printed) */
	bool control;           /* BASELINE#2 */
};

struct fl_sum_point {
	const char *point;      /* the point's key as the table prints it */
	const char *workload;
	int threads;
	int winner;             /* the fastest (entry index), -1 none */
	const int *group;       /* the fastest's group (model.h: a tie), winner first */
	int ngroup;
	double time;            /* the fastest's own median (ns per op, or the figure) */
	bool more_cpu;          /* the fastest costs more CPU than the baseline */
	double cpu;             /* its CPU ratio to the baseline (NAN: none) */
	bool regimes;           /* the baseline runs in two states here: no winner */
	int against;            /* the entry the why is against, -1: no result */
	bool none_why;          /* a result, no count moved its way */
	char why[160];          /* "csw/op 0.065 -> 0.010"; "" none */
};

struct fl_sum {
	const char *baseline;
	int npoints, nentries;
	struct fl_sum_point *points;
	struct fl_sum_entry *entries;   /* the model's, in the table's row order */
	struct fl_sum_cell *cells;      /* [p * nentries + e] */
	struct fl_peers_tally peers;    /* the libraries line's tally (peers.h) */
	int errors;                     /* cells with status error */
	enum fl_value value;            /* what the ratios are of (table.h) */
};

/* The view of run r of the model (its labels, keys and groups point into
 * m: keep m until fl_summary_free). */
void fl_summary_build(struct fl_sum *s, const struct fl_model *m, int r);
/* One screen: the matrix (entries as rows when they outnumber the points,
 * else points as rows), its legend, the overall per entry, per point the
 * winner and why, the libraries line. */
void fl_summary_print(FILE *f, const struct fl_sum *s);
void fl_summary_free(struct fl_sum *s);
/* A point's why as every view says it: the count, or "no count fell" (a
 * result no count moved the way of; against < 0: no result, no why). */
const char *fl_sum_why(const struct fl_sum_point *q);

/* What a command that shows a table ends with (run, sweep, exec and
 * `compare FILE` alike), of one loaded run whose cells are built
 * (model/run.h): the full tables (fl_print_ratios, then o->more) written to
 * o->detail_path and to out when o->show_detail; then the summary and the
 * pointer line, where the full tables are. Returns the error rows' count. */
/* What fl_report_text is asked: where the full tables go (NULL: no file),
 * whether to out too, the baseline, and what follows the tables (exec's
 * per-program summary; NULL: nothing). */
struct fl_text_opts {
	const char *detail_path;
	bool show_detail;
	const char *baseline;
	void (*more)(FILE *f, void *arg);
	void *arg;
};
int fl_report_text(FILE *out, struct fl_loaded_run *run, const struct fl_text_opts *o);

#endif
