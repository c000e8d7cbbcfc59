/* workloads/pool.c — `pool` and `oversub`: T threads contend for K tokens.
 *
 * One op is one acquire + release: a worker waits for a token, holds it for
 * --hold ns of busy work, posts it back, then thinks for --think ns of busy
 * work. Invariant checked: never more than K threads hold a token at once
 * (counted around the hold), no wait or post fails, and the final value is
 * K (every token came back).
 *
 * --sems N: N independent semaphores of K tokens each, thread i (in start
 * order) on semaphore i % N — lock-bench's number-of-locks axis; each
 * semaphore and its holder counters on cache lines of their own, so threads
 * of different semaphores share no written line. The checks are then per
 * semaphore: at most K holders of each, each final value K.
 *
 * `oversub` is the same code with more threads than online cores, so token
 * holders get preempted while holding; its unavailable hook skips T <= cores. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workloads/workload.h"

struct pool_sem { /* one semaphore's holder counters, a cache line of their own */
	_Alignas(64) _Atomic int holders;
	_Atomic int max_holders;
	_Atomic int64_t ops;      /* added once per thread, at its end */
};

struct pool {
	struct fl_sem sem[FL_SEM_SLOTS];
	struct pool_sem ps[FL_SEM_SLOTS];
	_Atomic int next_id;      /* start order: thread i uses semaphore i % sems */
	const struct fl_params *p;
	pthread_barrier_t start;
	_Atomic int stop;
	_Atomic int64_t ops;
	_Atomic int err;
	struct fl_tstats ts;      /* per-thread ops, acquire latency */
};

static void *pool_worker(void *arg)
{
	struct pool *pl = arg;
	const struct fl_params *p = pl->p;
	int64_t quota = p->ops ? (p->ops + p->threads - 1) / p->threads : INT64_MAX;
	int64_t n = 0;
	int me = atomic_fetch_add(&pl->next_id, 1), id = me % p->sems;
	struct fl_tstat *ts = &pl->ts.t[me];
	struct fl_sem *sem = &pl->sem[id];
	struct pool_sem *ps = &pl->ps[id];
	pthread_barrier_wait(&pl->start);
	fl_tstat_start(ts);
	while (n < quota && !atomic_load_explicit(&pl->stop, memory_order_relaxed)) {
		int64_t t = fl_tstat_lat_begin(ts);
		if (fl_sem_wait(sem)) {
			atomic_store(&pl->err, 1);
			break;
		}
		fl_tstat_lat_end(ts, t); /* the acquire: the blocking op */
		int h = atomic_fetch_add_explicit(&ps->holders, 1, memory_order_relaxed) + 1;
		int mx = atomic_load_explicit(&ps->max_holders, memory_order_relaxed);
		while (h > mx && !atomic_compare_exchange_weak(&ps->max_holders, &mx, h))
			;
		fl_busy_ns(p->hold_ns);
		atomic_fetch_sub_explicit(&ps->holders, 1, memory_order_relaxed);
		if (fl_sem_post_r(sem, 1)) {
			atomic_store(&pl->err, 1);
			break;
		}
		n++;
		ts->ops = n;
		fl_busy_ns(p->think_ns);
	}
	fl_tstat_stop(ts);
	atomic_fetch_add(&pl->ops, n);
	atomic_fetch_add(&ps->ops, n);
	return NULL;
}

static void fl_run_pool(const struct fl_variant *v, const struct fl_params *p,
		 struct fl_result *res)
{
	struct pool pl = { .p = p };
	int e = fl_sems_open(pl.sem, p->sems, v, (unsigned)p->tokens);
	if (e) {
		fl_fail(res, "init(%d) of %d semaphores: %s", p->tokens, p->sems, strerror(e));
		return;
	}
	fl_tstats_open(&pl.ts, p->threads, p->latency);
	pthread_barrier_init(&pl.start, NULL, (unsigned)p->threads + 1);
	/* (cannot release the barrier short-handed: a failed start exits) */
	pthread_t *t = fl_spawn(p->threads, pool_worker, &pl, 0);
	/* The clock starts before the barrier releases everyone: with --ops on
	 * 2 cores the workers can finish their quota before this thread is
	 * scheduled again, and a clock read after the barrier would miss it. */
	int64_t t0 = fl_now_ns();
	pthread_barrier_wait(&pl.start);
	if (!p->ops) {
		fl_sleep_until(t0 + p->duration_ns);
		atomic_store(&pl.stop, 1);
	}
	/* Every worker exits: tokens are never held across the stop check, so a
	 * worker blocked in wait is released by one that still posts. */
	for (int i = 0; i < p->threads; i++)
		pthread_join(t[i], NULL);
	res->elapsed_ns = fl_now_ns() - t0;
	res->ops = atomic_load(&pl.ops);
	fl_tstats_finish(&pl.ts, res);
	if (atomic_load(&pl.err))
		fl_fail(res, "a worker saw a wait/post error");
	int64_t lo = INT64_MAX, hi = 0;
	for (int i = 0; i < p->sems; i++) {
		int64_t o = atomic_load(&pl.ps[i].ops);
		lo = o < lo ? o : lo;
		hi = o > hi ? o : hi;
		if (atomic_load(&pl.ps[i].max_holders) > p->tokens)
			fl_fail(res, "%d threads held a token of semaphore %d at once with %d tokens",
				atomic_load(&pl.ps[i].max_holders), i, p->tokens);
		if (fl_sem_value_or(&pl.sem[i], p->tokens) != p->tokens)
			fl_fail(res, "semaphore %d: final value %d, expected %d", i,
				fl_sem_value_or(&pl.sem[i], p->tokens), p->tokens);
	}
	if (p->sems > 1) /* how evenly the work spread: the note of an ok row */
		snprintf(res->info, sizeof res->info, "ops per semaphore %lld..%lld",
			 (long long)lo, (long long)hi);
	pthread_barrier_destroy(&pl.start);
	free(t);
	fl_sems_close(pl.sem, p->sems);
}

static const char *fl_unavailable_oversub(const struct fl_variant *v, const struct fl_params *p)
{
	static __thread char why[160];
	(void)v;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (p->threads <= cores) {
		snprintf(why, sizeof why, "oversub needs more threads than the %ld online cores",
			 cores);
		return why;
	}
	return NULL;
}

/* registered in workloads/meson.build (workload_names) */
const struct fl_workload fl_workload_pool = {
	.name = "pool",
	.min_blocking = 8000,
	.run = fl_run_pool,
	.summary = "T threads contend for K tokens with hold/think busy work",
	.op = "acquire+release",
	.uses_tokens = true,
	.busy_work = true,
	.uses_sems = true,
	.fairness = true,
	.latency = true, /* opt-in: two clock reads double a ~100 ns uncontended
			    acquire (scripts/latency-cost, workloads/README.md) */
};

/* registered in workloads/meson.build (workload_names) */
const struct fl_workload fl_workload_oversub = {
	.name = "oversub",
	.min_blocking = 8000,
	.run = fl_run_pool,
	.unavailable = fl_unavailable_oversub,
	.summary = "pool with threads >> cores: holders are preempted holding a token",
	.op = "acquire+release",
	.uses_tokens = true,
	.busy_work = true,
	.uses_sems = true,
	.fairness = true,
	.latency = true, /* opt-in: two clock reads double a ~100 ns uncontended
			    acquire (scripts/latency-cost, workloads/README.md) */
};
