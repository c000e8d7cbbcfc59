/* tests/test_probes_modes.c — the collector's modes for `futexlab exec`
 * beyond the tree (probes/follow.md), on processes whose futex calls are
 * known exactly:
 *
 *   test_probes_modes cgroup   counting by cgroup id (futexstat_count_cgroup):
 *       a child moves itself into a fresh cgroup2 directory, makes N_IN
 *       FUTEX_WAKEs and forks a grandchild that makes N_GRAND more; a second
 *       child forked in the same rep stays outside and makes N_OUT. Counted:
 *       N_IN + N_GRAND wakes and 2 processes (the one that joined, the one
 *       forked inside). Then id 0 (back to the tree): the outside child's
 *       N_OUT alone.
 *   test_probes_modes shared   per-word keys: two processes on one word of
 *       MAP_SHARED memory, one asleep in FUTEX_WAIT (non-private), the other
 *       waking it with FUTEX_WAKE — ONE word in the list, its waits and its
 *       woken on it, both pids named; and one FUTEX_WAKE | FUTEX_PRIVATE_FLAG
 *       on the same address: a private op, a word of its own (process,
 *       address), as the kernel keys it.
 *
 * The children make no other futex call (single-threaded forks: glibc's
 * fork, waitpid, nanosleep, write and _exit make none). Exit 77 with the
 * reason when BPF cannot load or no cgroup2 is writable. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/cgroup2.h"
#ifdef FL_HAVE_PROBES
#include "probes/futexstat.h"
#include "tests/expect.h"
#endif

static int skip(const char *fmt, const char *arg)
{
	printf("SKIP: ");
	printf(fmt, arg);
	printf("\n");
	return 77;
}

#ifdef FL_HAVE_PROBES
enum { N_IN = 5, N_GRAND = 3, N_OUT = 7 };


static void wakes(int n)
{
	static uint32_t w;
	for (int i = 0; i < n; i++)
		syscall(SYS_futex, &w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
}

static void write_or_die(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		_exit(100);
	close(fd);
}

static struct futexstat *open_follow(char *why, size_t n)
{
	struct futexstat_config cfg = { .follow_children = 1, .per_word = 1 };
	return futexstat_open(&cfg, why, n);
}

static void start(struct futexstat *fs)
{
	char why[300];
	if (futexstat_start(fs, why, sizeof why)) {
		printf("FAIL start: %s\n", why);
		exit(1);
	}
}

static pid_t spawn_outside(void)
{
	pid_t p = fork();
	if (p == 0) {
		wakes(N_OUT);
		_exit(0);
	}
	return p;
}

static int reap(pid_t p)
{
	int st;
	return waitpid(p, &st, 0) == p && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int cgroup_test(void)
{
	char base[PATH_MAX], dir[PATH_MAX + 64], procs[PATH_MAX + 80], why[PATH_MAX + 200];
	if (fl_cgroup2_own_dir(base, sizeof base, why, sizeof why))
		return skip("%s", why);
	snprintf(dir, sizeof dir, "%s/futexlab-test-%d", base, (int)getpid());
	if (mkdir(dir, 0755)) {
		snprintf(why, sizeof why, "no writable cgroup2: mkdir %s: %s", dir, strerror(errno));
		return skip("%s", why);
	}
	struct stat st;
	snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
	struct futexstat *fs = open_follow(why, sizeof why);
	if (!fs || stat(dir, &st)) {
		rmdir(dir);
		return skip("%s", fs ? strerror(errno) : why);
	}
	CHECK_EQ("count_cgroup's answer", (unsigned)-futexstat_count_cgroup(fs, st.st_ino), 0);
	start(fs);
	fflush(NULL);
	pid_t in = fork();
	if (in == 0) { /* joins the cgroup, then its calls count, and its child's */
		write_or_die(procs, "0");
		wakes(N_IN);
		pid_t g = fork();
		if (g == 0) {
			wakes(N_GRAND);
			_exit(0);
		}
		_exit(reap(g));
	}
	pid_t out = spawn_outside(); /* forked by us: in the tree, not in the cgroup */
	CHECK_EQ("inside child's exit", (unsigned)reap(in), 0);
	CHECK_EQ("outside child's exit", (unsigned)reap(out), 0);
	struct futexstat_counts c;
	futexstat_stop(fs, &c);
	CHECK_EQ("by cgroup: wakes of the processes in it", c.op_wake, N_IN + N_GRAND);
	CHECK_EQ("by cgroup: procs (joined + forked inside)", c.procs, 2);
	CHECK_EQ("by cgroup: futex calls", c.futex_calls, N_IN + N_GRAND);

	futexstat_count_cgroup(fs, 0); /* back to the tree */
	start(fs);
	out = spawn_outside();
	CHECK_EQ("outside child's exit", (unsigned)reap(out), 0);
	futexstat_stop(fs, &c);
	CHECK_EQ("by tree again: the child's wakes", c.op_wake, N_OUT);
	CHECK_EQ("by tree again: procs", c.procs, 1);
	futexstat_close(fs);
	if (rmdir(dir))
		printf("note: rmdir %s: %s\n", dir, strerror(errno));
	return failures ? 1 : 0;
}

