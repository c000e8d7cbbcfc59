/* tests/mutants/base_split.h — a copy of variants/split.c (the futex note) with
 * mutation points, for the mutation run only. The including file defines
 * MUT_NAME and at most one MUT_* switch; with none it is the control (the
 * design and its seq_cst argument as in variants/split.c).
 *
 *   MUT_WEAK        the store-buffer bug of the futex note. Weakening the pair
 *                   "count += n (RMW); read waiters" to release/acquire
 *                   allows the read of waiters to be performed before the
 *                   count update becomes visible (StoreLoad reordering is
 *                   permitted between a release store and a later acquire
 *                   load of another location). On x86-64 merely changing
 *                   the memory_order arguments changes nothing: the count
 *                   update is a CAS, a locked instruction, which is a full
 *                   barrier, and the compiler does not move the load above
 *                   it either — an equivalent mutant on this machine, that
 *                   no test could kill. So the mutant performs the reordering
 *                   the weakened orders permit explicitly: it reads waiters
 *                   first, then publishes count (what a plain-MOV store
 *                   sitting in the store buffer does on x86, and what ARM
 *                   does with a relaxed RMW). A waiter that registers and
 *                   sleeps between the two sleeps with a token posted and
 *                   no wake coming: the lost wakeup.
 *   MUT_WAKE_FIRST  post wakes before it publishes the count: the woken
 *                   waiter re-reads count == 0 and sleeps again; the count
 *                   lands after it with nobody announcing it (the window
 *                   between the two a sure 2 ms: every such post).
 *   MUT_EINTR_REG   a waiter interrupted by a signal returns EINTR without
 *                   its `waiters -= 1` (the registration a cancellation
 *                   cleanup handler, glibc's sem_wait_cleanup before 2.21 or
 *                   musl's cleanup(), undoes). No token is taken or lost,
 *                   but `waiters` never returns to zero: every later post
 *                   makes a FUTEX_WAKE that finds nobody. Killed by edge's
 *                   left_no_registration. */
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "lib/futex.h"
#include "tests/mutants/mutant.h"
#include "lib/race.h"
#include "lib/wake.h"

#define SPLIT_MAX INT32_MAX

struct msplit {
	_Atomic uint32_t count;
	_Atomic uint32_t waiters;
	int shared;
};

static int ms_init(void *p, unsigned value, int pshared)
{
	struct msplit *s = p;
	if (value > SPLIT_MAX)
		return EINVAL;
	atomic_init(&s->count, value);
	atomic_init(&s->waiters, 0);
	s->shared = pshared != 0;
	return 0;
}

static void ms_destroy(void *p)
{
	(void)p;
}

static int ms_post(void *p, unsigned n)
{
	struct msplit *s = p;
	uint32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
#if defined(MUT_WEAK) || defined(MUT_WAKE_FIRST)
	/* the load of waiters, performed before the count is published */
	uint32_t w = atomic_load_explicit(&s->waiters, memory_order_acquire);
	fl_race_window();
#endif
#ifdef MUT_WAKE_FIRST
	if (w > 0) {
		fl_notify(&s->count, (int)(w < n ? w : n), s->shared);
		/* A sure window, not a random one: the woken waiter re-reads
		 * count == 0 and sleeps again before the count lands in (nearly)
		 * every post that wakes, so the first case that posts to a
		 * sleeper kills the mutant (edge huge_deadlines), not whichever
		 * case a random window happens to land in. */
		nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	}
	fl_race_window();
#endif
	do {
		if (n > SPLIT_MAX || c > SPLIT_MAX - n)
			return EOVERFLOW;
	} while (!atomic_compare_exchange_weak_explicit(&s->count, &c, c + n,
			memory_order_seq_cst, memory_order_relaxed));
#if !defined(MUT_WEAK) && !defined(MUT_WAKE_FIRST)
	fl_race_window();
	uint32_t w = atomic_load_explicit(&s->waiters, memory_order_seq_cst);
#endif
#ifndef MUT_WAKE_FIRST
	if (w > 0)
		fl_notify(&s->count, (int)(w < n ? w : n), s->shared);
#endif
	return 0;
}

static int ms_trywait(void *p)
{
	struct msplit *s = p;
	uint32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
	while (c > 0)
		if (atomic_compare_exchange_weak_explicit(&s->count, &c, c - 1,
				memory_order_acquire, memory_order_relaxed))
			return 0;
	return EAGAIN;
}

static int ms_timedwait(void *p, const struct timespec *dl)
{
	struct msplit *s = p;
	for (;;) {
		if (ms_trywait(s) == 0)
			return 0;
		atomic_fetch_add_explicit(&s->waiters, 1, memory_order_seq_cst);
		fl_race_window();
		int r = fl_futex_wait(&s->count, 0, dl, s->shared);
#ifdef MUT_EINTR_REG
		if (r == EINTR)
			return ms_trywait(s) == 0 ? 0 : r; /* still counted in waiters */
#endif
		atomic_fetch_sub_explicit(&s->waiters, 1, memory_order_relaxed);
		if (r == ETIMEDOUT || r == EINTR || r == EINVAL)
			return ms_trywait(s) == 0 ? 0 : r;
	}
}

static int ms_wait(void *p)
{
	return ms_timedwait(p, NULL);
}

static int ms_getvalue(void *p)
{
	return (int)atomic_load_explicit(&((struct msplit *)p)->count, memory_order_relaxed);
}

static int ms_words(void *p, _Atomic uint32_t **out, int max)
{
	if (max < 1)
		return 0;
	out[0] = &((struct msplit *)p)->count;
	return 1;
}

MUT_VARIANT(MUT_NAME, struct msplit,
	.summary = "mutant of split (tests/mutants)",
	.value_max = SPLIT_MAX,
	/* as split: post reads waiters after publishing (glibc BZ 12674) */
	.flags = FL_DESTROY_UNSAFE,
	.init = ms_init, .destroy = ms_destroy, .post = ms_post, .wait = ms_wait,
	.trywait = ms_trywait, .timedwait = ms_timedwait, .getvalue = ms_getvalue,
	.words = ms_words);
