/* lib/uring.h — futex waits and wakes submitted through io_uring (6.7+).
 *
 * IORING_OP_FUTEX_WAIT (51), IORING_OP_FUTEX_WAKE (52) and
 * IORING_OP_FUTEX_WAITV (53) are the futex2 operations as ring requests:
 * they take futex2 flags (FUTEX2_SIZE_U32 | FUTEX2_PRIVATE), not FUTEX_* v1
 * op codes. liburing 2.3 has no helpers for them, so uring.c fills the SQE:
 *   fd = futex2 flags, addr = the word, addr2 (off) = expected value (wait)
 *   or how many to wake (wake), addr3 = bitmask (MATCH_ANY; 0 is EINVAL),
 *   len = 0, futex_flags (the rw_flags slot) = 0.   [io_uring/futex.c]
 * For FUTEX_WAITV: addr = struct futex_waitv[], len = n, everything else 0.
 *
 * Same contract as futex.h / waitv.h: errno-valued results, absolute
 * CLOCK_MONOTONIC deadline (NULL: none), spurious returns allowed:
 *   fl_uring_wait  -> 0, EAGAIN, EINTR, ETIMEDOUT, EINVAL (bad tv_nsec);
 *   fl_uring_wake  -> threads woken (>= 0);
 *   fl_uring_waitv -> index woken (>= 0), -EAGAIN, -ETIMEDOUT, -EINTR, -EINVAL.
 * The words are the same kernel futexes: a wake through futex(2), futex2 or
 * the ring reaches a waiter queued through any of them.
 *
 * ONE RING PER THREAD, created on the thread's first call (8 entries, no
 * SQPOLL: the submitting thread itself enters the kernel, as a futex
 * syscall would) and torn down by a pthread key destructor at thread exit.
 * A thread never shares its ring, so no lock is needed around it.
 *
 * DEADLINES: a linked timeout. The wait SQE carries IOSQE_IO_LINK and is
 * followed by IORING_OP_LINK_TIMEOUT with IORING_TIMEOUT_ABS (monotonic is
 * the default clock). Chosen over an absolute-deadline wait for the CQE
 * because (1) the deadline then lives in the kernel beside the wait and the
 * kernel decides the race between wake and timer exactly as futex_wait
 * does: a wake that already dequeued the waiter makes the cancel fail, so
 * the wait completes 0 and no counted wake is lost to a timeout; (2) liburing
 * 2.3's CQE-wait timeouts are relative, which would reintroduce clock drift
 * across retries; (3) a CQE-wait timeout leaves the futex wait armed, which
 * would then need a cancel round trip anyway. Both CQEs are always reaped
 * before returning, so the ring is clean for the next call.
 *
 * EINTR: a signal ends our wait for the CQE (io_uring_enter returns
 * -EINTR), not the futex wait, which is still armed in the ring. The wrapper
 * then cancels it (IORING_OP_ASYNC_CANCEL) and reaps every CQE before
 * returning EINTR — or 0 if the wait had completed by a wake after all.
 *
 * fl_uring_unavailable(): NULL, or why not: built without liburing, io_uring
 * absent or disabled by sysctl (kernel.io_uring_disabled), the futex
 * opcodes not supported, or the kernel rejecting our SQE layout (probed
 * once with a mismatched wait that must complete -EAGAIN).
 * fl_uring_waitv_unavailable() also needs IORING_OP_FUTEX_WAITV. */
#ifndef FUTEXLAB_URING_H
#define FUTEXLAB_URING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lib/waitaddr.h"
#include "lib/waitv.h"

#define FL_IORING_OP_FUTEX_WAIT  51
#define FL_IORING_OP_FUTEX_WAKE  52
#define FL_IORING_OP_FUTEX_WAITV 53

int fl_uring_wait(_Atomic uint32_t *addr, uint32_t expected,
		  const struct timespec *abs_deadline, bool shared);
int fl_uring_wake(_Atomic uint32_t *addr, int n, bool shared);
int fl_uring_waitv(const struct fl_waitv *w, int n, const struct timespec *abs_deadline);
const char *fl_uring_unavailable(void);
/* Operations that ran on the futex2 syscalls instead of the ring because a
 * signal handler made them on top of their thread's own ring use (uring.c,
 * SIGNAL HANDLERS); 0 in a program whose handlers never post. */
unsigned long fl_uring_reentrant(void);
const char *fl_uring_waitv_unavailable(void);

extern const struct fl_waitaddr fl_wa_uring;

#endif
