/* lib/portable.h — the negative-counter note's wait-on-address for "the
 * platforms with nothing underneath": one process-wide mutex and condition
 * variable serve every address.
 *
 * It keeps the futex contract of waitaddr.h, with these specifics:
 *   wait   0 when a wake dequeued it (never spuriously: an unrelated
 *          broadcast sends it back to sleep), EAGAIN when *addr != expected
 *          at entry, ETIMEDOUT at the absolute CLOCK_MONOTONIC deadline,
 *          EINVAL for tv_nsec out of range. Never EINTR: a condition
 *          variable is not interrupted by a signal handler.
 *   wake   the exact number of waiters it dequeued from addr (oldest
 *          first), as FUTEX_WAKE reports: it keeps its own list of waiters
 *          per address, so the count is not a guess.
 *   shared must be false: the mutex lives in this process, so it cannot
 *          serve waiters in another one. A shared call aborts (a caller
 *          bug); variants built on it refuse pshared with ENOTSUP.
 *
 * The choice is explicit, never accidental: nothing in lib/ selects a
 * backend, there is no fallback path from futex to this one; a variant names
 * &fl_wa_portable in its own file (variants/portable.c) or it is not used. */
#ifndef FUTEXLAB_PORTABLE_H
#define FUTEXLAB_PORTABLE_H

#include "lib/waitaddr.h"

extern const struct fl_waitaddr fl_wa_portable;

int fl_portable_wait(_Atomic uint32_t *addr, uint32_t expected,
		     const struct timespec *abs_deadline, bool shared);
int fl_portable_wake(_Atomic uint32_t *addr, int n, bool shared);

#endif
