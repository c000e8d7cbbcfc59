/* lib/futex.h — the classic futex(2) multiplexer, wrapped.
 *
 * The contract (the futex note): fl_futex_wait sleeps only while *addr still holds
 * `expected`, compared by the kernel after the caller is queued, so a wake
 * that changed the word first can never be lost.  It may also return for no
 * reason at all: every caller loops on its own condition.
 *
 * Results are errno values, never -1 with errno:
 *   fl_futex_wait  -> 0 (woken, possibly spuriously), EAGAIN (word differed),
 *                     EINTR (a signal handler ran), ETIMEDOUT (deadline
 *                     passed), EINVAL (bad deadline: tv_nsec out of range).
 *   fl_futex_wake  -> the number of threads woken (>= 0).
 *
 * The deadline is absolute CLOCK_MONOTONIC (FUTEX_WAIT_BITSET with
 * FUTEX_BITSET_MATCH_ANY), NULL meaning no deadline.  A deadline before the
 * epoch of the monotonic clock (negative tv_sec) is already past; it is
 * passed to the kernel as {0, 0} rather than rejected. A deadline so far
 * away the kernel cannot represent it saturates inside the kernel.
 *
 * `shared` selects a process-shared futex (no FUTEX_PRIVATE_FLAG): required
 * when the word lives in memory mapped by several processes; every operation
 * on one word must agree on it, or waiter and waker compute different keys. */
#ifndef FUTEXLAB_FUTEX_H
#define FUTEXLAB_FUTEX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

int fl_futex_wait(_Atomic uint32_t *addr, uint32_t expected,
		  const struct timespec *abs_deadline, bool shared);
int fl_futex_wake(_Atomic uint32_t *addr, int n, bool shared);

#endif
