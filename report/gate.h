/* report/gate.h — `compare A B --fail-on slower|faster|any`: the CI gate.
 *
 * Every pair before/after compares (ratios.h, fl_print_changes) comes
 * through the gate's sink; a pair whose verdict is one the gate fails on is
 * kept as one line, naming the point, the entry and both intervals. At the
 * end the lines are printed after the table, then the count: "fail-on
 * slower: N of M pairs slower beyond the noise: FAIL (exit 1)" or "pass".
 * The verdict is the before/after one (harness/verdicts.md, "Across
 * runs"): a status change, a CPU-only note or a pair in one file only does
 * not trip it. */
#ifndef FUTEXLAB_GATE_H
#define FUTEXLAB_GATE_H

#include <stddef.h>
#include <stdio.h>

#include "report/ratios.h"

enum { FL_GATE_SLOWER = 1, FL_GATE_FASTER = 2 };

struct fl_gate {
	unsigned fail_on;  /* FL_GATE_* bits; 0: no gate */
	const char *name;  /* slower, faster, any */
	FILE *lines;       /* the failing pairs' lines */
	char *buf;
	size_t len;
	int failed, compared;
};

/* --fail-on's value (usage error, exit 2, for another). */
void fl_gate_parse(struct fl_gate *g, const char *value);
/* The sink to hand fl_print_changes (call only when g->fail_on). */
struct fl_change_sink fl_gate_sink(struct fl_gate *g);
/* Prints the failing pairs' lines and the count line on f; returns the
 * exit status: 1 when some pair failed, 0 else; a usage error (exit 2)
 * when no pair was compared (a gate that compared nothing does not pass). */
int fl_gate_end(struct fl_gate *g, FILE *f);

#endif
