/* report/judge.h — a change judged against the between-run spread: the gate
 * across runs (`compare --db DB --against NEW.csv`, `compare --pool A...
 * --against B...`).
 *
 * Across runs the unit of evidence is the run. A run's own intervals cover
 * its rounds, not where a rerun lands (the machine's state lasts minutes),
 * so two single runs cannot tell a change from the machine: the history of
 * the same machine can. The model's runs are split into a history (runs
 * [0, nhist): the store's last runs of the machine, or the pooled files)
 * and a new side (the rest: one run, or several pooled). Per (point,
 * entry), two series over the history, both on the log scale:
 *   ratio  ln(median per-round ratio to the baseline), what the pairing
 *          makes insensitive to the machine moving both;
 *   time   ln(the entry's own median time per op), what moves when the
 *          entry's code changed — and also when the machine did.
 * Each series' variance is moderated towards a prior fitted over all the
 * history's series of its kind (stats/predict.h: strength borrowed across
 * entries and points), the t's scale is calibrated on the history's own
 * runs (each left out in turn and predicted from the others: the factor
 * c = max(1, q / t_{0.975}) that makes the pooled standardized deviations'
 * 95% quantile q hold, stats/predict.h), and the new side's mean is set
 * against it:
 * p = P(|T| >= |new - mean| / (c s~ sqrt(1/n + 1/k))), T ~ t(d0 + n - 1),
 * n history runs, k new ones.
 *
 * The field. A run's state moves the entries of a point together: the
 * baseline's time changes regime and every ratio there moves with it, or a
 * contended point runs in another state and the designs' times move as
 * one. So an entry's ratio series is taken against its point's field —
 * in each run, the median over the point's designs (FIELD_MIN = 6 or more
 * in every run; a floor, the baseline, its control and the libraries are
 * not of it) of their ln ratio — and the prediction is of the entry's
 * place among the designs, put back at the new run's field to be read as
 * a ratio to the baseline. The baseline then cancels, and so does what
 * moves all the designs at once; on eight quiet quick sweeps here the 95%
 * interval against five runs went from x/1.45 to x/1.34 at 95.5% coverage
 * (results/gate.md). A median of six or more is moved at most a rank by a
 * change of one design and its policy forms, so a regression of one
 * design stands out against it; a change that moves every design at once
 * (shared code, or the baseline) is the field's own: the field is judged
 * as an entry of its own, `designs-median`, on its ratio to the baseline
 * and its median own time, by the rule below. Where the field's own time
 * moved and its ratio did not, the machine moved at that point, and an
 * entry there whose ratio and time moved is named `machine moved`: its
 * own time cannot tell its code from the machine (inconclusive: below).
 *
 * An entry moved when BOTH its ratio and its own time moved the same way,
 * each beyond the family-wise level (Bonferroni: p < FL_JUDGE_ALPHA / M
 * over the M pairs judged, so one gate over a whole sweep raises a false
 * alarm on unchanged code at most FL_JUDGE_ALPHA of the time, by the
 * model) and each by at least the threshold. Both, because each alone
 * blames the wrong thing: a ratio moves when the baseline changes regime
 * (glibc's time at a point halving between two runs moves every ratio at
 * the point while the entries' own times stay), and a time
 * moves when the machine does. What moved on one side only is reported as
 * such — "baseline moved" (the ratio, with the baseline's own time beside
 * it), "ratio only", "time only" — and does not fail the gate. Where
 * both moved at a point whose field's own time moved (the machine moved
 * there), the entry's own time cannot tell its code from the machine:
 * "machine moved: rerun", inconclusive, never a pass (a regression of x44
 * once read so and passed).
 *
 * The threshold (--threshold, FL_JUDGE_THRESHOLD by default) is the least
 * change worth failing a CI run for: a series quiet enough (an uncontended
 * op, a few percent between runs) makes a 3% shift significant, and a
 * shift that small follows code layout and the compiler as much as the
 * design. 10% is also the least CPU factor the tables note (stats.h): below
 * it a difference is real but not the design's story. It is also what a
 * pass promises: each pair's smallest detectable change (the least move of
 * its new value whose p is below the cut and which is at least the
 * threshold, on the ratio and on the time, the larger of the two: what the
 * rule could have failed on) is printed, and a pair that did not move
 * passes only where that is within the threshold; wider, the pair is "too
 * wide" and the gate inconclusive. On this VM's quick sweeps every pair is
 * wider than x1.10 (against five runs uncontended sees about x1.8, the
 * contended points x3 at the least: results/gate.md): the history answers trends and large
 * regressions; a change of 10% is an A/B run's question.
 *
 * The history (harness/select.h, cmd_compare.c) holds only runs strictly
 * earlier than the new one, of its settings (model/run.h, fl_run_settings), and at
 * least FL_PREDICT_MIN_RUNS of them (stats/predict.h argues 5), else
 * nothing is judged and the judgement is inconclusive. Every series'
 * variance is floored at its within-run variance and 1% (predict.h), so one
 * step of a near-zero-spread series cannot set the calibrated scale. The
 * exit status is the judgement's in every format: FL_JUDGE_PASS,
 * FL_JUDGE_FAIL, FL_JUDGE_INCONCLUSIVE (2: bad input).
 *
 * With several new runs, their mean is judged; with one, its value. The
 * printed interval is the history's prediction of one new run's ratio
 * (given its field) at
 * FL_JUDGE_LEVEL (95%: the level whose coverage results/gate.md checks on
 * this machine's runs); `inside` says whether the new ratio is in it. */
