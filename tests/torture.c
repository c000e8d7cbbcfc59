/* tests/torture.c — every registered variant under faults.
 *
 *   torture VARIANT [--seconds S] [--soak SECONDS] [--quiet]
 *
 * Workers mix post(n), wait, trywait and timedwait with random short (and
 * sometimes past or malformed) deadlines; a feeder keeps tokens coming so a
 * correct design can never deadlock; a signal thread interrupts the workers
 * with a handler installed without SA_RESTART, so waits see EINTR; an
 * injector issues FUTEX_WAKE (private and shared) on the variant's futex
 * words (the `words` hook) at random, so every wait sees spurious wakeups.
 * Waits go through fl_wait / fl_timedwait under FUTEXLAB_POLICY
 * (tests/policy_env.h; variants/policy.h).
 *
 * The run is a sequence of cycles (a fresh semaphore each, with a different
 * initial value, thread count and wake strategy). A cycle ends with a drain:
 * faults stop, each worker finishes its current operation, and the main
 * thread posts one token per worker still running in a single post(k) — a
 * correct design releases every blocked worker with it. Then, per cycle:
 *     initial + successful posts == successful acquisitions + final value
 * and the final value is exactly the number of trywaits that succeed.
 * Every result must be one the interface allows for that call (EINTR with
 * no token, EINVAL only for a malformed deadline, ...).
 *
 * A watchdog (the main thread) fails the run with a dump of the variant's
 * state when no worker completes an operation for --stall seconds, or the
 * drain does not finish: a lost wakeup or a lost token, never a hang.
 * Default: two cycles of 0.5 s (CI). --soak SECONDS runs cycles for that
 * long (see README: what the soak proves).
 *
 * Every run ends with one machine-readable line, the totals over its cycles
 * (the failing cycle's counts so far included), which scripts/soak appends
 * to its results file:
 *   soak-row: variant=V build=release|race seconds=S cycles=N ops=N posts=N
 *     acquisitions=N timeouts=N einval=N eintr=N signals=N spurious=N
 *     result=ok|FAIL */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/futex.h"
#include "lib/numa.h"
#include "lib/wake.h"
#include "tests/policy_env.h"
#include "tests/value.h"
#include "variants/policy.h"
#include "variants/variant.h"

#define MAXW 8

/* Which variants library this executable links (tests/meson.build). */
#ifndef FL_TORTURE_BUILD
#define FL_TORTURE_BUILD "unlabelled"
#endif

static const struct fl_variant *V;
static bool quiet;

struct cycle {
	void *s;
	unsigned initial;
	int nworkers;
	bool capped;         /* FL_CAPPED: no extra posts, every token returned */
	unsigned post_max;   /* largest n of a post(n) */
	_Atomic int stop;    /* 1: drain (finish the current op, no returns) */
	_Atomic int faults;  /* 1: signal thread and injector keep going */
	_Atomic int64_t posts, acq, progress;
	_Atomic int64_t eintr, timeouts, einval, signals, injected;
	_Atomic int errors;
	_Atomic int done[MAXW];
	_Atomic int cur_op[MAXW];
	pthread_t tid[MAXW];
};

static struct cycle *C;
static _Atomic int64_t handled;

/* The run's totals over its cycles, for the soak-row line. */
static struct {
	int cycles;
	int64_t ops, posts, acq, timeouts, einval, eintr, signals, injected;
} tot;

static void tally(struct cycle *c)
{
	tot.cycles++;
	tot.ops += atomic_load(&c->progress);
	tot.posts += atomic_load(&c->posts);
	tot.acq += atomic_load(&c->acq);
	tot.timeouts += atomic_load(&c->timeouts);
	tot.einval += atomic_load(&c->einval);
	tot.eintr += atomic_load(&c->eintr);
	tot.signals += atomic_load(&c->signals);
	tot.injected += atomic_load(&c->injected);
}

static void soak_row(double seconds, bool ok)
{
	printf("soak-row: variant=%s build=%s seconds=%.3f cycles=%d ops=%lld posts=%lld "
	       "acquisitions=%lld timeouts=%lld einval=%lld eintr=%lld signals=%lld "
	       "spurious=%lld result=%s\n", V->name, FL_TORTURE_BUILD, seconds, tot.cycles,
	       (long long)tot.ops, (long long)tot.posts, (long long)tot.acq,
	       (long long)tot.timeouts, (long long)tot.einval, (long long)tot.eintr,
	       (long long)tot.signals, (long long)tot.injected, ok ? "ok" : "FAIL");
	fflush(stdout);
}

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add_explicit(&handled, 1, memory_order_relaxed);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return *x;
}

