/* tests/test_futex.c — the futex wrappers keep the kernel's contract:
 * errno-valued results, absolute deadlines, exact wake counts, wake
 * strategies, and a wake with nobody waiting is not remembered. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "tests/check.h"
#include "lib/clock.h"
#include "lib/futex.h"
#include "tests/sleepers.h"
#include "lib/wake.h"

static _Atomic uint32_t word;

static void t_eagain(void *arg)
{
	(void)arg;
	atomic_store(&word, 7);
	struct timespec dl = fl_deadline_after_ns(1000000000);
	int64_t t0 = fl_now_ns();
	CHECK(fl_futex_wait(&word, 6, &dl, false) == EAGAIN, "mismatch returns EAGAIN");
	CHECK(fl_futex_wait(&word, 6, NULL, true) == EAGAIN, "shared too");
	CHECK(fl_now_ns() - t0 < 500000000, "EAGAIN without sleeping");
}

static void t_deadlines(void *arg)
{
	(void)arg;
	atomic_store(&word, 0);
	struct timespec past = fl_deadline_after_ns(-1000000);
	CHECK(fl_futex_wait(&word, 0, &past, false) == ETIMEDOUT, "past deadline");
	struct timespec zero = { 0, 0 }, neg = { -5, 0 };
	CHECK(fl_futex_wait(&word, 0, &zero, false) == ETIMEDOUT, "epoch deadline");
	CHECK(fl_futex_wait(&word, 0, &neg, false) == ETIMEDOUT, "negative deadline is past, not EINVAL");
	struct timespec bad = { 0, 1000000000 };
	CHECK(fl_futex_wait(&word, 0, &bad, false) == EINVAL, "tv_nsec out of range");
	/* t0 before the absolute deadline is computed, never after it: the
	 * wait may rightly return sooner than the full interval after a later t0. */
	int64_t t0 = fl_now_ns();
	struct timespec dl = fl_deadline_after_ns(20000000);
	CHECK(fl_futex_wait(&word, 0, &dl, false) == ETIMEDOUT, "20 ms deadline");
	CHECK(fl_now_ns() - t0 >= 20000000, "never early: %lld ns", (long long)(fl_now_ns() - t0));
}

static void t_not_remembered(void *arg)
{
	(void)arg;
	/* The negative-counter note: the wait primitive must not remember a
	 * notify that found nobody, or it would keep a second token count. */
	atomic_store(&word, 0);
	CHECK(fl_futex_wake(&word, 1, false) == 0, "wake with nobody waiting wakes 0");
	CHECK(fl_futex_wake(&word, INT_MAX, false) == 0, "wake-all with nobody waiting wakes 0");
	int64_t t0 = fl_now_ns();
	struct timespec dl = fl_deadline_after_ns(50000000);
	CHECK(fl_futex_wait(&word, 0, &dl, false) == ETIMEDOUT, "the later wait still blocks");
	CHECK(fl_now_ns() - t0 >= 50000000, "and for the whole deadline");
}

#define NW 4
static _Atomic pid_t tids[NW];
static _Atomic int returned;
static _Atomic uint32_t gate;

static void *sleeper(void *arg)
{
	int i = (int)(intptr_t)arg;
	atomic_store(&tids[i], gettid());
	while (atomic_load(&gate) == 0)
		fl_futex_wait(&gate, 0, NULL, false);
	atomic_fetch_add(&returned, 1);
	return NULL;
}

/* With the gate closed, the sleepers stay asleep whatever wakes them:
 * they loop. So a wake's return value is exactly who was woken. */
static void *sleeper_once(void *arg)
{
	int i = (int)(intptr_t)arg;
	atomic_store(&tids[i], gettid());
	fl_futex_wait(&gate, 0, NULL, false);
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
	fl_futex_wake(&gate, INT_MAX, false);
	for (int i = 0; i < NW; i++)
		pthread_join(t[i], NULL);
}

