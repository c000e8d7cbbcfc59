/* harness/workloads_more.c — prodcons, barrier, timeouts (oversub reuses
 * pool's code: see the table in workloads.c). Like the first three, each
 * drives semaphores only through the variant interface and checks the
 * invariant it can see, so a broken design shows up as an error row.
 *
 * prodcons  seed 004's bounded buffer: `empty` (B slots), `full` (0 items)
 *           and `mutex` (1) semaphores, P = T/2 producers and C = T - P
 *           consumers, capacity B = --tokens. Items are (producer, seq);
 *           the ring is FIFO and only touched inside `mutex`, so consumers
 *           must see each producer's items in order, each exactly once — a
 *           consumer checks that under the mutex, and at the end every
 *           producer's last item has arrived. Also checked: never two
 *           threads inside `mutex`, never a producer into a full ring nor a
 *           consumer into an empty one, final values B/0/1.
 *           op = one item through the buffer.
 * barrier   the wake-all case of seed 000: T threads cross a reusable
 *           two-turnstile barrier; the last to arrive releases all T with
 *           one post(T), so --wake decides whether that is one exact wake,
 *           T wake-one calls or a wake-all. Checked: between the turnstiles
 *           every thread sees exactly (phase+1)*T units of work done (no
 *           thread ran ahead or was left behind), final values 0.
 *           op = one phase (all T threads crossed).
 * timeouts  the release-vs-timeout race under load: T threads call
 *           timedwait with 50-150 us deadlines while the main thread posts
 *           one token every 100 us (far fewer tokens than waiters ask for).
 *           Checked: tokens are conserved (posts == successes + final value:
 *           a token released into a timing-out waiter is taken or left,
 *           never lost or doubled) and no timeout returns before its
 *           deadline. op = one timedwait call (success or timeout). */
#include "waitany.h"
#include "waitany_workload.h"
#include "workloads_more.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

/* ---- shared helpers ---------------------------------------------------- */

/* First error wins; threads report through this, main copies it out. */
struct errbox {
	_Atomic int set;
	char msg[200];
};

static void report(struct errbox *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(struct errbox *e, const char *fmt, ...)
{
	int expect = 0;
	if (!atomic_compare_exchange_strong(&e->set, &expect, 1))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
}

static void post(struct fl_sem *m, unsigned n, struct errbox *e)
{
	int r = m->v->post(m->s, n);
	if (r)
		report(e, "post(%u): %s", n, strerror(r));
}

/* Sleeps until the rep's deadline (duration mode). */
static void sleep_until(int64_t t_ns)
{
	struct timespec dl = fl_ns_to_ts(t_ns);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl, NULL) == EINTR)
		;
}

static pthread_t *spawn(int n, void *(*fn)(void *), void *arg, size_t argsize)
{
	pthread_t *t = calloc((size_t)n, sizeof *t);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, (char *)arg + (size_t)i * argsize)) {
			/* Workers may already wait on each other: cannot unwind. */
			fprintf(stderr, "futexlab: pthread_create failed at thread %d\n", i);
			exit(1);
		}
	return t;
}

/* ---- prodcons ----------------------------------------------------------- */

#define PC_SEQ_BITS 40
#define PC_POISON   INT64_MIN

struct pc {
	struct fl_sem empty, full, mutex;
	int cap, nprod;
	int64_t *ring;            /* ring, head, count, next: only inside mutex */
	int head, count;
	int64_t *next;            /* per producer: the next seq a consumer must see */
	int64_t *made;            /* per producer: items produced (own slot) */
	int64_t quota;            /* per producer in --ops mode, else INT64_MAX */
	_Atomic int inside;
	_Atomic int stop;
	_Atomic int64_t consumed;
	pthread_barrier_t start;  /* every thread is running before the clock starts */
	struct errbox err;
};

struct pc_arg {
	struct pc *pc;
	int id;
};

static void pc_enter(struct pc *pc)
{
	fl_sem_wait(&pc->mutex);
	if (atomic_fetch_add_explicit(&pc->inside, 1, memory_order_relaxed) != 0)
		report(&pc->err, "two threads inside the mutex semaphore at once");
}

static void pc_leave(struct pc *pc)
{
	atomic_fetch_sub_explicit(&pc->inside, 1, memory_order_relaxed);
	post(&pc->mutex, 1, &pc->err);
}

