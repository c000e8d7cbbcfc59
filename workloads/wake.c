/* workloads/wake.c — `wake` and `wake-each`: T threads asleep on one
 * semaphore of value 0, released at once by the main thread; the semaphore
 * analogue of `perf bench futex wake` (results/wake-vs-perf.txt).
 *
 * One op is one round: the main thread makes sure all T waiters are asleep,
 * reads the clock, posts T tokens — `wake`: one post(T); `wake-each`: T
 * post(1) in a row — and the round lasts until the last waiter is back from
 * its wait (the latest of the clock reads each waiter makes right after its
 * wait returns). elapsed_ns is the sum of the rounds' post-to-last-return
 * times only, so ns_per_op is the mean time from the first post to the last
 * waiter running again, per round; the setup between rounds (waiters going
 * back to sleep, the check that they did) is not timed. With --wake the
 * negcount family decides how post(T) wakes: one FUTEX_WAKE(T) (exact), T
 * FUTEX_WAKE(1) (one) or a wake-all.
 *
 * Asleep, known rather than guessed: between rounds the main thread reads
 * every waiter's /proc/self/task/TID/stat until all T are in state S, twice
 * in a row (a waiter can be in S on an internal lock of the wait path, e.g.
 * portable's mutex, and be runnable again a moment later), polling every
 * 20 us, at most 2 s (then an error row: the waiters never slept). Bias: a
 * waiter counted asleep may still be in the wait path's last steps (S is set
 * just before schedule()); a design whose waiters spin before sleeping
 * (--policy spin:N, a peer's own spin) is measured after the spin has run
 * out. The waiters' return is signalled to the main thread through an
 * eventfd, not a futex, so the probe columns count the semaphore's futex
 * calls only.
 *
 * Checked: every waiter returns exactly once per round (a second return in
 * one round, or one before the first post, is an error), no wait or post
 * fails, the value is 0 after every round. Posting T tokens at once (or
 * letting T accumulate) needs T <= the variant's value_max (unavailable hook, as
 * barrier); floor-atomic is skipped (its waiters spin: nobody sleeps). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "lib/task.h"
#include "workloads/workload.h"

#define ASLEEP_BOUND_NS 2000000000LL
#define RETURN_BOUND_NS 10000000000LL

struct wk {
	struct fl_sem sem;
	int T;
	_Atomic pid_t *tid;         /* the waiters' thread ids, 0 until started */
	_Atomic int64_t round;      /* the round being posted (0: none yet) */
	_Atomic int returned;       /* waiters back this round */
	_Atomic int64_t last_ns;    /* latest return this round */
	_Atomic int passed;         /* waiters through the gate, back to wait */
	_Atomic int stop;
	int efd;                    /* the last waiter back signals here */
	int gate;                   /* eventfd (semaphore mode): one read per waiter
				     * between rounds */
	struct fl_errbox err;
};

struct wk_arg {
	struct wk *w;
	int i;
};

static void *wk_waiter(void *arg)
{
	struct wk_arg *a = arg;
	struct wk *w = a->w;
	atomic_store(&w->tid[a->i], gettid());
	int64_t mine = 0;
	for (;;) {
		int e = fl_sem_wait(&w->sem);
		int64_t t = fl_now_ns();
		if (e) {
			fl_fail_box(&w->err, "wait: %s", strerror(e));
			t = 0; /* still count this waiter back: the round ends */
		}
		if (atomic_load(&w->stop))
			break;
		int64_t r = atomic_load(&w->round);
		if (r == mine)
			fl_fail_box(&w->err, "waiter %d returned %s", a->i,
				    r ? "twice in one round" : "before any post");
		mine = r;
		int64_t last = atomic_load_explicit(&w->last_ns, memory_order_relaxed);
		while (t > last && !atomic_compare_exchange_weak(&w->last_ns, &last, t))
			;
		if (atomic_fetch_add(&w->returned, 1) + 1 == w->T) {
			uint64_t one = 1;
			if (write(w->efd, &one, sizeof one) != sizeof one)
				fl_fail_box(&w->err, "eventfd write: %s", strerror(errno));
		}
		/* No waiter waits again before the round is over: a barging design
		 * would hand it a token meant for another, legitimately. */
		uint64_t v;
		while (read(w->gate, &v, sizeof v) < 0 && errno == EINTR)
			;
		atomic_fetch_add(&w->passed, 1);
	}
	return NULL;
}

