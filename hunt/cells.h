/* hunt/cells.h — the hunt's cells: one (design, pattern) pair's totals over
 * its reps, folded rep by rep, and what is printed of them at the end: the
 * table (a line per design and pattern: ops, seconds, CPU per op, the
 * kernel's futex counts per op, preemption signals that landed in library
 * text, stranded waiters, the first evidence) and one verdict line per
 * design. The command (harness/cmd_hunt.c) runs the reps, hands over each
 * one's kernel counts (schema/kcounts.h, from the collector) and writes its
 * CSV row (record/hunt_row.h). */
#ifndef FUTEXLAB_HUNT_CELLS_H
#define FUTEXLAB_HUNT_CELLS_H

#include <stdint.h>
#include <stdio.h>

#include "schema/kcounts.h"
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
	int64_t cpu_ns, cpu_ops; /* user + system CPU over the reps that have it; their ops */
	int probed;            /* reps the collector counted */
	int64_t probed_ops;    /* their ops */
	struct fl_kcounts k;   /* their kernel counts, summed */
	int errors;            /* reps with another broken invariant */
	int found_rep;         /* 0: nothing found yet */
	int64_t found_ops;     /* ops run in this cell up to the end of that rep */
	char found[240];       /* the first finding's note */
};

/* Cell c (zeroed) of design v and pattern w under pol, the hunt's policy:
 * v's own (park) for a shipped library; its label NAME or NAME@POLICY
 * (fl_entry_label). */
void fl_hunt_cell_init(struct fl_hunt_cell *c, const struct fl_variant *v,
		       const struct fl_workload *w, const struct fl_policy *pol);
/* Rep r into c's totals, with k what the collector counted in it (NULL:
 * not counted); its CSV row's status ("ok", "stranded", "error"), note
 * and stranded count go to the out-parameters. */
void fl_hunt_fold(struct fl_hunt_cell *c, const struct fl_result *r, const struct fl_kcounts *k,
		  const char **status, const char **note, int64_t *stranded);
/* The table: a legend, then a line per design and pattern (nc cells).
 * off: why the collector counted nothing (fl_probes_off_why), or "" or
 * NULL when it counted: the kernel columns then say "-" and the legend
 * says why. */
void fl_hunt_table(FILE *f, const struct fl_hunt_cell *cells, int nc, const char *off);
/* One verdict line per design, from its cells' totals (np patterns each,
 * a design's cells adjacent). */
void fl_hunt_verdicts(FILE *f, const struct fl_hunt_cell *cells, int nc, int np);

#endif
