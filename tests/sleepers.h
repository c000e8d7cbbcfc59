/* tests/sleepers.h — know, rather than guess, that threads are asleep.
 *
 * A test that wants "4 waiters are blocked, now post 2" must not rely on a
 * sleep(): it waits until every thread is asleep INSIDE a wait syscall. A
 * thread counts as asleep when its /proc/self/task/TID/syscall names one of
 * the calls a semaphore sleeps in — futex(2), futex_wait(2), futex_waitv(2)
 * or io_uring_enter(2), by this architecture's own SYS_ numbers (202, 455,
 * 449, 426 on x86-64) — and its /proc/self/task/TID/stat state is S. State S
 * alone is not enough: a thread is also in S inside nanosleep, a pipe read,
 * a page fault or a design's back-off sleep, where it is not yet queued on
 * the futex and a wake would miss it. (A futex waiter in S in the call is
 * queued: the kernel queues it under the bucket lock before it sleeps.)
 *
 * A design whose TIMED waits never enter the futex queue (libstdc++'s and
 * libc++'s std::counting_semaphore nap in nanosleep and poll: see
 * variants/designs.md) cannot meet that for a timed waiter; tests that start
 * timed waiters use wait_sleeping_timed(), which also takes a thread napping
 * in nanosleep/clock_nanosleep — and says so, once per process, and tells
 * the caller (return 2), so a check that needs the futex queue (an injected
 * FUTEX_WAKE) knows it proves nothing there.
 *
 * Architecture-honest: where the syscall file cannot be read (a kernel
 * without CONFIG_HAVE_ARCH_TRACEHOOK, or an architecture whose syscall
 * numbers this header does not know) it falls back to state S alone and says
 * so once on stderr: the check is then weaker, not silently different. */
#ifndef FUTEXLAB_SLEEPERS_H
#define FUTEXLAB_SLEEPERS_H

#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "lib/task.h"

/* The syscalls a waiter of any design here sleeps in. */
static inline bool fl_is_wait_syscall(long nr)
{
#ifdef SYS_futex
	if (nr == SYS_futex)
		return true;
#endif
#ifdef SYS_futex_wait
	if (nr == SYS_futex_wait)
		return true;
#elif defined(__x86_64__)
	if (nr == 455)
		return true;
#endif
#ifdef SYS_futex_waitv
	if (nr == SYS_futex_waitv)
		return true;
#elif defined(__x86_64__)
	if (nr == 449)
		return true;
#endif
#ifdef SYS_io_uring_enter
	if (nr == SYS_io_uring_enter)
		return true;
#endif
	return false;
}

/* The syscall number thread `tid` of this process is blocked in: >= 0; -1
 * when it is running (the file reads "running"); -2 when it is not in a
 * syscall or the thread is gone; -3 when the file cannot be read here at
 * all (no such file on this kernel). open/read only: no stdio, no futex. */
static inline long fl_task_syscall(pid_t tid)
{
	char path[64], buf[128];
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		char dir[64];
		snprintf(dir, sizeof dir, "/proc/self/task/%d", (int)tid);
		return access(dir, F_OK) == 0 ? -3 : -2; /* no file, or no thread */
	}
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -3;
	buf[n] = '\0';
	if (strncmp(buf, "running", 7) == 0)
		return -1;
	char *end;
	long nr = strtol(buf, &end, 10);
	if (end == buf || nr < 0) /* "-1 sp pc": blocked, but not in a syscall */
		return -2;
	return nr;
}

/* Whether the syscall file works here; decided once, said once. */
static inline bool fl_syscall_file_usable(void)
{
	static _Atomic int usable = -1; /* -1: not yet known */
	if (atomic_load(&usable) < 0) {
#ifdef SYS_futex
		int u = fl_task_syscall((pid_t)syscall(SYS_gettid)) != -3;
#else
		int u = 0;
#endif
		if (atomic_exchange(&usable, u) < 0 && !u)
			fprintf(stderr, "     (sleepers.h: /proc/self/task/TID/syscall unavailable "
				"here: \"asleep\" falls back to state S alone, which does not "
				"prove the thread is inside the futex call)\n");
	}
	return usable;
}

/* A nap: where a polling timed wait sleeps between its polls. */
static inline bool fl_is_nap_syscall(long nr)
{
#ifdef SYS_nanosleep
	if (nr == SYS_nanosleep)
		return true;
#endif
#ifdef SYS_clock_nanosleep
	if (nr == SYS_clock_nanosleep)
		return true;
#endif
	return false;
}

enum { FL_NOT_ASLEEP, FL_ASLEEP_IN_WAIT, FL_ASLEEP_NAPPING };

/* Where thread `tid` sleeps: in a wait syscall (or, where the syscall file
 * is unavailable, merely in state S: see above), in a nap, or neither. */
static inline int fl_task_asleep(pid_t tid)
{
	if (fl_task_state(tid) != 'S')
		return FL_NOT_ASLEEP;
	if (!fl_syscall_file_usable())
		return FL_ASLEEP_IN_WAIT;
	long nr = fl_task_syscall(tid);
	/* Re-read the state: the syscall read must fall inside one sleep. A
	 * thread that woke and slept again in between is in S either way. */
	if (nr < 0 || fl_task_state(tid) != 'S')
		return FL_NOT_ASLEEP;
	return fl_is_wait_syscall(nr) ? FL_ASLEEP_IN_WAIT
	       : fl_is_nap_syscall(nr) ? FL_ASLEEP_NAPPING : FL_NOT_ASLEEP;
}

static inline bool fl_asleep_in_wait(pid_t tid)
{
	return fl_task_asleep(tid) == FL_ASLEEP_IN_WAIT;
}

/* 1 once every tid[i] (0 = not started yet) is asleep in a wait syscall —
 * or, with naps_ok, 2 once each is asleep in a wait syscall or a nap and at
 * least one napped; 0 after timeout_ms (about: 1 ms polls). */
static inline int fl_wait_asleep(_Atomic pid_t *tid, int n, int timeout_ms, bool naps_ok)
{
	for (int waited = 0; waited <= timeout_ms; waited++) {
		int asleep = 0, napping = 0;
		for (int i = 0; i < n; i++) {
			pid_t t = atomic_load(&tid[i]);
			int where = t ? fl_task_asleep(t) : FL_NOT_ASLEEP;
			asleep += where == FL_ASLEEP_IN_WAIT || (naps_ok && where == FL_ASLEEP_NAPPING);
			napping += where == FL_ASLEEP_NAPPING;
		}
		if (asleep == n)
			return napping ? 2 : 1;
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	return 0;
}

/* Every tid[i] asleep in a wait syscall (futex, futex_wait(v),
 * io_uring_enter) within ~timeout_ms. */
static inline bool wait_sleeping(_Atomic pid_t *tid, int n, int timeout_ms)
{
	return fl_wait_asleep(tid, n, timeout_ms, false) == 1;
}

/* For timed waiters: as wait_sleeping, but a waiter napping in nanosleep
 * counts too (a design whose timed waits poll); 2 when one napped, said
 * once per process on stdout. */
static inline int wait_sleeping_timed(_Atomic pid_t *tid, int n, int timeout_ms)
{
	static _Atomic int said;
	int r = fl_wait_asleep(tid, n, timeout_ms, true);
	if (r == 2 && !atomic_exchange(&said, 1)) {
		printf("     (sleepers.h: a timed waiter naps in nanosleep between polls, not "
		       "queued on a futex: this design's timed waits poll)\n");
		fflush(stdout);
	}
	return r;
}

#endif
