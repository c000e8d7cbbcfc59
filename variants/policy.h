/* variants/policy.h — the waiting policy: what a waiter does between finding
 * no token and sleeping on the design's words.
 *
 * A design (variants/NAME.c) is a protocol: which words a wait and a post
 * touch, in which order, and how a sleeper is found and woken. How long a
 * waiter keeps trying before it sleeps is another question — the shipped
 * libraries answer it inside their code (libstdc++ 12 spins 12 times and
 * yields 4; libc++ 14 polls 64 times, then polls and yields for up to 64 us;
 * musl spins 100 times while nobody waits; glibc's sem_wait sleeps at
 * once) — and a table that compares a spinning library with a parking
 * design compares two things at once. Here the answer is an axis of its
 * own, applied in this one place, the same way to every futexlab design:
 *
 *   park          call the design's wait at once (the designs as written;
 *                 the default)
 *   spin:N        re-try the design's trywait up to N times, a CPU pause
 *                 between tries, then the design's wait
 *   spin-yield:N  the same with sched_yield(2) between tries
 *   adaptive      spin, yield or park per semaphore, learned from what
 *                 recent waits cost (the argument is above its code in
 *                 policy.c)
 *
 * CORRECTNESS. The policy touches the design only through its own trywait
 * and then its own wait/timedwait: it never reads or writes the design's
 * words, never sleeps outside the design's wait, and never returns a token
 * the design's trywait or wait did not give. A trywait takes a token or
 * changes nothing (variant.h), so any number of failed re-tries leave the
 * semaphore as they found it, and the design's wait that follows starts
 * from its own fast path and re-checks its own condition before it sleeps
 * — every argument of the design's comment holds unchanged. What a policy
 * can cost is time and CPU, never a token or a wakeup: the shared suite,
 * torture, the promises suite and the mutants run under every policy
 * (tests/README.md, "Policies").
 *
 * The shipped libraries (.own_policy in variant.h) keep the policy they are
 * built with: the harness and the shim refuse a policy for them (their
 * reps run under park, where fl_wait calls their wait), and were one set,
 * fl_wait would try their trywait once and then call their wait.
 *
 * The policy is a process-wide run parameter, like the wake strategy
 * (lib/wake.h): set before the rep's threads start, read relaxed. */
#ifndef FUTEXLAB_POLICY_H
#define FUTEXLAB_POLICY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "variants/variant.h"

enum fl_policy_kind {
	FL_POLICY_PARK,
	FL_POLICY_SPIN,
	FL_POLICY_SPIN_YIELD,
	FL_POLICY_ADAPTIVE,
};

struct fl_policy {
	enum fl_policy_kind kind;
	int bound;                      /* spin, spin-yield: tries, 1..FL_POLICY_BOUND_MAX */
};

#define FL_POLICY_BOUND_MAX 1000000
#define FL_POLICY_PARK_INIT { FL_POLICY_PARK, 0 }
/* The longest text fl_policy_format writes, with its NUL. */
#define FL_POLICY_TEXT_MAX 24

/* "park", "spin:N", "spin-yield:N", "adaptive" -> *out: 0, or -1 with a
 * one-line reason in err (unknown name, a bound missing, not a number, out
 * of 1..FL_POLICY_BOUND_MAX; "spin:0" is not a spin: say park). */
int fl_policy_parse(const char *text, struct fl_policy *out, char *err, size_t errlen);
/* The canonical text of p (what fl_policy_parse reads back). */
const char *fl_policy_format(const struct fl_policy *p, char *buf, size_t n);
/* The policies, for usage lines: "park, spin:N, spin-yield:N, adaptive". */
#define FL_POLICY_NAMES "park, spin:N, spin-yield:N, adaptive"

/* The process's policy (park until set). With adaptive, it also measures
 * what a park, a yield, a pause and a clock read cost on this machine
 * (fl_adapt_calibrate) unless FUTEXLAB_POLICY_CALIBRATE=0. */
