/* tests/test_exclusion.c — K tokens admit at most K holders, with and
 * without spin-then-park.
 *
 *   test_exclusion VARIANT
 *
 * The conformance suite checks token conservation (initial + posts ==
 * acquisitions + final value); a design that hands out a token it does not
 * have and repays it later with a token nobody sees can still conserve. This
 * test counts holders: T threads acquire (wait, timedwait or trywait), check
 * that no more than K hold a token at once, and release. It runs once with
 * no spin and once with --spin 100 (lib/wake.h), since the spin is a second
 * path to a token: a spinner that takes one it cannot own is caught here.
 * A holder sometimes yields its CPU while it holds, so other takers run
 * while a token is out: a holding interval a scheduler quantum long, where a
 * second holder shows (tests/mutants' mut_neg_spin_credit).
 * Linked against the race-window build so the windows inside the spin are
 * widened. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#include "tests/check.h"
#include "lib/clock.h"
#include "tests/value.h"
#include "variants/variant.h"
#include "lib/wake.h"

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
			while ((r = V->wait(e->s)) == EINTR)
				;
		} else if (op < 8) {
			struct timespec dl = fl_deadline_after_ns((int64_t)(x >> 40) % 100000);
			while ((r = V->timedwait(e->s, &dl)) == EINTR)
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
	CHECK(atomic_load(&e.max_seen) <= k, "spin %d: %d holders of %d tokens at once",
	      fl_spin_get(), atomic_load(&e.max_seen), k);
	int fin = fl_test_value(V, e.s); /* the workers joined: draining is exact */
	CHECK(fin == k, "spin %d: final value %d, expected %d", fl_spin_get(), fin, k);
	V->destroy(e.s);
	free(e.s);
}

static void t_exclusion(void *arg)
{
	int scale = *(int *)arg;
	for (int spin = 0; spin <= 100; spin += 100) {
		fl_spin_set(spin);
		run(1, 4, 20000 / scale);
		if (V->value_max >= 2)
			run(2, 6, 10000 / scale);
	}
	fl_spin_set(0);
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
	run_test("exclusion", t_exclusion, &scale, 120);
	return tests_done(V->name);
}
