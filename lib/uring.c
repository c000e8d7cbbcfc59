/* lib/uring.c — see uring.h. */
#include "lib/uring.h"

#include <errno.h>
#include <stdlib.h>

#ifdef FL_HAVE_LIBURING

#include <linux/futex.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/clock.h"
#include "lib/futex2.h"
#include "lib/waitv.h"

enum { TAG_OP = 1, TAG_TIMEOUT = 2, TAG_CANCEL = 3 };

/* ---- the thread's ring ------------------------------------------------- */

/* Each thread submits only on its own ring (tl_ring). When a thread exits,
 * its ring is not unmapped but parked on a pool, and the next thread that
 * needs a ring takes it from there; rings are released only at process exit
 * (or, in a forked child, when found to be the parent's, below).
 *
 * Why not io_uring_queue_exit at thread exit: it is correct for the kernel,
 * but ThreadSanitizer reports a race that is not there (6 failures
 * in 20 runs of the TSan torture-uring). liburing 2.3 maps and unmaps its
 * rings with raw syscalls (liburing.so imports no mmap/munmap; it has 59
 * `syscall` instructions), so TSan's munmap interceptor never sees a ring go
 * away. Logging ring fd, thread id and addresses at create/exit showed the
 * pattern every time: worker T1 (tid 4407) exits and unmaps its ring (fd 3,
 * SQEs at 0x7fd48406c000); the main thread's first wake creates a ring that
 * gets fd 3 and the very same addresses; TSan pairs the main thread's SQE
 * writes with T1's (finished, not yet joined) and calls it a race. Each
 * ring was only ever used by one thread.
 *
 * The pool removes the cause rather than the report: a ring's memory is
 * never recycled while the process lives, and a ring changing threads goes
 * through pool_lock — a real happens-before (the old owner had reaped every
 * CQE before it exited: run() returns only with nothing pending, so a parked
 * ring is idle). It also saves io_uring_setup + three mmaps per benchmark
 * thread. The pool never holds more rings than were alive at once. */

static pthread_key_t ring_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

struct pooled {
	struct io_uring ring;
	unsigned gen;          /* fork generation it was created in */
	struct pooled *next;   /* on the pool */
};
static struct pooled *pool;
static __thread struct pooled *tl_ring;

/* SIGNAL HANDLERS  sem_post is async-signal-safe: a handler may post while
 * its own thread is inside a wait (or a post, or ring setup) on its ring,
 * with SQEs half-prepared or CQEs being reaped. Submitting on that ring
 * from the handler would corrupt the interrupted operation. `tl_busy` is
 * raised around every use of the thread's ring (and around ring setup and
 * parking, which take pool_lock); an operation that finds it raised is
 * running in a handler on top of one, and goes to the futex2 syscalls
 * instead — the same futex word, the same flags, so a wake through either
 * path reaches a waiter sleeping through the other (io_uring's futex ops
 * are the kernel's futex2 ones). Only those reentrant calls leave the ring;
 * their count is fl_uring_reentrant(). Ring memory comes from mmap, not
 * malloc, so a handler that makes a thread's first ring cannot deadlock on
 * a malloc lock its thread holds. */
static __thread volatile sig_atomic_t tl_busy;
static _Atomic unsigned long reentrant;

unsigned long fl_uring_reentrant(void)
{
	return atomic_load_explicit(&reentrant, memory_order_relaxed);
}

/* fork: the child inherits the forking thread's ring (and the pool), whose
 * SQ/CQ mappings are shared with the parent's rings — submitting on one from
 * the child would corrupt the parent's queues. A fork bumps the generation
 * in the child; a ring from an older generation is released (in the child
 * only: munmap and close touch the child's copies) and never reused. */
static unsigned fork_gen;

static void on_fork_child(void)
{
	fork_gen++;
}

static void ring_park(void *p) /* thread exit: hand the idle ring on */
{
	struct pooled *r = p;
	tl_busy++;
	pthread_mutex_lock(&pool_lock);
	r->next = pool;
	pool = r;
	pthread_mutex_unlock(&pool_lock);
	tl_ring = NULL;
	tl_busy--;
}

static void ring_release(struct pooled *r)
{
	io_uring_queue_exit(&r->ring);
	munmap(r, sizeof *r);
}

static void key_init(void)
{
	if (pthread_key_create(&ring_key, ring_park) || pthread_atfork(NULL, NULL, on_fork_child))
		abort();
}

/* A ring of this generation from the pool, or NULL; stale ones released. */
static struct pooled *pool_take(void)
{
	pthread_mutex_lock(&pool_lock);
	struct pooled *r;
	while ((r = pool) && r->gen != fork_gen) {
		pool = r->next;
		ring_release(r);
	}
	if (r)
		pool = r->next;
	pthread_mutex_unlock(&pool_lock);
	return r;
}

