/* variants/policy.c — the waiting policies of policy.h.
 *
 * THE ADAPTIVE POLICY
 *
 * A waiter that finds no token can spend CPU to save latency (try again
 * until a token comes) or spend a sleep and a wakeup (on the 2-vCPU VM
 * futexlab is measured on, ~10 us of CPU each and 15-40 us from wake to
 * run) to save the CPU. Which pays depends on how long the token takes
 * to come, and on whether trying steals the CPU that the poster needs.
 *
 * 1. How long to try. Trying for W before parking, against a token that
 *    comes after D: if D <= W the waiter pays D of CPU and no latency; if
 *    D > W it pays W and then a park. Trying for as long as a park costs
 *    (W = P, about 20 us here: FL_ADAPT_MAX_NS) never pays more than twice
 *    the best choice made knowing D (the ski-rental argument of Karlin et
 *    al.'s competitive spinning), and no longer window can be justified
 *    without knowing D. Within that bound the window is learned per
 *    semaphore, as glibc's adaptive mutex learns its spin count (a running
 *    average of the spins that succeeded): a wait that won after t moves
 *    the window a quarter of the way towards 2t (twice what the recent
 *    waits needed, never under FL_ADAPT_MIN_NS: a window shorter than a
 *    few tries only adds the clock reads); a wait that tried its whole
 *    window and still parked halves it, and under FL_ADAPT_MIN_NS the
 *    semaphore parks at once. Short waits thus keep a window just above
 *    what they need; long waits close it in a few misses.
 * 2. Finding out that waits became short again. A parked semaphore
 *    learns nothing from its parks (a parked wait lasts at least the
 *    wake-to-run latency, however soon the token came), so it probes: one
 *    wait in 2^k tries for the whole of FL_ADAPT_MAX_NS. A probe that
 *    wins reopens the window (2t) and k returns to 0; one that loses
 *    doubles the interval (k + 1, up to FL_ADAPT_PROBE_SHIFT_MAX: one
 *    wait in 256), so on a semaphore whose waits are always long the
 *    probes cost at most P / 256 per wait — under half a per cent of the
 *    park they ride on.
 * 3. Whether to spin or to yield. Spinning is free only while it takes
 *    a CPU nobody else needs (the kernel's optimistic spinning spins only
 *    while the lock's owner is on a CPU, for the same reason). A semaphore
 *    has no owner to look at, so the machine is: when it has more
 *    runnable threads than this process may use CPUs (nr_running from
 *    /proc/loadavg, which counts spinners as running), a spinner delays
 *    the very thread that would post. Then every 16th try is followed
 *    by sched_yield(2) instead of a pause (FL_ADAPT_YIELD_EVERY): the
 *    CPU goes to a runnable thread — the poster, or another waiter —
 *    now and then, and the waiter still saves the sleep and the wakeup
 *    when the token comes within its window; the window may then grow to
 *    FL_ADAPT_YIELD_MAX_NS (64 us, libc++'s bound on its yielding),
 *    since a waiter that yields gives back part of the CPU it holds.
 *    (Measured on the VM, prodcons T=4 K=4, one run: a yield after every
 *    try, 2.0 us an item and 1.2 context switches; a yield every 16th,
 *    0.9 us and 0.45; libc++ 1.2 us.) The
 *    load is read at most every FL_ADAPT_LOAD_NS (4 ms), by one waiter
 *    at a time (a compare-and-swap on the next sample's time), so its
 *    cost (three syscalls) is a fraction of a per cent of a CPU.
 *
 * What is learned is kept in a table of 256 cache-line slots indexed by a
 * hash of the semaphore's address (two semaphores may share a slot: they
 * then share a window, a cost and never an error). A slot is one 64-bit
 * word read and written whole, relaxed: concurrent waiters may overwrite
 * each other's lesson (the last writer's estimate wins), which only
 * slows the learning; nothing orders anything else by it.
 *
 * None of this reaches the design: see policy.h, CORRECTNESS. */
#include "variants/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/cpu.h"
#ifdef FL_POLICY_MUTANTS
#include "lib/futex.h"
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

