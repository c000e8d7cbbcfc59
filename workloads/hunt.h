/* workloads/hunt.h — the stress patterns of `futexlab hunt` (harness/README.md):
 * shapes that expose lost wakeups, each a struct fl_workload so that the
 * harness runs it like any workload, in process or in a remote design's
 * helper (harness/remote.h). They are not in the registry of `run` and
 * `sweep` (fl_workloads[]): a hunt is not a benchmark, and its patterns
 * would only slow `--workload all`; fl_hunt_pattern_find names them.
 *
 * Every pattern is a sequence of *waves* on one semaphore that starts at 0:
 * the calling thread (the coordinator) posts k tokens to W waiters that take
 * them and do not give them back, and waits until the W have taken exactly
 * k more; S stealer threads meanwhile trywait and, on success, post the
 * token straight back (the post-stealing of musl's ABA bug, fixed by musl
 * 159d1f6c, and of the glibc BZ 12674 family of races). A wave that never
 * completes is a token posted that no waiter got: between waves, and at the
 * end of the rep, nothing else runs, so a waiter left asleep with a token
 * available stays so — which the stranded-waiter detector reports within
 * its threshold — and the coordinator reports the wave as stalled after
 * FL_HUNT_STALL_NS as a second line of evidence.
 *
 *   herd     W = max(16, 4 x cores) waiters, no stealer, k = 1 or 2 per wave
 *            (alternating; every other 2 as one post(2)): many waiters on
 *            few tokens, wake-one chains, a post owing two wakes
 *   steal    W = 4, S = 2, k = 2 (one post(1) each; every fourth wave one
 *            post(2)): two posters racing a trywait, the ABA shape
 *   crowd    W = 8 x cores, S = 2 x cores, k = 2: oversubscription, the
 *            scheduler preempts threads anywhere, inside the library too
 *   preempt  steal's shape, every thread (the coordinator too) with the
 *            in-library-text timer of preempt.h
 *
 * k is at most the design's value_max (lock1, capped at 1, drops what
 * exceeds its cap). After the last wave the stealers stop, the coordinator
 * posts W release tokens, one at a time, each taken before the next, and
 * every waiter leaves with one; the invariant
 * checked: tokens are conserved (posted = taken by waiters + left, drained
 * with trywait at the end, which also works for designs without getvalue),
 * and no wait, trywait or post fails. Threads, tokens and sems of fl_params
 * do not apply (the shapes are fixed); ops (a quota of waves' tokens) or
 * duration_ns does. One op: a token taken by a waiter or stolen by a
 * stealer. r->info: "waves N steals N preempt HITS/SIGNALS in text ..." —
 * the hunt reads the preemption counts back from it (the line crosses the
 * helper's pipe as it is). */
#ifndef FUTEXLAB_HUNT_H
#define FUTEXLAB_HUNT_H

#include "workload.h"

#define FL_HUNT_STALL_NS 2000000000LL /* a wave stalled this long is reported */

extern const struct fl_workload *const fl_hunt_patterns[];
extern const int fl_hunt_npatterns;
const struct fl_workload *fl_hunt_pattern_find(const char *name);

#endif
