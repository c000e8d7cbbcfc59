/* workloads/floors.c — the reference rows of the tables, run beside the
 * variants where they mean something (the workloads with has_floors:
 * uncontended, pingpong, the wake workloads; floor-inline: uncontended).
 *
 * floor-atomic  a counter that waiters spin on: post is one atomic add,
 *               wait one CAS; nobody ever sleeps. Measured as every design
 *               is: its post and wait are called through the variant table,
 *               inside the stranded-waiter detector's marks.
 *   Bounds: the uncontended path of a counting semaphore *as the harness
 *   calls it* — a design's figure over it is the cost of the design's own
 *   logic, the calls and the marks paid alike on both sides. At pingpong on
 *   idle cores its handoff is one cache-line transfer, a bound on any
 *   handoff.
 *   Not a bound: it spins, so it is no bound for sleeping handoffs under
 *   oversubscription — with more runnable threads than cores a spinning
 *   waiter burns the core its poster needs, and it can be far slower than
 *   a design that sleeps (a pingpong rep whose spinner is preempted takes
 *   milliseconds per round trip where negcount takes microseconds; on two
 *   cores, any other load makes pingpong's two threads oversubscribed).
 * floor-inline  the same counter, its ops inlined in a loop (floor-atomic's
 *               inline form, run as a design's NAME-inline is:
 *               uncontended.c): one fetch_add and one CAS-decrement an op,
 *               no call, no marks.
 *   Bounds: the two locked RMWs alone, the least any uncontended post+wait
 *   costs on this CPU; floor-atomic over it is what the harness's path (two
 *   calls through the table, the detector's marks) costs an op. Not the
 *   floor a design is judged on: that path's cost moves with the VM's
 *   state, not in proportion (results/trust.md, "Why every round visits
 *   every point": in one of a VM's two states every calling design takes
 *   more an op while this loop stays put), so a
 *   design's ratio to it swings with the state; floor-atomic pays the same
 *   path and moves with the designs (results/uncontended.md).
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
 * All are correct semaphores (waiters loop on the count); none is fair,
 * and floor-atomic burns a core per waiter, so they run only where they
 * mean something. Their state is struct fl_floor (workload.h). */
#include <errno.h>
#include <stdint.h>

#include "lib/clock.h"
#include "lib/cpu.h"
#include "lib/futex.h"
#include "variants/policy.h"
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

/* floor-atomic's ops (floor-inline's too: called through the table it is
 * floor-atomic). */
#define FA_OPS                                                                                  \
	.size = sizeof(struct fl_floor), .align = _Alignof(struct fl_floor), .value_max = INT32_MAX, \
	.init = fa_init, .destroy = fa_destroy, .post = fa_post, .wait = fa_wait,                 \
	.trywait = fa_trywait, .timedwait = fa_timedwait, .getvalue = fa_getvalue,                \
	.own_policy = "spins until a token comes; never sleeps"

const struct fl_variant fl_floor_atomic = {
	.name = "floor-atomic", .summary = "spinning counter: the no-kernel floor", FA_OPS,
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

/* floor-atomic's inline form (variant.h, .pairs; FL_PAIRS, policy.h):
 * fa_post and fa_wait inlined, one fetch_add and one CAS-decrement a pair
 * (the wait's spin while the count is 0 never runs: its post just made a
 * token), the wait behind the policy's one relaxed load as every wait
 * (floor-atomic waits its own way: the load finds park). */
FL_PAIRS(fa_pairs, fa_post, fa_wait, fa_trywait)

/* Only a workload with inline_floor runs it, and runs it as every inline
 * form (uncontended.c, fl_inline_of): its pairs, no table, no marks. */
const struct fl_variant fl_floor_inline = {
	.name = "floor-inline", .summary = "floor-atomic inlined in the loop: two RMWs, no call",
	FA_OPS, .pairs = fa_pairs,
};

const struct fl_variant fl_floor_futex = {
	.name = "floor-futex", .summary = "raw futex: wake on every post, sleep when empty",
	.size = sizeof(struct fl_floor), .align = _Alignof(struct fl_floor), .value_max = INT32_MAX,
	.init = fa_init, .destroy = fa_destroy, .post = ff_post, .wait = ff_wait,
	.trywait = fa_trywait, .timedwait = ff_timedwait, .getvalue = fa_getvalue,
	.own_policy = "sleeps at once (FUTEX_WAIT on the count)",
};