void fl_policy_set(const struct fl_policy *p);
/* Forgets what the adaptive policy learned (every semaphore starts again
 * from FL_ADAPT_INIT) and its sample of the machine's load (the next wait
 * reads the load afresh). Only while no thread waits: between reps
 * (relaxed stores; the rep's threads, created after, see them). */
void fl_policy_forget(void);
/* The window the adaptive policy has learned for semaphore s (tests). */
uint32_t fl_adapt_window_of(const void *s);
struct fl_policy fl_policy_get(void);

/* Whether a policy applies to v: false for a shipped library (its
 * .own_policy is the policy it is built with). */
static inline bool fl_policy_applies(const struct fl_variant *v)
{
	return v->own_policy == NULL;
}

/* The process's policy kind, for the inline fast path below (relaxed: set
 * before the waiting threads start, as everything in fl_policy_set). */
extern _Atomic int fl_policy_kind_now;

/* Out of line: a wait under a policy other than park after its first
 * try (the policy's re-tries, then the design's wait; for a shipped
 * library, its wait at once). */
int fl_policy_wait(const struct fl_variant *v, void *s, const struct timespec *abs_deadline);

/* The one place a wait passes through: v's wait (abs_deadline NULL) or
 * timedwait under the process's policy. Returns what the design returns.
 * Inline, so that under park a wait costs one relaxed load and a compare
 * beyond the design's own call, and under any other policy a wait that
 * finds a token costs that and the design's trywait: the policy's own
 * work, and the check for a shipped library, are off the uncontended path
 * (results/policy.md, "Uncontended"; and "--pin 0": that check, a load
 * and a compare, is what adaptive's uncontended path costs beyond park's).
 * A deadline the design must reject goes to the design (EINVAL) once no
 * token is there. */
static inline int fl_timedwait(const struct fl_variant *v, void *s,
			       const struct timespec *abs_deadline)
{
	if (atomic_load_explicit(&fl_policy_kind_now, memory_order_relaxed) == FL_POLICY_PARK)
		return abs_deadline ? v->timedwait(s, abs_deadline) : v->wait(s);
	if (v->trywait(s) == 0) /* the policy's first try, inline as the park's call */
		return 0;
	return fl_policy_wait(v, s, abs_deadline);
}

/* fl_timedwait without a deadline, the design's wait and trywait named:
 * read from v here (fl_wait), named by a loop compiled with the design so
 * that it inlines them (the inline forms' loops, FL_PAIRS below). */
#define FL_WAIT_DIRECT(v, s, wait, trywait)                                     \
	(atomic_load_explicit(&fl_policy_kind_now, memory_order_relaxed) ==      \
			 FL_POLICY_PARK                                         \
		 ? wait(s)                                                      \
		 : trywait(s) == 0 ? 0 : fl_policy_wait(v, s, NULL))

static inline int fl_wait(const struct fl_variant *v, void *s)
{
	return FL_WAIT_DIRECT(v, s, v->wait, v->trywait);
}

#ifndef __cplusplus
/* Defines `static int fn(const struct fl_variant *v, void *s, int64_t n)`,
 * a .pairs (variant.h) over the design's post, and its wait through the
 * policy (FL_WAIT_DIRECT): functions of the design's file, visible to the
 * compiler, so the loop is what a program calling them in a loop gets. */
#define FL_PAIRS(fn, post, wait, trywait)                                       \
	static int fn(const struct fl_variant *v, void *s, int64_t n)           \
	{                                                                       \
		for (int64_t i = 0; i < n; i++) {                               \
			int e = post(s, 1);                                     \
			if (!e)                                                 \
				e = FL_WAIT_DIRECT(v, s, wait, trywait);        \
			if (e)                                                  \
				return e;                                       \
		}                                                               \
		return 0;                                                       \
	}
#endif

