/* tests/test_portable.c — the negative-counter note's portable wait-on-address
 * (one global mutex + condvar) keeps the futex contract: EAGAIN on a mismatch,
 * absolute deadlines, a notify with nobody waiting is not remembered, exact
 * wake counts, and — the point of broadcasting — a wake for address A never
 * leaves a waiter on A asleep, while waiters on B that the broadcast stirred
 * sleep again without returning. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "tests/check.h"
#include "lib/clock.h"
#include "lib/portable.h"
#include "tests/sleepers.h"
#include "tests/waitaddr_cases.h"

static _Atomic uint32_t word;

#define NW 4
static _Atomic pid_t tids[NW + 1];
static _Atomic int returned, ret_a;
static _Atomic uint32_t gate, word_a;
static int one_r;

/* One wait call: since this backend never returns spuriously, a return
 * means a wake chose this thread. */
static void *sleeper_once(void *arg)
{
	int i = (int)(intptr_t)arg;
	atomic_store(&tids[i], gettid());
	fl_portable_wait(&gate, 0, NULL, false);
	atomic_fetch_add(&returned, 1);
	return NULL;
}

static void start(pthread_t *t, void *(*fn)(void *))
{
	atomic_store(&gate, 0);
	atomic_store(&returned, 0);
	for (int i = 0; i < NW; i++) {
		atomic_store(&tids[i], 0);
		pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i);
	}
}

static void finish(pthread_t *t)
{
	atomic_store(&gate, 1);
	fl_portable_wake(&gate, INT_MAX, false);
	for (int i = 0; i < NW; i++)
		pthread_join(t[i], NULL);
}

static void *waiter_a(void *arg)
{
	(void)arg;
	atomic_store(&tids[NW], gettid());
	while (atomic_load(&word_a) == 0)
		fl_portable_wait(&word_a, 0, NULL, false);
	atomic_store(&ret_a, 1);
	return NULL;
}

/* The negative-counter note: with one condvar for every address, a notify for A
 * may wake a waiter on B. The B waiters are enqueued first (the oldest, the
 * ones a notify-one would pick), then one waiter on A. Changing A's word and
 * waking A must get A's waiter out; B's waiters, stirred by the broadcast, must
 * not return and must be asleep again. */
static void t_two_addresses(void *arg)
{
	(void)arg;
	for (int round = 0; round < 20; round++) {
		pthread_t t[NW], ta;
		start(t, sleeper_once);
		CHECK(wait_sleeping(tids, NW, 5000), "B waiters asleep");
		atomic_store(&word_a, 0);
		atomic_store(&ret_a, 0);
		atomic_store(&tids[NW], 0);
		pthread_create(&ta, NULL, waiter_a, NULL);
		CHECK(wait_sleeping(&tids[NW], 1, 5000), "A waiter asleep");
		atomic_store(&word_a, 1);
		CHECK(fl_portable_wake(&word_a, 1, false) == 1, "wake(A, 1) finds A's waiter");
		int64_t t0 = fl_now_ns();
		while (!atomic_load(&ret_a) && fl_now_ns() - t0 < 2000000000LL)
			sched_yield();
		CHECK(atomic_load(&ret_a), "round %d: A's waiter left asleep after A's wake", round);
		if (!atomic_load(&ret_a)) { /* unblock it so the test can end */
			fl_portable_wake(&word_a, INT_MAX, false);
		}
		pthread_join(ta, NULL);
		CHECK(atomic_load(&returned) == 0, "a wake for A returned %d waiter(s) on B",
		      atomic_load(&returned));
		CHECK(wait_sleeping(tids, NW, 5000), "B waiters asleep again");
		CHECK(fl_portable_wake(&word_a, INT_MAX, false) == 0, "nobody left on A");
		finish(t);
		CHECK(atomic_load(&returned) == NW, "all B waiters pass");
	}
}

/* A wake racing a deadline: the kernel's rule, kept here, is that a waiter
 * a wake counted returns 0, never ETIMEDOUT. So over many rounds, the sum
 * of what wake reported equals the number of waits that returned 0. */
static _Atomic int race_zero;
static void *deadline_waiter(void *arg)
{
	const struct timespec *dl = arg;
	int r = fl_portable_wait(&word, 0, dl, false);
	if (r == 0)
		atomic_fetch_add(&race_zero, 1);
	else if (r != ETIMEDOUT)
		one_r = r;
	return NULL;
}

static void t_wake_vs_deadline(void *arg)
{
	(void)arg;
	atomic_store(&word, 0);
	atomic_store(&race_zero, 0);
	one_r = 0;
	int woken = 0;
	for (int i = 0; i < 1000; i++) {
		struct timespec dl = fl_deadline_after_ns(200000);
		/* the wake lands 0..99 us after the deadline: the timer's slack
		 * puts the expiry somewhere in there too */
		struct timespec at = fl_ts_add_ns(dl, (i % 100) * 1000);
		pthread_t t;
		pthread_create(&t, NULL, deadline_waiter, &dl);
		while (!fl_deadline_passed(&at))
			;
		woken += fl_portable_wake(&word, 1, false);
		pthread_join(t, NULL);
	}
	CHECK(one_r == 0, "only 0 or ETIMEDOUT: %d", one_r);
	CHECK(woken == atomic_load(&race_zero), "wakes reported %d, waits returning 0 %d",
	      woken, atomic_load(&race_zero));
}

/* Lost-wakeup hunt: two threads hand a turn back and forth through the
 * backend, waiter and waker racing on every handoff. A lost wakeup hangs
 * (the watchdog names the test). */
static _Atomic uint32_t turn;
#define HANDOFFS 20000
static void *ponger(void *arg)
{
	(void)arg;
	for (uint32_t i = 0; i < HANDOFFS; i++) {
		uint32_t t;
		while ((t = atomic_load(&turn)) != 2 * i + 1)
			fl_portable_wait(&turn, t, NULL, false);
		atomic_store(&turn, 2 * i + 2);
		fl_portable_wake(&turn, 1, false);
	}
	return NULL;
}

static void t_handoff(void *arg)
{
	(void)arg;
	atomic_store(&turn, 0);
	pthread_t t;
	pthread_create(&t, NULL, ponger, NULL);
	for (uint32_t i = 0; i < HANDOFFS; i++) {
		atomic_store(&turn, 2 * i + 1);
		fl_portable_wake(&turn, 1, false);
		uint32_t v;
		while ((v = atomic_load(&turn)) != 2 * i + 2)
			fl_portable_wait(&turn, v, NULL, false);
	}
	pthread_join(t, NULL);
	CHECK(atomic_load(&turn) == 2 * HANDOFFS, "every handoff completed");
}

int main(void)
{
	WA = &fl_wa_portable; /* the contract's cases; the portable one never returns EINTR */
	run_waitaddr_cases(0); /* never EINTR, never shared */
	run_test("two_addresses", t_two_addresses, NULL, 60);
	run_test("wake_vs_deadline", t_wake_vs_deadline, NULL, 30);
	run_test("handoff", t_handoff, NULL, 60);

	return tests_done("portable");
}
