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
 * CALIBRATION  A loop until now >= t0 + D takes longer than D: the
 *   reads outside [t0, t_end] and the last read's landing past the end
 *   (~1.5 reads of ~25 ns here, kvm-clock through the vDSO), and on this VM
 *   a further ~2.6% of D (measured: asked 3200 - 37 ns, the loop took 3290
 *   in CLOCK_MONOTONIC and in the thread's CPU clock alike). So each rung
 *   measures its own loop once per process, at its first init (outside
 *   every timed rep): the median over 15 loops of the excess of D = N, and
 *   then spins to D = N - excess. The rung then adds N, not N + 20..90 ns,
 *   which the delay check would see. A rung whose excess exceeds N cannot
 *   be made: none here is (the smallest, 50 ns, against ~40).
 *
 * WHERE IT MUST COST  uncontended (the additive check): `cpu ns` grows by
 *   N per op (the loop spins on the CPU, no syscall: no kernel count moves,
 *   so CPU is the evidence; harness/verdicts.md, the why line). Declared
 *   by the rung the mutant run uses (perf_delay_800, below); the ladder
 *   reports where each rung is detected. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/clock.h"
#include "lib/waitaddr.h"
#include "variants/negcount.h"
#include "variants/variant.h"

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The busy loop: until d ns past its first read. */
static void spin_for(int64_t d)
{
	int64_t end = fl_now_ns() + (d > 0 ? d : 0);
	while (fl_now_ns() < end)
		;
}

/* A rung's excess (CALIBRATION), ns; -1: not measured. Relaxed: a number,
 * not a publication of other data; two threads measuring at once each
 * store their own, equally valid, median. */
static void calibrate(_Atomic int64_t *excess, int64_t n)
{
	if (atomic_load_explicit(excess, memory_order_relaxed) >= 0)
		return;
	int64_t e[15];
	for (int i = 0; i < 15; i++) {
		int64_t t0 = fl_now_ns();
		spin_for(n);
		e[i] = fl_now_ns() - t0 - n;
	}
	qsort(e, 15, sizeof e[0], cmp64);
	atomic_store_explicit(excess, e[7] > 0 ? e[7] : 0, memory_order_relaxed);
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
		spin_for((N) - atomic_load_explicit(&excess_##N, memory_order_relaxed)); \
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
