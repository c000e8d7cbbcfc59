/* variants/perf_resleep.c — performance mutant: negcount whose waiter
 * sleeps once more after each wake (variant.h, struct fl_perf;
 * variants/README.md, "Performance mutants").
 *
 * MIMICS  the wasted wake: a woken waiter that goes back to sleep before it
 *   takes its token. In musl's semaphore (the musl thread; variants/musl.c)
 *   a pending wake can be stolen by a newcomer and the woken waiter sleeps
 *   again; under libstdc++ 12's wake-all every woken loser does. Here the
 *   resleep is forced on every wake, with nothing stolen, so its cost is the
 *   only difference from negcount.
 *
 * THE COST  after each sleep that returned 0 (woken), one more sleep on the
 *   grants word, up to RESLEEP_NS and never past the caller's deadline,
 *   then negcount's re-check (negcount.c, resleep(): how it stays correct —
 *   a wake it swallows is passed on). It is entered right after the wake
 *   returned, well within the probes' 50 us resleep window
 *   (probes/columns.md), so every wake makes one resleep.
 *
 * WHERE IT MUST COST  where negcount's waiters sleep and are woken by posts
 *   and little else happens per op: barrier T=4 wake=exact and wake=all (6
 *   futex waits per phase, no resleep in negcount: the evidence's `resleep`
 *   goes from none to ~6 per phase, each holding a thread RESLEEP_NS
 *   longer). Named first: the other counts from none here are the herd
 *   bursts (each post(3) of the barrier wakes 3 who all sleep again: 2 per
 *   phase) and, in some probed rounds, EAGAINs gone (negcount's ~0.03 per
 *   phase against the mutant's none), and of counts from none the larger
 *   goes first
 *   (model/evidence.h). It reads slower at both points, by several times
 *   (results/sensitivity.md). Under the park policy (the script's runs): a spinning policy
 *   sleeps less and would hide part of it. */
#include "lib/waitaddr.h"
#include "variants/negcount.h"
#include "variants/variant.h"

/* Long enough to be a real sleep (a context switch and a timer), short
 * enough that a phase is not dominated by it: the timer's slack (50 us by
 * default) comes on top. */
#define RESLEEP_NS 20000

static int rs_init(void *p, unsigned value, int pshared)
{
	return fl_negcount_init_on(p, value, pshared, &fl_wa_futex);
}

static int rs_timedwait(void *p, const struct timespec *dl)
{
	return fl_negcount_timedwait_resleep(p, dl, RESLEEP_NS);
}

static int rs_wait(void *p)
{
	return rs_timedwait(p, NULL);
}

static const struct fl_perf perf = {
	.parent = "negcount",
	.cost = "after each wake, one more sleep on the same word (up to 20 us)",
	.mimics = "the wasted wake: musl's stolen pending wake (the musl thread), "
		  "libstdc++ 12's wake-all losers: woken, asleep again",
	.points = "barrier T=4 wake=exact;barrier T=4 wake=all",
	.count = "resleep",
};

FL_VARIANT(perf_resleep, struct fl_negcount,
	.summary = "negcount sleeping once more after each wake (resleeps)",
	.init = rs_init, .value_max = FL_NEGCOUNT_MAX, .destroy = fl_negcount_destroy,
	.post = fl_negcount_post, .wait = rs_wait, .trywait = fl_negcount_trywait,
	.timedwait = rs_timedwait, .getvalue = fl_negcount_getvalue,
	.words = fl_negcount_words, .perf = &perf);