/* A wait of the policy's on something other than one semaphore (the
 * wait-any: variants/waitany.c, fl_policy_wait_any): what it tries to
 * take, and its park. n == 1: the design's trywait and wait on sems[0]
 * (park NULL). n > 1: each trywait in turn from the one after `got` (the
 * last to give a token), and park(), which sleeps the design's way and
 * sets got; the policy's tries stand before it as before a wait. */
struct fl_policy_target {
	const struct fl_variant *v;
	void *const *sems;
	int n, got;
	int (*park)(struct fl_policy_target *t, const struct timespec *abs_deadline);
};
/* Under any policy but park: the first try, the policy's tries, the park.
 * 0 (got: the semaphore a token was taken from) or the park's error. */
int fl_policy_wait_target(struct fl_policy_target *t, const struct timespec *abs_deadline);

/* ---- the adaptive policy's learning, as pure functions (unit-tested on
 * scripted wait costs: tests/test_policy.c) -------------------------------- */

/* What one semaphore has learned (policy.c keeps one per slot of a small
 * table keyed by the semaphore's address). The window is in nanoseconds of
 * CPU spent trying (a yield that gave the CPU away costs the yield's
 * measured cost, not the time others ran: policy.c, point 3). */
struct fl_adapt {
	uint32_t window_ns;             /* how much a waiter may spend trying before it parks; 0: park at once */
	uint32_t seq;                   /* waits seen while parked (the probe schedule) */
	uint32_t probe_shift;           /* a parked semaphore probes once in 2^probe_shift waits */
	uint32_t spin_wins;             /* of a yielder's spins before its first yield, the
					 * share that took a token, in 31sts (a running mean) */
};
#define FL_ADAPT_INIT { 4000, 0, 0, 31 }

enum fl_adapt_mode { FL_ADAPT_SPIN, FL_ADAPT_YIELD, FL_ADAPT_PARK };

struct fl_adapt_plan {
	enum fl_adapt_mode mode;
	uint32_t budget_ns;             /* SPIN, YIELD: try for this much, then park */
	bool probe;                     /* a probe of a parked semaphore */
};

/* The bounds of the window (argued in policy.c). cap_ns, the most a wait
 * may spend trying, is what a park costs here (fl_adapt_costs().park_ns),
 * clamped to [FL_ADAPT_CAP_MIN_NS, FL_ADAPT_CAP_MAX_NS]. */
#define FL_ADAPT_MIN_NS 500u
#define FL_ADAPT_CAP_MIN_NS 2000u
#define FL_ADAPT_CAP_MAX_NS 200000u
#define FL_ADAPT_PROBE_SHIFT_MAX 8u

/* What the next wait on a semaphore does, given what it learned, whether
 * its tries should yield (the machine has more runnable threads than the
 * process may use CPUs, or it may use one) and the cap. */
struct fl_adapt_plan fl_adapt_plan(const struct fl_adapt *a, bool yield, uint32_t cap_ns);
/* What it learns from a wait that followed plan: won (a try took a token
 * before parking) after tried_ns of trying, or parked after tried_ns. */
void fl_adapt_learn(struct fl_adapt *a, const struct fl_adapt_plan *plan, bool won,
		    uint64_t tried_ns, uint32_t cap_ns);
/* What it learns from a wait that tried its whole plan, lost and parked:
 * late_ns, how long after the park began its token came (the park's time
 * less a calibrated handoff; -1: the park took none, a timeout). A token
 * a window twice as long would have won (late_ns within the window, and
 * within the cap less it) doubles the window, up to the cap; any other
 * loss is fl_adapt_learn's (the window halves). */
void fl_adapt_learn_loss(struct fl_adapt *a, const struct fl_adapt_plan *plan, int64_t late_ns,
			 uint32_t cap_ns);
/* Whether a yielder spins for a yield's cost before its first yield
 * (policy.c, point 4): while at least FL_ADAPT_SPIN_PAYS 31sts (about a
 * fifth) of those spins took a token. What it learns from one that ran:
 * won or not (a running mean, a quarter of the way each time). */
