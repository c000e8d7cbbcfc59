/* tests/conformance.c — the shared suite every registered variant must pass.
 *
 *   conformance VARIANT [--stress-only]
 *
 * meson registers one test per entry of variants/meson.build, so a new
 * design is covered the moment it is registered, and again per waiting
 * policy (FUTEXLAB_POLICY, tests/policy_env.h): every wait goes through
 * fl_wait / fl_timedwait (variants/policy.h). --stress-only runs the
 * multi-threaded tests alone (the ThreadSanitizer build uses it).
 * Timing appears only as one-sided correctness bounds (a timeout never
 * fires early; a past deadline does not sleep for seconds), never as a
 * speed requirement. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <stdbool.h>
#include <stdint.h>

#include "tests/check.h"
#include "lib/clock.h"
#include "tests/sleepers.h"
#include "tests/policy_env.h"
#include "tests/value.h"
#include "variants/policy.h"
#include "variants/variant.h"

static const struct fl_variant *V;

/* ---- helpers --------------------------------------------------------- */

struct sem {
	void *s;
};

static void *new_state(void)
{
	void *p = aligned_alloc(64, 64);
	memset(p, 0xA5, 64); /* the design must not rely on zeroed memory */
	return p;
}

static struct sem mk(unsigned value)
{
	struct sem m = { new_state() };
	int r = V->init(m.s, value, 0);
	if (r) {
		fprintf(stderr, "init(%u) failed: %s\n", value, strerror(r));
		exit(1);
	}
	return m;
}

static void rm(struct sem m)
{
	V->destroy(m.s);
	free(m.s);
}

static int wait_noeintr(void *s)
{
	int r;
	while ((r = fl_wait(V, s)) == EINTR)
		;
	return r;
}

static int timedwait_ns(void *s, int64_t rel_ns)
{
	struct timespec dl = fl_deadline_after_ns(rel_ns);
	int r;
	while ((r = fl_timedwait(V, s, &dl)) == EINTR)
		;
	return r;
}

static void *dump_sem;
static void dump(void)
{
	if (!dump_sem)
		return;
	char buf[128];
	/* (from the watchdog, threads still running: no draining here) */
	int n = V->getvalue ? snprintf(buf, sizeof buf, "  state of %s: getvalue=%d words:",
				       V->name, V->getvalue(dump_sem))
			    : snprintf(buf, sizeof buf, "  state of %s: (no getvalue) words:", V->name);
	_Atomic uint32_t *w[4];
	int nw = V->words ? V->words(dump_sem, w, 4) : 0;
	for (int i = 0; i < nw && n < (int)sizeof buf - 16; i++)
		n += snprintf(buf + n, sizeof buf - (size_t)n, " %d", (int)atomic_load(w[i]));
	buf[n++] = '\n';
	if (write(2, buf, (size_t)n) < 0)
		_exit(3);
}

/* ---- single-threaded semantics ---------------------------------------- */

static void t_init_value(void *arg)
{
	(void)arg;
	unsigned vals[] = { 0, 1, 5, (unsigned)V->value_max };
	for (unsigned i = 0; i < 4; i++) {
		if (vals[i] > (unsigned)V->value_max)
			continue;
		struct sem m = mk(vals[i]);
		if (!V->getvalue && vals[i] > 5) {
			/* FL_NO_GETVALUE: value_max tokens are too many to count by
			 * draining; that there is one is what can be checked. */
			printf("     (init_value: %s has no getvalue: init(%u) checked by one trywait)\n",
			       V->name, vals[i]);
			CHECK(V->trywait(m.s) == 0, "init(%u) holds a token", vals[i]);
			rm(m);
			continue;
		}
		CHECK(fl_test_value(V, m.s) == (int)vals[i], "init(%u) reads %d", vals[i], fl_test_value(V, m.s));
		rm(m);
	}
	if ((unsigned)V->value_max < UINT_MAX) {
		void *p = new_state();
		CHECK(V->init(p, (unsigned)V->value_max + 1, 0) == EINVAL, "init above value_max is EINVAL");
		free(p);
	}
}

