/* workloads/pingpong.c — two threads, two semaphores, one round trip per op.
 *
 * One op is a round trip: the main thread posts `ping` and waits on `pong`;
 * a partner thread waits on `ping` and posts `pong`. Each half is a handoff
 * to a thread that is (or is about to be) asleep, so this measures a
 * design's sleep/wake path. Invariant checked: no post or wait fails (in
 * either thread), and the final values are 0/0 (every token posted was
 * taken: none lost, none made up). Latency (p->latency): each half trip,
 * from the poster's clock read before its post to the waiter's after its
 * wait — one-way, on CLOCK_MONOTONIC, which is one clock on every CPU. The floors run here too (floors.c says
 * what each one bounds at pingpong and where it does not). */
#include <sched.h>
#include <string.h>

#include "workloads/workload.h"

struct pp {
	struct fl_sem ping, pong;
	_Atomic int stop;
	int err;
	/* Half-trip latency (p->latency): the poster's clock just before its
	 * post, read by the waiter after its wait returns (the semaphore's own
	 * post -> wait ordering publishes it; relaxed is enough, and a design
	 * without that ordering fails the workload's invariants anyway). */
	_Atomic int64_t ping_at, pong_at;
	struct fl_tstats ts;     /* [0] the main thread, [1] the partner */
};

/* A half trip arrives: its latency is from the poster's stamp to now. */
static void pp_arrived(struct fl_tstat *t, _Atomic int64_t *at)
{
	if (t->lat) {
		int64_t now = fl_now_ns();
		fl_tstat_record(t, now, now - atomic_load_explicit(at, memory_order_relaxed));
	}
}

static void pp_stamp(const struct fl_tstat *t, _Atomic int64_t *at)
{
	if (t->lat)
		atomic_store_explicit(at, fl_now_ns(), memory_order_relaxed);
}

static void *pp_partner(void *arg)
{
	struct pp *pp = arg;
	struct fl_tstat *ts = &pp->ts.t[1];
	fl_tstat_start(ts);
	for (;;) {
		if (fl_sem_wait(&pp->ping)) {
			pp->err = 1;
			return NULL;
		}
		if (atomic_load_explicit(&pp->stop, memory_order_acquire))
			return NULL;
		pp_arrived(ts, &pp->ping_at);
		ts->ops++;
		pp_stamp(ts, &pp->pong_at);
		if (fl_sem_post_r(&pp->pong, 1)) {
			pp->err = 1;
			return NULL;
		}
	}
}

static void fl_run_pingpong(const struct fl_variant *v, const struct fl_params *p,
		     struct fl_result *res)
{
	struct pp pp = { .stop = 0 };
	int e = fl_sem_open(&pp.ping, v, 0);
	if (!e && (e = fl_sem_open(&pp.pong, v, 0)))
		fl_sem_close(&pp.ping);
	if (e) {
		fl_fail(res, "init: %s", strerror(e));
		return;
	}
	fl_tstats_open(&pp.ts, 2, p->latency);
	pthread_t t;
	if (pthread_create(&t, NULL, pp_partner, &pp)) {
		fl_fail(res, "pthread_create failed");
		goto out;
	}
	struct fl_tstat *ts = &pp.ts.t[0];
	int64_t n = 0, t0 = fl_now_ns(), end = t0 + p->duration_ns;
	ts->last_ns = t0;
	while (!fl_rep_over(p, n, end)) {
		pp_stamp(ts, &pp.ping_at);
		if (fl_sem_post_r(&pp.ping, 1) || fl_sem_wait(&pp.pong)) {
			fl_fail(res, "post or wait failed");
			break;
		}
		pp_arrived(ts, &pp.pong_at);
		ts->ops = ++n;
	}
	res->elapsed_ns = fl_now_ns() - t0;
	res->ops = n;
	atomic_store_explicit(&pp.stop, 1, memory_order_release);
	fl_sem_post_r(&pp.ping, 1);
	pthread_join(t, NULL);
	fl_tstats_finish(&pp.ts, res); /* both halves' latency; no fairness (equal by design) */
	if (pp.err)
		fl_fail(res, "partner thread saw an error");
	if (fl_sem_value_or(&pp.ping, 0) != 0 || fl_sem_value_or(&pp.pong, 0) != 0)
		fl_fail(res, "final values %d/%d, expected 0/0",
			fl_sem_value_or(&pp.ping, 0), fl_sem_value_or(&pp.pong, 0));
out:
	if (pp.ts.t)
		fl_tstats_finish(&pp.ts, res);
	fl_sem_close(&pp.ping);
	fl_sem_close(&pp.pong);
}

/* registered in workloads/meson.build (workload_names) */
/* floor-atomic spins: on one CPU (--pin 0) its partner runs only when the
 * spinner's timeslice ends, a timeslice a round trip, which bounds nothing
 * and would take minutes of a run. */
static const char *fl_unavailable_pingpong(const struct fl_variant *v, const struct fl_params *p)
{
	(void)p;
	cpu_set_t set;
	if (v == &fl_floor_atomic && sched_getaffinity(0, sizeof set, &set) == 0 &&
	    CPU_COUNT(&set) < 2)
		return "floor-atomic spins: with one CPU allowed its partner waits a timeslice";
	return NULL;
}

const struct fl_workload fl_workload_pingpong = {
	.name = "pingpong",
	.min_blocking = 8000,
	.run = fl_run_pingpong,
	.unavailable = fl_unavailable_pingpong,
	.summary = "two threads, two semaphores: a sleep/wake handoff per half trip",
	.op = "round trip",
	.fixed_threads = 2,
	.has_floors = true,
	.latency = true, /* opt-in: its cost not shown <= 5 % (scripts/latency-cost,
			    workloads/README.md) */
};
