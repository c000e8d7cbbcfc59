/* tests/waitaddr_cases.h — the futex contract (lib/futex.h), checked on any
 * wait-on-address backend (lib/waitaddr.h): every wrapper's test sets WA
 * and calls run_waitaddr_cases() — test_futex.c (futex(2)), test_futex2.c,
 * test_uring.c, test_portable.c, test_numa.c (the FUTEX2_NUMA forms): EAGAIN
 * without sleeping, past/zero/negative/invalid/huge deadlines, never early,
 * exact wake counts, the wake strategies' counts (lib/wake.h), a wake with
 * nobody waiting is not remembered, EINTR
 * (or, where documented, never EINTR). */
#ifndef FUTEXLAB_WAITADDR_CASES_H
#define FUTEXLAB_WAITADDR_CASES_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "tests/check.h"
#include "lib/clock.h"
#include "tests/loadavg.h"
#include "tests/sleepers.h"
#include "lib/waitaddr.h"
#include "lib/wake.h"

static const struct fl_waitaddr *WA;
/* What the backend under test promises beyond the common contract. */
#define WA_EINTR 1u  /* a signal handler ends a wait with EINTR (else: never EINTR) */
#define WA_SHARED 2u /* process-shared words (else: a shared call is a caller's bug) */
#define WA_FUTEX_QUEUE 4u /* futex(2)'s kernel queue: its wakes reach futex(2) waiters and back */
static unsigned wa_what;
/* The word waited on: the first of an 8-byte aligned pair whose second
 * is FL_FUTEX_NO_NODE (0xffffffff), so that the FUTEX2_NUMA wrappers, which
 * take a {value, node} pair (lib/numa.h), keep the same contract on it; the
 * other backends read the first word alone. */
static _Alignas(8) _Atomic uint32_t wa_pair[2] = { 0, 0xffffffffu };
#define wa_word (wa_pair[0])

static void c_eagain(void *arg)
{
	(void)arg;
	atomic_store(&wa_word, 7);
	struct timespec dl = fl_deadline_after_ns(1000000000);
	int64_t t0 = fl_now_ns();
	CHECK(WA->wait(&wa_word, 6, &dl, false) == EAGAIN, "mismatch returns EAGAIN");
	CHECK(WA->wait(&wa_word, 6, NULL, false) == EAGAIN, "without a deadline too");
	if (wa_what & WA_SHARED)
		CHECK(WA->wait(&wa_word, 6, NULL, true) == EAGAIN, "shared too");
	int64_t took = fl_now_ns() - t0;
	/* generous: three calls that must not sleep */
	CHECK(took < 500000000, "EAGAIN without sleeping: the three calls took %lld ns "
	      "(load: %s)", (long long)took, fl_loadavg());
}

static void c_deadlines(void *arg)
{
	(void)arg;
	atomic_store(&wa_word, 0);
	struct timespec past = fl_deadline_after_ns(-1000000);
	CHECK(WA->wait(&wa_word, 0, &past, false) == ETIMEDOUT, "past deadline");
	struct timespec zero = { 0, 0 }, neg = { -5, 0 };
	CHECK(WA->wait(&wa_word, 0, &zero, false) == ETIMEDOUT, "epoch deadline");
	int r = WA->wait(&wa_word, 0, &neg, false);
	CHECK(r == ETIMEDOUT, "negative deadline is past, not EINVAL: %d", r);
	struct timespec bad = { 0, 1000000000 }, badneg = { 0, -1 };
	CHECK(WA->wait(&wa_word, 0, &bad, false) == EINVAL, "tv_nsec 1e9");
	CHECK(WA->wait(&wa_word, 0, &badneg, false) == EINVAL, "tv_nsec negative");
	/* t0 before the absolute deadline is computed, never after it: the
	 * wait may rightly return sooner than the full interval after a later t0. */
	int64_t t0 = fl_now_ns();
	struct timespec dl = fl_deadline_after_ns(20000000);
	CHECK(WA->wait(&wa_word, 0, &dl, false) == ETIMEDOUT, "20 ms deadline");
	CHECK(fl_now_ns() - t0 >= 20000000, "never early: %lld ns", (long long)(fl_now_ns() - t0));
	dl = fl_deadline_after_ns(10000000);
	if (wa_what & WA_SHARED)
		CHECK(WA->wait(&wa_word, 0, &dl, true) == ETIMEDOUT, "shared, 10 ms deadline");
}

static void c_not_remembered(void *arg)
{
	(void)arg;
	atomic_store(&wa_word, 0);
	CHECK(WA->wake(&wa_word, 1, false) == 0, "wake with nobody waiting wakes 0");
	CHECK(WA->wake(&wa_word, INT_MAX, false) == 0, "wake-all with nobody waiting wakes 0");
	int64_t t0 = fl_now_ns();
	struct timespec dl = fl_deadline_after_ns(50000000);
	CHECK(WA->wait(&wa_word, 0, &dl, false) == ETIMEDOUT, "the later wait still blocks");
	CHECK(fl_now_ns() - t0 >= 50000000, "and for the whole deadline");
}