static void t_trywait(void *arg)
{
	(void)arg;
	bool two = V->value_max >= 2; /* a capacity of one (lock1) holds one */
	struct sem m = mk(two ? 2 : 1);
	CHECK(V->trywait(m.s) == 0, "first");
	CHECK(!two || V->trywait(m.s) == 0, "second");
	CHECK(V->trywait(m.s) == EAGAIN, "then EAGAIN");
	CHECK(fl_test_value(V, m.s) == 0, "value 0, not negative: %d", fl_test_value(V, m.s));
	rm(m);
}

static void t_post_wait(void *arg)
{
	(void)arg;
	struct sem m = mk(0);
	CHECK(V->post(m.s, 1) == 0, "post");
	CHECK(fl_test_value(V, m.s) == 1, "value 1");
	CHECK(wait_noeintr(m.s) == 0, "wait takes it");
	CHECK(fl_test_value(V, m.s) == 0, "value 0");
	if (V->value_max < 5) {
		rm(m);
		return;
	}
	CHECK(V->post(m.s, 5) == 0, "post(5)");
	CHECK(fl_test_value(V, m.s) == 5, "value 5: %d", fl_test_value(V, m.s));
	for (int i = 0; i < 5; i++)
		CHECK(V->trywait(m.s) == 0, "token %d", i);
	CHECK(V->trywait(m.s) == EAGAIN, "no sixth token");
	rm(m);
}

/* The inline form's loop (variant.h, .pairs) is the design's post and
 * wait: n pairs leave the value where they found it, from 0 and from 1. */
static void t_pairs(void *arg)
{
	(void)arg;
	if (!V->pairs) {
		SKIP_TEST("no inline form (.pairs)");
		return;
	}
	struct sem m = mk(0);
	CHECK(V->pairs(V, m.s, 1000) == 0, "1000 pairs from 0");
	CHECK(V->trywait(m.s) == EAGAIN, "no token left");
	rm(m);
	if (V->value_max < 2)
		return; /* a capacity of one absorbs the post onto 1 */
	m = mk(1);
	CHECK(V->pairs(V, m.s, 257) == 0, "257 pairs from 1");
	CHECK(V->trywait(m.s) == 0, "the token it found");
	CHECK(V->trywait(m.s) == EAGAIN, "and no other");
	rm(m);
}

static void t_timedwait_past(void *arg)
{
	(void)arg;
	struct sem m = mk(0);
	int64_t t0 = fl_now_ns();
	CHECK(timedwait_ns(m.s, -1000000) == ETIMEDOUT, "past deadline, no token");
	struct timespec zero = { 0, 0 }, neg = { -1, 0 };
	CHECK(fl_timedwait(V, m.s, &zero) == ETIMEDOUT, "deadline at the clock's epoch");
	CHECK(fl_timedwait(V, m.s, &neg) == ETIMEDOUT, "negative deadline");
	CHECK(fl_now_ns() - t0 < 1000000000, "past deadlines do not sleep");
	CHECK(fl_test_value(V, m.s) == 0, "value unchanged: %d", fl_test_value(V, m.s));
	/* a token that is there is taken whatever the deadline says */
	V->post(m.s, 1);
	CHECK(timedwait_ns(m.s, -1000000) == 0, "past deadline, token available");
	V->post(m.s, 1);
	struct timespec bad = { 0, 2000000000 };
	CHECK(fl_timedwait(V, m.s, &bad) == 0, "bad deadline, token available: taken");
	CHECK(fl_timedwait(V, m.s, &bad) == EINVAL, "bad deadline, no token: EINVAL");
	CHECK(fl_test_value(V, m.s) == 0, "value still 0");
	V->post(m.s, 1);
	CHECK(V->trywait(m.s) == 0, "semaphore still works after EINVAL");
	rm(m);
}