static void t_exact_count(void *arg)
{
	(void)arg;
	pthread_t t[NW];
	start(t, sleeper_once);
	CHECK(wait_sleeping(tids, NW, 5000), "sleepers asleep");
	CHECK(fl_futex_wake(&gate, 2, false) == 2, "wake(2) wakes exactly 2");
	while (atomic_load(&returned) < 2)
		;
	struct timespec ms = { 0, 50000000 };
	nanosleep(&ms, NULL);
	CHECK(atomic_load(&returned) == 2, "only 2 returned: %d", atomic_load(&returned));
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
		int r = fl_notify(&gate, cases[c].ask, false);
		CHECK(r == cases[c].expect, "%s notify(%d) woke %d, expected %d",
		      fl_wake_name(cases[c].s), cases[c].ask, r, cases[c].expect);
		/* the woken re-check the closed gate and sleep again: correct */
		CHECK(wait_sleeping(tids, NW, 5000), "woken threads sleep again");
		CHECK(atomic_load(&returned) == 0, "nobody passes a closed gate");
		fl_wake_set_strategy(FL_WAKE_EXACT);
		finish(t);
		CHECK(atomic_load(&returned) == NW, "all pass the open gate");
	}
	CHECK(fl_wake_parse("exact") == FL_WAKE_EXACT && fl_wake_parse("one") == FL_WAKE_ONE &&
	      fl_wake_parse("all") == FL_WAKE_ALL && fl_wake_parse("some") == -1, "parse");
}

static int one_r;

static void *huge_waiter(void *a)
{
	(void)a;
	struct timespec huge = { INT64_MAX, 999999999 };
	atomic_store(&tids[0], gettid());
	one_r = fl_futex_wait(&word, 0, &huge, false);
	return NULL;
}

static void t_huge_deadline(void *arg)
{
	(void)arg;
	/* A deadline far past anything the kernel can represent must mean
	 * "very long", not "already past" and not an error. */
	atomic_store(&word, 0);
	pthread_t t;
	one_r = -1;
	atomic_store(&tids[0], 0);
	pthread_create(&t, NULL, huge_waiter, NULL);
	CHECK(wait_sleeping(tids, 1, 5000), "huge-deadline waiter sleeps");
	struct timespec ms = { 0, 50000000 };
	nanosleep(&ms, NULL);
	CHECK(fl_task_state(atomic_load(&tids[0])) == 'S', "and is still asleep 50 ms later");
	atomic_store(&word, 1);
	fl_futex_wake(&word, 1, false);
	pthread_join(t, NULL);
	CHECK(one_r == 0 || one_r == EAGAIN, "woken normally: %d", one_r);
}

static void on_usr1(int s)
{
	(void)s;
}

static void *eintr_waiter(void *a)
{
	(void)a;
	atomic_store(&tids[0], gettid());
	struct timespec dl = fl_deadline_after_ns(10LL * 1000000000);
	one_r = fl_futex_wait(&word, 0, &dl, false);
	return NULL;
}

static void t_eintr(void *arg)
{
	(void)arg;
	struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	atomic_store(&word, 0);
	pthread_t t;
	one_r = -1;
	atomic_store(&tids[0], 0);
	pthread_create(&t, NULL, eintr_waiter, NULL);
	CHECK(wait_sleeping(tids, 1, 5000), "waiter asleep");
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	CHECK(one_r == EINTR, "a signal handler interrupts the wait: %d", one_r);
}

int main(void)
{
	run_test("eagain", t_eagain, NULL, 10);
	run_test("deadlines", t_deadlines, NULL, 10);
	run_test("notify_not_remembered", t_not_remembered, NULL, 10);
	run_test("wake_exact_count", t_exact_count, NULL, 20);
	run_test("wake_strategies", t_strategies, NULL, 30);
	run_test("huge_deadline", t_huge_deadline, NULL, 20);
	run_test("eintr", t_eintr, NULL, 20);
	return tests_done("futex");
}