static void seed(uint64_t *x, const void *salt)
{
	*x = (uint64_t)(uintptr_t)salt ^ (uint64_t)fl_now_ns() ^ 0x9E3779B97F4A7C15ull;
	if (!*x)
		*x = 1;
}

static void bad(struct cycle *c, const char *op, int r)
{
	if (atomic_fetch_add(&c->errors, 1) < 5)
		fprintf(stderr, "  FAIL %s: %s returned %d (%s), not allowed\n", V->name, op, r,
			strerror(r));
}

enum { OP_IDLE, OP_WAIT, OP_TRY, OP_TIMED, OP_POST, OP_RETURN };
static const char *const opname[] = { "idle", "wait", "trywait", "timedwait", "post", "return" };

static void give_back(struct cycle *c, uint64_t *x, int w)
{
	/* A capped semaphore's tokens are its capacity: always returned. An
	 * uncapped one keeps some (consumed) so the value moves both ways. In
	 * the drain, tokens are never returned: a return would post into the
	 * claims of blocked workers and hide a lost wakeup of the drain post. */
	if (atomic_load(&c->stop) && !c->capped)
		return;
	if (!c->capped && rnd(x) % 100 < 40)
		return;
	atomic_store(&c->cur_op[w], OP_RETURN);
	int r = V->post(c->s, 1);
	if (r == 0)
		atomic_fetch_add(&c->posts, 1);
	else if (!(r == EOVERFLOW && V->value_max < 64))
		bad(c, "post(1)", r);
}

/* The value, to keep it hovering near zero (a heuristic, racy either way):
 * getvalue, or for a design without one (FL_NO_GETVALUE) the logical value
 * the counters imply — initial + posts - acquisitions. */
static int64_t approx_value(struct cycle *c)
{
	if (V->getvalue)
		return V->getvalue(c->s);
	return (int64_t)c->initial + atomic_load(&c->posts) - atomic_load(&c->acq);
}

static void *worker(void *p)
{
	struct cycle *c = C;
	int w = (int)(intptr_t)p;
	uint64_t x = 0;
	seed(&x, &x);
	while (!atomic_load(&c->stop)) {
		uint64_t r0 = rnd(&x);
		int op = (int)(r0 % 100), r;
		/* Post only into a (nearly) empty semaphore: the value hovers
		 * around zero, so most waits really sleep and posts really wake. */
		if (op >= 80 && approx_value(c) > 1)
			op = (int)(r0 % 80);
		if (op < 25) {
			atomic_store(&c->cur_op[w], OP_WAIT);
			r = fl_wait(V, c->s);
			if (r != 0 && r != EINTR)
				bad(c, "wait", r);
		} else if (op < 45) {
			atomic_store(&c->cur_op[w], OP_TRY);
			r = V->trywait(c->s);
			if (r != 0 && r != EAGAIN)
				bad(c, "trywait", r);
		} else if (op < 80 || c->capped) {
			atomic_store(&c->cur_op[w], OP_TIMED);
			int kind = (int)((r0 >> 8) % 100);
			struct timespec dl;
			bool malformed = false;
			if (kind < 5) {
				dl = fl_deadline_after_ns(-(int64_t)((r0 >> 16) % 1000000));
			} else if (kind < 8) {
				dl = fl_deadline_after_ns(100000);
				dl.tv_nsec = kind == 5 ? -1 : 1000000000 + (long)(r0 >> 40) % 1000;
				malformed = true;
			} else {
				dl = fl_deadline_after_ns((int64_t)((r0 >> 16) % 300000));
			}
			r = fl_timedwait(V, c->s, &dl);
			if (r == ETIMEDOUT)
				atomic_fetch_add(&c->timeouts, 1);
			else if (r == EINVAL && malformed)
				atomic_fetch_add(&c->einval, 1);
			else if (r != 0 && r != EINTR)
				bad(c, malformed ? "timedwait(malformed deadline)" : "timedwait", r);
		} else {
			atomic_store(&c->cur_op[w], OP_POST);
			unsigned n = 1 + (unsigned)((r0 >> 8) % c->post_max);
			r = V->post(c->s, n);
			if (r == 0)
				atomic_fetch_add(&c->posts, n);
			else if (!(r == EOVERFLOW && V->value_max < 64))
				bad(c, "post(n)", r);
			r = -1; /* not an acquisition */
		}
		if (r == EINTR)
			atomic_fetch_add(&c->eintr, 1);
		if (r == 0) {
			atomic_fetch_add(&c->acq, 1);
			give_back(c, &x, w);
		}
		atomic_store(&c->cur_op[w], OP_IDLE);
		atomic_fetch_add_explicit(&c->progress, 1, memory_order_relaxed);
	}
	atomic_store(&c->done[w], 1);
	return NULL;
}

