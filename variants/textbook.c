/* variants/textbook.c — the textbook note's spinlock, signed value, FIFO queue.
 *
 * INVARIANT
 *   `lock` is a test-and-test-and-set spinlock guarding `value`, `head` and
 *   `tail`. value = tokens - queued waiters: positive, it is the tokens
 *   available and the queue is empty; negative, -value waiters are queued
 *   (the textbook note's invariant #blocked = max(0, -value)). A waiter that finds
 *   value <= 0 decrements it, appends a node from its own stack to the
 *   tail, releases the lock and parks on the node's own futex word
 *   (`state`). A post adds its tokens and hands one to each of the first
 *   min(n, -old) queued nodes — direct handoff to exactly the head, strict
 *   FIFO: a token never sits in `value` while someone is queued, so nobody
 *   can barge past the queue.
 *
 * NODE STATES (the node's futex word)
 *   QUEUED    in the queue; owns nothing.
 *   ASSIGNED  dequeued under the lock by a post: the token is the node's,
 *             but the post has not published it yet (it wakes after
 *             unlocking, so no syscall runs under the spinlock).
 *   GRANTED   published: the waiter may return and its stack die. The post
 *             reads the node's `next` before this store and touches the
 *             node after it only through FUTEX_WAKE on the address (which
 *             never dereferences it; a wake landing on a reused stack
 *             address is a spurious wakeup, which every wait tolerates).
 *   A waiter loops until GRANTED: wakeups may be spurious.
 *
 * TIMEOUT / EINTR (the two exits): the waiter takes the lock. Still QUEUED:
 *   it unlinks its node and undoes its decrement (value++), and reports the
 *   timeout. Already ASSIGNED or GRANTED: the token is its own; it waits
 *   (untimed, briefly: the post is between its unlock and its store) for
 *   GRANTED and returns 0. Never both: the state is only changed from
 *   QUEUED under the lock.
 *
 * ORDERING  value and the queue are only touched under the lock, whose
 *   acquire (exchange) and release (store) order everything inside. A
 *   token handed off travels by the GRANTED store (release) and the
 *   waiter's acquire load of it. Outside the lock only getvalue and
 *   trywait's pre-check read value (relaxed: a snapshot, no data).
 *
 * SIGNALS (FL_SIGNAL_UNSAFE)  post takes the spinlock. A signal handler that
 *   posts while its own thread holds it (inside post, trywait or a wait's
 *   enqueue) spins forever: the holder cannot run until the handler returns.
 *   Declared, not fixed: blocking signals around the locked section costs
 *   two sigprocmask syscalls per operation, more than the section itself.
 *   (Destruction is safe: the post's last access to the semaphore is its
 *   unlock, before any GRANTED store; a token in `value` can only be taken
 *   under the lock, after that unlock.)
 *
 * STATE  24 bytes; the waiters' nodes live in their threads' stacks, so a
 *   process-shared semaphore is impossible: pshared init is ENOTSUP. */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/clock.h"
#include "lib/cpu.h"
#include "lib/futex.h"
#include "lib/race.h"
#include "lib/wake.h"
#include "variants/policy.h"
#include "variants/variant.h"

#define TB_MAX INT32_MAX

enum { QUEUED, ASSIGNED, GRANTED };

struct tb_node {
	_Atomic uint32_t state;
	struct tb_node *next, *prev;
};

struct textbook {
	_Atomic uint32_t lock;
	_Atomic int32_t value; /* atomic only for the lock-free readers */
	struct tb_node *head, *tail;
};

/* Test-and-test-and-set: spin on a plain load (the line stays shared in
 * every spinner's cache) and try the exchange only when it reads free.
 * Past a bound it yields: on 2 cores with 8 threads a preempted holder
 * would otherwise be spun on for whole time slices. */
static void tb_lock(struct textbook *s)
{
	for (unsigned spins = 0;;) {
		if (!atomic_exchange_explicit(&s->lock, 1, memory_order_acquire))
			return;
		while (atomic_load_explicit(&s->lock, memory_order_relaxed)) {
			if (++spins % 128 == 0)
				sched_yield();
			else
				fl_cpu_relax();
		}
	}
}

static void tb_unlock(struct textbook *s)
{
	atomic_store_explicit(&s->lock, 0, memory_order_release);
}

static int tb_init(void *p, unsigned value, int pshared)
{
	struct textbook *s = p;
	if (pshared)
		return ENOTSUP;
	if (value > TB_MAX)
		return EINVAL;
	atomic_init(&s->lock, 0);
	atomic_init(&s->value, (int32_t)value);
	s->head = s->tail = NULL;
	return 0;
}

static void tb_destroy(void *p)
{
	(void)p;
}

static int32_t val(struct textbook *s)
{
	return atomic_load_explicit(&s->value, memory_order_relaxed);
}