static long fx(_Atomic uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

/* The waker: a private wake on the address first (a word of its own), then
 * non-private wakes until one wakes the waiter (before it sleeps they wake
 * nobody: no timing assumed), then the value the waiter leaves on. */
static int waker(_Atomic uint32_t *w)
{
	fx(w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1);
	struct timespec ms = { 0, 1000000 };
	for (int tries = 0; fx(w, FUTEX_WAKE, 1) != 1; tries++) {
		if (tries > 20000)
			return 3; /* 20 s: the waiter never slept */
		nanosleep(&ms, NULL);
	}
	atomic_store(w, 1);
	fx(w, FUTEX_WAKE, INT_MAX);
	return 0;
}

static bool has_pid(const struct futexstat_word *w, pid_t p)
{
	for (int i = 0; i < w->npids; i++)
		if (w->pids[i] == (__u32)p)
			return true;
	return false;
}

static int shared_test(void)
{
	char why[300];
	struct futexstat *fs = open_follow(why, sizeof why);
	if (!fs)
		return skip("%s", why);
	_Atomic uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				   -1, 0);
	if (w == MAP_FAILED)
		return skip("mmap: %s", strerror(errno));
	w += 5; /* not at the mapping's start: the offset is the word's, not the page's */
	atomic_store(w, 0);
	start(fs);
	fflush(NULL);
	pid_t a = fork();
	if (a == 0) {
		while (atomic_load(w) == 0)
			fx(w, FUTEX_WAIT, 0);
		_exit(0);
	}
	pid_t b = fork();
	if (b == 0)
		_exit(waker(w));
	CHECK_EQ("waiter's exit", (unsigned)reap(a), 0);
	CHECK_EQ("waker's exit", (unsigned)reap(b), 0);
	struct futexstat_counts c;
	futexstat_stop(fs, &c);
	struct futexstat_word list[64];
	int nw = 0, k = futexstat_words(fs, 0, list, 64, &nw);
	int shared = 0, priv = 0;
	for (int i = 0; i < k; i++) {
		const struct futexstat_word *x = &list[i];
		printf("word: tgid %u ino %llu dev %u uaddr %#llx waits %llu wakes %llu woken %llu "
		       "pids %d\n", x->tgid, (unsigned long long)x->ino, x->dev,
		       (unsigned long long)x->uaddr, (unsigned long long)x->waits,
		       (unsigned long long)x->wakes, (unsigned long long)x->woken, x->npids);
		if (!has_pid(x, a) && !has_pid(x, b))
			continue;
		if (x->ino) {
			shared++;
			CHECK_EQ("shared word: waits >= 1", x->waits >= 1, 1);
			CHECK_EQ("shared word: woken >= 1", x->woken >= 1, 1);
			CHECK_EQ("shared word: wakes >= woken", x->wakes >= x->woken, 1);
			CHECK_EQ("shared word: both pids", has_pid(x, a) && has_pid(x, b), 1);
			CHECK_EQ("shared word: its offset in the file", x->uaddr, 5 * sizeof *w);
		} else {
			priv++;
			CHECK_EQ("private op's word: the waker's", x->tgid, (unsigned)b);
			CHECK_EQ("private op's word: its address", x->uaddr, (uintptr_t)w);
			CHECK_EQ("private op's word: one wake", x->wakes, 1);
		}
	}
	CHECK_EQ("shared words of the two processes", shared, 1);
	CHECK_EQ("private words of the two processes", priv, 1);
	futexstat_close(fs);
	return failures ? 1 : 0;
}
#endif

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2 || (strcmp(argv[1], "cgroup") && strcmp(argv[1], "shared"))) {
		fprintf(stderr, "usage: test_probes_modes cgroup|shared\n");
		return 2;
	}
#ifdef FL_HAVE_PROBES
	return !strcmp(argv[1], "cgroup") ? cgroup_test() : shared_test();
#else
	return skip("%s", "built without the eBPF collector (-Dprobes=disabled)");
#endif
}
