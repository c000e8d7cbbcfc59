/* report/changes.h — before/after of two runs (compare A B): what changed
 * beyond the noise, each pair handed to a sink (the gate); the machine line
 * every table starts with.
 *
 * Across two runs the default compares the in-run ratios to the baseline,
 * which the machine's drift between the runs does not move; --absolute
 * compares ns per op and says that it cannot tell a change from the
 * machine drifting. */
#ifndef FUTEXLAB_CHANGES_H
#define FUTEXLAB_CHANGES_H

#include <stdbool.h>
#include <stdio.h>

#include "model/rule.h"
#include "model/run.h"

/* The machine line every table starts with (label: "machine: ", "before: "). */
void fl_print_machine(FILE *f, const char *label, const struct fl_table *t);
/* One (point, variant) pair compared before/after, handed to a sink (compare
 * --fail-on: cmd_compare.c): its verdict (FL_SAME, FL_FASTER, FL_SLOWER:
 * the time's, as the line prints it) and its figures as shown, with the
 * intervals whose overlap decided it (ratios, ns per op or the program's
 * figure, with `decimals`: < 0 the figure's own precision). */
struct fl_change {
	const char *point, *variant;
	enum fl_verdict verdict;
	double before, after, lo[2], hi[2];
	int decimals;
	/* in ratio mode, the entry's own median time before and after, and
	 * whether their intervals are apart (own[0] 0: not in ratio mode) */
	double own[2];
	bool own_apart;
};
struct fl_change_sink {
	void (*fn)(void *arg, const struct fl_change *c);
	void *arg;
};

/* What a before/after is asked: ratios to `baseline` (or, `absolute`, ns
 * per op), every pair or (`all` false) the changes only, and where every
 * compared pair goes (`sink`, NULL: none). */
struct fl_changes_opts {
	const char *baseline;
	bool all, absolute;
	const struct fl_change_sink *sink;
};
/* Before / after (two loaded runs, model/run.h, their cells built):
 * prints the (point, variant) pairs that changed beyond the noise (every
 * pair with o->all; a changed one ends with the count that changed most:
 * fl_evidence_change) and the line "N of M pairs changed beyond the noise,
 * ...", and hands every compared pair to o->sink. Returns N. */
int fl_print_changes(FILE *f, const struct fl_loaded_run *before, const struct fl_loaded_run *after,
		     const struct fl_changes_opts *o);

#endif
