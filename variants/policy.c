/* variants/policy.c — the waiting policies of policy.h.
 *
 * THE ADAPTIVE POLICY
 *
 * A waiter that finds no token can spend CPU to save latency (try again
 * until a token comes) or spend a sleep and a wakeup to save the CPU.
 * Which pays depends on how long the token takes to come, on what a park
 * costs on this machine, and on whether trying takes the CPU the poster
 * needs. The policy measures the costs (1), bounds its trying by them (2),
 * learns per semaphore how long its tokens take (3), gives the CPU away
 * when the machine has none to spare (4), and honours deadlines (5).
 *
 * 1. The costs, measured where it runs (fl_adapt_calibrate, from
 *    fl_policy_set: the harness before each adaptive rep, the shim once
 *    when it reads its policy; the partner thread is joined before it
 *    returns). A park is measured as what it is: two threads hand a futex
 *    word back and forth 16 times (FUTEX_WAKE, the woken thread running,
 *    FUTEX_WAIT), and park_ns is the median one-way handoff. A yield is the
 *    median sched_yield(2) with nothing to switch to; a pause and a clock
 *    read are timed in bulk. `build/tests/test_policy` prints them for the
 *    machine it runs on (a VM's: results/policy.md): a handoff costs
 *    orders of magnitude more than a pause or a clock read, and moves with
 *    the machine's state of the moment (far less on one CPU, a switch).
 *    Nothing below is a constant tuned to one machine: the bounds are these
 *    costs, and the only fixed numbers are ratios and the learning's steps.
 * 2. How much to try. Trying for W before parking, against a token that
 *    comes after D: if D <= W the waiter pays D and no park; if D > W it
 *    pays W and then the park. Trying for as much as a park costs (W = P)
 *    never pays more than twice the best choice made knowing D (the
 *    ski-rental argument of Karlin et al.'s competitive spinning), and no
 *    larger W can be justified without knowing D. A park costs the waiter
 *    the handoff's latency and the machine the CPU of a sleep and a wake;
 *    trying costs CPU and saves that latency, so P is the two summed (the
 *    measured handoff and its CPU), clamped to [FL_ADAPT_CAP_MIN_NS,
 *    FL_ADAPT_CAP_MAX_NS] against a calibration gone wrong.
 * 3. Learning D, per semaphore. The window matters only to the waits
 *    that lose: a wait that wins after t pays t whatever its window was.
 *    So a win says only that the window should be at least 2t (a shorter
 *    one moves a quarter of the way up towards 2t, never under
 *    FL_ADAPT_MIN_NS: a shorter window only adds clock reads), and never
 *    narrows it. (glibc's adaptive mutex moves its spin count towards each
 *    new count, up or down; a window that did so here followed the typical
 *    wait, and every wait over twice that parked: at barrier T=4, where the
 *    first arrival waits for the three others and the rest for one, it
 *    slept many times more a phase than libstdc++ and took longer; not
 *    narrowing, it sleeps about as often as libstdc++: results/policy.md,
 *    "Barrier".)
 *    What narrows the window is a loss, judged by where its token came:
 *    the wait parks, and the park's time less the calibrated handoff is
 *    how long after the park began the token came. A token that a window
 *    twice as long would have won (that late within the window, and
 *    within the cap less the window) doubles it, up to the cap; any other
 *    loss (a later token, none: a timeout, one lost at the cap) halves it,
 *    and under FL_ADAPT_MIN_NS the semaphore parks at once. A parked
 *    semaphore learns nothing from its parks (a park lasts at least the
 *    handoff however soon the token came), so one wait in 2^k probes with
 *    the whole cap: a probe that wins reopens the window (2t, k = 0), one
 *    that loses doubles the interval (up to one wait in 256: the probes
 *    then cost at most P/256 a wait, under half a per cent of the park
 *    they ride on). What is "spent" is CPU: a spinner's time, and for a
 *    yield its measured cost when the yield gave the CPU away (the time
 *    others then ran is theirs, not the waiter's).
 * 4. Spin or yield. Spinning is free only while it takes a CPU nobody else
 *    needs (the kernel's optimistic spinning spins only while the lock's
 *    owner is on a CPU, for the same reason). A semaphore has no owner to
 *    look at, so the machine is looked at: when it has more runnable
 *    threads than this process may use CPUs (nr_running from /proc/loadavg,
 *    which counts spinners, against sched_getaffinity), or the process may
 *    use one CPU only, a spinner delays the very thread that would post.
 *    Such a waiter yields before every try: each yield hands the CPU to a
 *    runnable thread (the poster, or a thread on its way to post) for the
 *    price of the yield, and the waiter still saves the park and the wake
 *    when the token comes within its window. Whether anyone wants the CPU
 *    is also measured where it matters: a spinner still trying after
 *    FL_ADAPT_PROBE_EVERY tries yields once and times it; a yield that
 *    took over twice its calibrated cost gave the CPU away, and the waiter
 *    (and its thread's waits for FL_ADAPT_LOAD_NS) yields from then on.
 *    Before its first yield a yielder spins for one yield's cost — the
 *    ski-rental bound once more, a yield being what the spin saves — but
 *    only while such spins pay: per semaphore, the share of them that took
 *    a token (a running mean) must be at least a fifth, and one wait in 16
 *    of a thread spins all the same to find out whether they pay again.
 *    Where the poster runs on the other CPU (producer/consumer) they do;
 *    where the token needs this CPU (a barrier's last arrival) they never
 *    do, and the waiter yields at once. (So a producer/consumer's waiter
 *    gains by spinning and a barrier's loses: results/policy.md.) The
 *    shipped C++ libraries do the same
 *    with constants (libstdc++ 12 pauses then 4 yields; libc++ polls for
 *    4 us, then yields for up to 64 us): at barrier T=4 libstdc++ makes
 *    ~0.03 futex waits and 6 context switches a phase — its waiters yield.
 *    The load is read at most every FL_ADAPT_LOAD_NS (4 ms), by one waiter
 *    at a time (a compare-and-swap on the next sample's time), so its
 *    cost (four syscalls) is a fraction of a per cent of a CPU.
 * 5. Deadlines. A parked timed wait returns when the kernel's timer fires
 *    and the thread runs again: the thread's timer slack (50 us by default)
 *    plus a wake-to-run: tens of microseconds late against a 100 us
 *    deadline, most of it the slack. The policy (a) lowers the
 *    thread's timer slack to 1/64 of the time left for the park (restored
 *    after), so the caller's deadline is kept to within that; and (b)
 *    learns how late parked timed waits still return (late_ns) and parks
 *    until the deadline less that, trying for the rest: a timed-out wait
 *    then returns at its deadline, not a wake-to-run after it, for at most
 *    late_ns of trying. Never before it: the tries stop when the deadline
 *    has passed, and only then is ETIMEDOUT returned.
 * 6. How a spinner polls. A try is a load of the design's word and, when
 *    it holds a token, the compare-and-swap that takes it; between two
 *    tries the spinner pauses. Polling as often as it can is not the
 *    fastest handoff: a poll pulls back the line a poster is taking for
 *    its post, and the post waits for it. The calibration times a spin
 *    handoff between two CPUs (each side posts with a fetch_add and takes
 *    with a poll, a pause apart, and a compare-and-swap: nine blocks of 32
 *    round trips, the median block).
 *    A round trip longer than the futex handoff is not kept (the two
 *    threads did not run at once: a calibration can read one forty times
 *    the handoff), and the polls are then a pause apart, as on one CPU.
 *    A round trip is four transfers of the line (each post takes it, each
 *    poll brings it back), so the polls are spaced half a transfer apart
 *    (rt / 8), a token then seen a quarter of a
 *    transfer late on average and a line in flight polled at most twice.
 *    The first tries, which read no clock, last twice the round trip
 *    (2 rt; at least FL_ADAPT_QUICK): a waiter
 *    whose partner answers at once (a ping-pong) has its token within a
 *    round trip, and the window's rule (point 3: at least 2t) is applied
 *    to that. On one CPU nothing is measured, and the polls are a pause
 *    apart, FL_ADAPT_QUICK of them clock-free (a spinner there yields:
 *    point 4). The rule is fl_adapt_polls (policy.h). At pingpong T=2
 *    polling a pause apart lost to libc++ and a few pauses apart beat it;
 *    with two CPUs near each other (a short round trip) every gap above one
 *    pause lost, and the rule gives one (results/policy.md, "Polling").
 *    (libc++ 14 polls 64 times with no pause between; libstdc++ 12
 *    pauses once between its polls.)
 *
 * What is learned per semaphore is kept in a table of 256 cache-line slots
 * indexed by a hash of the semaphore's address (two semaphores may share a
 * slot: they then share a window, a cost and never an error). A slot is
 * one 64-bit word read and written whole, relaxed: concurrent waiters may
 * overwrite each other's lesson (the last writer's estimate wins), which
 * only slows the learning; nothing orders anything else by it. The costs
 * are process-wide words, relaxed for the same reason.
 *
 * None of this reaches the design: see policy.h, CORRECTNESS. */
