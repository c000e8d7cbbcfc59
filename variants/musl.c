/* variants/musl.c — the two-word design of the musl thread (musl's
 * mailing list, 2015; variants/README.md, "Where the designs come from").
 *
 * INVARIANT
 *   val[0] (`val0`, signed) is the main count. Positive: tokens. Negative:
 *   claims — a thread that found no token decremented it anyway and left
 *   its decrement there as a claim that a post must resolve.
 *   val[1] (`val1`, never negative) counts pending wakes: units a post has
 *   moved out of val0 for claimants (and, at the top of the range, spare
 *   tokens, see OVERFLOW). Claimants sleep on val1 and leave by taking one
 *   unit from it. Units are anonymous: whoever takes one owns that token.
 *
 *   Post-stealing: a new waiter decrements val0 (a claim) and then takes a
 *   pending unit from val1 before it ever sleeps, so a wake meant for an
 *   older sleeper can be taken by a newcomer; the sleeper keeps an
 *   equivalent claim (its claim is still in val0 or a later post resolves
 *   it). Claims without a thread behind them ("phantom" claims, left by a
 *   thread that took a unit it had not been granted) are harmless: a post
 *   that resolves one moves its token to val1, where anybody can take it.
 *
 *   The observable value is max(0, val0) + val1 — every unit in val1 is
 *   takeable by trywait — so getvalue equals the number of trywaits that
 *   succeed in a row with nothing concurrent (the musl thread, Monakov's rule):
 *   trywait takes from val0 while it is positive, then steals pending units
 *   exactly as a new waiter does (claim, take a unit). With R the threads
 *   holding a claim, N = max(0, -val0) and P the units a post has resolved
 *   but not yet added to val1, every step keeps  R <= N + val1 + P.
 *
 * OVERFLOW (the musl thread's halves)  val0 never exceeds VAL0_MAX = 2^30. A post
 *   that would push it further puts the excess into val1 as spare units, up
 *   to VAL1_MAX = 2^30 - 1, with a checked CAS; past that it fails with
 *   EOVERFLOW before changing anything. So the observable value reaches
 *   VAL0_MAX + VAL1_MAX = SEM_VALUE_MAX = INT32_MAX (value_max) and the next
 *   post(1) is EOVERFLOW with the value unchanged. Posts that resolve claims
 *   add to val1 unchecked (the seed's overshoot): val1 can exceed VAL1_MAX
 *   by at most the number of claims, which are bounded by the threads
 *   (plus phantom claims, bounded by the spare units they consumed), far
 *   below the 2^31 headroom; getvalue computes the sum in 64 bits and
 *   clamps. Known limit: a post(n > 1) that straddles VAL0_MAX places its
 *   spare units first; if a concurrent post raises val0 in between and val1
 *   is then full, it reports EOVERFLOW after placing part of its tokens
 *   (post(1), and any post without a concurrent post at the very top, is
 *   all-or-nothing). glibc's post(n) has the same caveat.
 *
 * TIMEOUT / EINTR (the negative-counter note's two exits): a claimant that
 *   gives up takes a pending unit (success: it was granted, or steals one — a
 *   token that is there is taken) or removes a claim with a CAS while val0 < 0
 *   (it reports the timeout), never both. If val0 >= 0 there is no claim left
 *   to remove: ours was resolved by a post still between its two adds, so it
 *   waits for that unit (R <= N + val1 + P with N = 0). trywait, which must not
 *   sleep, yields in that window instead of sleeping on val1.
 *
 * ORDERING  Each decision reads one word (val0 for claims, val1 for units;
 *   the kernel compares val1), so no store-buffer pair needs seq_cst. A post
 *   publishes with release (val0 CAS, val1 add) and a taker acquires (val0
 *   decrement, val1 CAS), so the poster's writes travel with the token
 *   whichever word carried it. Claim removal transfers no data: relaxed.
 *
 * DESTRUCTION  A post that resolves claims touches val1 after publishing in
 *   val0, but the token it resolved can only be taken from val1 after that
 *   add, which is the post's last access: `shared` is read just before it
 *   (the claimants it resolved are still blocked: they leave only with a
 *   unit, or, having none, wait for it), and the wake only names the address (a private wake hashes it; a
 *   shared one on a page already unmapped fails with EFAULT, reported as
 *   nobody woken). The straddling post(n) above is the exception: its val0
 *   CAS follows the spare units it made takeable — it needs a value near
 *   2^30, and is documented rather than fixed.
 *
 * WAITING  No spin here: what a waiter does before it claims is the
 *   process's waiting policy (variants/policy.h), whose fl_wait re-tries
 *   mu_trywait before it calls mu_timedwait. A re-trier holds no claim
 *   once its trywait returned (policy.h, CORRECTNESS), so a post meanwhile
 *   owes it nothing and rightly skips the wake; once it gives up, the
 *   fetch_sub in mu_timedwait sees every token posted until then. What
 *   changed with the move: the design's own spin (as musl's) stopped while
 *   claimants waited (val0 < 0) or a wake was pending (val1 > 0); a trywait
 *   loop cannot see that, so under a spin policy a re-trier behind
 *   claimants spends its tries failing (two loads each), and one that finds
 *   a pending unit steals it as any trywait may (the thread above: the
 *   sleeper it was meant for finds none and sleeps again, a futile wake) —
 *   CPU and wakes, never a token. */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/clock.h"
