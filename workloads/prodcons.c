/* workloads/prodcons.c — the textbook note's bounded buffer.
 *
 * `empty` (B slots), `full` (0 items) and `mutex` (1) semaphores, P = T/2
 * producers and C = T - P consumers, capacity B = --tokens. Items are
 * (producer, seq); the ring is FIFO and only touched inside `mutex`, so
 * consumers must see each producer's items in order, each exactly once — a
 * consumer checks that under the mutex, and at the end every producer's last
 * item has arrived. Also checked: never two threads inside `mutex`, never a
 * producer into a full ring nor a consumer into an empty one, final values
 * B/0/1. One op is one item through the buffer. Fairness: items put by each
 * producer and taken by each consumer, one share per thread. Latency: an
 * item's, from the start of its producer's put (before the wait on
 * `empty`) to a consumer's taking it. Needs a producer and a
 * consumer: T >= 2 (its unavailable hook). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

#define PC_SEQ_BITS 40
#define PC_POISON   INT64_MIN

struct pc {
	struct fl_sem empty, full, mutex;
	int cap, nprod;
	int64_t *ring;            /* ring, born, head, count, next: only inside mutex */
	int64_t *born;            /* per slot: when its item's put began (latency) */
	int head, count;
	int64_t *next;            /* per producer: the next seq a consumer must see */
	int64_t *made;            /* per producer: items produced (own slot) */
	int64_t quota;            /* per producer in --ops mode, else INT64_MAX */
	_Atomic int inside;
	_Atomic int stop;
	_Atomic int64_t consumed;
	pthread_barrier_t start;  /* every thread is running before the clock starts */
	struct fl_errbox err;
	struct fl_tstats ts;      /* producers 0..nprod-1, then consumers */
};

struct pc_arg {
	struct pc *pc;
	int id;
};

static void pc_enter(struct pc *pc)
{
	fl_sem_wait(&pc->mutex);
	if (atomic_fetch_add_explicit(&pc->inside, 1, memory_order_relaxed) != 0)
		fl_fail_box(&pc->err, "two threads inside the mutex semaphore at once");
}

static void pc_leave(struct pc *pc)
{
	atomic_fetch_sub_explicit(&pc->inside, 1, memory_order_relaxed);
	fl_sem_post(&pc->mutex, 1, &pc->err);
}

/* Inserts one item (producer side of the textbook note's protocol), born at `born`
 * (latency: from here to a consumer's taking it; 0 when not timing). */
static void pc_put(struct pc *pc, int64_t item, int64_t born)
{
	fl_sem_wait(&pc->empty);
	pc_enter(pc);
	if (pc->count == pc->cap) {
		fl_fail_box(&pc->err, "empty let a producer into a full buffer (capacity %d)", pc->cap);
	} else {
		pc->ring[(pc->head + pc->count) % pc->cap] = item;
		pc->born[(pc->head + pc->count) % pc->cap] = born;
		pc->count++;
	}
	pc_leave(pc);
	fl_sem_post(&pc->full, 1, &pc->err);
}

static void *pc_producer(void *arg)
{
	struct pc_arg *a = arg;
	struct pc *pc = a->pc;
	struct fl_tstat *ts = &pc->ts.t[a->id];
	int64_t seq = 0;
	pthread_barrier_wait(&pc->start);
	fl_tstat_start(ts);
	/* At least one item each, so a rep whose threads a loaded machine ran
	 * late still measures something instead of "no operation". */
	do {
		int64_t born = fl_tstat_lat_begin(ts);
		if (seq && born) /* the previous put's end, near enough: one clock read */
			fl_tstat_done(ts, born);
		pc_put(pc, ((int64_t)a->id << PC_SEQ_BITS) | seq++, born);
		ts->ops = seq;
	} while (seq < pc->quota && !atomic_load_explicit(&pc->stop, memory_order_relaxed));
	fl_tstat_stop(ts);
	pc->made[a->id] = seq;
	return NULL;
}

static void *pc_consumer(void *arg)
{
	struct pc *pc = ((struct pc_arg *)arg)->pc;
	struct fl_tstat *ts = &pc->ts.t[pc->nprod + ((struct pc_arg *)arg)->id];
	int64_t n = 0;
	pthread_barrier_wait(&pc->start);
	fl_tstat_start(ts);
	for (;;) {
		fl_sem_wait(&pc->full);
		pc_enter(pc);
		if (pc->count == 0) {
			fl_fail_box(&pc->err, "full let a consumer into an empty buffer");
			pc_leave(pc);
			fl_sem_post(&pc->empty, 1, &pc->err);
			break;
		}
		int64_t item = pc->ring[pc->head], born = pc->born[pc->head];
		pc->head = (pc->head + 1) % pc->cap;
		pc->count--;
		if (item != PC_POISON) {
			int p = (int)(item >> PC_SEQ_BITS);
			int64_t seq = item & ((INT64_C(1) << PC_SEQ_BITS) - 1);
			if (p < 0 || p >= pc->nprod)
				fl_fail_box(&pc->err, "item from unknown producer %d", p);
			else {
				if (seq != pc->next[p])
					fl_fail_box(&pc->err, "producer %d: item %lld arrived, expected %lld "
						 "(lost, duplicated or reordered)", p, (long long)seq,
						 (long long)pc->next[p]);
				pc->next[p] = seq + 1;
			}
		}
		pc_leave(pc);
		fl_sem_post(&pc->empty, 1, &pc->err);
		if (item == PC_POISON)
			break;
		fl_tstat_lat_end(ts, born); /* the item's way through the buffer */
		ts->ops = ++n;
	}
	fl_tstat_stop(ts);
	atomic_fetch_add(&pc->consumed, n);
	return NULL;
}

