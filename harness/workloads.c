/* harness/workloads.c — the workloads. Each drives semaphores only through
 * the variant interface and checks the invariant it can see (final values,
 * the pool's holder count), so a broken design shows up as an error row,
 * not as a fast number. */
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "waitany_workload.h"
#include "workload.h"
#include "workloads_more.h"

/* ---- a semaphore instance on the heap, correctly aligned ---------------- */

int fl_sem_open(struct fl_sem *m, const struct fl_variant *v, unsigned value)
{
	size_t align = v->align < sizeof(void *) ? sizeof(void *) : v->align;
	size_t size = (v->size + align - 1) / align * align;
	/* A cache line of its own, so two semaphores never share one. */
	if (align < 64)
		align = 64, size = (size + 63) / 64 * 64;
	m->v = v;
	m->s = aligned_alloc(align, size);
	if (!m->s)
		return ENOMEM;
	memset(m->s, 0, size);
	int r = v->init(m->s, value, 0);
	if (r) {
		free(m->s);
		m->s = NULL;
	}
	return r;
}

void fl_sem_close(struct fl_sem *m)
{
	if (m->s) {
		m->v->destroy(m->s);
		free(m->s);
		m->s = NULL;
	}
}

/* EINTR is not a token: a benchmark thread just waits again. */
int fl_sem_wait(struct fl_sem *m)
{
	int r;
	while ((r = m->v->wait(m->s)) == EINTR)
		;
	return r;
}

static void fail(struct fl_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fail(struct fl_result *r, const char *fmt, ...)
{
	va_list ap;
	if (r->error[0])
		return; /* keep the first */
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof r->error, fmt, ap);
	va_end(ap);
}

/* Duration mode checks the clock once per this many ops. */
#define CLOCK_EVERY 256

/* ---- uncontended: one thread, post + wait pairs ----------------------- */

static void run_uncontended(const struct fl_variant *v, const struct fl_params *p,
			    struct fl_result *res)
{
	struct fl_sem m;
	int e = fl_sem_open(&m, v, 0);
	if (e) {
		fail(res, "init: %s", strerror(e));
		return;
	}
	int64_t n = 0, t0 = fl_now_ns(), end = t0 + p->duration_ns;
	for (;;) {
		if (p->ops ? n >= p->ops : (n % CLOCK_EVERY == 0 && fl_now_ns() >= end))
			break;
		int a = v->post(m.s, 1), b = fl_sem_wait(&m);
		if (a || b) {
			fail(res, "post=%s wait=%s", strerror(a), strerror(b));
			break;
		}
		n++;
	}
	res->elapsed_ns = fl_now_ns() - t0;
	res->ops = n;
	if (v->getvalue(m.s) != 0)
		fail(res, "final value %d, expected 0", v->getvalue(m.s));
	fl_sem_close(&m);
}

/* ---- pingpong: two threads, two semaphores, one round trip per op ------ */

struct pp {
	struct fl_sem ping, pong;
	_Atomic int stop;
	int err;
};

static void *pp_partner(void *arg)
{
	struct pp *pp = arg;
	for (;;) {
		if (fl_sem_wait(&pp->ping)) {
			pp->err = 1;
			return NULL;
		}
		if (atomic_load_explicit(&pp->stop, memory_order_acquire))
			return NULL;
		if (pp->pong.v->post(pp->pong.s, 1)) {
			pp->err = 1;
			return NULL;
		}
	}
}

static void run_pingpong(const struct fl_variant *v, const struct fl_params *p,
			 struct fl_result *res)
{
	struct pp pp = { .stop = 0 };
	int e = fl_sem_open(&pp.ping, v, 0);
	if (!e && (e = fl_sem_open(&pp.pong, v, 0)))
		fl_sem_close(&pp.ping);
	if (e) {
		fail(res, "init: %s", strerror(e));
		return;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, pp_partner, &pp)) {
		fail(res, "pthread_create failed");
		goto out;
	}
	int64_t n = 0, t0 = fl_now_ns(), end = t0 + p->duration_ns;
	for (;;) {
		if (p->ops ? n >= p->ops : (n % CLOCK_EVERY == 0 && fl_now_ns() >= end))
			break;
		if (v->post(pp.ping.s, 1) || fl_sem_wait(&pp.pong)) {
			fail(res, "post or wait failed");
			break;
		}
		n++;
	}
	res->elapsed_ns = fl_now_ns() - t0;
	res->ops = n;
	atomic_store_explicit(&pp.stop, 1, memory_order_release);
	v->post(pp.ping.s, 1);
	pthread_join(t, NULL);
	if (pp.err)
		fail(res, "partner thread saw an error");
	if (v->getvalue(pp.ping.s) != 0 || v->getvalue(pp.pong.s) != 0)
		fail(res, "final values %d/%d, expected 0/0",
		     v->getvalue(pp.ping.s), v->getvalue(pp.pong.s));
out:
	fl_sem_close(&pp.ping);
	fl_sem_close(&pp.pong);
}

/* ---- pool: T threads contend for K tokens ----------------------------- */

