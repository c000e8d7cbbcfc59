/* tests/mutants/musl125.c — musl's own semaphore, transcribed from musl
 * 1.2.5+ (src/thread/sem_post.c, sem_timedwait.c, sem_trywait.c,
 * sem_getvalue.c after commit 882aedf6, Aug 2024): a test-only design, for
 * the mutation run only (tests/mutants.md), compiled only as its mutants and
 * its control ctl_musl_libc are (make-mutant: FL_MUTANT names the variant).
 * Its mutants (mut_musl_aba.mut, mut_musl_wake_bit.mut) restore the two
 * published bugs fixed on the way there. It is not the product's `musl`
 * variant, which is the musl thread's redesign (val0 goes negative with
 * claims, val1 counts pending wakes) and cannot carry these bugs — see
 * tests/mutants.md; nor `musl-libc`, Debian's musl library itself, run in a
 * helper process.
 *
 * THE DESIGN (musl's __val[0..2] = val, waiters, priv)
 *   val: the token count in bits 0..30; bit 31 is a sticky "waiters
 *   present" bit. A waiter increments `waiters`, sets the bit if val is 0
 *   (CAS 0 -> 0x80000000) and sleeps on val expecting exactly 0x80000000;
 *   after the sleep, its cleanup decrements `waiters` and it retries
 *   trywait. trywait takes a token with a CAS that keeps the bit. post
 *   samples val and waiters, CASes val -> val + 1 and, when it saw at most
 *   one waiter, clears the bit in the same CAS; it wakes if the bit was set
 *   or the sampled waiters was nonzero: one waiter when it saw more than
 *   one (the bit stays), all of them when it cleared the bit — a waiter the
 *   stale count missed wakes and sets the bit again if it still needs it.
 *   post reads priv before its CAS; after the CAS its only act is the wake
 *   on the address (destruction-safe, like glibc64).
 *
 * WHERE THIS COPY DIFFERS FROM musl
 *   post(n) for n >= 1 (musl posts one token): the CAS adds n, overflow is
 *   (val & SEM_VALUE_MAX) > SEM_VALUE_MAX - n, and the targeted wake wakes
 *   n instead of 1. Deadlines are CLOCK_MONOTONIC (variant.h), not
 *   CLOCK_REALTIME; no cancellation (the cleanup runs inline, as
 *   pthread_cleanup_pop(1) does); EINTR is always reported (musl suppresses
 *   it when no interrupting handler was ever installed). musl's 100 spins
 *   before waiting are here as in musl (ML_SPINS): its own waiting policy,
 *   which futexlab's (variants/policy.h) leaves to the shipped libraries.
 *   musl's
 *   atomics are full barriers and its plain loads volatile: seq_cst RMWs,
 *   seq_cst loads of `waiters`. Race windows (lib/race.h) mark where the
 *   bugs live: between post's sample and its CAS, and between its CAS and
 *   its wake.
 * */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/cpu.h"
#include "lib/futex.h"
#include "lib/race.h"
#include "lib/wake.h"
#include "variants/variant.h"

#define ML_MAX INT32_MAX                 /* SEM_VALUE_MAX */
#define ML_BIT 0x80000000u               /* waiters present */
#define ML_SPINS 100                     /* sem_timedwait.c: int spins=100 */
#define ML_SLEEP_ON ML_BIT               /* the value a waiter sleeps on */

struct mlibc {
	_Atomic uint32_t val;    /* __val[0] */
	_Atomic int32_t waiters; /* __val[1] */
	int shared;              /* __val[2] (priv) */
};

static int ml_init(void *p, unsigned value, int pshared)
{
	struct mlibc *s = p;
	if (value > ML_MAX)
		return EINVAL;
	atomic_init(&s->val, value);
	atomic_init(&s->waiters, 0);
	s->shared = pshared != 0;
	return 0;
}

static void ml_destroy(void *p)
{
	(void)p;
}

static int ml_post(void *p, unsigned n)
{
	struct mlibc *s = p;
	bool shared = s->shared; /* priv = sem->__val[2], before the CAS */
	if (n > ML_MAX)
		return EOVERFLOW;
	uint32_t val = atomic_load_explicit(&s->val, memory_order_relaxed), nv;
	int32_t waiters;
	do {
		waiters = atomic_load_explicit(&s->waiters, memory_order_seq_cst);
		fl_race_window(); /* sampled, not yet CASed: the ABA window */
		if ((int32_t)(val & ML_MAX) > ML_MAX - (int32_t)n)
			return EOVERFLOW;
		nv = val + n;
		if (waiters <= 1)
			nv &= ~ML_BIT;
	} while (!atomic_compare_exchange_weak_explicit(&s->val, &val, nv,
			memory_order_seq_cst, memory_order_relaxed));
	fl_race_window(); /* published (bit maybe cleared), wake not yet issued */
	if ((int32_t)val < 0 || waiters)
		fl_notify(&s->val, waiters > 1 ? (int)n : INT_MAX, shared);
	return 0;
}

static int ml_trywait(void *p)
{
	struct mlibc *s = p;
	uint32_t val = atomic_load_explicit(&s->val, memory_order_relaxed);
	while (val & ML_MAX)
		if (atomic_compare_exchange_weak_explicit(&s->val, &val, val - 1,
				memory_order_seq_cst, memory_order_relaxed))
			return 0;
	return EAGAIN;
}

static int ml_timedwait(void *p, const struct timespec *dl)
{
	struct mlibc *s = p;
	if (ml_trywait(s) == 0)
		return 0;
	for (int spins = ML_SPINS; spins > 0; spins--) {
		uint32_t v = atomic_load_explicit(&s->val, memory_order_relaxed);
		if ((v & ML_MAX) || atomic_load_explicit(&s->waiters, memory_order_relaxed))
			break;
		fl_cpu_relax();
	}
	while (ml_trywait(s)) {
		bool shared = s->shared;
		atomic_fetch_add_explicit(&s->waiters, 1, memory_order_seq_cst);
		uint32_t zero = 0;
		atomic_compare_exchange_strong_explicit(&s->val, &zero, ML_SLEEP_ON,
				memory_order_seq_cst, memory_order_seq_cst);
		fl_race_window(); /* registered, bit set (or -1), not asleep */
		int r = fl_futex_wait(&s->val, ML_SLEEP_ON, dl, shared);
		atomic_fetch_sub_explicit(&s->waiters, 1, memory_order_seq_cst); /* cleanup */
		if (r == ETIMEDOUT || r == EINTR || r == EINVAL)
			return r;
		/* 0 or EAGAIN: __timedwait_cp's 0, retry trywait */
	}
	return 0;
}

static int ml_wait(void *p)
{
	return ml_timedwait(p, NULL);
}

static int ml_getvalue(void *p)
{
	uint32_t val = atomic_load_explicit(&((struct mlibc *)p)->val, memory_order_relaxed);
	return (int)(val & ML_MAX);
}

static int ml_words(void *p, _Atomic uint32_t **out, int max)
{
	if (max < 1)
		return 0;
	out[0] = &((struct mlibc *)p)->val;
	return 1;
}

FL_VARIANT(musl125, struct mlibc,
	.summary = "musl's own semaphore (1.2.5), waiters bit + count (tests/mutants, test-only)",
	.value_max = ML_MAX,
	.init = ml_init, .destroy = ml_destroy, .post = ml_post, .wait = ml_wait,
	.trywait = ml_trywait, .timedwait = ml_timedwait, .getvalue = ml_getvalue,
	.words = ml_words);
