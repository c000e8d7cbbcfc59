/* tests/mutants/base_musl.h — a small musl-like semaphore (the musl thread), for
 * the mutation run only; the product has no musl variant on this branch.
 *
 * INVARIANT
 *   val0: tokens when positive; when negative, -val0 claims of waiters that
 *   posts must still resolve (as negcount's count). val1: pending wakes — a
 *   post that resolves k claims adds k here and wakes k sleepers, who sleep
 *   on this word. Claims and wakes are anonymous: any claimant may consume
 *   any pending wake. Unlike negcount, a pending wake is not reserved: a
 *   waiter that times out after a post resolved its claim leaves at once
 *   with ETIMEDOUT, and the wake it leaves behind stays in val1 as a token
 *   anyone may take — trywait steals it ("post-stealing"): it takes a claim
 *   (val0 -= 1) and consumes a pending wake, so the claim it leaves in val0
 *   is the replacement for the one whose wake it took, and a post resolves
 *   it later. Hence, as the seed concludes,
 *       getvalue = max(0, val0) + val1,
 *   the number of trywaits that would succeed.
 *
 * ORDERING  as negcount: the val0 add is release and the claim's subtract
 *   acquire; a wake is added with release and consumed with an acquire CAS.
 *   Sleepers sleep on val1 alone (compared by the kernel), so no decision
 *   depends on two words being seen in order.
 *
 *   MUT_GETVALUE    getvalue ignores pending wakes: max(0, val0). A wake
 *                   left behind by a timed-out waiter is a token trywait
 *                   takes but getvalue does not report. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/futex.h"
#include "tests/mutants/mutant.h"
#include "lib/race.h"
#include "lib/wake.h"

#define MUSL_MAX ((1 << 29) - 1)

struct mmusl {
	_Atomic int32_t val0;
	_Atomic uint32_t val1;
	int shared;
};

static int mm_init(void *p, unsigned value, int pshared)
{
	struct mmusl *s = p;
	if (value > MUSL_MAX)
		return EINVAL;
	atomic_init(&s->val0, (int32_t)value);
	atomic_init(&s->val1, 0);
	s->shared = pshared != 0;
	return 0;
}

static void mm_destroy(void *p)
{
	(void)p;
}

static int mm_post(void *p, unsigned n)
{
	struct mmusl *s = p;
	bool shared = s->shared; /* read before publishing: s may go right after */
	int32_t c = atomic_load_explicit(&s->val0, memory_order_relaxed);
	do {
		int64_t value = (c > 0 ? c : 0) +
			(int64_t)atomic_load_explicit(&s->val1, memory_order_relaxed);
		if (n > MUSL_MAX || value > MUSL_MAX - (int64_t)n)
			return EOVERFLOW;
	} while (!atomic_compare_exchange_weak_explicit(&s->val0, &c, c + (int32_t)n,
			memory_order_release, memory_order_relaxed));
	if (c < 0) {
		int k = (int)(-(int64_t)c < n ? -(int64_t)c : n);
		fl_race_window();
		atomic_fetch_add_explicit(&s->val1, (uint32_t)k, memory_order_release);
		fl_race_window(); /* published: a claimant may take it and unmap s */
		fl_notify(&s->val1, k, shared);
	}
	return 0;
}

static bool mm_take_wake(struct mmusl *s)
{
	uint32_t g = atomic_load_explicit(&s->val1, memory_order_relaxed);
	while (g > 0)
		if (atomic_compare_exchange_weak_explicit(&s->val1, &g, g - 1,
				memory_order_acquire, memory_order_relaxed))
			return true;
	return false;
}

/* A claimant leaves without sleeping further: a pending wake if there is
 * one, else its claim back, else (its claim was resolved and the wake is
 * on its way) it leaves the wake to whoever comes next. */
static int mm_leave(struct mmusl *s, int why)
{
	for (;;) {
		if (mm_take_wake(s))
			return 0;
		fl_race_window();
		int32_t c = atomic_load_explicit(&s->val0, memory_order_relaxed);
		if (c >= 0)
			return why;
		if (atomic_compare_exchange_weak_explicit(&s->val0, &c, c + 1,
				memory_order_relaxed, memory_order_relaxed))
			return why;
	}
}

static int mm_trywait(void *p)
{
	struct mmusl *s = p;
	int32_t c = atomic_load_explicit(&s->val0, memory_order_relaxed);
	while (c > 0)
		if (atomic_compare_exchange_weak_explicit(&s->val0, &c, c - 1,
				memory_order_acquire, memory_order_relaxed))
			return 0;
	if (atomic_load_explicit(&s->val1, memory_order_relaxed) == 0)
		return EAGAIN;
	/* Post-stealing: claim, then consume a pending wake (or give up). */
	if (atomic_fetch_sub_explicit(&s->val0, 1, memory_order_acquire) > 0)
		return 0;
	return mm_leave(s, EAGAIN);
}

static int mm_timedwait(void *p, const struct timespec *dl)
{
	struct mmusl *s = p;
	if (atomic_fetch_sub_explicit(&s->val0, 1, memory_order_acquire) > 0)
		return 0;
	fl_race_window();
	for (;;) {
		if (mm_take_wake(s))
			return 0;
		int r = fl_futex_wait(&s->val1, 0, dl, s->shared);
		if (r == ETIMEDOUT || r == EINTR || r == EINVAL)
			return mm_leave(s, r);
	}
}

static int mm_wait(void *p)
{
	return mm_timedwait(p, NULL);
}

static int mm_getvalue(void *p)
{
	struct mmusl *s = p;
	int32_t c = atomic_load_explicit(&s->val0, memory_order_relaxed);
#ifdef MUT_GETVALUE
	return c > 0 ? c : 0;
#else
	return (c > 0 ? c : 0) + (int)atomic_load_explicit(&s->val1, memory_order_relaxed);
#endif
}

static int mm_words(void *p, _Atomic uint32_t **out, int max)
{
	if (max < 1)
		return 0;
	out[0] = &((struct mmusl *)p)->val1;
	return 1;
}

MUT_VARIANT(MUT_NAME, struct mmusl,
	.summary = "musl-like semaphore, val0/val1 with post-stealing (tests/mutants)",
	.value_max = MUSL_MAX,
	.init = mm_init, .destroy = mm_destroy, .post = mm_post, .wait = mm_wait,
	.trywait = mm_trywait, .timedwait = mm_timedwait, .getvalue = mm_getvalue,
	.words = mm_words);
