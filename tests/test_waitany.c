/* tests/test_waitany.c — fl_wait_any (variants/waitany.h) on every
 * registered variant that supports it (or the one named on the command
 * line); the others are listed as skipped with the reason. Exit 77 when no
 * variant can run it here (e.g. a kernel without futex_waitv).
 *
 * What must hold: the index returned names the semaphore whose value went
 * down by one, and no other changed; a token already there is taken at any
 * deadline; an empty set times out, never early, and leaves no trace (no
 * claim or registration that would swallow the next post); a sleeping
 * wait-any is woken by a post to any member; a signal gives -EINTR with
 * nothing taken; under threads, every token posted to semaphore i is taken
 * exactly once from i (per-semaphore conservation), beside plain waiters,
 * trywaits and short timed waits on the same semaphores — a lost wakeup
 * hangs a consumer and the watchdog fails the test; and the negative-counter
 * note's race of a post landing on the deadline, for wait-any. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/prctl.h>

#include "tests/check.h"
#include "lib/clock.h"
#include "tests/sleepers.h"
#include "tests/policy_env.h"
#include "variants/policy.h"
#include "variants/variant.h"
#include "variants/waitany.h"

static const struct fl_variant *V;
static int scale = 1;

#define NS_MAX 8

struct set {
	int n;
	void *s[NS_MAX];
};

static struct set mkset(int n, unsigned value)
{
	struct set st = { .n = n };
	for (int i = 0; i < n; i++) {
		st.s[i] = aligned_alloc(64, 64);
		memset(st.s[i], 0xA5, 64);
		if (V->init(st.s[i], value, 0)) {
			fprintf(stderr, "init failed\n");
			exit(1);
		}
	}
	return st;
}

static void rmset(struct set *st)
{
	for (int i = 0; i < st->n; i++) {
		V->destroy(st->s[i]);
		free(st->s[i]);
	}
}

static struct set *dump_set;
static void (*dump_more)(void);
static void dump(void)
{
	if (dump_more)
		dump_more();
	if (!dump_set)
		return;
	char buf[256];
	int k = snprintf(buf, sizeof buf, "  %s values:", V->name);
	for (int i = 0; i < dump_set->n && k < 200; i++) {
		_Atomic uint32_t *w[2];
		int nw = V->words ? V->words(dump_set->s[i], w, 2) : 0;
		k += snprintf(buf + k, sizeof buf - (size_t)k, " %d(w%d)", V->getvalue(dump_set->s[i]),
			      nw ? (int)atomic_load(w[0]) : -1);
	}
	buf[k++] = '\n';
	if (write(2, buf, (size_t)k) < 0)
		_exit(3);
}

static int wa_ns(struct set *st, int64_t rel_ns)
{
	struct timespec dl = fl_deadline_after_ns(rel_ns);
	int r;
	while ((r = fl_wait_any(V, st->s, st->n, &dl)) == -EINTR)
		;
	return r;
}

/* ---- single-threaded ------------------------------------------------- */

static void t_takes_the_one_there(void *arg)
{
	(void)arg;
	struct set st = mkset(5, 0);
	for (int k = 0; k < 5; k++) {
		V->post(st.s[k], 1);
		int r = wa_ns(&st, -1000); /* past deadline: the token is taken anyway */
		CHECK(r == k, "token in %d, wait-any returned %d", k, r);
		for (int i = 0; i < 5; i++)
			CHECK(V->getvalue(st.s[i]) == 0, "after taking %d: value[%d] = %d", k, i,
			      V->getvalue(st.s[i]));
	}
	V->post(st.s[1], 2);
	V->post(st.s[3], 1);
	int got[5] = { 0 };
	for (int j = 0; j < 3; j++) {
		int r = fl_wait_any(V, st.s, 5, NULL);
		CHECK(r >= 0 && r < 5, "index %d", r);
		if (r >= 0 && r < 5)
			got[r]++;
	}
	CHECK(got[1] == 2 && got[3] == 1, "took %d from 1 and %d from 3", got[1], got[3]);
	CHECK(wa_ns(&st, 0) == -ETIMEDOUT, "then empty");
	struct timespec bad = { 0, 1000000000 };
	CHECK(fl_wait_any(V, st.s, 5, &bad) == -EINVAL, "tv_nsec out of range, nothing there");
	V->post(st.s[4], 1);
	CHECK(fl_wait_any(V, st.s, 5, &bad) == 4, "a token there is taken even with a bad deadline");
	CHECK(fl_wait_any(V, st.s, 0, NULL) == -EINVAL, "n = 0");
	CHECK(fl_wait_any(V, st.s, FL_WAITANY_MAX + 1, NULL) == -EINVAL, "n too large");
	rmset(&st);
}