#include "lib/futex.h"
#include "lib/race.h"
#include "lib/wake.h"
#include "variants/policy.h"
#include "variants/variant.h"

#define MUSL_MAX INT32_MAX                  /* SEM_VALUE_MAX */
#define VAL0_MAX ((int32_t)(MUSL_MAX / 2) + 1) /* 2^30 */
#define VAL1_MAX ((uint32_t)(MUSL_MAX / 2))    /* 2^30 - 1 */

struct musl {
	_Atomic int32_t val0;
	_Atomic uint32_t val1;
	int shared;
};

static int mu_init(void *p, unsigned value, int pshared)
{
	struct musl *s = p;
	if (value > MUSL_MAX)
		return EINVAL;
	int32_t v0 = value > (unsigned)VAL0_MAX ? VAL0_MAX : (int32_t)value;
	atomic_init(&s->val0, v0);
	atomic_init(&s->val1, value - (uint32_t)v0);
	s->shared = pshared != 0;
	return 0;
}

static void mu_destroy(void *p)
{
	(void)p;
}

/* Spare tokens beyond VAL0_MAX go to val1, checked against VAL1_MAX. */
static bool add_spare(struct musl *s, uint32_t spare)
{
	uint32_t v1 = atomic_load_explicit(&s->val1, memory_order_relaxed);
	do {
		if ((uint64_t)v1 + spare > VAL1_MAX)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&s->val1, &v1, v1 + spare,
			memory_order_release, memory_order_relaxed));
	return true;
}

static int mu_post(void *p, unsigned n)
{
	struct musl *s = p;
	if (n > MUSL_MAX)
		return EOVERFLOW;
	int32_t v0 = atomic_load_explicit(&s->val0, memory_order_relaxed);
	for (;;) {
		int64_t room = (int64_t)VAL0_MAX - v0;
		if ((int64_t)n <= room) {
			if (atomic_compare_exchange_weak_explicit(&s->val0, &v0, v0 + (int32_t)n,
					memory_order_release, memory_order_relaxed))
				break;
			continue;
		}
		if (!add_spare(s, (uint32_t)(n - room)))
			return EOVERFLOW;
		n = (unsigned)room;
		if (n == 0)
			return 0;
		v0 = atomic_load_explicit(&s->val0, memory_order_relaxed);
	}
	if (v0 < 0) {
		int k = (int)(-(int64_t)v0 < n ? -(int64_t)v0 : n); /* claims resolved */
		fl_race_window(); /* claims resolved in val0, units not yet in val1 */
		/* Read before the units: after them s may be freed (DESTRUCTION);
		 * until then the claimants it resolved are still blocked. */
		bool shared = s->shared;
		_Atomic uint32_t *word = &s->val1;
		atomic_fetch_add_explicit(word, (uint32_t)k, memory_order_release);
		fl_race_window(); /* units published: the last claimant may free s now */
		fl_notify(word, k, shared);
	}
	return 0;
}

static bool take_unit(struct musl *s)
{
	uint32_t v1 = atomic_load_explicit(&s->val1, memory_order_relaxed);
	while (v1 > 0)
		if (atomic_compare_exchange_weak_explicit(&s->val1, &v1, v1 - 1,
				memory_order_acquire, memory_order_relaxed))
			return true;
	return false;
}

