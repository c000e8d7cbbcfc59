/* lib/numa.c — see numa.h. */
#include "lib/numa.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/futex2.h"
#include "lib/waitaddr.h"

/* Local, from the kernel's uapi (linux/mempolicy.h; no libnuma). */
#define FL_MPOL_PREFERRED 1
#define FL_MPOL_F_ADDR    (1 << 1)
#define FL_MAX_NODES      1024 /* the largest MAX_NUMNODES (NODES_SHIFT 10) */
#define FL_MASK32         0xffffffffUL /* the mask must fit the word: not ~0UL */
#define LONG_BITS         (8 * (int)sizeof(unsigned long))

/* The possible nodes, read once — by whoever comes first, without a lock
 * or pthread_once: a post (async-signal-safe, variant.h) may be the first
 * to ask, and a handler's post inside it must neither deadlock on a once
 * in progress nor call stdio. Racing readers compute the same bits from
 * the same file and store them alike; `ready` (release) publishes them,
 * 1 + the highest node. */
static _Atomic unsigned long possible[FL_MAX_NODES / LONG_BITS];
static _Atomic int ready;

/* "0", "0-3", "0,2-5": the kernel's node list format; open/read/close
 * only (async-signal-safe). Without the file (CONFIG_NUMA=n): node 0. */
static int read_possible(unsigned long *mask)
{
	char line[4096];
	ssize_t len = -1;
	int fd = open("/sys/devices/system/node/possible", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, line, sizeof line - 1);
		close(fd);
	}
	if (len <= 0) {
		mask[0] = 1;
		return 1;
	}
	line[len] = 0;
	int n = 0;
	for (const char *p = line; *p >= '0' && *p <= '9';) {
		long a = 0, b;
		while (*p >= '0' && *p <= '9')
			a = a * 10 + (*p++ - '0');
		b = a;
		if (*p == '-')
			for (b = 0, p++; *p >= '0' && *p <= '9';)
				b = b * 10 + (*p++ - '0');
		for (long i = a; i <= b && i < FL_MAX_NODES; i++) {
			mask[i / LONG_BITS] |= 1UL << (i % LONG_BITS);
			n = (int)i + 1;
		}
		if (*p == ',')
			p++;
	}
	return n > 0 ? n : (mask[0] = 1, 1);
}

int fl_numa_nodes(void)
{
	int n = atomic_load_explicit(&ready, memory_order_acquire);
	if (n)
		return n;
	unsigned long mask[FL_MAX_NODES / LONG_BITS] = {0};
	n = read_possible(mask);
	for (int i = 0; i < FL_MAX_NODES / LONG_BITS; i++)
		atomic_store_explicit(&possible[i], mask[i], memory_order_relaxed);
	atomic_store_explicit(&ready, n, memory_order_release);
	return n;
}

bool fl_numa_node_possible(uint32_t node)
{
	fl_numa_nodes(); /* acquire: the bits are there */
	return node < FL_MAX_NODES &&
	       (atomic_load_explicit(&possible[node / LONG_BITS], memory_order_relaxed) >>
		(node % LONG_BITS) & 1);
}

uint32_t fl_numa_this_node(void)
{
	unsigned cpu = 0, node = 0;
	if (syscall(SYS_getcpu, &cpu, &node, NULL) != 0)
		return 0; /* getcpu cannot fail with valid pointers */
	return node;
}

int fl_numa_prefer(void *addr, size_t len, uint32_t node)
{
	if (node >= FL_MAX_NODES)
		return EINVAL;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)addr & ~(page - 1);
	uintptr_t end = ((uintptr_t)addr + len + page - 1) & ~(page - 1);
	unsigned long mask[FL_MAX_NODES / LONG_BITS] = {0};
	mask[node / LONG_BITS] = 1UL << (node % LONG_BITS);
	/* maxnode counts one more than the bits the kernel reads (get_nodes) */
	if (syscall(SYS_mbind, start, end - start, FL_MPOL_PREFERRED, mask,
		    (unsigned long)FL_MAX_NODES + 1, 0UL) != 0)
		return errno;
	return 0;
}

int fl_numa_preferred_at(void *addr, uint32_t *node)
{
	int mode = -1;
	unsigned long mask[FL_MAX_NODES / LONG_BITS] = {0};
	if (syscall(SYS_get_mempolicy, &mode, mask, (unsigned long)FL_MAX_NODES + 1, addr,
		    (unsigned long)FL_MPOL_F_ADDR) != 0)
		return errno;
	if (mode != FL_MPOL_PREFERRED)
		return ENOENT;
	for (uint32_t n = 0; n < FL_MAX_NODES; n++)
		if (mask[n / LONG_BITS] >> (n % LONG_BITS) & 1) {
			*node = n;
			return 0;
		}
	return ENOENT;
}

/* The last failure of this thread, one line. */
static _Thread_local char why[200];

const char *fl_futex2_numa_why(void)
{
	return why;
}

void fl_futex2_numa_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
}

