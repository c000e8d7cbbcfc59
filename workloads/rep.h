/* workloads/rep.h — one rep of a workload on a design, in this process.
 *
 * The one place a rep is bracketed, whoever runs it (the runner of `run`,
 * `sweep` and `exec`, the hunt, a helper-run design's helper; proc/rep.h
 * chooses between this process and the helper). In this order:
 *
 *   wake strategy and waiting policy set (lib/wake.h: the design's post
 *     reads the one; variants/policy.h: fl_wait applies the other; set per
 *     rep, so no rep inherits another's), and what the adaptive policy
 *     learned forgotten (fl_policy_forget: its table is keyed by address,
 *     and a rep's semaphores reuse the addresses of the rep before, another
 *     entry's in the round's random order; kept, a rep would start from
 *     that entry's window, and its time would depend on who ran before it)
 *   the stranded-waiter detector begins (its watchdog thread starts
 *     outside the window the hooks measure: its start-up is not the rep's)
 *   hooks->begin (the runner: probes, then perf counters)
 *   getrusage
 *   w->run
 *   getrusage (the cpu_* and csw_* fields, unless the workload set them:
 *     exec's wait4 of the program; RUSAGE_SELF keeps ended threads)
 *   hooks->end (the runner: perf counters, then probes)
 *   the detector ends (a stranded waiter: r->error = "lost wakeup: ...")
 *
 * The hooks sit just inside the detector's window and just outside the
 * rusage pair, so that what they count is the rep and not the detector's
 * set-up, and their own cost is not in the rep's CPU time. */
#ifndef FUTEXLAB_REP_H
#define FUTEXLAB_REP_H

#include <sys/types.h>

#include "variants/policy.h"
#include "workloads/workload.h"

/* What one rep runs. */
struct fl_rep {
	const struct fl_variant *v;
	const struct fl_workload *w;
	struct fl_params p;
	int wake;   /* enum fl_wake_strategy (lib/wake.h) */
	struct fl_policy policy; /* the waiting policy (fl_policy_set; park for
				    a design that waits its own way: ignored) */
};

/* Called around the rep's run, inside the detector's window. Any may be
 * NULL. `pid` is the process whose threads run the rep: 0 for this one, a
 * helper's pid, or -1 when the helper could not be started (r->error says
 * why; the hooks still bracket the failed rep, so every rep is bracketed).
 * meta: a line for the run's metadata (a helper just started says what it
 * runs on). */
struct fl_rep_hooks {
	void (*begin)(void *arg, pid_t pid);
	void (*end)(void *arg, pid_t pid, const struct fl_result *r);
	void (*meta)(void *arg, const char *line);
	void *arg;
};

/* Runs x in this process into r (which the caller initialised: r->lat is
 * the caller's to free). */
void fl_rep_here(const struct fl_rep *x, const struct fl_rep_hooks *h, struct fl_result *r);

#endif