static void pause_ns(int64_t ns)
{
	struct timespec ts = { 0, (long)ns };
	nanosleep(&ts, NULL);
}

/* Keeps tokens coming (uncapped variants): a worker that blocks is always
 * eventually served, so any hang is the design's. */
static void *feeder(void *p)
{
	(void)p;
	struct cycle *c = C;
	uint64_t x = 0;
	seed(&x, &x);
	while (atomic_load(&c->faults)) {
		if (approx_value(c) < 4) {
			unsigned n = 1 + (unsigned)(rnd(&x) % c->post_max);
			int r = V->post(c->s, n);
			if (r == 0)
				atomic_fetch_add(&c->posts, n);
			else if (!(r == EOVERFLOW && V->value_max < 64))
				bad(c, "feeder post(n)", r);
		}
		pause_ns(20000 + (int64_t)(rnd(&x) % 200000));
	}
	return NULL;
}

static void *signaller(void *p)
{
	(void)p;
	struct cycle *c = C;
	uint64_t x = 0;
	seed(&x, &x);
	while (atomic_load(&c->faults)) {
		int w = (int)(rnd(&x) % (uint64_t)c->nworkers);
		if (!atomic_load(&c->done[w]) && pthread_kill(c->tid[w], SIGUSR1) == 0)
			atomic_fetch_add(&c->signals, 1);
		pause_ns(30000 + (int64_t)(rnd(&x) % 400000));
	}
	return NULL;
}

/* A spurious wake on a design's word, in the hash its waiters sleep in: a
 * FUTEX2_NUMA pair's (.word_flags, variant.h) through futex_wake with the
 * same flags — a futex(2) wake looks elsewhere — else futex(2). */
static int wake_word(_Atomic uint32_t *w, bool shared)
{
	if (V->word_flags & FUTEX2_NUMA) {
		int n = fl_futex2_numa_wake(w, INT_MAX, V->word_flags & FUTEX2_MPOL, shared);
		return n > 0 ? n : 0;
	}
	return fl_futex_wake(w, INT_MAX, shared);
}

/* Spurious wakeups on demand: FUTEX_WAKE on every word a waiter may sleep
 * on, both as a private and as a shared futex (a design may use either). */
static void *injector(void *p)
{
	(void)p;
	struct cycle *c = C;
	uint64_t x = 0;
	seed(&x, &x);
	_Atomic uint32_t *w[8];
	int nw = V->words ? V->words(c->s, w, 8) : 0;
	while (atomic_load(&c->faults) && nw > 0) {
		for (int i = 0; i < nw; i++) {
			int n = wake_word(w[i], false) + wake_word(w[i], true);
			atomic_fetch_add(&c->injected, n);
		}
		pause_ns(10000 + (int64_t)(rnd(&x) % 200000));
	}
	return NULL;
}

static void dump(struct cycle *c)
{
	if (V->getvalue) /* (threads may still run: no draining here) */
		fprintf(stderr, "  state of %s: getvalue=%d words:", V->name, V->getvalue(c->s));
	else
		fprintf(stderr, "  state of %s: (no getvalue) words:", V->name);
	_Atomic uint32_t *w[8];
	int nw = V->words ? V->words(c->s, w, 8) : 0;
	for (int i = 0; i < nw; i++)
		fprintf(stderr, " %d", (int)atomic_load(w[i]));
	fprintf(stderr, "\n  bytes:");
	for (size_t i = 0; i < V->size; i++)
		fprintf(stderr, "%s%02x", i % 4 ? "" : " ", ((unsigned char *)c->s)[i]);
	fprintf(stderr, "\n  workers:");
	for (int i = 0; i < c->nworkers; i++)
		fprintf(stderr, " %d:%s", i, atomic_load(&c->done[i]) ? "done" :
			opname[atomic_load(&c->cur_op[i])]);
	fprintf(stderr, "\n  initial %u posts %lld acquisitions %lld\n", c->initial,
		(long long)atomic_load(&c->posts), (long long)atomic_load(&c->acq));
}