static bool all_asleep(struct wk *w)
{
	for (int i = 0; i < w->T; i++) {
		pid_t t = atomic_load(&w->tid[i]);
		if (!t || fl_task_state(t) != 'S')
			return false;
	}
	return true;
}

/* Until every waiter was seen in S on two consecutive scans; false after
 * ASLEEP_BOUND_NS. */
static bool wait_asleep(struct wk *w)
{
	int64_t end = fl_now_ns() + ASLEEP_BOUND_NS;
	struct timespec tick = { 0, 20000 };
	for (int ok = 0; ok < 2;) {
		ok = all_asleep(w) ? ok + 1 : 0;
		if (ok < 2) {
			if (fl_now_ns() > end)
				return false;
			nanosleep(&tick, NULL);
		}
	}
	return true;
}

/* Blocks until the last waiter of the round signals, at most
 * RETURN_BOUND_NS; false on timeout (a lost wakeup). */
static bool wait_returned(struct wk *w)
{
	int64_t end = fl_now_ns() + RETURN_BOUND_NS;
	while (atomic_load(&w->returned) < w->T) {
		uint64_t v;
		if (fl_now_ns() > end)
			return false;
		/* block, not spin: a spinning main thread takes the CPU a waiter
		 * needs (2 cores). The count is re-read after every wakeup (a
		 * signal of the previous round may still be pending). */
		struct pollfd pf = { .fd = w->efd, .events = POLLIN };
		if (poll(&pf, 1, 100) > 0 && read(w->efd, &v, sizeof v) < 0 && errno != EAGAIN)
			return false;
	}
	return true;
}

/* Lets the waiters through the gate; true once all T are past it (on
 * their way back to wait), false after ASLEEP_BOUND_NS. */
static bool open_gate(struct wk *w)
{
	uint64_t n = (uint64_t)w->T;
	atomic_store(&w->passed, 0);
	if (write(w->gate, &n, sizeof n) != sizeof n)
		return false;
	int64_t end = fl_now_ns() + ASLEEP_BOUND_NS;
	struct timespec tick = { 0, 20000 };
	while (atomic_load(&w->passed) < w->T) {
		if (fl_now_ns() > end)
			return false;
		nanosleep(&tick, NULL);
	}
	return true;
}

static void release(struct wk *w, bool each, int n)
{
	if (each)
		for (int i = 0; i < n; i++)
			fl_sem_post(&w->sem, 1, &w->err);
	else
		fl_sem_post(&w->sem, (unsigned)n, &w->err);
}

