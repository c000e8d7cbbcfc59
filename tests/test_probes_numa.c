/* tests/test_probes_numa.c — the collector's node columns (probes/
 * columns.md, "Nodes"; futexstat.bpf.c, "Nodes") on futex2 calls made here
 * by raw syscalls, counted exactly:
 *
 *   1. a FUTEX2_NUMA pair: a thread asleep in futex_wait(2) on a {value,
 *      node} word whose node half is FUTEX_NO_NODE, woken by futex_wake(2)
 *      with FUTEX2_NUMA: 2 NUMA ops, the node the kernel wrote back (read
 *      at the wait's exit) and the one the wake then named: the CPUs'
 *      node, 0 on a one-node machine (asserted only there); one wake pair,
 *      cross-node only where waker and woken ran on different nodes;
 *   2. a FUTEX2_NUMA wait naming node 0 with a stale value (EAGAIN), a
 *      FUTEX2_NUMA | FUTEX2_MPOL wake on a word naming node 0 and a
 *      FUTEX2_NUMA wake on a word naming none: 3 NUMA ops, 1 of them
 *      MPOL, node 0, and the last one's word as the kernel left it (no
 *      node: numa_no_node);
 *   3. the same pair as 1 without FUTEX2_NUMA: no NUMA op, no node, still
 *      one wake pair (every wake's node is kept);
 *   4. a stale FUTEX2_NUMA wait alone on a word naming no node: the node
 *      the kernel wrote back, read at the wait's exit.
 * The waker and the sleeper are pinned to one CPU each where there are two,
 * so the pair's CPUs are known; on a one-node machine the pair cannot be
 * cross-node, so cross_node_wakes must be 0 there.
 *
 * Exit 77 with the reason when BPF cannot load or the kernel has no
 * FUTEX2_NUMA (before 6.16). The mask is 0xffffffff: futex2 takes a 32-bit
 * mask for a u32 word, and ~0UL is EINVAL. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef FL_HAVE_PROBES
#include "probes/futexstat.h"
#include "tests/expect.h"
#endif

#define SYS_FUTEX_WAKE 454
#define SYS_FUTEX_WAIT 455
#define F2_U32 0x02
#define F2_NUMA 0x04
#define F2_MPOL 0x08
#define F2_PRIVATE 128
#define NO_NODE 0xffffffffU
#define MASK32 0xffffffffUL

static int skip(const char *why, const char *more)
{
	printf("SKIP: %s%s\n", why, more);
	return 77;
}

#ifdef FL_HAVE_PROBES
/* A futex2 NUMA word: the value, then the node (8-byte aligned). */
struct nword {
	_Alignas(8) uint32_t val;
	uint32_t node;
};


static long f2_wait(struct nword *w, uint32_t val, unsigned flags)
{
	return syscall(SYS_FUTEX_WAIT, w, (unsigned long)val, MASK32, (unsigned long)flags, NULL,
		       (unsigned long)CLOCK_MONOTONIC);
}

static long f2_wake(struct nword *w, unsigned flags)
{
	return syscall(SYS_FUTEX_WAKE, w, MASK32, 1L, (unsigned long)flags);
}

static int pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof s, &s);
}

struct sleeper {
	struct nword *w;
	unsigned flags;
	int go[2];
	_Atomic int tid, done;
	long r;
};

/* Waits on its word once told to (a pipe: no futex call before counting
 * starts), then blocks in read() until the counts are taken (no futex
 * call after its wait either). */
static void *sleeper(void *arg)
{
	struct sleeper *s = arg;
	char b;
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		pin(1);
	s->tid = (int)syscall(SYS_gettid);
	if (read(s->go[0], &b, 1) != 1)
		return NULL;
	s->r = f2_wait(s->w, 0, s->flags);
	s->done = 1;
	if (read(s->go[0], &b, 1) != 1)
		return NULL;
	return NULL;
}

