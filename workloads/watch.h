/* workloads/watch.h — the stranded-waiter detector's per-thread record and
 * the inline marks the fl_sem_* wrappers (sem.c) make around every op;
 * internal to workloads/ (sem.c, stranded.c). The argument for this layout
 * (what it costs, why no shared write) is at the top of stranded.c.
 *
 * Invariant: a record is written by its own thread only; `posted[s]` and
 * `taken[s]` only grow; `op` holds seq << 10 | FL_OP_SET | slot << 3 | kind,
 * seq +1 per op entered, kind FL_OP_NONE once the op's counts are in; an op
 * on one semaphore names its arena slot in the word itself (one store), a
 * wait-any sets FL_OP_SET and its semaphores are `mask`, stored first. */
#ifndef FUTEXLAB_WATCH_H
#define FUTEXLAB_WATCH_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "workloads/workload.h" /* (it includes this file at its end: either order works) */

enum {
	FL_OP_NONE,
	FL_OP_WAIT,  /* wait: may sleep until a token */
	FL_OP_TIMED, /* timedwait: may sleep until a token or the deadline */
	FL_OP_ANY,   /* wait-any over the semaphores of `mask` */
	FL_OP_TRY,   /* trywait: never sleeps */
	FL_OP_POST,  /* post: its tokens count once it returns */
};
#define FL_OP_KIND(op) ((unsigned)((op) & 7))
#define FL_OP_SLOT(op) ((int)((op) >> 3 & 63))
#define FL_OP_SET ((uint64_t)1 << 9)
#define FL_OP_SEQ ((uint64_t)1 << 10)
/* The thread-local pointer is read on every op: initial-exec, so that it is
 * one %fs-relative load, not a __tls_get_addr call (the workloads are
 * linked into executables, never dlopen'ed). */
#define FL_WATCH_TLS __attribute__((tls_model("initial-exec")))

struct fl_watch_thread {
	/* The op in flight (for a wait-any, a seqlock of one writer: mask
	 * before op). */
	_Atomic uint64_t op;          /* see above */
	_Atomic uint64_t mask;        /* a wait-any's semaphores (bit = slot) */
	int tid;
	/* Tokens this thread's returned posts added / its waits took, per
	 * arena slot: each on the thread's own lines. */
	_Alignas(64) _Atomic int64_t posted[FL_SEM_SLOTS];
	_Atomic int64_t taken[FL_SEM_SLOTS];
} __attribute__((aligned(64)));

/* Bumped at every fl_watch_begin/end: a thread's record is valid while the
 * generation it enrolled in is current. */
extern _Atomic unsigned fl_watch_gen __attribute__((visibility("hidden")));
extern _Thread_local struct fl_watch_thread *fl_watch_me FL_WATCH_TLS;
extern _Thread_local unsigned fl_watch_me_gen FL_WATCH_TLS;
/* The calling thread's record for this rep (NULL: detector off). */
struct fl_watch_thread *fl_watch_enroll(void);
/* fl_sem_open/close tell the detector (under the arena lock). */
void fl_watch_opened(int id, const struct fl_variant *v, void *s, unsigned value);
void fl_watch_closed(int id);

static inline struct fl_watch_thread *fl_watch_self(void)
{
	if (fl_watch_me_gen == atomic_load_explicit(&fl_watch_gen, memory_order_relaxed))
		return fl_watch_me;
	return fl_watch_enroll();
}

/* The next op word (a new seq) for `low` (slot and kind, or FL_OP_SET). */
static inline uint64_t fl_watch_next(struct fl_watch_thread *t, uint64_t low)
{
	return ((atomic_load_explicit(&t->op, memory_order_relaxed) | (FL_OP_SEQ - 1)) + 1) | low;
}

/* Before an op on one semaphore (arena slot `slot`): publish it. */
static inline uint64_t fl_watch_enter(struct fl_watch_thread *t, int slot, unsigned kind)
{
	uint64_t op = fl_watch_next(t, (uint64_t)slot << 3 | kind);
	atomic_store_explicit(&t->op, op, memory_order_release);
	return op;
}

/* Before a wait-any: the mask is stored before the op word with release, so
 * a watchdog that reads the op word (acquire), the mask, and the op word
 * again unchanged has the mask of that op. */
static inline uint64_t fl_watch_enter_set(struct fl_watch_thread *t, uint64_t mask, unsigned kind)
{
	uint64_t op = fl_watch_next(t, FL_OP_SET | kind);
	atomic_store_explicit(&t->mask, mask, memory_order_relaxed);
	atomic_store_explicit(&t->op, op, memory_order_release);
	return op;
}

/* A count on the thread's own line: a load and a store, no locked RMW (one
 * writer). */
static inline void fl_watch_add(_Atomic int64_t *c, int64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* After the op's count: the op is over (release: the count first). */
static inline void fl_watch_leave(struct fl_watch_thread *t, uint64_t op)
{
	atomic_store_explicit(&t->op, op & ~(uint64_t)7, memory_order_release);
}

/* ---- the wrappers (workload.h): every op of a workload ---------------------
 *
 * Each brackets the variant's call with the marks above: enter (what the op
 * is on), the call, the count of what it did (a token taken, tokens posted —
 * a post counts once it has returned), leave. With the detector off
 * fl_watch_self is NULL and the call is all there is. Inline: measured,
 * an out-of-line call cost as much as the marks (workloads/README.md). */

/* EINTR is not a token: a benchmark thread just waits again (each retry is
 * a new op for the detector: the rescue's signal ends a stranded wait). */
static inline int fl_sem_wait(struct fl_sem *m)
{
	struct fl_watch_thread *t = fl_watch_self();
	int r;
	if (!t) {
		while ((r = m->v->wait(m->s)) == EINTR)
			;
		return r;
	}
	do {
		uint64_t op = fl_watch_enter(t, m->id, FL_OP_WAIT);
		r = m->v->wait(m->s);
		if (!r)
			fl_watch_add(&t->taken[m->id], 1);
		fl_watch_leave(t, op);
	} while (r == EINTR);
	return r;
}

static inline int fl_sem_trywait(struct fl_sem *m)
{
	struct fl_watch_thread *t = fl_watch_self();
	if (!t)
		return m->v->trywait(m->s);
	uint64_t op = fl_watch_enter(t, m->id, FL_OP_TRY);
	int r = m->v->trywait(m->s);
	if (!r)
		fl_watch_add(&t->taken[m->id], 1);
	fl_watch_leave(t, op);
	return r;
}

static inline int fl_sem_timedwait(struct fl_sem *m, const struct timespec *abs_deadline)
{
	struct fl_watch_thread *t = fl_watch_self();
	if (!t)
		return m->v->timedwait(m->s, abs_deadline);
	uint64_t op = fl_watch_enter(t, m->id, FL_OP_TIMED);
	int r = m->v->timedwait(m->s, abs_deadline);
	if (!r)
		fl_watch_add(&t->taken[m->id], 1);
	fl_watch_leave(t, op);
	return r;
}

static inline int fl_sem_post_r(struct fl_sem *m, unsigned n)
{
	struct fl_watch_thread *t = fl_watch_self();
	if (!t)
		return m->v->post(m->s, n);
	uint64_t op = fl_watch_enter(t, m->id, FL_OP_POST);
	int r = m->v->post(m->s, n);
	if (!r)
		fl_watch_add(&t->posted[m->id], n);
	fl_watch_leave(t, op);
	return r;
}

#endif