static int all_done(struct cycle *c)
{
	int n = 0;
	for (int i = 0; i < c->nworkers; i++)
		n += atomic_load(&c->done[i]);
	return n == c->nworkers;
}

/* Polls progress until `until_ns`; false (after a dump) on a stall. */
static bool watch(struct cycle *c, int64_t until_ns, int64_t stall_ns, const char *phase)
{
	int64_t last = atomic_load(&c->progress), last_t = fl_now_ns();
	while (fl_now_ns() < until_ns) {
		pause_ns(10000000);
		int64_t p = atomic_load(&c->progress);
		if (p != last) {
			last = p, last_t = fl_now_ns();
		} else if (fl_now_ns() - last_t > stall_ns) {
			fprintf(stderr, "  FAIL %s: watchdog: no operation completed for %.1f s (%s)\n",
				V->name, (double)stall_ns / 1e9, phase);
			dump(c);
			return false;
		}
	}
	return true;
}

/* One cycle; false on failure (the process must then exit: a worker may be
 * asleep forever). */
static bool run_cycle(int k, int64_t len_ns, int64_t stall_ns)
{
	struct cycle *c = calloc(1, sizeof *c);
	C = c;
	c->s = aligned_alloc(64, 64);
	memset(c->s, 0xA5, 64); /* the design must not rely on zeroed memory */
	c->capped = (V->flags & FL_CAPPED) != 0;
	unsigned vmax = (unsigned)V->value_max;
	c->initial = c->capped ? vmax : (unsigned)(k % 3) < vmax ? (unsigned)(k % 3) : vmax;
	c->post_max = vmax < 3 ? vmax : 3;
	c->nworkers = 2 + k % (MAXW - 1);
	enum fl_wake_strategy ws = (enum fl_wake_strategy)(k % 3);
	fl_wake_set_strategy(ws);
	int r = V->init(c->s, c->initial, 0);
	if (r) {
		fprintf(stderr, "  FAIL %s: init(%u): %s\n", V->name, c->initial, strerror(r));
		return false;
	}
	atomic_store(&c->faults, 1);
	for (int i = 0; i < c->nworkers; i++)
		pthread_create(&c->tid[i], NULL, worker, (void *)(intptr_t)i);
	pthread_t fe = 0, si, in;
	if (!c->capped)
		pthread_create(&fe, NULL, feeder, NULL);
	pthread_create(&si, NULL, signaller, NULL);
	pthread_create(&in, NULL, injector, NULL);

	bool ok = watch(c, fl_now_ns() + len_ns, stall_ns, "running");
	if (!ok) {
		tally(c);
		return false;
	}
	/* Drain: no more faults or feeding, then one post(k) for the k workers
	 * still running; each leaves after its current operation. */
	atomic_store(&c->faults, 0);
	pthread_join(si, NULL);
	pthread_join(in, NULL);
	if (fe)
		pthread_join(fe, NULL);
	atomic_store(&c->stop, 1);
	int running = 0;
	for (int i = 0; i < c->nworkers; i++)
		running += !atomic_load(&c->done[i]);
	if (!c->capped && running > 0) {
		unsigned n = (unsigned)running < vmax ? (unsigned)running : vmax;
		while (running > 0) {
			r = V->post(c->s, n);
			if (r == 0)
				atomic_fetch_add(&c->posts, n);
			else if (!(r == EOVERFLOW && V->value_max < 64))
				bad(c, "drain post(k)", r);
			running -= (int)n;
		}
	}
	int64_t end = fl_now_ns() + stall_ns;
	while (!all_done(c) && fl_now_ns() < end)
		pause_ns(1000000);
	if (!all_done(c)) {
		fprintf(stderr, "  FAIL %s: watchdog: drain did not finish in %.1f s: a worker "
			"sleeps with a token posted for it (lost wakeup)\n", V->name,
			(double)stall_ns / 1e9);
		dump(c);
		tally(c);
		return false;
	}
	for (int i = 0; i < c->nworkers; i++)
		pthread_join(c->tid[i], NULL);

	/* Every worker joined. Without getvalue (FL_NO_GETVALUE) the final value
	 * is what trywait takes (tests/value.h), so the check below that getvalue
	 * equals it has nothing to compare: said once per run, not passed. */
	int64_t fin = fl_test_value(V, c->s);
	if (!V->getvalue && k == 0 && !quiet)
		printf("  (%s has no getvalue: final value counted by trywait; "
		       "getvalue == trywait not checked)\n", V->name);
	int64_t posts = atomic_load(&c->posts), acq = atomic_load(&c->acq);
	if ((int64_t)c->initial + posts != acq + fin) {
		fprintf(stderr, "  FAIL %s: cycle %d: tokens not conserved: initial %u + posts %lld "
			"!= acquisitions %lld + final value %lld\n", V->name, k, c->initial,
			(long long)posts, (long long)acq, (long long)fin);
		dump(c);
		ok = false;
	}
	/* getvalue must be what trywait can take, no more, no less. */
	int64_t taken = 0;
	while (taken <= fin + 1 && V->trywait(c->s) == 0)
		taken++;
	if (V->getvalue && taken != fin) {
		fprintf(stderr, "  FAIL %s: cycle %d: getvalue said %lld but trywait took %lld\n",
			V->name, k, (long long)fin, (long long)taken);
		ok = false;
	}
	if (atomic_load(&c->errors))
		ok = false;
	if (!quiet)
		printf("  cycle %d: %d workers, initial %u, wake %s: %lld ops, %lld posts, %lld "
		       "acquisitions, %lld timeouts, %lld EINVAL, %lld EINTR (%lld signals), "
		       "%lld spurious wakes, final %lld: %s\n",
		       k, c->nworkers, c->initial, fl_wake_name(ws),
		       (long long)atomic_load(&c->progress), (long long)posts, (long long)acq,
		       (long long)atomic_load(&c->timeouts), (long long)atomic_load(&c->einval),
		       (long long)atomic_load(&c->eintr), (long long)atomic_load(&c->signals),
		       (long long)atomic_load(&c->injected), (long long)fin, ok ? "ok" : "FAIL");
	fflush(stdout);
	tally(c);
	V->destroy(c->s);
	free(c->s);
	free(c);
	return ok;
}

