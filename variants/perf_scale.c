/* variants/perf_scale.c — performance mutants whose cost is a share of the
 * op's own time: the ground truth of `futexlab ab`'s power (harness/ab.md,
 * results/ab.md). perf_scale_PCT_PARENT is PARENT with PCT% more time in
 * each post (e.g. perf_scale_125_split: split, its posts x1.25 long).
 *
 * MIMICS  no library's bug: a regression of a given size. The fixed-delay
 *   ladder (perf_delay.c) cannot give one: 50 ns is x4.4 at uncontended
 *   (15 ns an op) and nothing at timeouts (26 us an op), so no rung lands
 *   near x1.25 at every point. A cost proportional to the op's own time
 *   lands near the same factor wherever the post is on the op's critical
 *   path, which is what a slower post is.
 *
 * THE COST  before the parent's post, a busy loop of (PCT/100 - 1) x p,
 *   p the CPU time the calling thread spends per post of its own
 *   (CLOCK_THREAD_CPUTIME_ID), without the mutant's loops. CPU time, not
 *   the wall clock: a thread's wall period between posts holds the others'
 *   turns with the token, their loops included, so a loop sized on it grows
 *   the period it is sized on (at oversub's 32 threads, without bound: the
 *   first version of this file never finished a sweep). A thread's own CPU
 *   time holds its own work only. p is sampled: the thread's CPU clock (a
 *   system call, ~0.3 us) is read once per ~100 us of its CPU time (at most
 *   every 8192nd post: 15 ns posts), not twice per post, which at
 *   uncontended would cost more than the mutant means to. The loop counts
 *   iterations, not clock reads: its iterations per ns are measured once
 *   per process, at the first init, over 1 ms.
 *
 * WHERE IT LANDS  The factor is not the op's exactly and is measured, not
 *   assumed: `futexlab sweep` with parent and mutant side by side, the
 *   paired ratio per point (results/ab.md's truth table). Where a thread
 *   posts once per op and the post is on the path (uncontended, pool,
 *   oversub, barrier) it lands near PCT%; where two posts lie on one op's
 *   path (pingpong's round trip, prodcons's item) near twice the excess;
 *   at timeouts nowhere: that op is one timedwait whose end the clock sets
 *   (a token every 100 us, an absolute deadline), so a slower post moves
 *   when a wait ends inside the period, not how many ops the period holds
 *   — the cost shows in CPU, and no design's slowdown short of the period
 *   can show in that point's time.
 *
 * Each mutant declares no point (struct fl_perf.points ""): the ratio
 * table's mutant run is perf_delay_800's; these are the A/B gate's. The
 * wrapped parent's words, waits and value are its own: correctness is the
 * parent's, and the shared suites run on the mutants by name. */
#include <math.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "lib/clock.h"
#include "variants/negcount.h"
#include "variants/variant.h"

/* The parents' state fits the sem_t-sized budget (each asserts it); the
 * mutant's descriptor says the whole budget, aligned as max_align_t. */
struct scale_state {
	alignas(max_align_t) unsigned char b[FL_STATE_MAX];
};

/* iterations of spin_iters per ns, x 1024; 0: not measured */
static _Atomic int64_t iters_per_ns_1024;

static inline void spin_iters(int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		__asm__ volatile("" ::: "memory"); /* one iteration, not optimized away */
}

/* Once per process: 1 ms of loops timed. Relaxed: a number; two threads
 * measuring at once each store an equally valid one. */
static void calibrate(void)
{
	if (atomic_load_explicit(&iters_per_ns_1024, memory_order_relaxed))
		return;
	int64_t n = 1000, t0 = fl_now_ns(), t;
	for (;;) {
		spin_iters(n);
		t = fl_now_ns() - t0;
		if (t > 1000000)
			break;
		n *= 2;
		t0 = fl_now_ns();
	}
	int64_t r = n * 1024 / (t > 0 ? t : 1);
	atomic_store_explicit(&iters_per_ns_1024, r > 0 ? r : 1, memory_order_relaxed);
}