#define WA_NW 4
static _Atomic pid_t wa_tids[WA_NW];
static _Atomic int wa_returned;
static _Alignas(8) _Atomic uint32_t wa_gate_pair[2] = { 0, 0xffffffffu }; /* as wa_pair */
#define wa_gate (wa_gate_pair[0])
static int wa_one_r;

static void *wa_sleeper_once(void *arg)
{
	int i = (int)(intptr_t)arg;
	atomic_store(&wa_tids[i], gettid());
	WA->wait(&wa_gate, 0, NULL, false);
	atomic_fetch_add(&wa_returned, 1);
	return NULL;
}

/* WA_NW sleepers on the closed gate, each running fn, all asleep. */
static void wa_start(pthread_t *t, void *(*fn)(void *))
{
	atomic_store(&wa_gate, 0);
	atomic_store(&wa_returned, 0);
	for (int i = 0; i < WA_NW; i++) {
		atomic_store(&wa_tids[i], 0);
		pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i);
	}
	CHECK(wait_sleeping(wa_tids, WA_NW, 5000), "sleepers asleep");
}

static void c_exact_count(void *arg)
{
	(void)arg;
	pthread_t t[WA_NW];
	wa_start(t, wa_sleeper_once);
	int r = WA->wake(&wa_gate, 2, false);
	CHECK(r == 2, "wake(2) wakes exactly 2: %d", r);
	while (atomic_load(&wa_returned) < 2)
		;
	struct timespec ms = { 0, 50000000 };
	nanosleep(&ms, NULL);
	CHECK(atomic_load(&wa_returned) == 2, "only 2 returned: %d", atomic_load(&wa_returned));
	atomic_store(&wa_gate, 1);
	r = WA->wake(&wa_gate, INT_MAX, false);
	CHECK(r == 2, "wake-all wakes the 2 left: %d", r);
	for (int i = 0; i < WA_NW; i++)
		pthread_join(t[i], NULL);
}

/* A sleeper that loops while the gate is closed: whatever wakes it, it
 * sleeps again, so a wake's return value is exactly who was woken. */
static void *wa_sleeper(void *arg)
{
	int i = (int)(intptr_t)arg;
	atomic_store(&wa_tids[i], gettid());
	while (atomic_load(&wa_gate) == 0)
		WA->wait(&wa_gate, 0, NULL, false);
	atomic_fetch_add(&wa_returned, 1);
	return NULL;
}

/* The wake strategies (lib/wake.h) over this backend: exact-count asks
 * once, one repeats wake-one, all wakes everyone; each reports who it woke. */
static void c_strategies(void *arg)
{
	(void)arg;
	struct { enum fl_wake_strategy s; int ask, expect; } cases[] = {
		{ FL_WAKE_EXACT, 2, 2 }, { FL_WAKE_ONE, 3, 3 }, { FL_WAKE_ALL, 1, WA_NW },
	};
	for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		pthread_t t[WA_NW];
		wa_start(t, wa_sleeper);
		fl_wake_set_strategy(cases[c].s);
		int r = fl_notify_on(WA, &wa_gate, cases[c].ask, false);
		CHECK(r == cases[c].expect, "%s notify(%d) woke %d, expected %d",
		      fl_wake_name(cases[c].s), cases[c].ask, r, cases[c].expect);
		/* the woken re-check the closed gate and sleep again: correct */
		CHECK(wait_sleeping(wa_tids, WA_NW, 5000), "woken threads sleep again");
		CHECK(atomic_load(&wa_returned) == 0, "nobody passes a closed gate");
		fl_wake_set_strategy(FL_WAKE_EXACT);
		atomic_store(&wa_gate, 1);
		WA->wake(&wa_gate, INT_MAX, false);
		for (int i = 0; i < WA_NW; i++)
			pthread_join(t[i], NULL);
		CHECK(atomic_load(&wa_returned) == WA_NW, "all pass the open gate");
	}
}

/* A waiter on wa_word through the backend a (futex(2) or WA). */
static void *wa_waiter_on(void *a)
{
	const struct fl_waitaddr *wa = a;
	atomic_store(&wa_tids[0], gettid());
	wa_one_r = wa->wait(&wa_word, 0, NULL, false);
	return NULL;
}

/* One kernel queue (WA_FUTEX_QUEUE): WA's wake finds a futex(2) waiter and
 * futex(2)'s wake finds WA's waiter, so a design may mix them on a word. */