static void run_wake(const struct fl_variant *v, const struct fl_params *p,
		     struct fl_result *res, bool each)
{
	struct wk w = { .T = p->threads };
	int e = fl_sem_open(&w.sem, v, 0);
	if (e) {
		fl_fail(res, "init(0): %s", strerror(e));
		return;
	}
	w.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	w.gate = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (w.efd < 0 || w.gate < 0) {
		fl_fail(res, "eventfd: %s", strerror(errno));
		if (w.efd >= 0)
			close(w.efd);
		if (w.gate >= 0)
			close(w.gate);
		fl_sem_close(&w.sem);
		return;
	}
	w.tid = calloc((size_t)w.T, sizeof *w.tid);
	struct wk_arg *args = calloc((size_t)w.T, sizeof *args);
	for (int i = 0; i < w.T; i++)
		args[i] = (struct wk_arg){ &w, i };
	pthread_t *t = fl_spawn(w.T, wk_waiter, args, sizeof *args);
	int64_t end = fl_now_ns() + p->duration_ns, rounds = 0, timed = 0;
	bool stuck = false;
	do {
		if (rounds && !open_gate(&w)) {
			fl_fail_box(&w.err, "round %lld: the %d waiters did not all pass the gate "
				    "within %lld s", (long long)rounds + 1, w.T,
				    ASLEEP_BOUND_NS / 1000000000);
			break;
		}
		if (!wait_asleep(&w)) {
			fl_fail_box(&w.err, "round %lld: the %d waiters were not all asleep within "
				    "%lld s", (long long)rounds + 1, w.T, ASLEEP_BOUND_NS / 1000000000);
			break;
		}
		atomic_store(&w.returned, 0);
		atomic_store(&w.last_ns, 0);
		atomic_store(&w.round, rounds + 1);
		int64_t t0 = fl_now_ns();
		release(&w, each, w.T);
		if (!wait_returned(&w)) {
			fl_fail_box(&w.err, "round %lld: %d of %d waiters back %lld s after the post "
				    "(a lost wakeup)", (long long)rounds + 1, atomic_load(&w.returned),
				    w.T, RETURN_BOUND_NS / 1000000000);
			stuck = true;
			break;
		}
		timed += atomic_load(&w.last_ns) - t0;
		rounds++;
		if (fl_sem_value_or(&w.sem, 0) != 0) {
			fl_fail_box(&w.err, "round %lld: value %d after all %d waiters returned "
				    "(expected 0)", (long long)rounds, fl_sem_value_or(&w.sem, 0), w.T);
			break;
		}
	} while (!atomic_load(&w.err.set) && (p->ops ? rounds < p->ops : fl_now_ns() < end));
	/* Release everyone for good: through the gate, then one token each
	 * (a waiter leaves after its next wait returns). After a lost wakeup
	 * tokens may be left over (the error is already set); a design that
	 * still strands a waiter hangs the join, as in every workload. */
	atomic_store(&w.stop, 1);
	uint64_t n = (uint64_t)w.T;
	if (write(w.gate, &n, sizeof n) != sizeof n)
		fl_fail_box(&w.err, "eventfd write: %s", strerror(errno));
	release(&w, false, w.T);
	for (int i = 0; i < w.T; i++)
		pthread_join(t[i], NULL);
	res->ops = rounds;
	res->elapsed_ns = timed;
	fl_take_error(res, &w.err);
	if (!stuck && !res->error[0] && fl_sem_value_or(&w.sem, 0) != 0)
		fl_fail(res, "final value %d (expected 0)", fl_sem_value_or(&w.sem, 0));
	close(w.efd);
	close(w.gate);
	free(t);
	free(args);
	free(w.tid);
	fl_sem_close(&w.sem);
}

static void fl_run_wake(const struct fl_variant *v, const struct fl_params *p,
			struct fl_result *r)
{
	run_wake(v, p, r, false);
}

static void fl_run_wake_each(const struct fl_variant *v, const struct fl_params *p,
			     struct fl_result *r)
{
	run_wake(v, p, r, true);
}

static const char *fl_unavailable_wake(const struct fl_variant *v, const struct fl_params *p)
{
	static __thread char why[160];
	if (v == &fl_floor_atomic)
		return "floor-atomic's waiters spin: nobody sleeps, nothing to wake";
	if (p->threads <= v->value_max)
		return NULL;
	snprintf(why, sizeof why, "wake posts %d tokens in one round, above the variant's "
		 "maximum %d", p->threads, v->value_max);
	return why;
}

/* registered in workloads/meson.build (workload_names) */
const struct fl_workload fl_workload_wake = {
	.name = "wake",
	.run = fl_run_wake,
	.unavailable = fl_unavailable_wake,
	.summary = "T threads asleep on one semaphore; one post(T) releases them all",
	.op = "round: post(T) to last return",
	.has_floors = true,
};

/* registered in workloads/meson.build (workload_names) */
const struct fl_workload fl_workload_wake_each = {
	.name = "wake-each",
	.run = fl_run_wake_each,
	.unavailable = fl_unavailable_wake,
	.summary = "T threads asleep on one semaphore; T post(1) in a row release them",
	.op = "round: T post(1) to last return",
	.has_floors = true,
};
