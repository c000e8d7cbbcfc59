/* lib/waitv.c — see waitv.h. */
#include "lib/waitv.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/futex2.h"

/* The 6.1 uapi headers have both; older ones get them here (layout from
 * include/uapi/linux/futex.h, checked below). */
#ifndef __NR_futex_waitv
#define __NR_futex_waitv 449
#endif
#ifndef FUTEX_32
#define FUTEX_32 2
struct futex_waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t __reserved;
};
#endif
_Static_assert(sizeof(struct futex_waitv) == 24, "futex_waitv ABI is 24 bytes");

static void fill(struct futex_waitv *k, const struct fl_waitv *w, int n)
{
	for (int i = 0; i < n; i++)
		k[i] = (struct futex_waitv){
			.val = w[i].expected,
			.uaddr = (uint64_t)(uintptr_t)w[i].addr,
			.flags = FUTEX2_SIZE_U32 | (w[i].shared ? 0 : FUTEX2_PRIVATE),
		};
}

int fl_futex_waitv(const struct fl_waitv *w, int n, const struct timespec *abs_deadline)
{
	if (n < 1 || n > FL_WAITV_MAX)
		return -EINVAL;
	struct timespec ts;
	const struct timespec *tp = NULL;
	if (abs_deadline) {
		if (!fl_ts_valid(abs_deadline))
			return -EINVAL;
		ts = *abs_deadline;
		if (ts.tv_sec < 0) /* the kernel rejects it; it is simply past */
			ts.tv_sec = 0, ts.tv_nsec = 0;
		tp = &ts;
	}
	struct futex_waitv k[FL_WAITV_MAX];
	fill(k, w, n);
	long r = syscall(__NR_futex_waitv, k, (unsigned)n, 0u, tp, CLOCK_MONOTONIC);
	if (r >= 0)
		return (int)r;
	switch (errno) {
	case EAGAIN:
	case EINTR:
	case ETIMEDOUT:
	case EINVAL:
		return -errno;
	default:
		abort(); /* EFAULT, ENOSYS, ENOMEM: not a condition to loop on */
	}
}

static const char *why;

static void probe(void)
{
	_Atomic uint32_t a = 1, b = 2;
	struct fl_waitv w[2] = { { &a, 1, false }, { &b, 0, false } };
	struct futex_waitv k[2];
	fill(k, w, 2);
	long r = syscall(__NR_futex_waitv, k, 2u, 0u, NULL, CLOCK_MONOTONIC);
	if (r == -1 && errno == ENOSYS)
		why = "kernel lacks futex_waitv (Linux 5.16+)";
	else if (r != -1 || errno != EAGAIN)
		why = "futex_waitv does not keep the compare contract";
}

const char *fl_waitv_unavailable(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, probe);
	return why;
}
