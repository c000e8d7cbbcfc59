/* variants/sem_api.h — the POSIX sem_t API behind variant.h, for the designs
 * that are a libc's own sem_t: glibc.c and musl_libc.c (musl, in the
 * musl-gcc build). Whichever libc the including file is compiled against is
 * the one called; each file keeps its own timedwait (the libcs differ in the
 * clocks they take) and words.
 *
 * Translation only: -1/errno becomes the errno value; post(n) is n sem_post
 * calls after a SEM_VALUE_MAX check (sem_t has no multi-token post), so
 * EOVERFLOW leaves the value unchanged unless other threads post
 * concurrently at the very top of the range. */
#ifndef FUTEXLAB_SEM_API_H
#define FUTEXLAB_SEM_API_H

#include <errno.h>
#include <limits.h>
#include <semaphore.h>

static inline int fl_sem_api_init(void *p, unsigned value, int pshared)
{
	if (value > SEM_VALUE_MAX)
		return EINVAL;
	return sem_init(p, pshared, value) == 0 ? 0 : errno;
}

static inline void fl_sem_api_destroy(void *p)
{
	sem_destroy(p);
}

static inline int fl_sem_api_post(void *p, unsigned n)
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

static inline int fl_sem_api_wait(void *p)
{
	return sem_wait(p) == 0 ? 0 : errno;
}

static inline int fl_sem_api_trywait(void *p)
{
	return sem_trywait(p) == 0 ? 0 : errno;
}

/* A deadline whose tv_nsec is out of range: the interface takes an available
 * token first (POSIX allows both; glibc checks tv_nsec first). */
static inline int fl_sem_api_bad_deadline(void *p)
{
	return sem_trywait(p) == 0 ? 0 : EINVAL;
}

/* Waiters are not value: a negative reading (a libc that counts them) is 0. */
static inline int fl_sem_api_getvalue(void *p)
{
	int v;
	sem_getvalue(p, &v);
	return v < 0 ? 0 : v;
}

#endif