#define FL_ADAPT_SPIN_PAYS 6u
bool fl_adapt_spin_first(const struct fl_adapt *a);
void fl_adapt_learn_spin(struct fl_adapt *a, bool won_spinning);

/* How an adaptive spinner polls (policy.c, point 6), from what a spin
 * handoff's round trip (rt) and a pause cost here: gap, the pauses
 * between two polls, half a cache line's transfer (rt / 8: a round trip
 * is four transfers), rounded, in [1, FL_ADAPT_GAP_MAX]; quick, the
 * pauses of the first, clock-free tries: twice the round trip (2 rt), in
 * [FL_ADAPT_QUICK, FL_ADAPT_QUICK_MAX]. rt or pause 0 (not measured): a
 * pause apart, FL_ADAPT_QUICK. */
#define FL_ADAPT_QUICK 16u
#define FL_ADAPT_QUICK_MAX 1024u
#define FL_ADAPT_GAP_MAX 16u
struct fl_adapt_polls {
	uint32_t gap, quick;
};
struct fl_adapt_polls fl_adapt_polls(uint32_t spin_rt_ns, uint32_t pause_ns);

/* What the adaptive policy measured on this machine (policy.c, "The
 * costs"): calibrated by fl_adapt_calibrate, the timer's lateness learned
 * from the timed waits that timed out. */
struct fl_adapt_costs {
	uint32_t clock_ns;              /* a clock read */
	uint32_t pause_ns;              /* one CPU pause (fl_cpu_relax) */
	uint32_t yield_ns;              /* a sched_yield(2) with nothing else to run */
	uint32_t park_ns;               /* a handoff through the kernel: one thread's
					 * FUTEX_WAKE to the woken thread running */
	uint32_t park_cpu_ns;           /* the CPU the two threads spent per handoff */
	uint32_t late_ns;               /* how late a parked timed wait returns past its
					 * deadline (learned; 0 until one timed out) */
	bool calibrated;                /* false: the bootstrap values (never measured) */
	uint32_t spin_rt_ns;            /* a spin handoff's round trip between two CPUs
					 * (0: not measured: the process has one CPU,
					 * or it took longer than park_ns) */
	struct fl_adapt_polls polls;    /* how a spinner polls, as in use: the gap, and
					 * the clock-free tries in pauses (tries times the
					 * gap: the rule's quick rounded down to it) */
};
/* The bootstrap park cost, used until a calibration has measured one. */
#define FL_ADAPT_PARK_BOOT_NS 20000u
/* Measures them (about a millisecond: a two-thread futex handoff 16 times,
 * on more than one CPU 288 spin handoffs, 16 yields, 9 timings of 32
 * pauses, 64 clock reads; its partner thread is joined before it
 * returns). The adaptive spinner's polls are set from them (point 6).
 * Thread-safe; fl_policy_set calls it for adaptive
 * (the harness before each rep, the shim once at start) unless
 * FUTEXLAB_POLICY_CALIBRATE=0. Returns 0, or -1 when no thread could be
 * started (the last values stay). */
int fl_adapt_calibrate(void);
struct fl_adapt_costs fl_adapt_costs(void);

/* Whether the machine has more runnable threads than this process may use
 * CPUs (from /proc/loadavg and sched_getaffinity, read at most every
 * FL_ADAPT_LOAD_NS by one waiter; false when it cannot be read), or the
 * process may use one CPU only (then spinning can only lose: the token's
 * poster needs that CPU). FUTEXLAB_POLICY_LOAD=0/1 forces the answer
 * (tests). */
#define FL_ADAPT_LOAD_NS 4000000
bool fl_adapt_oversubscribed(void);
/* How many times the load has been read (tests). */
uint64_t fl_adapt_load_reads(void);

#endif