static void t_timeout_leaves_no_trace(void *arg)
{
	(void)arg;
	struct set st = mkset(4, 0);
	dump_set = &st;
	int64_t t0 = fl_now_ns();
	CHECK(wa_ns(&st, 20000000) == -ETIMEDOUT, "empty set times out");
	CHECK(fl_now_ns() - t0 >= 20000000, "never early: %lld ns", (long long)(fl_now_ns() - t0));
	struct timespec neg = { -3, 0 };
	CHECK(fl_wait_any(V, st.s, 4, &neg) == -ETIMEDOUT, "negative deadline is past");
	for (int i = 0; i < 4; i++) {
		CHECK(V->getvalue(st.s[i]) == 0, "value[%d] = %d", i, V->getvalue(st.s[i]));
		V->post(st.s[i], 1);
		CHECK(V->trywait(st.s[i]) == 0, "a post to %d after the timeout is there to take", i);
	}
	dump_set = NULL;
	rmset(&st);
}

/* ---- a sleeping wait-any is woken by a post to any member ------------- */

struct sleeper {
	struct set *st;
	_Atomic pid_t tid[1];
	_Atomic int r;
	bool timed;
};

static void *wa_sleeper(void *p)
{
	struct sleeper *sl = p;
	atomic_store(&sl->tid[0], gettid());
	struct timespec dl = fl_deadline_after_ns(10LL * 1000000000);
	atomic_store(&sl->r, fl_wait_any(V, sl->st->s, sl->st->n, sl->timed ? &dl : NULL));
	return NULL;
}

static void t_wakes_on_any(void *arg)
{
	(void)arg;
	struct set st = mkset(6, 0);
	dump_set = &st;
	for (int k = 0; k < 6; k++) {
		struct sleeper sl = { .st = &st, .r = -100, .timed = k & 1 };
		pthread_t t;
		pthread_create(&t, NULL, wa_sleeper, &sl);
		CHECK(wait_sleeping(sl.tid, 1, 5000), "wait-any asleep");
		V->post(st.s[k], 1);
		pthread_join(t, NULL);
		CHECK(atomic_load(&sl.r) == k, "posted to %d, woke with %d", k, atomic_load(&sl.r));
		for (int i = 0; i < 6; i++)
			CHECK(V->getvalue(st.s[i]) == 0, "value[%d] = %d", i, V->getvalue(st.s[i]));
	}
	dump_set = NULL;
	rmset(&st);
}

static void on_usr1(int s)
{
	(void)s;
}

static void t_eintr(void *arg)
{
	(void)arg;
	struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	struct set st = mkset(3, 0);
	struct sleeper sl = { .st = &st, .r = -100, .timed = true };
	pthread_t t;
	pthread_create(&t, NULL, wa_sleeper, &sl);
	CHECK(wait_sleeping(sl.tid, 1, 5000), "wait-any asleep");
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	CHECK(atomic_load(&sl.r) == -EINTR, "a signal interrupts wait-any: %d", atomic_load(&sl.r));
	for (int i = 0; i < 3; i++) {
		V->post(st.s[i], 1);
		CHECK(V->trywait(st.s[i]) == 0, "no claim left behind on %d", i);
	}
	rmset(&st);
}

/* ---- threads: every token taken exactly once, from where it was posted - */

#define MIX_SEMS 4
struct mix {
	struct set st;
	int producers, iters;
	_Atomic int64_t posted[MIX_SEMS], taken[MIX_SEMS];
	_Atomic int64_t real_total;  /* tokens producers posted; -1 while producing */
	_Atomic int64_t tickets;     /* takes by the wait-any consumers */
	_Atomic int64_t plain_taken; /* takes by the plain consumers */
	_Atomic int errors;
};

static void took(struct mix *m, int i)
{
	if (i < 0 || i >= m->st.n)
		atomic_fetch_add(&m->errors, 1);
	else
		atomic_fetch_add(&m->taken[i], 1);
}

static void *mix_producer(void *p)
{
	struct mix *m = p;
	uint64_t x = (uint64_t)(uintptr_t)&x ^ (uint64_t)fl_now_ns();
	for (int k = 0; k < m->iters; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int i = (int)(x % (uint64_t)m->st.n);
		unsigned n = 1 + (unsigned)(x >> 40) % 2;
		atomic_fetch_add(&m->posted[i], n);
		if (V->post(m->st.s[i], n))
			atomic_fetch_add(&m->errors, 1);
		if ((x >> 20) % 8 == 0)
			sched_yield();
	}
	return NULL;
}

/* Wait-any consumers exit on a ticket past the real total: the main thread
 * posts one extra token per consumer once the producers are done, so each
 * finds one (see workloads/waitany.c for the same scheme). */
