/* tests/tree_prog.c — a process tree with an exact, documented futex profile,
 * for the collector's follow mode (futexstat_config.follow_children) and
 * `futexlab exec`. A plain C program: it knows nothing of futexlab.
 *
 *   tree_prog            run the tree; silent; exit 0 when every call
 *                        returned what the profile says, 1 otherwise
 *   tree_prog --expect   print the totals below as one line of key=value
 *                        (the names of struct futexstat_counts' fields, plus
 *                        the per-word ones), so a test reads them instead of
 *                        copying them
 *
 * The tree, every call a raw syscall(SYS_futex) on a private word
 * (FUTEX_PRIVATE_FLAG), each process on its own static word (the words sit
 * at the same address in every process of the tree — fork copies — but are
 * distinct futexes: private words are per address space):
 *
 *   root        7 FUTEX_WAKE on w_root, which nobody waits on (each returns 0);
 *               forks the child; waitpid(child)
 *   child       11 FUTEX_WAKE on w_child (nobody waits: 0 each);
 *               3 FUTEX_WAIT on w_timed, whose value (0) matches, with a 2 ms
 *               relative timeout: each returns ETIMEDOUT;
 *               forks the grandchild; waitpid(grandchild);
 *               then starts one thread and reads one byte from a pipe
 *   grandchild  13 FUTEX_WAKE on w_grand (0 each)
 *   thread      5 FUTEX_WAKE on w_thread (0 each); writes the byte the child
 *               waits for, then blocks in read() on a pipe nobody writes: the
 *               child's _exit (exit_group) ends it
 *
 * Totals: 39 futex(2) calls: 36 FUTEX_WAKE (all waking nobody), 3 FUTEX_WAIT
 * (all ETIMEDOUT); 3 processes; 5 distinct words (w_root in the root, w_child
 * and w_timed and w_thread in the child, w_grand in the grandchild), the
 * timed word with 3 waits of >= 2 ms each.
 *
 * Nothing else may make a futex syscall, hence:
 *   - no pthread_join (glibc's join waits on the thread's tid with a futex
 *     when the thread has not exited yet: a count that depends on timing);
 *     the thread reports through a pipe and dies with the process instead;
 *     it blocks in read(), not in a futex;
 *   - the child forks the grandchild before it starts its thread (a fork
 *     in a single-threaded process takes no contended lock);
 *   - _exit everywhere, never exit() or a return from main: no atexit
 *     handler or library destructor runs (an LD_PRELOADed library's included),
 *     so none can add a call;
 *   - no stdio outside --expect.
 * Checked with `strace -f -e trace=futex build/tests/tree_prog`: exactly the
 * calls above (glibc 2.36: its startup, fork, waitpid, pthread_create and
 * _exit make no futex syscall in these conditions). The kernel's own wake of
 * the thread's tid word at its exit (CLONE_CHILD_CLEARTID) is not a syscall.
 * What a preloaded library (LD_PRELOAD) does before main is beyond this
 * program: its constructors' calls come on top, in the root only (the others
 * are forks). futexlab's shim makes none with a design whose availability
 * check makes none (negcount, musl, ...: its set-up is not pthread_once,
 * whose unconditional wake was one; tests/test_exec.sh counts tree_prog
 * exactly under it); futex2 and uring probe the kernel once (1 and 2 calls).
 *
 * Timing is not part of the profile: the 2 ms timeouts only bound each timed
 * wait from below (a relative FUTEX_WAIT timeout never returns early). */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum {
	ROOT_WAKES = 7,
	CHILD_WAKES = 11,
	CHILD_TIMED_WAITS = 3,
	THREAD_WAKES = 5,
	GRAND_WAKES = 13,
	PROCS = 3,
	WORDS = 5,
};
#define TIMEOUT_NS 2000000L /* each timed wait's relative timeout: 2 ms */

/* one word each, cache-line apart (not required: tidiness) */
static _Alignas(64) uint32_t w_root;
static _Alignas(64) uint32_t w_child;
static _Alignas(64) uint32_t w_timed;
static _Alignas(64) uint32_t w_thread;
static _Alignas(64) uint32_t w_grand;

static int thread_pipe[2], never_pipe[2];

static long futex(uint32_t *a, int op, uint32_t val, const struct timespec *ts)
{
	long r = syscall(SYS_futex, a, op, val, ts, NULL, 0);
	return r < 0 ? -errno : r;
}

/* n FUTEX_WAKEs on a word nobody waits on; 0 when each woke nobody. */
static int wakes(uint32_t *w, int n)
{
	int bad = 0;
	for (int i = 0; i < n; i++)
		if (futex(w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL) != 0)
			bad = 1;
	return bad;
}

static int thread_failed;

static void *thread_main(void *arg)
{
	(void)arg;
	thread_failed = wakes(&w_thread, THREAD_WAKES);
	char b = 0, dummy;
	if (write(thread_pipe[1], &b, 1) != 1)
		_exit(1);
	/* nobody ever writes here: the child's _exit ends this read */
	if (read(never_pipe[0], &dummy, 1) < 0)
		_exit(1);
	return NULL;
}

/* fork, run fn in the new process (which _exits with its result), wait
 * for it; 0 when it exited 0. */
static int run_child(int (*fn)(void))
{
	pid_t p = fork();
	if (p < 0)
		return 1;
	if (p == 0)
		_exit(fn());
	int st;
	pid_t r;
	do
		r = waitpid(p, &st, 0);
	while (r < 0 && errno == EINTR);
	return !(r == p && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static int grandchild(void)
{
	return wakes(&w_grand, GRAND_WAKES);
}

static int child(void)
{
	int bad = wakes(&w_child, CHILD_WAKES);
	for (int i = 0; i < CHILD_TIMED_WAITS; i++) {
		struct timespec rel = { 0, TIMEOUT_NS };
		if (futex(&w_timed, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, &rel) != -ETIMEDOUT)
			bad = 1;
	}
	bad |= run_child(grandchild);
	if (pipe(thread_pipe) || pipe(never_pipe))
		return 1;
	pthread_t t;
	if (pthread_create(&t, NULL, thread_main, NULL))
		return 1;
	char b;
	if (read(thread_pipe[0], &b, 1) != 1)
		return 1;
	/* thread_failed was written before the byte: the pipe orders it */
	return bad | thread_failed;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--expect")) {
		int wake = ROOT_WAKES + CHILD_WAKES + THREAD_WAKES + GRAND_WAKES;
		int wait = CHILD_TIMED_WAITS;
		/* the keys of struct futexstat_counts, then the per-word ones:
		 * words (distinct words), timed_word_waits and _timedout (the
		 * child's timed word), timed_word_min_ns (a lower bound of its
		 * total wait time) */
		printf("futex_calls=%d op_wait=%d op_wait_bitset=0 op_wake=%d op_other=0 "
		       "f2_wait=0 f2_wake=0 f2_waitv=0 f2_requeue=0 "
		       "wake_calls=%d woken=0 wake_none=%d wake_err=0 "
		       "wait_calls=%d wait_ok=0 wait_eagain=0 wait_timedout=%d wait_eintr=0 "
		       "wait_err=0 procs=%d words=%d timed_word_waits=%d "
		       "timed_word_timedout=%d timed_word_min_ns=%ld\n",
		       wake + wait, wait, wake, wake, wake, wait, wait, PROCS, WORDS, wait, wait,
		       (long)wait * TIMEOUT_NS);
		return fflush(stdout) != 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: tree_prog [--expect]\n");
		return 2;
	}
	int bad = wakes(&w_root, ROOT_WAKES);
	bad |= run_child(child);
	_exit(bad);
}
