/* workloads/waitany.c — `waitany`: producers post to random
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
 * returned) + final value; any other wait-any result is an error.
 * Fairness: tokens taken per consumer.
 * Not every variant can run it (its unavailable hook): it needs wait-any support
 * (fl_wait_any_unsupported says why not) and T >= 2. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "variants/waitany.h"   /* variants/ */
#include "workloads/workload.h"

#define FL_WA_SEMS 4
#define BACKLOG 1024

struct wa {
	const struct fl_variant *v;
	const struct fl_params *p;
	struct fl_sem sem[FL_WA_SEMS];
	int producers;
	pthread_barrier_t start;
	_Atomic int stop;
	_Atomic int64_t posted[FL_WA_SEMS], taken[FL_WA_SEMS];
	_Atomic int64_t posted_all, taken_all;
	_Atomic int64_t real_total; /* -1 while producing */
	struct fl_errbox err;
	_Atomic int next_id;
	struct fl_tstats ts;        /* consumers: tokens each took (fairness) */
};

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
		int e = fl_sem_post_r(&w->sem[i], 1);
		if (e) {
			atomic_fetch_sub_explicit(&w->posted[i], 1, memory_order_relaxed);
			fl_fail_box(&w->err, "post: %s", strerror(e));
			break;
		}
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct wa *w = arg;
	struct fl_tstat *ts = &w->ts.t[atomic_fetch_add(&w->next_id, 1)];
	pthread_barrier_wait(&w->start);
	for (;;) {
		int r = fl_sem_wait_any(w->sem, FL_WA_SEMS, NULL);
		if (r == -EINTR)
			continue;
		if (r < 0 || r >= FL_WA_SEMS) {
			fl_fail_box(&w->err, "wait_any: %s", strerror(r < 0 ? -r : EINVAL));
			return NULL;
		}
		atomic_fetch_add_explicit(&w->taken[r], 1, memory_order_relaxed);
		/* seq_cst ticket and real_total: see the exit argument above. */
		int64_t t = atomic_fetch_add(&w->taken_all, 1);
		int64_t real = atomic_load(&w->real_total);
		if (real >= 0 && t >= real)
			return NULL; /* the extra token: not a share */
		ts->ops++;
	}
}

static int open_set(struct wa *w)
{
	for (int i = 0; i < FL_WA_SEMS; i++) {
		int e = fl_sem_open(&w->sem[i], w->v, 0);
		if (e)
			return e;
	}
	return 0;
}

static void close_set(struct wa *w)
{
	for (int i = 0; i < FL_WA_SEMS; i++)
		fl_sem_close(&w->sem[i]);
}

static void fl_run_waitany(const struct fl_variant *v, const struct fl_params *p,
		    struct fl_result *res)
{
	struct wa *w = calloc(1, sizeof *w);
	if (!w) {
		fl_fail(res, "out of memory");
		return;
	}
	w->v = v;
	w->p = p;
	atomic_init(&w->real_total, -1);
	int e = open_set(w);
	if (e) {
		fl_fail(res, "init: %s", strerror(e));
		close_set(w);
		free(w);
		return;
	}
	int threads = p->threads < 2 ? 2 : p->threads;
	w->producers = threads / 2;
	int consumers = threads - w->producers;
	fl_tstats_open(&w->ts, consumers, false);
	pthread_barrier_init(&w->start, NULL, (unsigned)threads + 1);
	pthread_t *cons = fl_spawn(consumers, consumer, w, 0);
	pthread_t *prod = fl_spawn(w->producers, producer, w, 0);
	pthread_barrier_wait(&w->start);
	int64_t t0 = fl_now_ns();
	if (!p->ops) {
		fl_sleep_until(t0 + p->duration_ns);
		atomic_store(&w->stop, 1);
	}
	for (int i = 0; i < w->producers; i++)
		pthread_join(prod[i], NULL);
	int64_t real = 0;
	for (int i = 0; i < FL_WA_SEMS; i++)
		real += atomic_load(&w->posted[i]);
	atomic_store(&w->real_total, real);
	for (int c = 0; c < consumers; c++) {
		atomic_fetch_add(&w->posted[c % FL_WA_SEMS], 1);
		if (fl_sem_post_r(&w->sem[c % FL_WA_SEMS], 1))
			fl_fail_box(&w->err, "post: %s", strerror(EOVERFLOW));
	}
	for (int i = 0; i < consumers; i++)
		pthread_join(cons[i], NULL);
	res->elapsed_ns = fl_now_ns() - t0;
	res->ops = real;
	fl_tstats_finish(&w->ts, res);
	fl_take_error(res, &w->err);
	for (int i = 0; i < FL_WA_SEMS && !res->error[0]; i++) {
		int64_t fin = fl_sem_value_or(&w->sem[i], (int)(atomic_load(&w->posted[i]) -
								atomic_load(&w->taken[i])));
		if (atomic_load(&w->posted[i]) != atomic_load(&w->taken[i]) + fin)
			fl_fail(res, "semaphore %d: posted %lld != taken %lld + final %lld", i,
				(long long)atomic_load(&w->posted[i]),
				(long long)atomic_load(&w->taken[i]), (long long)fin);
	}
	pthread_barrier_destroy(&w->start);
	free(prod);
	free(cons);
	close_set(w);
	free(w);
}

static const char *fl_unavailable_waitany(const struct fl_variant *v, const struct fl_params *p)
{
	if (p->threads < 2)
		return "waitany needs >= 2 threads (a producer and a consumer)";
	return fl_wait_any_unsupported(v); /* NULL when v supports it */
}

/* registered in workloads/meson.build (workload_names) */
const struct fl_workload fl_workload_waitany = {
	.name = "waitany",
	.min_blocking = 8000,
	.run = fl_run_waitany,
	.unavailable = fl_unavailable_waitany,
	.summary = "T/2 producers post to random semaphores of 4, the rest wait on all 4 (wait-any)",
	.op = "token handed over",
	.fairness = true,
};