static _Atomic int cur_kind, cur_bound;
static _Atomic int load_forced = -1; /* FUTEXLAB_POLICY_LOAD: -1 read the machine */

void fl_policy_set(const struct fl_policy *p)
{
	atomic_store_explicit(&cur_kind, (int)p->kind, memory_order_relaxed);
	atomic_store_explicit(&cur_bound, p->bound, memory_order_relaxed);
	const char *f = getenv("FUTEXLAB_POLICY_LOAD"); /* before threads start: no race */
	atomic_store_explicit(&load_forced, f && (*f == '0' || *f == '1') ? *f - '0' : -1,
			      memory_order_relaxed);
}

struct fl_policy fl_policy_get(void)
{
	struct fl_policy p = {
		(enum fl_policy_kind)atomic_load_explicit(&cur_kind, memory_order_relaxed),
		atomic_load_explicit(&cur_bound, memory_order_relaxed),
	};
	return p;
}

/* ---- the adaptive policy's learning (pure) -------------------------------- */

struct fl_adapt_plan fl_adapt_plan(const struct fl_adapt *a, bool oversubscribed)
{
	enum fl_adapt_mode trying = oversubscribed ? FL_ADAPT_YIELD : FL_ADAPT_SPIN;
	uint32_t cap = oversubscribed ? FL_ADAPT_YIELD_MAX_NS : FL_ADAPT_MAX_NS;
	if (a->window_ns > 0)
		return (struct fl_adapt_plan){ trying, a->window_ns < cap ? a->window_ns : cap, false };
	uint32_t every = 1u << a->probe_shift;
	if (a->seq % every == every - 1)
		return (struct fl_adapt_plan){ trying, cap, true };
	return (struct fl_adapt_plan){ FL_ADAPT_PARK, 0, false };
}

void fl_adapt_learn(struct fl_adapt *a, const struct fl_adapt_plan *plan, bool won,
		    uint64_t tried_ns, uint64_t parked_ns)
{
	(void)parked_ns; /* a park lasts at least the wake-to-run latency: it says
			  * nothing about how soon the token came (point 2 above) */
	if (a->window_ns == 0)
		a->seq++; /* the probe schedule counts the waits of a parked semaphore */
	if (plan->mode == FL_ADAPT_PARK)
		return;
	if (won) {
		uint64_t t2 = 2 * tried_ns;
		uint32_t cap = plan->mode == FL_ADAPT_YIELD ? FL_ADAPT_YIELD_MAX_NS : FL_ADAPT_MAX_NS;
		int64_t target = t2 < FL_ADAPT_MIN_NS ? FL_ADAPT_MIN_NS : t2 > cap ? cap : (int64_t)t2;
		int64_t w = plan->probe ? target : a->window_ns + (target - (int64_t)a->window_ns) / 4;
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

/* ---- the machine's load --------------------------------------------------- */

static _Atomic int64_t load_next_ns;
static _Atomic int load_over;

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
	static _Atomic long ncpu;
	long cpus = atomic_load_explicit(&ncpu, memory_order_relaxed);
	if (cpus <= 0) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		atomic_store_explicit(&ncpu, cpus, memory_order_relaxed);
	}
	int running = nr_running();
	int over = running > 0 && cpus > 0 && running > cpus;
	atomic_store_explicit(&load_over, over, memory_order_relaxed);
	return over;
}

bool fl_adapt_oversubscribed(void)
{
	return oversubscribed_at(fl_now_ns());
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
	_Alignas(64) _Atomic uint64_t packed; /* window 24 bits | shift 8 | seq 32; 0: never used */
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
	return (struct fl_adapt){ (uint32_t)(x >> 40) & 0x7fffff, (uint32_t)x,
				  (uint32_t)(x >> 32) & 0xff };
}

static void slot_store(struct slot *sl, const struct fl_adapt *a)
{
	uint64_t x = 1ull << 63 | (uint64_t)(a->window_ns & 0x7fffff) << 40 |
		     (uint64_t)(a->probe_shift & 0xff) << 32 | a->seq;
	atomic_store_explicit(&sl->packed, x, memory_order_relaxed);
}

