/* tests/edge.c — edge cases every registered variant must survive, beside
 * the shared conformance suite (which already covers overflow, past,
 * negative and malformed deadlines, 1000 x 1 ms and destroy after use).
 *
 *   edge VARIANT
 *
 *   huge_deadlines        a deadline near INT64_MAX seconds (or 2^31 s, 2^32
 *                         ms away, ...) must not overflow into "already
 *                         past" or a negative sentinel: the waiter blocks
 *                         until a token is posted, then takes it.
 *   notify_not_remembered a wake with nobody waiting (raw FUTEX_WAKE on the
 *                         variant's words, or a post whose token was taken)
 *                         leaves nothing behind: the next wait still sleeps
 *                         to its deadline (seed 000).
 *   spurious_wakes        FUTEX_WAKEs injected on a sleeper's words never
 *                         surface as a token: it keeps waiting.
 *   eintr                 a signal handler (no SA_RESTART) interrupting a
 *                         wait: EINTR takes no token and leaves no claim
 *                         behind; the next post is a token anyone can take,
 *                         and a new waiter sleeps and is released normally.
 *   post_n_sleepers       post(n) into n sleepers releases all n, promptly
 *                         (a wake that wakes one when several are owed
 *                         leaves owners of a token asleep).
 *   handoff               two threads hand a token back and forth through
 *                         two semaphores with untimed waits, many times: a
 *                         post that races a waiter going to sleep must never
 *                         lose the wakeup (a lost one deadlocks both threads;
 *                         the monitor fails the test with a dump). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "clock.h"
#include "futex.h"
#include "sleepers.h"
#include "variant.h"

static const struct fl_variant *V;
static void *dump_sem;
static void dump(void);

/* Fail fast: most failures here leave a thread asleep forever, so the first
 * one ends the run (with the state) instead of waiting for the watchdog. */
#undef CHECK
#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "  FAIL %s:%d [%s] %s: ", __FILE__,     \
				__LINE__, current_test, #cond);                 \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			checks_failed++;                                        \
			dump();                                                 \
			printf("FAIL %s\n", current_test);                      \
			fflush(stdout);                                         \
			_exit(1);                                               \
		}                                                              \
	} while (0)

static void *mk(unsigned value)
{
	void *p = aligned_alloc(64, 64);
	memset(p, 0xA5, 64);
	int r = V->init(p, value, 0);
	if (r) {
		fprintf(stderr, "init(%u): %s\n", value, strerror(r));
		exit(1);
	}
	dump_sem = p;
	return p;
}

static void rm(void *s)
{
	dump_sem = NULL;
	V->destroy(s);
	free(s);
}

static void dump(void)
{
	if (!dump_sem)
		return;
	fprintf(stderr, "  state of %s: getvalue=%d words:", V->name, V->getvalue(dump_sem));
	_Atomic uint32_t *w[8];
	int nw = V->words ? V->words(dump_sem, w, 8) : 0;
	for (int i = 0; i < nw; i++)
		fprintf(stderr, " %d", (int)atomic_load(w[i]));
	fputc('\n', stderr);
}

static void sleep_ms(int n)
{
	struct timespec t = { n / 1000, (long)(n % 1000) * 1000000 };
	nanosleep(&t, NULL);
}

static int inject(void *s)
{
	_Atomic uint32_t *w[8];
	int nw = V->words ? V->words(s, w, 8) : 0;
	for (int i = 0; i < nw; i++) {
		fl_futex_wake(w[i], INT_MAX, false);
		fl_futex_wake(w[i], INT_MAX, true);
	}
	return nw;
}

/* ---- a waiter thread ------------------------------------------------- */

struct w {
	void *s;
	struct timespec dl;
	bool timed, stop_on_eintr;
	_Atomic pid_t tid;
	_Atomic int result, done, eintrs;
	pthread_t t;
};

