/* tests/test_exclusion.c — K tokens admit at most K holders, under the
 * park policy and under spinning ones.
 *
 *   test_exclusion VARIANT
 *
 * The conformance suite checks token conservation (initial + posts ==
 * acquisitions + final value); a design that hands out a token it does not
 * have and repays it later with a token nobody sees can still conserve. This
 * test counts holders: T threads acquire (wait, timedwait or trywait), check
 * that no more than K hold a token at once, and release. Waits go through
 * fl_wait / fl_timedwait (variants/policy.h), under park, under spin:100
 * and under FUTEXLAB_POLICY when it names another policy
 * (tests/policy_env.h): a policy's re-tries are a second path to a token,
 * and a re-try that takes one it cannot own is caught here. A holder
 * sometimes yields its CPU while it holds, so other takers run while a
 * token is out: a holding interval a scheduler quantum long, where a
 * second holder shows (tests/mutants' mut_policy_credit_neg).
 * Linked against the race-window build so the designs' windows are
 * widened. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "tests/check.h"
#include "lib/clock.h"
#include "tests/policy_env.h"
#include "tests/value.h"
#include "variants/policy.h"
#include "variants/variant.h"

static const struct fl_variant *V;

struct ex {
	void *s;
	int k, iters;
	_Atomic int holders, max_seen, errors;
};

static void *worker(void *p)
{
	struct ex *e = p;
	uint64_t x = (uint64_t)(uintptr_t)&x ^ (uint64_t)fl_now_ns();
	for (int i = 0; i < e->iters; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int op = (int)(x % 10), r;
		if (op < 5) {
			while ((r = fl_wait(V, e->s)) == EINTR)
				;
		} else if (op < 8) {
			struct timespec dl = fl_deadline_after_ns((int64_t)(x >> 40) % 100000);
			while ((r = fl_timedwait(V, e->s, &dl)) == EINTR)
				;
		} else {
			r = V->trywait(e->s);
		}
		if (r != 0) {
			if (r != EAGAIN && r != ETIMEDOUT)
				atomic_fetch_add(&e->errors, 1);
			continue;
		}
		int h = atomic_fetch_add(&e->holders, 1) + 1;
		int m = atomic_load(&e->max_seen);
		while (h > m && !atomic_compare_exchange_weak(&e->max_seen, &m, h))
			;
		for (volatile int spin = 0; spin < (int)(x >> 58); spin++)
			;
		if ((x >> 20) % 512 == 0)
			sched_yield(); /* hold across a reschedule: others run meanwhile */
		atomic_fetch_sub(&e->holders, 1);
		if (V->post(e->s, 1) != 0)
			atomic_fetch_add(&e->errors, 1);
	}
	return NULL;
}

static void run(int k, int threads, int iters)
{
	struct ex e = { .s = aligned_alloc(64, 64), .k = k, .iters = iters };
	CHECK(V->init(e.s, (unsigned)k, 0) == 0, "init(%d)", k);
	pthread_t t[8];
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, &e);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	CHECK(atomic_load(&e.errors) == 0, "%d unexpected results", atomic_load(&e.errors));
	char pol[FL_POLICY_TEXT_MAX];
	struct fl_policy p = fl_policy_get();
	fl_policy_format(&p, pol, sizeof pol);
	CHECK(atomic_load(&e.max_seen) <= k, "policy %s: %d holders of %d tokens at once", pol,
	      atomic_load(&e.max_seen), k);
	int fin = fl_test_value(V, e.s); /* the workers joined: draining is exact */
	CHECK(fin == k, "policy %s: final value %d, expected %d", pol, fin, k);
	V->destroy(e.s);
	free(e.s);
}

static void t_exclusion(void *arg)
{
	int scale = *(int *)arg;
	struct fl_policy env = test_policy_env("test_exclusion");
	struct fl_policy list[3] = { FL_POLICY_PARK_INIT, { FL_POLICY_SPIN, 100 }, env };
	bool listed = env.kind == FL_POLICY_PARK || (env.kind == FL_POLICY_SPIN && env.bound == 100);
	int n = listed ? 2 : 3;
	for (int i = 0; i < n; i++) {
		fl_policy_set(&list[i]);
		run(1, 4, 20000 / scale);
		if (V->value_max >= 2)
			run(2, 6, 10000 / scale);
	}
	struct fl_policy park = FL_POLICY_PARK_INIT;
	fl_policy_set(&park);
}

int main(int argc, char **argv)
{
	if (argc < 2 || !(V = fl_variant_find(argv[1]))) {
		fprintf(stderr, "usage: test_exclusion VARIANT\n");
		return 2;
	}
	const char *why = V->unavailable ? V->unavailable() : NULL;
	if (why) {
		printf("SKIP %s: %s\n", V->name, why);
		return 77;
	}
	int scale = getenv("FL_TEST_SCALE") ? atoi(getenv("FL_TEST_SCALE")) : 1;
	if (scale < 1)
		scale = 1;
	printf("# variant %s\n", V->name);
	test_policy_setup("test_exclusion", V); /* (prints it; t_exclusion sets each in turn) */
	run_test("exclusion", t_exclusion, &scale, 120);
	return tests_done(V->name);
}
