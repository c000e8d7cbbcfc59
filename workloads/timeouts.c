/* workloads/timeouts.c — the release-vs-timeout race under load.
 *
 * T threads call timedwait with 50-150 us deadlines while the main thread
 * posts one token every 100 us (far fewer tokens than waiters ask for). One
 * op is one timedwait call (success or timeout). Checked: tokens are
 * conserved (posts == successes + final value: a token released into a
 * timing-out waiter is taken or left, never lost or doubled) and no timeout
 * returns before its deadline. Fairness: tokens taken per thread (who gets
 * the scarce tokens), not calls; latency: every timedwait call, token or
 * timeout; starvation: the longest gap between a thread's tokens. A capped design is not posted to at its
 * maximum (it would absorb the post). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

#define TO_MIN_NS    50000   /* deadlines 50..150 us ahead */
#define TO_SPREAD_NS 100000
#define TO_PERIOD_NS 100000  /* one post per 100 us */

struct to {
	struct fl_sem sem;
	const struct fl_params *p;
	_Atomic int stop;
	_Atomic int64_t calls, ok, timeouts;
	pthread_barrier_t start;
	struct fl_errbox err;
	_Atomic int next_id;
	struct fl_tstats ts;    /* ops = tokens taken; latency = every timedwait */
};

static void *to_waiter(void *arg)
{
	struct to *t = arg;
	uint64_t rnd = (uint64_t)(uintptr_t)&rnd ^ (uint64_t)fl_now_ns();
	int64_t ok = 0, tmo = 0;
	struct fl_tstat *ts = &t->ts.t[atomic_fetch_add(&t->next_id, 1)];
	pthread_barrier_wait(&t->start);
	fl_tstat_start(ts);
	do { /* at least one call each (see prodcons.c's pc_producer) */
		if (t->p->ops && atomic_fetch_add(&t->calls, 1) >= t->p->ops)
			break;
		rnd = rnd * 6364136223846793005u + 1442695040888963407u;
		int64_t dl_ns = fl_now_ns() + TO_MIN_NS + (int64_t)((rnd >> 33) % TO_SPREAD_NS);
		struct timespec dl = fl_ns_to_ts(dl_ns);
		int64_t begin = fl_tstat_lat_begin(ts);
		int r = fl_sem_timedwait(&t->sem, &dl);
		if (ts->lat) { /* every call's time; starvation counts tokens only */
			int64_t now = fl_now_ns();
			fl_hist_add(ts->lat, now - begin);
			if (r == 0)
				fl_tstat_done(ts, now);
		}
		if (r == 0)
			ts->ops = ++ok;
		else if (r == ETIMEDOUT) {
			int64_t now = fl_now_ns();
			if (now < dl_ns)
				fl_fail_box(&t->err, "timedwait timed out %lld ns before its deadline",
					 (long long)(dl_ns - now));
			tmo++;
		} else if (r != EINTR) {
			fl_fail_box(&t->err, "timedwait: %s", strerror(r));
			break;
		}
	} while (!atomic_load_explicit(&t->stop, memory_order_relaxed));
	fl_tstat_stop(ts);
	atomic_fetch_add(&t->ok, ok);
	atomic_fetch_add(&t->timeouts, tmo);
	return NULL;
}

static void fl_run_timeouts(const struct fl_variant *v, const struct fl_params *p,
		     struct fl_result *res)
{
	struct to t = { .p = p };
	int e = fl_sem_open(&t.sem, v, 0);
	if (e) {
		fl_fail(res, "init: %s", strerror(e));
		return;
	}
	fl_tstats_open(&t.ts, p->threads, p->latency);
	pthread_barrier_init(&t.start, NULL, (unsigned)p->threads + 1);
	pthread_t *th = fl_spawn(p->threads, to_waiter, &t, 0);
	pthread_barrier_wait(&t.start);
	int64_t t0 = fl_now_ns(), posts = 0;
	/* Posts stay sparse even when the poster is starved (T waiters on few
	 * cores): a missed period is dropped, not made up with a burst, and the
	 * rep ends by the clock, not by a count of posts. */
	for (int64_t next = t0 + TO_PERIOD_NS;;) {
		fl_sleep_until(next);
		int64_t now = fl_now_ns();
		if (p->ops ? atomic_load(&t.calls) >= p->ops : now >= t0 + p->duration_ns)
			break;
		/* A capped design (FL_CAPPED, e.g. lock1) absorbs a post at its
		 * maximum and returns 0: that post is no token, and counting it
		 * broke conservation at random (whenever no waiter had taken the
		 * last token yet). This thread is the only poster, so a value read
		 * below the maximum cannot rise before the post; it can only fall. */
		if (!(v->flags & FL_CAPPED) || fl_sem_value_or(&t.sem, 0) < v->value_max) {
			fl_sem_post(&t.sem, 1, &t.err);
			posts++;
		}
		next += TO_PERIOD_NS;
		if (next <= now)
			next = now + TO_PERIOD_NS;
	}
	atomic_store(&t.stop, 1);
	for (int i = 0; i < p->threads; i++)
		pthread_join(th[i], NULL);
	res->elapsed_ns = fl_now_ns() - t0;
	int64_t ok = atomic_load(&t.ok), tmo = atomic_load(&t.timeouts);
	res->ops = ok + tmo;
	fl_tstats_finish(&t.ts, res);
	int left = fl_sem_value_or(&t.sem, (int)(posts - atomic_load(&t.ok)));
	if (posts != ok + left)
		fl_fail_box(&t.err, "tokens not conserved: %lld posted, %lld taken, %d left "
			 "(%lld timeouts)", (long long)posts, (long long)ok, left, (long long)tmo);
	fl_take_error(res, &t.err);
	snprintf(res->info, sizeof res->info, "%lld posted, %lld taken, %lld timed out", (long long)posts,
		 (long long)ok, (long long)tmo);
	pthread_barrier_destroy(&t.start);
	free(th);
	fl_sem_close(&t.sem);
}

/* registered in workloads/meson.build (workload_names) */
const struct fl_workload fl_workload_timeouts = {
	.name = "timeouts",
	.min_blocking = 1000,
	.run = fl_run_timeouts,
	.summary = "T threads timedwait 50-150us while one token is posted per 100us",
	.op = "timedwait call",
	.fairness = true,
	.latency = true,
	.latency_default = true,
};
