/* tests/mutants/glibc32.c — glibc's sem_t for machines without 64-bit
 * atomics (nptl/sem_post.c and sem_waitcommon.c, the !__HAVE_64B_ATOMICS /
 * !USE_64B_ATOMICS_ON_SEM_T branches, at glibc commit 88ed594f5d, unchanged
 * since): a test-only design, for the mutation run only (tests/mutants.md),
 * compiled only as its mutants and its control ctl_glibc32 are
 * (make-mutant: FL_MUTANT names the variant). The product has no such
 * variant: `glibc64` is the 64-bit branch, and `split` is the two-word
 * layout glibc had before 2.21, without this branch's waiters bit. It is
 * here to carry a published bug of that branch (mut_glibc32_bz18434.mut).
 *
 * THE DESIGN (struct new_sem: value, private, pad, nwaiters)
 *   `value` holds the tokens shifted left by one (SEM_VALUE_SHIFT) and, in
 *   bit 0, a conservative "waiters present" bit (SEM_NWAITERS_MASK);
 *   `nwaiters` counts registered waiters. post reads `private` first, CASes
 *   value += 1 << 1 (release), and wakes if the bit was set in the value it
 *   replaced: publishing and observing are one RMW, so, like glibc64, it
 *   never touches the semaphore after publishing (the 2.21 fix of BZ 12674
 *   for these machines). A waiter registers in nwaiters (acquire), sets the
 *   bit with a release CAS, sleeps on value expecting exactly "0 tokens,
 *   bit set", and takes a token with an acquire CAS. On leaving (with a
 *   token, a timeout or EINTR) it clears the bit if it guessed it was the
 *   last waiter (nwaiters == 1) before decrementing nwaiters (release); if
 *   the decrement shows it guessed wrong, it sets the bit again and wakes as
 *   many waiters as there are tokens — a misspeculation cleaned up by the
 *   waiter, never by post. The orderings and their argument are glibc's
 *   (sem_waitcommon.c, quoted in short beside each).
 *
 * WHERE THIS COPY DIFFERS FROM glibc  post(n) adds n << 1 and wakes n
 *   (glibc's post adds one and wakes one); the overflow test for n is
 *   (value >> 1) > SEM_VALUE_MAX - n, glibc's == SEM_VALUE_MAX for n = 1.
 *   Deadlines are CLOCK_MONOTONIC; no cancellation (__sem_wait_32_finish,
 *   glibc's cleanup handler, runs on every exit); EINVAL for a bad deadline
 *   only once no token is available (variant.h), after registering. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/futex.h"
#include "lib/race.h"
#include "lib/wake.h"
#include "variants/variant.h"

#define G32_MAX    INT32_MAX   /* SEM_VALUE_MAX */
#define G32_SHIFT  1           /* SEM_VALUE_SHIFT */
#define G32_NWBIT  1u          /* SEM_NWAITERS_MASK */

struct mg32 {
	_Atomic uint32_t value;
	int shared;             /* private */
	int pad;
	_Atomic uint32_t nwaiters;
};

static int m32_init(void *p, unsigned value, int pshared)
{
	struct mg32 *s = p;
	if (value > G32_MAX)
		return EINVAL;
	atomic_init(&s->value, value << G32_SHIFT);
	atomic_init(&s->nwaiters, 0);
	s->shared = pshared != 0;
	s->pad = 0;
	return 0;
}

static void m32_destroy(void *p)
{
	(void)p;
}

static int m32_post(void *p, unsigned n)
{
	struct mg32 *s = p;
	bool shared = s->shared; /* int private = isem->private; before the CAS */
	if (n > G32_MAX)
		return EOVERFLOW;
	uint32_t v = atomic_load_explicit(&s->value, memory_order_relaxed);
	do {
		if ((v >> G32_SHIFT) > G32_MAX - n)
			return EOVERFLOW;
		/* release: a taker of the token synchronizes with us */
	} while (!atomic_compare_exchange_weak_explicit(&s->value, &v, v + (n << G32_SHIFT),
			memory_order_release, memory_order_relaxed));
	/* "If there is any potentially blocked waiter, wake one of them." The
	 * bit was read by the CAS itself: no access to s after publishing. */
	if (v & G32_NWBIT) {
		fl_race_window(); /* token published; a waiter may take it and free s */
		fl_notify(&s->value, (int)n, shared);
	}
	return 0;
}

