/* lib/futex2.c — see futex2.h. */
#include "lib/futex2.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/waitaddr.h"

#ifdef FL_NR_futex_wait

static unsigned flags_for(bool shared)
{
	return FUTEX2_SIZE_U32 | (shared ? 0 : FUTEX2_PRIVATE);
}

int fl_futex2_wait(_Atomic uint32_t *addr, uint32_t expected,
		   const struct timespec *abs_deadline, bool shared)
{
	struct timespec ts;
	const struct timespec *tp = NULL;
	if (abs_deadline) {
		/* futex2 rejects a negative tv_sec with EINVAL (timespec64_valid) */
		if (fl_deadline_for_kernel(abs_deadline, &ts))
			return EINVAL;
		tp = &ts;
	}
	/* struct timespec is struct __kernel_timespec on x86-64 (64-bit fields). */
	long r = syscall(FL_NR_futex_wait, addr, (unsigned long)expected,
			 (unsigned long)FUTEX_BITSET_MATCH_ANY, flags_for(shared), tp,
			 CLOCK_MONOTONIC);
	if (r == 0)
		return 0;
	switch (errno) {
	case EAGAIN:
	case EINTR:
	case ETIMEDOUT:
	case EINVAL:
		return errno;
	default:
		abort(); /* EFAULT, ENOSYS: a caller bug (unavailable() was not asked) */
	}
}

int fl_futex2_wake(_Atomic uint32_t *addr, int n, bool shared)
{
	long r = syscall(FL_NR_futex_wake, addr, (unsigned long)FUTEX_BITSET_MATCH_ANY, n,
			 flags_for(shared));
	if (r >= 0)
		return (int)r;
	if (errno == EFAULT)
		return 0; /* the semaphore was unmapped after its post (lib/futex.c) */
	abort();
}

static const char *why;

static void probe(void)
{
	_Atomic uint32_t w = 1;
	errno = 0;
	long r = syscall(FL_NR_futex_wake, &w, (unsigned long)FUTEX_BITSET_MATCH_ANY, 1,
			 flags_for(false));
	if (r < 0) {
		why = errno == ENOSYS ? "kernel lacks the futex2 syscalls (futex_wake, Linux 6.7+)"
				      : "futex2 futex_wake rejected its arguments";
		return;
	}
	/* A mismatched value must come back EAGAIN without sleeping. */
	r = syscall(FL_NR_futex_wait, &w, 0UL, (unsigned long)FUTEX_BITSET_MATCH_ANY,
		    flags_for(false), NULL, CLOCK_MONOTONIC);
	if (r != -1 || errno != EAGAIN)
		why = errno == ENOSYS ? "kernel lacks the futex2 syscalls (futex_wait, Linux 6.7+)"
				      : "futex2 futex_wait does not keep the compare contract";
}

const char *fl_futex2_unavailable(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, probe);
	return why;
}

#else /* not x86-64: no syscall numbers known here */

int fl_futex2_wait(_Atomic uint32_t *addr, uint32_t expected,
		   const struct timespec *abs_deadline, bool shared)
{
	(void)addr, (void)expected, (void)abs_deadline, (void)shared;
	abort();
}

int fl_futex2_wake(_Atomic uint32_t *addr, int n, bool shared)
{
	(void)addr, (void)n, (void)shared;
	abort();
}

const char *fl_futex2_unavailable(void)
{
	return "futex2 syscall numbers known only for x86-64 in this build";
}

#endif

const struct fl_waitaddr fl_wa_futex2 = {
	.name = "futex2", .unavailable = fl_futex2_unavailable,
	.wait = fl_futex2_wait, .wake = fl_futex2_wake,
};