static void t_timedwait_never_early(void *arg)
{
	(void)arg;
	struct sem m = mk(0);
	struct timespec dl = fl_deadline_after_ns(20000000);
	int r;
	while ((r = fl_timedwait(V, m.s, &dl)) == EINTR)
		;
	CHECK(r == ETIMEDOUT, "times out: %d", r);
	CHECK(fl_deadline_passed(&dl), "not before the deadline");
	rm(m);
}

static void t_thousand_1ms(void *arg)
{
	(void)arg;
	/* The negative-counter note: 1000 timed waits of 1 ms take at least 500
	 * ms in total; catches conversion mistakes and sentinel collisions. */
	struct sem m = mk(0);
	int64_t t0 = fl_now_ns();
	int timeouts = 0;
	for (int i = 0; i < 1000; i++)
		timeouts += timedwait_ns(m.s, 1000000) == ETIMEDOUT;
	int64_t total = fl_now_ns() - t0;
	CHECK(timeouts == 1000, "%d of 1000 timed out", timeouts);
	CHECK(total >= 500000000, "1000 x 1 ms took only %lld ns", (long long)total);
	rm(m);
}

static void t_overflow(void *arg)
{
	(void)arg;
	/* Post until EOVERFLOW: the value reaches value_max, never wraps or
	 * turns into phantom waiters, and a failed post changes nothing. */
	if (V->flags & FL_NO_OVERFLOW) {
		/* The design cannot see its value: a post past value_max is the
		 * caller's error (undefined in its own API), never EOVERFLOW.
		 * What it can refuse is a single post of more than value_max. */
		printf("     (overflow: %s declares FL_NO_OVERFLOW: post past value_max is undefined "
		       "there; only post(n > value_max) is checked)\n", V->name);
		struct sem m = mk(0);
		if ((unsigned)V->value_max < UINT_MAX)
			CHECK(V->post(m.s, (unsigned)V->value_max + 1) == EOVERFLOW,
			      "post(value_max + 1) is EOVERFLOW");
		CHECK(V->trywait(m.s) == EAGAIN, "and posted nothing");
		rm(m);
		return;
	}
	struct sem m = mk((unsigned)V->value_max);
	if (V->flags & FL_CAPPED) {
		/* A capacity, not an overflow: an over-release is absorbed. */
		for (int i = 0; i < 3; i++)
			CHECK(V->post(m.s, 1) == 0, "capped post returns 0");
		CHECK(fl_test_value(V, m.s) == V->value_max, "capped at %d: %d", V->value_max,
		      fl_test_value(V, m.s));
		for (int i = 0; i < V->value_max; i++)
			CHECK(V->trywait(m.s) == 0, "token %d", i);
		CHECK(V->trywait(m.s) == EAGAIN, "no token past the capacity");
		rm(m);
		return;
	}
	unsigned chunk = (unsigned)V->value_max;
	int rounds = 0;
	/* Big posts first, halving on each EOVERFLOW, down to post(1). */
	while (rounds++ < 200) {
		int before = fl_test_value(V, m.s);
		int r = V->post(m.s, chunk);
		CHECK(r == 0 || r == EOVERFLOW, "post(%u): %d", chunk, r);
		CHECK(fl_test_value(V, m.s) > 0, "value wrapped: %d", fl_test_value(V, m.s));
		if (r == EOVERFLOW) {
			CHECK(fl_test_value(V, m.s) == before, "EOVERFLOW changed the value: %d -> %d",
			      before, fl_test_value(V, m.s));
			if (chunk == 1)
				break;
			chunk /= 2;
		}
	}
	CHECK(chunk == 1, "post(1) never overflowed");
	int before = fl_test_value(V, m.s);
	CHECK(before >= V->value_max, "value %d reached value_max %d", before, V->value_max);
	CHECK(V->post(m.s, 1) == EOVERFLOW, "post(1) at the top is EOVERFLOW");
	CHECK(fl_test_value(V, m.s) == before, "EOVERFLOW left the value unchanged: %d -> %d", before,
	      fl_test_value(V, m.s));
	CHECK(V->trywait(m.s) == 0, "a token can still be taken");
	CHECK(fl_test_value(V, m.s) == before - 1, "and the value drops by one");
	CHECK(V->post(m.s, 1) == 0, "then one post fits again");
	rm(m);
}