/* Inserts one item (producer side of seed 004's protocol). */
static void pc_put(struct pc *pc, int64_t item)
{
	fl_sem_wait(&pc->empty);
	pc_enter(pc);
	if (pc->count == pc->cap) {
		report(&pc->err, "empty let a producer into a full buffer (capacity %d)", pc->cap);
	} else {
		pc->ring[(pc->head + pc->count) % pc->cap] = item;
		pc->count++;
	}
	pc_leave(pc);
	post(&pc->full, 1, &pc->err);
}

static void *pc_producer(void *arg)
{
	struct pc_arg *a = arg;
	struct pc *pc = a->pc;
	int64_t seq = 0;
	pthread_barrier_wait(&pc->start);
	/* At least one item each, so a rep whose threads a loaded machine ran
	 * late still measures something instead of "no operation". */
	do
		pc_put(pc, ((int64_t)a->id << PC_SEQ_BITS) | seq++);
	while (seq < pc->quota && !atomic_load_explicit(&pc->stop, memory_order_relaxed));
	pc->made[a->id] = seq;
	return NULL;
}

static void *pc_consumer(void *arg)
{
	struct pc *pc = ((struct pc_arg *)arg)->pc;
	int64_t n = 0;
	pthread_barrier_wait(&pc->start);
	for (;;) {
		fl_sem_wait(&pc->full);
		pc_enter(pc);
		if (pc->count == 0) {
			report(&pc->err, "full let a consumer into an empty buffer");
			pc_leave(pc);
			post(&pc->empty, 1, &pc->err);
			break;
		}
		int64_t item = pc->ring[pc->head];
		pc->head = (pc->head + 1) % pc->cap;
		pc->count--;
		if (item != PC_POISON) {
			int p = (int)(item >> PC_SEQ_BITS);
			int64_t seq = item & ((INT64_C(1) << PC_SEQ_BITS) - 1);
			if (p < 0 || p >= pc->nprod)
				report(&pc->err, "item from unknown producer %d", p);
			else {
				if (seq != pc->next[p])
					report(&pc->err, "producer %d: item %lld arrived, expected %lld "
					       "(lost, duplicated or reordered)", p, (long long)seq,
					       (long long)pc->next[p]);
				pc->next[p] = seq + 1;
			}
		}
		pc_leave(pc);
		post(&pc->empty, 1, &pc->err);
		if (item == PC_POISON)
			break;
		n++;
	}
	atomic_fetch_add(&pc->consumed, n);
	return NULL;
}

void fl_run_prodcons(const struct fl_variant *v, const struct fl_params *p,
		     struct fl_result *res)
{
	if (p->threads < 2) {
		snprintf(res->error, sizeof res->error, "prodcons needs --threads >= 2");
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
		snprintf(res->error, sizeof res->error, "init: %s", strerror(e));
		return;
	}
	pc.ring = calloc((size_t)pc.cap, sizeof *pc.ring);
	pc.next = calloc((size_t)pc.nprod, sizeof *pc.next);
	pc.made = calloc((size_t)pc.nprod, sizeof *pc.made);
	struct pc_arg *args = calloc((size_t)p->threads, sizeof *args);
	for (int i = 0; i < p->threads; i++)
		args[i] = (struct pc_arg){ &pc, i < pc.nprod ? i : i - pc.nprod };
	pthread_barrier_init(&pc.start, NULL, (unsigned)p->threads + 1);
	pthread_t *cons = spawn(ncons, pc_consumer, args + pc.nprod, sizeof *args);
	pthread_t *prod = spawn(pc.nprod, pc_producer, args, sizeof *args);
	pthread_barrier_wait(&pc.start);
	int64_t t0 = fl_now_ns();
	if (!p->ops) {
		sleep_until(t0 + p->duration_ns);
		atomic_store(&pc.stop, 1);
	}
	for (int i = 0; i < pc.nprod; i++)
		pthread_join(prod[i], NULL);
	/* One poison per consumer, behind every real item (the ring is FIFO). */
	for (int i = 0; i < ncons; i++)
		pc_put(&pc, PC_POISON);
	for (int i = 0; i < ncons; i++)
		pthread_join(cons[i], NULL);
	res->elapsed_ns = fl_now_ns() - t0;
	res->ops = atomic_load(&pc.consumed);
	int64_t made = 0;
	for (int i = 0; i < pc.nprod; i++) {
		made += pc.made[i];
		if (pc.next[i] != pc.made[i])
			report(&pc.err, "producer %d made %lld items, consumers saw %lld", i,
			       (long long)pc.made[i], (long long)pc.next[i]);
	}
	if (made != res->ops)
		report(&pc.err, "%lld items made, %lld consumed", (long long)made, (long long)res->ops);
	int ve = v->getvalue(pc.empty.s), vf = v->getvalue(pc.full.s), vm = v->getvalue(pc.mutex.s);
	if (ve != pc.cap || vf != 0 || vm != 1)
		report(&pc.err, "final values empty/full/mutex %d/%d/%d, expected %d/0/1", ve, vf, vm,
		       pc.cap);
	if (atomic_load(&pc.err.set))
		snprintf(res->error, sizeof res->error, "%s", pc.err.msg);
	pthread_barrier_destroy(&pc.start);
	free(prod);
	free(cons);
	free(args);
	free(pc.ring);
	free(pc.next);
	free(pc.made);
	fl_sem_close(&pc.empty);
	fl_sem_close(&pc.full);
	fl_sem_close(&pc.mutex);
}

