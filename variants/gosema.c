/* variants/gosema.c — Go's runtime semaphore (runtime/sema.go), after the
 * Go runtime-semaphore note (variants/README.md, "Where the designs come from").
 *
 * INVARIANT
 *   The semaphore is one 32-bit word, `count`: the tokens available, never
 *   negative. Any 32-bit word can be one; waiters are not in it. A token
 *   belongs to whoever CASes count from c > 0 to c - 1 (cansemacquire).
 *   Sleepers live in a process-global table of SEMTAB = 251 roots (prime, so
 *   strided addresses do not pile into a few buckets), picked by
 *   (addr >> 3) % 251, each root padded to a cache line of its own (two busy
 *   semaphores in adjacent buckets never bounce one line). A root holds
 *     - `lock`, a test-and-test-and-set spinlock guarding the rest;
 *     - `treap`, a treap of the distinct addresses that have sleepers, each
 *       node the first waiter of its address, heading a FIFO list of the
 *       others (Go's two levels, golang/go#17953: many sleepers on one address
 *       cost O(1) each, the tree only grows with distinct addresses);
 *     - `nwait`, the waiters registered in this root: incremented under the
 *       lock before a waiter re-checks count, decremented when it leaves
 *       or a post dequeues it. Readable without the lock, so a post that
 *       reads 0 returns without ever touching the root lock.
 *   Waiter nodes are per thread (thread-local, like Go's per-goroutine
 *   sudog): a thread waits on one semaphore at a time, and the node's
 *   `state` is the thread's futex word, so a post wakes exactly the thread
 *   it dequeued. Because the waiters live in this process's table, pshared
 *   init is ENOTSUP.
 *
 * WHY A TREAP  A bucket is shared by every address hashing to it; a list
 *   would make a post scan all of them, and a hash of buckets only moves
 *   the problem. A balanced tree bounds the search; of those, a treap needs
 *   no colour or height bookkeeping — one random priority per node and
 *   rotations keep it balanced in expectation — and its delete is "rotate
 *   the node down to a leaf and cut it", short enough to get right with
 *   parent pointers. Expected depth is O(log distinct addresses), which is
 *   usually 1 here: Go's trade, kept.
 *
 * THE NWAIT-BEFORE-RECHECK ORDERING (sema.go's argument)
 *   post:   count += n (seq_cst);        then load nwait (seq_cst)
 *   waiter: nwait += 1 (seq_cst, lock);  then re-check count (seq_cst CAS)
 *   This is the store-buffer pattern: in the single total order of seq_cst
 *   operations either the post's load of nwait follows the waiter's
 *   increment — it sees nwait > 0 and takes the slow path, where the root
 *   lock makes it wait until the waiter has either taken a token or
 *   queued itself — or it precedes it, and then the count add precedes the
 *   increment and the waiter's re-check sees the token. With release/
 *   acquire both loads could read the old values: the post skips the wake
 *   and the waiter sleeps beside a token.
 *
 * POST(n)  count += n (a CAS loop, to refuse overflow with count unchanged);
 *   nwait == 0 -> done. Otherwise, under the root lock, dequeue up to n
 *   waiters of this address in FIFO order (state DEQUEUED, nwait -= each);
 *   after unlocking, for each: with direct handoff (GOSEMA_HANDOFF, below)
 *   take a token for it from count (cansemacquire) and mark it HANDED, else
 *   (a barger took it, or handoff is off) mark it WOKEN, then wake it.
 *   The node's `chain` is read before the mark: after it the thread may
 *   return and reuse its node for its next wait; the wake after the mark
 *   only names the address (a stale wake is a spurious one).
 *
 * DIRECT HANDOFF  a compile-time choice, GOSEMA_HANDOFF, default 1: the
 *   poster takes the token on the woken waiter's behalf, so a waiter that
 *   slept is never overtaken after its wake (Go uses it for sync.Mutex's
 *   starvation mode; plain Semrelease passes false). With 0 the woken
 *   waiter competes with newcomers and requeues at the tail if it loses —
 *   cheaper under contention, unfair. The shared suite runs the default;
 *   build with -DGOSEMA_HANDOFF=0 to run it on the other.
 *
 * TIMEOUT / EINTR (two exits): under the root lock, a waiter still QUEUED
 *   unlinks itself and gives back its nwait (exit 2) and reports the
 *   timeout — after one last cansemacquire, since a token that is there is
 *   taken. One already dequeued waits for the post's verdict (the post is
 *   between its unlock and its mark): HANDED -> the token is its own, 0
 *   (exit 1); WOKEN -> it takes a token if one is there, else reports the
 *   timeout: count was 0 at that instant, so no token is stranded beside
 *   a sleeper.
 *
 * SIGNALS (FL_SIGNAL_UNSAFE)  a post with waiters takes its root's lock (a
 *   spin-then-futex mutex, as Go's runtime lock); a signal handler posting
 *   while its own thread holds that root lock (in a wait's enqueue or a
 *   post's dequeue, for any address hashing to the root) deadlocks. Go never
 *   meets it (its signal handlers do not call semrelease); declared here.
 *
 * ORDERING (besides the pair above)  the root lock orders the table; a
 *   HANDED or WOKEN mark is a release store read with acquire, so a handed
 *   token carries the poster's writes; tokens from count are taken with a
 *   seq_cst CAS (at least acquire) after a seq_cst add (at least release).
 *
 * DESTRUCTION  after its add, a post reads only the global table unless it
 *   dequeues a waiter of this address — who cannot return before the mark,
 *   so the semaphore is still live for the handoff CAS. */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/clock.h"
