/* tests/test_probes.c — the probes must count exactly what a controlled
 * program did.
 *
 *   test_probes collector            the libbpf collector (probes/futexstat)
 *   test_probes bpftrace SCRIPT.bt   a bpftrace script, output parsed
 *
 * The controlled program (known_calls) makes, on separate futex words:
 *   N_WAKE0  FUTEX_WAKE with nobody waiting, F2_WAKE0 futex_wake(2) likewise;
 *   M_AGAIN  FUTEX_WAIT_BITSET with a mismatched value (EAGAIN), F2_AGAIN
 *            futex_wait(2) likewise;
 *   K_TIMEOUT FUTEX_WAIT with a 1 ms timeout that expires;
 *   one FUTEX_CMP_REQUEUE that fails (an "other" op);
 *   W_SLEEP threads asleep in FUTEX_WAIT_BITSET, woken by ONE FUTEX_WAKE
 *            (returns W_SLEEP), each then waiting again on the same word with
 *            a mismatched value: one thundering-herd burst;
 *   one thread asleep in FUTEX_WAIT_BITSET interrupted by a signal (EINTR).
 * (The herd's re-waits are also W_SLEEP resleeps: each sleeper's next futex
 * call after its wait returned 0 is a wait on the same word.)
 * A second program (wtr_calls, collector only) scripts wake-to-run and
 * resleeps exactly: K_WTR threads blocked in FUTEX_WAIT, one wake for all
 * (K_WTR wake-to-run samples); a thread woken R_SLEEP + 1 times while its
 * word still holds the value it waits for, re-waiting each time (R_SLEEP
 * resleeps); three controls that must not count — woken, then a FUTEX_WAKE
 * of its own, then a wait on the same word; woken, then a wait on another
 * word; woken, then a pause of 3 resleep windows, then a wait on the same
 * word.
 * Every count the probe reports must equal the number derived from these.
 * Threads are created before and joined after the observed window, and
 * nothing else in the window makes futex calls (no stdio, no locks, no
 * pthread_join), so the numbers are exact, not bounds.
 *
 * Exit 77 (skipped, with the reason) only when BPF cannot be used here. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/check.h"
#ifdef FL_HAVE_PROBES
#include "probes/futexstat.h"
#include "variants/variant.h"
#endif
#include "probes/tracefs.h"
#ifdef FL_HAVE_LIBURING
#include <liburing.h>
#endif

#ifndef SYS_futex_wake
#define SYS_futex_wake 454
#endif
#ifndef SYS_futex_wait
#define SYS_futex_wait 455
#endif
#define FUTEX2_SIZE_U32 0x02
#define FUTEX2_PRIVATE 128

enum {
	N_WAKE0 = 7, F2_WAKE0 = 3, M_AGAIN = 120, F2_AGAIN = 2, K_TIMEOUT = 5, W_SLEEP = 3,
	HERD_MIN = 3, STORM_MIN = 100, /* M_AGAIN > STORM_MIN: exactly one storm */
};
/* The wake of W_SLEEP sits exactly on the herd threshold: an off-by-one in
 * the probe's ">= H" shows. */
_Static_assert(W_SLEEP == HERD_MIN, "the herd case must sit on the threshold");

static _Alignas(64) _Atomic uint32_t w_a, w_a2, w_b, w_c, w_d, w_e, w_f;
static _Atomic int sleeper_tid[W_SLEEP], eintr_tid, done_sleepers, done_eintr;
/* The woken sleepers wait again one at a time, in index order: futex-herd.bt
 * updates its maps without atomics (its header: two re-waits counted on two
 * CPUs at once can lose one, or count a burst twice), and this test wants
 * its exact counts, not that race's (seen: @rewaits 2 of 3 in about 1 run of
 * 30, and twice in a row in CI). The turn is passed by an atomic store and
 * waited for with sched_yield: no futex call in the window. */
static _Atomic int rewait_turn;
static int go_pipe[2], eintr_pipe[2], bye_pipe[2];
static long sleeper_r1[W_SLEEP], sleeper_r2[W_SLEEP], eintr_r;
static int have_f2; /* futex2 syscalls exist (Linux 6.7+) */

static long futex(_Atomic uint32_t *a, int op, uint32_t val, const struct timespec *ts,
		  _Atomic uint32_t *a2, uint32_t val3)
{
	long r = syscall(SYS_futex, a, op, val, ts, a2, val3);
	return r < 0 ? -errno : r;
}

static void pause_us(long us)
{
	struct timespec ts = { 0, us * 1000 };
	nanosleep(&ts, NULL);
}

#ifdef FL_HAVE_PROBES
/* ---- wake-to-run and resleeps (collector only) ---------------------------
 * Every thread is asleep (blocked_on) before each wake aimed at it, so every
 * wake makes exactly one wakeup -> switch-in. */
enum { K_WTR = 4, R_SLEEP = 5 };
static _Alignas(64) _Atomic uint32_t w_g, w_h, w_i, w_j, w_k, w_l;
#define RESLEEP_WINDOW_NS 100000000ULL /* 100 ms: the scripted re-waits are immediate */
static _Atomic int wtr_tid[K_WTR + 4], wtr_iter[K_WTR + 4];
static long wtr_r[K_WTR + 4][R_SLEEP + 1];
static int wtr_go[2], wtr_bye[2];
static pthread_t wtr_threads[K_WTR + 4];

static long futex(_Atomic uint32_t *a, int op, uint32_t val, const struct timespec *ts,
		  _Atomic uint32_t *a2, uint32_t val3);

static long fwait(_Atomic uint32_t *a)
{
	return futex(a, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0);
}

/* Thread i < K_WTR: one wait on w_g. K_WTR: R_SLEEP + 1 waits on w_h (the
 * re-sleeper). K_WTR + 1: wait on w_i, its own FUTEX_WAKE on w_i, wait on w_i
 * again. K_WTR + 2: wait on w_j, then on w_k. K_WTR + 3: wait on w_l, sleep
 * 3 resleep windows (nanosleep: no futex), wait on w_l again. */
