/* schema/kcounts.h — what the futex collector counted in one rep, as
 * totals: the record the probes fill (probes/probes.h,
 * fl_probes_rep_kcounts) for a command that folds its reps itself, the
 * hunt (hunt/cells.h). The same counts as a CSV row's probe columns, named
 * here by their column (probes/columns.md). */
#ifndef FUTEXLAB_KCOUNTS_H
#define FUTEXLAB_KCOUNTS_H

#include <stdint.h>

struct fl_kcounts {
	int64_t futex;     /* futex_syscalls: every futex-family syscall */
	int64_t waits;     /* wait_calls */
	int64_t wakes;     /* wake_calls */
	int64_t wake_none; /* wake_none: wakes that woke nobody */
	int64_t eagain;    /* wait_eagain: waits that found the word changed */
	int64_t resleeps;  /* resleeps: woken, and straight back to sleep */
	int64_t herd;      /* herd_bursts */
};

#endif