int fl_futex2_numa_check_align(const void *pair)
{
	uintptr_t a = (uintptr_t)pair;
	if (a % FL_NUMA_PAIR_ALIGN == 0)
		return 0;
	snprintf(why, sizeof why, "FUTEX2_NUMA pair %p is not 8-byte aligned "
		 "(address %% 8 = %u): EINVAL", pair, (unsigned)(a % FL_NUMA_PAIR_ALIGN));
	return EINVAL;
}

int fl_futex2_numa_check_node(const _Atomic uint32_t *pair)
{
	uint32_t node = atomic_load_explicit(&pair[1], memory_order_relaxed);
	if (node == FL_FUTEX_NO_NODE || fl_numa_node_possible(node))
		return 0;
	snprintf(why, sizeof why, "FUTEX2_NUMA pair %p names node %u: neither "
		 "FUTEX_NO_NODE nor a possible node (0-%d here): EINVAL",
		 (const void *)pair, node, fl_numa_nodes() - 1);
	return EINVAL;
}

/* The kernel's errno, said once. EINVAL after the alignment check: the
 * node (the flags are ours, the deadline checked). The pair is not read
 * here: a post's wake may name memory already unmapped (DESTRUCTION in
 * variants/negcount.c). */
static int kernel_error(const _Atomic uint32_t *pair, int err)
{
	if (err == EINVAL) {
		snprintf(why, sizeof why, "the kernel refused FUTEX2_NUMA pair %p's node: "
			 "neither FUTEX_NO_NODE nor a possible node (0-%d here): EINVAL",
			 (const void *)pair, fl_numa_nodes() - 1);
	} else if (err == EFAULT) {
		snprintf(why, sizeof why, "FUTEX2_NUMA pair %p: EFAULT: the kernel cannot read "
			 "it (PROT_NONE, unmapped), or cannot write back its node "
			 "(read-only memory, node FUTEX_NO_NODE)", (const void *)pair);
	} else {
		snprintf(why, sizeof why, "FUTEX2_NUMA pair %p: %s", (const void *)pair,
			 strerror(err));
	}
	return err;
}

#ifdef FL_NR_futex_wait

static unsigned long flags_for(bool mpol, bool shared)
{
	return FUTEX2_SIZE_U32 | FUTEX2_NUMA | (mpol ? FUTEX2_MPOL : 0) |
	       (shared ? 0 : FUTEX2_PRIVATE);
}

int fl_futex2_numa_wait(_Atomic uint32_t *pair, uint32_t expected,
			const struct timespec *abs_deadline, bool mpol, bool shared)
{
	int r = fl_futex2_numa_check_align(pair);
	if (r)
		return r;
	struct timespec ts;
	const struct timespec *tp = NULL;
	if (abs_deadline) {
		if (fl_deadline_for_kernel(abs_deadline, &ts)) {
			snprintf(why, sizeof why, "deadline tv_nsec out of range: EINVAL");
			return EINVAL;
		}
		tp = &ts;
	}
	if (syscall(FL_NR_futex_wait, pair, (unsigned long)expected, FL_MASK32,
		    flags_for(mpol, shared), tp, CLOCK_MONOTONIC) == 0)
		return 0;
	switch (errno) {
	case EAGAIN:
	case EINTR:
	case ETIMEDOUT:
		return errno;
	default:
		return kernel_error(pair, errno);
	}
}

int fl_futex2_numa_wake(_Atomic uint32_t *pair, int n, bool mpol, bool shared)
{
	int r = fl_futex2_numa_check_align(pair);
	if (r)
		return -r;
	long k = syscall(FL_NR_futex_wake, pair, FL_MASK32, n, flags_for(mpol, shared));
	if (k >= 0)
		return (int)k;
	return -kernel_error(pair, errno);
}

#else /* not x86-64: no syscall numbers known here (futex2.h) */

int fl_futex2_numa_wait(_Atomic uint32_t *pair, uint32_t expected,
			const struct timespec *abs_deadline, bool mpol, bool shared)
{
	(void)expected, (void)abs_deadline, (void)mpol, (void)shared;
	return kernel_error(pair, ENOSYS);
}

int fl_futex2_numa_wake(_Atomic uint32_t *pair, int n, bool mpol, bool shared)
{
	(void)n, (void)mpol, (void)shared;
	return -kernel_error(pair, ENOSYS);
}

#endif

static const char *numa_why, *mpol_why;

/* A wake with the flags on a private pair of our own: a kernel without
 * FUTEX2_NUMA refuses the flag (EINVAL); one with it picks a node for
 * FUTEX_NO_NODE and writes it back. */
