/* tests/test_lock1.c — the lock of one token survives over-release.
 *
 * The negative-counter note: the capped semaphore's release clamps with a CAS,
 * so however many threads release at once there is never a second permit, and
 * so never a second holder once the lock is taken. Each round: K threads
 * release at the same instant (one legitimate unlock of the previous round's
 * holder plus K-1 over-releases), the value must then be exactly 1; then all K
 * race to acquire and exactly one may win. A sampler thread reads the value all
 * the time and must never see more than 1. A second test puts a sleeper on the
 * lock and over-releases into it: the sleeper gets the first release, one
 * permit remains, the rest vanish. Replace the clamp with a plain add
 * (fl_negcount_post) and both fail. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tests/check.h"
#include "lib/clock.h"
#include "tests/sleepers.h"
#include "variants/variant.h"

#define K 4

static const struct fl_variant *V;
static void *S;
static pthread_barrier_t bar;
static int rounds;
static _Atomic int holders, max_holders, wins, max_value, stop;
static _Atomic int bad_rounds_value, bad_rounds_wins;

static void note_max(_Atomic int *m, int v)
{
	int cur = atomic_load(m);
	while (v > cur && !atomic_compare_exchange_weak(m, &cur, v))
		;
}

static void *sampler(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		note_max(&max_value, V->getvalue(S));
	return NULL;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	for (int r = 0; r < rounds; r++) {
		pthread_barrier_wait(&bar);
		CHECK(V->post(S, 1) == 0, "capped post returns 0");
		pthread_barrier_wait(&bar);
		if (id == 0) {
			int v = V->getvalue(S);
			if (v != 1)
				atomic_fetch_add(&bad_rounds_value, 1);
			atomic_store(&wins, 0);
		}
		pthread_barrier_wait(&bar);
		if (V->trywait(S) == 0) {
			atomic_fetch_add(&wins, 1);
			note_max(&max_holders, atomic_fetch_add(&holders, 1) + 1);
			fl_busy_ns(2000); /* hold it while the others try */
			atomic_fetch_sub(&holders, 1);
		}
		pthread_barrier_wait(&bar);
		if (id == 0 && atomic_load(&wins) != 1)
			atomic_fetch_add(&bad_rounds_wins, 1);
	}
	return NULL;
}

static void t_over_release(void *arg)
{
	int scale = *(int *)arg;
	rounds = 4000 / scale;
	S = aligned_alloc(64, 64);
	CHECK(V->init(S, 0, 0) == 0, "init held");
	pthread_barrier_init(&bar, NULL, K);
	pthread_t t[K], smp;
	pthread_create(&smp, NULL, sampler, NULL);
	for (int i = 0; i < K; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < K; i++)
		pthread_join(t[i], NULL);
	atomic_store(&stop, 1);
	pthread_join(smp, NULL);
	CHECK(atomic_load(&bad_rounds_value) == 0,
	      "%d of %d rounds: value after %d concurrent releases was not 1",
	      atomic_load(&bad_rounds_value), rounds, K);
	CHECK(atomic_load(&bad_rounds_wins) == 0,
	      "%d of %d rounds: not exactly one of %d acquirers won",
	      atomic_load(&bad_rounds_wins), rounds, K);
	CHECK(atomic_load(&max_holders) == 1, "at most one holder: saw %d",
	      atomic_load(&max_holders));
	CHECK(atomic_load(&max_value) <= 1, "never a second permit: value reached %d",
	      atomic_load(&max_value));
	pthread_barrier_destroy(&bar);
	V->destroy(S);
	free(S);
}

/* ---- a sleeper on the lock, then an over-release burst ------------------ */

static _Atomic pid_t sleeper_tid;
static pthread_barrier_t burst;

static void *sleeper(void *arg)
{
	(void)arg;
	atomic_store(&sleeper_tid, gettid());
	int r;
	while ((r = V->wait(S)) == EINTR)
		;
	CHECK(r == 0, "sleeper acquires");
	return NULL;
}

static void *releaser(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&burst);
	V->post(S, 1);
	return NULL;
}

static void t_sleeper_burst(void *arg)
{
	int scale = *(int *)arg;
	S = aligned_alloc(64, 64);
	for (int round = 0; round < 200 / scale; round++) {
		CHECK(V->init(S, 0, 0) == 0, "init held");
		atomic_store(&sleeper_tid, 0);
		pthread_t sl, rel[K];
		pthread_create(&sl, NULL, sleeper, NULL);
		CHECK(wait_sleeping(&sleeper_tid, 1, 5000), "sleeper asleep");
		pthread_barrier_init(&burst, NULL, K);
		for (int i = 0; i < K; i++)
			pthread_create(&rel[i], NULL, releaser, NULL);
		for (int i = 0; i < K; i++)
			pthread_join(rel[i], NULL);
		pthread_join(sl, NULL);
		pthread_barrier_destroy(&burst);
		/* The sleeper holds the first release; of the other K-1, one permit. */
		int v = V->getvalue(S);
		CHECK(v == 1, "round %d: one permit left beside the woken sleeper: %d", round, v);
		CHECK(V->trywait(S) == 0, "round %d: that permit is takeable", round);
		CHECK(V->trywait(S) == EAGAIN, "round %d: and there is no second one", round);
		V->destroy(S);
		if (test_failed_now)
			break;
	}
	free(S);
}

int main(void)
{
	V = fl_variant_find("lock1");
	if (!V) {
		fprintf(stderr, "lock1 not registered\n");
		return 1;
	}
	const char *sc = getenv("FL_TEST_SCALE");
	int scale = sc && atoi(sc) > 0 ? atoi(sc) : 1;
	run_test("lock1_over_release", t_over_release, &scale, 60);
	run_test("lock1_sleeper_then_burst", t_sleeper_burst, &scale, 60);
	return tests_done("lock1");
}
