/* variants/glibc.c — glibc's own sem_t, the peer every comparison includes.
 *
 * INVARIANT  whatever glibc's nptl keeps: on x86-64 one 64-bit word with the
 *   token count in the low 32 bits (the futex word) and the number of
 *   registered waiters in the high 32 (glibc >= 2.21, after bug 12674), plus
 *   the private flag. This file only translates: -1/errno becomes the errno
 *   value, deadlines are absolute CLOCK_MONOTONIC through sem_clockwait
 *   (glibc 2.30+), and post(n) is n sem_post calls, since sem_t has no
 *   multi-token post (sem_api.h, shared with musl_libc.c).
 */
#include <errno.h>
#include <limits.h>
#include <semaphore.h>
#include <stdint.h>

#include "variants/policy.h"
#include "variants/sem_api.h"
#include "variants/variant.h"

static int glibc_timedwait(void *p, const struct timespec *dl)
{
	if (!dl)
		return fl_sem_api_wait(p);
	if (dl->tv_nsec < 0 || dl->tv_nsec >= 1000000000)
		return fl_sem_api_bad_deadline(p);
	return sem_clockwait(p, CLOCK_MONOTONIC, dl) == 0 ? 0 : errno;
}

static int glibc_words(void *p, _Atomic uint32_t **out, int max)
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

/* sem_post and sem_wait called directly, through the PLT as any program
 * calls them (variant.h, .pairs). */
FL_PAIRS(glibc_pairs, fl_sem_api_post, fl_sem_api_wait, fl_sem_api_trywait)

FL_VARIANT(glibc, sem_t,
	.text = "span:libc.so.6:sem_", /* hunt: glibc's sem_*.c code (variant.h) */
	.summary = "glibc's sem_t (nptl): the peer every comparison includes",
	.own_policy = "parks at once: one try, then FUTEX_WAIT_BITSET (no spin)",
	.value_max = SEM_VALUE_MAX,
	.init = fl_sem_api_init, .destroy = fl_sem_api_destroy, .post = fl_sem_api_post,
	.wait = fl_sem_api_wait, .trywait = fl_sem_api_trywait, .timedwait = glibc_timedwait,
	.getvalue = fl_sem_api_getvalue,
	.words = glibc_words, .pairs = glibc_pairs);
