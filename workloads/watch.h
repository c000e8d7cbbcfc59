/* workloads/watch.h — the stranded-waiter detector's per-thread record and
 * the inline marks the fl_sem_* wrappers (sem.c) make around every op;
 * internal to workloads/ (sem.c, stranded.c). The argument for this layout
 * (what it costs, why no shared write) is at the top of stranded.c.
 *
 * Invariant: a record is written by its own thread only; `posted[s]` and
 * `taken[s]` only grow; `op` holds (seq << 3) | kind, seq +1 per op entered,
 * kind FL_OP_NONE once the op's counts are in. */
#ifndef FUTEXLAB_WATCH_H
#define FUTEXLAB_WATCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "workload.h"

enum {
	FL_OP_NONE,
	FL_OP_WAIT,  /* wait: may sleep until a token */
	FL_OP_TIMED, /* timedwait: may sleep until a token or the deadline */
	FL_OP_ANY,   /* wait-any over the semaphores of `mask` */
	FL_OP_TRY,   /* trywait: never sleeps */
	FL_OP_POST,  /* post: its tokens count once it returns */
};
#define FL_OP_KIND(op) ((unsigned)((op) & 7))

struct fl_watch_thread {
	/* The op in flight (a seqlock of one writer: mask before op). */
	_Atomic uint64_t mask;        /* the semaphores (bit = arena slot) */
	_Atomic uint64_t op;          /* (seq << 3) | kind */
	int tid;
	/* Tokens this thread's returned posts added / its waits took, per
	 * arena slot: each on the thread's own lines. */
	_Alignas(64) _Atomic int64_t posted[FL_SEM_SLOTS];
	_Atomic int64_t taken[FL_SEM_SLOTS];
} __attribute__((aligned(64)));

/* Bumped at every fl_watch_begin/end: a thread's record is valid while the
 * generation it enrolled in is current. */
extern _Atomic unsigned fl_watch_gen;
extern _Thread_local struct fl_watch_thread *fl_watch_me;
extern _Thread_local unsigned fl_watch_me_gen;
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

/* Before the op: publish what it is on. The mask is stored before the op
 * word with release, so a watchdog that reads the op word (acquire), the
 * mask, and the op word again unchanged has the mask of that op. */
static inline uint64_t fl_watch_enter(struct fl_watch_thread *t, uint64_t mask, unsigned kind)
{
	uint64_t op = (atomic_load_explicit(&t->op, memory_order_relaxed) & ~(uint64_t)7) + 8 + kind;
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

#endif
