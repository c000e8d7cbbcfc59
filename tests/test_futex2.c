/* tests/test_futex2.c — the futex2 wrappers (lib/futex2.h) keep the futex
 * contract, and futex2 wakes reach futex(2) waiters and back (same queue). */
#include "lib/futex.h"
#include "lib/futex2.h"
#include "tests/waitaddr_cases.h"

static _Atomic pid_t x_tid[1];
static _Atomic uint32_t x_word;
static int x_r;

static void *classic_waiter(void *a)
{
	(void)a;
	atomic_store(&x_tid[0], gettid());
	x_r = fl_futex_wait(&x_word, 0, NULL, false);
	return NULL;
}

static void t_interop(void *arg)
{
	(void)arg;
	pthread_t t;
	atomic_store(&x_word, 0);
	atomic_store(&x_tid[0], 0);
	pthread_create(&t, NULL, classic_waiter, NULL);
	CHECK(wait_sleeping(x_tid, 1, 5000), "futex(2) waiter asleep");
	CHECK(fl_futex2_wake(&x_word, 1, false) == 1, "futex2 wake finds the futex(2) waiter");
	pthread_join(t, NULL);
	CHECK(x_r == 0, "woken: %d", x_r);
}

int main(void)
{
	const char *why = fl_futex2_unavailable();
	if (why) {
		printf("SKIP futex2: %s\n", why);
		return 77;
	}
	WA = &fl_wa_futex2;
	run_waitaddr_cases(WA_EINTR | WA_SHARED);
	run_test("interop_futex_v1", t_interop, NULL, 20);
	return tests_done("futex2");
}
