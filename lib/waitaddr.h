/* lib/waitaddr.h — wait-on-address backends.
 *
 * A design sleeps on a 32-bit word through one of these, chosen explicitly
 * by the variant (never by accident of the build): the classic futex(2)
 * here, and — in their own files — the futex2 syscalls, io_uring futex
 * operations, and the negative-counter note's portable mutex+condvar fallback.
 * Each keeps the futex contract of futex.h: wait returns 0 (possibly spurious),
 * EAGAIN, EINTR, ETIMEDOUT or EINVAL, with an absolute CLOCK_MONOTONIC
 * deadline; wake returns the number woken. */
#ifndef FUTEXLAB_WAITADDR_H
#define FUTEXLAB_WAITADDR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct fl_waitaddr {
	const char *name;
	/* NULL when usable on the running kernel, else why not. */
	const char *(*unavailable)(void);
	int (*wait)(_Atomic uint32_t *addr, uint32_t expected,
		    const struct timespec *abs_deadline, bool shared);
	int (*wake)(_Atomic uint32_t *addr, int n, bool shared);
};

/* futex(2): FUTEX_WAIT_BITSET with an absolute deadline, FUTEX_WAKE. */
extern const struct fl_waitaddr fl_wa_futex;

#endif