/* ---- threads --------------------------------------------------------- */

#define NW 4
static _Atomic pid_t tids[NW];
static _Atomic int passed;

struct waiter_arg {
	struct sem m;
	int i;
	int64_t rel_ns; /* 0: untimed wait */
	int result;
};

static void *waiter(void *p)
{
	struct waiter_arg *a = p;
	atomic_store(&tids[a->i], gettid());
	a->result = a->rel_ns ? timedwait_ns(a->m.s, a->rel_ns) : wait_noeintr(a->m.s);
	if (a->result == 0)
		atomic_fetch_add(&passed, 1);
	return NULL;
}

static void settle(void)
{
	struct timespec ms = { 0, 50000000 };
	nanosleep(&ms, NULL);
}

static void until_passed(int n)
{
	for (int i = 0; i < 10000 && atomic_load(&passed) < n; i++) {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
}

/* POSIX sem_destroy: "It is safe to destroy an initialized semaphore upon
 * which no threads are currently blocked", and "a destroyed semaphore object
 * can be reinitialized using sem_init()". So a semaphore that was used —
 * tokens taken and posted, a waiter that slept on it and was released, a
 * wait that timed out, tokens still in it — can be destroyed, and the same
 * bytes initialised again behave as a NEW semaphore of the new value: no
 * token, waiter count or pending wake of the old use shows through. Every
 * step's result is checked: the old test only called the operations, and
 * could fail by crashing alone. */
static void t_destroy_after_use(void *arg)
{
	(void)arg;
	/* two tokens at once where the design has them */
	const unsigned n = V->value_max >= 2 && !(V->flags & FL_CAPPED) ? 2 : 1;
	void *p = new_state();
	for (int i = 0; i < 100; i++) {
		/* Every 10th round: with a sleeper, to leave waiter state behind. */
		const bool sleeper = i % 10 == 0;
		const unsigned v0 = i % 2; /* reinit to 0 and to 1 in turn */
		CHECK(V->init(p, 1, 0) == 0, "round %d: init(1) on reused bytes", i);
		CHECK(fl_test_value(V, p) == 1, "round %d: value after init(1): %d", i,
		      fl_test_value(V, p));
		CHECK(V->trywait(p) == 0, "round %d: trywait takes the initial token", i);
		CHECK(V->trywait(p) == EAGAIN, "round %d: and there is no second", i);
		CHECK(V->post(p, n) == 0, "round %d: post(%u)", i, n);
		CHECK(fl_test_value(V, p) == (int)n, "round %d: value after post(%u): %d", i, n,
		      fl_test_value(V, p));
		CHECK(wait_noeintr(p) == 0, "round %d: wait with a token there", i);
		CHECK(fl_test_value(V, p) == (int)n - 1, "round %d: value after the wait: %d", i,
		      fl_test_value(V, p));
		for (unsigned k = 1; k < n; k++)
			CHECK(V->trywait(p) == 0, "round %d: trywait takes token %u", i, k);
		if (sleeper) {
			struct waiter_arg a = { .m = { p }, .i = 0 };
			pthread_t t;
			atomic_store(&tids[0], 0);
			atomic_store(&passed, 0);
			pthread_create(&t, NULL, waiter, &a);
			CHECK(wait_sleeping(tids, 1, 5000), "round %d: waiter asleep", i);
			CHECK(V->post(p, 1) == 0, "round %d: post to the sleeper", i);
			pthread_join(t, NULL);
			CHECK(a.result == 0, "round %d: the sleeper took the token: %d", i, a.result);
		}
		CHECK(timedwait_ns(p, 1000000) == ETIMEDOUT, "round %d: a wait on the empty "
		      "semaphore times out", i);
		CHECK(V->post(p, n) == 0, "round %d: post(%u) left in at destroy", i, n);
		V->destroy(p);
		/* The same bytes, initialised again: a new semaphore. */
		CHECK(V->init(p, v0, 0) == 0, "round %d: init(%u) after destroy", i, v0);
		CHECK(fl_test_value(V, p) == (int)v0, "round %d: init(%u) after destroy: value %d "
		      "(the old semaphore's %u tokens showed through?)", i, v0, fl_test_value(V, p),
		      n);
		for (unsigned k = 0; k < v0; k++)
			CHECK(V->trywait(p) == 0, "round %d: the new semaphore's token %u", i, k);
		CHECK(V->trywait(p) == EAGAIN, "round %d: no token past init(%u) after destroy", i,
		      v0);
		CHECK(timedwait_ns(p, 1000000) == ETIMEDOUT, "round %d: a wait on the new empty "
		      "semaphore times out (no wake of the old one remembered)", i);
		if (sleeper) {
			/* and it still puts a waiter to sleep and wakes it */
			struct waiter_arg a = { .m = { p }, .i = 0 };
			pthread_t t;
			atomic_store(&tids[0], 0);
			pthread_create(&t, NULL, waiter, &a);
			CHECK(wait_sleeping(tids, 1, 5000), "round %d: waiter on the new one asleep",
			      i);
			CHECK(V->post(p, 1) == 0, "round %d: post to it", i);
			pthread_join(t, NULL);
			CHECK(a.result == 0, "round %d: it took the token: %d", i, a.result);
		}
		CHECK(V->post(p, 1) == 0 && fl_test_value(V, p) == 1 && V->trywait(p) == 0 &&
		      V->trywait(p) == EAGAIN, "round %d: the new semaphore counts a post as one "
		      "token", i);
		V->destroy(p);
		memset(p, i & 1 ? 0x00 : 0xA5, 64); /* and on bytes no init of ours wrote */
	}
	free(p);
}

static void t_post_n_wakes(void *arg)
{
	(void)arg;
	/* NW sleepers, post(2): exactly two pass, the rest keep sleeping; then
	 * post(NW - 2) releases the rest. Nobody passes without a token. */
	if (V->value_max < NW) {
		SKIP_TEST("value_max %d < %d: cannot hold a token per sleeper", V->value_max, NW);
		return;
	}
	struct sem m = mk(0);
	dump_sem = m.s;
	pthread_t t[NW];
	struct waiter_arg a[NW];
	atomic_store(&passed, 0);
	for (int i = 0; i < NW; i++) {
		atomic_store(&tids[i], 0);
		a[i] = (struct waiter_arg){ .m = m, .i = i };
		pthread_create(&t[i], NULL, waiter, &a[i]);
	}
	CHECK(wait_sleeping(tids, NW, 5000), "all waiters asleep");
	CHECK(V->post(m.s, 2) == 0, "post(2)");
	until_passed(2);
	settle();
	CHECK(atomic_load(&passed) == 2, "post(2) let %d through", atomic_load(&passed));
	CHECK(fl_test_value(V, m.s) == 0, "value 0 with waiters left: %d", fl_test_value(V, m.s));
	CHECK(V->post(m.s, NW - 2) == 0, "post(rest)");
	for (int i = 0; i < NW; i++)
		pthread_join(t[i], NULL);
	CHECK(atomic_load(&passed) == NW, "all passed");
	CHECK(fl_test_value(V, m.s) == 0, "value 0 at the end: %d", fl_test_value(V, m.s));
	dump_sem = NULL;
	rm(m);
}

static void t_post_one_by_one(void *arg)
{
	(void)arg;
	/* Sleepers released by separate post(1) calls, each letting exactly
	 * one more through. */
	struct sem m = mk(0);
	dump_sem = m.s;
	pthread_t t[NW];
	struct waiter_arg a[NW];
	atomic_store(&passed, 0);
	for (int i = 0; i < NW; i++) {
		atomic_store(&tids[i], 0);
		a[i] = (struct waiter_arg){ .m = m, .i = i, .rel_ns = 30LL * 1000000000 };
		pthread_create(&t[i], NULL, waiter, &a[i]);
	}
	CHECK(wait_sleeping_timed(tids, NW, 5000), "all (timed) waiters asleep");
	for (int k = 1; k <= NW; k++) {
		V->post(m.s, 1);
		until_passed(k);
		CHECK(atomic_load(&passed) == k, "after %d posts %d passed", k, atomic_load(&passed));
	}
	for (int i = 0; i < NW; i++) {
		pthread_join(t[i], NULL);
		CHECK(a[i].result == 0, "waiter %d: %d", i, a[i].result);
	}
	CHECK(fl_test_value(V, m.s) == 0, "value 0");
	dump_sem = NULL;
	rm(m);
}

static void t_timeout_with_sleepers(void *arg)
{
	(void)arg;
	/* Timed waiters time out and leave; an untimed sleeper beside them still
	 * gets the next token (a timeout must not take its claim with it). */
	struct sem m = mk(0);
	dump_sem = m.s;
	pthread_t t[3];
	struct waiter_arg a[3];
	atomic_store(&passed, 0);
	for (int i = 0; i < 3; i++) {
		atomic_store(&tids[i], 0);
		a[i] = (struct waiter_arg){ .m = m, .i = i, .rel_ns = i == 0 ? 0 : 20000000 };
		pthread_create(&t[i], NULL, waiter, &a[i]);
	}
	pthread_join(t[1], NULL);
	pthread_join(t[2], NULL);
	CHECK(a[1].result == ETIMEDOUT && a[2].result == ETIMEDOUT, "timed waiters time out");
	CHECK(fl_test_value(V, m.s) == 0, "timeouts leave value 0: %d", fl_test_value(V, m.s));
	CHECK(wait_sleeping(tids, 1, 5000), "untimed waiter asleep");
	V->post(m.s, 1);
	pthread_join(t[0], NULL);
	CHECK(a[0].result == 0, "untimed waiter got the token");
	CHECK(fl_test_value(V, m.s) == 0, "value 0");
	dump_sem = NULL;
	rm(m);
}

/* Token conservation under a random mix: initial + posts == acquisitions +
 * final value. Each worker holds at most one token and returns it before it
 * blocks again, so a correct design cannot deadlock: a hang is a lost token
 * or a lost wakeup, and the watchdog reports it with the state. */
struct stress {
	struct sem m;
	int iters;
	_Atomic int64_t posts, acq;
	_Atomic int errors;
};

static void *stress_worker(void *p)
{
	struct stress *st = p;
	uint64_t x = (uint64_t)(uintptr_t)&x ^ (uint64_t)fl_now_ns();
	int64_t posts = 0, acq = 0;
	for (int i = 0; i < st->iters; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int op = (int)(x % 100), r;
		if (op < 35) {
			r = wait_noeintr(st->m.s);
		} else if (op < 55) {
			r = V->trywait(st->m.s);
		} else if (op < 80) {
			r = timedwait_ns(st->m.s, (int64_t)(x >> 40) % 200000);
		} else if (op < 85) {
			r = timedwait_ns(st->m.s, -1);
		} else if (V->flags & FL_CAPPED) {
			continue; /* extra posts would be absorbed by the cap */
		} else {
			unsigned n = 1 + (unsigned)(x >> 33) % 3;
			if (V->post(st->m.s, n) == 0)
				posts += n;
			else
				atomic_fetch_add(&st->errors, 1);
			continue;
		}
		if (r == 0) {
			acq++;
			if (V->post(st->m.s, 1) == 0)
				posts++;
			else
				atomic_fetch_add(&st->errors, 1);
		} else if (r != EAGAIN && r != ETIMEDOUT) {
			atomic_fetch_add(&st->errors, 1);
		}
	}
	atomic_fetch_add(&st->posts, posts);
	atomic_fetch_add(&st->acq, acq);
	return NULL;
}

static void stress_run(unsigned initial, int threads, int iters)
{
	struct stress st = { .m = mk(initial), .iters = iters };
	dump_sem = st.m.s;
	pthread_t t[16];
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, stress_worker, &st);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	int64_t final = fl_test_value(V, st.m.s);
	CHECK(atomic_load(&st.errors) == 0, "%d unexpected results", atomic_load(&st.errors));
	CHECK((int64_t)initial + st.posts == st.acq + final,
	      "tokens not conserved: initial %u + posts %lld != acquisitions %lld + final %lld",
	      initial, (long long)st.posts, (long long)st.acq, (long long)final);
	dump_sem = NULL;
	rm(st.m);
}