static void *mix_anyconsumer(void *p)
{
	struct mix *m = p;
	uint64_t x = (uint64_t)(uintptr_t)&x ^ (uint64_t)fl_now_ns();
	for (;;) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int r;
		if (x % 4 == 0) /* a short deadline: lands in the timeout paths */
			r = wa_ns(&m->st, (int64_t)((x >> 30) % 100000));
		else
			while ((r = fl_wait_any(V, m->st.s, m->st.n, NULL)) == -EINTR)
				;
		if (r == -ETIMEDOUT)
			continue;
		took(m, r);
		int64_t t = atomic_fetch_add(&m->tickets, 1);
		int64_t real = atomic_load(&m->real_total);
		if (real >= 0 && t >= real)
			return NULL;
	}
}

/* Plain consumers on one semaphore each, beside the wait-any ones: they
 * take a few tokens with wait/trywait/timedwait and stop on their own. */
static void *mix_plain(void *p)
{
	struct mix *m = p;
	uint64_t x = (uint64_t)(uintptr_t)&x ^ (uint64_t)fl_now_ns();
	for (int k = 0; k < m->iters / 4; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int i = (int)(x % (uint64_t)m->st.n), r;
		if (x % 3 == 0) {
			r = V->trywait(m->st.s[i]);
		} else {
			struct timespec dl = fl_deadline_after_ns((int64_t)((x >> 30) % 200000));
			while ((r = fl_timedwait(V, m->st.s[i], &dl)) == EINTR)
				;
		}
		if (r == 0) {
			took(m, i);
			atomic_fetch_add(&m->plain_taken, 1);
		}
	}
	return NULL;
}

static struct mix *dump_mix;
static void mix_dump(void)
{
	struct mix *m = dump_mix;
	if (!m)
		return;
	char buf[256];
	int k = snprintf(buf, sizeof buf, "  mix: real_total %lld tickets %lld; posted/taken:",
			 (long long)atomic_load(&m->real_total), (long long)atomic_load(&m->tickets));
	for (int i = 0; i < MIX_SEMS; i++)
		k += snprintf(buf + k, sizeof buf - (size_t)k, " %lld/%lld",
			      (long long)atomic_load(&m->posted[i]), (long long)atomic_load(&m->taken[i]));
	buf[k++] = '\n';
	if (write(2, buf, (size_t)k) < 0)
		_exit(3);
}

static void mix_run(int producers, int anys, int plains, int iters)
{
	struct mix m = { .st = mkset(MIX_SEMS, 0), .producers = producers, .iters = iters,
			 .real_total = -1 };
	dump_set = &m.st;
	dump_mix = &m;
	dump_more = mix_dump;
	pthread_t t[32];
	int nt = 0;
	for (int i = 0; i < anys; i++)
		pthread_create(&t[nt++], NULL, mix_anyconsumer, &m);
	for (int i = 0; i < plains; i++)
		pthread_create(&t[nt++], NULL, mix_plain, &m);
	for (int i = 0; i < producers; i++)
		pthread_create(&t[nt++], NULL, mix_producer, &m);
	for (int i = anys + plains; i < nt; i++)
		pthread_join(t[i], NULL);
	for (int i = anys; i < anys + plains; i++)
		pthread_join(t[i], NULL);
	/* Producers and plain consumers are done, so both counts below are
	 * final: every other token is for the wait-any consumers, plus one
	 * exit token each. (Never computed from counters they still move.) */
	int64_t posted = 0;
	for (int i = 0; i < MIX_SEMS; i++)
		posted += atomic_load(&m.posted[i]);
	atomic_store(&m.real_total, posted - atomic_load(&m.plain_taken));
	for (int c = 0; c < anys; c++) {
		int i = c % MIX_SEMS;
		atomic_fetch_add(&m.posted[i], 1);
		V->post(m.st.s[i], 1);
	}
	for (int i = 0; i < anys; i++)
		pthread_join(t[i], NULL);
	CHECK(atomic_load(&m.errors) == 0, "%d bad results", atomic_load(&m.errors));
	for (int i = 0; i < MIX_SEMS; i++) {
		int64_t fin = V->getvalue(m.st.s[i]);
		CHECK(atomic_load(&m.posted[i]) == atomic_load(&m.taken[i]) + fin,
		      "semaphore %d: posted %lld != taken %lld + final %lld", i,
		      (long long)atomic_load(&m.posted[i]), (long long)atomic_load(&m.taken[i]),
		      (long long)fin);
		/* No claim or registration left behind to swallow the next post. */
		while (V->trywait(m.st.s[i]) == 0)
			;
		V->post(m.st.s[i], 1);
		CHECK(V->trywait(m.st.s[i]) == 0, "semaphore %d: a post after the run is not there", i);
	}
	dump_set = NULL;
	dump_mix = NULL;
	rmset(&m.st);
}