#include "lib/cpu.h"
#include "lib/futex.h"
#include "lib/race.h"
#include "variants/policy.h"
#include "variants/variant.h"

#ifndef GOSEMA_HANDOFF
#define GOSEMA_HANDOFF 1
#endif

#define GS_MAX INT32_MAX
#define SEMTAB 251

enum { QUEUED, DEQUEUED, WOKEN, HANDED };

struct gs_waiter {
	_Atomic uint32_t state;   /* the thread's futex word */
	const void *addr;         /* the semaphore it waits on (the key) */
	uint32_t prio;            /* treap heap priority (heads only) */
	struct gs_waiter *parent, *left, *right; /* treap links (heads only) */
	struct gs_waiter *next, *prev;           /* FIFO of one address */
	struct gs_waiter *tail;   /* heads only: last of the FIFO */
	struct gs_waiter *chain;  /* a post's list of dequeued waiters */
};

struct gs_root {
	_Atomic uint32_t lock;
	_Atomic uint32_t nwait;
	struct gs_waiter *treap;
} __attribute__((aligned(64)));

static struct gs_root semtable[SEMTAB];
static _Thread_local struct gs_waiter self;

struct gosema {
	_Atomic uint32_t count;
};

static struct gs_root *root_for(const void *addr)
{
	return &semtable[((uintptr_t)addr >> 3) % SEMTAB];
}

/* ---- the root lock: test-and-test-and-set, pause, yield past a bound ---- */

static void root_lock(struct gs_root *r)
{
	for (unsigned spins = 0;;) {
		if (!atomic_exchange_explicit(&r->lock, 1, memory_order_acquire))
			return;
		while (atomic_load_explicit(&r->lock, memory_order_relaxed)) {
			if (++spins % 128 == 0)
				sched_yield();
			else
				fl_cpu_relax();
		}
	}
}

static void root_unlock(struct gs_root *r)
{
	atomic_store_explicit(&r->lock, 0, memory_order_release);
}

/* ---- the treap of distinct addresses (BST on addr, min-heap on prio) ---- */

static uint32_t next_prio(void)
{
	static _Thread_local uint32_t x;
	if (!x)
		x = (uint32_t)(uintptr_t)&x ^ (uint32_t)fl_now_ns() ^ 0x9E3779B9u;
	x ^= x << 13, x ^= x >> 17, x ^= x << 5;
	return x | 1;
}

static bool before(const void *a, const void *b)
{
	return (uintptr_t)a < (uintptr_t)b;
}

/* Puts `repl` where `old` hangs in the tree (repl may be NULL). */
static void relink(struct gs_root *r, struct gs_waiter *old, struct gs_waiter *repl)
{
	struct gs_waiter *p = old->parent;
	if (!p)
		r->treap = repl;
	else if (p->left == old)
		p->left = repl;
	else
		p->right = repl;
	if (repl)
		repl->parent = p;
}

/* Rotates x above its parent. */
static void rotate_up(struct gs_root *r, struct gs_waiter *x)
{
	struct gs_waiter *p = x->parent;
	relink(r, p, x);
	if (p->left == x) {
		p->left = x->right;
		if (x->right)
			x->right->parent = p;
		x->right = p;
	} else {
		p->right = x->left;
		if (x->left)
			x->left->parent = p;
		x->left = p;
	}
	p->parent = x;
}