static void usage(void)
{
	fprintf(stderr, "usage: torture VARIANT [--seconds S] [--soak SECONDS] [--stall S] [--quiet]\n");
	exit(2);
}

static double num(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (*end || v <= 0) {
		fprintf(stderr, "torture: not a positive number: '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	V = fl_variant_find(argv[1]);
	if (!V) {
		fprintf(stderr, "torture: unknown variant '%s'\n", argv[1]);
		return 2;
	}
	double total = 1.0, stall = 5.0;
	bool soak = false;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			total = num(argv[++i]);
		else if (!strcmp(argv[i], "--soak") && i + 1 < argc)
			total = num(argv[++i]), soak = true;
		else if (!strcmp(argv[i], "--stall") && i + 1 < argc)
			stall = num(argv[++i]);
		else if (!strcmp(argv[i], "--quiet"))
			quiet = true;
		else
			usage();
	}
	const char *why = V->unavailable ? V->unavailable() : NULL;
	if (why) {
		printf("SKIP %s: %s\n", V->name, why);
		return 77;
	}
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	int scale = getenv("FL_TEST_SCALE") ? atoi(getenv("FL_TEST_SCALE")) : 1;
	if (scale > 1)
		stall *= scale;
	/* Cycles of 0.5 s (a soak: 2 s each, so faults build up within a cycle). */
	int64_t cycle_ns = soak ? 2000000000LL : 500000000LL;
	int64_t start = fl_now_ns(), end = start + (int64_t)(total * 1e9);
	int cycles = 0, failed = 0;
	printf("# torture %s: %.1f s%s\n", V->name, total, soak ? " (soak)" : "");
	test_policy_setup("torture", V); /* FUTEXLAB_POLICY (tests/policy_env.h) */
	do {
		int64_t left = end - fl_now_ns();
		if (!run_cycle(cycles, left < cycle_ns ? (left > 0 ? left : 1) : cycle_ns,
			       (int64_t)(stall * 1e9))) {
			failed++;
			printf("FAIL torture %s (cycle %d)\n", V->name, cycles);
			soak_row((double)(fl_now_ns() - start) / 1e9, false);
			_exit(1); /* a worker may sleep forever: nothing to join */
		}
		cycles++;
	} while (fl_now_ns() < end);
	printf("ok   torture %s: %d cycles, signals handled %lld\n", V->name, cycles,
	       (long long)atomic_load(&handled));
	soak_row((double)(fl_now_ns() - start) / 1e9, true);
	return failed ? 1 : 0;
}