#include "variants/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/cpu.h"
#include "lib/futex.h"
#ifdef FL_POLICY_MUTANTS
#include "lib/race.h"
#endif

/* ---- text ----------------------------------------------------------------- */

static const char *const kind_names[] = {
	[FL_POLICY_PARK] = "park",
	[FL_POLICY_SPIN] = "spin",
	[FL_POLICY_SPIN_YIELD] = "spin-yield",
	[FL_POLICY_ADAPTIVE] = "adaptive",
};

static int parse_bound(const char *name, const char *num, int *out, char *err, size_t errlen)
{
	if (!num || !*num) {
		snprintf(err, errlen, "policy '%s' needs a bound: %s:N, N in 1..%d", name, name,
			 FL_POLICY_BOUND_MAX);
		return -1;
	}
	char *end;
	errno = 0;
	long v = strtol(num, &end, 10); /* (digits only: strtol would take " +5") */
	if (*num < '0' || *num > '9' || errno || *end || end == num || v < 1 ||
	    v > FL_POLICY_BOUND_MAX) {
		snprintf(err, errlen, "policy %s:%s: the bound must be an integer in 1..%d%s", name,
			 num, FL_POLICY_BOUND_MAX, !errno && !*end && v == 0 ? " (no spin: say park)" : "");
		return -1;
	}
	*out = (int)v;
	return 0;
}

int fl_policy_parse(const char *text, struct fl_policy *out, char *err, size_t errlen)
{
	const char *colon = strchr(text, ':');
	size_t len = colon ? (size_t)(colon - text) : strlen(text);
	for (int k = 0; k < (int)(sizeof kind_names / sizeof kind_names[0]); k++) {
		if (strlen(kind_names[k]) != len || strncmp(text, kind_names[k], len))
			continue;
		struct fl_policy p = { (enum fl_policy_kind)k, 0 };
		bool bounded = k == FL_POLICY_SPIN || k == FL_POLICY_SPIN_YIELD;
		if (bounded && parse_bound(kind_names[k], colon ? colon + 1 : NULL, &p.bound, err, errlen))
			return -1;
		if (!bounded && colon) {
			snprintf(err, errlen, "policy '%s' takes no bound (%s)", text, FL_POLICY_NAMES);
			return -1;
		}
		*out = p;
		return 0;
	}
	snprintf(err, errlen, "unknown policy '%s' (%s)", text, FL_POLICY_NAMES);
	return -1;
}

const char *fl_policy_format(const struct fl_policy *p, char *buf, size_t n)
{
	if (p->kind == FL_POLICY_SPIN || p->kind == FL_POLICY_SPIN_YIELD)
		snprintf(buf, n, "%s:%d", kind_names[p->kind], p->bound);
	else
		snprintf(buf, n, "%s", kind_names[p->kind]);
	return buf;
}

/* ---- the process's policy ------------------------------------------------- */

_Atomic int fl_policy_kind_now;
static _Atomic int cur_bound;
static _Atomic int load_forced = -1; /* FUTEXLAB_POLICY_LOAD: -1 read the machine */