static struct io_uring *ring(void)
{
	if (tl_ring && tl_ring->gen == fork_gen)
		return &tl_ring->ring;
	pthread_once(&key_once, key_init);
	if (tl_ring) { /* inherited across fork: drop the child's copy */
		pthread_setspecific(ring_key, NULL);
		ring_release(tl_ring);
		tl_ring = NULL;
	}
	struct pooled *r = pool_take();
	if (!r) {
		r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r == MAP_FAILED)
			r = NULL;
		int e = r ? io_uring_queue_init(8, &r->ring, 0) : -ENOMEM;
		if (e < 0) {
			/* unavailable() said yes, so this is resource exhaustion
			 * (fds, memory): not a condition the futex contract can
			 * report. */
			fprintf(stderr, "futexlab: io_uring_queue_init: %s\n", strerror(-e));
			abort();
		}
		r->gen = fork_gen;
	}
	pthread_setspecific(ring_key, r);
	tl_ring = r;
	return &r->ring;
}

/* ---- SQEs, filled by hand (liburing 2.3 has no futex helpers) ------------ */

static struct io_uring_sqe *sqe_get(struct io_uring *r)
{
	struct io_uring_sqe *s = io_uring_get_sqe(r);
	if (!s)
		abort(); /* 8 entries, at most 3 in flight: cannot happen */
	memset(s, 0, sizeof *s);
	return s;
}

static void prep_futex(struct io_uring_sqe *s, int op, _Atomic uint32_t *addr,
		       uint64_t val, bool shared)
{
	s->opcode = (uint8_t)op;
	s->fd = (int32_t)(FUTEX2_SIZE_U32 | (shared ? 0 : FUTEX2_PRIVATE));
	s->addr = (uint64_t)(uintptr_t)addr;
	s->off = val;                            /* addr2 */
	s->addr3 = FUTEX_BITSET_MATCH_ANY;       /* mask; 0 would be EINVAL */
	s->len = 0;
	s->rw_flags = 0;                         /* futex_flags: must be 0 */
	s->user_data = TAG_OP;
}

/* Link a timeout at the absolute monotonic deadline to the SQE before. */
static void link_deadline(struct io_uring *r, struct io_uring_sqe *op,
			  struct __kernel_timespec *kts, const struct timespec *dl)
{
	kts->tv_sec = dl->tv_sec < 0 ? 0 : dl->tv_sec; /* past: fires at once */
	kts->tv_nsec = dl->tv_sec < 0 ? 0 : dl->tv_nsec;
	op->flags |= IOSQE_IO_LINK;
	struct io_uring_sqe *t = sqe_get(r);
	io_uring_prep_link_timeout(t, kts, IORING_TIMEOUT_ABS);
	t->user_data = TAG_TIMEOUT;
}

/* Submit, then reap `pending` CQEs; returns the op's result in *res and
 * whether a signal interrupted the wait before the op completed. */
struct reap {
	int pending;
	bool op_done, timed_out;
	int res;
};

static void take(struct io_uring *r, struct reap *rp, struct io_uring_cqe *c)
{
	if (c->user_data == TAG_OP) {
		rp->op_done = true;
		rp->res = c->res;
	} else if (c->user_data == TAG_TIMEOUT) {
		/* The timer fired (-ETIME; or, for futex requests on current
		 * kernels, the count the cancel found, 1) or the op finished
		 * first (-ECANCELED). Recorded for the op's -ECANCELED below. */
		rp->timed_out = c->res != -ECANCELED;
	}
	io_uring_cqe_seen(r, c);
	rp->pending--;
}

/* Runs the prepared SQEs (pending = how many CQEs they produce). Returns
 * true if interrupted by a signal: then the op has been cancelled and every
 * CQE reaped, and rp->op_done says whether it completed first anyway. */
static bool run(struct io_uring *r, struct reap *rp)
{
	int e;
	while ((e = io_uring_submit(r)) < 0)
		if (e != -EINTR && e != -EAGAIN && e != -EBUSY)
			abort();
	bool interrupted = false;
	while (rp->pending > 0) {
		struct io_uring_cqe *c;
		e = io_uring_wait_cqe(r, &c);
		if (e == 0) {
			take(r, rp, c);
			continue;
		}
		if (e != -EINTR)
			abort();
		if (interrupted || rp->op_done)
			continue; /* already cancelling, or only the timeout CQE left */
		interrupted = true;
		struct io_uring_sqe *s = sqe_get(r);
		io_uring_prep_cancel64(s, TAG_OP, 0);
		s->user_data = TAG_CANCEL;
		rp->pending++;
		while ((e = io_uring_submit(r)) < 0)
			if (e != -EINTR && e != -EAGAIN && e != -EBUSY)
				abort();
	}
	return interrupted;
}

