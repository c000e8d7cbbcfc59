/* variants/posix.c — glibc's own sem_t, the peer every comparison includes.
 *
 * INVARIANT  whatever glibc's nptl keeps: on x86-64 one 64-bit word with the
 *   token count in the low 32 bits (the futex word) and the number of
 *   registered waiters in the high 32 (glibc >= 2.21, after bug 12674), plus
 *   the private flag. This file only translates: -1/errno becomes the errno
 *   value, deadlines are absolute CLOCK_MONOTONIC through sem_clockwait
 *   (glibc 2.30+), and post(n) is n sem_post calls, since sem_t has no
 *   multi-token post.
 *
 * post(n) overflow: the value is checked against SEM_VALUE_MAX before the n
 *   posts, so EOVERFLOW leaves the value unchanged unless other threads post
 *   concurrently at the very top of the range (glibc offers no atomic n-post).
 */
#include <errno.h>
#include <limits.h>
#include <semaphore.h>
#include <stdint.h>

#include "variant.h"

static int px_init(void *p, unsigned value, int pshared)
{
	if (value > SEM_VALUE_MAX)
		return EINVAL;
	return sem_init(p, pshared, value) == 0 ? 0 : errno;
}

static void px_destroy(void *p)
{
	sem_destroy(p);
}

static int px_post(void *p, unsigned n)
{
	if (n > 1) {
		int v;
		sem_getvalue(p, &v);
		if (n > (unsigned)SEM_VALUE_MAX || v > SEM_VALUE_MAX - (int)n)
			return EOVERFLOW;
	}
	for (unsigned i = 0; i < n; i++)
		if (sem_post(p) != 0)
			return errno;
	return 0;
}

static int px_wait(void *p)
{
	return sem_wait(p) == 0 ? 0 : errno;
}

static int px_trywait(void *p)
{
	return sem_trywait(p) == 0 ? 0 : errno;
}

static int px_timedwait(void *p, const struct timespec *dl)
{
	if (!dl)
		return px_wait(p);
	/* glibc checks tv_nsec before it tries for a token; the interface takes
	 * an available token first (POSIX allows both). Off the valid path. */
	if (dl->tv_nsec < 0 || dl->tv_nsec >= 1000000000)
		return sem_trywait(p) == 0 ? 0 : EINVAL;
	return sem_clockwait(p, CLOCK_MONOTONIC, dl) == 0 ? 0 : errno;
}

static int px_getvalue(void *p)
{
	int v;
	sem_getvalue(p, &v);
	return v < 0 ? 0 : v;
}

static int px_words(void *p, _Atomic uint32_t **out, int max)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && UINTPTR_MAX == UINT64_MAX
	/* glibc's 64-bit layout: the value (futex word) is the low half of the
	 * first 64-bit word, i.e. its first four bytes on little-endian. */
	if (max < 1)
		return 0;
	out[0] = (_Atomic uint32_t *)p;
	return 1;
#else
	(void)p; (void)out; (void)max;
	return 0;
#endif
}

FL_VARIANT(posix, sem_t,
	.text = "span:libc.so.6:sem_", /* hunt: glibc's sem_*.c code (variant.h) */
	.summary = "glibc's sem_t (nptl): the peer every comparison includes",
	.value_max = SEM_VALUE_MAX,
	.init = px_init, .destroy = px_destroy, .post = px_post, .wait = px_wait,
	.trywait = px_trywait, .timedwait = px_timedwait, .getvalue = px_getvalue,
	.words = px_words);