static void set_val(struct textbook *s, int32_t v)
{
	atomic_store_explicit(&s->value, v, memory_order_relaxed);
}

static void unlink_node(struct textbook *s, struct tb_node *n)
{
	if (n->prev)
		n->prev->next = n->next;
	else
		s->head = n->next;
	if (n->next)
		n->next->prev = n->prev;
	else
		s->tail = n->prev;
}

static int tb_post(void *p, unsigned n)
{
	struct textbook *s = p;
	tb_lock(s);
	int32_t v = val(s);
	if (n > TB_MAX || (int64_t)v + n > TB_MAX) {
		tb_unlock(s);
		return EOVERFLOW;
	}
	set_val(s, (int32_t)((int64_t)v + n));
	int k = v < 0 ? (int)(-(int64_t)v < n ? -(int64_t)v : n) : 0;
	struct tb_node *first = s->head, *q = first;
	for (int i = 0; i < k; i++) { /* the first k, in queue order */
		atomic_store_explicit(&q->state, ASSIGNED, memory_order_relaxed);
		q = q->next;
	}
	s->head = q;
	if (q)
		q->prev = NULL;
	else
		s->tail = NULL;
	tb_unlock(s);
	q = first;
	for (int i = 0; i < k; i++) {
		struct tb_node *next = q->next; /* before GRANTED: then q may die */
		fl_race_window(); /* tokens assigned, not yet published */
		atomic_store_explicit(&q->state, GRANTED, memory_order_release);
		fl_notify(&q->state, 1, false);
		q = next;
	}
	return 0;
}

static int tb_trywait(void *p)
{
	struct textbook *s = p;
	if (val(s) <= 0)
		return EAGAIN; /* no token (or a queue ahead): skip the lock */
	tb_lock(s);
	int32_t v = val(s);
	if (v > 0)
		set_val(s, v - 1);
	tb_unlock(s);
	return v > 0 ? 0 : EAGAIN;
}

static int tb_timedwait(void *p, const struct timespec *dl)
{
	struct textbook *s = p;
	tb_lock(s);
	int32_t v = val(s);
	if (v > 0) {
		set_val(s, v - 1);
		tb_unlock(s);
		return 0;
	}
	if (dl && !fl_ts_valid(dl)) {
		tb_unlock(s);
		return EINVAL;
	}
	struct tb_node node = { .next = NULL, .prev = s->tail };
	atomic_init(&node.state, QUEUED);
	if (s->tail)
		s->tail->next = &node;
	else
		s->head = &node;
	s->tail = &node;
	set_val(s, v - 1);
	tb_unlock(s);
	fl_race_window(); /* queued, not yet asleep: a post may grant now */
	for (;;) {
		uint32_t st = atomic_load_explicit(&node.state, memory_order_acquire);
		if (st == GRANTED)
			return 0;
		int r = fl_futex_wait(&node.state, st, st == QUEUED ? dl : NULL, false);
		if (r != ETIMEDOUT && r != EINTR && r != EINVAL)
			continue; /* woken, spurious, or the state moved: look again */
		fl_race_window(); /* giving up, the lock not yet taken */
		tb_lock(s);
		if (atomic_load_explicit(&node.state, memory_order_relaxed) == QUEUED) {
			unlink_node(s, &node);   /* exit 2: leave the queue */
			set_val(s, val(s) + 1);  /* and undo our decrement */
			tb_unlock(s);
			return r;
		}
		tb_unlock(s);
		/* exit 1: a post assigned us the token; wait until it is published */
		while (atomic_load_explicit(&node.state, memory_order_acquire) != GRANTED)
			fl_futex_wait(&node.state, ASSIGNED, NULL, false);
		return 0;
	}
}

static int tb_wait(void *p)
{
	return tb_timedwait(p, NULL);
}

static int tb_getvalue(void *p)
{
	int32_t v = val(p);
	return v > 0 ? v : 0;
}

static int tb_words(void *p, _Atomic uint32_t **out, int max)
{
	(void)p, (void)out, (void)max;
	return 0; /* waiters sleep on their own nodes, not on the semaphore */
}

FL_PAIRS(tb_pairs, tb_post, tb_wait, tb_trywait)

FL_VARIANT(textbook, struct textbook,
	.text = "src:textbook.c,policy.c;sym:fl_futex_,fl_notify,fl_wait,fl_timedwait;dsym:libc.so.6:syscall", /* hunt: its code (variant.h) */
	.summary = "spinlock + signed value + FIFO queue, direct handoff to the head, per-waiter futex",
	.flags = FL_SIGNAL_UNSAFE,
	.value_max = TB_MAX,
	.init = tb_init, .destroy = tb_destroy, .post = tb_post, .wait = tb_wait,
	.trywait = tb_trywait, .timedwait = tb_timedwait, .getvalue = tb_getvalue,
	.words = tb_words,
	.pairs = tb_pairs);