static void t_stress(void *arg)
{
	int scale = *(int *)arg;
	stress_run(1, 4, 20000 / scale);
	stress_run(V->value_max >= 2 ? 2 : 1, 8, 5000 / scale);
}

/* The negative-counter note's race: a post lands on a waiter's deadline, over
 * and over. Each round has a timed waiter T (deadline D) and, every other round
 * at random, an untimed waiter U on the same semaphore; one post lands near D.
 * Whatever T reports, the token is owned exactly once: if T took it, the test
 * posts a second for U; otherwise U must be released by the first. A timed-out
 * T that strands its token, or takes U's claim with it, leaves U asleep with a
 * token posted: the round's bounded wait for U fails (a liveness bound, not a
 * speed one). At the end, successful waits == posts and the value is 0. */
struct race {
	struct sem m;
	struct timespec dl;
	int rounds;
	_Atomic int with_u;     /* this round has an untimed waiter */
	pthread_barrier_t go;
	_Atomic int t_done, u_done, t_result;
	_Atomic int64_t ok;
};

static void *race_timed(void *p)
{
	struct race *rc = p;
	for (int i = 0; i < rc->rounds; i++) {
		pthread_barrier_wait(&rc->go);
		int r;
		while ((r = fl_timedwait(V, rc->m.s, &rc->dl)) == EINTR)
			;
		if (r == 0)
			atomic_fetch_add(&rc->ok, 1);
		atomic_store(&rc->t_result, r);
		atomic_store(&rc->t_done, 1);
		pthread_barrier_wait(&rc->go);
	}
	return NULL;
}

