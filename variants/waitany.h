/* variants/waitany.h — wait for a token from any of N semaphores.
 *
 *   int fl_wait_any(v, sems, n, deadline)
 *
 * takes exactly one token from one of sems[0..n-1] (all of variant v) and
 * returns its index; or -ETIMEDOUT at the absolute CLOCK_MONOTONIC deadline
 * (NULL: none), -EINTR when a signal handler interrupted the sleep (no token
 * taken in either case), -EINVAL for n outside 1..FL_WAITANY_MAX or a
 * deadline with tv_nsec out of range (when no token was available), -ENOTSUP
 * when v or the running kernel cannot (fl_wait_any_unsupported says why).
 * A token already available is taken whatever the deadline, as in timedwait.
 * The sleep is one futex_waitv (lib/waitv.h) over one word per semaphore.
 *
 * HOW A DESIGN SUPPORTS IT  It fills `any` in its descriptor with the hooks
 * below, a registration protocol over its own waiting words:
 *   arm(s, slot)  register as a waiter of s (from now on a post to s must
 *                 wake or pay this waiter); *slot = the word to sleep on and
 *                 the value meaning "nothing for you yet". Returns 1 if it
 *                 took a token instead (then it is not registered).
 *   poll(s)       registered: take a token meant for waiters, if there is
 *                 one. 1 = taken, and the registration is gone with it.
 *   disarm(s)     registered: leave. Returns 1 if leaving forced it to take a
 *                 token (the caller owns it), 0 if not.
 *   pass_on(s)    after leaving: if something on s is waiting for sleepers
 *                 (split: tokens with waiters registered; negcount: grants),
 *                 wake that many (see below).
 *   waitv         how to sleep on the armed words (futex_waitv's contract).
 * The generic loop (waitany.c): trywait each semaphore; arm all; then poll
 * all and sleep on all words until a poll takes a token, or the deadline or
 * a signal ends the sleep (one last poll pass then); then disarm every
 * registration still held; then, if it registered anywhere, pass_on every
 * semaphore of the set.
 *
 * WHY IT NEVER TAKES TWO TOKENS  The loop returns after the first arm or
 * poll that took a token, and every other semaphore it is registered on is
 * disarmed. A disarm that had to take a token (negcount: the claim was
 * already resolved by a post, so leaving means taking the grant — the
 * negative-counter note's exit 1) hands the extra token back with post(1): a
 * token is moved, never created or destroyed. The first token the loop holds is
 * the one reported.
 *
 * WHY IT LOSES NO WAKEUP  A post wakes waiters on the semaphore's word; the
 * kernel may pick the wait-any waiter W, which may then take its token from
 * another semaphore, so a wake meant for a token of s can be absorbed by a
 * thread that does not take it. How many: with the futex_waitv syscall a
 * wake dequeues the entry it counts, so W absorbs at most one per word per
 * sleep; but io_uring's FUTEX_WAITV, once one of its words fired, leaves
 * its other entries queued until the request completes and futex_wake
 * still counts each encounter as a waiter woken (io_uring/futex.c:
 * io_futex_wakev_fn returns without dequeuing when the request is already
 * claimed), so W may absorb any number of wakes on one word, even on the
 * semaphore it then takes from. Hence the rule is state-based, not
 * counted: between sleeps W polls every word and takes from any that has
 * something, so it never goes back to sleep past an absorbed wake; and
 * once it has left, pass_on re-reads every semaphore of the set and wakes
 * as many sleepers as there are tokens waiting for sleepers there. Those
 * reads follow W's return from the sleep (the CQE or the syscall return),
 * which follows every wake it absorbed, which follows the post's
 * publication; so each such token is seen unless another thread took it —
 * and a thread that took it was owed nothing further. Extra wakes are
 * harmless: every waiter loops on its own condition. Wakes are absorbed
 * in disarm's own short sleeps too (negcount waits there for a grant in
 * flight, and may then leave by removing a claim instead), so pass_on runs
 * whenever the waiter registered at all; only the path where a token was
 * there at once (the first trywait pass) skips it.
 *
 * Each design's file argues its hooks (split.c, negcount_any.c). The words
 * must be futexes the design's wakes reach: futex(2), futex2 and io_uring
 * wakes all do (same kernel queue, same key); a mutex+condvar backend does
 * not, so a design on it leaves `any` NULL. */
#ifndef FUTEXLAB_WAITANY_H
#define FUTEXLAB_WAITANY_H

#include <time.h>

#include "lib/waitv.h"
#include "variants/variant.h"

#define FL_WAITANY_MAX FL_WAITV_MAX

struct fl_any_ops {
	const char *(*unavailable)(void);  /* NULL or returns NULL: usable */
	int (*waitv)(const struct fl_waitv *w, int n, const struct timespec *abs_deadline);
	int (*arm)(void *s, struct fl_waitv *slot);
	int (*poll)(void *s);
	int (*disarm)(void *s);
	void (*pass_on)(void *s);
};

int fl_wait_any(const struct fl_variant *v, void *const sems[], int n,
		const struct timespec *deadline);
/* NULL when fl_wait_any works for v on this kernel, else a one-line reason. */
const char *fl_wait_any_unsupported(const struct fl_variant *v);

/* fl_wait_any under the process's waiting policy (variants/policy.h): under
 * park, or for a shipped library, fl_wait_any alone; otherwise the
 * policy's tries first — each a trywait of every semaphore in turn, from
 * the one after the last that gave a token — then fl_wait_any. What the
 * tries take is a token the design's trywait gave, so the wait-any's
 * argument above holds unchanged. Returns what fl_wait_any returns. */
int fl_policy_wait_any(const struct fl_variant *v, void *const sems[], int n,
		       const struct timespec *deadline);

/* negcount's hooks (negcount_any.c), for every design on its algorithm whose
 * backend wakes reach futex_waitv: negcount, futex2, uring. */
extern const struct fl_any_ops fl_negcount_any;
int fl_negcount_any_arm(void *s, struct fl_waitv *slot);
int fl_negcount_any_poll(void *s);
int fl_negcount_any_disarm(void *s);
void fl_negcount_any_pass_on(void *s);

#endif