static void *waiter(void *p)
{
	struct w *a = p;
	atomic_store(&a->tid, gettid());
	int r;
	for (;;) {
		r = a->timed ? V->timedwait(a->s, &a->dl) : V->wait(a->s);
		if (r != EINTR || a->stop_on_eintr)
			break;
		atomic_fetch_add(&a->eintrs, 1);
	}
	atomic_store(&a->result, r);
	atomic_store(&a->done, 1);
	return NULL;
}

static void start_ex(struct w *a, void *s, const struct timespec *dl, bool stop_on_eintr)
{
	memset(a, 0, sizeof *a);
	a->s = s;
	a->stop_on_eintr = stop_on_eintr;
	if (dl)
		a->dl = *dl, a->timed = true;
	pthread_create(&a->t, NULL, waiter, a);
}

static void start(struct w *a, void *s, const struct timespec *dl)
{
	start_ex(a, s, dl, false);
}

static bool until_done(struct w *a, int timeout_ms)
{
	for (int i = 0; i < timeout_ms && !atomic_load(&a->done); i++)
		sleep_ms(1);
	return atomic_load(&a->done);
}

/* ---- tests ----------------------------------------------------------- */

static void t_huge_deadlines(void *arg)
{
	(void)arg;
	int64_t now = fl_now().tv_sec;
	const struct timespec dls[] = {
		{ INT64_MAX, 999999999 },
		{ INT64_MAX, 0 },
		{ INT64_MAX - 1, 500000000 },
		{ INT64_MAX / 1000000000, 0 },     /* ns product overflows int64 */
		{ INT64_MAX / 1000, 0 },           /* ms product overflows int64 */
		{ (int64_t)UINT32_MAX + 1, 0 },    /* past a 32-bit seconds field */
		{ now + ((int64_t)1 << 31), 0 },   /* 2^31 s away */
		{ now + 4294968, 0 },              /* 2^32 ms away: a 32-bit ms field */
		{ now + 4295, 0 },                 /* 2^32 us away: a 32-bit us field */
		{ INT32_MAX, 0 },
	};
	enum { N = sizeof dls / sizeof dls[0] };
	for (int i = 0; i < N; i++) {
		void *s = mk(0);
		struct w a;
		start(&a, s, &dls[i]);
		_Atomic pid_t tid[1];
		while (!atomic_load(&a.tid))
			sleep_ms(1);
		atomic_store(&tid[0], atomic_load(&a.tid));
		CHECK(wait_sleeping(tid, 1, 2000) || atomic_load(&a.done),
		      "deadline {%lld, %ld}: waiter never slept", (long long)dls[i].tv_sec,
		      dls[i].tv_nsec);
		sleep_ms(20);
		CHECK(!atomic_load(&a.done), "deadline {%lld, %ld}: returned %d before any post",
		      (long long)dls[i].tv_sec, dls[i].tv_nsec, atomic_load(&a.result));
		if (!atomic_load(&a.done)) {
			CHECK(V->post(s, 1) == 0, "post");
			CHECK(until_done(&a, 5000), "deadline {%lld, %ld}: not released by a post",
			      (long long)dls[i].tv_sec, dls[i].tv_nsec);
			CHECK(atomic_load(&a.result) == 0, "deadline {%lld, %ld}: result %d",
			      (long long)dls[i].tv_sec, dls[i].tv_nsec, atomic_load(&a.result));
		}
		pthread_join(a.t, NULL);
		CHECK(V->getvalue(s) == 0, "value 0 after: %d", V->getvalue(s));
		/* with a token there, a huge deadline takes it at once */
		V->post(s, 1);
		CHECK(V->timedwait(s, &dls[i]) == 0, "token available, huge deadline");
		rm(s);
	}
}

