/* workloads/workload.c — what the workload files share besides their
 * semaphores (sem.c): the first-error-wins reporting (fl_fail, the error
 * box, a post whose failure goes to one), and thread start / rep-end
 * helpers. See workload.h. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "workloads/sem.h"
#include "workloads/workload.h"

/* ---- first error wins ------------------------------------------------------ */

void fl_fail(struct fl_result *r, const char *fmt, ...)
{
	va_list ap;
	if (r->error[0])
		return; /* keep the first */
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof r->error, fmt, ap);
	va_end(ap);
}

/* Threads report through this, the main thread copies it out. */
void fl_fail_box(struct fl_errbox *e, const char *fmt, ...)
{
	int expect = 0;
	if (!atomic_compare_exchange_strong(&e->set, &expect, 1))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
}

void fl_take_error(struct fl_result *r, struct fl_errbox *e)
{
	if (atomic_load(&e->set))
		fl_fail(r, "%s", e->msg);
}

/* A post through the wrapper (sem.h); a failure goes to the box. */
void fl_sem_post(struct fl_sem *m, unsigned n, struct fl_errbox *e)
{
	int r = fl_sem_post_r(m, n);
	if (r)
		fl_fail_box(e, "post(%u): %s", n, strerror(r));
}

/* ---- threads and time -------------------------------------------------------- */

void fl_sleep_until(int64_t t_ns)
{
	struct timespec dl = fl_ns_to_ts(t_ns);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl, NULL) == EINTR)
		;
}

pthread_t *fl_spawn(int n, void *(*fn)(void *), void *arg, size_t argsize)
{
	pthread_t *t = calloc((size_t)n, sizeof *t);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, (char *)arg + (size_t)i * argsize)) {
			fprintf(stderr, "futexlab: pthread_create failed at thread %d\n", i);
			exit(1);
		}
	return t;
}