static void *wtr_thread(void *arg)
{
	int i = (int)(intptr_t)arg;
	char b;
	if (read(wtr_go[0], &b, 1) != 1)
		abort();
	atomic_store(&wtr_tid[i], (int)syscall(SYS_gettid));
	if (i < K_WTR) {
		atomic_store(&wtr_iter[i], 1);
		wtr_r[i][0] = fwait(&w_g);
	} else if (i == K_WTR) {
		for (int k = 0; k <= R_SLEEP; k++) {
			atomic_store(&wtr_iter[i], k + 1);
			wtr_r[i][k] = fwait(&w_h);
		}
	} else if (i == K_WTR + 1) {
		atomic_store(&wtr_iter[i], 1);
		wtr_r[i][0] = fwait(&w_i);
		wtr_r[i][1] = futex(&w_i, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
		atomic_store(&wtr_iter[i], 2);
		wtr_r[i][2] = fwait(&w_i);
	} else if (i == K_WTR + 2) {
		atomic_store(&wtr_iter[i], 1);
		wtr_r[i][0] = fwait(&w_j);
		atomic_store(&wtr_iter[i], 2);
		wtr_r[i][1] = fwait(&w_k);
	} else {
		atomic_store(&wtr_iter[i], 1);
		wtr_r[i][0] = fwait(&w_l);
		pause_us(3 * RESLEEP_WINDOW_NS / 1000);
		atomic_store(&wtr_iter[i], 2);
		wtr_r[i][1] = fwait(&w_l);
	}
	atomic_store(&wtr_iter[i], -1);
	if (read(wtr_bye[0], &b, 1) != 1)
		abort();
	return NULL;
}

static int blocked_on(int tid, void *addr);
static void pause_us(long us);

/* Waits until thread i has started its k-th wait (1-based) and sleeps in it
 * on addr. */
static void wtr_await(int i, int k, void *addr)
{
	while (atomic_load(&wtr_iter[i]) != k)
		pause_us(100);
	while (!blocked_on(atomic_load(&wtr_tid[i]), addr))
		pause_us(100);
}

static long wtr_wake_g, wtr_wake_r[R_SLEEP + 1], wtr_wake_i[2], wtr_wake_jk[2], wtr_wake_l[2];

static void wtr_calls(void)
{
	char bytes[K_WTR + 4] = { 0 };
	if (write(wtr_go[1], bytes, sizeof bytes) != (ssize_t)sizeof bytes)
		abort();
	for (int i = 0; i < K_WTR; i++)
		wtr_await(i, 1, &w_g);
	wtr_wake_g = futex(&w_g, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, NULL, 0);
	/* the word w_h stays 0: every wake finds the waiter's condition unchanged */
	for (int k = 0; k <= R_SLEEP; k++) {
		wtr_await(K_WTR, k + 1, &w_h);
		wtr_wake_r[k] = futex(&w_h, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	}
	for (int k = 0; k < 2; k++) {
		wtr_await(K_WTR + 1, k + 1, &w_i);
		wtr_wake_i[k] = futex(&w_i, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	}
	wtr_await(K_WTR + 2, 1, &w_j);
	wtr_wake_jk[0] = futex(&w_j, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	wtr_await(K_WTR + 2, 2, &w_k);
	wtr_wake_jk[1] = futex(&w_k, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	for (int k = 0; k < 2; k++) {
		wtr_await(K_WTR + 3, k + 1, &w_l);
		wtr_wake_l[k] = futex(&w_l, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	}
	for (int i = 0; i < K_WTR + 4; i++)
		while (atomic_load(&wtr_iter[i]) != -1)
			pause_us(100);
}

#endif

static void *sleeper(void *arg)
{
	int i = (int)(intptr_t)arg;
	char b;
	if (read(go_pipe[0], &b, 1) != 1)
		abort();
	atomic_store(&sleeper_tid[i], (int)syscall(SYS_gettid));
	sleeper_r1[i] = futex(&w_d, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0, NULL, NULL,
			      FUTEX_BITSET_MATCH_ANY);
	/* back to waiting on the same word (w_d is 0: EAGAIN), in turn */
	while (atomic_load(&rewait_turn) != i)
		sched_yield();
	sleeper_r2[i] = futex(&w_d, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 1, NULL, NULL,
			      FUTEX_BITSET_MATCH_ANY);
	atomic_store(&rewait_turn, i + 1);
	atomic_fetch_add(&done_sleepers, 1);
	if (read(bye_pipe[0], &b, 1) != 1)
		abort();
	return NULL;
}

static void on_usr1(int sig) { (void)sig; }

static void *eintr_waiter(void *arg)
{
	(void)arg;
	char b;
	if (read(eintr_pipe[0], &b, 1) != 1)
		abort();
	atomic_store(&eintr_tid, (int)syscall(SYS_gettid));
	eintr_r = futex(&w_f, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0, NULL, NULL,
			FUTEX_BITSET_MATCH_ANY);
	atomic_store(&done_eintr, 1);
	if (read(bye_pipe[0], &b, 1) != 1)
		abort();
	return NULL;
}

/* Whether thread `tid` of process `pid` (0: this one, as /proc/self: right
 * also in a pid namespace whose /proc is not mounted) is blocked in futex(2)
 * on `addr`: its /proc/PID/task/TID/syscall reads "202 0xADDR ..." only while it
 * sleeps in the call (a sleeping futex waiter is already queued). open/read
 * only: no stdio, no futex. */
static int task_blocked_on(pid_t pid, int tid, void *addr)
{
	char path[64], buf[128], want[64];
	if (pid)
		snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid, tid);
	else
		snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	int w = snprintf(want, sizeof want, "%d 0x%lx ", SYS_futex, (unsigned long)addr);
	return strncmp(buf, want, (size_t)w) == 0;
}

/* A thread of this process. */
static int blocked_on(int tid, void *addr)
{
	return task_blocked_on(0, tid, addr);
}

static pthread_t threads[W_SLEEP + 1];

static void start_threads(void)
{
	if (pipe(go_pipe) || pipe(eintr_pipe) || pipe(bye_pipe))
		abort();
	struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART: EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	atomic_store(&rewait_turn, 0);
	for (int i = 0; i < W_SLEEP; i++)
		if (pthread_create(&threads[i], NULL, sleeper, (void *)(intptr_t)i))
			abort();
	if (pthread_create(&threads[W_SLEEP], NULL, eintr_waiter, NULL))
		abort();
}

static void join_threads(void)
{
	char bytes[W_SLEEP + 1] = { 0 };
	if (write(bye_pipe[1], bytes, sizeof bytes) != (ssize_t)sizeof bytes)
		abort();
	for (int i = 0; i <= W_SLEEP; i++)
		pthread_join(threads[i], NULL);
}

static long wake_d_result, requeue_r;
static long a_r[N_WAKE0], f2w_r[F2_WAKE0], b_r[M_AGAIN], f2a_r[F2_AGAIN], c_r[K_TIMEOUT];

/* The observed window: exactly the calls in the header, nothing else. */
static void known_calls(void)
{
	for (int i = 0; i < N_WAKE0; i++)
		a_r[i] = futex(&w_a, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	for (int i = 0; have_f2 && i < F2_WAKE0; i++)
		f2w_r[i] = syscall(SYS_futex_wake, &w_a, 0xffffffffUL, 1, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE);
	for (int i = 0; i < M_AGAIN; i++)
		b_r[i] = futex(&w_b, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 1, NULL, NULL,
			       FUTEX_BITSET_MATCH_ANY);
	for (int i = 0; have_f2 && i < F2_AGAIN; i++)
		f2a_r[i] = syscall(SYS_futex_wait, &w_e, 1, 0xffffffffUL, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE,
				   NULL, CLOCK_MONOTONIC) < 0 ? -errno : 0;
	for (int i = 0; i < K_TIMEOUT; i++) {
		struct timespec rel = { 0, 1000000 };
		c_r[i] = futex(&w_c, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, &rel, NULL, 0);
	}
	/* CMP_REQUEUE whose val3 does not match *w_a: EAGAIN, neither wait nor wake */
	requeue_r = futex(&w_a, FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG, 0,
			  (const struct timespec *)0, &w_a2, 1);

	/* W_SLEEP sleepers on w_d, all queued, then one wake for all */
	char bytes[W_SLEEP] = { 0 };
	if (write(go_pipe[1], bytes, W_SLEEP) != W_SLEEP)
		abort();
	for (int i = 0; i < W_SLEEP; i++) {
		while (!atomic_load(&sleeper_tid[i]))
			pause_us(100);
		while (!blocked_on(atomic_load(&sleeper_tid[i]), &w_d))
			pause_us(100);
	}
	wake_d_result = futex(&w_d, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, NULL, 0);
	while (atomic_load(&done_sleepers) < W_SLEEP)
		pause_us(100);

	/* one sleeper interrupted by a signal */
	if (write(eintr_pipe[1], bytes, 1) != 1)
		abort();
	while (!atomic_load(&eintr_tid))
		pause_us(100);
	while (!blocked_on(atomic_load(&eintr_tid), &w_f))
		pause_us(100);
	pthread_kill(threads[W_SLEEP], SIGUSR1);
	while (!atomic_load(&done_eintr))
		pause_us(100);
}

/* The program did what it says (else the expected numbers are wrong). */
static void check_program(void)
{
	for (int i = 0; i < N_WAKE0; i++)
		CHECK(a_r[i] == 0, "wake %d with nobody waiting returned %ld", i, a_r[i]);
	for (int i = 0; have_f2 && i < F2_WAKE0; i++)
		CHECK(f2w_r[i] == 0, "futex_wake(2) %d returned %ld", i, f2w_r[i]);
	for (int i = 0; i < M_AGAIN; i++)
		CHECK(b_r[i] == -EAGAIN, "mismatched wait %d returned %ld", i, b_r[i]);
	for (int i = 0; have_f2 && i < F2_AGAIN; i++)
		CHECK(f2a_r[i] == -EAGAIN, "futex_wait(2) %d returned %ld", i, f2a_r[i]);
	for (int i = 0; i < K_TIMEOUT; i++)
		CHECK(c_r[i] == -ETIMEDOUT, "timed wait %d returned %ld", i, c_r[i]);
	CHECK(requeue_r == -EAGAIN, "cmp_requeue returned %ld", requeue_r);
	CHECK(wake_d_result == W_SLEEP, "the wake of %d sleepers returned %ld", W_SLEEP,
	      wake_d_result);
	for (int i = 0; i < W_SLEEP; i++)
		CHECK(sleeper_r1[i] == 0 && sleeper_r2[i] == -EAGAIN,
		      "sleeper %d returned %ld then %ld", i, sleeper_r1[i], sleeper_r2[i]);
	CHECK(eintr_r == -EINTR, "the interrupted wait returned %ld", eintr_r);
}

/* What every probe must report for the window. */
static struct expect {
	long futex_calls, op_wait, op_wait_bitset, op_wake, op_other, f2_wait, f2_wake;
	long wake_calls, woken, wake_none;
	long wait_calls, wait_ok, wait_eagain, wait_timedout, wait_eintr;
	long herd_bursts, eagain_storms, big_wakes, rewaits, resleeps;
} X;

static void expect_init(void)
{
	/* futex2 present? (asked on a private word, outside any window) */
	_Atomic uint32_t probe = 0;
	have_f2 = syscall(SYS_futex_wake, &probe, 0xffffffffUL, 1,
			  FUTEX2_SIZE_U32 | FUTEX2_PRIVATE) >= 0;
	int f2w = have_f2 ? F2_WAKE0 : 0, f2a = have_f2 ? F2_AGAIN : 0;
	X.op_wait = K_TIMEOUT;
	X.op_wait_bitset = M_AGAIN + 2 * W_SLEEP + 1;
	X.op_wake = N_WAKE0 + 1;
	X.op_other = 1;
	X.futex_calls = X.op_wait + X.op_wait_bitset + X.op_wake + X.op_other;
	X.f2_wait = f2a;
	X.f2_wake = f2w;
	X.wake_calls = N_WAKE0 + 1 + f2w;
	X.woken = W_SLEEP;
	X.wake_none = N_WAKE0 + f2w;
	X.wait_calls = X.op_wait + X.op_wait_bitset + f2a;
	X.wait_ok = W_SLEEP;
	X.wait_eagain = M_AGAIN + W_SLEEP + f2a;
	X.wait_timedout = K_TIMEOUT;
	X.wait_eintr = 1;
	X.herd_bursts = 1;
	X.eagain_storms = 1;
	X.big_wakes = 1;
	X.rewaits = W_SLEEP;
	X.resleeps = W_SLEEP;
}

#define EQ(got, want) CHECK((long)(got) == (long)(want), "%s = %ld, want %ld", #got, \
			     (long)(got), (long)(want))

static int skip(const char *why)
{
	printf("SKIP: %s\n", why);
	return 77;
}

/* ---- the libbpf collector ---------------------------------------------- */
#ifdef FL_HAVE_PROBES
static struct futexstat *fs;

static void t_collector_known(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts c;
	start_threads();
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	known_calls();
	futexstat_stop(fs, &c);
	join_threads();
	check_program();
	EQ(c.futex_calls, X.futex_calls);
	EQ(c.op_wait, X.op_wait);
	EQ(c.op_wait_bitset, X.op_wait_bitset);
	EQ(c.op_wake, X.op_wake);
	EQ(c.op_other, X.op_other);
	EQ(c.f2_wait, X.f2_wait);
	EQ(c.f2_wake, X.f2_wake);
	EQ(c.f2_waitv, 0);
	EQ(c.f2_requeue, 0);
	EQ(c.uring_futex, 0);
	EQ(c.wake_calls, X.wake_calls);
	EQ(c.woken, X.woken);
	EQ(c.wake_none, X.wake_none);
	EQ(c.wake_err, 0);
	EQ(c.wait_calls, X.wait_calls);
	EQ(c.wait_ok, X.wait_ok);
	EQ(c.wait_eagain, X.wait_eagain);
	EQ(c.wait_timedout, X.wait_timedout);
	EQ(c.wait_eintr, X.wait_eintr);
	EQ(c.wait_err, 0);
	EQ(c.herd_bursts, X.herd_bursts);
	EQ(c.eagain_storms, X.eagain_storms);
	EQ(c.resleeps, X.resleeps);
	EQ(c.missed, 0);
	/* wake-to-run: the W_SLEEP sleepers and the EINTR waiter were asleep when
	 * woken (one sample each); the timed waits add one each, except in the
	 * rare case where a timer fires before its thread got off the CPU */
	unsigned long long wtr = 0;
	for (int i = 0; i < FUTEXSTAT_WTR_SLOTS; i++)
		wtr += c.wtr_hist[i];
	EQ(wtr, c.wake_to_run_n);
	CHECK(c.wake_to_run_n >= W_SLEEP + 1, "wake_to_run_n = %llu, want >= %d",
	      (unsigned long long)c.wake_to_run_n, W_SLEEP + 1);
	/* every wait is in the histogram; the timed-out ones lasted >= 1 ms,
	 * so at least K_TIMEOUT sit at or above slot 19 ([2^19, 2^20) ns) */
	unsigned long long hist = 0, slow = 0;
	for (int i = 0; i < FUTEXSTAT_HIST_SLOTS; i++) {
		hist += c.wait_hist[i];
		if (i >= 19)
			slow += c.wait_hist[i];
	}
	EQ(hist, X.wait_calls);
	CHECK(slow >= K_TIMEOUT, "%llu waits of >= 0.5 ms, want >= %d", slow, K_TIMEOUT);
	CHECK(futexstat_wait_quantile(&c, 1.0) >= 1000000, "max wait bucket %llu ns",
	      (unsigned long long)futexstat_wait_quantile(&c, 1.0));
}

/* The scripted wake-to-run and resleep program (wtr_calls): exact counts. */
static void t_collector_wtr(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts c;
	CHECK(futexstat_sees_wake_to_run(fs), "wake-to-run asked for but not loaded");
	if (pipe(wtr_go) || pipe(wtr_bye))
		abort();
	for (int i = 0; i < K_WTR + 4; i++)
		if (pthread_create(&wtr_threads[i], NULL, wtr_thread, (void *)(intptr_t)i))
			abort();
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	wtr_calls();
	futexstat_stop(fs, &c);
	char bytes[K_WTR + 4] = { 0 };
	if (write(wtr_bye[1], bytes, sizeof bytes) != (ssize_t)sizeof bytes)
		abort();
	for (int i = 0; i < K_WTR + 4; i++)
		pthread_join(wtr_threads[i], NULL);
	/* the program did what it says */
	EQ(wtr_wake_g, K_WTR);
	for (int i = 0; i < K_WTR; i++)
		EQ(wtr_r[i][0], 0);
	for (int k = 0; k <= R_SLEEP; k++) {
		EQ(wtr_wake_r[k], 1);
		EQ(wtr_r[K_WTR][k], 0);
	}
	EQ(wtr_wake_i[0], 1);
	EQ(wtr_wake_i[1], 1);
	EQ(wtr_r[K_WTR + 1][0], 0);
	EQ(wtr_r[K_WTR + 1][1], 0); /* its own wake found nobody */
	EQ(wtr_r[K_WTR + 1][2], 0);
	EQ(wtr_wake_jk[0], 1);
	EQ(wtr_wake_jk[1], 1);
	EQ(wtr_r[K_WTR + 2][0], 0);
	EQ(wtr_r[K_WTR + 2][1], 0);
	EQ(wtr_wake_l[0], 1);
	EQ(wtr_wake_l[1], 1);
	EQ(wtr_r[K_WTR + 3][0], 0);
	EQ(wtr_r[K_WTR + 3][1], 0);
	/* waits: K_WTR + (R_SLEEP + 1) + 2 + 2 + 2, each asleep when woken */
	long waits = K_WTR + (R_SLEEP + 1) + 2 + 2 + 2;
	EQ(c.wait_calls, waits);
	EQ(c.wait_ok, waits);
	EQ(c.wake_calls, 1 + (R_SLEEP + 1) + 2 + 1 + 2 + 2);
	EQ(c.woken, waits);
	EQ(c.wake_none, 1);
	EQ(c.resleeps, R_SLEEP);
	EQ(c.wake_to_run_n, waits);
	unsigned long long wtr = 0;
	for (int i = 0; i < FUTEXSTAT_WTR_SLOTS; i++)
		wtr += c.wtr_hist[i];
	EQ(wtr, waits);
	__u64 p50 = futexstat_wtr_quantile(&c, 0.5), p99 = futexstat_wtr_quantile(&c, 0.99);
	CHECK(p50 > 0 && p50 <= p99 && p99 < 10000000000ULL,
	      "wake-to-run p50 %llu ns, p99 %llu ns", (unsigned long long)p50,
	      (unsigned long long)p99);
	EQ(c.missed, 0);
}

/* The log-linear wake-to-run slots: contiguous, each at most 1/8 of its
 * power of two wide, and the slot function agrees with the bounds. */
static void t_wtr_slots(void *arg)
{
	(void)arg;
	__u64 lo = 0;
	for (int i = 0; i < FUTEXSTAT_WTR_SLOTS - 1; i++) {
		__u64 hi = futexstat_wtr_slot_hi(i);
		CHECK(hi > lo, "slot %d: [%llu, %llu)", i, (unsigned long long)lo,
		      (unsigned long long)hi);
		CHECK(futexstat_wtr_slot(lo) == (__u32)i && futexstat_wtr_slot(hi - 1) == (__u32)i,
		      "slot %d: [%llu, %llu) maps to %u..%u", i, (unsigned long long)lo,
		      (unsigned long long)hi, futexstat_wtr_slot(lo), futexstat_wtr_slot(hi - 1));
		CHECK(lo < 8 || (hi - lo) * 8 <= lo, "slot %d: [%llu, %llu) wider than 12.5%%", i,
		      (unsigned long long)lo, (unsigned long long)hi);
		lo = hi;
	}
	/* the last slot: from 15/16 of 2^MAXPOW up, overflow included */
	EQ(lo, 15ULL << (FUTEXSTAT_WTR_MAXPOW - 4));
	EQ(futexstat_wtr_slot(lo), FUTEXSTAT_WTR_SLOTS - 1);
	EQ(futexstat_wtr_slot(1ULL << FUTEXSTAT_WTR_MAXPOW), FUTEXSTAT_WTR_SLOTS - 1);
	EQ(futexstat_wtr_slot(UINT64_MAX), FUTEXSTAT_WTR_SLOTS - 1);
	/* quantiles read the upper bound: 100 samples of 1000 ns, one of 1e6 */
	struct futexstat_counts c;
	memset(&c, 0, sizeof c);
	c.wtr_hist[futexstat_wtr_slot(1000)] = 100;
	c.wtr_hist[futexstat_wtr_slot(1000000)] = 1;
	EQ(futexstat_wtr_quantile(&c, 0.5), 1024);
	EQ(futexstat_wtr_quantile(&c, 1.0), 1048576);
}

/* Nothing counted for other processes: a child makes futex calls while the
 * collector (filtered to us) is attached. */
static void t_collector_filters(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts c;
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	pid_t p = fork();
	if (p == 0) {
		for (int i = 0; i < 100; i++)
			futex(&w_a, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
		_exit(0);
	}
	waitpid(p, NULL, 0);
	futexstat_stop(fs, &c);
	EQ(c.futex_calls, 0);
	EQ(c.wake_calls, 0);
	/* the modes are off: no tree, no words */
	EQ(c.procs, 0);
	EQ(futexstat_tree_size(fs), 0);
	int nw = -1;
	EQ(futexstat_words(fs, 0, NULL, 0, &nw), 0);
	EQ(nw, 0);
}

/* The proof of probes/columns.md: negcount's uncontended post+wait never enters the
 * kernel — 0 futex syscalls for 10000 pairs. */
static void t_negcount_uncontended(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts c;
	const struct fl_variant *v = fl_variant_find("negcount");
	CHECK(v != NULL, "negcount is registered");
	if (!v)
		return;
	void *s = aligned_alloc(64, 64);
	memset(s, 0, 64);
	CHECK(v->init(s, 0, 0) == 0, "init");
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	for (int i = 0; i < 10000; i++) {
		v->post(s, 1);
		v->wait(s);
	}
	futexstat_stop(fs, &c);
	v->destroy(s);
	free(s);
	EQ(c.futex_calls, 0);
}

#ifdef FL_HAVE_LIBURING
/* One IORING_OP_FUTEX_WAKE (52) submission: no futex syscall at all, one
 * uring_futex. The SQE is filled by hand (liburing 2.3 has no futex prep
 * helpers): futex2 flags in fd, the word in addr, the count in off, the
 * mask in addr3. */
static void t_collector_uring(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts c;
	struct io_uring ring;
	if (!futexstat_sees_uring(fs)) {
		SKIP_TEST("no io_uring:io_uring_submit_req tracepoint or no io_uring "
		          "futex opcodes in this kernel");
		return;
	}
	int e = io_uring_queue_init(4, &ring, 0);
	if (e) {
		SKIP_TEST("io_uring unavailable here: %s", strerror(-e));
		return;
	}
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	CHECK(sqe != NULL, "no free SQE in a fresh ring");
	if (!sqe) {
		io_uring_queue_exit(&ring);
		return;
	}
	memset(sqe, 0, sizeof *sqe);
	sqe->opcode = 52; /* IORING_OP_FUTEX_WAKE */
	sqe->fd = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE;
	sqe->addr = (uintptr_t)&w_a;
	sqe->off = 1;
	sqe->addr3 = 0xffffffffU;
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	int n = io_uring_submit_and_wait(&ring, 1);
	futexstat_stop(fs, &c);
	struct io_uring_cqe *cqe = NULL;
	CHECK(n == 1 && io_uring_peek_cqe(&ring, &cqe) == 0 && cqe && cqe->res == 0,
	      "the io_uring futex wake completed with %d", cqe ? cqe->res : n);
	io_uring_queue_exit(&ring);
	EQ(c.uring_futex, 1);
	EQ(c.futex_calls, 0);
	EQ(c.wake_calls, 0);
}
#endif

#ifndef FL_HAVE_LIBURING
static void t_no_liburing(void *arg)
{
	(void)arg;
	SKIP_TEST("built without liburing: no io_uring futex submission to count");
}
#endif

static int collector(void)
{
	char why[300];
	struct futexstat_config cfg = {
		.herd_min = HERD_MIN, .herd_window_ns = 1000000000ULL,
		.storm_interval_ns = 1000000000ULL, .storm_min = STORM_MIN, .wake_to_run = 1,
		.resleep_window_ns = RESLEEP_WINDOW_NS,
	};
	fs = futexstat_open(&cfg, why, sizeof why);
	if (!fs)
		return skip(why);
	expect_init();
	run_test("collector counts the known calls exactly", t_collector_known, NULL, 60);
	run_test("wake-to-run slots are contiguous and 12.5% wide", t_wtr_slots, NULL, 10);
	run_test("collector: wake-to-run samples and resleeps exactly", t_collector_wtr, NULL, 60);
	run_test("collector ignores other processes", t_collector_filters, NULL, 30);
	run_test("negcount uncontended: 0 futex syscalls", t_negcount_uncontended, NULL, 30);
#ifdef FL_HAVE_LIBURING
	run_test("collector counts io_uring futex submissions", t_collector_uring, NULL, 30);
#else
	run_test("collector counts io_uring futex submissions", t_no_liburing, NULL, 30);
#endif
	futexstat_close(fs);
	return tests_done("probes collector");
}

/* ---- follow mode and per-word counts (test_probes tree TREE_PROG) --------
 *
 * TREE_PROG is tests/tree_prog.c: a root that forks a child that forks a
 * grandchild and starts a thread, with an exact futex profile, printed by
 * `tree_prog --expect` (read here, not copied). With follow_children the
 * collector must count exactly that profile — and nothing of this process
 * (it is the caller) nor of a helper it forked before the rep started (not a
 * descendant forked while counting), nor of what the helper forks — rep
 * after rep, the tree empty again once everything exited. Then: the caller
 * counted exactly too with count_self; per-word records keyed by process
 * (two fork copies using one address are two words, and their EAGAINs do
 * not make one storm); a process in a nested pid namespace reported with its
 * pid in ours; wake-to-run in a tree process; the words map full (an exact
 * words_lost); and in a child process, per_word without follow_children:
 * the known program above counted exactly as by the plain programs, plus
 * its words. */

enum {
	SELF_WAKES = 17,          /* the caller's own FUTEX_WAKEs in each rep */
	HELPER_WAKES = 19,        /* the helper's (forked before start) */
	HELPER_KID_WAKES = 23,    /* its child's (forked by it during the rep) */
	STORM_A = 60, STORM_B = 60, /* two fork copies' EAGAINs on one address */
	STORM_C = STORM_MIN + 1,  /* a third's on another: exactly one storm */
	NS_WAKES = 5,             /* the nested-namespace process's FUTEX_WAKEs */
	FULL_EXTRA = 10,          /* words beyond FUTEXSTAT_WORDS_MAX */
};
_Static_assert(STORM_A + STORM_B > (int)STORM_MIN && STORM_A <= (int)STORM_MIN &&
	       STORM_B <= (int)STORM_MIN,
	       "two processes' EAGAINs: a storm only if taken for one word's");

static const char *tree_prog;
static pid_t fork_as(pid_t want, void (*fn)(void));
static _Alignas(64) _Atomic uint32_t w_self, w_helper, w_storm, w_storm2, w_ns, w_wtr;

/* tree_prog --expect, parsed: key=value pairs. */
static struct kv {
	char key[40];
	long val;
} tx[64];
static int ntx;

static long tx_get(const char *key)
{
	for (int i = 0; i < ntx; i++)
		if (!strcmp(tx[i].key, key))
			return tx[i].val;
	return LONG_MIN;
}

static int read_expect(void)
{
	char cmd[600], line[2048];
	snprintf(cmd, sizeof cmd, "'%s' --expect", tree_prog);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	char *l = fgets(line, sizeof line, p);
	int st = pclose(p);
	if (!l || st != 0)
		return -1;
	for (char *tok = strtok(line, " \n"); tok && ntx < (int)(sizeof tx / sizeof tx[0]);
	     tok = strtok(NULL, " \n")) {
		char *eq = strchr(tok, '=');
		if (!eq || eq - tok >= (long)sizeof tx[0].key)
			return -1;
		snprintf(tx[ntx].key, sizeof tx[ntx].key, "%.*s", (int)(eq - tok), tok);
		tx[ntx].val = strtol(eq + 1, NULL, 10);
		ntx++;
	}
	return ntx ? 0 : -1;
}

/* The counters tree_prog --expect may name (every key it prints must be
 * known here or below: the two cannot drift apart silently). */
#define CF(x) { #x, offsetof(struct futexstat_counts, x) }
static const struct {
	const char *name;
	size_t off;
} count_fields[] = {
	CF(futex_calls), CF(op_wait), CF(op_wait_bitset), CF(op_wake), CF(op_other),
	CF(f2_wait), CF(f2_wake), CF(f2_waitv), CF(f2_requeue), CF(wake_calls), CF(woken),
	CF(wake_none), CF(wake_err), CF(wait_calls), CF(wait_ok), CF(wait_eagain),
	CF(wait_timedout), CF(wait_eintr), CF(wait_err), CF(procs),
};
static const char *const word_keys[] = { "words", "timed_word_waits", "timed_word_timedout",
					  "timed_word_min_ns" };

static __u64 count_of(const struct futexstat_counts *c, const char *name)
{
	for (size_t i = 0; i < sizeof count_fields / sizeof count_fields[0]; i++)
		if (!strcmp(count_fields[i].name, name))
			return *(const __u64 *)((const char *)c + count_fields[i].off);
	return UINT64_MAX;
}

static void wakes_on(_Atomic uint32_t *w, int n)
{
	for (int i = 0; i < n; i++)
		futex(w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
}

static int wait_child(pid_t p)
{
	int st;
	pid_t r;
	do
		r = waitpid(p, &st, 0);
	while (r < 0 && errno == EINTR);
	return r == p && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Every word of the last rep (sorted by `by`), checked sorted: the key
 * non-increasing, ties by ascending address then pid. */
static struct futexstat_word wl[FUTEXSTAT_WORDS_MAX];

static int words_sorted(int by)
{
	int nw = -1;
	int got = futexstat_words(fs, by, wl, FUTEXSTAT_WORDS_MAX, &nw);
	CHECK(got == nw, "futexstat_words(by %d) wrote %d of %d", by, got, nw);
	for (int i = 1; i < got; i++) {
		__u64 a = by ? wl[i - 1].wait_ns : wl[i - 1].waits, b = by ? wl[i].wait_ns : wl[i].waits;
		CHECK(a > b || (a == b && (wl[i - 1].uaddr < wl[i].uaddr ||
					   (wl[i - 1].uaddr == wl[i].uaddr && wl[i - 1].tgid < wl[i].tgid))),
		      "words by %d: entry %d out of order", by, i);
	}
	return got;
}

/* Counting must run in this process alone: no stdio, no thread between
 * start and stop. fork + exec of tree_prog; its exit status (0: it made
 * exactly its profile). */
static int run_tree_prog(pid_t *pid)
{
	fflush(NULL);
	pid_t p = fork();
	if (p == 0) {
		execl(tree_prog, tree_prog, (char *)NULL);
		_exit(127);
	}
	*pid = p;
	return p < 0 ? -1 : wait_child(p);
}

/* One rep: a helper forked before start (not counted, nor its child), the
 * caller's own wakes (counted only with count_self), tree_prog (counted
 * exactly). */
static void tree_rep(int self)
{
	char why[300];
	struct futexstat_counts c;
	int go[2], done[2];
	if (pipe(go) || pipe(done))
		abort();
	fflush(NULL);
	pid_t helper = fork();
	if (helper == 0) {
		char b;
		if (read(go[0], &b, 1) != 1)
			_exit(1);
		wakes_on(&w_helper, HELPER_WAKES);
		pid_t kid = fork();
		if (kid == 0) {
			wakes_on(&w_helper, HELPER_KID_WAKES);
			_exit(0);
		}
		int r = wait_child(kid);
		if (write(done[1], &b, 1) != 1)
			_exit(1);
		_exit(r);
	}
	futexstat_count_self(fs, self);
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	EQ(futexstat_tree_size(fs), 0); /* a new rep: the tree starts empty */
	wakes_on(&w_self, SELF_WAKES);
	char b = 0;
	if (write(go[1], &b, 1) != 1 || read(done[0], &b, 1) != 1)
		abort();
	int hst = wait_child(helper);
	pid_t root;
	int st = run_tree_prog(&root);
	int left = futexstat_tree_size(fs); /* every process of the tree exited */
	futexstat_stop(fs, &c);
	futexstat_count_self(fs, 0);
	close(go[0]), close(go[1]), close(done[0]), close(done[1]);
	EQ(hst, 0);
	EQ(st, 0);
	EQ(left, 0);

	/* the counters: tree_prog's profile, plus our own wakes with count_self */
	for (int i = 0; i < ntx; i++) {
		__u64 got = count_of(&c, tx[i].key);
		int known = got != UINT64_MAX;
		for (size_t k = 0; k < sizeof word_keys / sizeof word_keys[0]; k++)
			known |= !strcmp(tx[i].key, word_keys[k]);
		CHECK(known, "tree_prog --expect names %s, which this test does not know", tx[i].key);
		if (got == UINT64_MAX)
			continue;
		long want = tx[i].val;
		if (self && (!strcmp(tx[i].key, "futex_calls") || !strcmp(tx[i].key, "op_wake") ||
			     !strcmp(tx[i].key, "wake_calls") || !strcmp(tx[i].key, "wake_none")))
			want += SELF_WAKES;
		CHECK((long)got == want, "%s = %llu, want %ld (tree_prog --expect%s)", tx[i].key,
		      (unsigned long long)got, want, self ? " + our own wakes" : "");
	}
	EQ(c.procs_lost, 0);
	EQ(c.words_lost, 0);
	EQ(c.missed, 0);
	EQ(c.herd_bursts, 0);
	EQ(c.eagain_storms, 0);
	EQ(c.resleeps, 0);
	CHECK(c.wake_to_run_n <= c.wait_calls, "wake_to_run_n %llu > %llu waits",
	      (unsigned long long)c.wake_to_run_n, (unsigned long long)c.wait_calls);

	/* the words: tree_prog's, plus ours with count_self; the timed word
	 * first both by waits and by wait time (the only one with waits) */
	int nw = words_sorted(0);
	EQ(nw, tx_get("words") + (self ? 1 : 0));
	if (nw < 1)
		return;
	struct futexstat_word timed = wl[0];
	EQ(timed.waits, tx_get("timed_word_waits"));
	EQ(timed.timedout, tx_get("timed_word_timedout"));
	EQ(timed.eagain, 0);
	EQ(timed.wakes, 0);
	CHECK(timed.wait_ns >= (__u64)tx_get("timed_word_min_ns"),
	      "timed word: %llu ns in its waits, want >= %ld (a timeout never ends early)",
	      (unsigned long long)timed.wait_ns, tx_get("timed_word_min_ns"));
	CHECK(timed.tgid != 0 && timed.tgid != (__u32)root && timed.tgid != (__u32)getpid(),
	      "the timed word belongs to tree_prog's child, not to pid %u", timed.tgid);
	long wake_sum = 0;
	int root_seen = 0, self_seen = 0;
	for (int i = 1; i < nw; i++) {
		EQ(wl[i].waits, 0);
		EQ(wl[i].wait_ns, 0);
		EQ(wl[i].woken, 0);
		wake_sum += (long)wl[i].wakes;
		if (wl[i].tgid == (__u32)getpid()) {
			self_seen++;
			EQ(wl[i].uaddr, (uintptr_t)&w_self);
			EQ(wl[i].wakes, SELF_WAKES);
		}
		if (wl[i].tgid == (__u32)root)
			root_seen++;
	}
	EQ(wake_sum, tx_get("op_wake") + (self ? SELF_WAKES : 0));
	EQ(self_seen, self ? 1 : 0);
	EQ(root_seen, 1); /* tree_prog's root: one word, under its pid */
	int n1 = words_sorted(1);
	EQ(n1, nw);
	CHECK(n1 >= 1 && wl[0].uaddr == timed.uaddr && wl[0].tgid == timed.tgid,
	      "by wait time, the timed word is not first");
	/* n smaller than the count: the first n, and the count */
	struct futexstat_word one[1];
	int total = -1;
	EQ(futexstat_words(fs, 0, one, 1, &total), 1);
	EQ(total, nw);
	EQ(futexstat_words(fs, 2, one, 1, &total), -EINVAL);
}

static void t_tree_rep(void *arg)
{
	(void)arg;
	tree_rep(0);
}

static void t_tree_self(void *arg)
{
	(void)arg;
	tree_rep(1);
}

/* futex_waitv(2) on one word, value mismatched: -EAGAIN where it exists. */
struct fl_waitv {
	__u64 val, uaddr;
	__u32 flags, reserved;
};

static long waitv_once(_Atomic uint32_t *w, uint32_t val)
{
	struct fl_waitv v = { .val = val, .uaddr = (uintptr_t)w,
			      .flags = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE };
	return syscall(449 /* SYS_futex_waitv */, &v, 1, 0, NULL, CLOCK_MONOTONIC) < 0 ? -errno : 0;
}

static int have_waitv(void)
{
	_Atomic uint32_t probe = 0;
	return waitv_once(&probe, 1) == -EAGAIN;
}

/* Three processes forked during the rep: A and B make STORM_A and STORM_B
 * mismatched waits (EAGAIN) on the same address (their own copy of
 * w_storm), C makes STORM_C on w_storm2, and one mismatched futex_waitv(2)
 * there (a wait, but of no single word: no per-word count). Per process,
 * not per address: two words at one address, one storm (C's), not two. */
static void t_tree_words(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts c;
	int n[3] = { STORM_A, STORM_B, STORM_C };
	_Atomic uint32_t *w[3] = { &w_storm, &w_storm, &w_storm2 };
	pid_t pid[3];
	int st[3];
	int wv = have_waitv();
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	for (int k = 0; k < 3; k++) {
		fflush(NULL);
		pid[k] = fork();
		if (pid[k] == 0) {
			int bad = 0;
			for (int i = 0; i < n[k]; i++)
				bad |= futex(w[k], FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 1, NULL, NULL,
					     FUTEX_BITSET_MATCH_ANY) != -EAGAIN;
			if (k == 2 && wv)
				bad |= waitv_once(w[k], 1) != -EAGAIN;
			_exit(bad);
		}
		st[k] = wait_child(pid[k]);
	}
	int left = futexstat_tree_size(fs);
	futexstat_stop(fs, &c);
	for (int k = 0; k < 3; k++)
		EQ(st[k], 0);
	EQ(left, 0);
	EQ(c.procs, 3);
	EQ(c.f2_waitv, wv);
	EQ(c.wait_calls, STORM_A + STORM_B + STORM_C + wv);
	EQ(c.wait_eagain, STORM_A + STORM_B + STORM_C + wv);
	EQ(c.eagain_storms, 1);
	int nw = words_sorted(0);
	EQ(nw, 3);
	int seen[3] = { 0 };
	for (int i = 0; i < nw; i++)
		for (int k = 0; k < 3; k++)
			if (wl[i].tgid == (__u32)pid[k]) {
				seen[k]++;
				EQ(wl[i].uaddr, (uintptr_t)w[k]);
				EQ(wl[i].waits, n[k]);
				EQ(wl[i].eagain, n[k]);
				EQ(wl[i].timedout, 0);
			}
	for (int k = 0; k < 3; k++)
		CHECK(seen[k] == 1, "process %d (pid %d) has %d words, want 1", k, (int)pid[k], seen[k]);
}

/* Two processes of the tree whose copies of one address fall in one slot of
 * the storms table (the hash mixes the host tgid in: B's pid is picked, with
 * ns_last_pid, to collide with A's): the slot's tgid tag keeps them apart,
 * so STORM_A + STORM_B EAGAINs, more than STORM_MIN, are no storm. Needs
 * our pids to be the host's (the hash's): skipped in a nested pid
 * namespace, and when no colliding pid can be had. */
static void storm_b(void)
{
	int bad = 0;
	for (int i = 0; i < STORM_B; i++)
		bad |= futex(&w_storm, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 1, NULL, NULL,
			     FUTEX_BITSET_MATCH_ANY) != -EAGAIN;
	_exit(bad);
}

/* Whether this process sees the host's pid numbers (NSpid has one field). */
static int host_pids(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *l = strstr(buf, "NSpid:");
	if (!l)
		return 1; /* a kernel before NSpid (4.1) */
	int fields = 0;
	for (char *p = l + 6; *p && *p != '\n'; p++)
		if (p[0] != ' ' && p[0] != '\t' && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':'))
			fields++;
	return fields == 1;
}

static void t_tree_collide(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts c;
	if (!host_pids()) {
		SKIP_TEST("in a nested pid namespace (the slot hash uses host pids)");
		return;
	}
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	fflush(NULL);
	pid_t a = fork();
	if (a == 0) {
		int bad = 0;
		for (int i = 0; i < STORM_A; i++)
			bad |= futex(&w_storm, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 1, NULL, NULL,
				     FUTEX_BITSET_MATCH_ANY) != -EAGAIN;
		_exit(bad);
	}
	int ast = wait_child(a);
	__u64 ua = (uintptr_t)&w_storm;
	__u32 slot = futexstat_lw_index(futexstat_lw_key(ua, (__u32)a));
	pid_t b = -ESRCH;
	int bst = -1;
	for (pid_t cand = 301; cand < 4194304 && b < 0; cand++) {
		if (cand == a || futexstat_lw_index(futexstat_lw_key(ua, (__u32)cand)) != slot)
			continue;
		if (kill(cand, 0) == 0 || errno != ESRCH)
			continue; /* in use */
		b = fork_as(cand, storm_b);
		if (b == -ENOENT || b == -EACCES || b == -EPERM || b == -EROFS)
			break; /* no ns_last_pid here */
		if (b == -EINVAL)
			break; /* past pid_max */
	}
	if (b > 0)
		bst = wait_child(b);
	int left = futexstat_tree_size(fs);
	futexstat_stop(fs, &c);
	EQ(ast, 0);
	if (b < 0) {
		SKIP_TEST("no pid colliding with %d could be had (%s)", (int)a,
		          strerror((int)-b));
		return;
	}
	EQ(bst, 0);
	EQ(left, 0);
	EQ(c.wait_eagain, STORM_A + STORM_B);
	EQ(c.eagain_storms, 0);
}

/* The collector loaded from inside a pid namespace of its own (the caller
 * is pid 1 there, its child pid 2): the tree is found (the caller known
 * through that namespace) and words carry the pids of that namespace. */
static void loader_in_pidns(void)
{
	char why[300];
	struct futexstat_counts c;
	struct futexstat_config cfg = { .follow_children = 1, .per_word = 1 };
	checks_failed = 0; /* a fork: the parent's failures are not ours */
	fs = futexstat_open(&cfg, why, sizeof why);
	if (!fs) {
		printf("  cannot load in the namespace: %s\n", why);
		_exit(1);
	}
	int bad = futexstat_start(fs, why, sizeof why) != 0;
	fflush(NULL);
	pid_t z = fork();
	if (z == 0) {
		wakes_on(&w_ns, NS_WAKES);
		_exit(0);
	}
	bad |= wait_child(z) != 0;
	futexstat_stop(fs, &c);
	int nw = words_sorted(0);
	bad |= getpid() != 1 || z != 2 || c.procs != 1 || c.op_wake != NS_WAKES || nw != 1 ||
	       wl[0].tgid != (__u32)z || wl[0].wakes != NS_WAKES ||
	       wl[0].uaddr != (uintptr_t)&w_ns || futexstat_tree_size(fs) != 0;
	if (bad)
		printf("  in the namespace: pid %d, child %d, procs %llu, op_wake %llu, %d words, "
		       "first: pid %u, %llu wakes\n", (int)getpid(), (int)z,
		       (unsigned long long)c.procs, (unsigned long long)c.op_wake, nw,
		       nw > 0 ? wl[0].tgid : 0, nw > 0 ? (unsigned long long)wl[0].wakes : 0ULL);
	futexstat_close(fs);
	fflush(NULL);
	_exit(bad || checks_failed ? 1 : 0);
}

static void t_loader_in_pidns(void *arg)
{
	(void)arg;
	int rep[2];
	if (pipe(rep))
		abort();
	fflush(NULL);
	pid_t x = fork();
	if (x == 0) {
		long r = unshare(CLONE_NEWPID) ? -errno : 0;
		if (r == 0) {
			fflush(NULL);
			pid_t y = fork();
			if (y == 0)
				loader_in_pidns();
			r = wait_child(y);
		}
		_exit(write(rep[1], &r, sizeof r) == sizeof r ? 0 : 1);
	}
	long r = -1;
	EQ(wait_child(x), 0);
	EQ(read(rep[0], &r, sizeof r), (long)sizeof r);
	close(rep[0]), close(rep[1]);
	if (r == -EPERM || r == -EINVAL || r == -ENOSYS) {
		SKIP_TEST("cannot make a pid namespace here: %s", strerror((int)-r));
		return;
	}
	EQ(r, 0);
}

/* A process of the tree in a nested pid namespace (pid 1 there): followed,
 * and its word reported under its pid in ours. */
static void t_tree_pidns(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts c;
	int rep[2];
	if (pipe(rep))
		abort();
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	fflush(NULL);
	pid_t a = fork();
	if (a == 0) {
		long r = unshare(CLONE_NEWPID) ? -errno : 0;
		if (r == 0) {
			pid_t b = fork();
			if (b == 0) {
				wakes_on(&w_ns, NS_WAKES);
				_exit(getpid() == 1 ? 0 : 1);
			}
			r = wait_child(b) == 0 ? b : -1000;
		}
		_exit(write(rep[1], &r, sizeof r) == sizeof r ? 0 : 1);
	}
	int ast = wait_child(a);
	int left = futexstat_tree_size(fs);
	futexstat_stop(fs, &c);
	long b = 0;
	EQ(ast, 0);
	EQ(read(rep[0], &b, sizeof b), (long)sizeof b);
	close(rep[0]), close(rep[1]);
	if (b == -EPERM || b == -EINVAL || b == -ENOSYS) {
		SKIP_TEST("cannot make a pid namespace here: %s", strerror((int)-b));
		return;
	}
	CHECK(b > 0, "the nested process failed (%ld)", b);
	EQ(left, 0);
	EQ(c.procs, 2);
	EQ(c.op_wake, NS_WAKES);
	int nw = words_sorted(0);
	EQ(nw, 1);
	if (nw >= 1) {
		EQ(wl[0].tgid, b);
		EQ(wl[0].uaddr, (uintptr_t)&w_ns);
		EQ(wl[0].wakes, NS_WAKES);
	}
}

/* Wake-to-run in a process of the tree: a thread asleep in FUTEX_WAIT (seen
 * in its /proc syscall file) woken by one FUTEX_WAKE: exactly one sample.
 * The thread is never joined (glibc's join may wait on a futex): it reports
 * through a pipe and dies with the process. */
static int wtr_pipe[2];
static _Atomic int tree_sleeper_tid;

static void *tree_sleeper(void *arg)
{
	(void)arg;
	atomic_store(&tree_sleeper_tid, (int)syscall(SYS_gettid));
	long r = futex(&w_wtr, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0);
	if (write(wtr_pipe[1], &r, sizeof r) != sizeof r)
		_exit(3);
	for (;;)
		pause();
	return NULL;
}

static void t_tree_wtr(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts c;
	if (!futexstat_sees_wake_to_run(fs)) {
		CHECK(0, "wake-to-run asked for but not loaded");
		return;
	}
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	fflush(NULL);
	pid_t p = fork();
	if (p == 0) {
		pthread_t t;
		if (pipe(wtr_pipe) || pthread_create(&t, NULL, tree_sleeper, NULL))
			_exit(2);
		int tid;
		while (!(tid = atomic_load(&tree_sleeper_tid)))
			pause_us(100);
		while (!blocked_on(tid, &w_wtr))
			pause_us(100);
		long woke = futex(&w_wtr, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
		long r = -1;
		if (read(wtr_pipe[0], &r, sizeof r) != sizeof r)
			_exit(4);
		_exit(woke == 1 && r == 0 ? 0 : 5);
	}
	int st = wait_child(p);
	futexstat_stop(fs, &c);
	EQ(st, 0);
	EQ(c.procs, 1);
	EQ(c.wait_calls, 1);
	EQ(c.wait_ok, 1);
	EQ(c.woken, 1);
	EQ(c.wake_to_run_n, 1);
	int nw = words_sorted(0);
	EQ(nw, 1);
	if (nw >= 1) {
		EQ(wl[0].tgid, p);
		EQ(wl[0].waits, 1);
		EQ(wl[0].wakes, 1);
		EQ(wl[0].woken, 1);
	}
}

/* FUTEXSTAT_WORDS_MAX + FULL_EXTRA distinct words (FUTEX_WAKEs on as many
 * addresses, by one process of the tree): the map holds exactly
 * FUTEXSTAT_WORDS_MAX, each further word's update is one words_lost. */
static void t_tree_full(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts c;
	enum { N = FUTEXSTAT_WORDS_MAX + FULL_EXTRA };
	_Atomic uint32_t *arr = calloc(N, sizeof *arr);
	if (!arr)
		abort();
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	fflush(NULL);
	pid_t p = fork();
	if (p == 0) {
		for (int i = 0; i < N; i++)
			futex(&arr[i], FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
		_exit(0);
	}
	int st = wait_child(p);
	futexstat_stop(fs, &c);
	free(arr);
	EQ(st, 0);
	EQ(c.op_wake, N);
	EQ(c.wake_none, N);
	EQ(c.words_lost, FULL_EXTRA);
	int nw = -1;
	struct futexstat_word top[3];
	EQ(futexstat_words(fs, 0, top, 3, &nw), 3);
	EQ(nw, FUTEXSTAT_WORDS_MAX);
	EQ(top[0].wakes, 1);
}

static void t_known_words(void *arg);

/* A process that joined the tree in one rep and is still alive in the next
 * is not followed there: the tree restarts empty at each start. */
static void t_tree_carry(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts a, b;
	int go[2];
	if (pipe(go))
		abort();
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	fflush(NULL);
	pid_t p = fork();
	if (p == 0) {
		char x;
		if (read(go[0], &x, 1) != 1)
			_exit(1);
		wakes_on(&w_helper, 3);
		_exit(0);
	}
	int in_a = futexstat_tree_size(fs);
	futexstat_stop(fs, &a);
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	int in_b = futexstat_tree_size(fs);
	char x = 0;
	if (write(go[1], &x, 1) != 1)
		abort();
	int st = wait_child(p);
	futexstat_stop(fs, &b);
	close(go[0]), close(go[1]);
	EQ(st, 0);
	EQ(in_a, 1);
	EQ(a.procs, 1);
	EQ(in_b, 0);
	EQ(b.procs, 0);
	EQ(b.futex_calls, 0);
}

/* A wait of ours (count_self) entered in one rep and ended in the next:
 * counted at its entry in the first, and not classified in the second —
 * the thread table is zeroed at start, no state crosses reps — so the
 * second rep sees the wake that ended it, the thread woken, and no wait
 * result, no wake-to-run sample, no wait in its word. */
static int straddle_go[2], straddle_done[2];
static _Atomic int straddle_tid;
static _Alignas(64) _Atomic uint32_t w_straddle;

static void *straddler(void *arg)
{
	(void)arg;
	char x;
	if (read(straddle_go[0], &x, 1) != 1)
		abort();
	atomic_store(&straddle_tid, (int)syscall(SYS_gettid));
	long r = futex(&w_straddle, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0);
	x = r == 0;
	if (write(straddle_done[1], &x, 1) != 1)
		abort();
	return NULL;
}

static void t_tree_straddle(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts a, b;
	pthread_t t;
	if (pipe(straddle_go) || pipe(straddle_done) ||
	    pthread_create(&t, NULL, straddler, NULL))
		abort();
	futexstat_count_self(fs, 1);
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	char x = 0;
	if (write(straddle_go[1], &x, 1) != 1)
		abort();
	while (!atomic_load(&straddle_tid))
		pause_us(100);
	while (!blocked_on(atomic_load(&straddle_tid), &w_straddle))
		pause_us(100);
	futexstat_stop(fs, &a);
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	long woke = futex(&w_straddle, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	if (read(straddle_done[0], &x, 1) != 1)
		abort();
	futexstat_stop(fs, &b);
	futexstat_count_self(fs, 0);
	pthread_join(t, NULL);
	close(straddle_go[0]), close(straddle_go[1]);
	close(straddle_done[0]), close(straddle_done[1]);
	EQ(woke, 1);
	EQ(x, 1);
	EQ(a.wait_calls, 1);
	EQ(a.wait_ok, 0);
	EQ(b.wait_calls, 0);
	EQ(b.wake_calls, 1);
	EQ(b.woken, 1);
	EQ(b.wait_ok, 0);
	EQ(b.wake_to_run_n, 0);
	int nw = words_sorted(0);
	EQ(nw, 1);
	if (nw >= 1) {
		EQ(wl[0].uaddr, (uintptr_t)&w_straddle);
		EQ(wl[0].waits, 0);
		EQ(wl[0].wakes, 1);
		EQ(wl[0].woken, 1);
	}
}

/* Pid reuse, made to happen: /proc/sys/kernel/ns_last_pid (root) sets the
 * pid the next fork gets. P (of the tree) sleeps in FUTEX_WAIT on a shared
 * word and is woken by us (not counted): its wait returns 0, which leaves a
 * resleep chain in its thread slot; P exits. Then pid P is given to
 * (a) a process outside the tree (a child of a helper forked before start),
 * which makes REUSE_WAKES FUTEX_WAKEs: not counted, since P's exit took its
 * pid out of the tree; (b) a process of the tree (forked by us), which
 * waits on the same word (EAGAIN) at once: one wait, and no resleep, since
 * P's exit freed its thread slot. A pid that cannot be had (another process
 * took it first, 200 times) skips the test. */
enum { REUSE_WAKES = 5 };
static _Atomic uint32_t *shared_word;
static _Alignas(64) _Atomic uint32_t w_reuse;

static void reuse_wakes(void)
{
	wakes_on(&w_reuse, REUSE_WAKES);
}

static void reuse_wait(void)
{
	_exit(futex(shared_word, FUTEX_WAIT, 1, NULL, NULL, 0) == -EAGAIN ? 0 : 1);
}

/* Forks a child that runs fn if it got pid `want` (and exits at once
 * otherwise); that pid, or a negative errno value. */
static pid_t fork_as(pid_t want, void (*fn)(void))
{
	for (int i = 0; i < 200; i++) {
		int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
		if (fd < 0)
			return -errno;
		char b[32];
		int l = snprintf(b, sizeof b, "%d", (int)want - 1);
		ssize_t w = write(fd, b, (size_t)l);
		int e = errno;
		close(fd);
		if (w != l)
			return -e;
		fflush(NULL);
		pid_t p = fork();
		if (p == 0) {
			if (getpid() == want)
				fn();
			_exit(0);
		}
		if (p == want)
			return p;
		wait_child(p);
	}
	return -EAGAIN;
}

/* Whether process `pid` (single-threaded) sleeps in futex(2) on addr. */
static int proc_blocked_on(pid_t pid, void *addr)
{
	return task_blocked_on(pid, (int)pid, addr);
}

static void t_tree_reuse(void *arg)
{
	(void)arg;
	char why[300];
	struct futexstat_counts c;
	shared_word = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared_word == MAP_FAILED)
		abort();
	int cmd[2], res[2];
	if (pipe(cmd) || pipe(res))
		abort();
	fflush(NULL);
	pid_t helper = fork();
	if (helper == 0) {
		pid_t want;
		if (read(cmd[0], &want, sizeof want) != sizeof want)
			_exit(1);
		pid_t got = fork_as(want, reuse_wakes);
		if (got > 0)
			wait_child(got);
		_exit(write(res[1], &got, sizeof got) == sizeof got ? 0 : 1);
	}
	CHECK(futexstat_start(fs, why, sizeof why) == 0, "start: %s", why);
	fflush(NULL);
	pid_t p = fork();
	if (p == 0)
		_exit(futex(shared_word, FUTEX_WAIT, 0, NULL, NULL, 0) == 0 ? 0 : 1);
	while (!proc_blocked_on(p, (void *)shared_word))
		pause_us(100);
	long woke = futex(shared_word, FUTEX_WAKE, 1, NULL, NULL, 0);
	int pst = wait_child(p);
	pid_t got_a = -1, got_b;
	if (write(cmd[1], &p, sizeof p) != sizeof p || read(res[0], &got_a, sizeof got_a) != sizeof got_a)
		abort();
	int hst = wait_child(helper);
	got_b = got_a == p ? fork_as(p, reuse_wait) : got_a;
	int qst = got_b == p ? wait_child(got_b) : -1;
	int left = futexstat_tree_size(fs);
	futexstat_stop(fs, &c);
	munmap((void *)shared_word, 4096);
	close(cmd[0]), close(cmd[1]), close(res[0]), close(res[1]);
	EQ(woke, 1);
	EQ(pst, 0);
	EQ(hst, 0);
	if (got_a != p || got_b != p) {
		pid_t e = got_a != p ? got_a : got_b;
		SKIP_TEST("pid %d could not be given again (%s)", (int)p,
		          e < 0 ? strerror((int)-e) : "taken by another process");
		return;
	}
	EQ(qst, 0);
	EQ(left, 0);
	EQ(c.op_wake, 0);          /* (a): the outsider with P's pid */
	EQ(c.wait_calls, 2);       /* P's wait and (b)'s */
	EQ(c.wait_ok, 1);
	EQ(c.wait_eagain, 1);
	EQ(c.resleeps, 0);         /* (b) did not inherit P's slot */
}

/* per_word without follow_children, in a child process (the known program
 * keeps its state in globals, and targets the process that opens the
 * collector): the extended programs must count the known calls exactly as
 * the plain ones do (t_collector_known), and keep their words. */
static void per_word_alone(void)
{
	char why[300];
	struct futexstat_config cfg = {
		.herd_min = HERD_MIN, .herd_window_ns = 1000000000ULL,
		.storm_interval_ns = 1000000000ULL, .storm_min = STORM_MIN, .wake_to_run = 1,
		.resleep_window_ns = RESLEEP_WINDOW_NS, .per_word = 1,
	};
	tests_passed = tests_failed = checks_failed = 0; /* a fork: counts of our own */
	fs = futexstat_open(&cfg, why, sizeof why);
	if (!fs) {
		printf("FAIL: per_word alone: %s\n", why);
		_exit(1);
	}
	run_test("per_word alone: the known calls counted exactly", t_collector_known, NULL, 60);
	run_test("per_word alone: the known calls' words", t_known_words, NULL, 30);
	futexstat_close(fs);
	fflush(NULL);
	_exit(tests_failed ? 1 : 0);
}

/* The words of t_collector_known's rep. */
static void t_known_words(void *arg)
{
	(void)arg;
	int nw = words_sorted(0);
	EQ(futexstat_tree_size(fs), 0);
	/* by waits: w_b, w_d, w_c, w_e (futex2 only), w_f, w_a */
	struct { _Atomic uint32_t *w; long waits, eagain, timedout, wakes, woken; } want[] = {
		{ &w_b, M_AGAIN, M_AGAIN, 0, 0, 0 },
		{ &w_d, 2 * W_SLEEP, W_SLEEP, 0, 1, W_SLEEP },
		{ &w_c, K_TIMEOUT, 0, K_TIMEOUT, 0, 0 },
		{ &w_e, F2_AGAIN, F2_AGAIN, 0, 0, 0 },
		{ &w_f, 1, 0, 0, 0, 0 },
		{ &w_a, 0, 0, 0, N_WAKE0 + (have_f2 ? F2_WAKE0 : 0), 0 },
	};
	int i = 0;
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		if (want[k].w == &w_e && !have_f2)
			continue;
		if (i >= nw) {
			CHECK(0, "word %zu missing: %d words", k, nw);
			break;
		}
		EQ(wl[i].uaddr, (uintptr_t)want[k].w);
		EQ(wl[i].tgid, getpid());
		EQ(wl[i].waits, want[k].waits);
		EQ(wl[i].eagain, want[k].eagain);
		EQ(wl[i].timedout, want[k].timedout);
		EQ(wl[i].wakes, want[k].wakes);
		EQ(wl[i].woken, want[k].woken);
		if (want[k].w == &w_c)
			CHECK(wl[i].wait_ns >= (__u64)K_TIMEOUT * 1000000,
			      "w_c: %llu ns in %d waits of a 1 ms timeout",
			      (unsigned long long)wl[i].wait_ns, K_TIMEOUT);
		i++;
	}
	EQ(nw, i);
	words_sorted(1);
}

static void t_per_word_alone(void *arg)
{
	(void)arg;
	fflush(NULL);
	pid_t p = fork();
	if (p == 0)
		per_word_alone();
	EQ(wait_child(p), 0);
}

static int tree(const char *prog)
{
	char why[300];
	tree_prog = prog;
	if (read_expect()) {
		printf("FAIL: cannot run '%s --expect'\n", prog);
		return 1;
	}
	struct futexstat_config cfg = {
		.herd_min = HERD_MIN, .herd_window_ns = 1000000000ULL,
		.storm_interval_ns = 1000000000ULL, .storm_min = STORM_MIN, .wake_to_run = 1,
		.follow_children = 1, .per_word = 1,
		/* wide: t_tree_reuse's resleep would be one if P's slot were inherited */
		.resleep_window_ns = 1000000000ULL,
	};
	fs = futexstat_open(&cfg, why, sizeof why);
	if (!fs)
		return skip(why);
	futexstat_close(fs);
	fs = NULL;
	expect_init();
	run_test("per_word alone: counts and words in a child", t_per_word_alone, NULL, 120);
	fs = futexstat_open(&cfg, why, sizeof why);
	if (!fs) {
		printf("FAIL: the collector loaded once, then: %s\n", why);
		return 1;
	}
	run_test("follow: tree_prog exactly, not the caller nor its earlier helper", t_tree_rep,
		 NULL, 60);
	run_test("follow: a second rep counts the same (the tree restarts empty)", t_tree_rep,
		 NULL, 60);
	run_test("follow + count_self: the caller's own calls exactly too", t_tree_self, NULL, 60);
	run_test("follow: per-process words, no storm across fork copies", t_tree_words, NULL, 60);
	run_test("follow: a nested pid namespace, reported with our pid", t_tree_pidns, NULL, 60);
	run_test("follow: loaded inside a pid namespace, its pids", t_loader_in_pidns, NULL, 60);
	run_test("follow: one address, two processes, one storms slot: no storm",
		 t_tree_collide, NULL, 60);
	run_test("follow: wake-to-run in a process of the tree", t_tree_wtr, NULL, 60);
	run_test("follow: the words map full, words_lost exact", t_tree_full, NULL, 120);
	run_test("follow: a process of the last rep is not followed into this one", t_tree_carry,
		 NULL, 60);
	run_test("follow: a wait across two reps is not classified in the second",
		 t_tree_straddle, NULL, 60);
	run_test("follow: a reused pid is not followed, nor inherits a thread slot", t_tree_reuse,
		 NULL, 60);
	run_test("follow: after all that, tree_prog exactly again", t_tree_rep, NULL, 60);
	futexstat_close(fs);
	return tests_done("probes tree");
}
#endif

/* ---- bpftrace scripts -------------------------------------------------- */

static char bt_text[1 << 16];

/* The value of the line "KEY: N" in the output (KEY including @ and any
 * [..] part), or LONG_MIN when absent. */
static long bt_value(const char *key)
{
	size_t kl = strlen(key);
	for (char *l = bt_text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == ':' && l[kl + 1] == ' ')
			return strtol(l + kl + 2, NULL, 10);
	return LONG_MIN;
}

/* A count map that may legitimately be absent when zero. */
static long bt_count(const char *key)
{
	long v = bt_value(key);
	return v == LONG_MIN ? 0 : v;
}

/* SIGINT makes bpftrace print its maps and exit. One signal was waited for
 * without a bound, and once (two test suites and a flake run sharing the 2
 * CPUs) the test hung there until its 120 s watchdog, where it takes ~1 s
 * otherwise: a signal that lands before bpftrace is ready for it is lost.
 * So: resend it every second, give up after 60 s (SIGKILL, and the test
 * fails with that reason instead of hanging). */
static bool stop_bpftrace(pid_t bt)
{
	for (int ms = 0; ms < 60000; ms += 100) {
		if (ms % 1000 == 0)
			kill(bt, SIGINT);
		if (waitpid(bt, NULL, WNOHANG) == bt)
			return true;
		pause_us(100000);
	}
	kill(bt, SIGKILL);
	waitpid(bt, NULL, 0);
	return false;
}

static void t_bpftrace(void *arg)
{
	const char *script = arg;
	const char *name = strrchr(script, '/') ? strrchr(script, '/') + 1 : script;
	char out[] = "/tmp/futexlab-bt-XXXXXX", pid[16];
	int fd = mkstemp(out);
	CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	/* parameters: eagain S INTERVAL_MS, herd H WINDOW_US (wide: not timing) */
	const char *p2 = NULL, *p3 = NULL;
	if (strstr(name, "eagain"))
		p2 = "100", p3 = "1000";
	else if (strstr(name, "herd"))
		p2 = "3", p3 = "1000000";
	fflush(NULL);
	pid_t bt = fork();
	if (bt == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		execlp("bpftrace", "bpftrace", script, pid, p2, p3, (char *)NULL);
		dprintf(2, "cannot run bpftrace: %s\n", strerror(errno));
		_exit(127);
	}
	close(fd);
	start_threads(); /* before the window: thread creation is not counted */
	/* attached once the script's BEGIN line is out (BEGIN runs after every
	 * probe is attached) */
	int attached = 0;
	for (int ms = 0; ms < 60000 && !attached; ms += 50) {
		FILE *f = fopen(out, "r");
		char line[512];
		while (f && fgets(line, sizeof line, f))
			if (strstr(line, ": tracing "))
				attached = 1;
		if (f)
			fclose(f);
		if (!attached && waitpid(bt, NULL, WNOHANG) == bt)
			break;
		if (!attached)
			pause_us(50000);
	}
	CHECK(attached, "bpftrace did not attach (see %s)", out);
	if (!attached) {
		kill(bt, SIGKILL);
		waitpid(bt, NULL, 0);
		join_threads();
		return;
	}
	known_calls();
	bool exited = stop_bpftrace(bt);
	CHECK(exited, "bpftrace did not exit within 60 s of SIGINT (see %s)", out);
	join_threads();
	check_program();

	FILE *f = fopen(out, "r");
	size_t n = f ? fread(bt_text, 1, sizeof bt_text - 1, f) : 0;
	bt_text[n] = '\0';
	if (f)
		fclose(f);
	char k[128];
	const char *comm = "test_probes";
	if (strstr(name, "summary")) {
#define CALLS(op) (snprintf(k, sizeof k, "@calls[%s, %s, %s]", pid, comm, op), bt_count(k))
#define RET(op, r) (snprintf(k, sizeof k, "@ret[%s, %s, %s, %d]", pid, comm, op, r), bt_count(k))
		EQ(CALLS("WAIT"), X.op_wait);
		EQ(CALLS("WAIT_BITSET"), X.op_wait_bitset);
		EQ(CALLS("WAKE"), X.op_wake);
		EQ(CALLS("CMP_REQUEUE"), X.op_other);
		EQ(CALLS("futex_wait2"), X.f2_wait);
		EQ(CALLS("futex_wake2"), X.f2_wake);
		EQ(RET("WAIT", -110), K_TIMEOUT);
		EQ(RET("WAIT_BITSET", -11), M_AGAIN + W_SLEEP);
		EQ(RET("WAIT_BITSET", 0), W_SLEEP);
		EQ(RET("WAIT_BITSET", -4), 1);
		EQ(RET("WAKE", 0), N_WAKE0);
		EQ(RET("WAKE", W_SLEEP), 1);
		EQ(RET("CMP_REQUEUE", -11), 1);
		EQ(RET("futex_wait2", -11), X.f2_wait);
		EQ(RET("futex_wake2", 0), X.f2_wake);
	} else if (strstr(name, "wakes")) {
		EQ(bt_count("@wake_calls"), X.wake_calls);
		EQ(bt_count("@threads_woken"), X.woken);
		EQ(bt_count("@useless_wakes"), X.wake_none);
	} else if (strstr(name, "eagain")) {
		EQ(bt_count("@eagain_total"), X.wait_eagain);
		EQ(bt_count("@storms"), X.eagain_storms);
		EQ(bt_count("@waits"), X.wait_calls);
		snprintf(k, sizeof k, "@eagain[%s, %lu]", pid, (unsigned long)&w_b);
		EQ(bt_count(k), M_AGAIN);
	} else if (strstr(name, "herd")) {
		EQ(bt_count("@herd_bursts"), X.herd_bursts);
		EQ(bt_count("@big_wakes"), X.big_wakes);
		EQ(bt_count("@rewaits"), X.rewaits);
	} else if (strstr(name, "latency")) {
		EQ(bt_count("@waits"), X.wait_calls);
		EQ(bt_count("@eagain"), X.wait_eagain);
	} else {
		CHECK(0, "no expectations for %s", name);
	}
	if (test_failed_now)
		fprintf(stderr, "  bpftrace output kept in %s\n", out);
	else
		unlink(out);
}

static int bpftrace(const char *script)
{
	char why[300];
	if (geteuid() != 0)
		return skip("bpftrace needs root");
	if (system("bpftrace --version >/dev/null 2>&1") != 0)
		return skip("bpftrace is not installed");
	if (fl_tracefs_ready(why, sizeof why))
		return skip(why);
	if (access(script, R_OK)) {
		printf("FAIL: cannot read %s\n", script);
		return 1;
	}
	expect_init();
	char name[300];
	snprintf(name, sizeof name, "%s counts the known calls exactly", script);
	run_test(name, t_bpftrace, (void *)script, 120);
	return tests_done("probes bpftrace");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "collector")) {
#ifdef FL_HAVE_PROBES
		return collector();
#else
		return skip("built without the eBPF collector (-Dprobes=disabled)");
#endif
	}
	if (argc == 3 && !strcmp(argv[1], "tree")) {
#ifdef FL_HAVE_PROBES
		return tree(argv[2]);
#else
		return skip("built without the eBPF collector (-Dprobes=disabled)");
#endif
	}
	if (argc == 3 && !strcmp(argv[1], "bpftrace"))
		return bpftrace(argv[2]);
	fprintf(stderr, "usage: test_probes collector | tree TREE_PROG | bpftrace SCRIPT.bt\n");
	return 2;
}
