/* hunt/cells.h — the hunt's cells: one (design, pattern) pair's totals over
 * its reps, folded rep by rep, and what is printed of them at the end: the
 * table (a line per design and pattern: ops, seconds, preemption signals
 * that landed in library text, stranded waiters, the first evidence) and one
 * verdict line per design. The command (harness/cmd_hunt.c) runs the reps
 * and writes each one's CSV row. */
#ifndef FUTEXLAB_HUNT_CELLS_H
#define FUTEXLAB_HUNT_CELLS_H

#include <stdint.h>
#include <stdio.h>

#include "variants/policy.h"
#include "variants/variant.h"
#include "workloads/workload.h"

struct fl_hunt_cell {
	const struct fl_variant *v;
	struct fl_policy policy;  /* --policy, park for a shipped library */
	char label[40];           /* NAME or NAME@POLICY (fl_entry_label) */
	const struct fl_workload *w;
	const char *unavailable; /* non-NULL: why this cell does not run */
	int reps;
	int64_t ops, elapsed_ns, signals, hits;
	int64_t stranded;      /* stranded waiters found, over all reps */
	int64_t stranded_max_ns;
	int errors;            /* reps with another broken invariant */
	int found_rep;         /* 0: nothing found yet */
	int64_t found_ops;     /* ops run in this cell up to the end of that rep */
	char found[240];       /* the first finding's note */
};

/* Rep r into c's totals; its CSV row's status ("ok", "stranded",
 * "error"), note and stranded count go to the out-parameters. */
void fl_hunt_fold(struct fl_hunt_cell *c, const struct fl_result *r, const char **status,
		  const char **note, int64_t *stranded);
/* The table: a line per design and pattern (nc cells). */
void fl_hunt_table(FILE *f, const struct fl_hunt_cell *cells, int nc);
/* One verdict line per design, from its cells' totals (np patterns each,
 * a design's cells adjacent). */
void fl_hunt_verdicts(FILE *f, const struct fl_hunt_cell *cells, int nc, int np);

#endif
