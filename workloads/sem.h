/* workloads/sem.h — a semaphore instance of a workload and the wrappers
 * every one of its ops goes through (sem.c; included by workload.h).
 *
 * Each wrapper is the stranded-waiter detector's marked op on the
 * instance's design, state and arena slot (stranded/stranded.h): the
 * design's call between the marks that count it, or, with the detector
 * off, the call alone. Inline all the way down: measured, an out-of-line
 * call cost as much as the marks (stranded/README.md). */
#ifndef FUTEXLAB_SEM_H
#define FUTEXLAB_SEM_H

#include <time.h>

#include "stranded/stranded.h"
#include "variants/variant.h"

/* A semaphore instance at a fixed address (a static arena, lowest free slot
 * first: every design of a point runs on the same addresses), on a cache
 * line of its own.
 * fl_sem_wait retries EINTR: not a token. */
struct fl_sem {
	const struct fl_variant *v;
	void *s;
	int id;               /* its arena slot, 0..FL_SEM_SLOTS-1 (the
			       * detector's name for it) */
};
/* The arena's capacity: the most semaphores open at once (--sems' bound):
 * as many as the detector has slots, one for one. */
#define FL_SEM_SLOTS FL_STRANDED_SLOTS
int fl_sem_open(struct fl_sem *m, const struct fl_variant *v, unsigned value);
void fl_sem_close(struct fl_sem *m);
/* n (1..FL_SEM_SLOTS) semaphores m[0..n-1], each of value `value`: 0, or
 * the first error with none of them left open. */
int fl_sems_open(struct fl_sem *m, int n, const struct fl_variant *v, unsigned value);
void fl_sems_close(struct fl_sem *m, int n);

/* Every semaphore op of a workload goes through these wrappers (never
 * v->post/wait/... directly): they keep the stranded-waiter detector's
 * per-thread counts (no shared write added). Return the variant's result.
 * fl_sem_wait retries EINTR (not a token); the others return it. (And
 * fl_sem_post, whose failure goes to an error box: workload.h.) */

/* fl_wait_any (variants/waitany.h) over m[0..n-1] (one variant): the index
 * of the semaphore it took a token from, or a negative errno value
 * (-EINTR is returned, not retried). */
int fl_sem_wait_any(struct fl_sem *m, int n, const struct timespec *abs_deadline);

/* m's value for a workload's invariant check, once no op on it is in
 * flight: the design's getvalue; where it has none (NULL: a C++ peer), the
 * detector's logical value when the rep is watched; else `expected`, so the
 * check passes as not made. */
int fl_sem_value_or(struct fl_sem *m, int expected);

/* The detector's marked ops (stranded/stranded.h) on m's design, state and
 * slot: fl_sem_wait retries EINTR (not a token; each retry a new op for the
 * detector), the others return it. */
static inline int fl_sem_wait(struct fl_sem *m)
{
	return fl_stranded_wait(m->v, m->s, m->id);
}

static inline int fl_sem_trywait(struct fl_sem *m)
{
	return fl_stranded_trywait(m->v, m->s, m->id);
}

static inline int fl_sem_timedwait(struct fl_sem *m, const struct timespec *abs_deadline)
{
	return fl_stranded_timedwait(m->v, m->s, m->id, abs_deadline);
}

/* post(n) without the error box: 0 or the variant's error. */
static inline int fl_sem_post_r(struct fl_sem *m, unsigned n)
{
	return fl_stranded_post(m->v, m->s, m->id, n);
}

#endif