/* The calling thread's sampling state. */
static _Thread_local struct {
	int64_t t_last;     /* its CPU clock at the last sample, 0: none yet */
	int64_t posts;      /* posts since it */
	int64_t spun_ns;    /* the mutant's own loops since it, ns */
	int64_t every;      /* posts between samples */
	int64_t period_ns;  /* its CPU time per post without the loops; 0: unknown */
} th;

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Before each post: sample the period now and then, then spin its share. */
static void scale_cost(int pct)
{
	if (++th.posts >= th.every) {
		int64_t now = thread_cpu_ns();
		if (th.t_last) {
			int64_t p = (now - th.t_last - th.spun_ns) / th.posts;
			th.period_ns = p > 0 ? p : 1;
			int64_t e = 100000 / th.period_ns; /* ~100 us of CPU between samples */
			th.every = e < 1 ? 1 : e > 8192 ? 8192 : e;
		} else {
			th.every = 1;
		}
		th.t_last = now;
		th.posts = 0;
		th.spun_ns = 0;
	}
	if (!th.period_ns)
		return;
	int64_t ns = th.period_ns * (pct - 100) / 100;
	spin_iters(ns * atomic_load_explicit(&iters_per_ns_1024, memory_order_relaxed) / 1024);
	th.spun_ns += ns;
}

#define PERF_SCALE(PCT, PARENT, VMAX, FLAGS)                                    \
	extern const struct fl_variant fl_variant_##PARENT;                     \
	static int init_##PCT##_##PARENT(void *s, unsigned v, int ps)           \
	{                                                                       \
		calibrate();                                                    \
		return fl_variant_##PARENT.init(s, v, ps);                      \
	}                                                                       \
	static void destroy_##PCT##_##PARENT(void *s) { fl_variant_##PARENT.destroy(s); } \
	static int post_##PCT##_##PARENT(void *s, unsigned n)                   \
	{                                                                       \
		scale_cost(PCT);                                                \
		return fl_variant_##PARENT.post(s, n);                          \
	}                                                                       \
	static int wait_##PCT##_##PARENT(void *s) { return fl_variant_##PARENT.wait(s); } \
	static int trywait_##PCT##_##PARENT(void *s) { return fl_variant_##PARENT.trywait(s); } \
	static int timedwait_##PCT##_##PARENT(void *s, const struct timespec *d) \
	{                                                                       \
		return fl_variant_##PARENT.timedwait(s, d);                     \
	}                                                                       \
	static int getvalue_##PCT##_##PARENT(void *s) { return fl_variant_##PARENT.getvalue(s); } \
	static int words_##PCT##_##PARENT(void *s, fl_atomic_u32 **o, int m)    \
	{                                                                       \
		return fl_variant_##PARENT.words(s, o, m);                      \
	}                                                                       \
	static const struct fl_perf perf_##PCT##_##PARENT = {                   \
		.parent = #PARENT,                                              \
		.cost = "each post " #PCT "% of the thread's own post period long, the " \
			"excess a busy loop before it",                         \
		.mimics = "a regression of a given size (no library's bug): the A/B " \
			  "gate's ground truth (results/ab.md)",                \
		.points = "", .count = "cpu ns",                                \
	};                                                                      \
	FL_VARIANT(perf_scale_##PCT##_##PARENT, struct scale_state,             \
		.summary = #PARENT " with each post x" #PCT "% of its period",  \
		.init = init_##PCT##_##PARENT, .value_max = (VMAX), .flags = (FLAGS), \
		.destroy = destroy_##PCT##_##PARENT, .post = post_##PCT##_##PARENT, \
		.wait = wait_##PCT##_##PARENT, .trywait = trywait_##PCT##_##PARENT, \
		.timedwait = timedwait_##PCT##_##PARENT,                        \
		.getvalue = getvalue_##PCT##_##PARENT, .words = words_##PCT##_##PARENT, \
		.perf = &perf_##PCT##_##PARENT)

/* One factor per parent, so that one A/B run carries all four (ab's head
 * with --as negcount=perf_scale_110_negcount,split=perf_scale_125_split,
 * musl=perf_scale_150_musl,glibc64=perf_scale_200_glibc64), and each
 * factor on negcount too, for a run of one design. The capacities and
 * promises are the parents' (variants/split.c, musl.c, glibc64.c:
 * SEM_VALUE_MAX; split's destroy is unsafe as glibc's bug 12674 is): --as
 * refuses a stand-in whose differ. */
PERF_SCALE(110, negcount, FL_NEGCOUNT_MAX, 0);
PERF_SCALE(125, negcount, FL_NEGCOUNT_MAX, 0);
PERF_SCALE(150, negcount, FL_NEGCOUNT_MAX, 0);
PERF_SCALE(200, negcount, FL_NEGCOUNT_MAX, 0);
PERF_SCALE(125, split, INT32_MAX, FL_DESTROY_UNSAFE);
PERF_SCALE(150, musl, INT32_MAX, 0);
PERF_SCALE(200, glibc64, INT32_MAX, 0);
