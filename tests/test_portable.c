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
#include "lib/wake.h"

static _Atomic uint32_t word;

static void t_eagain(void *arg)
{
	(void)arg;
	atomic_store(&word, 7);
	struct timespec dl = fl_deadline_after_ns(1000000000);
	int64_t t0 = fl_now_ns();
	CHECK(fl_portable_wait(&word, 6, &dl, false) == EAGAIN, "mismatch returns EAGAIN");
	CHECK(fl_portable_wait(&word, 6, NULL, false) == EAGAIN, "untimed too");
	CHECK(fl_now_ns() - t0 < 500000000, "EAGAIN without sleeping");
	CHECK(fl_wa_portable.unavailable == NULL && !strcmp(fl_wa_portable.name, "portable"),
	      "descriptor");
}

static void t_deadlines(void *arg)
{
	(void)arg;
	atomic_store(&word, 0);
	struct timespec past = fl_deadline_after_ns(-1000000);
	CHECK(fl_portable_wait(&word, 0, &past, false) == ETIMEDOUT, "past deadline");
	struct timespec zero = { 0, 0 }, neg = { -5, 0 };
	CHECK(fl_portable_wait(&word, 0, &zero, false) == ETIMEDOUT, "epoch deadline");
	CHECK(fl_portable_wait(&word, 0, &neg, false) == ETIMEDOUT, "negative deadline is past");
	struct timespec bad = { 0, 1000000000 }, bad2 = { 0, -1 };
	CHECK(fl_portable_wait(&word, 0, &bad, false) == EINVAL, "tv_nsec too large");
	CHECK(fl_portable_wait(&word, 0, &bad2, false) == EINVAL, "tv_nsec negative");
	/* t0 before the absolute deadline is computed, never after it: the
	 * wait may rightly return sooner than the full interval after a later t0. */
	int64_t t0 = fl_now_ns();
	struct timespec dl = fl_deadline_after_ns(20000000);
	CHECK(fl_portable_wait(&word, 0, &dl, false) == ETIMEDOUT, "20 ms deadline");
	CHECK(fl_now_ns() - t0 >= 20000000, "never early: %lld ns", (long long)(fl_now_ns() - t0));
	/* the deadline is CLOCK_MONOTONIC's, absolute */
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	now = fl_ts_add_ns(now, 10000000);
	t0 = fl_now_ns();
	CHECK(fl_portable_wait(&word, 0, &now, false) == ETIMEDOUT, "10 ms monotonic deadline");
	int64_t took = fl_now_ns() - t0;
	CHECK(took >= 9000000 && took < 2000000000, "monotonic clock: took %lld ns", (long long)took);
}

static void t_not_remembered(void *arg)
{
	(void)arg;
	atomic_store(&word, 0);
	CHECK(fl_portable_wake(&word, 1, false) == 0, "wake with nobody waiting wakes 0");
	CHECK(fl_portable_wake(&word, INT_MAX, false) == 0, "wake-all with nobody waiting wakes 0");
	int64_t t0 = fl_now_ns();
	struct timespec dl = fl_deadline_after_ns(50000000);
	CHECK(fl_portable_wait(&word, 0, &dl, false) == ETIMEDOUT, "the later wait still blocks");
	CHECK(fl_now_ns() - t0 >= 50000000, "and for the whole deadline");
}

#define NW 4
static _Atomic pid_t tids[NW + 1];
static _Atomic int returned, ret_a;
static _Atomic uint32_t gate, word_a;
static int one_r;

static void *sleeper(void *arg)
{
	int i = (int)(intptr_t)arg;
	atomic_store(&tids[i], gettid());
	while (atomic_load(&gate) == 0)
		fl_portable_wait(&gate, 0, NULL, false);
	atomic_fetch_add(&returned, 1);
	return NULL;
}

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

static void settle(void)
{
	struct timespec ms = { 0, 50000000 };
	nanosleep(&ms, NULL);
}

