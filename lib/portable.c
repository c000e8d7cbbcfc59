/* lib/portable.c — see portable.h.
 *
 * STATE  One mutex `lock` guards a FIFO list of the threads inside wait
 *   (one node each, on the waiter's stack: the address it waits on and a
 *   `woken` flag). One condition variable `cv`, on CLOCK_MONOTONIC so that
 *   deadlines are the same absolute clock as futex(2)'s, serves them all.
 *
 * WAIT  lock; if *addr != expected: unlock, EAGAIN. Else append the node and
 *   cond_wait until the node is flagged woken or the deadline passes; unlock.
 * WAKE  lock; flag and unlink the oldest n nodes on addr; if any, broadcast;
 *   unlock; return how many were flagged.
 *
 * THE LOST-WAKEUP WINDOW  The caller's protocol is the futex one: the waker
 *   first changes the word (an atomic store or RMW, outside this file), then
 *   calls wake; the waiter's decision to sleep is the comparison inside wait.
 *   The danger is a wake landing after the waiter compared but before it
 *   sleeps: the wake would find nobody, and the waiter would sleep on a word
 *   that has already changed. The mutex closes it because the waker takes it:
 *     - the waiter compares and enqueues with `lock` held, and
 *       pthread_cond_wait releases `lock` and blocks as one atomic step;
 *     - the waker's store precedes, in its program order, its lock of `lock`.
 *   Mutex acquisitions are totally ordered. If the waker locks first, its
 *   unlock synchronizes-with the waiter's lock, so the store happens-before
 *   the waiter's load, which therefore reads the new value (or a later one)
 *   and returns EAGAIN — this is why a relaxed load suffices. If the waiter
 *   locks first, it is enqueued and (atomically with the unlock) blocked on
 *   `cv` before the waker can lock, so the waker finds its node and the
 *   broadcast reaches it. A waker that broadcast without taking the mutex
 *   could fire between the compare and the block, and be lost. (A sequence
 *   counter read before the compare and passed to a futex would close it
 *   too, but this backend exists for platforms without one.)
 *
 * WHY BROADCAST (the negative-counter note)  Every address shares `cv`.
 *   pthread_cond_signal wakes some waiter on `cv`, not necessarily one on addr:
 *   it could wake a thread waiting on B, which finds its node unflagged and
 *   sleeps again, while the flagged waiter on A stays asleep — a lost wakeup.
 *   Broadcast wakes all; the unflagged re-check and sleep again (correct, at
 *   the cost of a herd). The `woken` flag is what makes that re-check exact: a
 *   waiter returns 0 only if a wake chose it, so wake's return value is the
 *   number woken, like FUTEX_WAKE's, and the wake strategies (wake.h) keep
 *   their meaning on this backend.
 *
 * TIMEOUT  A waiter whose cond_timedwait reports ETIMEDOUT but whose node a
 *   wake has already flagged returns 0, not ETIMEDOUT: the wake counted it,
 *   exactly as the kernel returns 0 to a waiter whose wake raced its timer.
 *   Callers such as split (a timed-out waiter does not strand a wake) rely
 *   on this.
 *
 * DESTRUCTION  wake compares addresses and never dereferences addr, so (as
 *   with a private FUTEX_WAKE) a woken waiter may free the word while the
 *   waker is still inside wake. */
#include "lib/portable.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "lib/clock.h"

struct pwaiter {
	_Atomic uint32_t *addr;
	bool woken;
	struct pwaiter *prev, *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;
static pthread_once_t cv_once = PTHREAD_ONCE_INIT;
static struct pwaiter *head, *tail; /* guarded by lock */

static void cv_init(void)
{
	pthread_condattr_t a;
	if (pthread_condattr_init(&a) || pthread_condattr_setclock(&a, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&cv, &a))
		abort();
	pthread_condattr_destroy(&a);
}

static void unlink_node(struct pwaiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		head = w->next;
	if (w->next)
		w->next->prev = w->prev;
	else
		tail = w->prev;
	w->prev = w->next = NULL;
}

int fl_portable_wait(_Atomic uint32_t *addr, uint32_t expected,
		     const struct timespec *abs_deadline, bool shared)
{
	if (shared)
		abort(); /* per-process mutex: cannot serve another process */
	struct timespec ts;
	if (abs_deadline && fl_deadline_for_kernel(abs_deadline, &ts))
		return EINVAL;
	pthread_once(&cv_once, cv_init);
	pthread_mutex_lock(&lock);
	/* Relaxed: the mutex orders it after any waker's store (see top). */
	if (atomic_load_explicit(addr, memory_order_relaxed) != expected) {
		pthread_mutex_unlock(&lock);
		return EAGAIN;
	}
	struct pwaiter me = { .addr = addr, .prev = tail };
	if (tail)
		tail->next = &me;
	else
		head = &me;
	tail = &me;
	int r = 0;
	while (!me.woken) {
		int e = abs_deadline ? pthread_cond_timedwait(&cv, &lock, &ts)
				     : pthread_cond_wait(&cv, &lock);
		if (e == ETIMEDOUT && !me.woken) {
			unlink_node(&me);
			r = ETIMEDOUT;
			break;
		}
		/* 0 (a broadcast, perhaps for another address: re-check the
		 * flag) or a timeout that a wake beat (the flag is set). */
	}
	pthread_mutex_unlock(&lock);
	return r;
}

int fl_portable_wake(_Atomic uint32_t *addr, int n, bool shared)
{
	if (shared)
		abort();
	pthread_once(&cv_once, cv_init);
	int woken = 0;
	pthread_mutex_lock(&lock);
	for (struct pwaiter *w = head, *next; w && woken < n; w = next) {
		next = w->next;
		if (w->addr == addr) {
			unlink_node(w);
			w->woken = true;
			woken++;
		}
	}
	if (woken)
		pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&lock);
	return woken;
}

const struct fl_waitaddr fl_wa_portable = {
	.name = "portable", .unavailable = NULL,
	.wait = fl_portable_wait, .wake = fl_portable_wake,
};