static int wait_result(int res, bool interrupted, bool timed_out)
{
	if (res == 0)
		return 0; /* woken (a wake that raced the cancel still counts) */
	if (interrupted)
		return EINTR;
	if (res == -EAGAIN)
		return EAGAIN;
	/* Only the linked timeout or our own cancel (interrupted) cancel it. */
	if (res == -ECANCELED && timed_out)
		return ETIMEDOUT;
	if (res == -EINTR) /* the kernel may report it for an interrupted issue */
		return EINTR;
	abort(); /* -EINVAL/-EFAULT: our SQE or address is wrong */
}

static int uring_wait(_Atomic uint32_t *addr, uint32_t expected,
		      const struct timespec *dl, bool shared);

int fl_uring_wait(_Atomic uint32_t *addr, uint32_t expected,
		  const struct timespec *dl, bool shared)
{
	if (dl && !fl_ts_valid(dl))
		return EINVAL;
	if (tl_busy) { /* in a handler, on top of this thread's ring use */
		atomic_fetch_add_explicit(&reentrant, 1, memory_order_relaxed);
		return fl_futex2_wait(addr, expected, dl, shared);
	}
	tl_busy++;
	int e = uring_wait(addr, expected, dl, shared);
	tl_busy--;
	return e;
}

static int uring_wait(_Atomic uint32_t *addr, uint32_t expected,
		      const struct timespec *dl, bool shared)
{
	struct io_uring *r = ring();
	struct __kernel_timespec kts;
	struct io_uring_sqe *s = sqe_get(r);
	prep_futex(s, FL_IORING_OP_FUTEX_WAIT, addr, expected, shared);
	struct reap rp = { .pending = 1 };
	if (dl) {
		link_deadline(r, s, &kts, dl);
		rp.pending = 2;
	}
	bool intr = run(r, &rp);
	return wait_result(rp.res, intr, rp.timed_out);
}

int fl_uring_wake(_Atomic uint32_t *addr, int n, bool shared)
{
	if (tl_busy) { /* a handler's post on top of this thread's ring use */
		atomic_fetch_add_explicit(&reentrant, 1, memory_order_relaxed);
		return fl_futex2_wake(addr, n, shared);
	}
	tl_busy++;
	struct io_uring *r = ring();
	struct io_uring_sqe *s = sqe_get(r);
	prep_futex(s, FL_IORING_OP_FUTEX_WAKE, addr, (uint64_t)(unsigned)n, shared);
	struct reap rp = { .pending = 1 };
	/* A wake completes inline; a signal during the CQE wait changes nothing,
	 * so run() cancelling a finished request is harmless (-ENOENT). */
	run(r, &rp);
	tl_busy--;
	if (rp.res >= 0)
		return rp.res;
	if (rp.res == -EFAULT)
		return 0; /* the semaphore was unmapped after its post (lib/futex.c) */
	abort();
}

#ifndef FUTEX_32
#define FUTEX_32 2
#endif

static int uring_waitv(const struct fl_waitv *w, int n, const struct timespec *dl);

int fl_uring_waitv(const struct fl_waitv *w, int n, const struct timespec *dl)
{
	if (n < 1 || n > FL_WAITV_MAX || (dl && !fl_ts_valid(dl)))
		return -EINVAL;
	if (tl_busy) {
		atomic_fetch_add_explicit(&reentrant, 1, memory_order_relaxed);
		return fl_futex_waitv(w, n, dl);
	}
	tl_busy++;
	int r = uring_waitv(w, n, dl);
	tl_busy--;
	return r;
}

static int uring_waitv(const struct fl_waitv *w, int n, const struct timespec *dl)
{
	struct {
		uint64_t val, uaddr;
		uint32_t flags, reserved;
	} k[FL_WAITV_MAX]; /* struct futex_waitv's layout (lib/waitv.c) */
	for (int i = 0; i < n; i++) {
		k[i].val = w[i].expected;
		k[i].uaddr = (uint64_t)(uintptr_t)w[i].addr;
		k[i].flags = FUTEX2_SIZE_U32 | (w[i].shared ? 0 : FUTEX2_PRIVATE);
		k[i].reserved = 0;
	}
	struct io_uring *r = ring();
	struct __kernel_timespec kts;
	struct io_uring_sqe *s = sqe_get(r);
	s->opcode = FL_IORING_OP_FUTEX_WAITV;
	s->addr = (uint64_t)(uintptr_t)k; /* parsed at submit: the stack is fine */
	s->len = (uint32_t)n;
	s->user_data = TAG_OP;
	struct reap rp = { .pending = 1 };
	if (dl) {
		link_deadline(r, s, &kts, dl);
		rp.pending = 2;
	}
	bool intr = run(r, &rp);
	if (rp.res >= 0 && rp.op_done)
		return rp.res;
	int e = wait_result(rp.res, intr, rp.timed_out);
	return e ? -e : 0;
}

