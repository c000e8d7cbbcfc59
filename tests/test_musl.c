/* tests/test_musl.c — musl's pending wakes are value, and can be stolen.
 *
 * The musl thread (Monakov's rule): with nothing concurrent, getvalue equals the
 * number of trywaits that succeed in a row, so a pending wake in val[1] is
 * value and trywait must be able to take it. To hold the design still in
 * that state, a sleeper W is parked inside a signal handler (it blocks on
 * a pipe there, interrupted mid-sleep, holding its claim). A post then
 * resolves W's claim into a pending wake nobody consumes: getvalue must be
 * 1, one trywait must succeed (stealing the wake and leaving a claim in
 * W's place), the next must fail, and getvalue must then be 0. Released, W
 * must leave by one of the two exits (EINTR with its claim removed, or
 * sleep again and take the next post), and the tokens must balance. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tests/check.h"
#include "lib/clock.h"
#include "tests/sleepers.h"
#include "variants/variant.h"

static const struct fl_variant *V;
static void *S;
static int pipefd[2];
static _Atomic pid_t w_tid;
static _Atomic int in_handler, w_result = -1;

static void park_in_handler(int sig)
{
	(void)sig;
	char c;
	atomic_store(&in_handler, 1);
	while (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
		;
}

static void *sleeper(void *arg)
{
	(void)arg;
	atomic_store(&w_tid, gettid());
	struct timespec dl = fl_deadline_after_ns(30LL * 1000000000);
	atomic_store(&w_result, V->timedwait(S, &dl));
	return NULL;
}

static void t_pending_wake_is_value(void *arg)
{
	(void)arg;
	struct sigaction sa = { .sa_handler = park_in_handler }; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	CHECK(pipe(pipefd) == 0, "pipe");
	S = aligned_alloc(64, 64);
	CHECK(V->init(S, 0, 0) == 0, "init");
	pthread_t t;
	pthread_create(&t, NULL, sleeper, NULL);
	CHECK(wait_sleeping(&w_tid, 1, 5000), "W asleep");
	pthread_kill(t, SIGUSR1);
	for (int i = 0; i < 5000 && !atomic_load(&in_handler); i++) {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	CHECK(atomic_load(&in_handler), "W parked in its handler");
	CHECK(V->getvalue(S) == 0, "value 0 with W's claim outstanding");
	CHECK(V->post(S, 1) == 0, "post resolves W's claim");
	CHECK(V->getvalue(S) == 1, "the pending wake is value: %d", V->getvalue(S));
	CHECK(V->trywait(S) == 0, "trywait steals the pending wake");
	CHECK(V->trywait(S) == EAGAIN, "and only one");
	CHECK(V->getvalue(S) == 0, "value 0 after the steal: %d", V->getvalue(S));
	CHECK(write(pipefd[1], "x", 1) == 1, "release W");
	/* W either returns EINTR (its claim removed) or sleeps on: then it
	 * must take the next token. */
	for (int i = 0; i < 200 && atomic_load(&w_result) == -1; i++) {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	int r = atomic_load(&w_result);
	if (r == -1) {
		CHECK(V->post(S, 1) == 0, "post for W");
		pthread_join(t, NULL);
		CHECK(atomic_load(&w_result) == 0, "W takes the second token: %d",
		      atomic_load(&w_result));
	} else {
		pthread_join(t, NULL);
		CHECK(r == EINTR, "W leaves with EINTR and no token: %d", r);
		CHECK(V->post(S, 1) == 0 && V->getvalue(S) == 1, "W left no claim behind");
		CHECK(V->trywait(S) == 0, "so the next token is there");
	}
	CHECK(V->getvalue(S) == 0, "value 0 at the end: %d", V->getvalue(S));
	CHECK(V->trywait(S) == EAGAIN, "and no token left");
	V->destroy(S);
	free(S);
	close(pipefd[0]);
	close(pipefd[1]);
}

int main(void)
{
	V = fl_variant_find("musl");
	if (!V) {
		fprintf(stderr, "musl not registered\n");
		return 1;
	}
	run_test("musl_pending_wake_is_value", t_pending_wake_is_value, NULL, 30);
	return tests_done("musl");
}
