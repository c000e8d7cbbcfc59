/* model/model.h — runs x points x entries: the results as data.
 *
 * What a set of runs says, built once from their rows; every output is a
 * view of it: one run's ratio table, TSV, summary and page (rule.h,
 * summary.h, html.h: fl_model_of_run), and across runs the gate against a
 * machine's history (judge.h), the change points over it (history.h), the
 * JSON (json.h), the store (which keeps the runs this is built from). Per
 * run, point and entry the cell holds what the run's own ratio table says
 * there — the median value and its interval, CPU, the table's judgement
 * (the paired ratio to the baseline and its interval against the control's
 * band, the CPU ratio and its verdict: rule.h's fl_judged), the verdict
 * once the point's regimes are taken into account, whether it costs more
 * CPU — and its cell (table.h: the rows' summary, which the evidence,
 * fairness and regimes blocks read); per run and point the fastest, its
 * group and why (fl_mpoint). The figures are computed by the table's own
 * functions (table.h, rule.h, regimes.h), once, so a view never
 * re-derives a figure and nothing is parsed back from printed text.
 *
 * Its runs are loaded runs (run.h: each its table, cells, identity and
 * machine), the caller's: the model reads them and must not outlive them.
 *
 * Points are the union over the runs in the order of the runs' point
 * numbers (table.h), entries the union in the ratio table's row order
 * (fl_entry_order); a cell an entry did not run in has present == false. */
#ifndef FUTEXLAB_MODEL_H
#define FUTEXLAB_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/rule.h"
#include "model/run.h"
#include "model/table.h"

struct fl_mcell {
	const struct fl_cell *src; /* its cell: the rows' summary, the evidence (NULL: absent) */
	bool present;          /* a row of this entry at this point in this run */
	bool usable;           /* status ok with an ok rep */
	const char *status;    /* ok, error, skipped, interrupted */
	int reps;              /* ok reps the figures are over */
	double value;          /* median value: ns per op, or exec's metric (table.h) */
	double value_lo, value_hi; /* its interval */
	double cpu;            /* median CPU ns per op (NAN: none) */
	struct fl_ratio ratio; /* paired to the baseline (n == 0: none) */
	enum fl_verdict verdict; /* the ratio table's (FL_UNDECIDED: none, or regimes) */
	bool regimes;          /* the point's baseline ran in two states in this run */
	bool judged;           /* j holds: the ratio table's judgement of the row */
	struct fl_judged j;    /* (rule.h) the time and CPU verdicts against the
				* control's band, before the point's regimes are
				* taken into account (the TSV's verdict column) */
	struct fl_ratio cpu_ratio; /* CPU ns per op paired to the baseline's (n == 0: none) */
	bool more_cpu;         /* costs more CPU than the baseline: the CPU ratio's own
				* verdict slower (the control's CPU floor applies), by
				* FL_CPU_NOTE or more (stats.h) */
};

/* What one run says at one point: the fastest group and why.
 * The candidates are the entries with a paired ratio but the control and
 * the floors (the baseline is one, at ratio 1). The fastest is the one of
 * least ratio; its group, every candidate the ratio table's rule cannot
 * tell from it: their paired ratio (fastest / other, in the same rounds)
 * judged against the control's band by fl_cell_verdict is not `faster`.
 * A group is a tie: naming one member would say more than the run does.
 * No fastest where the baseline ran in two states (regimes). Why: against
 * the baseline (when the fastest is the baseline: the fastest candidate
 * outside its group), when the fastest is faster than it by the table's
 * rule, the count that moved the way of the result by the why line's rule
 * (fl_why_toward, evidence.h); none_why when no count did. */
struct fl_mpoint {
	int fastest;          /* entry index, -1: none */
	int ngroup, *group;   /* the group, fastest first, by ratio */
	int against;          /* the entry the why is against, -1: no result to explain */
	bool none_why;        /* a result, and no count moved its way */
	char why[160];        /* "csw/op 0.065 -> 0.010"; "" */
};

struct fl_model {
	const char *baseline;
	int nrun, npoint, nentry;
	struct fl_loaded_run *run; /* the caller's runs (run.h) */
	char **point;          /* display keys (table.h) */
	char **entry;          /* entry labels */
	struct fl_mcell *cell; /* [(r * npoint + p) * nentry + e] */
	struct fl_mpoint *pt;  /* [r * npoint + p] */
};
/* Builds the model of runs[0..n) (run.h), each one's cells built where
 * not yet (fl_loaded_cells); the runs stay the caller's and must outlive m.
 * Returns 0, or -1 with one line in err (a table whose cells cannot be
 * built). */
int fl_model_build(struct fl_model *m, struct fl_loaded_run *runs, int n, const char *baseline,
		   char *err, int errlen);
/* The model of one run whose cells are built (fl_loaded_wrap, or
 * fl_loaded_cells done): what run, sweep, exec and `compare FILE` end
 * with, and the page's runs. */
void fl_model_of_run(struct fl_model *m, struct fl_loaded_run *run, const char *baseline);
void fl_model_free(struct fl_model *m);
const struct fl_mpoint *fl_model_pt(const struct fl_model *m, int r, int p);
const struct fl_mcell *fl_model_cell(const struct fl_model *m, int r, int p, int e);
/* The index of a point key or an entry label, -1: none. */
int fl_model_point(const struct fl_model *m, const char *key);
int fl_model_entry(const struct fl_model *m, const char *label);
/* What entry e is, defined once: the baseline, its control, a floor
 * (floor-*), else the catalog's kind (catalog.h: a design, a shipped
 * library, or other — without a catalog every such entry is other). */
enum fl_entry_kind { FL_ENTRY_BASELINE, FL_ENTRY_CONTROL, FL_ENTRY_FLOOR, FL_ENTRY_DESIGN,
		     FL_ENTRY_LIBRARY, FL_ENTRY_OTHER };
enum fl_entry_kind fl_model_kind(const struct fl_model *m, int e);
/* Its name in the JSON and the docs: baseline, control, floor, design, library, other. */
const char *fl_entry_kind_name(enum fl_entry_kind k);
/* Whether entry e is the baseline or its control. */
bool fl_model_is_baseline(const struct fl_model *m, int e);
bool fl_model_is_control(const struct fl_model *m, int e);

#endif
