/* record/hunt_row.h — the hunt's CSV (`futexlab hunt --csv`): its header
 * and one rep's row. The cell (design, pattern), the rep, what the
 * pattern counted (ops, time, preemption signals and their hits in library
 * text), the detector's stranded waiters, the status and its note; then the
 * rep's CPU and context switches (rusage around the rep) and the probe
 * columns (probes/probes.h: empty where the collector did not count the
 * rep). The columns: hunt/README.md. */
#ifndef FUTEXLAB_HUNT_ROW_H
#define FUTEXLAB_HUNT_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "workloads/workload.h"

struct fl_hunt_rep {
	const char *label, *pattern;    /* the cell: NAME or NAME@POLICY, the pattern */
	int rep;                        /* the cell's rep, from 1 */
	const struct fl_result *r;
	int64_t stranded;               /* what the cell counted of this rep (hunt/cells.h) */
	const char *status, *note;      /* ok, stranded, error; the note */
	bool probed;                    /* the collector counted the rep */
};

/* The header, no newline. */
const char *fl_hunt_csv_header(void);

/* x's row (no newline) into out[n]; exits when it does not fit (it always
 * does in 2048 bytes). */
void fl_hunt_row(char *out, size_t n, const struct fl_hunt_rep *x);
struct fl_csv;
/* x's row added to csv (record/csv.h): 0, or fl_csv_add's errno. */
int fl_hunt_csv_add(struct fl_csv *csv, const struct fl_hunt_rep *x);

#endif
