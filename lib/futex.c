/* lib/futex.c — see futex.h. */
#include "lib/futex.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/waitaddr.h"

int fl_futex_wait(_Atomic uint32_t *addr, uint32_t expected,
		  const struct timespec *abs_deadline, bool shared)
{
	struct timespec ts;
	const struct timespec *tp = NULL;
	if (abs_deadline) {
		if (fl_deadline_for_kernel(abs_deadline, &ts))
			return EINVAL;
		tp = &ts;
	}
	int op = FUTEX_WAIT_BITSET | (shared ? 0 : FUTEX_PRIVATE_FLAG);
	long r = syscall(SYS_futex, addr, op, expected, tp, NULL, FUTEX_BITSET_MATCH_ANY);
	if (r == 0)
		return 0;
	switch (errno) {
	case EAGAIN:
	case EINTR:
	case ETIMEDOUT:
	case EINVAL:
		return errno;
	default:
		/* EFAULT or ENOSYS: a bug in the caller, not a condition to loop on. */
		abort();
	}
}

int fl_futex_wake(_Atomic uint32_t *addr, int n, bool shared)
{
	int op = FUTEX_WAKE | (shared ? 0 : FUTEX_PRIVATE_FLAG);
	long r = syscall(SYS_futex, addr, op, n, NULL, NULL, 0);
	if (r >= 0)
		return (int)r;
	/* EFAULT: a shared wake found no page. A destruction-safe post wakes
	 * after its last access to the semaphore, and the waiter it woke (or
	 * granted) may already have destroyed and unmapped it (POSIX allows
	 * that; glibc BZ 12674): nobody is left to wake. glibc's sem_post
	 * ignores it the same way ("could have happened due to memory reuse").
	 * A private wake never faults: it only hashes the address. */
	if (errno == EFAULT)
		return 0;
	abort(); /* EINVAL: our arguments are wrong */
}

const struct fl_waitaddr fl_wa_futex = {
	.name = "futex", .unavailable = NULL, .wait = fl_futex_wait, .wake = fl_futex_wake,
};
