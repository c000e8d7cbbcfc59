/* workloads/barrier.c — the wake-all case of the negative-counter note.
 *
 * T threads cross a reusable two-turnstile barrier; the last to arrive
 * releases all T with one post(T), so --wake decides whether that is one
 * exact wake, T wake-one calls or a wake-all. One op is one phase (all T
 * threads crossed). Checked: between the turnstiles every thread sees
 * exactly (phase+1)*T units of work done (no thread ran ahead or was left
 * behind), final values 0. Posting T tokens at once needs T <= the
 * variant's value_max (its unavailable hook). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

struct bar {
	struct fl_sem t1, t2;
	int T;
	const struct fl_params *p;
	_Atomic int64_t end_ns;   /* INT64_MAX until the clock starts */
	pthread_barrier_t start;
	_Atomic int a1, a2;       /* arrivals at each turnstile */
	_Atomic int64_t work;     /* units of work done, one per thread per phase */
	_Atomic int stop;
	_Atomic int64_t phases;
	struct fl_errbox err;
};

static void *bar_worker(void *arg)
{
	struct bar *b = arg;
	const int64_t T = b->T;
	pthread_barrier_wait(&b->start);
	for (int64_t k = 0;; k++) {
		atomic_fetch_add_explicit(&b->work, 1, memory_order_relaxed);
		/* The last to arrive decides whether this phase is the last, then
		 * releases everyone: the decision reaches every thread through the
		 * two turnstiles' post -> wait (each a release -> acquire). */
		if (atomic_fetch_add(&b->a1, 1) + 1 == T) {
			atomic_store_explicit(&b->a1, 0, memory_order_relaxed);
			atomic_store_explicit(&b->phases, k + 1, memory_order_relaxed);
			if (b->p->ops ? k + 1 >= b->p->ops
				      : fl_now_ns() >= atomic_load_explicit(&b->end_ns,
									     memory_order_relaxed))
				atomic_store_explicit(&b->stop, 1, memory_order_release);
			fl_sem_post(&b->t1, (unsigned)T, &b->err);
		}
		fl_sem_wait(&b->t1);
		/* Between the turnstiles nobody can have started phase k+1 (that
		 * needs all T past t2, and we are not) and everybody has done
		 * phase k's work (t1 opens only after all T arrived). */
		int64_t w = atomic_load_explicit(&b->work, memory_order_relaxed);
		if (w != (k + 1) * T)
			fl_fail_box(&b->err, "phase %lld: %lld units of work done between the "
				 "turnstiles, expected %lld", (long long)k, (long long)w,
				 (long long)((k + 1) * T));
		if (atomic_fetch_add(&b->a2, 1) + 1 == T) {
			atomic_store_explicit(&b->a2, 0, memory_order_relaxed);
			fl_sem_post(&b->t2, (unsigned)T, &b->err);
		}
		fl_sem_wait(&b->t2);
		/* Only the shared decision ends the loop: a thread leaving on its
		 * own would strand the others at the next turnstile. */
		if (atomic_load_explicit(&b->stop, memory_order_acquire))
			break;
	}
	return NULL;
}

static void fl_run_barrier(const struct fl_variant *v, const struct fl_params *p,
		    struct fl_result *res)
{
	struct bar b = { .T = p->threads, .p = p };
	int e = fl_sem_open(&b.t1, v, 0);
	if (!e && (e = fl_sem_open(&b.t2, v, 0)) != 0)
		fl_sem_close(&b.t1);
	if (e) {
		fl_fail(res, "init: %s", strerror(e));
		return;
	}
	atomic_init(&b.end_ns, INT64_MAX);
	pthread_barrier_init(&b.start, NULL, (unsigned)b.T + 1);
	pthread_t *t = fl_spawn(b.T, bar_worker, &b, 0);
	pthread_barrier_wait(&b.start);
	int64_t t0 = fl_now_ns();
	atomic_store_explicit(&b.end_ns, t0 + p->duration_ns, memory_order_relaxed);
	for (int i = 0; i < b.T; i++)
		pthread_join(t[i], NULL);
	res->elapsed_ns = fl_now_ns() - t0;
	res->ops = atomic_load(&b.phases);
	if (fl_sem_value_or(&b.t1, 0) != 0 || fl_sem_value_or(&b.t2, 0) != 0)
		fl_fail_box(&b.err, "final values %d/%d, expected 0/0", fl_sem_value_or(&b.t1, 0),
			 fl_sem_value_or(&b.t2, 0));
	fl_take_error(res, &b.err);
	pthread_barrier_destroy(&b.start);
	free(t);
	fl_sem_close(&b.t1);
	fl_sem_close(&b.t2);
}

static const char *fl_unavailable_barrier(const struct fl_variant *v, const struct fl_params *p)
{
	static __thread char why[160];
	if (p->threads <= v->value_max)
		return NULL;
	snprintf(why, sizeof why, "barrier posts %d tokens at once, above the variant's "
		 "maximum %d", p->threads, v->value_max);
	return why;
}

/* registered in workloads/meson.build (workload_names) */
const struct fl_workload fl_workload_barrier = {
	.name = "barrier",
	.min_blocking = 8000,
	.run = fl_run_barrier,
	.unavailable = fl_unavailable_barrier,
	.summary = "T threads cross a two-turnstile barrier; the last releases all with post(T)",
	.op = "phase",
};
