/* variants/negcount_any.c — wait-any hooks for negcount's algorithm
 * (negcount, futex2, uring). The loop and the general argument are in
 * waitany.h; negcount's invariant is in negcount.c.
 *
 * REGISTRATION IS A CLAIM  arm is negcount's own first step: a fetch_sub on
 * count. Old value positive: it took a token and holds no claim. Otherwise
 * it holds a claim on that semaphore, exactly like a sleeping waiter, and
 * sleeps on `grants` (expected 0). A wait-any waiter on N semaphores holds N
 * claims at once, and every post to any of them may resolve one of its
 * claims; claims being anonymous (negcount.c), whichever claimant takes a
 * grant owns that token, so
 *   poll    = take a grant (acquire CAS, as in timedwait): that claim is
 *             resolved and gone, and the token is ours;
 *   disarm  = leave one claim by exactly one of negcount's two exits:
 *             exit 2, remove an unresolved claim (CAS raising a negative
 *             count by one) — tried first here, because it costs no token;
 *             exit 1, take a grant — forced when count >= 0: no unresolved
 *             claim is left, so ours was resolved and a grant is published
 *             or in flight (a post between its two adds); leaving without
 *             it would strand that token in grants, so we wait for it,
 *             re-reading count every SLICE_NS (a newcomer may take that
 *             grant and leave our claim unresolved again: then exit 2). The
 *             token it yields is an extra one, which fl_wait_any posts back
 *             (a post that resolves the next claim, as any post does).
 *   The invariant "claimants = max(0, -count) + grants + in flight" holds
 *   through each step: every step removes one claimant together with one
 *   unresolved claim or one grant.
 *
 * PASSING ON ABSORBED WAKES  A post wakes k sleepers on grants; some may
 *   have been counted against this waiter (waitany.h: possibly several on
 *   one word with io_uring). After leaving, if grants = g > 0, up to g
 *   claimants may be asleep with grants they were not woken for: wake g.
 *   The load is acquire; it follows our return from the sleep that absorbed
 *   the wakes, itself after the posts' release adds of the grants, so it
 *   cannot miss such a grant unless another claimant took it (and then the
 *   sleepers that remain hold unresolved claims, which future posts wake
 *   for).
 *
 * DESTRUCTION  All of this happens while we are a claimant on the
 *   semaphore, so it is live (the caller may not destroy a semaphore with a
 *   waiter in it). */
#include <stdbool.h>

#include "lib/clock.h"
#include "lib/race.h"
#include "variants/negcount.h"
#include "variants/waitany.h"

/* How long disarm sleeps before it re-reads count (see below). */
#define SLICE_NS 100000

static bool take_grant(struct fl_negcount *s)
{
	uint32_t g = atomic_load_explicit(&s->grants, memory_order_relaxed);
	while (g > 0)
		if (atomic_compare_exchange_weak_explicit(&s->grants, &g, g - 1,
				memory_order_acquire, memory_order_relaxed))
			return true;
	return false;
}

int fl_negcount_any_arm(void *p, struct fl_waitv *slot)
{
	struct fl_negcount *s = p;
	int32_t old = atomic_fetch_sub_explicit(&s->count, 1, memory_order_acquire);
	if (old > 0)
		return 1;
	fl_race_window(); /* claim held, not yet asleep */
	*slot = (struct fl_waitv){ .addr = &s->grants, .expected = 0, .shared = s->shared };
	return 0;
}

int fl_negcount_any_poll(void *p)
{
	return take_grant(p);
}

int fl_negcount_any_disarm(void *p)
{
	struct fl_negcount *s = p;
	int took = 0;
	for (;;) {
		int32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
		if (c < 0) {
			/* exit 2: no data moves, relaxed is enough (as in negcount.c) */
			if (atomic_compare_exchange_weak_explicit(&s->count, &c, c + 1,
					memory_order_relaxed, memory_order_relaxed))
				break;
			continue;
		}
		if (take_grant(s)) { /* exit 1 */
			took = 1;
			break;
		}
		fl_race_window();
		/* Our claim was resolved and its grant is between a post's two
		 * adds: wait for it to land — in short slices, never untimed.
		 * Claims are anonymous: a newcomer may claim (count < 0 again)
		 * and take that grant when it lands, which makes OUR claim the
		 * unresolved one; then only exit 2 ends this loop, and a sleep
		 * on grants alone would not see count change (it would last
		 * until some later post — forever, if none comes). */
		struct timespec slice = fl_deadline_after_ns(SLICE_NS);
		fl_negcount_wa(s)->wait(&s->grants, 0, &slice, s->shared);
	}
	return took;
}

void fl_negcount_any_pass_on(void *p)
{
	struct fl_negcount *s = p;
	fl_race_window(); /* left, wakes not yet passed on */
	uint32_t g = atomic_load_explicit(&s->grants, memory_order_acquire);
	if (g > 0)
		fl_negcount_wa(s)->wake(&s->grants, g > INT32_MAX ? INT32_MAX : (int)g, s->shared);
}

const struct fl_any_ops fl_negcount_any = {
	.unavailable = fl_waitv_unavailable, .waitv = fl_futex_waitv,
	.arm = fl_negcount_any_arm, .poll = fl_negcount_any_poll,
	.disarm = fl_negcount_any_disarm, .pass_on = fl_negcount_any_pass_on,
};
