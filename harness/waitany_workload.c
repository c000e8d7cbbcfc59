/* harness/waitany_workload.c — `waitany`: producers post to random
 * semaphores of a set of FL_WA_SEMS, consumers take tokens with
 * fl_wait_any over the whole set (variants/waitany.h).
 *
 * --threads T: T/2 producers (at least 1) and the rest consumers (at least
 * 1). One op is one token posted and taken. Producers stay at most
 * BACKLOG tokens ahead of the consumers, so a long run cannot overflow a
 * semaphore. Ending: once the producers stop, the main thread posts one
 * extra token per consumer; consumers count their takes with a shared
 * ticket and leave on the first ticket past the real total, so each finds
 * exactly one (no timeouts, no polling at the end).
 * Checks, per semaphore: posted == taken from it (by the index wait-any
 * returned) + final value; any other wait-any result is an error. */
#include "waitany_workload.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "waitany.h"

#define FL_WA_SEMS 4
#define BACKLOG 1024

/* The one workload so far that not every variant can run. */
struct wa {
	const struct fl_variant *v;
	const struct fl_params *p;
	void *s[FL_WA_SEMS];
	int producers;
	pthread_barrier_t start;
	_Atomic int stop;
	_Atomic int64_t posted[FL_WA_SEMS], taken[FL_WA_SEMS];
	_Atomic int64_t posted_all, taken_all;
	_Atomic int64_t real_total; /* -1 while producing */
	_Atomic int err;
	char why[120];
};

static void wa_fail(struct wa *w, const char *what, int e)
{
	int z = 0;
	if (atomic_compare_exchange_strong(&w->err, &z, 1))
		snprintf(w->why, sizeof w->why, "%s: %s", what, strerror(e < 0 ? -e : e));
}

static void *producer(void *arg)
{
	struct wa *w = arg;
	const struct fl_params *p = w->p;
	int64_t quota = p->ops ? (p->ops + w->producers - 1) / w->producers : INT64_MAX;
	uint64_t x = (uint64_t)(uintptr_t)&x ^ (uint64_t)fl_now_ns();
	pthread_barrier_wait(&w->start);
	for (int64_t n = 0; n < quota; n++) {
		if (!p->ops && atomic_load_explicit(&w->stop, memory_order_relaxed))
			break;
		/* Backlog bound: relaxed reads, a hint only (never a correctness need). */
		while (atomic_load_explicit(&w->posted_all, memory_order_relaxed) -
		       atomic_load_explicit(&w->taken_all, memory_order_relaxed) > BACKLOG &&
		       !atomic_load_explicit(&w->stop, memory_order_relaxed))
			sched_yield();
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int i = (int)(x % FL_WA_SEMS);
		atomic_fetch_add_explicit(&w->posted[i], 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&w->posted_all, 1, memory_order_relaxed);
		int e = w->v->post(w->s[i], 1);
		if (e) {
			atomic_fetch_sub_explicit(&w->posted[i], 1, memory_order_relaxed);
			wa_fail(w, "post", e);
			break;
		}
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct wa *w = arg;
	pthread_barrier_wait(&w->start);
	for (;;) {
		int r = fl_wait_any(w->v, w->s, FL_WA_SEMS, NULL);
		if (r == -EINTR)
			continue;
		if (r < 0 || r >= FL_WA_SEMS) {
			wa_fail(w, "wait_any", r < 0 ? r : EINVAL);
			return NULL;
		}
		atomic_fetch_add_explicit(&w->taken[r], 1, memory_order_relaxed);
		/* seq_cst ticket and real_total: see the exit argument above. */
		int64_t t = atomic_fetch_add(&w->taken_all, 1);
		int64_t real = atomic_load(&w->real_total);
		if (real >= 0 && t >= real)
			return NULL;
	}
}

static int open_set(struct wa *w)
{
	size_t sz = (w->v->size + 63) / 64 * 64;
	for (int i = 0; i < FL_WA_SEMS; i++) {
		w->s[i] = aligned_alloc(64, sz); /* a cache line each */
		if (!w->s[i])
			return ENOMEM;
		memset(w->s[i], 0, sz);
		int e = w->v->init(w->s[i], 0, 0);
		if (e) {
			free(w->s[i]);
			w->s[i] = NULL;
			return e;
		}
	}
	return 0;
}

static void close_set(struct wa *w)
{
	for (int i = 0; i < FL_WA_SEMS; i++)
		if (w->s[i]) {
			w->v->destroy(w->s[i]);
			free(w->s[i]);
		}
}

void fl_run_waitany(const struct fl_variant *v, const struct fl_params *p,
		    struct fl_result *res)
{
	struct wa *w = calloc(1, sizeof *w);
	if (!w) {
		snprintf(res->error, sizeof res->error, "out of memory");
		return;
	}
	w->v = v;
	w->p = p;
	atomic_init(&w->real_total, -1);
	int e = open_set(w);
	if (e) {
		snprintf(res->error, sizeof res->error, "init: %s", strerror(e));
		close_set(w);
		free(w);
		return;
	}
	int threads = p->threads < 2 ? 2 : p->threads;
	w->producers = threads / 2;
	int consumers = threads - w->producers;
	pthread_t *t = calloc((size_t)threads, sizeof *t);
	pthread_barrier_init(&w->start, NULL, (unsigned)threads + 1);
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, i < consumers ? consumer : producer, w)) {
			fprintf(stderr, "futexlab: pthread_create failed at thread %d\n", i);
			exit(1);
		}
	pthread_barrier_wait(&w->start);
	int64_t t0 = fl_now_ns();
	if (!p->ops) {
		struct timespec dl = fl_ns_to_ts(t0 + p->duration_ns);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl, NULL) == EINTR)
			;
		atomic_store(&w->stop, 1);
	}
	for (int i = consumers; i < threads; i++)
		pthread_join(t[i], NULL);
	int64_t real = 0;
	for (int i = 0; i < FL_WA_SEMS; i++)
		real += atomic_load(&w->posted[i]);
	atomic_store(&w->real_total, real);
	for (int c = 0; c < consumers; c++) {
		atomic_fetch_add(&w->posted[c % FL_WA_SEMS], 1);
		if (v->post(w->s[c % FL_WA_SEMS], 1))
			wa_fail(w, "post", EOVERFLOW);
	}
	for (int i = 0; i < consumers; i++)
		pthread_join(t[i], NULL);
	res->elapsed_ns = fl_now_ns() - t0;
	res->ops = real;
	if (atomic_load(&w->err))
		snprintf(res->error, sizeof res->error, "%s", w->why);
	for (int i = 0; i < FL_WA_SEMS && !res->error[0]; i++) {
		int64_t fin = v->getvalue(w->s[i]);
		if (atomic_load(&w->posted[i]) != atomic_load(&w->taken[i]) + fin)
			snprintf(res->error, sizeof res->error,
				 "semaphore %d: posted %lld != taken %lld + final %lld", i,
				 (long long)atomic_load(&w->posted[i]),
				 (long long)atomic_load(&w->taken[i]), (long long)fin);
	}
	pthread_barrier_destroy(&w->start);
	free(t);
	close_set(w);
	free(w);
}