static void c_futex_queue(void *arg)
{
	(void)arg;
	const struct fl_waitaddr *waiter[2] = { &fl_wa_futex, WA }, *waker[2] = { WA, &fl_wa_futex };
	for (int k = 0; k < 2; k++) {
		pthread_t t;
		atomic_store(&wa_word, 0);
		atomic_store(&wa_tids[0], 0);
		wa_one_r = -1;
		pthread_create(&t, NULL, wa_waiter_on, (void *)waiter[k]);
		CHECK(wait_sleeping(wa_tids, 1, 5000), "%s waiter asleep", k ? "this backend's" : "futex(2)");
		int r = waker[k]->wake(&wa_word, 1, false);
		CHECK(r == 1, "%s wake finds the other's waiter: %d", k ? "futex(2)" : "this backend's", r);
		pthread_join(t, NULL);
		CHECK(wa_one_r == 0, "woken: %d", wa_one_r);
	}
}

static void *wa_huge_waiter(void *a)
{
	(void)a;
	struct timespec huge = { INT64_MAX, 999999999 };
	atomic_store(&wa_tids[0], gettid());
	wa_one_r = WA->wait(&wa_word, 0, &huge, false);
	return NULL;
}

static void c_huge_deadline(void *arg)
{
	(void)arg;
	atomic_store(&wa_word, 0);
	pthread_t t;
	wa_one_r = -1;
	atomic_store(&wa_tids[0], 0);
	pthread_create(&t, NULL, wa_huge_waiter, NULL);
	CHECK(wait_sleeping(wa_tids, 1, 5000), "huge-deadline waiter sleeps");
	struct timespec ms = { 0, 50000000 };
	nanosleep(&ms, NULL);
	CHECK(fl_asleep_in_wait(atomic_load(&wa_tids[0])), "and is still asleep in the wait "
	      "50 ms later (state %c)", fl_task_state(atomic_load(&wa_tids[0])));
	atomic_store(&wa_word, 1);
	WA->wake(&wa_word, 1, false);
	pthread_join(t, NULL);
	CHECK(wa_one_r == 0 || wa_one_r == EAGAIN, "woken normally: %d", wa_one_r);
}

static void wa_on_usr1(int s)
{
	(void)s;
}

static int64_t wa_sleep_ns; /* the signalled waiter's deadline, from now */

static void *wa_signalled_waiter(void *a)
{
	(void)a;
	atomic_store(&wa_tids[0], gettid());
	struct timespec dl = fl_deadline_after_ns(wa_sleep_ns);
	wa_one_r = WA->wait(&wa_word, 0, &dl, false);
	return NULL;
}

/* A waiter asleep on wa_word with a deadline ns away is sent SIGUSR1,
 * whose handler is installed without SA_RESTART; its wait's result in
 * wa_one_r, the time from its start to its end returned. */
static int64_t wa_signal_a_waiter(int64_t ns)
{
	struct sigaction sa = { .sa_handler = wa_on_usr1 }; /* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	atomic_store(&wa_word, 0);
	pthread_t t;
	wa_one_r = -1;
	wa_sleep_ns = ns;
	atomic_store(&wa_tids[0], 0);
	int64_t t0 = fl_now_ns();
	pthread_create(&t, NULL, wa_signalled_waiter, NULL);
	CHECK(wait_sleeping(wa_tids, 1, 5000), "waiter asleep");
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	return fl_now_ns() - t0;
}

static void c_eintr(void *arg)
{
	(void)arg;
	wa_signal_a_waiter(10LL * 1000000000);
	CHECK(wa_one_r == EINTR, "a signal handler interrupts the wait: %d", wa_one_r);
	/* The interrupted wait left nothing behind: the next one times out. */
	struct timespec dl = fl_deadline_after_ns(10000000);
	CHECK(WA->wait(&wa_word, 0, &dl, false) == ETIMEDOUT, "next wait after EINTR is clean");
}

/* A backend that documents "never EINTR" (the portable fallback: a
 * condition variable's wait is not ended by a handler) keeps that. */
static void c_no_eintr(void *arg)
{
	(void)arg;
	int64_t took = wa_signal_a_waiter(100000000);
	CHECK(wa_one_r == ETIMEDOUT, "a signal does not end the wait (documented: never EINTR): "
	      "%d", wa_one_r);
	CHECK(took >= 100000000, "it slept to its deadline");
}

/* The contract's cases on WA; what: WA_EINTR (the kernel's futexes: a
 * handler ends a wait with EINTR; without it, never: no_eintr),
 * WA_SHARED (shared words too) and WA_FUTEX_QUEUE (futex(2)'s queue). */
static void run_waitaddr_cases(unsigned what)
{
	wa_what = what;
	run_test("eagain", c_eagain, NULL, 10);
	run_test("deadlines", c_deadlines, NULL, 10);
	run_test("notify_not_remembered", c_not_remembered, NULL, 10);
	run_test("wake_exact_count", c_exact_count, NULL, 20);
	run_test("wake_strategies", c_strategies, NULL, 30);
	run_test("huge_deadline", c_huge_deadline, NULL, 20);
	if (what & WA_FUTEX_QUEUE)
		run_test("futex_queue", c_futex_queue, NULL, 20);
	if (what & WA_EINTR)
		run_test("eintr", c_eintr, NULL, 20);
	else
		run_test("no_eintr", c_no_eintr, NULL, 20);
}

#endif
