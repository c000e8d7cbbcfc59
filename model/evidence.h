/* model/evidence.h — what explains a time: under each point's ratio
 * table, per row the medians over rounds of CPU ns and context switches per
 * op (its timed rounds) and of the kernel's futex counts per op (its probed
 * rounds: table.h), then one line naming, for each design faster or slower
 * than the baseline, the counts that differ most from the baseline's
 * (harness/verdicts.md, "The evidence block").
 *
 * The why line's rule (fl_why_pick): a count is a candidate when both
 * medians are known, they differ by FL_WHY_FACTOR or more either way (or
 * one is zero and the other not), and one of them is at least FL_WHY_MIN
 * per op (the wake-to-run durations: always); the largest |log ratio|
 * first, at most two (of two with one side zero — or under FL_WHY_MIN, as
 * good as zero beside the other — the larger nonzero side first; still
 * tied, the earlier column). The total of futex syscalls is left out: its kinds
 * (waits, wakes) are in, and a total never differs more than its most
 * different kind. CPU ns per op is named only when no count is: it is a
 * total too (user + sys), its sys part what the counts itemise, and a
 * design that is slower or faster with no count apart differs in its own
 * instructions, which only the CPU sees (a post that spins: the fixed-delay
 * performance mutants, variants/perf_delay.c). Named beside a count it
 * would mostly restate the time ratio. And a count the control (the baseline again, ctrl:
 * NULL without one) already moves is no explanation: a candidate's |log
 * ratio| must exceed FL_WHY_CONTROL times the control's own on that count
 * (a control with a zero where the baseline has none, or the reverse,
 * rules the count out). The counts come from a few probed rounds, and a
 * tail (the wake-to-run p99) or a rare event (a resleep) can differ by
 * 10x between the baseline and its control (glibc and glibc#2 at one
 * point of one sweep). */
#define FL_WHY_CONTROL 2.0
#ifndef FUTEXLAB_EVIDENCE_H
#define FUTEXLAB_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stats/stats.h"
#include "model/table.h"

/* The values a row's evidence is made of: CPU ns and context switches per
 * op, then the kernel counts (table.h, enum fl_kcount) at FL_EV_K + FL_K_... */
#define FL_EV_CPU 0
#define FL_EV_CSW 1
#define FL_EV_K 2
#define FL_NEV (FL_EV_K + FL_NKCOUNT)
void fl_evidence_values(const struct fl_cell *c, double v[FL_NEV]);

#define FL_WHY_FACTOR 1.5
#define FL_WHY_MIN 0.01

/* One count named by the why line: which (FL_EV_CPU, FL_EV_CSW or FL_EV_K + FL_K_...),
 * the design's median and the baseline's. */
struct fl_why {
	int k;
	double x, base;
};

/* The at most two counts of x (a design's values) that differ most from
 * base (the baseline's), by the rule above, most different first; returns
 * how many. Pure: tests call it directly. */
int fl_why_pick(const double x[FL_NEV], const double base[FL_NEV], const double *ctrl,
		struct fl_why out[2]);

/* The block and the why line of one point's rows (rank order, as the
 * ratio table prints them): ref the baseline's cell (NULL: none), v[j] row
 * j's time verdict against it (FL_UNDECIDED where there is none);
 * probed_file: some row of the file was probed (else the kernel columns
 * are "-" and a note says how to get them). */
void fl_print_evidence(FILE *f, const struct fl_cell *const *row, int nrow,
		       const struct fl_cell *ref, const enum fl_verdict *v, bool probed_file);

/* compare A B: the count that changed most from before to after, by the
 * same rule, as "csw/op 0.220 -> 0.870"; "" when either has no probed
 * rounds or no count changed that much. */
const char *fl_evidence_change(char *b, size_t n, const struct fl_cell *before,
			       const struct fl_cell *after);

/* The count of y (a row) that differs most from ref's by the why line's
 * rule (fl_why_pick, ctrl: the control or NULL), as "csw/op 0.220 ->
 * 0.870" (ref's, then y's; CPU ns per op only when no count differs);
 * "" when none does. fl_evidence_change is this between two runs, ctrl
 * NULL, once both have probed rounds. */
const char *fl_why_short(char *b, size_t n, const struct fl_cell *y, const struct fl_cell *ref,
			 const struct fl_cell *ctrl);

/* The same, of the counts that moved the way of the result only (dir 0:
 * any way, fl_why_short): dir < 0
 * (y is faster than ref) the counts y has fewer of per op, dir > 0 (y is
 * slower) those it has more of — every count is a cost, so a count that
 * moved the other way explains none of the result; "" when no count
 * (nor, failing one, the CPU) moved that way by the rule. */
const char *fl_why_toward(char *b, size_t n, const struct fl_cell *y, const struct fl_cell *ref,
			  const struct fl_cell *ctrl, int dir);

/* The block's parts, for a view that lays it out itself (the page's
 * table, html.c): column k's head ("cpu ns", "csw", ..., FL_EV_CPU to
 * FL_NEV - 1); value x of column k as the block prints it ("-": none);
 * whether the block shows column k for these rows (the cross-node column
 * only on a machine of more than one node); the block's first line
 * ("evidence, per OP (medians ...; kernel counts: over N probed rounds)");
 * the why line ("why: A ...; B ...", wrapped at its width; nothing when no
 * design faster or slower differs in a count). */
const char *fl_evidence_head(int k);
const char *fl_evidence_text(char *b, size_t n, int k, double x);
bool fl_evidence_shown(int k, const struct fl_cell *const *row, int nrow);
void fl_evidence_title(char *b, size_t n, const struct fl_cell *const *row, int nrow,
		       const char *op);
void fl_print_why(FILE *f, const struct fl_cell *const *row, int nrow,
		  const struct fl_cell *ref, const enum fl_verdict *v, const char *op);

/* A duration in ns as text: 3 significant digits and a unit (ns, us, ms,
 * s); "-" for NAN. */
const char *fl_dur_text(char *b, size_t n, double ns);

#endif