void fl_policy_set(const struct fl_policy *p)
{
	atomic_store_explicit(&fl_policy_kind_now, (int)p->kind, memory_order_relaxed);
	atomic_store_explicit(&cur_bound, p->bound, memory_order_relaxed);
	const char *f = getenv("FUTEXLAB_POLICY_LOAD"); /* before threads start: no race */
	atomic_store_explicit(&load_forced, f && (*f == '0' || *f == '1') ? *f - '0' : -1,
			      memory_order_relaxed);
	const char *c = getenv("FUTEXLAB_POLICY_CALIBRATE");
	if (p->kind == FL_POLICY_ADAPTIVE && !(c && *c == '0'))
		fl_adapt_calibrate();
}

struct fl_policy fl_policy_get(void)
{
	struct fl_policy p = {
		(enum fl_policy_kind)atomic_load_explicit(&fl_policy_kind_now, memory_order_relaxed),
		atomic_load_explicit(&cur_bound, memory_order_relaxed),
	};
	return p;
}

/* ---- the adaptive policy's learning (pure) -------------------------------- */

struct fl_adapt_plan fl_adapt_plan(const struct fl_adapt *a, bool yield, uint32_t cap)
{
	enum fl_adapt_mode trying = yield ? FL_ADAPT_YIELD : FL_ADAPT_SPIN;
	if (a->window_ns > 0)
		return (struct fl_adapt_plan){ trying, a->window_ns < cap ? a->window_ns : cap, false };
	uint32_t every = 1u << a->probe_shift;
	if (a->seq % every == every - 1)
		return (struct fl_adapt_plan){ trying, cap, true };
	return (struct fl_adapt_plan){ FL_ADAPT_PARK, 0, false };
}

void fl_adapt_learn(struct fl_adapt *a, const struct fl_adapt_plan *plan, bool won,
		    uint64_t tried_ns, uint32_t cap)
{
	if (a->window_ns == 0)
		a->seq++; /* the probe schedule counts the waits of a parked semaphore */
	if (plan->mode == FL_ADAPT_PARK)
		return;
	if (won) {
		uint64_t t2 = 2 * tried_ns;
		int64_t target = t2 < FL_ADAPT_MIN_NS ? FL_ADAPT_MIN_NS : t2 > cap ? cap : (int64_t)t2;
		int64_t d = target - (int64_t)a->window_ns;
		int64_t w = plan->probe ? target : a->window_ns + (d > 0 ? d / 4 : 0);
		a->window_ns = (uint32_t)(w < FL_ADAPT_MIN_NS ? FL_ADAPT_MIN_NS : w);
		a->probe_shift = 0;
		return;
	}
	if (plan->probe) {
		if (a->probe_shift < FL_ADAPT_PROBE_SHIFT_MAX)
			a->probe_shift++;
		return;
	}
	a->window_ns /= 2;
	if (a->window_ns < FL_ADAPT_MIN_NS)
		a->window_ns = 0;
}

void fl_adapt_learn_loss(struct fl_adapt *a, const struct fl_adapt_plan *plan, int64_t late_ns,
			 uint32_t cap)
{
	int64_t w = plan->budget_ns, room = w < (int64_t)cap - w ? w : (int64_t)cap - w;
	if (plan->mode == FL_ADAPT_PARK || late_ns < 0 || late_ns > room) {
		fl_adapt_learn(a, plan, false, plan->budget_ns, cap);
		return;
	}
	if (a->window_ns == 0)
		a->seq++;
	w *= 2; /* a window twice as long would have won it */
	a->window_ns = w < FL_ADAPT_MIN_NS ? FL_ADAPT_MIN_NS : w > cap ? cap : (uint32_t)w;
	a->probe_shift = 0;
}

bool fl_adapt_spin_first(const struct fl_adapt *a)
{
	return a->spin_wins >= FL_ADAPT_SPIN_PAYS;
}

void fl_adapt_learn_spin(struct fl_adapt *a, bool won_spinning)
{
	uint32_t w = a->spin_wins; /* a quarter of the way, rounded away from w */
	a->spin_wins = won_spinning ? w + (31 - w + 3) / 4 : w - (w + 3) / 4;
}

struct fl_adapt_polls fl_adapt_polls(uint32_t rt, uint32_t pause)
{
	struct fl_adapt_polls q = { 1, FL_ADAPT_QUICK };
	if (!rt || !pause)
		return q;
	uint64_t gap = (rt / 8 + pause / 2) / pause, quick = 2 * (uint64_t)rt / pause;
	q.gap = gap < 1 ? 1 : gap > FL_ADAPT_GAP_MAX ? FL_ADAPT_GAP_MAX : (uint32_t)gap;
	q.quick = quick < FL_ADAPT_QUICK ? FL_ADAPT_QUICK
		: quick > FL_ADAPT_QUICK_MAX ? FL_ADAPT_QUICK_MAX : (uint32_t)quick;
	return q;
}

/* ---- the costs (point 1) -------------------------------------------------- */

static _Atomic uint32_t k_clock = 25, k_pause = 20, k_yield = 1000;
static _Atomic uint32_t k_park = FL_ADAPT_PARK_BOOT_NS, k_park_cpu, k_late;
static _Atomic uint32_t k_spin_rt; /* point 6 */

/* How a spinner polls (point 6): the gap, and try_adaptive's counts in
 * tries a gap apart (what were counts of tries a pause apart, divided by
 * the gap, at least 1), one word each, set together at calibration. */
#define FL_ADAPT_QUICK_YIELD 4
#define FL_ADAPT_PROBE_EVERY 256
struct gaps {
	int gap, quick, quick_yield, probe_every, spin_clock, clock_every, deadline_every;
};
#define GAPS_N 7
static _Atomic int k_gaps[GAPS_N] = { 1, FL_ADAPT_QUICK, FL_ADAPT_QUICK_YIELD, FL_ADAPT_PROBE_EVERY,
				      16, 8, 64 };

static void gaps_set(struct fl_adapt_polls q)
{
	int m = (int)q.gap, v[GAPS_N] = { m, (int)q.quick / m, FL_ADAPT_QUICK_YIELD / m,
					  FL_ADAPT_PROBE_EVERY / m, 16 / m, 8 / m, 64 / m };
	for (int i = 0; i < GAPS_N; i++)
		atomic_store_explicit(&k_gaps[i], v[i] > 0 ? v[i] : 1, memory_order_relaxed);
}

