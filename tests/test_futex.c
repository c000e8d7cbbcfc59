/* tests/test_futex.c — the futex wrappers keep the kernel's contract: the
 * contract's cases every wait-on-address backend runs (waitaddr_cases.h:
 * errno-valued results, absolute deadlines, exact wake counts, a wake with
 * nobody waiting is not remembered, EINTR) on fl_wa_futex, and the wake
 * strategies. */
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
#include "tests/waitaddr_cases.h"

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







int main(void)
{
	WA = &fl_wa_futex; /* the contract's cases, as every backend's test runs them */
	run_waitaddr_cases(WA_EINTR | WA_SHARED);
	run_test("wake_strategies", t_strategies, NULL, 30);
	return tests_done("futex");
}