/* ---- barrier -------------------------------------------------------------- */

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
	struct errbox err;
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
			post(&b->t1, (unsigned)T, &b->err);
		}
		fl_sem_wait(&b->t1);
		/* Between the turnstiles nobody can have started phase k+1 (that
		 * needs all T past t2, and we are not) and everybody has done
		 * phase k's work (t1 opens only after all T arrived). */
		int64_t w = atomic_load_explicit(&b->work, memory_order_relaxed);
		if (w != (k + 1) * T)
			report(&b->err, "phase %lld: %lld units of work done between the "
			       "turnstiles, expected %lld", (long long)k, (long long)w,
			       (long long)((k + 1) * T));
		if (atomic_fetch_add(&b->a2, 1) + 1 == T) {
			atomic_store_explicit(&b->a2, 0, memory_order_relaxed);
			post(&b->t2, (unsigned)T, &b->err);
		}
		fl_sem_wait(&b->t2);
		/* Only the shared decision ends the loop: a thread leaving on its
		 * own would strand the others at the next turnstile. */
		if (atomic_load_explicit(&b->stop, memory_order_acquire))
			break;
	}
	return NULL;
}

void fl_run_barrier(const struct fl_variant *v, const struct fl_params *p,
		    struct fl_result *res)
{
	struct bar b = { .T = p->threads, .p = p };
	int e = fl_sem_open(&b.t1, v, 0);
	if (!e && (e = fl_sem_open(&b.t2, v, 0)) != 0)
		fl_sem_close(&b.t1);
	if (e) {
		snprintf(res->error, sizeof res->error, "init: %s", strerror(e));
		return;
	}
	atomic_init(&b.end_ns, INT64_MAX);
	pthread_barrier_init(&b.start, NULL, (unsigned)b.T + 1);
	pthread_t *t = spawn(b.T, bar_worker, &b, 0);
	pthread_barrier_wait(&b.start);
	int64_t t0 = fl_now_ns();
	atomic_store_explicit(&b.end_ns, t0 + p->duration_ns, memory_order_relaxed);
	for (int i = 0; i < b.T; i++)
		pthread_join(t[i], NULL);
	res->elapsed_ns = fl_now_ns() - t0;
	res->ops = atomic_load(&b.phases);
	if (v->getvalue(b.t1.s) != 0 || v->getvalue(b.t2.s) != 0)
		report(&b.err, "final values %d/%d, expected 0/0", v->getvalue(b.t1.s),
		       v->getvalue(b.t2.s));
	if (atomic_load(&b.err.set))
		snprintf(res->error, sizeof res->error, "%s", b.err.msg);
	pthread_barrier_destroy(&b.start);
	free(t);
	fl_sem_close(&b.t1);
	fl_sem_close(&b.t2);
}

/* ---- timeouts --------------------------------------------------------------- */

#define TO_MIN_NS    50000   /* deadlines 50..150 us ahead */
#define TO_SPREAD_NS 100000
#define TO_PERIOD_NS 100000  /* one post per 100 us */

struct to {
	struct fl_sem sem;
	const struct fl_params *p;
	_Atomic int stop;
	_Atomic int64_t calls, ok, timeouts;
	pthread_barrier_t start;
	struct errbox err;
};