static void t_exact_count(void *arg)
{
	(void)arg;
	pthread_t t[NW];
	start(t, sleeper_once);
	CHECK(wait_sleeping(tids, NW, 5000), "sleepers asleep");
	CHECK(fl_portable_wake(&gate, 2, false) == 2, "wake(2) wakes exactly 2");
	while (atomic_load(&returned) < 2)
		;
	settle();
	CHECK(atomic_load(&returned) == 2, "only 2 returned: %d", atomic_load(&returned));
	CHECK(fl_portable_wake(&gate, INT_MAX, false) == 2, "wake-all finds the other 2");
	finish(t);
}

static void t_strategies(void *arg)
{
	(void)arg;
	struct { enum fl_wake_strategy s; int ask, expect; } cases[] = {
		{ FL_WAKE_EXACT, 2, 2 }, { FL_WAKE_ONE, 3, 3 }, { FL_WAKE_ALL, 1, NW },
	};
	for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		pthread_t t[NW];
		start(t, sleeper);
		CHECK(wait_sleeping(tids, NW, 5000), "sleepers asleep");
		fl_wake_set_strategy(cases[c].s);
		int r = fl_notify_on(&fl_wa_portable, &gate, cases[c].ask, false);
		CHECK(r == cases[c].expect, "%s notify(%d) woke %d, expected %d",
		      fl_wake_name(cases[c].s), cases[c].ask, r, cases[c].expect);
		CHECK(wait_sleeping(tids, NW, 5000), "woken threads sleep again");
		CHECK(atomic_load(&returned) == 0, "nobody passes a closed gate");
		fl_wake_set_strategy(FL_WAKE_EXACT);
		finish(t);
		CHECK(atomic_load(&returned) == NW, "all pass the open gate");
	}
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

static void *huge_waiter(void *a)
{
	(void)a;
	struct timespec huge = { INT64_MAX, 999999999 };
	atomic_store(&tids[0], gettid());
	one_r = fl_portable_wait(&word, 0, &huge, false);
	return NULL;
}

static void t_huge_deadline(void *arg)
{
	(void)arg;
	atomic_store(&word, 0);
	pthread_t t;
	one_r = -1;
	atomic_store(&tids[0], 0);
	pthread_create(&t, NULL, huge_waiter, NULL);
	CHECK(wait_sleeping(tids, 1, 5000), "huge-deadline waiter sleeps");
	settle();
	CHECK(fl_task_state(atomic_load(&tids[0])) == 'S', "and is still asleep 50 ms later");
	atomic_store(&word, 1);
	CHECK(fl_portable_wake(&word, 1, false) == 1, "the wake finds it");
	pthread_join(t, NULL);
	CHECK(one_r == 0, "woken normally: %d", one_r);
}

static void on_usr1(int s)
{
	(void)s;
}

static void *signalled_waiter(void *a)
{
	(void)a;
	atomic_store(&tids[0], gettid());
	struct timespec dl = fl_deadline_after_ns(100000000);
	one_r = fl_portable_wait(&word, 0, &dl, false);
	return NULL;
}

static void t_no_eintr(void *arg)
{
	(void)arg;
	struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	atomic_store(&word, 0);
	pthread_t t;
	one_r = -1;
	atomic_store(&tids[0], 0);
	int64_t t0 = fl_now_ns();
	pthread_create(&t, NULL, signalled_waiter, NULL);
	CHECK(wait_sleeping(tids, 1, 5000), "waiter asleep");
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	CHECK(one_r == ETIMEDOUT, "a signal does not end the wait (documented: never EINTR): %d",
	      one_r);
	CHECK(fl_now_ns() - t0 >= 100000000, "it slept to its deadline");
}

int main(void)
{
	run_test("eagain", t_eagain, NULL, 10);
	run_test("deadlines", t_deadlines, NULL, 10);
	run_test("notify_not_remembered", t_not_remembered, NULL, 10);
	run_test("wake_exact_count", t_exact_count, NULL, 20);
	run_test("wake_strategies", t_strategies, NULL, 30);
	run_test("two_addresses", t_two_addresses, NULL, 60);
	run_test("wake_vs_deadline", t_wake_vs_deadline, NULL, 30);
	run_test("handoff", t_handoff, NULL, 60);
	run_test("huge_deadline", t_huge_deadline, NULL, 20);
	run_test("no_eintr", t_no_eintr, NULL, 20);
	return tests_done("portable");
}
