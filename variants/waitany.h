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
 *                 token (the caller owns it), 0 if not. Before returning it
 *                 passes on a wakeup it may have absorbed (see below).
 *   waitv         how to sleep on the armed words (futex_waitv's contract).
 * The generic loop (waitany.c): trywait each semaphore; arm all; then poll
 * all and sleep on all words until a poll takes a token, or the deadline or
 * a signal ends the sleep (one last poll pass then); then disarm every
 * registration still held.
 *
 * WHY IT NEVER TAKES TWO TOKENS  The loop returns after the first arm or
 * poll that took a token, and every other semaphore it is registered on is
 * disarmed. A disarm that had to take a token (negcount: the claim was
 * already resolved by a post, so leaving means taking the grant — seed 000's
 * exit 1) hands the extra token back with post(1): a token is moved, never
 * created or destroyed. The first token the loop holds is the one reported.
 *
 * WHY IT LOSES NO WAKEUP  A post wakes waiters on the semaphore's word; the
 * kernel may pick the wait-any waiter W, which may then take its token from
 * another semaphore, so a wake meant for a token of s can be absorbed by a
 * thread that leaves s. W holds one queue entry per word per sleep, so it
 * absorbs at most one wake per semaphore. Between sleeps it polls every
 * word and takes from any that has something, so it never goes back to
 * sleep past an absorbed wake; the semaphore it takes from is paid by its
 * token; for every semaphore it leaves, disarm re-checks after leaving
 * whether something is waiting there for sleepers (split: count > 0 with
 * waiters registered; negcount: grants > 0) and then wakes one. That read
 * follows W's return from the sleep, which follows the absorbed wake, which
 * follows the post's publication, so it sees the token unless another
 * thread took it — and a thread that took it was owed nothing further.
 * An extra wake is harmless: every waiter loops on its own condition.
 *
 * Each design's file argues its hooks (split.c, negcount_any.c). The words
 * must be futexes the design's wakes reach: futex(2), futex2 and io_uring
 * wakes all do (same kernel queue, same key); a mutex+condvar backend does
 * not, so a design on it leaves `any` NULL. */
#ifndef FUTEXLAB_WAITANY_H
#define FUTEXLAB_WAITANY_H

#include <time.h>

#include "../lib/waitv.h"
#include "variant.h"

#define FL_WAITANY_MAX FL_WAITV_MAX

struct fl_any_ops {
	const char *(*unavailable)(void);  /* NULL or returns NULL: usable */
	int (*waitv)(const struct fl_waitv *w, int n, const struct timespec *abs_deadline);
	int (*arm)(void *s, struct fl_waitv *slot);
	int (*poll)(void *s);
	int (*disarm)(void *s);
};

int fl_wait_any(const struct fl_variant *v, void *const sems[], int n,
		const struct timespec *deadline);
/* NULL when fl_wait_any works for v on this kernel, else a one-line reason. */
const char *fl_wait_any_unsupported(const struct fl_variant *v);

/* negcount's hooks (negcount_any.c), for every design on its algorithm whose
 * backend wakes reach futex_waitv: negcount, futex2, uring. */
extern const struct fl_any_ops fl_negcount_any;
int fl_negcount_any_arm(void *s, struct fl_waitv *slot);
int fl_negcount_any_poll(void *s);
int fl_negcount_any_disarm(void *s);

#endif