static struct gs_waiter *find(struct gs_root *r, const void *addr)
{
	struct gs_waiter *t = r->treap;
	while (t && t->addr != addr)
		t = before(addr, t->addr) ? t->left : t->right;
	return t;
}

static void enqueue(struct gs_root *r, struct gs_waiter *w)
{
	w->next = NULL;
	struct gs_waiter *h = find(r, w->addr);
	if (h) { /* the address has sleepers: join its FIFO */
		w->prev = h->tail;
		h->tail->next = w;
		h->tail = w;
		return;
	}
	w->prev = NULL;
	w->tail = w;
	w->prio = next_prio();
	w->left = w->right = NULL;
	struct gs_waiter **pp = &r->treap, *parent = NULL;
	while (*pp) {
		parent = *pp;
		pp = before(w->addr, parent->addr) ? &parent->left : &parent->right;
	}
	*pp = w;
	w->parent = parent;
	while (w->parent && w->parent->prio > w->prio)
		rotate_up(r, w);
}

/* Removes head h of its address: its successor takes its place in the
 * tree, or, if it was the last, h is rotated down to a leaf and cut. */
static void remove_head(struct gs_root *r, struct gs_waiter *h)
{
	struct gs_waiter *n = h->next;
	if (n) {
		n->prev = NULL;
		n->tail = h->tail;
		n->prio = h->prio;
		n->left = h->left;
		n->right = h->right;
		if (n->left)
			n->left->parent = n;
		if (n->right)
			n->right->parent = n;
		relink(r, h, n);
		return;
	}
	while (h->left || h->right)
		rotate_up(r, !h->right || (h->left && h->left->prio < h->right->prio) ? h->left
										 : h->right);
	relink(r, h, NULL);
}

/* Unlinks w, queued on its address (timeout / EINTR). */
static void unqueue(struct gs_root *r, struct gs_waiter *w)
{
	if (!w->prev) {
		remove_head(r, w);
		return;
	}
	struct gs_waiter *h = find(r, w->addr);
	w->prev->next = w->next;
	if (w->next)
		w->next->prev = w->prev;
	else
		h->tail = w->prev;
}

/* ---- the semaphore -------------------------------------------------------- */

static int gs_init(void *p, unsigned value, int pshared)
{
	struct gosema *s = p;
	if (pshared)
		return ENOTSUP;
	if (value > GS_MAX)
		return EINVAL;
	atomic_init(&s->count, value);
	return 0;
}

static void gs_destroy(void *p)
{
	(void)p;
}

static bool cansemacquire(struct gosema *s)
{
	uint32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
	while (c > 0)
		if (atomic_compare_exchange_weak_explicit(&s->count, &c, c - 1,
				memory_order_seq_cst, memory_order_relaxed))
			return true;
	return false;
}

static void wake_waiters(struct gosema *s, struct gs_root *r, unsigned n);

static int gs_post(void *p, unsigned n)
{
	struct gosema *s = p;
	uint32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
	do {
		if (n > GS_MAX || c > GS_MAX - n)
			return EOVERFLOW;
	} while (!atomic_compare_exchange_weak_explicit(&s->count, &c, c + n,
			memory_order_seq_cst, memory_order_relaxed)); /* the pair, store */
	struct gs_root *r = root_for(&s->count);
	fl_race_window(); /* tokens published, nwait not yet read */
	if (atomic_load_explicit(&r->nwait, memory_order_seq_cst) == 0) /* the pair, load */
		return 0; /* the easy case: nobody waits in this root */
	wake_waiters(s, r, n);
	return 0;
}

/* gs_post's waking (FL_SLOW_PATH). */
FL_SLOW_PATH static void wake_waiters(struct gosema *s, struct gs_root *r,
						   unsigned n)
{
	root_lock(r);
	struct gs_waiter *chain = NULL, **end = &chain;
	for (unsigned k = 0; k < n; k++) {
		struct gs_waiter *w = find(r, &s->count);
		if (!w)
			break;
		remove_head(r, w);
		atomic_store_explicit(&w->state, DEQUEUED, memory_order_relaxed);
		atomic_fetch_sub_explicit(&r->nwait, 1, memory_order_relaxed);
		w->chain = NULL;
		*end = w;
		end = &w->chain;
	}
	root_unlock(r);
	for (struct gs_waiter *w = chain, *next; w; w = next) {
		next = w->chain; /* before the mark: then w's thread may move on */
		uint32_t st = GOSEMA_HANDOFF && cansemacquire(s) ? HANDED : WOKEN;
		fl_race_window(); /* dequeued, verdict not yet published */
		atomic_store_explicit(&w->state, st, memory_order_release);
		fl_futex_wake(&w->state, 1, false);
	}
}

