/* workloads/sem.c — what the workload files share: a semaphore instance on
 * the heap (fl_sem_*), the first-error-wins reporting (fl_fail, the error
 * box), and thread start / rep-end helpers. See workload.h. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

/* ---- a semaphore instance at a fixed address ----------------------------- */

/* Every rep's semaphores come from one static arena, lowest free slot
 * first, so every design of a point — and the baseline and its control —
 * runs on the very same addresses. They used to come from the heap, whose
 * layout drifts as the harness keeps each CSV row in memory: the control
 * (the baseline run twice per round) then sat ~3% off the baseline for a
 * stretch of consecutive rounds at uncontended in one A/A sweep and the
 * other way in the next, the signature of an address-dependent cost (4K
 * aliasing, cache-set placement) that a random order cannot average out
 * within one run. A slot is a cache line of its own (two semaphores never
 * share one); every design's state fits 64 bytes (FL_VARIANT asserts it
 * fits a sem_t) and needs no more than 64-byte alignment. */
#define SLOTS FL_SEM_SLOTS
static _Alignas(4096) unsigned char arena[SLOTS][64];
static bool slot_used[SLOTS];
static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;

static void release(void *s)
{
	pthread_mutex_lock(&arena_lock);
	slot_used[((unsigned char (*)[64])s) - arena] = false;
	pthread_mutex_unlock(&arena_lock);
}

int fl_sem_open(struct fl_sem *m, const struct fl_variant *v, unsigned value)
{
	if (v->size > 64 || v->align > 64)
		return EINVAL;
	m->v = v;
	m->s = NULL;
	pthread_mutex_lock(&arena_lock);
	for (int i = 0; i < SLOTS && !m->s; i++)
		if (!slot_used[i]) {
			slot_used[i] = true;
			m->s = arena[i];
		}
	pthread_mutex_unlock(&arena_lock);
	if (!m->s)
		return ENOMEM;
	memset(m->s, 0, 64);
	int r = v->init(m->s, value, 0);
	if (r) {
		release(m->s);
		m->s = NULL;
	}
	return r;
}

void fl_sem_close(struct fl_sem *m)
{
	if (m->s) {
		m->v->destroy(m->s);
		release(m->s);
		m->s = NULL;
	}
}

int fl_sems_open(struct fl_sem *m, int n, const struct fl_variant *v, unsigned value)
{
	for (int i = 0; i < n; i++) {
		int e = fl_sem_open(&m[i], v, value);
		if (e) {
			fl_sems_close(m, i);
			return e;
		}
	}
	return 0;
}

void fl_sems_close(struct fl_sem *m, int n)
{
	for (int i = 0; i < n; i++)
		fl_sem_close(&m[i]);
}

/* EINTR is not a token: a benchmark thread just waits again. */
int fl_sem_wait(struct fl_sem *m)
{
	int r;
	while ((r = m->v->wait(m->s)) == EINTR)
		;
	return r;
}

void fl_sem_post(struct fl_sem *m, unsigned n, struct fl_errbox *e)
{
	int r = m->v->post(m->s, n);
	if (r)
		fl_report(e, "post(%u): %s", n, strerror(r));
}

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
void fl_report(struct fl_errbox *e, const char *fmt, ...)
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