static void t_mix(void *arg)
{
	(void)arg;
	mix_run(2, 2, 0, 20000 / scale);  /* wait-any consumers only */
	mix_run(2, 3, 2, 10000 / scale);  /* beside plain waiters */
	mix_run(1, 6, 1, 5000 / scale);   /* many wait-any per post */
}

/* ---- the negative-counter note's race, for wait-any: a post on the deadline */

struct race {
	struct set st;
	struct timespec dl;
	pthread_barrier_t go;
	int rounds;
	_Atomic int r;
};

static void *race_waiter(void *p)
{
	struct race *rc = p;
	for (int k = 0; k < rc->rounds; k++) {
		pthread_barrier_wait(&rc->go);
		int r;
		while ((r = fl_wait_any(V, rc->st.s, rc->st.n, &rc->dl)) == -EINTR)
			;
		atomic_store(&rc->r, r);
		pthread_barrier_wait(&rc->go);
	}
	return NULL;
}

static void t_post_vs_deadline(void *arg)
{
	(void)arg;
	struct race rc = { .st = mkset(3, 0), .rounds = 2000 / scale };
	prctl(PR_SET_TIMERSLACK, 1UL);
	dump_set = &rc.st;
	pthread_barrier_init(&rc.go, NULL, 2);
	pthread_t t;
	pthread_create(&t, NULL, race_waiter, &rc);
	uint64_t x = 88172645463325252ull;
	for (int k = 0; k < rc.rounds; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int i = (int)(x % 3);
		rc.dl = fl_deadline_after_ns(30000 + (int64_t)((x >> 8) % 100000));
		pthread_barrier_wait(&rc.go);
		struct timespec at = fl_ts_add_ns(rc.dl, -20000 + (int64_t)((x >> 30) % 60000));
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
		V->post(rc.st.s[i], 1);
		pthread_barrier_wait(&rc.go);
		int r = atomic_load(&rc.r);
		int left = V->getvalue(rc.st.s[i]);
		if (r == i)
			CHECK(left == 0, "round %d: took from %d, value %d left", k, i, left);
		else if (r == -ETIMEDOUT)
			CHECK(left == 1 && V->trywait(rc.st.s[i]) == 0,
			      "round %d: timed out, the token must stay in %d (value %d)", k, i, left);
		else
			CHECK(0, "round %d: posted to %d, wait-any returned %d", k, i, r);
		for (int j = 0; j < 3; j++) {
			CHECK(V->getvalue(rc.st.s[j]) == 0, "round %d: value[%d] = %d", k, j,
			      V->getvalue(rc.st.s[j]));
			V->post(rc.st.s[j], 1);
			CHECK(V->trywait(rc.st.s[j]) == 0, "round %d: a post to %d is swallowed", k, j);
		}
	}
	pthread_join(t, NULL);
	pthread_barrier_destroy(&rc.go);
	dump_set = NULL;
	rmset(&rc.st);
}

static void run_variant(void)
{
	printf("# variant %s\n", V->name);
	run_test("takes_the_one_there", t_takes_the_one_there, NULL, 10);
	run_test("timeout_leaves_no_trace", t_timeout_leaves_no_trace, NULL, 10);
	run_test("wakes_on_any", t_wakes_on_any, NULL, 20);
	run_test("eintr", t_eintr, NULL, 20);
	run_test("mix_each_token_once", t_mix, NULL, 120);
	run_test("post_vs_deadline", t_post_vs_deadline, NULL, 120);
}

int main(int argc, char **argv)
{
	scale = getenv("FL_TEST_SCALE") ? atoi(getenv("FL_TEST_SCALE")) : 1;
	if (scale < 1)
		scale = 1;
	watchdog_dump = dump;
	/* the plain consumers' waits under FUTEXLAB_POLICY (tests/policy_env.h;
	 * the wait-any itself is the design's own) */
	struct fl_policy pol = test_policy_env("test_waitany");
	char text[FL_POLICY_TEXT_MAX];
	fl_policy_set(&pol);
	printf("# policy %s\n", fl_policy_format(&pol, text, sizeof text));
	int ran = 0;
	for (int k = 0; k < fl_nvariants; k++) {
		V = fl_variants[k];
		if (argc > 1 && strcmp(argv[1], V->name))
			continue;
		const char *why = fl_wait_any_unsupported(V);
		if (why) {
			printf("SKIP %s: %s\n", V->name, why);
			continue;
		}
		run_variant();
		ran++;
	}
	if (!ran) {
		printf("SKIP: no variant supports wait-any here\n");
		return 77;
	}
	return tests_done("waitany");
}
