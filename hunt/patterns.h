/* hunt/patterns.h — the stress patterns of `futexlab hunt` (hunt/README.md):
 * shapes that expose lost wakeups, each a struct fl_workload so that the
 * harness runs it like any workload, in process or in a helper-run design's
 * helper (proc/helper.h). They are not in the registry of `run` and
 * `sweep` (fl_workloads[]): a hunt is not a benchmark, and its patterns
 * would only slow `--workload all`; fl_hunt_pattern_find names them.
 *
 * Every pattern is a sequence of *waves* on one semaphore that starts at 0:
 * the calling thread (the coordinator) posts k tokens to W waiters that take
 * them and do not give them back, and waits until the W have taken exactly
 * k more; S stealer threads meanwhile trywait and, on success, post the
 * token back after a random hold of 0-20 us (preempt: 0 to the
 * stall, if longer) (the post-stealing of musl's
 * ABA bug, fixed by musl 159d1f6c, and of the glibc BZ 12674 family of
 * races). A lost wake must *stay* lost for the detector to see it, so
 * within a wave a waiter takes at most one token and a stealer steals at
 * most one (each then sleeps on the wave word until the next wave: one
 * coming straight back would take or re-post the token whose wake was
 * lost, and rescue the sleeper; sleeping, not yielding, leaves the CPU time
 * the preemption's timers count to the library); and a "settled" wave is
 * posted only once every waiter is inside its wait (mostly asleep). A wave
 * that never completes is a token posted that no waiter got: the
 * stranded-waiter detector reports it within its threshold, and the
 * coordinator reports the wave as stalled after FL_HUNT_STALL_NS as a
 * second line of evidence.
 *
 *   herd     W = max(16, 4 x cores) waiters, no stealer, k = 1 or 2 per wave
 *            (alternating; every other 2 as one post(2)), every wave
 *            settled: many waiters on few tokens, wake-one chains, a post
 *            owing two wakes to sleepers
 *   steal    W = 2, S = 1, k = 2 (one post(1) each; every fourth wave one
 *            post(2)), unsettled: the waiters come back while the tokens
 *            and the steal land — moments with no waiter registered, then
 *            two; the stealer holds its token 0-20 us, so its re-post
 *            lands after they sleep: a poster racing a trywait and another
 *            post, musl 1.2.3's ABA interleaving
 *   crowd    W = 8 x cores, S = 2 x cores, k = 2, every other wave settled:
 *            oversubscription, the scheduler preempts threads anywhere,
 *            inside the library too
 *   preempt  steal's shape with S = 2, every thread (the coordinator too)
 *            with the in-library-text timer of preempt.h
 *
 * k is at most the design's value_max (lock1, capped at 1, drops what
 * exceeds its cap). After the last wave the stealers stop, the coordinator
 * posts W release tokens, one at a time, each taken before the next, and
 * every waiter leaves with one; the invariant
 * checked: tokens are conserved (posted = taken by waiters + left, drained
 * with trywait at the end, which also works for designs without getvalue),
 * and no wait, trywait or post fails. Threads, tokens and sems of fl_params
 * do not apply (the shapes are fixed); ops (a quota of waves' tokens) or
 * duration_ns does; `preempt` takes its stall, interval and text spec from
 * fl_params' preempt_* fields (the hunt's options; they cross the helper's
 * pipe with the rest). One op: a token taken by a waiter or stolen by a
 * stealer. r->info: "waves N steals N preempt HITS/SIGNALS in text ..." for
 * people; the preemption's counts are r->preempt_hits and preempt_signals. */
#ifndef FUTEXLAB_HUNT_PATTERNS_H
#define FUTEXLAB_HUNT_PATTERNS_H

#include "workloads/workload.h"

#define FL_HUNT_STALL_NS 2000000000LL /* a wave stalled this long is reported */

extern const struct fl_workload *const fl_hunt_patterns[];
extern const int fl_hunt_npatterns;
const struct fl_workload *fl_hunt_pattern_find(const char *name);

#endif
