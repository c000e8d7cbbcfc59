/* tests/mutants/base_negcount.h — a copy of variants/negcount.c (the
 * negative-counter note) with mutation points, for the mutation run only (never
 * in the product).
 *
 * Compiled once per mutant: the including file defines MUT_NAME (the
 * variant's name in the mutant registry) and at most one MUT_* switch.
 * With no switch it is the control: the design as in variants/negcount.c
 * (same invariant, same orderings, same race windows; the argument is in
 * that file), which must pass everything the mutants fail.
 *
 *   MUT_LOST_TOKEN  a timed-out waiter that finds no unresolved claim
 *                   (count >= 0: a racing post resolved it) reports the
 *                   timeout instead of waiting for its grant: the
 *                   negative-counter note's lost token (the grant is stranded,
 *                   the value reads 0).
 *   MUT_WAKE_FIRST  post wakes before it publishes the grant: the woken
 *                   claimant finds grants == 0 and sleeps again, and the
 *                   grant that lands after it is never announced (the
 *                   window between the two a sure 2 ms: every such post).
 *   MUT_WAKE_ONE    post wakes one sleeper whatever the number of claims
 *                   it resolved: k-1 owners of a grant sleep on.
 *   MUT_NO_LOOP     a wait that returns success after any wakeup, without
 *                   re-checking (taking) a grant: spurious wakes and EINTR
 *                   become tokens.
 *   MUT_EINTR_CLAIM a wait interrupted by a signal returns EINTR but leaves
 *                   its claim in count: the next post is swallowed.
 *   MUT_NO_CLAMP    no overflow check: post past the maximum wraps into
 *                   phantom claims.
 *
 * No spin: as variants/negcount.c, the re-tries before a wait are the
 * waiting policy's (variants/policy.h), whose mutants (mut_policy_*.c,
 * tests/mutants.md) run over this copy unmutated.
 *
 * PRIVATE_ONLY (a control) refuses process-shared semaphores (ENOTSUP), as a
 * design whose waiters live outside the sem_t must: the shim test checks
 * that the LD_PRELOAD shim hands those to glibc.
 *
 * CAPPED (not a mutation: a control) builds the negative-counter note's capped
 * semaphore (FL_CAPPED), with capacity 2: post clamps the count at the capacity
 * with a CAS loop, so the suites are known to handle capped designs too. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/futex.h"
#include "lib/race.h"
#include "tests/mutants/mutant.h"
#include "lib/wake.h"

#ifdef CAPPED
#define NEG_MAX   2 /* (not 1: conformance.c's trywait test starts at 2) */
#define MN_FLAGS  FL_CAPPED
#else
#define NEG_MAX   ((1 << 29) - 1)
#define MN_FLAGS  0
#endif
#define NEG_LIMIT (2 * NEG_MAX)

struct mneg {
	_Atomic int32_t count;
	_Atomic uint32_t grants;
	int shared;
};

static int mn_init(void *p, unsigned value, int pshared)
{
	struct mneg *s = p;
	if (value > NEG_MAX)
		return EINVAL;
#ifdef PRIVATE_ONLY
	if (pshared)
		return ENOTSUP;
#endif
	atomic_init(&s->count, (int32_t)value);
	atomic_init(&s->grants, 0);
	s->shared = pshared != 0;
	return 0;
}

static void mn_destroy(void *p)
{
	(void)p;
}