static void probe(void)
{
	if ((numa_why = fl_futex2_unavailable()))
		return;
	_Alignas(8) _Atomic uint32_t pair[2] = {0, FL_FUTEX_NO_NODE};
	int r = fl_futex2_numa_wake(pair, 1, false, false);
	if (r == -EINVAL)
		numa_why = "kernel has no FUTEX2_NUMA (Linux 6.16+): futex_wake refused the flag";
	else if (r < 0)
		numa_why = "futex_wake with FUTEX2_NUMA failed on a private pair";
	else if (atomic_load(&pair[1]) == FL_FUTEX_NO_NODE)
		numa_why = "FUTEX2_NUMA wake did not write the node back";
	if (numa_why) {
		mpol_why = numa_why;
		return;
	}
	atomic_store(&pair[1], FL_FUTEX_NO_NODE);
	if (fl_futex2_numa_wake(pair, 1, true, false) < 0) {
		mpol_why = "kernel has no FUTEX2_MPOL (Linux 6.16+): futex_wake refused the flag";
		return;
	}
	long page = sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (m == MAP_FAILED) {
		mpol_why = "mmap failed while probing mbind";
		return;
	}
	int e = fl_numa_prefer(m, 8, fl_numa_this_node());
	if (e == ENOSYS)
		mpol_why = "kernel has no mbind (CONFIG_NUMA=n): no memory policy to follow";
	else if (e == EPERM)
		mpol_why = "mbind denied (EPERM: a seccomp filter, e.g. a container's default)";
	else if (e)
		mpol_why = "mbind(MPOL_PREFERRED) failed on an anonymous page";
	munmap(m, (size_t)page);
}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

const char *fl_futex2_numa_unavailable(void)
{
	pthread_once(&probe_once, probe);
	return numa_why;
}

const char *fl_futex2_mpol_unavailable(void)
{
	pthread_once(&probe_once, probe);
	return mpol_why;
}

/* The backends. On a machine of more than one possible node a sleep is
 * bounded (FL_NUMA_SETTLE_SLICE_NS) while the pair reads FL_FUTEX_NO_NODE
 * — this sleep's own call may be one of two write-backs racing, the
 * loser's sleeper queued on a node the pair no longer names — and, for
 * `numa` (bound_multi), always: there a sleeper that read a node mid-race
 * may also be queued on the loser's node (variants/numa.c, THE NODE). On
 * one node every write-back stores the same node: no sleep is bounded. A bounded
 * sleep that ends by the slice, not by the caller's deadline, is a
 * spurious wakeup (0): the design re-checks its condition and sleeps again
 * with the node as it now is. EFAULT cannot happen to a design's own pair
 * (it has just written the semaphore); it is reported as EINVAL, the
 * reason kept. The node word is read relaxed: it only picks the bound, and
 * the kernel reads it again itself. */
static int wait_on(_Atomic uint32_t *w, uint32_t expected, const struct timespec *dl,
		   bool shared, bool mpol, bool bound_multi)
{
	if (fl_futex2_numa_check_node(w))
		return EINVAL;
	struct timespec slice;
	const struct timespec *until = dl;
	bool bounded = false;
	if (fl_numa_nodes() > 1 &&
	    (bound_multi || atomic_load_explicit(&w[1], memory_order_relaxed) == FL_FUTEX_NO_NODE)) {
		slice = fl_deadline_after_ns(FL_NUMA_SETTLE_SLICE_NS);
		if (!dl || fl_ts_cmp(&slice, dl) < 0)
			until = &slice, bounded = true;
	}
	int r = fl_futex2_numa_wait(w, expected, until, mpol, shared);
	if (r == ETIMEDOUT && bounded)
		return 0;
	return r == EFAULT ? EINVAL : r;
}

static int wake_on(_Atomic uint32_t *w, int n, bool shared, bool mpol)
{
	int r = fl_futex2_numa_wake(w, n, mpol, shared);
	return r < 0 ? 0 : r; /* -EFAULT: unmapped after its post (lib/futex.c) */
}

static int numa_wait(_Atomic uint32_t *w, uint32_t e, const struct timespec *dl, bool sh)
{
	return wait_on(w, e, dl, sh, false, true);
}

static int pinned_wait(_Atomic uint32_t *w, uint32_t e, const struct timespec *dl, bool sh)
{
	return wait_on(w, e, dl, sh, false, false);
}

static int mpol_wait(_Atomic uint32_t *w, uint32_t e, const struct timespec *dl, bool sh)
{
	return wait_on(w, e, dl, sh, true, false);
}

static int numa_wake(_Atomic uint32_t *w, int n, bool sh)
{
	return wake_on(w, n, sh, false);
}

static int mpol_wake(_Atomic uint32_t *w, int n, bool sh)
{
	return wake_on(w, n, sh, true);
}

const struct fl_waitaddr fl_wa_futex2_numa = {
	.name = "futex2-numa", .unavailable = fl_futex2_numa_unavailable,
	.wait = numa_wait, .wake = numa_wake,
};
const struct fl_waitaddr fl_wa_futex2_numa_pinned = {
	.name = "futex2-numa-pinned", .unavailable = fl_futex2_numa_unavailable,
	.wait = pinned_wait, .wake = numa_wake,
};
const struct fl_waitaddr fl_wa_futex2_mpol = {
	.name = "futex2-mpol", .unavailable = fl_futex2_mpol_unavailable,
	.wait = mpol_wait, .wake = mpol_wake,
};