/* A claimant gives up: exit 1 takes a unit, exit 2 removes a claim. */
static int leave(struct musl *s, int why, bool may_sleep)
{
	for (;;) {
		if (take_unit(s))
			return 0;
		fl_race_window(); /* no unit seen; deciding on val0 */
		int32_t c = atomic_load_explicit(&s->val0, memory_order_relaxed);
		if (c < 0) {
			if (atomic_compare_exchange_weak_explicit(&s->val0, &c, c + 1,
					memory_order_relaxed, memory_order_relaxed))
				return why;
			continue;
		}
		/* No claim left: ours was resolved, its unit is in flight. Wait
		 * in 100 us slices, re-reading val0: a newcomer may claim and
		 * steal that unit, making ours the unresolved claim again (then
		 * the CAS above removes it); an untimed sleep could outlive the
		 * deadline for as long as no further post comes. */
		struct timespec slice = fl_deadline_after_ns(100000);
		if (may_sleep)
			fl_futex_wait(&s->val1, 0, &slice, s->shared);
		else
			sched_yield();
	}
}

static bool take_val0(struct musl *s)
{
	int32_t v0 = atomic_load_explicit(&s->val0, memory_order_relaxed);
	while (v0 > 0)
		if (atomic_compare_exchange_weak_explicit(&s->val0, &v0, v0 - 1,
				memory_order_acquire, memory_order_relaxed))
			return true;
	return false;
}

static int mu_trywait(void *p)
{
	struct musl *s = p;
	if (take_val0(s))
		return 0;
	if (atomic_load_explicit(&s->val1, memory_order_relaxed) == 0)
		return EAGAIN;
	/* val0 <= 0 but units are pending: steal one as a new waiter does. */
	if (atomic_fetch_sub_explicit(&s->val0, 1, memory_order_acquire) > 0)
		return 0;
	fl_race_window(); /* trywait holds a claim */
	if (take_unit(s))
		return 0;
	return leave(s, EAGAIN, false);
}

/* mu_timedwait after its first take found none (FL_SLOW_PATH). */
FL_SLOW_PATH static int mu_timedwait_slow(struct musl *s, const struct timespec *dl)
{
	if (atomic_fetch_sub_explicit(&s->val0, 1, memory_order_acquire) > 0)
		return 0;
	fl_race_window(); /* we hold a claim, have not looked at val1 yet */
	for (;;) {
		if (take_unit(s))
			return 0; /* granted, or a pending unit stolen */
		int r = fl_futex_wait(&s->val1, 0, dl, s->shared);
		if (r == ETIMEDOUT || r == EINTR || r == EINVAL)
			return leave(s, r, true);
	}
}

static int mu_timedwait(void *p, const struct timespec *dl)
{
	if (take_val0(p))
		return 0;
	return mu_timedwait_slow(p, dl);
}

static int mu_wait(void *p)
{
	return mu_timedwait(p, NULL);
}

static int mu_getvalue(void *p)
{
	struct musl *s = p;
	int64_t v0 = atomic_load_explicit(&s->val0, memory_order_relaxed);
	int64_t v = (v0 > 0 ? v0 : 0) + atomic_load_explicit(&s->val1, memory_order_relaxed);
	return v > MUSL_MAX ? MUSL_MAX : (int)v;
}

static int mu_words(void *p, _Atomic uint32_t **out, int max)
{
	if (max < 1)
		return 0;
	out[0] = &((struct musl *)p)->val1;
	return 1;
}

FL_PAIRS(mu_pairs, mu_post, mu_wait, mu_trywait)

FL_VARIANT(musl, struct musl,
	.text = "src:musl.c,policy.c;sym:fl_futex_,fl_notify,fl_wait,fl_timedwait;dsym:libc.so.6:syscall", /* hunt: its code (variant.h) */
	.summary = "musl's 2015 redesign: val0 goes negative for waiters, val1 counts pending wakes, post-stealing",
	.value_max = MUSL_MAX,
	.init = mu_init, .destroy = mu_destroy, .post = mu_post, .wait = mu_wait,
	.trywait = mu_trywait, .timedwait = mu_timedwait, .getvalue = mu_getvalue,
	.words = mu_words,
	.pairs = mu_pairs);