static int gs_trywait(void *p)
{
	return cansemacquire(p) ? 0 : EAGAIN;
}

/* Gives up after ETIMEDOUT / EINTR / EINVAL from the park: the two exits. */
static int give_up(struct gosema *s, struct gs_root *r, struct gs_waiter *w, int why)
{
	root_lock(r);
	if (atomic_load_explicit(&w->state, memory_order_relaxed) == QUEUED) {
		unqueue(r, w);
		atomic_fetch_sub_explicit(&r->nwait, 1, memory_order_relaxed);
		root_unlock(r);
		return cansemacquire(s) ? 0 : why; /* exit 2 (or a token that is there) */
	}
	root_unlock(r);
	uint32_t st;
	while ((st = atomic_load_explicit(&w->state, memory_order_acquire)) == DEQUEUED)
		fl_futex_wait(&w->state, DEQUEUED, NULL, false);
	if (st == HANDED)
		return 0;                          /* exit 1: the token handed to us */
	return cansemacquire(s) ? 0 : why;         /* woken to compete, none left */
}

/* gs_timedwait after its first try found none: the queueing
 * (FL_SLOW_PATH). */
FL_SLOW_PATH static int gs_timedwait_slow(struct gosema *s,
							const struct timespec *dl)
{
	if (dl && !fl_ts_valid(dl))
		return EINVAL;
	struct gs_root *r = root_for(&s->count);
	struct gs_waiter *w = &self;
	for (;;) {
		root_lock(r);
		atomic_fetch_add_explicit(&r->nwait, 1, memory_order_seq_cst); /* the pair, store */
		fl_race_window(); /* registered, count not yet re-checked */
		if (cansemacquire(s)) {                                         /* the pair, load */
			atomic_fetch_sub_explicit(&r->nwait, 1, memory_order_relaxed);
			root_unlock(r);
			return 0;
		}
		w->addr = &s->count;
		atomic_store_explicit(&w->state, QUEUED, memory_order_relaxed);
		enqueue(r, w);
		root_unlock(r);
		fl_race_window(); /* queued, not yet parked */
		uint32_t st;
		while ((st = atomic_load_explicit(&w->state, memory_order_acquire)) != WOKEN) {
			if (st == HANDED)
				return 0;
			int e = fl_futex_wait(&w->state, st, st == QUEUED ? dl : NULL, false);
			if (e == ETIMEDOUT || e == EINTR || e == EINVAL)
				return give_up(s, r, w, e);
		}
		/* WOKEN without a token: compete; if a newcomer won, queue again. */
		if (cansemacquire(s))
			return 0;
	}
}

static int gs_timedwait(void *p, const struct timespec *dl)
{
	if (cansemacquire(p))
		return 0;
	return gs_timedwait_slow(p, dl);
}

static int gs_wait(void *p)
{
	return gs_timedwait(p, NULL);
}

static int gs_getvalue(void *p)
{
	return (int)atomic_load_explicit(&((struct gosema *)p)->count, memory_order_relaxed);
}

static int gs_words(void *p, _Atomic uint32_t **out, int max)
{
	(void)p, (void)out, (void)max;
	return 0; /* sleepers park on their own thread's word, not on the semaphore */
}

FL_PAIRS(gs_pairs, gs_post, gs_wait, gs_trywait)

FL_VARIANT(gosema, struct gosema,
	.text = "src:gosema.c,policy.c;sym:fl_futex_,fl_notify,fl_wait,fl_timedwait;dsym:libc.so.6:syscall", /* hunt: its code (variant.h) */
	.summary = "Go's runtime semaphore: any word is a semaphore; sleepers in a global 251-root table (treap + FIFO), nwait fast path",
	.flags = FL_SIGNAL_UNSAFE,
	.value_max = GS_MAX,
	.init = gs_init, .destroy = gs_destroy, .post = gs_post, .wait = gs_wait,
	.trywait = gs_trywait, .timedwait = gs_timedwait, .getvalue = gs_getvalue,
	.words = gs_words,
	.pairs = gs_pairs);