static void t_notify_not_remembered(void *arg)
{
	(void)arg;
	void *s = mk(0);
	/* Wakes with nobody waiting: raw, and by a post whose token is then
	 * taken without sleeping. Neither may be remembered. */
	inject(s);
	for (int i = 0; i < 10; i++) {
		inject(s);
		CHECK(V->post(s, 1) == 0, "post");
		CHECK(V->trywait(s) == 0, "trywait takes the token");
	}
	CHECK(V->getvalue(s) == 0, "value 0: %d", V->getvalue(s));
	struct timespec dl = fl_deadline_after_ns(30000000);
	int r;
	while ((r = V->timedwait(s, &dl)) == EINTR)
		;
	CHECK(r == ETIMEDOUT, "the next wait times out: %d", r);
	CHECK(fl_deadline_passed(&dl), "and not before its deadline");
	CHECK(V->trywait(s) == EAGAIN, "no token appeared");
	/* A waiter that timed out is gone: a post after it is a token, not a
	 * wake stored for the next waiter. */
	CHECK(V->post(s, 1) == 0, "post after the timeout");
	CHECK(V->getvalue(s) == 1, "value 1: %d", V->getvalue(s));
	CHECK(V->trywait(s) == 0, "taken");
	dl = fl_deadline_after_ns(20000000);
	while ((r = V->timedwait(s, &dl)) == EINTR)
		;
	CHECK(r == ETIMEDOUT, "and the wait after that times out again: %d", r);
	rm(s);
}