void fl_policy_forget(void)
{
	for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
		atomic_store_explicit(&slots[i].packed, 0, memory_order_relaxed);
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

/* spin:N and spin-yield:N: up to n re-tries; true when one took a token.
 * A timed wait stops trying at its deadline (checked every 64 pauses, or
 * every yield). */
static bool try_bounded(const struct fl_variant *v, void *s, const struct timespec *dl, int n,
			bool yield)
{
	for (int i = 1; i <= n; i++) {
		if (yield)
			sched_yield();
		else
			fl_cpu_relax();
		if (try_once(v, s))
			return true;
		if (dl && (yield || i % 64 == 0) && fl_deadline_passed(dl))
			return false;
	}
	return false;
}

/* Tries under an adaptive plan; true when a try won, with *tried_ns the
 * time it took. It first tries FL_ADAPT_QUICK times without reading the
 * clock (a clock read costs ~27 ns on the VM, a try with its pause about
 * as much: a wait that wins within them is "short", tried 0), then tries
 * until plan->budget_ns has passed since (or the wait's deadline). A
 * yielding plan yields instead of pausing before every
 * FL_ADAPT_YIELD_EVERY-th try (point 3 above). */
#define FL_ADAPT_QUICK 32
#define FL_ADAPT_YIELD_EVERY 16
static bool try_adaptive(const struct fl_variant *v, void *s, const struct timespec *dl,
			 const struct fl_adapt_plan *plan, uint64_t *tried_ns)
{
	bool yield = plan->mode == FL_ADAPT_YIELD;
	int quick = FL_ADAPT_QUICK;
	int64_t t0 = 0;
	*tried_ns = 0;
	for (int i = 1;; i++) {
		if (i == quick + 1) {
			t0 = fl_now_ns();
			if (dl && fl_deadline_passed(dl))
				return false;
		}
		if (yield && i % FL_ADAPT_YIELD_EVERY == 0)
			sched_yield();
		else
			fl_cpu_relax();
		if (try_once(v, s)) {
			*tried_ns = i <= quick ? 0 : (uint64_t)(fl_now_ns() - t0);
			return true;
		}
		if (i > quick && i % 8 == 0) {
			int64_t t = fl_now_ns();
			*tried_ns = (uint64_t)(t - t0);
			if (t - t0 >= plan->budget_ns || (dl && i % 64 == 0 && fl_deadline_passed(dl)))
				return false;
		}
	}
}

static int wait_adaptive(const struct fl_variant *v, void *s, const struct timespec *dl)
{
	struct slot *sl = slot_of(s);
	struct fl_adapt a = slot_load(sl), was = a;
	struct fl_adapt_plan plan = fl_adapt_plan(&a, oversubscribed());
	uint64_t tried = 0;
	bool won = plan.mode != FL_ADAPT_PARK && try_adaptive(v, s, dl, &plan, &tried);
	int r = won ? 0 : after_tries(v, s, dl);
	fl_adapt_learn(&a, &plan, won, tried, 0);
	/* a lesson that changes nothing is not written: many waiters winning
	 * on one semaphore would otherwise pass its slot's line around */
	if (memcmp(&a, &was, sizeof a))
		slot_store(sl, &a);
	return r;
}

int fl_timedwait(const struct fl_variant *v, void *s, const struct timespec *dl)
{
	struct fl_policy p = fl_policy_get();
	/* park, a shipped library, or a deadline the design must reject
	 * (EINVAL when no token is available): the design alone */
	if (p.kind == FL_POLICY_PARK || !fl_policy_applies(v) || (dl && !fl_ts_valid(dl)))
		return design_wait(v, s, dl);
	if (try_once(v, s))
		return 0;
	if (p.kind == FL_POLICY_ADAPTIVE)
		return wait_adaptive(v, s, dl);
	if (try_bounded(v, s, dl, p.bound, p.kind == FL_POLICY_SPIN_YIELD))
		return 0;
	return after_tries(v, s, dl);
}

int fl_wait(const struct fl_variant *v, void *s)
{
	return fl_timedwait(v, s, NULL);
}