static int mn_post(void *p, unsigned n)
{
	struct mneg *s = p;
	/* Everything the post needs after its RMW is read before it: the
	 * waiter a grant releases may destroy and unmap s at once (variant.h,
	 * edge's destruction test). */
	bool shared = s->shared;
#ifndef CAPPED
	if (n > NEG_MAX)
		return EOVERFLOW;
#else
	/* clamp at the capacity: an over-release adds nothing */
	int32_t old = atomic_load_explicit(&s->count, memory_order_relaxed), nw;
	do {
		if (old >= NEG_MAX)
			return 0;
		nw = (int64_t)old + n > NEG_MAX ? NEG_MAX : old + (int32_t)n;
	} while (!atomic_compare_exchange_weak_explicit(&s->count, &old, nw,
			memory_order_release, memory_order_relaxed));
#endif
#ifndef CAPPED
	int32_t old = atomic_fetch_add_explicit(&s->count, (int32_t)n, memory_order_release);
#endif
#if !defined(MUT_NO_CLAMP) && !defined(CAPPED)
	if (old > NEG_LIMIT - (int32_t)n) {
		atomic_fetch_sub_explicit(&s->count, (int32_t)n, memory_order_relaxed);
		return EOVERFLOW;
	}
#endif
	if (old < 0) {
		int k = (int)(-(int64_t)old < n ? -(int64_t)old : n);
#ifdef MUT_WAKE_ONE
		int wake = 1;
#else
		int wake = k;
#endif
		fl_race_window();
#ifdef MUT_WAKE_FIRST
		fl_notify(&s->grants, wake, shared);
		/* A sure window, not a random one (as in base_split.h): the
		 * woken claimant finds grants == 0 and sleeps again before the
		 * grant lands, so the first post to a sleeper loses its wake. */
		nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
		atomic_fetch_add_explicit(&s->grants, (uint32_t)k, memory_order_release);
#else
		atomic_fetch_add_explicit(&s->grants, (uint32_t)k, memory_order_release);
		fl_race_window(); /* published: the claimant may take it, return, unmap s */
		fl_notify(&s->grants, wake, shared);
#endif
	}
	return 0;
}

static int mn_trywait(void *p)
{
	struct mneg *s = p;
	int32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
	while (c > 0)
		if (atomic_compare_exchange_weak_explicit(&s->count, &c, c - 1,
				memory_order_acquire, memory_order_relaxed))
			return 0;
	return EAGAIN;
}

static bool mn_take_grant(struct mneg *s)
{
	uint32_t g = atomic_load_explicit(&s->grants, memory_order_relaxed);
	while (g > 0)
		if (atomic_compare_exchange_weak_explicit(&s->grants, &g, g - 1,
				memory_order_acquire, memory_order_relaxed))
			return true;
	return false;
}

static int mn_abandon(struct mneg *s, int why)
{
	for (;;) {
		if (mn_take_grant(s))
			return 0;
		fl_race_window();
		int32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
		if (c < 0) {
			if (atomic_compare_exchange_weak_explicit(&s->count, &c, c + 1,
					memory_order_relaxed, memory_order_relaxed))
				return why;
			continue;
		}
#ifdef MUT_LOST_TOKEN
		return why;
#else
		/* As variants/negcount.c: wait for the grant in short slices and
		 * re-read count each time. A newcomer may claim and take our
		 * grant (the claims swap: ours is then the unresolved one, and
		 * exit 2 removes it); an untimed sleep here would miss the wake
		 * that went before it and sleep until a post that never comes. */
		struct timespec slice = fl_deadline_after_ns(100000);
		fl_futex_wait(&s->grants, 0, &slice, s->shared);
#endif
	}
}

static int mn_timedwait(void *p, const struct timespec *dl)
{
	struct mneg *s = p;
	int32_t old = atomic_fetch_sub_explicit(&s->count, 1, memory_order_acquire);
	if (old > 0)
		return 0;
	fl_race_window();
	for (;;) {
		if (mn_take_grant(s))
			return 0;
		int r = fl_futex_wait(&s->grants, 0, dl, s->shared);
#ifdef MUT_NO_LOOP
		if (r == 0 || r == EINTR)
			return 0;
#endif
#ifdef MUT_EINTR_CLAIM
		if (r == EINTR)
			return EINTR;
#endif
		if (r == ETIMEDOUT || r == EINTR || r == EINVAL)
			return mn_abandon(s, r);
	}
}

static int mn_wait(void *p)
{
	return mn_timedwait(p, NULL);
}

static int mn_getvalue(void *p)
{
	int32_t c = atomic_load_explicit(&((struct mneg *)p)->count, memory_order_relaxed);
	return c > 0 ? c : 0;
}

static int mn_words(void *p, _Atomic uint32_t **out, int max)
{
	if (max < 1)
		return 0;
	out[0] = &((struct mneg *)p)->grants;
	return 1;
}

MUT_VARIANT(MUT_NAME, struct mneg,
	.summary = "mutant of negcount (tests/mutants)",
	.value_max = NEG_MAX, .flags = MN_FLAGS,
	.init = mn_init, .destroy = mn_destroy, .post = mn_post, .wait = mn_wait,
	.trywait = mn_trywait, .timedwait = mn_timedwait, .getvalue = mn_getvalue,
	.words = mn_words);
