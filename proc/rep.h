/* proc/rep.h — one rep, wherever the design runs: the one entry every
 * command's reps go through (the runner of `run`, `sweep` and `exec`, the
 * hunt).
 *
 * An in-process design's rep runs here (workloads/rep.h: wake and policy, the
 * stranded-waiter detector, the hooks, rusage, in that order). A helper-run
 * design's (v->helper: musl-libc) runs in its helper (proc/helper.h),
 * started here on its first rep, before hooks->begin: the hooks see the
 * helper's pid and bracket the request and its reply; the helper brackets
 * the run itself with the same fl_rep_here (its detector, wake, policy and
 * rusage are there, where the threads are), and its fields come back with
 * the result. */
#ifndef FUTEXLAB_PROC_REP_H
#define FUTEXLAB_PROC_REP_H

#include "workloads/rep.h"

/* NULL when v's reps can run here, else why not (one line, for a skipped
 * row): the kernel or the build lacks the design (v->unavailable), or it
 * runs in a helper that cannot be run (fl_helper_unavailable). Whether a
 * workload fits the design is the workload's (fl_workload_unavailable). */
const char *fl_rep_unavailable(const struct fl_variant *v);

/* Runs x into r (initialised by the caller; r->lat is the caller's to
 * free). On Ctrl-C (proc/interrupt.h) r is not a measurement. */
void fl_rep_run(const struct fl_rep *x, const struct fl_rep_hooks *h, struct fl_result *r);

#endif