static struct gaps gaps_now(void)
{
	int v[GAPS_N];
	for (int i = 0; i < GAPS_N; i++)
		v[i] = atomic_load_explicit(&k_gaps[i], memory_order_relaxed);
	return (struct gaps){ v[0], v[1], v[2], v[3], v[4], v[5], v[6] };
}
static _Atomic int k_calibrated, k_calibrating;

#define HANDOFFS 16
/* The spin handoffs (point 6): SPIN_BLOCKS blocks of SPIN_TRIPS round
 * trips, polls one pause apart; the median block. */
#define SPIN_BLOCKS 9
#define SPIN_TRIPS 32
#define SPIN_STOP 0x40000000u /* in `there`: the partner's signal to stop */

struct partner {
	_Atomic uint32_t word;  /* 2i+1: the partner's turn in round i; 2i+2: ours */
	bool elsewhere;         /* run on cpus (set before the thread starts) */
	cpu_set_t cpus;
	/* the spin handoffs' two token counts, a semaphore's word each: the
	 * partner takes from `there` and posts to `back` */
	_Alignas(64) _Atomic uint32_t there;
	_Alignas(64) _Atomic uint32_t back;
};

/* A spinner's wait for a token on w: polls a pause apart, each a load
 * and, on a count, the CAS that takes one (acquire: as a trywait);
 * returns the count it took from, or one with SPIN_STOP. A poller that
 * has seen no count in 4096 polls yields between them (its partner is
 * off its CPU). */
static uint32_t poll_take(_Atomic uint32_t *w)
{
	for (unsigned i = 1;; i++) {
		uint32_t x = atomic_load_explicit(w, memory_order_relaxed);
		if (x & SPIN_STOP)
			return x;
		if (x > 0 && atomic_compare_exchange_weak_explicit(w, &x, x - 1, memory_order_acquire,
								    memory_order_relaxed))
			return x;
		fl_cpu_relax();
		if (i >= 4096)
			sched_yield();
	}
}

/* The partner's side of the handoffs: wait for its turn, hand back, wake;
 * then, on another CPU, the spin handoffs: take a token from `there`,
 * post one to `back` (a fetch_add, release, as a post), until told to
 * stop. */