static void fl_run_prodcons(const struct fl_variant *v, const struct fl_params *p,
		     struct fl_result *res)
{
	if (p->threads < 2) {
		fl_fail(res, "prodcons needs --threads >= 2");
		return;
	}
	struct pc pc = { .cap = p->tokens, .nprod = p->threads / 2 };
	int ncons = p->threads - pc.nprod;
	pc.quota = p->ops ? (p->ops + pc.nprod - 1) / pc.nprod : INT64_MAX;
	int e = fl_sem_open(&pc.empty, v, (unsigned)pc.cap);
	if (!e && (e = fl_sem_open(&pc.full, v, 0)) == 0 && (e = fl_sem_open(&pc.mutex, v, 1)) != 0)
		fl_sem_close(&pc.full);
	if (e) {
		fl_sem_close(&pc.empty);
		fl_fail(res, "init: %s", strerror(e));
		return;
	}
	pc.ring = calloc((size_t)pc.cap, sizeof *pc.ring);
	pc.born = calloc((size_t)pc.cap, sizeof *pc.born);
	fl_tstats_open(&pc.ts, p->threads, p->latency);
	pc.next = calloc((size_t)pc.nprod, sizeof *pc.next);
	pc.made = calloc((size_t)pc.nprod, sizeof *pc.made);
	struct pc_arg *args = calloc((size_t)p->threads, sizeof *args);
	for (int i = 0; i < p->threads; i++)
		args[i] = (struct pc_arg){ &pc, i < pc.nprod ? i : i - pc.nprod };
	pthread_barrier_init(&pc.start, NULL, (unsigned)p->threads + 1);
	pthread_t *cons = fl_spawn(ncons, pc_consumer, args + pc.nprod, sizeof *args);
	pthread_t *prod = fl_spawn(pc.nprod, pc_producer, args, sizeof *args);
	pthread_barrier_wait(&pc.start);
	int64_t t0 = fl_now_ns();
	if (!p->ops) {
		fl_sleep_until(t0 + p->duration_ns);
		atomic_store(&pc.stop, 1);
	}
	for (int i = 0; i < pc.nprod; i++)
		pthread_join(prod[i], NULL);
	/* One poison per consumer, behind every real item (the ring is FIFO). */
	for (int i = 0; i < ncons; i++)
		pc_put(&pc, PC_POISON, 0);
	for (int i = 0; i < ncons; i++)
		pthread_join(cons[i], NULL);
	res->elapsed_ns = fl_now_ns() - t0;
	res->ops = atomic_load(&pc.consumed);
	fl_tstats_finish(&pc.ts, res);
	int64_t made = 0;
	for (int i = 0; i < pc.nprod; i++) {
		made += pc.made[i];
		if (pc.next[i] != pc.made[i])
			fl_fail_box(&pc.err, "producer %d made %lld items, consumers saw %lld", i,
				 (long long)pc.made[i], (long long)pc.next[i]);
	}
	if (made != res->ops)
		fl_fail_box(&pc.err, "%lld items made, %lld consumed", (long long)made, (long long)res->ops);
	int ve = fl_sem_value_or(&pc.empty, pc.cap), vf = fl_sem_value_or(&pc.full, 0),
	    vm = fl_sem_value_or(&pc.mutex, 1);
	if (ve != pc.cap || vf != 0 || vm != 1)
		fl_fail_box(&pc.err, "final values empty/full/mutex %d/%d/%d, expected %d/0/1", ve, vf, vm,
			 pc.cap);
	fl_take_error(res, &pc.err);
	pthread_barrier_destroy(&pc.start);
	free(prod);
	free(cons);
	free(args);
	free(pc.ring);
	free(pc.born);
	free(pc.next);
	free(pc.made);
	fl_sem_close(&pc.empty);
	fl_sem_close(&pc.full);
	fl_sem_close(&pc.mutex);
}

static const char *fl_unavailable_prodcons(const struct fl_variant *v, const struct fl_params *p)
{
	(void)v;
	return p->threads < 2 ? "prodcons needs >= 2 threads (a producer and a consumer)" : NULL;
}

/* registered in workloads/meson.build (workload_names) */
const struct fl_workload fl_workload_prodcons = {
	.name = "prodcons",
	.min_blocking = 8000,
	.run = fl_run_prodcons,
	.unavailable = fl_unavailable_prodcons,
	.summary = "bounded buffer: empty/full/mutex semaphores, T/2 producers, K slots",
	.op = "item through the buffer",
	.uses_tokens = true,
	.fairness = true,
	.latency = true, /* opt-in: its cost not shown <= 5 % (scripts/latency-cost,
			    workloads/README.md) */
};