static void *race_untimed(void *p)
{
	struct race *rc = p;
	for (int i = 0; i < rc->rounds; i++) {
		pthread_barrier_wait(&rc->go);
		if (atomic_load(&rc->with_u) && wait_noeintr(rc->m.s) == 0)
			atomic_fetch_add(&rc->ok, 1);
		atomic_store(&rc->u_done, 1);
		pthread_barrier_wait(&rc->go);
	}
	return NULL;
}

static bool wait_flag(_Atomic int *f, int64_t ns)
{
	int64_t end = fl_now_ns() + ns;
	while (!atomic_load(f)) {
		if (fl_now_ns() > end)
			return false;
		sched_yield();
	}
	return true;
}

static void t_release_vs_deadline(void *arg)
{
	int scale = *(int *)arg;
	struct race rc = { .m = mk(0), .rounds = 3000 / scale };
	prctl(PR_SET_TIMERSLACK, 1UL); /* deadlines as sharp as the kernel allows */
	dump_sem = rc.m.s;
	pthread_barrier_init(&rc.go, NULL, 3);
	pthread_t t[2];
	pthread_create(&t[0], NULL, race_timed, &rc);
	pthread_create(&t[1], NULL, race_untimed, &rc);
	int64_t posts = 0;
	uint64_t x = 88172645463325252ull;
	bool stuck = false;
	for (int i = 0; i < rc.rounds; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* deadline 50..250 us out; the post lands from 20 us before D to
		 * 80 us after it (a timer wakes a little late: slack, scheduling) */
		rc.dl = fl_deadline_after_ns(50000 + (int64_t)(x % 200000));
		atomic_store(&rc.t_done, 0);
		atomic_store(&rc.u_done, 0);
		/* Alone, T's claim is the only one: a post between its two steps
		 * leaves count at 0 while T decides. With U, claims are swapped. */
		atomic_store(&rc.with_u, (int)(x >> 61) & 1);
		pthread_barrier_wait(&rc.go);
		int64_t at = fl_ts_to_ns(&rc.dl) + (int64_t)((x >> 32) % 100000) - 20000;
		while (fl_now_ns() < at)
			;
		V->post(rc.m.s, 1);
		posts++;
		if (!wait_flag(&rc.t_done, 10LL * 1000000000)) {
			CHECK(0, "round %d: timed waiter never returned", i);
			stuck = true;
			break;
		}
		if (atomic_load(&rc.t_result) == 0 && atomic_load(&rc.with_u)) {
			V->post(rc.m.s, 1); /* T took the first token: one for U */
			posts++;
		}
		if (!wait_flag(&rc.u_done, 5LL * 1000000000)) {
			CHECK(0, "round %d: untimed waiter still asleep 5 s after its token was "
			      "posted (timed waiter returned %d)", i, atomic_load(&rc.t_result));
			stuck = true;
			break;
		}
		pthread_barrier_wait(&rc.go);
		int v = fl_test_value(V, rc.m.s);
		if (!atomic_load(&rc.with_u) && atomic_load(&rc.t_result) != 0 && v == 1 &&
		    V->trywait(rc.m.s) == 0) {
			v = 0; /* T alone timed out: the token is in the value; take it */
			atomic_fetch_add(&rc.ok, 1);
		}
		CHECK(atomic_load(&rc.ok) == posts && v == 0,
		      "round %d: successful waits %lld, posts %lld, value %d", i,
		      (long long)atomic_load(&rc.ok), (long long)posts, v);
		if (atomic_load(&rc.ok) != posts || v != 0) {
			stuck = true;
			break;
		}
	}
	if (stuck) {
		/* A waiter is asleep forever or parked at a barrier: nothing to join. */
		dump();
		printf("FAIL release_vs_deadline\n");
		fflush(stdout);
		_exit(1);
	}
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	pthread_barrier_destroy(&rc.go);
	dump_sem = NULL;
	rm(rc.m);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: conformance VARIANT [--stress-only]\n");
		return 2;
	}
	V = fl_variant_find(argv[1]);
	if (!V) {
		fprintf(stderr, "conformance: unknown variant '%s'\n", argv[1]);
		return 2;
	}
	const char *why = V->unavailable ? V->unavailable() : NULL;
	if (why) {
		printf("SKIP %s: %s\n", V->name, why);
		return 77; /* meson's "skipped" */
	}
	bool stress_only = argc > 2 && !strcmp(argv[2], "--stress-only");
	/* Sanitizer builds run ~10x slower: FL_TEST_SCALE shrinks the loops. */
	int scale = getenv("FL_TEST_SCALE") ? atoi(getenv("FL_TEST_SCALE")) : 1;
	if (scale < 1)
		scale = 1;
	watchdog_dump = dump;
	printf("# variant %s\n", V->name);
	test_policy_setup("conformance", V); /* FUTEXLAB_POLICY (tests/policy_env.h) */
	if (!stress_only) {
		run_test("init_value", t_init_value, NULL, 10);
		run_test("trywait", t_trywait, NULL, 10);
		run_test("post_wait", t_post_wait, NULL, 10);
		run_test("pairs", t_pairs, NULL, 10);
		run_test("timedwait_past_deadline", t_timedwait_past, NULL, 10);
		run_test("timedwait_never_early", t_timedwait_never_early, NULL, 10);
		run_test("thousand_1ms_timeouts", t_thousand_1ms, NULL, 30);
		run_test("overflow", t_overflow, NULL, 10);
		run_test("destroy_after_use", t_destroy_after_use, NULL, 30);
		run_test("post_n_wakes_n", t_post_n_wakes, NULL, 30);
		run_test("post_one_by_one", t_post_one_by_one, NULL, 30);
		run_test("timeout_beside_sleeper", t_timeout_with_sleepers, NULL, 30);
	}
	run_test("stress_conservation", t_stress, &scale, 120);
	run_test("release_vs_deadline", t_release_vs_deadline, &scale, 120);
	return tests_done(V->name);
}