static int m32_trywait(void *p)
{
	struct mg32 *s = p;
	/* __new_sem_wait_fast(sem, 1): relaxed load, acquire CAS */
	uint32_t v = atomic_load_explicit(&s->value, memory_order_relaxed);
	while ((v >> G32_SHIFT) != 0)
		if (atomic_compare_exchange_weak_explicit(&s->value, &v, v - (1u << G32_SHIFT),
				memory_order_acquire, memory_order_relaxed))
			return 0;
	return EAGAIN;
}

/* __sem_wait_32_finish: stop being a registered waiter. */
static void m32_finish(struct mg32 *s)
{
	/* speculate: if we look like the last waiter, clear the bit before
	 * leaving (acquire: pairs with the release CAS that set it) */
	uint32_t wguess = atomic_load_explicit(&s->nwaiters, memory_order_relaxed);
	if (wguess == 1)
		atomic_fetch_and_explicit(&s->value, ~G32_NWBIT, memory_order_acquire);
	fl_race_window(); /* bit cleared, still counted: a newcomer may miss it */
	/* release: newer waiters that increment nwaiters see the clearing */
	uint32_t wfinal = atomic_fetch_sub_explicit(&s->nwaiters, 1, memory_order_release);
	if (wfinal > 1 && wguess == 1) {
		/* misspeculated: set the bit again, wake as many as there are
		 * tokens (later posts wake through the bit) */
		uint32_t v = atomic_fetch_or_explicit(&s->value, G32_NWBIT, memory_order_relaxed);
		v >>= G32_SHIFT;
		if (v > 0)
			fl_notify(&s->value, (int)v, s->shared);
	}
}

static int m32_timedwait(void *p, const struct timespec *dl)
{
	struct mg32 *s = p;
	if (m32_trywait(s) == 0)
		return 0;
	/* acquire: if another waiter cleared the bit before us, we see it */
	atomic_fetch_add_explicit(&s->nwaiters, 1, memory_order_acquire);
	uint32_t v = atomic_load_explicit(&s->value, memory_order_relaxed);
	int err = 0;
	do {
		do {
			/* about to block: make sure the bit is set (release: a
			 * waiter that clears it sees our registration) */
			while (!(v & G32_NWBIT) &&
			       !atomic_compare_exchange_weak_explicit(&s->value, &v, v | G32_NWBIT,
					memory_order_release, memory_order_relaxed))
				;
			if ((v >> G32_SHIFT) == 0) {
				fl_race_window(); /* registered, bit set, not asleep */
				err = fl_futex_wait(&s->value, G32_NWBIT, dl, s->shared);
				if (err == ETIMEDOUT || err == EINTR || err == EINVAL)
					goto error;
				err = 0;
				v = atomic_load_explicit(&s->value, memory_order_relaxed);
			}
		} while ((v >> G32_SHIFT) == 0);
		/* acquire: synchronizes with the token's provider */
	} while (!atomic_compare_exchange_weak_explicit(&s->value, &v, v - (1u << G32_SHIFT),
			memory_order_acquire, memory_order_relaxed));
error:
	m32_finish(s);
	return err;
}

static int m32_wait(void *p)
{
	return m32_timedwait(p, NULL);
}

static int m32_getvalue(void *p)
{
	return (int)(atomic_load_explicit(&((struct mg32 *)p)->value, memory_order_relaxed) >>
		     G32_SHIFT);
}

static int m32_words(void *p, _Atomic uint32_t **out, int max)
{
	if (max < 1)
		return 0;
	out[0] = &((struct mg32 *)p)->value;
	return 1;
}

FL_VARIANT(glibc32, struct mg32,
	.summary = "glibc's sem_t without 64-bit atomics: value << 1 | waiters bit (tests/mutants, test-only)",
	.value_max = G32_MAX,
	.init = m32_init, .destroy = m32_destroy, .post = m32_post, .wait = m32_wait,
	.trywait = m32_trywait, .timedwait = m32_timedwait, .getvalue = m32_getvalue,
	.words = m32_words);