static void *to_waiter(void *arg)
{
	struct to *t = arg;
	uint64_t rnd = (uint64_t)(uintptr_t)&rnd ^ (uint64_t)fl_now_ns();
	int64_t ok = 0, tmo = 0;
	pthread_barrier_wait(&t->start);
	do { /* at least one call each (see pc_producer) */
		if (t->p->ops && atomic_fetch_add(&t->calls, 1) >= t->p->ops)
			break;
		rnd = rnd * 6364136223846793005u + 1442695040888963407u;
		int64_t dl_ns = fl_now_ns() + TO_MIN_NS + (int64_t)((rnd >> 33) % TO_SPREAD_NS);
		struct timespec dl = fl_ns_to_ts(dl_ns);
		int r = t->sem.v->timedwait(t->sem.s, &dl);
		if (r == 0)
			ok++;
		else if (r == ETIMEDOUT) {
			int64_t now = fl_now_ns();
			if (now < dl_ns)
				report(&t->err, "timedwait timed out %lld ns before its deadline",
				       (long long)(dl_ns - now));
			tmo++;
		} else if (r != EINTR) {
			report(&t->err, "timedwait: %s", strerror(r));
			break;
		}
	} while (!atomic_load_explicit(&t->stop, memory_order_relaxed));
	atomic_fetch_add(&t->ok, ok);
	atomic_fetch_add(&t->timeouts, tmo);
	return NULL;
}

void fl_run_timeouts(const struct fl_variant *v, const struct fl_params *p,
		     struct fl_result *res)
{
	struct to t = { .p = p };
	int e = fl_sem_open(&t.sem, v, 0);
	if (e) {
		snprintf(res->error, sizeof res->error, "init: %s", strerror(e));
		return;
	}
	pthread_barrier_init(&t.start, NULL, (unsigned)p->threads + 1);
	pthread_t *th = spawn(p->threads, to_waiter, &t, 0);
	pthread_barrier_wait(&t.start);
	int64_t t0 = fl_now_ns(), posts = 0;
	/* Posts stay sparse even when the poster is starved (T waiters on few
	 * cores): a missed period is dropped, not made up with a burst, and the
	 * rep ends by the clock, not by a count of posts. */
	for (int64_t next = t0 + TO_PERIOD_NS;;) {
		sleep_until(next);
		int64_t now = fl_now_ns();
		if (p->ops ? atomic_load(&t.calls) >= p->ops : now >= t0 + p->duration_ns)
			break;
		post(&t.sem, 1, &t.err);
		posts++;
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
	int left = v->getvalue(t.sem.s);
	if (posts != ok + left)
		report(&t.err, "tokens not conserved: %lld posted, %lld taken, %d left "
		       "(%lld timeouts)", (long long)posts, (long long)ok, left, (long long)tmo);
	if (atomic_load(&t.err.set))
		snprintf(res->error, sizeof res->error, "%s", t.err.msg);
	snprintf(res->info, sizeof res->info, "%lld posted, %lld taken, %lld timed out", (long long)posts,
		 (long long)ok, (long long)tmo);
	pthread_barrier_destroy(&t.start);
	free(th);
	fl_sem_close(&t.sem);
}

/* ---- applicability ---------------------------------------------------------- */

const char *fl_workload_unfit(const struct fl_workload *w, const struct fl_variant *v,
			      const struct fl_params *p)
{
	static __thread char why[160];
	if (w->run == fl_run_waitany && p->threads < 2)
		return "waitany needs >= 2 threads (a producer and a consumer)";
	if (w->run == fl_run_waitany)
		return fl_wait_any_unsupported(v); /* NULL when v supports it */
	if (w->run == fl_run_prodcons && p->threads < 2)
		return "prodcons needs >= 2 threads (a producer and a consumer)";
	if (w->run == fl_run_barrier && p->threads > v->value_max) {
		snprintf(why, sizeof why, "barrier posts %d tokens at once, above the variant's "
			 "maximum %d", p->threads, v->value_max);
		return why;
	}
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (!strcmp(w->name, "oversub") && p->threads <= cores) {
		snprintf(why, sizeof why, "oversub needs more threads than the %ld online cores",
			 cores);
		return why;
	}
	return NULL;
}
