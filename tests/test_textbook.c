/* tests/test_textbook.c — textbook's queue is strict FIFO.
 *
 * Waiters are started one at a time, each known asleep (sleepers.h) before
 * the next starts, so their queue order is their index. Then:
 *   - post(1) one at a time releases them exactly in index order;
 *   - post(3) releases exactly the three oldest;
 *   - timed waiters that time out leave the queue without disturbing the
 *     order of the others (nor taking their tokens);
 *   - pshared init is ENOTSUP (the queue lives in the process).
 * Append at the head instead of the tail (LIFO) and the first three fail. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tests/check.h"
#include "lib/clock.h"
#include "tests/sleepers.h"
#include "variants/variant.h"

#define NW 6

static const struct fl_variant *V;
static void *S;
static _Atomic pid_t tids[NW];
static _Atomic int order[NW], npassed;
static int results[NW];

struct warg {
	int i;
	int64_t rel_ns; /* 0: untimed */
};

static void *waiter(void *p)
{
	struct warg *a = p;
	atomic_store(&tids[a->i], gettid());
	int r;
	if (a->rel_ns) {
		struct timespec dl = fl_deadline_after_ns(a->rel_ns);
		while ((r = V->timedwait(S, &dl)) == EINTR)
			;
	} else {
		while ((r = V->wait(S)) == EINTR)
			;
	}
	results[a->i] = r;
	if (r == 0)
		atomic_store(&order[atomic_fetch_add(&npassed, 1)], a->i);
	return NULL;
}

static bool until_passed(int n)
{
	for (int i = 0; i < 5000; i++) {
		if (atomic_load(&npassed) >= n)
			return true;
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	return false;
}

/* Starts waiters 0..n-1 in order, each asleep before the next begins. */
static void start_in_order(pthread_t *t, struct warg *a, int n, const int64_t *rel)
{
	S = aligned_alloc(64, 64);
	CHECK(V->init(S, 0, 0) == 0, "init");
	atomic_store(&npassed, 0);
	for (int i = 0; i < n; i++) {
		atomic_store(&tids[i], 0);
		atomic_store(&order[i], -1);
		a[i] = (struct warg){ .i = i, .rel_ns = rel ? rel[i] : 0 };
		pthread_create(&t[i], NULL, waiter, &a[i]);
		CHECK(wait_sleeping(&tids[i], 1, 5000), "waiter %d asleep", i);
	}
}

static void finish(pthread_t *t, int n)
{
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	CHECK(V->getvalue(S) == 0, "value 0 at the end: %d", V->getvalue(S));
	V->destroy(S);
	free(S);
}

static void t_fifo_one_by_one(void *arg)
{
	(void)arg;
	pthread_t t[NW];
	struct warg a[NW];
	start_in_order(t, a, NW, NULL);
	for (int k = 0; k < NW; k++) {
		CHECK(V->post(S, 1) == 0, "post");
		CHECK(until_passed(k + 1), "post %d released nobody", k);
		CHECK(atomic_load(&npassed) == k + 1, "post %d released %d", k, atomic_load(&npassed));
		CHECK(atomic_load(&order[k]) == k, "post %d released waiter %d, not the oldest (%d)",
		      k, atomic_load(&order[k]), k);
	}
	finish(t, NW);
}

static void t_fifo_post_n(void *arg)
{
	(void)arg;
	pthread_t t[NW];
	struct warg a[NW];
	start_in_order(t, a, NW, NULL);
	CHECK(V->post(S, 3) == 0, "post(3)");
	CHECK(until_passed(3), "post(3) released fewer than 3");
	struct timespec settle = { 0, 20000000 };
	nanosleep(&settle, NULL);
	CHECK(atomic_load(&npassed) == 3, "post(3) released %d", atomic_load(&npassed));
	int seen = 0;
	for (int k = 0; k < 3; k++)
		seen |= 1 << atomic_load(&order[k]);
	CHECK(seen == 0x7, "post(3) released waiters mask 0x%x, not the three oldest", seen);
	CHECK(V->post(S, NW - 3) == 0, "post(rest)");
	finish(t, NW);
}

static void t_fifo_timeouts_leave(void *arg)
{
	(void)arg;
	/* 1 and 3 are timed: they time out and leave; 0, 2, 4, 5 keep their order. */
	int64_t rel[NW] = { 0, 300000000, 0, 300000000, 0, 0 };
	pthread_t t[NW];
	struct warg a[NW];
	start_in_order(t, a, NW, rel);
	pthread_join(t[1], NULL);
	pthread_join(t[3], NULL);
	CHECK(results[1] == ETIMEDOUT && results[3] == ETIMEDOUT, "timed waiters time out: %d %d",
	      results[1], results[3]);
	CHECK(V->getvalue(S) == 0, "timeouts leave value 0");
	const int expect[] = { 0, 2, 4, 5 };
	for (int k = 0; k < 4; k++) {
		V->post(S, 1);
		CHECK(until_passed(k + 1), "post %d released nobody", k);
		CHECK(atomic_load(&order[k]) == expect[k], "post %d released %d, expected %d", k,
		      atomic_load(&order[k]), expect[k]);
	}
	for (int i = 0; i < NW; i++)
		if (i != 1 && i != 3)
			pthread_join(t[i], NULL);
	CHECK(V->getvalue(S) == 0, "value 0 at the end");
	V->destroy(S);
	free(S);
}

static void t_pshared(void *arg)
{
	(void)arg;
	void *p = aligned_alloc(64, 64);
	CHECK(V->init(p, 1, 1) == ENOTSUP, "pshared is ENOTSUP");
	free(p);
}

int main(void)
{
	V = fl_variant_find("textbook");
	if (!V) {
		fprintf(stderr, "textbook not registered\n");
		return 1;
	}
	run_test("textbook_fifo_one_by_one", t_fifo_one_by_one, NULL, 60);
	run_test("textbook_fifo_post_n", t_fifo_post_n, NULL, 60);
	run_test("textbook_fifo_timeouts_leave", t_fifo_timeouts_leave, NULL, 60);
	run_test("textbook_pshared_enotsup", t_pshared, NULL, 10);
	return tests_done("textbook");
}
