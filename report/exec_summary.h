/* report/exec_summary.h — the per-program summary of `futexlab exec`: the
 * designs side by side on what the program did (wall, CPU, context
 * switches, semaphores on the design, processes) and on what the kernel saw
 * (futex calls by op, wakes that woke nobody, herds, EAGAIN storms, wait
 * time), then each design's most contended futex words. */
#ifndef FUTEXLAB_EXEC_SUMMARY_H
#define FUTEXLAB_EXEC_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "schema/word.h"
#include "model/table.h"

#define FL_EXEC_TOP 5

/* What one measured rep leaves for the summary besides its CSV row. */
struct fl_exec_rep {
	char label[40];                     /* the entry (variant, or BASELINE#2) */
	int round;
	double wall_ns;
	bool probed;                        /* the collector counted it: words below */
	struct fl_word top[2][FL_EXEC_TOP]; /* [0] by waits, [1] by total wait time */
	int ntop[2];
	int nwords;                         /* distinct words seen in the rep */
	unsigned long long lost;            /* words the collector could not record */
	struct { unsigned pid; char comm[17]; } procs[16]; /* from the shim's loglines */
	int nprocs;
};

/* The process name the shim reported for pid in that rep, or "". */
const char *fl_exec_comm(const struct fl_exec_rep *x, unsigned pid);

/* What the run knows beyond its table: the entries in the table's order,
 * every measured ok rep, whether the collector was on. */
struct fl_exec_in {
	const char *const *labels;
	int nlabels;
	const struct fl_exec_rep *reps;
	int nreps;
	bool probes;
};
void fl_exec_summary(FILE *f, const struct fl_table *t, const struct fl_exec_in *in);

#endif
