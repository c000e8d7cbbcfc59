/* workloads/floors.c — the two reference rows of the tables, run beside the
 * variants where they mean something (the workloads with has_floors:
 * uncontended, pingpong).
 *
 * floor-atomic  a counter that waiters spin on: post is one atomic add,
 *               wait one CAS; nobody ever sleeps.
 *   Bounds: the uncontended path of a counting semaphore. uncontended.c
 *   runs it inlined (one fetch_add, one CAS-decrement, no call through the
 *   variant table), so no design can beat it there. At pingpong on idle
 *   cores its handoff is one cache-line transfer, a bound on any handoff.
 *   Not a bound: it spins, so it is no bound for sleeping handoffs under
 *   oversubscription — with more runnable threads than cores a spinning
 *   waiter burns the core its poster needs, and it can be far slower than
 *   a design that sleeps (a pingpong rep whose spinner is preempted takes
 *   milliseconds per round trip where negcount takes microseconds; on two
 *   cores, any other load makes pingpong's two threads oversubscribed).
 * floor-futex   the same counter with an unconditional FUTEX_WAKE on every
 *               post and FUTEX_WAIT whenever it is empty: the raw cost of
 *               one wake and one sleep per handoff, and of a post that always
 *               enters the kernel (the futex note's "unconditional wake").
 *   Bounds: at pingpong, only designs that make the same syscalls (a
 *   FUTEX_WAIT per sleep, a FUTEX_WAKE per post): a design that skips the
 *   wake when nobody sleeps, or whose waiter finds the token before it
 *   sleeps, can be faster (negcount often is). Not a bound: uncontended,
 *   where its post's syscall is a cost every design avoids (it is a ceiling
 *   there, the /futex column's unit, not a floor).
 * Both are correct semaphores (waiters loop on the count); neither is fair,
 * and floor-atomic burns a core per waiter, so they run only where they
 * mean something. Their state is struct fl_floor (workload.h). */
#include <errno.h>
#include <stdint.h>

#include "lib/clock.h"
#include "lib/cpu.h"
#include "lib/futex.h"
#include "workloads/workload.h"

static int fa_init(void *p, unsigned value, int pshared)
{
	(void)pshared;
	atomic_init(&((struct fl_floor *)p)->count, value);
	return 0;
}

static void fa_destroy(void *p)
{
	(void)p;
}

static int fa_post(void *p, unsigned n)
{
	atomic_fetch_add_explicit(&((struct fl_floor *)p)->count, n, memory_order_release);
	return 0;
}

static int fa_trywait(void *p)
{
	struct fl_floor *s = p;
	uint32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
	while (c > 0)
		if (atomic_compare_exchange_weak_explicit(&s->count, &c, c - 1,
				memory_order_acquire, memory_order_relaxed))
			return 0;
	return EAGAIN;
}

static int fa_timedwait(void *p, const struct timespec *dl)
{
	while (fa_trywait(p) != 0) {
		if (dl && fl_deadline_passed(dl))
			return ETIMEDOUT;
		fl_cpu_relax();
	}
	return 0;
}

static int fa_wait(void *p)
{
	return fa_timedwait(p, NULL);
}

static int fa_getvalue(void *p)
{
	return (int)atomic_load_explicit(&((struct fl_floor *)p)->count, memory_order_relaxed);
}

const struct fl_variant fl_floor_atomic = {
	.name = "floor-atomic", .summary = "spinning counter: the no-kernel floor",
	.size = sizeof(struct fl_floor), .align = _Alignof(struct fl_floor), .value_max = INT32_MAX,
	.init = fa_init, .destroy = fa_destroy, .post = fa_post, .wait = fa_wait,
	.trywait = fa_trywait, .timedwait = fa_timedwait, .getvalue = fa_getvalue,
	.own_policy = "spins until a token comes; never sleeps",
};

static int ff_post(void *p, unsigned n)
{
	struct fl_floor *s = p;
	atomic_fetch_add_explicit(&s->count, n, memory_order_seq_cst);
	fl_futex_wake(&s->count, (int)n, false);
	return 0;
}

static int ff_timedwait(void *p, const struct timespec *dl)
{
	struct fl_floor *s = p;
	while (fa_trywait(s) != 0) {
		int r = fl_futex_wait(&s->count, 0, dl, false);
		if (r == ETIMEDOUT || r == EINTR || r == EINVAL)
			return r;
	}
	return 0;
}

static int ff_wait(void *p)
{
	return ff_timedwait(p, NULL);
}

const struct fl_variant fl_floor_futex = {
	.name = "floor-futex", .summary = "raw futex: wake on every post, sleep when empty",
	.size = sizeof(struct fl_floor), .align = _Alignof(struct fl_floor), .value_max = INT32_MAX,
	.init = fa_init, .destroy = fa_destroy, .post = ff_post, .wait = ff_wait,
	.trywait = fa_trywait, .timedwait = ff_timedwait, .getvalue = fa_getvalue,
	.own_policy = "sleeps at once (FUTEX_WAIT on the count)",
};