/* Whether thread tid is blocked in syscall nr (its /proc syscall file). */
static int blocked_in(int tid, long nr)
{
	char path[64], buf[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fgets(buf, sizeof buf, f) && strtol(buf, NULL, 10) == nr;
	fclose(f);
	return ok;
}

/* One sleeper on w (flags), woken by one wake with the same flags, the
 * only futex calls while counting: the counts into c. */
static void pair(struct futexstat *fs, struct nword *w, unsigned flags,
		 struct futexstat_counts *c, long *woke, long *slept)
{
	char why[300];
	struct sleeper s = { .w = w, .flags = flags };
	pthread_t t;
	if (pipe(s.go) || pthread_create(&t, NULL, sleeper, &s))
		exit(99);
	while (!s.tid)
		usleep(1000);
	if (futexstat_start(fs, why, sizeof why)) {
		printf("FAIL start: %s\n", why);
		exit(1);
	}
	if (write(s.go[1], "g", 1) != 1)
		exit(99);
	for (int i = 0; i < 5000 && !blocked_in(s.tid, SYS_FUTEX_WAIT); i++)
		usleep(1000);
	usleep(20000); /* in the syscall: now asleep in it */
	*woke = f2_wake(w, flags);
	for (int i = 0; i < 5000 && !s.done; i++)
		usleep(1000);
	usleep(20000); /* its wait's exit long passed */
	futexstat_stop(fs, c);
	if (write(s.go[1], "b", 1) != 1)
		exit(99);
	pthread_join(t, NULL);
	close(s.go[0]);
	close(s.go[1]);
	*slept = s.r;
}

/* 1: the NUMA pair, the wait's word naming no node. */
static void numa_pair(struct futexstat *fs, bool one_node)
{
	static struct nword w;
	struct futexstat_counts c;
	long woke, slept;
	w.node = NO_NODE;
	pair(fs, &w, F2_U32 | F2_PRIVATE | F2_NUMA, &c, &woke, &slept);
	CHECK_EQ("1: the NUMA wake woke the sleeper", woke, 1);
	CHECK_EQ("1: the NUMA wait returned 0", slept, 0);
	CHECK_EQ("1: numa_ops (wait + wake)", c.numa_ops, 2);
	CHECK_EQ("1: numa_mpol_ops", c.numa_mpol_ops, 0);
	CHECK_EQ("1: numa_no_node (the wait's node read at its exit)", c.numa_no_node, 0);
	CHECK_EQ("1: the node the kernel wrote back, named", c.numa_node_mask,
		 w.node < 63 ? 1ULL << w.node : 0);
	CHECK_EQ("1: wake_pairs", c.wake_pairs, 1);
	if (one_node) {
		CHECK_EQ("1: the node written back (one node: 0)", w.node, 0);
		CHECK_EQ("1: numa_nodes (one node: {0})", c.numa_node_mask, 1);
		CHECK_EQ("1: cpu_nodes (one node: {0})", c.cpu_node_mask, 1);
		CHECK_EQ("1: cross_node_wakes (one node)", c.cross_node_wakes, 0);
	}
}

/* 2: a stale NUMA wait naming node 0, an MPOL wake on a word naming 0. */
static void numa_named(struct futexstat *fs)
{
	static struct nword w = { .val = 0, .node = 0 }, w2 = { .val = 0, .node = 0 },
			    w3 = { .val = 0, .node = NO_NODE };
	struct futexstat_counts c;
	char why[300];
	if (futexstat_start(fs, why, sizeof why)) {
		printf("FAIL start: %s\n", why);
		exit(1);
	}
	long again = f2_wait(&w, 1, F2_U32 | F2_PRIVATE | F2_NUMA);
	int again_errno = errno;
	long mpol = f2_wake(&w2, F2_U32 | F2_PRIVATE | F2_NUMA | F2_MPOL);
	long none = f2_wake(&w3, F2_U32 | F2_PRIVATE | F2_NUMA);
	futexstat_stop(fs, &c);
	/* a wake on a word naming no node: read again at its exit, as the
	 * kernel left it (it writes a node back for a wait; for a wake the
	 * test takes what it finds) */
	bool named = w3.node != NO_NODE;
	printf("     2: a NUMA wake's NO_NODE word after the call: %#x\n", w3.node);
	CHECK_EQ("2: the stale NUMA wait: EAGAIN", again == -1 && again_errno == EAGAIN, 1);
	CHECK_EQ("2: the MPOL wake woke nobody", mpol, 0);
	CHECK_EQ("2: the NO_NODE wake woke nobody", none, 0);
	CHECK_EQ("2: numa_ops", c.numa_ops, 3);
	CHECK_EQ("2: numa_mpol_ops", c.numa_mpol_ops, 1);
	CHECK_EQ("2: numa_no_node (the NO_NODE wake, unless a node was written)", c.numa_no_node,
		 !named);
	CHECK_EQ("2: numa_nodes {0} (and the node written)", c.numa_node_mask,
		 1 | (named && w3.node < 63 ? 1ULL << w3.node : 0));
	CHECK_EQ("2: wake_pairs", c.wake_pairs, 0);
}

/* 4: a stale NUMA wait alone, its word naming no node: its node is read at
 * its exit (the kernel wrote one back before it compared the value), not
 * at its entry. */
static void numa_unnamed_wait(struct futexstat *fs)
{
	static struct nword w = { .val = 0, .node = NO_NODE };
	struct futexstat_counts c;
	char why[300];
	if (futexstat_start(fs, why, sizeof why)) {
		printf("FAIL start: %s\n", why);
		exit(1);
	}
	long again = f2_wait(&w, 1, F2_U32 | F2_PRIVATE | F2_NUMA);
	futexstat_stop(fs, &c);
	CHECK_EQ("4: the stale NUMA wait: EAGAIN", again, -1);
	CHECK_EQ("4: the kernel wrote a node back", w.node != NO_NODE, 1);
	CHECK_EQ("4: numa_ops", c.numa_ops, 1);
	CHECK_EQ("4: numa_no_node", c.numa_no_node, 0);
	CHECK_EQ("4: numa_nodes: the node written back, read at the exit", c.numa_node_mask,
		 w.node < 63 ? 1ULL << w.node : 0);
}

/* 3: the pair without FUTEX2_NUMA. */
static void plain_pair(struct futexstat *fs, bool one_node)
{
	static struct nword w;
	struct futexstat_counts c;
	long woke, slept;
	w.node = NO_NODE;
	pair(fs, &w, F2_U32 | F2_PRIVATE, &c, &woke, &slept);
	CHECK_EQ("3: the plain futex2 wake woke the sleeper", woke, 1);
	CHECK_EQ("3: the plain futex2 wait returned 0", slept, 0);
	CHECK_EQ("3: numa_ops", c.numa_ops, 0);
	CHECK_EQ("3: numa_nodes {}", c.numa_node_mask, 0);
	CHECK_EQ("3: the word's second half untouched", w.node, NO_NODE);
	CHECK_EQ("3: wake_pairs", c.wake_pairs, 1);
	if (one_node)
		CHECK_EQ("3: cross_node_wakes (one node)", c.cross_node_wakes, 0);
}

static int numa_test(void)
{
	char why[300];
	struct futexstat_config cfg = { .wake_to_run = 1 };
	struct futexstat *fs = futexstat_open(&cfg, why, sizeof why);
	if (!fs)
		return skip(why, "");
	static struct nword probe = { .val = 0, .node = NO_NODE };
	if (f2_wake(&probe, F2_U32 | F2_PRIVATE | F2_NUMA) < 0) {
		futexstat_close(fs);
		return skip("this kernel has no FUTEX2_NUMA (Linux 6.16+): futex_wake: ",
			    strerror(errno));
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		pin(0);
	bool one_node = access("/sys/devices/system/node/node1", F_OK) != 0;
	printf("machine: %s\n", one_node ? "one NUMA node" : "more than one NUMA node");
	numa_pair(fs, one_node);
	numa_named(fs);
	numa_unnamed_wait(fs);
	plain_pair(fs, one_node);
	futexstat_close(fs);
	printf("%s\n", failures ? "FAILED" : "all passed");
	return failures ? 1 : 0;
}
#endif

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
#ifdef FL_HAVE_PROBES
	return numa_test();
#else
	return skip("built without the eBPF collector (-Dprobes=disabled)", "");
#endif
}
