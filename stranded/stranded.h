/* stranded/stranded.h — the stranded-waiter detector: its rep bracket, the
 * per-thread record, the inline marks a semaphore op makes around the
 * design's call, and the marked ops themselves (the fl_sem_* wrappers of
 * workloads/sem.h are these). The argument for this layout (what it costs,
 * why no shared write) and the rule are at the top of stranded.c;
 * stranded/README.md is the guide.
 *
 * The detector knows semaphores by slot (0..FL_STRANDED_SLOTS-1, the
 * caller's name for one; workloads/ uses its arena slot) and designs by
 * their variant (variants/variant.h: the rescue posts through it), nothing
 * of the workloads.
 *
 * Invariant: a record is written by its own thread only; `posted[s]` and
 * `taken[s]` only grow; `op` holds seq << 10 | FL_OP_SET | slot << 3 | kind,
 * seq +1 per op entered, kind FL_OP_NONE once the op's counts are in; an op
 * on one semaphore names its slot in the word itself (one store), a
 * wait-any sets FL_OP_SET and its semaphores are `mask`, stored first. */
#ifndef FUTEXLAB_STRANDED_H
#define FUTEXLAB_STRANDED_H

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "variants/policy.h"
#include "variants/variant.h"

/* The slots a rep may have open at once (a slot is a bit of a wait-any's
 * 64-bit mask, and 6 bits of the op word). */
#define FL_STRANDED_SLOTS 64

/* The signal the rescue sends to a stranded thread (its handler does
 * nothing and is installed without SA_RESTART, so the futex sleep returns
 * EINTR and the design's wait loop re-checks). Others must not use it. */
#define FL_STRANDED_SIGNAL SIGURG

/* The first stranding's evidence: sized so that "lost wakeup: " and it fit
 * a 200-byte error line. */
#define FL_STRANDED_NOTE 186

/* ---- the rep bracket --------------------------------------------------------
 *
 * fl_stranded_begin(threshold) before the rep's threads make their first op
 * (0: off — every op then costs a thread-local read and a compare),
 * fl_stranded_end after they are joined (always). Between the two, a
 * watchdog thread samples the counts the marks below keep. Not reentrant:
 * one bracket at a time. */
void fl_stranded_begin(int64_t threshold_ns);

struct fl_stranded_findings {
	/* Waiters found stranded (a lost wakeup); -1: not watched (detector
	 * off, no op to judge, or the rep's threads outgrew the records). */
	int64_t stranded;
	int64_t max_ns;              /* the longest stranding seen */
	int tid;                     /* the first one's thread id (0: none) */
	char note[FL_STRANDED_NOTE]; /* the first one's evidence ("" : none) */
	int64_t taken;               /* the note's "- N taken": tokens taken from
				      * the first one's semaphore up to its
				      * confirmation */
};
void fl_stranded_end(struct fl_stranded_findings *rep);

/* Called by the watchdog with a stranded thread's id at the moment it is
 * confirmed, while the thread still sleeps, before the rescue (the probes
 * set it, through workloads/, to snapshot the kernel's view of that
 * thread). NULL: none. Must not block for long. */
extern void (*volatile fl_stranded_on_confirm)(int tid);

/* A semaphore opened in slot `slot` with `value` tokens (v and s: the
 * rescue's post), and closed: the caller serialises them per slot. */
void fl_stranded_opened(int slot, const struct fl_variant *v, void *s, unsigned value);
void fl_stranded_closed(int slot);
/* Slot's logical value (initial + posted - taken) into *value, once no op
 * on it is in flight: false when the rep is not watched, outgrew the
 * records, or the slot is not open. */
bool fl_stranded_value(int slot, int64_t *value);

