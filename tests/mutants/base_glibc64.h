/* tests/mutants/base_glibc64.h — a copy of variants/glibc64.c (glibc's
 * one-word sem_t layout: tokens in the low 32 bits, registered waiters in
 * the high 32) with mutation points, for the mutation run only. The
 * including file defines MUT_NAME and at most one MUT_* switch; with none it
 * is the control ctl_glibc64 (the design, orderings and race windows of
 * variants/glibc64.c, destruction-safe; the argument is in
 * that file).
 *
 *   MUT_BZ12674     glibc bug 12674, fixed in glibc 2.21 by commit
 *                   042e1521c7 ("Fix semaphore destruction"). Before it,
 *                   sem_post published the token with a CAS on `value` and
 *                   then, after a full barrier, read `nwaiters` and
 *                   `private` from the semaphore to decide on and issue the
 *                   FUTEX_WAKE (nptl/sem_post.c and the x86_64 sem_post.S of
 *                   2.20). The waiter that takes that token may destroy and
 *                   unmap the semaphore first, so those reads touch freed
 *                   memory. The fix put value and nwaiters in one 64-bit word
 *                   (this layout), so the CAS that publishes also observes
 *                   the waiters, and reads `private` before the CAS. The
 *                   mutant keeps the one-word layout and reverts the
 *                   accesses: after its publishing CAS it re-reads the word
 *                   for the waiter count (glibc's separate nwaiters read;
 *                   seq_cst as the full barrier was, so no wakeup is lost)
 *                   and reads `shared` — the only bug left is the access
 *                   after publishing. Killed by edge's destruction test
 *                   (mut_glibc64_bz12674) and by the promises suite under
 *                   the shim (mut_glibc64_bz12674_shim, the same mutant).
 *   MUT_EINTR_REG   a waiter interrupted by a signal returns EINTR without
 *                   deregistering (the failure glibc's cleanup handler
 *                   __sem_wait_cleanup and the EINTR exit of
 *                   __new_sem_wait_slow exist to prevent: both subtract
 *                   1 << SEM_NWAITERS_SHIFT). Nothing goes wrong at once —
 *                   no token is taken or lost — but the high half never
 *                   returns to zero, so from then on every post makes a
 *                   FUTEX_WAKE syscall that finds nobody: the one-CAS
 *                   uncontended post this layout exists for is gone. Killed
 *                   by edge's left_no_registration (syscalls of posts after
 *                   the waiters left, counted by a seccomp filter).
 *   MUT_EINTR_RETRY a waiter whose sleep a signal interrupted goes back to
 *                   sleep instead of returning EINTR (the loop treats EINTR
 *                   like a spurious wakeup). POSIX lets sem_wait and
 *                   sem_timedwait fail with EINTR, and a program that
 *                   installs a handler without SA_RESTART relies on it (to
 *                   leave the wait on a signal); the wait now returns only
 *                   with a token or at its deadline. No token is lost.
 *                   Killed by the promises suite under the shim (eintr:
 *                   sem_timedwait returns at its deadline, 2 s later).
 *   MUT_DROP_WAKE   the textbook lost wakeup, once: while
 *                   fl_mut_drop_wakes > 0, a post that owes a wake (waiters
 *                   registered) publishes its token, takes one off the
 *                   counter and returns without the FUTEX_WAKE. It starts
 *                   at 1 (the process's first such post drops its wake; the
 *                   suites kill it), and a test re-arms it per rep: the
 *                   stranded-waiter detector's proof (tests/test_stranded.c,
 *                   stranded/stranded.c). The sleeper keeps sleeping with a
 *                   token there until another post wakes it (or a signal:
 *                   EINTR, give_up takes the token). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/futex.h"
#include "tests/mutants/mutant.h"
#include "lib/race.h"
#include "lib/wake.h"

#define G64_MAX   INT32_MAX

#ifdef MUT_DROP_WAKE
_Atomic int fl_mut_drop_wakes = 1;
#endif
#define G64_ONE_W ((uint64_t)1 << 32)

struct mg64 {
	_Atomic uint64_t data;
	int shared;
};

static inline uint32_t mg_count(uint64_t d)
{
	return (uint32_t)d;
}

static inline uint32_t mg_waiters(uint64_t d)
{
	return (uint32_t)(d >> 32);
}

static _Atomic uint32_t *mg_futex_word(struct mg64 *s)
{
	_Atomic uint32_t *w = (_Atomic uint32_t *)(void *)&s->data;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w++;
#endif
	return w;
}

static int mg_init(void *p, unsigned value, int pshared)
{
	struct mg64 *s = p;
	if (value > G64_MAX)
		return EINVAL;
	atomic_init(&s->data, (uint64_t)value);
	s->shared = pshared != 0;
	return 0;
}

static void mg_destroy(void *p)
{
	(void)p;
}

static int mg_post(void *p, unsigned n)
{
	struct mg64 *s = p;
#ifndef MUT_BZ12674
	/* Read before the CAS, as glibc reads isem->private: after it, the
	 * last waiter may take the token and free s. */
	bool shared = s->shared;
