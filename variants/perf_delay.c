/* variants/perf_delay.c — performance mutants: negcount with a fixed N ns
 * of spinning inside each post, a ladder of N (variant.h, struct fl_perf;
 * variants/README.md, "Performance mutants").
 *
 * MIMICS  no one library's bug: a known additive cost, the yardstick. A
 *   post that does N ns more work before it publishes its token (a lock, a
 *   bookkeeping store, a slower atomic) costs every op at least N ns where
 *   each op posts once; at uncontended (one post per op, no waiter) the
 *   ratio table must recover +N ns per op within its interval
 *   (scripts/perf-mutants: the median of the per-round paired differences
 *   mutant - parent, with an order-statistics interval). The rungs (50 ns
 *   to 12.8 us, x4 apart) give each point its smallest detectable slowdown
 *   (results/sensitivity.md).
 *
 * THE COST  a busy loop on CLOCK_MONOTONIC until N ns have passed, then
 *   negcount's post. Before the publishing add, so the cost lies on the
 *   handoff's path at every point (a waiter waits for it), as a post's own
 *   work would; it touches nothing of the semaphore, so correctness and
 *   destruction safety are negcount's. A wall-clock loop adds N ns of
 *   elapsed time whatever the CPU's speed (a preemption inside it past its
 *   end adds more: that is the machine's noise, as for every op).
 *
 * CALIBRATION  Reading the clock costs c (~25 ns here, kvm-clock through
 *   the vDSO, more while the other vCPU is busy): the call's time from
 *   entry to return is (t_last - t0) + c (half a read before the first
 *   sample, half after the last), and a loop stopping at the first sample
 *   past a target lands on average c/2 past it. So the loop stops at the
 *   first t with (t - t0) + 3c/2 >= D, c the interval between its last two
 *   samples. That still leaves the rungs a few percent long on a quiet
 *   machine (the delays a run adds: results/sensitivity.md): time a VM loses
 *   invisibly (the guest reports no steal) in stretches longer than the
 *   loop lands in it in proportion to its length, and a wall-clock loop
 *   interrupted past its end ends late. So each rung also measures its own
 *   loop once per process, at its first init (in the warm-up, outside
 *   every timed rep): the mean excess over 2 ms of loops to D = N (a mean,
 *   as a rep's ns per op is), and spins to D = N - excess. At most N/4 is
 *   taken off: an init on a machine that busy would make the rung a guess.
 *   What is left is the machine's change of state since (the delay check
 *   shows it). A rung below ~2c cannot be made: 50 ns is the floor (two
 *   reads).
 *
 * WHERE IT MUST COST  uncontended (the additive check): `cpu ns` grows by
 *   N per op (the loop spins on the CPU, no syscall: no kernel count moves,
 *   so CPU is the evidence; harness/verdicts.md, the why line). Declared
 *   by the rung the mutant run uses (perf_delay_800, below); the ladder
 *   reports where each rung is detected. */
#include <stdatomic.h>
#include <stdint.h>

#include "lib/clock.h"
#include "lib/waitaddr.h"
#include "variants/negcount.h"
#include "variants/variant.h"

/* The busy loop: d ns on average from entry to return, but for the
 * machine's tax (CALIBRATION). */
static void spin_ns(int64_t d)
{
	int64_t t0 = fl_now_ns(), t = t0, prev;
	do {
		prev = t;
		t = fl_now_ns();
	} while ((t - t0) + 3 * (t - prev) / 2 < d);
}

/* A rung's excess, ns (-1: not measured): the mean over 2 ms of loops of
 * n (at least 16) of what each took past n, at most n/4. Relaxed: a number, not a
 * publication of other data; two threads measuring at once each store
 * their own, equally valid, mean. */
static void calibrate(_Atomic int64_t *excess, int64_t n)
{
	if (atomic_load_explicit(excess, memory_order_relaxed) >= 0)
		return;
	int64_t loops = 2000000 / n < 16 ? 16 : 2000000 / n, t0 = fl_now_ns();
	for (int64_t i = 0; i < loops; i++)
		spin_ns(n);
	int64_t e = (fl_now_ns() - t0) / loops - n;
	atomic_store_explicit(excess, e < 0 ? 0 : e > n / 4 ? n / 4 : e, memory_order_relaxed);
}

#define PERF_DELAY(N, POINTS)                                                  \
	static _Atomic int64_t excess_##N = -1;                                 \
	static int init_##N(void *p, unsigned value, int pshared)               \
	{                                                                       \
		calibrate(&excess_##N, (N));                                    \
		return fl_negcount_init_on(p, value, pshared, &fl_wa_futex);    \
	}                                                                       \
	static int post_##N(void *p, unsigned n)                                \
	{                                                                       \
		spin_ns((N) - atomic_load_explicit(&excess_##N, memory_order_relaxed)); \
		return fl_negcount_post(p, n);                                  \
	}                                                                       \
	static const struct fl_perf perf_##N = {                                \
		.parent = "negcount",                                           \
		.cost = #N " ns of spinning in each post, before its add",      \
		.mimics = "a known additive cost (no library's bug): the "     \
			  "yardstick of the table's sensitivity",               \
		.points = (POINTS),                                             \
		.count = "cpu ns", .delay_ns = (N),                             \
	};                                                                      \
	FL_VARIANT(perf_delay_##N, struct fl_negcount,                          \
		.summary = "negcount + " #N " ns spinning in each post",        \
		.init = init_##N, .value_max = FL_NEGCOUNT_MAX,                 \
		.destroy = fl_negcount_destroy, .post = post_##N,               \
		.wait = fl_negcount_wait, .trywait = fl_negcount_trywait,       \
		.timedwait = fl_negcount_timedwait,                             \
		.getvalue = fl_negcount_getvalue, .words = fl_negcount_words,   \
		.perf = &perf_##N)

/* One rung declares where it must cost: the mutant run's (scripts/perf-mutants).
 * 800 ns is ~25x an uncontended op here, far beyond that point's noise (the
 * control's +-45-62% on a loaded quick sweep). The others are the ladder's,
 * declaring no point: where each is detected is what the ladder measures. */
PERF_DELAY(50, "");
PERF_DELAY(200, "");
PERF_DELAY(800, "uncontended T=1 wake=exact");
PERF_DELAY(3200, "");
PERF_DELAY(12800, "");