#ifndef FUTEXLAB_JUDGE_H
#define FUTEXLAB_JUDGE_H

#include <stdbool.h>
#include <stdio.h>

#include "report/gate.h"
#include "model/model.h"

/* The judgement's exit statuses (2 is bad input: fail/fail.h). */
#define FL_JUDGE_PASS 0
#define FL_JUDGE_FAIL 1
#define FL_JUDGE_INCONCLUSIVE 3

#define FL_JUDGE_SCHEMA "futexlab-judgement/1"

#define FL_JUDGE_ALPHA 0.01
#define FL_JUDGE_THRESHOLD 0.10
#define FL_JUDGE_LEVEL 0.95
/* Other work (% of a core, the CSV's `# other work:` line) by which a new
 * run's machine may differ from its history's median before a note says
 * so: a quarter of a core is what a neighbour's compile or test job takes
 * on a 2-vCPU machine, and it moves a parked handoff many-fold. */
#define FL_JUDGE_BUSY 25.0

struct fl_judge_opts {
	struct fl_gate_rule rule; /* gate.h: --fail-on (0: no gate), --threshold, --only */
	bool all;           /* list every pair, not only those that moved */
	bool tsv;           /* one tab-separated line per pair instead */
	bool ratio_only;    /* --across-machines: the same-run ratio alone */
	const char *window; /* what the history is, for the TSV's window column and the
			     * lines: "rolling", "reference", "pool" (NULL: "history") */
	bool tsv_no_header; /* a second judgement in one TSV: its lines only */
	bool json;          /* one JSON object of the window instead (harness/json.md,
			     * "futexlab-judgement/1"; the caller wraps the windows) */
};

/* What is judged against what: the history's runs (how many, of which
 * machine, dates, revisions), the new side's, and a line when either side
 * holds a test run (`--as`). */
void fl_judge_describe(FILE *f, const struct fl_model *m, int nhist);
/* Judges runs [nhist, m->nrun) against runs [0, nhist) and prints the
 * table (or the TSV) and, with a gate, the failing entries and the count
 * line. Returns the exit status: FL_JUDGE_FAIL when a gated pair failed;
 * else FL_JUDGE_INCONCLUSIVE when the history is shorter than
 * FL_PREDICT_MIN_RUNS or cannot be calibrated (nothing judged: one line
 * says so), or a gated pair is undecided (the machine moved, or too wide);
 * else FL_JUDGE_PASS (also without a gate). A usage error (exit 2) when no
 * pair could be judged. The same status whatever the format. */
int fl_judge(FILE *f, const struct fl_model *m, int nhist, const struct fl_judge_opts *o);

#endif