struct pool {
	struct fl_sem sem;
	const struct fl_params *p;
	pthread_barrier_t start;
	_Atomic int stop;
	_Atomic int holders;
	_Atomic int max_holders;
	_Atomic int64_t ops;
	_Atomic int err;
};

static void *pool_worker(void *arg)
{
	struct pool *pl = arg;
	const struct fl_params *p = pl->p;
	int64_t quota = p->ops ? (p->ops + p->threads - 1) / p->threads : INT64_MAX;
	int64_t n = 0;
	pthread_barrier_wait(&pl->start);
	while (n < quota && !atomic_load_explicit(&pl->stop, memory_order_relaxed)) {
		if (fl_sem_wait(&pl->sem)) {
			atomic_store(&pl->err, 1);
			break;
		}
		int h = atomic_fetch_add_explicit(&pl->holders, 1, memory_order_relaxed) + 1;
		int mx = atomic_load_explicit(&pl->max_holders, memory_order_relaxed);
		while (h > mx && !atomic_compare_exchange_weak(&pl->max_holders, &mx, h))
			;
		fl_busy_ns(p->hold_ns);
		atomic_fetch_sub_explicit(&pl->holders, 1, memory_order_relaxed);
		if (pl->sem.v->post(pl->sem.s, 1)) {
			atomic_store(&pl->err, 1);
			break;
		}
		n++;
		fl_busy_ns(p->think_ns);
	}
	atomic_fetch_add(&pl->ops, n);
	return NULL;
}

static void run_pool(const struct fl_variant *v, const struct fl_params *p,
		     struct fl_result *res)
{
	struct pool pl = { .p = p };
	int e = fl_sem_open(&pl.sem, v, (unsigned)p->tokens);
	if (e) {
		fail(res, "init(%d): %s", p->tokens, strerror(e));
		return;
	}
	pthread_t *t = calloc((size_t)p->threads, sizeof *t);
	pthread_barrier_init(&pl.start, NULL, (unsigned)p->threads + 1);
	int started = 0;
	for (; started < p->threads; started++)
		if (pthread_create(&t[started], NULL, pool_worker, &pl))
			break;
	if (started < p->threads) {
		/* Cannot release the barrier short-handed: report and leave. */
		fprintf(stderr, "futexlab: pthread_create failed at thread %d\n", started);
		exit(1);
	}
	/* The clock starts before the barrier releases everyone: with --ops on
	 * 2 cores the workers can finish their quota before this thread is
	 * scheduled again, and a clock read after the barrier would miss it. */
	int64_t t0 = fl_now_ns();
	pthread_barrier_wait(&pl.start);
	if (!p->ops) {
		struct timespec dl = fl_ns_to_ts(t0 + p->duration_ns);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl, NULL) == EINTR)
			;
		atomic_store(&pl.stop, 1);
	}
	/* Every worker exits: tokens are never held across the stop check, so a
	 * worker blocked in wait is released by one that still posts. */
	for (int i = 0; i < p->threads; i++)
		pthread_join(t[i], NULL);
	res->elapsed_ns = fl_now_ns() - t0;
	res->ops = atomic_load(&pl.ops);
	if (atomic_load(&pl.err))
		fail(res, "a worker saw a wait/post error");
	if (atomic_load(&pl.max_holders) > p->tokens)
		fail(res, "%d threads held a token at once with %d tokens",
		     atomic_load(&pl.max_holders), p->tokens);
	if (v->getvalue(pl.sem.s) != p->tokens)
		fail(res, "final value %d, expected %d", v->getvalue(pl.sem.s), p->tokens);
	pthread_barrier_destroy(&pl.start);
	free(t);
	fl_sem_close(&pl.sem);
}

const struct fl_workload fl_workloads[] = {
	{ "uncontended", "one thread, post(1)+wait pairs: the fast path", "post+wait",
	  1, false, true, run_uncontended },
	{ "pingpong", "two threads, two semaphores: a sleep/wake handoff per half trip",
	  "round trip", 2, false, true, run_pingpong },
	{ "pool", "T threads contend for K tokens with hold/think busy work",
	  "acquire+release", 0, true, false, run_pool },
	{ "prodcons", "bounded buffer: empty/full/mutex semaphores, T/2 producers, K slots",
	  "item through the buffer", 0, true, false, fl_run_prodcons },
	{ "barrier", "T threads cross a two-turnstile barrier; the last releases all with post(T)",
	  "phase", 0, false, false, fl_run_barrier },
	{ "timeouts", "T threads timedwait 50-150us while one token is posted per 100us",
	  "timedwait call", 0, false, false, fl_run_timeouts },
	{ "oversub", "pool with threads >> cores: holders are preempted holding a token",
	  "acquire+release", 0, true, false, run_pool },
	{ "waitany", "T/2 producers post to random semaphores of 4, the rest wait on all 4 (wait-any)",
	  "token handed over", 0, false, false, fl_run_waitany },
};
const int fl_nworkloads = sizeof fl_workloads / sizeof fl_workloads[0];

const struct fl_workload *fl_workload_find(const char *name)
{
	for (int i = 0; i < fl_nworkloads; i++)
		if (strcmp(fl_workloads[i].name, name) == 0)
			return &fl_workloads[i];
	return NULL;
}