static void *partner_main(void *arg)
{
	struct partner *p = arg;
	if (p->elsewhere)
		sched_setaffinity(0, sizeof p->cpus, &p->cpus); /* best effort */
	for (uint32_t i = 0; i < HANDOFFS; i++) {
		uint32_t v;
		while ((v = atomic_load_explicit(&p->word, memory_order_acquire)) != 2 * i + 1)
			fl_futex_wait(&p->word, v, NULL, false);
		atomic_store_explicit(&p->word, 2 * i + 2, memory_order_release);
		fl_futex_wake(&p->word, 1, false);
	}
	if (!p->elsewhere)
		return NULL;
	while (!(poll_take(&p->there) & SPIN_STOP))
		atomic_fetch_add_explicit(&p->back, 1, memory_order_release);
	return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t thread_cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The park: HANDOFFS round trips of a futex word between this thread and
 * a partner, each side sleeping until the other hands it back. The
 * partner runs on another CPU when the process may use more than one: a
 * parked waiter is woken by a poster running elsewhere (on one CPU, the
 * handoff is a switch on that CPU, which is then what a park costs). A round
 * trip is two handoffs; the median over the round trips, halved. The CPU:
 * this thread's CPU per round trip (one wake and one sleep of its own,
 * the partner's the same), i.e. per handoff for both sides together. */
static int calibrate_park(uint32_t *park, uint32_t *park_cpu, uint32_t *spin_rt)
{
	struct partner p = { .word = 0 };
	pthread_t t;
	int here = sched_getcpu();
	if (here >= 0 && sched_getaffinity(0, sizeof p.cpus, &p.cpus) == 0 &&
	    CPU_COUNT(&p.cpus) > 1) {
		CPU_CLR(here, &p.cpus); /* the partner on another CPU: a cross-CPU wake */
		p.elsewhere = true;
	}
	if (pthread_create(&t, NULL, partner_main, &p))
		return -1;
	int64_t rt[HANDOFFS], cpu0 = thread_cpu_ns();
	for (uint32_t i = 0; i < HANDOFFS; i++) {
		int64_t t0 = fl_now_ns();
		atomic_store_explicit(&p.word, 2 * i + 1, memory_order_release);
		fl_futex_wake(&p.word, 1, false);
		uint32_t v;
		while ((v = atomic_load_explicit(&p.word, memory_order_acquire)) != 2 * i + 2)
			fl_futex_wait(&p.word, v, NULL, false);
		rt[i] = fl_now_ns() - t0;
	}
	int64_t cpu = (thread_cpu_ns() - cpu0) / HANDOFFS;
	*spin_rt = 0;
	if (p.elsewhere) { /* the spin handoffs (point 6) */
		int64_t b[SPIN_BLOCKS];
		for (int k = 0; k < SPIN_BLOCKS; k++) {
			int64_t t0 = fl_now_ns();
			for (int i = 0; i < SPIN_TRIPS; i++) {
				atomic_fetch_add_explicit(&p.there, 1, memory_order_release);
				poll_take(&p.back);
			}
			b[k] = (fl_now_ns() - t0) / SPIN_TRIPS;
		}
		atomic_fetch_or_explicit(&p.there, SPIN_STOP, memory_order_release);
		qsort(b, SPIN_BLOCKS, sizeof b[0], cmp_i64);
		*spin_rt = (uint32_t)b[SPIN_BLOCKS / 2];
	}
	pthread_join(t, NULL);
	qsort(rt, HANDOFFS, sizeof rt[0], cmp_i64);
	*park = (uint32_t)(rt[HANDOFFS / 2] / 2);
	*park_cpu = (uint32_t)cpu;
	return 0;
}

int fl_adapt_calibrate(void)
{
	int no = 0;
	if (!atomic_compare_exchange_strong(&k_calibrating, &no, 1))
		return 0; /* another thread is at it: its figures will do */
	int64_t t0 = fl_now_ns();
	for (int i = 0; i < 64; i++)
		(void)fl_now_ns();
	atomic_store_explicit(&k_clock, (uint32_t)((fl_now_ns() - t0) / 65), memory_order_relaxed);
	/* the pause: 9 blocks of 32, the median block (one preemption inside
	 * a single bulk timing would make it many times too long, and the gap
	 * of point 6 with it) */
	int64_t pb[9];
	for (int k = 0; k < 9; k++) {
		t0 = fl_now_ns();
		for (int i = 0; i < 32; i++)
			fl_cpu_relax();
		pb[k] = fl_now_ns() - t0;
	}
	qsort(pb, 9, sizeof pb[0], cmp_i64);
	atomic_store_explicit(&k_pause, (uint32_t)(pb[4] / 32), memory_order_relaxed);
	int64_t y[16];
	for (int i = 0; i < 16; i++) {
		int64_t a = fl_now_ns();
		sched_yield();
		y[i] = fl_now_ns() - a;
	}
	qsort(y, 16, sizeof y[0], cmp_i64);
	atomic_store_explicit(&k_yield, (uint32_t)y[8], memory_order_relaxed);
	uint32_t park, park_cpu, spin_rt;
	int r = calibrate_park(&park, &park_cpu, &spin_rt);
	if (!r) {
		atomic_store_explicit(&k_park, park, memory_order_relaxed);
		atomic_store_explicit(&k_park_cpu, park_cpu, memory_order_relaxed);
		/* a spin round trip slower than a futex handoff did not have the
		 * two threads running at once (a CPU taken meanwhile): not
		 * measured, the polls a pause apart */
		if (spin_rt > park)
			spin_rt = 0;
		struct fl_adapt_polls q = fl_adapt_polls(spin_rt, atomic_load_explicit(&k_pause, memory_order_relaxed));
		atomic_store_explicit(&k_spin_rt, spin_rt, memory_order_relaxed);
		gaps_set(q);
		atomic_store_explicit(&k_calibrated, 1, memory_order_relaxed);
	}
	atomic_store_explicit(&k_calibrating, 0, memory_order_release);
	return r;
}

/* The polls try_adaptive uses: the gap, and its clock-free tries in
 * pauses (tries times the gap). */
static struct fl_adapt_polls polls_in_use(void)
{
	struct gaps g = gaps_now();
	return (struct fl_adapt_polls){ (uint32_t)g.gap, (uint32_t)(g.quick * g.gap) };
}

struct fl_adapt_costs fl_adapt_costs(void)
{
	return (struct fl_adapt_costs){
		atomic_load_explicit(&k_clock, memory_order_relaxed),
		atomic_load_explicit(&k_pause, memory_order_relaxed),
		atomic_load_explicit(&k_yield, memory_order_relaxed),
		atomic_load_explicit(&k_park, memory_order_relaxed),
		atomic_load_explicit(&k_park_cpu, memory_order_relaxed),
		atomic_load_explicit(&k_late, memory_order_relaxed),
		atomic_load_explicit(&k_calibrated, memory_order_relaxed),
		atomic_load_explicit(&k_spin_rt, memory_order_relaxed),
		polls_in_use(),
	};
}

/* The cap of every window: what a park costs, clamped (point 2) — its
 * latency (the handoff) and the CPU its sleep and wake take, as trying
 * costs CPU and saves latency. */
static uint32_t window_cap(void)
{
	uint32_t p = atomic_load_explicit(&k_park, memory_order_relaxed) +
		     atomic_load_explicit(&k_park_cpu, memory_order_relaxed);
	return p < FL_ADAPT_CAP_MIN_NS ? FL_ADAPT_CAP_MIN_NS
	       : p > FL_ADAPT_CAP_MAX_NS ? FL_ADAPT_CAP_MAX_NS : p;
}

/* The timer's lateness: a quarter of the way towards each new figure. */
static void learn_late(int64_t late)
{
	if (late < 0)
		late = 0;
	if (late > FL_ADAPT_CAP_MAX_NS)
		late = FL_ADAPT_CAP_MAX_NS;
	int64_t l = atomic_load_explicit(&k_late, memory_order_relaxed);
	l = l ? l + (late - l) / 4 : late;
	atomic_store_explicit(&k_late, (uint32_t)l, memory_order_relaxed);
}

/* ---- the machine's load (point 4) ----------------------------------------- */

static _Atomic int64_t load_next_ns;
static _Atomic int load_over;
static _Atomic uint64_t load_reads; /* tests: fl_adapt_load_reads */

/* nr_running from /proc/loadavg ("0.00 0.01 0.05 3/345 1234"), or -1.
 * open/read/close each time: no descriptor is kept open in a program the
 * shim is preloaded into. */
static int nr_running(void)
{
	char buf[128];
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	int running;
	return sscanf(buf, "%*s %*s %*s %d/", &running) == 1 ? running : -1;
}

/* The CPUs this thread may run on (the process's, when every thread has
 * the same affinity, as under --pin), or the online CPUs. */
static int cpus_allowed(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static bool oversubscribed_at(int64_t now)
{
	int forced = atomic_load_explicit(&load_forced, memory_order_relaxed);
	if (forced >= 0)
		return forced;
	int64_t next = atomic_load_explicit(&load_next_ns, memory_order_relaxed);
	if (now < next || !atomic_compare_exchange_strong_explicit(
				  &load_next_ns, &next, now + FL_ADAPT_LOAD_NS, memory_order_relaxed,
				  memory_order_relaxed))
		return atomic_load_explicit(&load_over, memory_order_relaxed);
	atomic_fetch_add_explicit(&load_reads, 1, memory_order_relaxed);
	int cpus = cpus_allowed(), running = cpus > 1 ? nr_running() : 0;
	int over = cpus == 1 || (running > 0 && running > cpus);
	atomic_store_explicit(&load_over, over, memory_order_relaxed);
	return over;
}

bool fl_adapt_oversubscribed(void)
{
	return oversubscribed_at(fl_now_ns());
}

uint64_t fl_adapt_load_reads(void)
{
	return atomic_load_explicit(&load_reads, memory_order_relaxed);
}

/* The machine's load for a plan: the clock is read (to see whether the
 * sample is due) once in 64 calls of a thread, so the spinning fast path
 * pays no clock read; a sample is at most 64 slow waits older than
 * FL_ADAPT_LOAD_NS. */
static bool oversubscribed(void)
{
	static _Thread_local unsigned calls;
	if (calls++ % 64 == 0 || atomic_load_explicit(&load_forced, memory_order_relaxed) >= 0)
		return oversubscribed_at(fl_now_ns());
	return atomic_load_explicit(&load_over, memory_order_relaxed);
}

/* ---- the table of what each semaphore learned ----------------------------- */

struct slot {
	_Alignas(64) _Atomic uint64_t packed; /* used 1 | window 23 | shift 8 | spin_wins 5 | seq 27; 0: never used */
};
static struct slot slots[256];

static struct slot *slot_of(const void *s)
{
	uint64_t h = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15u;
	return &slots[h >> 56];
}

static struct fl_adapt slot_load(struct slot *sl)
{
	uint64_t x = atomic_load_explicit(&sl->packed, memory_order_relaxed);
	if (!x)
		return (struct fl_adapt)FL_ADAPT_INIT;
	/* bit 63 marks a used slot (a learned window of 0 with seq 0 is not "new") */
	return (struct fl_adapt){ (uint32_t)(x >> 40) & 0x7fffff, (uint32_t)x & 0x7ffffff,
				  (uint32_t)(x >> 32) & 0xff, (uint32_t)(x >> 27) & 0x1f };
}

static void slot_store(struct slot *sl, const struct fl_adapt *a)
{
	uint64_t x = 1ull << 63 | (uint64_t)(a->window_ns & 0x7fffff) << 40 |
		     (uint64_t)(a->probe_shift & 0xff) << 32 | (uint64_t)(a->spin_wins & 0x1f) << 27 |
		     (a->seq & 0x7ffffff);
	atomic_store_explicit(&sl->packed, x, memory_order_relaxed);
}

void fl_policy_forget(void)
{
	for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
		atomic_store_explicit(&slots[i].packed, 0, memory_order_relaxed);
	/* the load's sample too: it describes the threads that ran before (a
	 * rep of another point, T=1, read by the next rep's first 4 ms as "not
	 * oversubscribed": results/policy.md, "Oversub inside a sweep") */
	atomic_store_explicit(&load_next_ns, 0, memory_order_relaxed);
}

uint32_t fl_adapt_window_of(const void *s)
{
	return slot_load(slot_of(s)).window_ns;
}

/* ---- the waits ------------------------------------------------------------ */

static int design_wait(const struct fl_variant *v, void *s, const struct timespec *dl)
{
	return dl ? v->timedwait(s, dl) : v->wait(s);
}

/* ---- the mutation run's policy mutants -----------------------------------
 * Compiled only into tests/mutants' suites (-DFL_POLICY_MUTANTS), never into
 * the product, as lib/race.h's windows: a design of that registry named
 * mut_policy_KIND_... is waited on with mutation KIND, every other one by
 * the policy as written (tests/mutants.md, "Policy mutants"). Each breaks
 * one clause of policy.h's CORRECTNESS, and only where the policy acts
 * (after a failed first try, under spin, spin-yield or adaptive):
 *   skip    after its tries, returns 0 without the design's wait: a token
 *           nobody gave (the design's wait is what re-checks its condition
 *           before it sleeps, and what takes the token it returns);
 *   sleep   after its tries, sleeps on the design's word (v->words) with
 *           the value it read there instead of calling the design's wait,
 *           then re-tries: a sleep outside the design — no claim, no
 *           registration, so no post owes it a wake;
 *   credit  a try of the policy's (its first or a re-try) that saw a token
 *           (getvalue > 0) returns success even when its trywait lost that
 *           token to another taker. */
#ifdef FL_POLICY_MUTANTS
enum { MUT_NONE, MUT_SKIP, MUT_SLEEP, MUT_CREDIT, MUT_N };

static int mutant_of(const struct fl_variant *v)
{
	static const char *const prefix[MUT_N] = {
		[MUT_SKIP] = "mut_policy_skip_",
		[MUT_SLEEP] = "mut_policy_sleep_",
		[MUT_CREDIT] = "mut_policy_credit_",
	};
	for (int k = MUT_SKIP; k < MUT_N; k++)
		if (!strncmp(v->name, prefix[k], strlen(prefix[k])))
			return k;
	return MUT_NONE;
}

static int sleep_outside(const struct fl_variant *v, void *s, const struct timespec *dl)
{
	_Atomic uint32_t *w;
	if (!v->words || v->words(s, &w, 1) < 1)
		return design_wait(v, s, dl);
	for (;;) {
		uint32_t val = atomic_load_explicit(w, memory_order_relaxed);
		int r = fl_futex_wait(w, val, dl, false);
		if (v->trywait(s) == 0)
			return 0;
		if (r == ETIMEDOUT || r == EINTR || r == EINVAL)
			return r;
	}
}
#endif

/* One try: the design's trywait. */
static bool try_once(const struct fl_variant *v, void *s)
{
#ifdef FL_POLICY_MUTANTS
	if (mutant_of(v) == MUT_CREDIT) {
		bool seen = v->getvalue && v->getvalue(s) > 0;
		fl_race_window(); /* another taker lands between the look and the try */
		return v->trywait(s) == 0 || seen;
	}
#endif
	return v->trywait(s) == 0;
}

/* What follows re-tries that took nothing: the design's wait. */
static int after_tries(const struct fl_variant *v, void *s, const struct timespec *dl)
{
#ifdef FL_POLICY_MUTANTS
	int m = mutant_of(v);
	if (m == MUT_SKIP)
		return 0;
	if (m == MUT_SLEEP)
		return sleep_outside(v, s, dl);
#endif
	return design_wait(v, s, dl);
}

static bool target_try(struct fl_policy_target *t)
{
	if (t->n == 1)
		return try_once(t->v, t->sems[0]);
	for (int k = 1; k <= t->n; k++) {
		int i = (t->got + k) % t->n;
		if (t->v->trywait(t->sems[i]) == 0) {
			t->got = i;
			return true;
		}
	}
	return false;
}

/* spin:N and spin-yield:N: up to n re-tries; true when one took a token.
 * A timed wait stops trying at its deadline (checked every 64 pauses, or
 * every yield). */
static bool try_bounded(struct fl_policy_target *tg, const struct timespec *dl, int n, bool yield)
{
	for (int i = 1; i <= n; i++) {
		if (yield)
			sched_yield();
		else
			fl_cpu_relax();
		if (target_try(tg))
			return true;
		if (dl && (yield || i % 64 == 0) && fl_deadline_passed(dl))
			return false;
	}
	return false;
}

/* ---- the adaptive waits --------------------------------------------------- */

/* Tries under an adaptive plan; true when a try won, with *tried_ns what it
 * spent (point 3). It first tries a few times, a pause between tries,
 * without reading the clock (a try and its pause cost about one clock
 * read: a wait that wins within them is "short", tried 0). A yielder then
 * spins for sp->budget_ns, when set (point 4; sp->ran, sp->won: whether it
 * ran, whether it took the token): its first FL_ADAPT_QUICK tries, timed
 * by the calibrated pause, then tries with a clock read once in 16. A
 * ping-pong's waiter that a probe's yield made a yielder wins within those
 * first tries and reads no clock; reading it at the spin's start and
 * once in 8 tries cost pingpong up to 20 % (results/policy.md, "pingpong").
 * Then it tries until plan->budget_ns is
 * spent (or the wait's deadline passes). A spinner's spending is the time
 * since; a yielder's, per yield, the time the yield took when it kept the
 * CPU, its calibrated cost when it gave the CPU away (it took over twice
 * that). A spinner yields once every FL_ADAPT_PROBE_EVERY tries (about 5
 * yields' worth of spinning: a ping-pong's waits, a few hundred ns, pay
 * one only when the partner is off its CPU), to see whether anyone wants
 * its CPU (point 4): a yield that gave the CPU away turns it into a
 * yielder, and its thread's next waits start yielding for
 * FL_ADAPT_LOAD_NS. */
static _Thread_local int64_t yield_until; /* this thread's waits start yielding until then */

/* The gap between two polls of a spinner (point 6): m pauses. */
static inline void gap_wait(uint32_t m)
{
	for (uint32_t k = 0; k < m; k++)
		fl_cpu_relax();
}

/* A spinner's clock-free tries: g->quick, but within what the wait may
 * spend (down to FL_ADAPT_QUICK pauses, as before point 6). */
static int quick_tries(const struct gaps *g, uint32_t pause, uint32_t may)
{
	if ((uint64_t)g->quick * (uint32_t)g->gap * pause <= may)
		return g->quick;
	uint32_t q = may / (pause ? pause : 1);
	return (int)((q > FL_ADAPT_QUICK ? q : FL_ADAPT_QUICK) / (uint32_t)g->gap);
}

struct spin_phase {
	uint32_t budget_ns;     /* a yielder's spin before its first yield; 0: none */
	bool ran, won;
};

static bool try_adaptive(struct fl_policy_target *tg, const struct timespec *dl,
			 const struct fl_adapt_plan *plan, struct spin_phase *sp,
			 uint64_t *tried_ns)
{
	bool yield = plan->mode == FL_ADAPT_YIELD;
	int64_t yield_ns = atomic_load_explicit(&k_yield, memory_order_relaxed);
	int64_t t0 = 0, prev = 0, spent = 0;
	bool spin_first = yield && sp->budget_ns;
	/* the polls' gap (point 6) and the counts in gaps, set at calibration
	 * (no division here, before the first poll) */
	struct gaps g = gaps_now();
	uint32_t m = (uint32_t)g.gap, pause = atomic_load_explicit(&k_pause, memory_order_relaxed);
	int quick = !yield || spin_first
		    ? quick_tries(&g, pause, yield ? sp->budget_ns : plan->budget_ns)
		    : g.quick_yield;
	/* countdowns, each reset to its count when it reaches 0 */
	int probe_every = g.probe_every, spin_clock = g.spin_clock;
	int clock_every = g.clock_every, deadline_every = g.deadline_every;
	int probe_in = probe_every, clock_in = clock_every, deadline_in = deadline_every;
	*tried_ns = 0;
	for (int i = 1;; i++) {
		if (i <= quick) {
			gap_wait(m);
			if (target_try(tg)) {
				sp->ran = sp->won = spin_first;
				return true;
			}
			continue;
		}
		if (i == quick + 1) {
			t0 = prev = fl_now_ns();
			if (dl && fl_deadline_passed(dl))
				return false;
			if (spin_first) { /* the spin before the first yield, the quick tries its start */
				sp->ran = true;
				t0 -= quick * m * pause;
				for (int k = spin_clock;; ) {
					gap_wait(m);
					if (target_try(tg)) {
						sp->won = true;
						*tried_ns = (uint64_t)(fl_now_ns() - t0);
						return true;
					}
					if (--k > 0)
						continue;
					k = spin_clock;
					if ((prev = fl_now_ns()) - t0 >= sp->budget_ns)
						break;
				}
				spent = prev - t0;
			}
		}
		if (yield || --probe_in == 0) {
			probe_in = probe_every;
			int64_t a = yield ? prev : fl_now_ns();
			sched_yield();
			int64_t t = fl_now_ns(), d = t - a;
			bool gave = d > 2 * yield_ns;
			if (yield)
				spent += gave ? yield_ns : d;
			else if (gave) { /* somebody wanted this CPU: from now on, yield */
				yield = true;
				yield_until = t + FL_ADAPT_LOAD_NS;
				spent = a - t0 + yield_ns;
			}
			prev = t;
		} else {
			gap_wait(m);
		}
		bool won = target_try(tg);
		bool clock = --clock_in == 0, due = --deadline_in == 0;
		if (clock)
			clock_in = clock_every;
		if (due)
			deadline_in = deadline_every;
		if (!yield && (won || clock))
			spent = fl_now_ns() - t0;
		*tried_ns = (uint64_t)spent;
		if (won)
			return true;
		if (spent >= plan->budget_ns || (dl && (yield || due) && fl_deadline_passed(dl)))
			return false;
	}
}

/* The tries after a parked timed wait returned early (point 5): until the
 * deadline has passed, spinning or yielding as the plan's mode says. */
static bool try_until(struct fl_policy_target *tg, const struct timespec *dl, bool yield)
{
	while (!fl_deadline_passed(dl)) {
		if (yield)
			sched_yield();
		else
			fl_cpu_relax();
		if (target_try(tg))
			return true;
	}
	return false;
}

/* The thread's timer slack as it found it (-1: not read yet). */
static _Thread_local long slack_found = -1;

/* The park of a timed wait (point 5): the design's timed wait with the
 * thread's timer slack lowered to 1/64 of the time left (when that is
 * lower), until the deadline less the timer's learned lateness; then the
 * tries until the deadline. */
static int park_timed(struct fl_policy_target *tg, const struct timespec *dl, bool yield)
{
	int64_t now = fl_now_ns(), end = fl_ts_to_ns(dl), left = end - now;
	int64_t late = atomic_load_explicit(&k_late, memory_order_relaxed);
	if (left <= 0)
		return after_tries(tg->v, tg->sems[0], dl); /* the design's own answer */
	if (late >= left)
		return try_until(tg, dl, yield) ? 0 : ETIMEDOUT;
	struct timespec early = fl_ns_to_ts(end - late);
	if (slack_found < 0)
		slack_found = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	long want = left / 64 > 0 ? left / 64 : 1;
	bool lowered = slack_found > want && prctl(PR_SET_TIMERSLACK, want, 0, 0, 0) == 0;
	int r = after_tries(tg->v, tg->sems[0], &early);
	if (lowered)
		prctl(PR_SET_TIMERSLACK, slack_found, 0, 0, 0);
	if (r != ETIMEDOUT)
		return r;
	learn_late(fl_now_ns() - (end - late));
	if (fl_deadline_passed(dl))
		return ETIMEDOUT;
	return try_until(tg, dl, yield) ? 0 : ETIMEDOUT;
}

/* The park after the tries (or at once): the target's, or the design's. */
static int park_adaptive(struct fl_policy_target *tg, const struct timespec *dl, bool yield)
{
	if (tg->park)
		return tg->park(tg, dl);
	return dl ? park_timed(tg, dl, yield) : after_tries(tg->v, tg->sems[0], NULL);
}

/* Whether this thread's waits still yield after a probe's yield gave the
 * CPU away (point 4); once that has passed, the mark is cleared, so that
 * a thread's later waits pay no clock read for it. */
static bool yielding(void)
{
	if (!yield_until)
		return false;
	if (fl_now_ns() < yield_until)
		return true;
	yield_until = 0;
	return false;
}

static int wait_adaptive(struct fl_policy_target *tg, const struct timespec *dl)
{
	const void *key = tg->sems[0];
	struct slot *sl = slot_of(key);
	struct fl_adapt a = slot_load(sl), was = a;
	uint32_t cap = window_cap();
	bool yield = oversubscribed() || yielding();
	struct fl_adapt_plan plan = fl_adapt_plan(&a, yield, cap);
	uint64_t tried = 0;
	/* a yielder's spin before its first yield, for a yield's cost, while
	 * such spins pay; one wait in 16 of a thread spins all the same (the
	 * probe that finds them paying again) */
	static _Thread_local unsigned spin_probes;
	bool spin_first = fl_adapt_spin_first(&a) || spin_probes++ % 16 == 15;
	struct spin_phase sp = {
		spin_first ? atomic_load_explicit(&k_yield, memory_order_relaxed) : 0, false, false
	};
	bool won = plan.mode != FL_ADAPT_PARK && try_adaptive(tg, dl, &plan, &sp, &tried);
	int r = 0;
	bool lost = !won && plan.mode != FL_ADAPT_PARK;
	if (lost) { /* park first, then learn how near the token was (point 3) */
		int64_t p0 = fl_now_ns();
		r = park_adaptive(tg, dl, yield);
		int64_t late = fl_now_ns() - p0 - atomic_load_explicit(&k_park, memory_order_relaxed);
		a = was = slot_load(sl); /* what other waiters taught it meanwhile */
		fl_adapt_learn_loss(&a, &plan, r == 0 ? (late > 0 ? late : 0) : -1, cap);
	} else {
		fl_adapt_learn(&a, &plan, won, tried, cap);
	}
	if (sp.ran)
		fl_adapt_learn_spin(&a, sp.won);
	/* a lesson that changes nothing is not written: many waiters winning
	 * on one semaphore would otherwise pass its slot's line around */
	if (memcmp(&a, &was, sizeof a))
		slot_store(sl, &a);
	if (won || lost)
		return r;
	return park_adaptive(tg, dl, yield);
}

/* Every policy but park: the first try, then the policy's. */
static int policy_wait(struct fl_policy_target *tg, const struct timespec *dl)
{
	struct fl_policy p = fl_policy_get();
	if (target_try(tg))
		return 0;
	if (p.kind == FL_POLICY_ADAPTIVE)
		return wait_adaptive(tg, dl);
	if (try_bounded(tg, dl, p.bound, p.kind == FL_POLICY_SPIN_YIELD))
		return 0;
	if (tg->park)
		return tg->park(tg, dl);
	return after_tries(tg->v, tg->sems[0], dl);
}

int fl_policy_wait(const struct fl_variant *v, void *s, const struct timespec *dl)
{
	/* a shipped library waits its own way (policy.h); a deadline the
	 * design must reject (EINVAL when no token is available): the design
	 * alone */
	if (!fl_policy_applies(v) || (dl && !fl_ts_valid(dl)))
		return design_wait(v, s, dl);
	void *sems[1] = { s };
	struct fl_policy_target tg = { v, sems, 1, 0, NULL };
	return policy_wait(&tg, dl);
}

int fl_policy_wait_target(struct fl_policy_target *tg, const struct timespec *dl)
{
	return policy_wait(tg, dl);
}
