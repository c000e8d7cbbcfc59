/* variants/negcount.h — negcount's algorithm over any wait-on-address
 * backend, for the designs that differ from negcount only in what they
 * sleep on (portable fallback, futex2, io_uring). The invariant and the
 * correctness argument are in negcount.c. */
#ifndef FUTEXLAB_NEGCOUNT_H
#define FUTEXLAB_NEGCOUNT_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "lib/waitaddr.h"

#define FL_NEGCOUNT_MAX ((1 << 29) - 1)

struct fl_negcount {
	/* The word waiters sleep on, first and 8-byte aligned: with `node`
	 * after it, a FUTEX2_NUMA pair (lib/numa.h) for the designs that sleep
	 * on one (numa.c, numa-pin.c, mpol.c); the others never read `node`. */
	alignas(8) _Atomic uint32_t grants;
	_Atomic uint32_t node;
	_Atomic int32_t count;
	uint8_t shared;
	/* The sleeping backend, as an index into a table in negcount.c — never
	 * a pointer: a process-shared state must mean the same in every
	 * process that maps it, and after exec (another address space, another
	 * load address of the code) a stored pointer is garbage. */
	uint8_t backend;
};

/* The backend of s (aborts on an index no init wrote). */
const struct fl_waitaddr *fl_negcount_wa(const struct fl_negcount *s);

int fl_negcount_init_on(void *s, unsigned value, int pshared, const struct fl_waitaddr *wa);
void fl_negcount_destroy(void *s);
int fl_negcount_post(void *s, unsigned n);
/* A capacity instead of an overflow (the negative-counter note's capped
 * semaphore, lock1): adds min(n, cap - count) tokens with a CAS loop, so the
 * count never exceeds cap however many releases race; the rest is absorbed,
 * result 0. */
int fl_negcount_post_capped(void *s, unsigned n, int32_t cap);
int fl_negcount_wait(void *s);
int fl_negcount_trywait(void *s);
int fl_negcount_timedwait(void *s, const struct timespec *abs_deadline);
int fl_negcount_getvalue(void *s);
int fl_negcount_words(void *s, _Atomic uint32_t **out, int max);
/* n post(1)+wait pairs, the fast paths inlined (variant.h, .pairs). */
struct fl_variant;
int fl_negcount_pairs(const struct fl_variant *v, void *s, int64_t n);

/* The performance mutants' hooks (variants/perf_wake_all.c calls the one,
 * perf_resleep.c the other: negcount with one known cost added, every
 * other line shared): post_herd wakes every sleeper on the grants word
 * where negcount wakes the k claims it resolved; timedwait_resleep sleeps
 * once more, up to resleep_ns, after each wake (negcount.c says how it
 * stays correct). Each is negcount's own code with a constant knob, so
 * negcount compiles to what it was. */
int fl_negcount_post_herd(void *s, unsigned n);
int fl_negcount_timedwait_resleep(void *s, const struct timespec *abs_deadline, int64_t resleep_ns);

/* The FUTEX2_NUMA designs (numa.c, where the argument is; numa-pin.c,
 * mpol.c): init refuses a state whose pair is not 8-byte aligned and
 * writes `node`; post refuses a `node` the kernel would refuse before it
 * adds anything (EINVAL, the reason in lib/numa.h's fl_futex2_numa_why). */
int fl_numa_init_on(void *s, unsigned value, int pshared, const struct fl_waitaddr *wa,
		    uint32_t node);
int fl_numa_post(void *s, unsigned n);

/* The descriptor fields every negcount-based variant shares; _BUT_POST for
 * a design with a post of its own. */
#define FL_NEGCOUNT_OPS_BUT_POST                                               \
	.value_max = FL_NEGCOUNT_MAX, .destroy = fl_negcount_destroy,          \
	.wait = fl_negcount_wait,                                              \
	.trywait = fl_negcount_trywait, .timedwait = fl_negcount_timedwait,    \
	.getvalue = fl_negcount_getvalue, .words = fl_negcount_words
#define FL_NEGCOUNT_OPS FL_NEGCOUNT_OPS_BUT_POST, .post = fl_negcount_post, \
	.pairs = fl_negcount_pairs

#endif