/* ---- run-time detection -------------------------------------------------- */

static const char *why, *why_v;
static char why_buf[160];

static int probe_op(struct io_uring *r, int op, _Atomic uint32_t *w, uint64_t val)
{
	struct io_uring_sqe *s = sqe_get(r);
	prep_futex(s, op, w, val, false);
	struct io_uring_cqe *c;
	if (io_uring_submit(r) < 0 || io_uring_wait_cqe(r, &c) < 0)
		return -EIO;
	int res = c->res;
	io_uring_cqe_seen(r, c);
	return res;
}

static void probe(void)
{
	struct io_uring r;
	int e = io_uring_queue_init(4, &r, 0);
	if (e < 0) {
		int disabled = -1;
		FILE *f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
		if (f) {
			if (fscanf(f, "%d", &disabled) != 1)
				disabled = -1;
			fclose(f);
		}
		if (e == -ENOSYS)
			why = "kernel built without io_uring";
		else if (e == -EPERM && disabled > 0)
			snprintf(why_buf, sizeof why_buf,
				 "io_uring disabled by sysctl kernel.io_uring_disabled=%d", disabled), why = why_buf;
		else
			snprintf(why_buf, sizeof why_buf, "io_uring_setup failed: %s",
				 strerror(-e)), why = why_buf;
		why_v = why;
		return;
	}
	struct io_uring_probe *p = io_uring_get_probe_ring(&r);
	if (!p) {
		why = why_v = "io_uring cannot report its opcodes (IORING_REGISTER_PROBE)";
	} else if (!io_uring_opcode_supported(p, FL_IORING_OP_FUTEX_WAIT) ||
		   !io_uring_opcode_supported(p, FL_IORING_OP_FUTEX_WAKE)) {
		why = why_v = "kernel io_uring lacks IORING_OP_FUTEX_WAIT/WAKE (Linux 6.7+)";
	} else if (!io_uring_opcode_supported(p, IORING_OP_LINK_TIMEOUT) ||
		   !io_uring_opcode_supported(p, IORING_OP_ASYNC_CANCEL)) {
		why = why_v = "kernel io_uring lacks LINK_TIMEOUT or ASYNC_CANCEL";
	} else {
		_Atomic uint32_t w = 1;
		int a = probe_op(&r, FL_IORING_OP_FUTEX_WAIT, &w, 0);
		int b = probe_op(&r, FL_IORING_OP_FUTEX_WAKE, &w, 1);
		if (a != -EAGAIN || b != 0) {
			snprintf(why_buf, sizeof why_buf,
				 "io_uring futex ops reject our SQE (wait %d, wake %d)", a, b);
			why = why_v = why_buf;
		} else if (!io_uring_opcode_supported(p, FL_IORING_OP_FUTEX_WAITV)) {
			why_v = "kernel io_uring lacks IORING_OP_FUTEX_WAITV";
		}
	}
	if (p)
		io_uring_free_probe(p);
	io_uring_queue_exit(&r);
}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

const char *fl_uring_unavailable(void)
{
	pthread_once(&probe_once, probe);
	return why;
}

const char *fl_uring_waitv_unavailable(void)
{
	pthread_once(&probe_once, probe);
	return why_v;
}

#else /* built without liburing: the variant exists and says why it cannot run */

int fl_uring_wait(_Atomic uint32_t *addr, uint32_t expected,
		  const struct timespec *dl, bool shared)
{
	(void)addr, (void)expected, (void)dl, (void)shared;
	abort();
}

int fl_uring_wake(_Atomic uint32_t *addr, int n, bool shared)
{
	(void)addr, (void)n, (void)shared;
	abort();
}

int fl_uring_waitv(const struct fl_waitv *w, int n, const struct timespec *dl)
{
	(void)w, (void)n, (void)dl;
	abort();
}

unsigned long fl_uring_reentrant(void)
{
	return 0;
}

const char *fl_uring_unavailable(void)
{
	return "built without liburing (meson -Dio_uring)";
}

const char *fl_uring_waitv_unavailable(void)
{
	return fl_uring_unavailable();
}

#endif

const struct fl_waitaddr fl_wa_uring = {
	.name = "io_uring", .unavailable = fl_uring_unavailable,
	.wait = fl_uring_wait, .wake = fl_uring_wake,
};