static void t_spurious_wakes(void *arg)
{
	(void)arg;
	void *s = mk(0);
	_Atomic uint32_t *w[8];
	if (!V->words || V->words(s, w, 8) == 0) {
		printf("     (spurious_wakes: %s exposes no futex words, nothing to inject)\n", V->name);
		rm(s);
		return;
	}
	/* A timed sleeper: injected wakes must not end its wait early. */
	struct timespec dl = fl_deadline_after_ns(300000000);
	struct w a;
	start(&a, s, &dl);
	_Atomic pid_t tid[1];
	while (!atomic_load(&a.tid))
		sleep_ms(1);
	atomic_store(&tid[0], atomic_load(&a.tid));
	wait_sleeping(tid, 1, 2000);
	for (int i = 0; i < 40 && !atomic_load(&a.done); i++) {
		inject(s);
		sleep_ms(2);
	}
	CHECK(until_done(&a, 5000), "timed sleeper returned");
	pthread_join(a.t, NULL);
	CHECK(atomic_load(&a.result) == ETIMEDOUT, "timed sleeper: %d, not a token",
	      atomic_load(&a.result));
	CHECK(fl_deadline_passed(&dl), "not before its deadline");
	CHECK(V->getvalue(s) == 0, "value 0: %d", V->getvalue(s));
	/* An untimed sleeper: still asleep after the storm, released by a post. */
	start(&a, s, NULL);
	while (!atomic_load(&a.tid))
		sleep_ms(1);
	atomic_store(&tid[0], atomic_load(&a.tid));
	wait_sleeping(tid, 1, 2000);
	for (int i = 0; i < 40; i++) {
		inject(s);
		sleep_ms(1);
	}
	CHECK(!atomic_load(&a.done), "untimed sleeper returned %d with no token",
	      atomic_load(&a.result));
	V->post(s, 1);
	CHECK(until_done(&a, 5000), "released by the post");
	pthread_join(a.t, NULL);
	CHECK(atomic_load(&a.result) == 0, "with the token: %d", atomic_load(&a.result));
	CHECK(V->getvalue(s) == 0 && V->trywait(s) == EAGAIN, "exactly one token taken");
	rm(s);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void t_eintr(void *arg)
{
	(void)arg;
	struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	int seen = 0;
	for (int timed = 0; timed < 2; timed++) {
		for (int round = 0; round < 20; round++) {
			void *s = mk(0);
			struct timespec dl = fl_deadline_after_ns(30LL * 1000000000);
			struct w a;
			start_ex(&a, s, timed ? &dl : NULL, true);
			_Atomic pid_t tid[1];
			while (!atomic_load(&a.tid))
				sleep_ms(1);
			atomic_store(&tid[0], atomic_load(&a.tid));
			CHECK(wait_sleeping(tid, 1, 2000), "waiter asleep");
			pthread_kill(a.t, SIGUSR1);
			/* A design that does not declare FL_NO_EINTR must report the
			 * handler (glibc does); one that declares it must not. */
			bool returned = until_done(&a, V->flags & FL_NO_EINTR ? 200 : 5000);
			CHECK(returned || (V->flags & FL_NO_EINTR), "%s slept through a signal "
			      "handler: no EINTR, and the design does not declare FL_NO_EINTR",
			      timed ? "timedwait" : "wait");
			CHECK(!returned || !(V->flags & FL_NO_EINTR), "%s returned %d on a signal, "
			      "but the design declares FL_NO_EINTR", timed ? "timedwait" : "wait",
			      atomic_load(&a.result));
			if (returned) {
				pthread_join(a.t, NULL);
				CHECK(atomic_load(&a.result) == EINTR, "%s interrupted: %d",
				      timed ? "timedwait" : "wait", atomic_load(&a.result));
				seen++;
				/* No token was taken and no claim was left behind. */
				CHECK(V->getvalue(s) == 0, "value after EINTR: %d", V->getvalue(s));
				CHECK(V->trywait(s) == EAGAIN, "no token after EINTR");
				CHECK(V->post(s, 1) == 0, "post");
				CHECK(V->getvalue(s) == 1, "the post is a token (no claim swallowed "
				      "it): value %d", V->getvalue(s));
				CHECK(V->trywait(s) == 0, "which trywait takes");
				/* consistent: a new waiter sleeps and a post releases it */
				start(&a, s, NULL);
				while (!atomic_load(&a.tid))
					sleep_ms(1);
				atomic_store(&tid[0], atomic_load(&a.tid));
				CHECK(wait_sleeping(tid, 1, 2000), "new waiter asleep");
				CHECK(!atomic_load(&a.done), "new waiter passed with no token");
			}
			/* (an FL_NO_EINTR design keeps waiting) */
			V->post(s, 1);
			CHECK(until_done(&a, 5000), "waiter released by a post");
			pthread_join(a.t, NULL);
			CHECK(atomic_load(&a.result) == 0, "waiter took the token: %d",
			      atomic_load(&a.result));
			CHECK(V->getvalue(s) == 0, "value 0 at the end: %d", V->getvalue(s));
			rm(s);
			if (!returned)
				break; /* this design sleeps through signals: once is enough */
		}
	}
	/* A storm: many signals into one waiter that re-waits on EINTR; it
	 * takes exactly the one token posted. */
	void *s = mk(0);
	struct w a;
	start(&a, s, NULL);
	for (int i = 0; i < 300; i++) {
		pthread_kill(a.t, SIGUSR1);
		struct timespec t = { 0, 100000 };
		nanosleep(&t, NULL);
	}
	CHECK(!atomic_load(&a.done), "storm: waiter passed with no token (%d)",
	      atomic_load(&a.result));
	unsigned n = V->value_max >= 2 && !(V->flags & FL_CAPPED) ? 2 : 1;
	V->post(s, n);
	CHECK(until_done(&a, 5000), "storm: released");
	pthread_join(a.t, NULL);
	CHECK(atomic_load(&a.result) == 0, "storm: took a token: %d", atomic_load(&a.result));
	CHECK(V->getvalue(s) == (int)n - 1, "storm: took exactly one of %u: value %d", n,
	      V->getvalue(s));
	printf("     (eintr: %d interrupted waits returned EINTR; storm: %d EINTRs)\n", seen,
	       atomic_load(&a.eintrs));
	rm(s);
}

static void t_post_n_sleepers(void *arg)
{
	(void)arg;
	enum { N = 4 };
	if (V->value_max < N || (V->flags & FL_CAPPED)) {
		printf("     (post_n_sleepers: value_max %d, not applicable)\n", V->value_max);
		return;
	}
	for (int round = 0; round < 5; round++) {
		void *s = mk(0);
		struct w a[N];
		_Atomic pid_t tid[N];
		for (int i = 0; i < N; i++) {
			start(&a[i], s, NULL);
			while (!atomic_load(&a[i].tid))
				sleep_ms(1);
			atomic_store(&tid[i], atomic_load(&a[i].tid));
		}
		CHECK(wait_sleeping(tid, N, 5000), "all asleep");
		CHECK(V->post(s, N) == 0, "post(%d)", N);
		int passed = 0;
		for (int t = 0; t < 3000 && passed < N; t++) {
			sleep_ms(1);
			passed = 0;
			for (int i = 0; i < N; i++)
				passed += atomic_load(&a[i].done);
		}
		CHECK(passed == N, "post(%d) into %d sleepers released %d", N, N, passed);
		if (passed != N) {
			dump();
			_exit(1); /* the rest sleep forever */
		}
		for (int i = 0; i < N; i++)
			pthread_join(a[i].t, NULL);
		CHECK(V->getvalue(s) == 0, "value 0: %d", V->getvalue(s));
		rm(s);
	}
}

struct pp {
	void *a, *b;
	int rounds;
	_Atomic int64_t done;
};

static int wait_ok(void *s)
{
	int r;
	while ((r = V->wait(s)) == EINTR)
		;
	return r;
}

static void *ponger(void *p)
{
	struct pp *x = p;
	for (int i = 0; i < x->rounds; i++) {
		if (wait_ok(x->a) != 0 || V->post(x->b, 1) != 0)
			break;
	}
	return NULL;
}

static void *pinger(void *p)
{
	struct pp *x = p;
	for (int i = 0; i < x->rounds; i++) {
		if (V->post(x->a, 1) != 0 || wait_ok(x->b) != 0)
			break;
		atomic_fetch_add(&x->done, 1);
	}
	return NULL;
}

static void t_handoff(void *arg)
{
	int scale = *(int *)arg;
	struct pp x = { .a = mk(0), .b = NULL, .rounds = 20000 / scale };
	x.b = mk(0);
	dump_sem = x.a;
	pthread_t t[2];
	pthread_create(&t[0], NULL, ponger, &x);
	pthread_create(&t[1], NULL, pinger, &x);
	int64_t last = -1, last_t = fl_now_ns();
	while (atomic_load(&x.done) < x.rounds) {
		sleep_ms(5);
		int64_t d = atomic_load(&x.done);
		if (d != last) {
			last = d, last_t = fl_now_ns();
		} else if (fl_now_ns() - last_t > 3000000000LL * scale) {
			CHECK(0, "no round trip for %d s after %lld of %d: a posted token is not "
			      "reaching a sleeping waiter (lost wakeup)", 3 * scale, (long long)d,
			      x.rounds);
			fprintf(stderr, "  ping semaphore:");
			dump();
			dump_sem = x.b;
			fprintf(stderr, "  pong semaphore:");
			dump();
			printf("FAIL handoff\n");
			fflush(stdout);
			_exit(1);
		}
	}
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	CHECK(V->getvalue(x.a) == 0 && V->getvalue(x.b) == 0, "values 0");
	rm(x.b);
	rm(x.a);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: edge VARIANT\n");
		return 2;
	}
	V = fl_variant_find(argv[1]);
	if (!V) {
		fprintf(stderr, "edge: unknown variant '%s'\n", argv[1]);
		return 2;
	}
	const char *why = V->unavailable ? V->unavailable() : NULL;
	if (why) {
		printf("SKIP %s: %s\n", V->name, why);
		return 77;
	}
	watchdog_dump = dump;
	printf("# edge %s\n", V->name);
	run_test("huge_deadlines", t_huge_deadlines, NULL, 30);
	run_test("notify_not_remembered", t_notify_not_remembered, NULL, 10);
	run_test("spurious_wakes", t_spurious_wakes, NULL, 10);
	run_test("eintr", t_eintr, NULL, 30);
	int scale = getenv("FL_TEST_SCALE") ? atoi(getenv("FL_TEST_SCALE")) : 1;
	if (scale < 1)
		scale = 1;
	run_test("post_n_sleepers", t_post_n_sleepers, NULL, 60);
	run_test("handoff", t_handoff, &scale, 120);
	return tests_done(V->name);
}
