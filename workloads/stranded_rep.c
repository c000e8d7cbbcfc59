/* workloads/stranded_rep.c — the stranded-waiter detector (stranded/)
 * around one rep: its threshold from the rep's parameters, its findings into
 * the rep's result (workload.h: fl_stranded_rep_begin/end), and its hook
 * for the rooms that may not include stranded/ (the probes).
 *
 * A stranded waiter is the rep's error: the rescue may have left an extra
 * token (the watchdog's own posts), so the workload's invariant checks may
 * have failed after it; the lost wakeup, being their cause, replaces their
 * error. */
#include <stdio.h>

#include "stranded/stranded.h"
#include "workloads/workload.h"

void fl_stranded_rep_begin(const struct fl_params *p)
{
	fl_stranded_begin(p->stranded_ns);
}

void fl_stranded_rep_end(struct fl_result *r)
{
	struct fl_stranded_findings rep;
	fl_stranded_end(&rep);
	r->stranded = rep.stranded;
	r->stranded_max_ns = rep.max_ns;
	r->stranded_tid = rep.tid;
	r->stranded_taken = rep.taken;
	snprintf(r->stranded_note, sizeof r->stranded_note, "%s", rep.note);
	if (rep.stranded > 0)
		snprintf(r->error, sizeof r->error, "lost wakeup: %s", rep.note);
}

void fl_rep_stranded_hook(void (*hook)(int tid))
{
	fl_stranded_on_confirm = hook;
}