#endif
	_Atomic uint32_t *word = mg_futex_word(s); /* (address arithmetic only) */
	uint64_t d = atomic_load_explicit(&s->data, memory_order_relaxed);
	do {
		if (n > G64_MAX || mg_count(d) > G64_MAX - n)
			return EOVERFLOW;
	} while (!atomic_compare_exchange_weak_explicit(&s->data, &d, d + n,
			memory_order_release, memory_order_relaxed));
#ifdef MUT_BZ12674
	/* 2.20: atomic_full_barrier (); if (isem->nwaiters > 0) lll_futex_wake
	 * (..., isem->private ^ FUTEX_PRIVATE_FLAG): reads of the semaphore
	 * after the token is published, whether or not anybody waits. */
	fl_race_window(); /* token published; a waiter may take it and free s */
	uint32_t w = mg_waiters(atomic_load_explicit(&s->data, memory_order_seq_cst));
	bool shared = s->shared;
#else
	uint32_t w = mg_waiters(d); /* observed by the same CAS: no second access */
#endif
#ifdef MUT_DROP_WAKE
	if (w > 0) { /* owes a wake: drop it while armed (one per unit) */
		int a = atomic_load(&fl_mut_drop_wakes);
		while (a > 0 && !atomic_compare_exchange_weak(&fl_mut_drop_wakes, &a, a - 1))
			;
		if (a > 0)
			return 0;
	}
#endif
	if (w > 0) {
#ifndef MUT_BZ12674
		fl_race_window(); /* token published; a waiter may take it and free s */
#endif
		fl_notify(word, (int)(w < n ? w : n), shared);
	}
	return 0;
}

static int mg_take(struct mg64 *s, uint64_t unreg)
{
	uint64_t d = atomic_load_explicit(&s->data, memory_order_relaxed);
	while (mg_count(d) > 0)
		if (atomic_compare_exchange_weak_explicit(&s->data, &d, d - 1 - unreg,
				memory_order_acquire, memory_order_relaxed))
			return 0;
	return EAGAIN;
}

static int mg_trywait(void *p)
{
	return mg_take(p, 0);
}

static int mg_give_up(struct mg64 *s, int why)
{
	uint64_t d = atomic_load_explicit(&s->data, memory_order_relaxed);
	for (;;) {
		if (mg_count(d) > 0) {
			if (atomic_compare_exchange_weak_explicit(&s->data, &d, d - 1 - G64_ONE_W,
					memory_order_acquire, memory_order_relaxed))
				return 0;
		} else if (atomic_compare_exchange_weak_explicit(&s->data, &d, d - G64_ONE_W,
				memory_order_relaxed, memory_order_relaxed)) {
			return why;
		}
	}
}

static int mg_timedwait(void *p, const struct timespec *dl)
{
	struct mg64 *s = p;
	if (mg_take(s, 0) == 0)
		return 0;
	atomic_fetch_add_explicit(&s->data, G64_ONE_W, memory_order_relaxed);
	for (;;) {
		if (mg_take(s, G64_ONE_W) == 0)
			return 0;
		fl_race_window();
		int r = fl_futex_wait(mg_futex_word(s), 0, dl, s->shared);
#ifdef MUT_EINTR_REG
		if (r == EINTR)
			return EINTR; /* registration left in the high half */
#endif
#ifdef MUT_EINTR_RETRY
		if (r == EINTR)
			continue; /* as if spurious: back to sleep */
#endif
		/* (in the mutant's build the EINTR test below is dead, on purpose) */
		// cppcheck-suppress identicalConditionAfterEarlyExit
		if (r == ETIMEDOUT || r == EINTR || r == EINVAL)
			return mg_give_up(s, r);
	}
}

static int mg_wait(void *p)
{
	return mg_timedwait(p, NULL);
}

static int mg_getvalue(void *p)
{
	return (int)mg_count(atomic_load_explicit(&((struct mg64 *)p)->data,
						  memory_order_relaxed));
}

static int mg_words(void *p, _Atomic uint32_t **out, int max)
{
	if (max < 1)
		return 0;
	out[0] = mg_futex_word(p);
	return 1;
}

MUT_VARIANT(MUT_NAME, struct mg64,
	.summary = "mutant of glibc64 (tests/mutants)",
	.value_max = G64_MAX,
	.init = mg_init, .destroy = mg_destroy, .post = mg_post, .wait = mg_wait,
	.trywait = mg_trywait, .timedwait = mg_timedwait, .getvalue = mg_getvalue,
	.words = mg_words);