/* ---- the marks: around every op ---------------------------------------- */

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
 * one %fs-relative load, not a __tls_get_addr call (the detector is linked
 * into executables, never dlopen'ed). */
#define FL_STRANDED_TLS __attribute__((tls_model("initial-exec")))

struct fl_stranded_thread {
	/* The op in flight (for a wait-any, a seqlock of one writer: mask
	 * before op). */
	_Atomic uint64_t op;          /* see above */
	_Atomic uint64_t mask;        /* a wait-any's semaphores (bit = slot) */
	int tid;
	/* Tokens this thread's returned posts added / its waits took, per
	 * slot: each on the thread's own lines. */
	_Alignas(64) _Atomic int64_t posted[FL_STRANDED_SLOTS];
	_Atomic int64_t taken[FL_STRANDED_SLOTS];
} __attribute__((aligned(64)));

/* Bumped at every fl_stranded_begin/end: a thread's record is valid while
 * the generation it enrolled in is current. */
extern _Atomic unsigned fl_stranded_gen __attribute__((visibility("hidden")));
extern _Thread_local struct fl_stranded_thread *fl_stranded_me FL_STRANDED_TLS;
extern _Thread_local unsigned fl_stranded_me_gen FL_STRANDED_TLS;
/* The calling thread's record for this rep (NULL: detector off). */
struct fl_stranded_thread *fl_stranded_enroll(void);

static inline struct fl_stranded_thread *fl_stranded_self(void)
{
	if (fl_stranded_me_gen == atomic_load_explicit(&fl_stranded_gen, memory_order_relaxed))
		return fl_stranded_me;
	return fl_stranded_enroll();
}

/* The next op word (a new seq) for `low` (slot and kind, or FL_OP_SET). */
static inline uint64_t fl_stranded_next(struct fl_stranded_thread *t, uint64_t low)
{
	return ((atomic_load_explicit(&t->op, memory_order_relaxed) | (FL_OP_SEQ - 1)) + 1) | low;
}

/* Before an op on one semaphore (slot `slot`): publish it. */
static inline uint64_t fl_stranded_enter(struct fl_stranded_thread *t, int slot, unsigned kind)
{
	uint64_t op = fl_stranded_next(t, (uint64_t)slot << 3 | kind);
	atomic_store_explicit(&t->op, op, memory_order_release);
	return op;
}

/* Before a wait-any: the mask is stored before the op word with release, so
 * a watchdog that reads the op word (acquire), the mask, and the op word
 * again unchanged has the mask of that op. */
static inline uint64_t fl_stranded_enter_set(struct fl_stranded_thread *t, uint64_t mask,
					     unsigned kind)
{
	uint64_t op = fl_stranded_next(t, FL_OP_SET | kind);
	atomic_store_explicit(&t->mask, mask, memory_order_relaxed);
	atomic_store_explicit(&t->op, op, memory_order_release);
	return op;
}

/* A count on the thread's own line: a load and a store, no locked RMW (one
 * writer). */
static inline void fl_stranded_add(_Atomic int64_t *c, int64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* After the op's count: the op is over (release: the count first). */
static inline void fl_stranded_leave(struct fl_stranded_thread *t, uint64_t op)
{
	atomic_store_explicit(&t->op, op & ~(uint64_t)7, memory_order_release);
}

/* ---- the marked ops: design v's call on s (in slot `slot`) -----------------
 *
 * Each brackets the call with the marks above: enter (what the op is on),
 * the call, the count of what it did (a token taken, tokens posted — a post
 * counts once it has returned), leave. A wait's call is fl_wait /
 * fl_timedwait (variants/policy.h): the design's wait under the process's
 * waiting policy, so the re-tries a policy makes before the design's wait
 * are inside the op — one op, one token at most, whoever of the re-tries
 * and the wait took it; a waiter re-trying is running, never asleep, so
 * the rule (stranded.c) never counts it stranded. With the detector off
 * fl_stranded_self is NULL and the call is all there is. Inline: measured,
 * an out-of-line call cost as much as the marks (stranded/README.md). They
 * return the design's result. */

/* EINTR is not a token: a benchmark thread just waits again (each retry is
 * a new op for the detector: the rescue's signal ends a stranded wait). */
static inline int fl_stranded_wait(const struct fl_variant *v, void *s, int slot)
{
	struct fl_stranded_thread *t = fl_stranded_self();
	int r;
	if (!t) {
		while ((r = fl_wait(v, s)) == EINTR)
			;
		return r;
	}
	do {
		uint64_t op = fl_stranded_enter(t, slot, FL_OP_WAIT);
		r = fl_wait(v, s);
		if (!r)
			fl_stranded_add(&t->taken[slot], 1);
		fl_stranded_leave(t, op);
	} while (r == EINTR);
	return r;
}

static inline int fl_stranded_trywait(const struct fl_variant *v, void *s, int slot)
{
	struct fl_stranded_thread *t = fl_stranded_self();
	if (!t)
		return v->trywait(s);
	uint64_t op = fl_stranded_enter(t, slot, FL_OP_TRY);
	int r = v->trywait(s);
	if (!r)
		fl_stranded_add(&t->taken[slot], 1);
	fl_stranded_leave(t, op);
	return r;
}

static inline int fl_stranded_timedwait(const struct fl_variant *v, void *s, int slot,
					const struct timespec *abs_deadline)
{
	struct fl_stranded_thread *t = fl_stranded_self();
	if (!t)
		return fl_timedwait(v, s, abs_deadline);
	uint64_t op = fl_stranded_enter(t, slot, FL_OP_TIMED);
	int r = fl_timedwait(v, s, abs_deadline);
	if (!r)
		fl_stranded_add(&t->taken[slot], 1);
	fl_stranded_leave(t, op);
	return r;
}

static inline int fl_stranded_post(const struct fl_variant *v, void *s, int slot, unsigned n)
{
	struct fl_stranded_thread *t = fl_stranded_self();
	if (!t)
		return v->post(s, n);
	uint64_t op = fl_stranded_enter(t, slot, FL_OP_POST);
	int r = v->post(s, n);
	if (!r)
		fl_stranded_add(&t->posted[slot], n);
	fl_stranded_leave(t, op);
	return r;
}

#endif
