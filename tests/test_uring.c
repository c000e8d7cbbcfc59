/* tests/test_uring.c — the io_uring futex wrappers (lib/uring.h) keep the
 * futex contract; ring wakes reach futex(2) waiters and futex(2) wakes reach
 * ring waiters (same kernel queue); the ring's waitv reports the index;
 * skipped (77) where io_uring futex ops are unavailable. */
#include "futex.h"
#include "uring.h"
#include "waitaddr_cases.h"

static _Atomic pid_t x_tid[1];
static _Atomic uint32_t x_word, x_words[3];
static int x_r;

static void *classic_waiter(void *a)
{
	(void)a;
	atomic_store(&x_tid[0], gettid());
	x_r = fl_futex_wait(&x_word, 0, NULL, false);
	return NULL;
}

static void *ring_waiter(void *a)
{
	(void)a;
	atomic_store(&x_tid[0], gettid());
	x_r = fl_uring_wait(&x_word, 0, NULL, false);
	return NULL;
}

static void t_interop(void *arg)
{
	(void)arg;
	void *(*fn[2])(void *) = { classic_waiter, ring_waiter };
	for (int k = 0; k < 2; k++) {
		pthread_t t;
		atomic_store(&x_word, 0);
		atomic_store(&x_tid[0], 0);
		x_r = -1;
		pthread_create(&t, NULL, fn[k], NULL);
		CHECK(wait_sleeping(x_tid, 1, 5000), "waiter %d asleep", k);
		int r = k ? fl_futex_wake(&x_word, 1, false) : fl_uring_wake(&x_word, 1, false);
		CHECK(r == 1, "%s wake finds the other kind of waiter: %d", k ? "futex(2)" : "ring", r);
		pthread_join(t, NULL);
		CHECK(x_r == 0, "woken: %d", x_r);
	}
}

static void *ringv_waiter(void *a)
{
	(void)a;
	struct fl_waitv w[3];
	for (int i = 0; i < 3; i++)
		w[i] = (struct fl_waitv){ &x_words[i], 0, false };
	atomic_store(&x_tid[0], gettid());
	struct timespec dl = fl_deadline_after_ns(10LL * 1000000000);
	x_r = fl_uring_waitv(w, 3, &dl);
	return NULL;
}

static void t_waitv(void *arg)
{
	(void)arg;
	if (fl_uring_waitv_unavailable()) {
		printf("  (skipped: %s)\n", fl_uring_waitv_unavailable());
		return;
	}
	struct fl_waitv w[3];
	for (int i = 0; i < 3; i++) {
		atomic_store(&x_words[i], 0);
		w[i] = (struct fl_waitv){ &x_words[i], 0, false };
	}
	struct timespec dl = fl_deadline_after_ns(10000000);
	int64_t t0 = fl_now_ns();
	CHECK(fl_uring_waitv(w, 3, &dl) == -ETIMEDOUT, "times out");
	CHECK(fl_now_ns() - t0 >= 10000000, "never early");
	atomic_store(&x_words[1], 5);
	CHECK(fl_uring_waitv(w, 3, NULL) == -EAGAIN, "a changed word: -EAGAIN");
	atomic_store(&x_words[1], 0);
	pthread_t t;
	atomic_store(&x_tid[0], 0);
	pthread_create(&t, NULL, ringv_waiter, NULL);
	CHECK(wait_sleeping(x_tid, 1, 5000), "waitv asleep");
	CHECK(fl_futex_wake(&x_words[2], 1, false) == 1, "a futex(2) wake on word 2 finds it");
	pthread_join(t, NULL);
	CHECK(x_r == 2, "index of the woken word: %d", x_r);
}

int main(void)
{
	const char *why = fl_uring_unavailable();
	if (why) {
		printf("SKIP uring: %s\n", why);
		return 77;
	}
	WA = &fl_wa_uring;
	run_waitaddr_cases();
	run_test("interop_futex_v1", t_interop, NULL, 20);
	run_test("waitv", t_waitv, NULL, 20);
	return tests_done("uring");
}
