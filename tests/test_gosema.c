/* tests/test_gosema.c — gosema's shared table under collisions.
 *
 * The conformance suite drives one semaphore at a time, so its root's treap
 * never holds more than one address. Here M semaphores sit 251 * 8 bytes
 * apart — the same root — each with two sleepers queued in a known order,
 * some of which time out (removing heads, tails and whole addresses from a
 * populated treap). Then posts in a shuffled order must each release
 * exactly the oldest remaining sleeper of that semaphore, a post to a
 * semaphore without sleepers in the same busy root must release nobody,
 * and every value ends at 0. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tests/check.h"
#include "lib/clock.h"
#include "tests/sleepers.h"
#include "variants/variant.h"

#define M 32
#define W 3
#define STRIDE (251 * 8)

static const struct fl_variant *V;
static char *mem;
static _Atomic pid_t tids[M * W];
static _Atomic int passed[M * W], npassed, last;
static int results[M * W];

static void *sem_at(int i)
{
	return mem + (size_t)i * STRIDE;
}

static bool timed(int id)
{
	int i = id / W, j = id % W;
	return (j == 1 && i % 3 == 0) || (j == 0 && i % 4 == 1) || i == 7;
}

static void *waiter(void *p)
{
	int id = (int)(intptr_t)p;
	atomic_store(&tids[id], gettid());
	void *s = sem_at(id / W);
	int r;
	if (timed(id)) {
		struct timespec dl = fl_deadline_after_ns(500000000);
		while ((r = V->timedwait(s, &dl)) == EINTR)
			;
	} else {
		while ((r = V->wait(s)) == EINTR)
			;
	}
	results[id] = r;
	if (r == 0) {
		atomic_store(&passed[id], 1);
		atomic_store(&last, id);
		atomic_fetch_add(&npassed, 1);
	}
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

static void t_collisions(void *arg)
{
	(void)arg;
	mem = aligned_alloc(64, ((size_t)(M + 1) * STRIDE + 63) / 64 * 64);
	for (int i = 0; i <= M; i++)
		CHECK(V->init(sem_at(i), 0, 0) == 0, "init %d", i);
	pthread_t t[M * W];
	for (int i = 0; i < M; i++)
		for (int j = 0; j < W; j++) { /* (i,0) queues before (i,1) */
			int id = i * W + j;
			pthread_create(&t[id], NULL, waiter, (void *)(intptr_t)id);
			CHECK(wait_sleeping(&tids[id], 1, 5000), "waiter %d asleep", id);
		}
	for (int id = 0; id < M * W; id++)
		if (timed(id)) {
			pthread_join(t[id], NULL);
			CHECK(results[id] == ETIMEDOUT, "timed waiter %d: %d", id, results[id]);
		}
	/* A post to semaphore M, same root, nobody waiting on it. */
	CHECK(V->post(sem_at(M), 1) == 0, "post to an idle neighbour");
	struct timespec settle = { 0, 20000000 };
	nanosleep(&settle, NULL);
	CHECK(atomic_load(&npassed) == 0, "a neighbour's post released %d", atomic_load(&npassed));
	CHECK(V->getvalue(sem_at(M)) == 1, "the neighbour keeps its token");
	/* Post to the others in a shuffled order, one token at a time. */
	int order[M * W], n = 0;
	for (int round = 0; round < W; round++)
		for (int k = 0; k < M; k++)
			order[n++] = (k * 7 + round * 3) % M;
	int expect_passed = 0;
	for (int q = 0; q < n; q++) {
		int i = order[q], oldest = -1;
		for (int j = 0; j < W && oldest < 0; j++)
			if (!timed(i * W + j) && !atomic_load(&passed[i * W + j]))
				oldest = i * W + j;
		if (oldest < 0)
			continue; /* no sleeper left on it */
		CHECK(V->post(sem_at(i), 1) == 0, "post %d", i);
		expect_passed++;
		CHECK(until_passed(expect_passed), "post to %d released nobody", i);
		CHECK(atomic_load(&npassed) == expect_passed && atomic_load(&last) == oldest,
		      "post to %d: %d passed, last %d, expected %d", i, atomic_load(&npassed),
		      atomic_load(&last), oldest);
		if (test_failed_now)
			break;
	}
	for (int id = 0; id < M * W; id++)
		if (!timed(id)) {
			if (!atomic_load(&passed[id]))
				V->post(sem_at(id / W), 1); /* release stragglers after a failure */
			pthread_join(t[id], NULL);
		}
	for (int i = 0; i < M; i++)
		CHECK(V->getvalue(sem_at(i)) == 0, "semaphore %d ends at %d", i, V->getvalue(sem_at(i)));
	free(mem);
}

int main(void)
{
	V = fl_variant_find("gosema");
	if (!V) {
		fprintf(stderr, "gosema not registered\n");
		return 1;
	}
	void *p = aligned_alloc(64, 64);
	CHECK(V->init(p, 1, 1) == ENOTSUP, "pshared is ENOTSUP");
	free(p);
	run_test("gosema_collisions_fifo", t_collisions, NULL, 60);
	return tests_done("gosema");
}
