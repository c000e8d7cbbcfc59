/* hunt/patterns.c — the stress patterns of `futexlab hunt` (patterns.h says
 * what each is and the invariant it checks). */
#include "hunt/patterns.h"

#include <errno.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/futex.h>

#include "lib/clock.h"
#include "hunt/preempt.h"

struct shape {
	int waiters, stealers;
	int k;          /* tokens per wave (herd alternates 1 and k) */
	int settle;     /* post a wave only once every waiter is in its wait:
			 * 0 never, 1 every wave, 2 every other wave */
	bool preempt;
};

#define HOLD_NS 20000 /* a stealer's longest hold before its re-post */
#define STEAL_TRIES 1024 /* failed trywaits before a stealer sleeps to the next wave */

struct hunt {
	struct fl_sem sem;
	struct shape sh;
	pthread_barrier_t start;
	/* stop: set by the coordinator between waves (after it saw the wave's
	 * tokens taken, or a stall); a waiter reads it after each wait, before
	 * counting its token as taken, so a wave token is never counted as a
	 * release token (the coordinator reads taken == target, with acquire,
	 * only after every wave-token taker's load of stop). */
	_Alignas(64) _Atomic int stop;
	_Alignas(64) _Atomic uint32_t wave;    /* the wave being posted (1, 2, ...;
						* a futex word: those done with
						* this wave sleep on it) */
	_Alignas(64) _Atomic int64_t entered;  /* waits the waiters began */
	_Alignas(64) _Atomic int64_t taken;    /* wave tokens the waiters took */
	/* The coordinator sleeps while a wave is being taken (its CPU time,
	 * which the preemption's timer counts, is then all posts): tw is its
	 * futex word, bumped after every take; asleep says it may sleep on it
	 * (Dekker: it stores asleep then reads taken, a waiter adds to taken
	 * then reads asleep, all seq_cst: one of the two sees the other). */
	_Atomic uint32_t tw;
	_Atomic int asleep;
	_Alignas(64) _Atomic int64_t released; /* release tokens the waiters took */
	_Atomic int64_t steals;
	_Atomic int broken;    /* a wait/trywait/post failed: the run ends */
	int64_t hold_ns;       /* a stealer's longest hold: HOLD_NS, or the
				* preemption's stall if longer (the re-post
				* must be able to land within a stall) */
	struct fl_errbox err;
	/* the coordinator's own (no other thread reads them) */
	int64_t posted, waves; /* tokens posted, waves begun */
	bool stalled;          /* a wave or a release was never taken */
};

/* The patterns' own futex calls (the wave word, the coordinator's sleep),
 * as a raw syscall instruction here on x86-64: through libc's syscall()
 * they would land in the text of every design whose own futex calls go
 * through it (futexlab's, the C++ libraries'), and a signal taken on their
 * return would count as — and stall — "inside the library". Returns 0 or
 * a negative errno value. Elsewhere libc's syscall() (the counts then
 * include the patterns' own sleeps, for those designs). */
static long hunt_futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = (long)ts;
	register long r8 __asm__("r8") = 0;
	register long r9 __asm__("r9") = (long)FUTEX_BITSET_MATCH_ANY;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"((long)SYS_futex), "D"(addr), "S"((long)op), "d"((long)val),
			   "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#else
	long r = syscall(SYS_futex, addr, op, val, ts, NULL, FUTEX_BITSET_MATCH_ANY);
	return r < 0 ? -errno : r;
#endif
}

/* Asleep while *addr == val, until the absolute CLOCK_MONOTONIC deadline
 * (NULL: none): 0, or ETIMEDOUT / EAGAIN / EINTR. */
static int hunt_wait(_Atomic uint32_t *addr, uint32_t val, const struct timespec *abs)
{
	long r = hunt_futex(addr, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, val, abs);
	return r < 0 ? (int)-r : 0;
}

static void hunt_wake(_Atomic uint32_t *addr, int n)
{
	hunt_futex(addr, FUTEX_WAKE_PRIVATE, (uint32_t)n, NULL);
}

/* Until the coordinator starts the wave after w (or stops): asleep on the
 * wave word, not spinning, so that a thread done with its wave takes no CPU
 * time (the preemption's timers count CPU time: a yield loop here drew
 * nearly every signal away from the library). */
static void await_next_wave(struct hunt *h, uint32_t w)
{
	while (atomic_load_explicit(&h->wave, memory_order_acquire) == w &&
	       !atomic_load_explicit(&h->stop, memory_order_acquire))
		hunt_wait(&h->wave, w, NULL);
}

/* The coordinator starts wave w (or, at the stop, wakes everyone). */
static void next_wave(struct hunt *h, uint32_t w)
{
	atomic_store_explicit(&h->wave, w, memory_order_release);
	hunt_wake(&h->wave, INT32_MAX);
}

/* After a take (or a failure): the coordinator may be asleep on tw. */
static void poke(struct hunt *h)
{
	atomic_fetch_add(&h->tw, 1);
	if (atomic_load(&h->asleep))
		hunt_wake(&h->tw, 1);
}

static void *waiter(void *arg)
{
	struct hunt *h = arg;
	if (h->sh.preempt)
		fl_preempt_thread_begin();
	pthread_barrier_wait(&h->start);
	for (;;) {
		atomic_fetch_add_explicit(&h->entered, 1, memory_order_release);
		int e = fl_sem_wait(&h->sem);
		if (e) {
			fl_fail_box(&h->err, "wait: %s", strerror(e));
			atomic_store(&h->broken, 1);
			poke(h);
			break;
		}
		if (atomic_load_explicit(&h->stop, memory_order_acquire)) {
			atomic_fetch_add(&h->released, 1);
			break;
		}
		/* At most one token a wave: a waiter that took one waits for
		 * the next wave before it waits again, so a wave's k tokens
		 * must each wake a different sleeper (a waiter coming straight
		 * back would take a token whose wake was lost, and hide it). */
		uint32_t w = atomic_load_explicit(&h->wave, memory_order_relaxed);
		atomic_fetch_add(&h->taken, 1);
		poke(h);
		await_next_wave(h, w);
	}
	if (h->sh.preempt)
		fl_preempt_thread_end();
	return NULL;
}

/* A stealer's hold: asleep (timer slack 1 ns, set by the stealer), not
 * busy — the CPU is left to the waiters going to sleep (2 vCPUs), and the
 * stealer's CPU time, which the preemption's timer counts, to the library. */
static void hold(uint64_t *rng, int64_t max_ns)
{
	struct timespec d = fl_ns_to_ts((int64_t)(*rng % (uint64_t)max_ns));
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &d, &d) == EINTR)
		;
}

static void *stealer(void *arg)
{
	struct hunt *h = arg;
	int64_t n = 0;
	uint64_t rng = (uintptr_t)&n | 1; /* xorshift: the hold before the re-post */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL); /* holds of a few us (best effort) */
	if (h->sh.preempt)
		fl_preempt_thread_begin();
	pthread_barrier_wait(&h->start);
	for (unsigned miss = 0; !atomic_load_explicit(&h->stop, memory_order_relaxed);) {
		uint32_t wave = atomic_load_explicit(&h->wave, memory_order_relaxed);
		int e = fl_sem_trywait(&h->sem);
		if (e == 0) {
			n++;
			/* straight back: the steal races the coordinator's posts
			 * and the waiters' waits */
			uint32_t w = atomic_load_explicit(&h->wave, memory_order_relaxed);
			/* held 0..hold_ns, as a trywait that uses what it got:
			 * the re-post lands after the waiters have gone to sleep */
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			hold(&rng, h->hold_ns);
			struct fl_errbox *eb = &h->err;
			fl_sem_post(&h->sem, 1, eb);
			if (atomic_load(&eb->set)) {
				atomic_store(&h->broken, 1);
				poke(h);
				break;
			}
			/* one steal a wave: a stealer that went on stealing would
			 * re-post, and that post's wake would rescue a waiter whose
			 * wake was lost — hiding the bug */
			await_next_wave(h, w);
		} else if (e != EAGAIN) {
			fl_fail_box(&h->err, "trywait: %s", strerror(e));
			atomic_store(&h->broken, 1);
			poke(h);
			break;
		} else if (++miss % STEAL_TRIES == 0) {
			/* nothing to steal: asleep until the next wave. A stealer
			 * spinning on through a stalled wave would be the one
			 * runnable thread, and the detector confirms a stranding
			 * only when none is (the wave's stall bound would catch
			 * it, 2 s later) */
			await_next_wave(h, wave);
		} else if (miss % 64 == 0) {
			sched_yield(); /* let the woken waiters run (2 vCPUs) */
		}   /* else straight into trywait again: the spin is in the library */
	}
	atomic_fetch_add(&h->steals, n);
	if (h->sh.preempt)
		fl_preempt_thread_end();
	return NULL;
}

/* The preemption of a `preempt` rep, from the hunt's settings (fl_params:
 * the stall, the interval, a text spec overriding the design's .text):
 * resolved and installed before any thread of the rep starts. false (and
 * r->error) when it cannot be. */
static bool preempt_setup(struct hunt *h, const struct fl_variant *v, const struct fl_params *p,
			  struct fl_result *res)
{
	int64_t stall = FL_PREEMPT_STALL_NS, interval = FL_PREEMPT_INTERVAL_NS;
	if (p->preempt_interval_ns > 0) { /* 0: the settings were not given */
		stall = p->preempt_stall_ns;
		interval = p->preempt_interval_ns;
	}
	if (stall > h->hold_ns)
		h->hold_ns = stall;
	const char *text = p->preempt_text[0] ? p->preempt_text : v->text;
	if (!text) {
		fl_fail(res, "preempt: the design declares no library text (.text)");
		return false;
	}
	char why[200] = "";
	if (fl_preempt_begin(text, stall, interval, why, sizeof why)) {
		fl_fail(res, "preempt: %s", why);
		return false;
	}
	return true;
}

/* One wave: k tokens, as k post(1), or every fourth wave as one post(k)
 * (the n-post path: a post that owes several wakes; herd's waves are 1, 2,
 * 1, 2 tokens: its post(2) is wave 4n+1); then asleep on tw until the
 * wave's tokens are taken, or reported stalled after FL_HUNT_STALL_NS.
 * target: the tokens the waiters must have taken once this wave is. false
 * when a post failed (the rep ends at once). */
static bool wave(struct hunt *h, const struct fl_variant *v, int64_t *target)
{
	int k = h->sh.stealers ? h->sh.k : (h->waves % 2 ? h->sh.k : 1);
	if (k > v->value_max) /* lock1: a capped design drops what */
		k = v->value_max;  /* exceeds its cap (FL_CAPPED) */
	*target += k;
	/* The wave begins: last wave's takers may wait again; the tokens go
	 * out once every waiter is in its wait (most asleep: the wakes they
	 * need are the ones under test). */
	next_wave(h, (uint32_t)h->waves + 1);
	bool settle = h->sh.settle == 1 || (h->sh.settle == 2 && h->waves % 2);
	while (settle &&
	       atomic_load_explicit(&h->entered, memory_order_acquire) -
	       atomic_load_explicit(&h->taken, memory_order_relaxed) < h->sh.waiters &&
	       !atomic_load(&h->broken))
		sched_yield();
	if (k > 1 && h->waves % 4 == (h->sh.stealers ? 3 : 1)) {
		fl_sem_post(&h->sem, (unsigned)k, &h->err);
	} else {
		for (int i = 0; i < k; i++)
			fl_sem_post(&h->sem, 1, &h->err);
	}
	h->posted += k;
	h->waves++;
	if (atomic_load(&h->err.set))
		return false;
	struct timespec stall_at = fl_deadline_after_ns(FL_HUNT_STALL_NS);
	for (;;) {
		uint32_t t = atomic_load(&h->tw);
		atomic_store(&h->asleep, 1);
		if (atomic_load(&h->taken) >= *target || atomic_load(&h->broken))
			break;
		if (hunt_wait(&h->tw, t, &stall_at) == ETIMEDOUT &&
		    atomic_load(&h->taken) < *target) {
			fl_fail_box(&h->err, "lost wakeup: wave %lld stalled: %lld of %d tokens taken "
				    "after %.1f s, %d waiters", (long long)h->waves,
				    (long long)(k - (*target - atomic_load(&h->taken))), k,
				    FL_HUNT_STALL_NS / 1e9, h->sh.waiters);
			h->stalled = true;
			break;
		}
	}
	atomic_store(&h->asleep, 0);
	return true;
}

/* Every waiter is in (or on its way into) a wait: one token each, one at a
 * time (the value never exceeds 1: a capped design keeps them all), each
 * taken before the next — a release that never is taken is a stranded
 * waiter too (the detector watches this drain as well). After a stall or a
 * broken op: whoever still waits is freed (the counts stay exact: the
 * drain takes what is left). */
static void release(struct hunt *h)
{
	for (int i = 0; i < h->sh.waiters && !h->stalled && !atomic_load(&h->broken); i++) {
		fl_sem_post(&h->sem, 1, &h->err);
		h->posted++;
		int64_t stall_at = fl_now_ns() + FL_HUNT_STALL_NS;
		for (unsigned spins = 1; atomic_load(&h->released) <= i && !atomic_load(&h->broken);
		     spins++) {
			if (spins % 64 == 0 && fl_now_ns() >= stall_at) {
				fl_fail_box(&h->err, "lost wakeup: release %d of %d not taken after "
					    "%.1f s", i + 1, h->sh.waiters, FL_HUNT_STALL_NS / 1e9);
				h->stalled = true;
				break;
			}
			sched_yield();
		}
	}
	if (atomic_load(&h->released) < h->sh.waiters) {
		int64_t more = h->sh.waiters - atomic_load(&h->released);
		for (int64_t i = 0; i < more; i++)
			fl_sem_post(&h->sem, 1, &h->err);
		h->posted += more;
	}
}

/* After the joins: the drain, the conservation check, the counts (info for
 * people, the preemption's counts as fields too). */
static void account(struct hunt *h, struct fl_result *res)
{
	int64_t left = 0;
	int e;
	while ((e = fl_sem_trywait(&h->sem)) == 0)
		left++;
	if (e != EAGAIN)
		fl_fail_box(&h->err, "trywait (drain): %s", strerror(e));
	int64_t taken = atomic_load(&h->taken), rel = atomic_load(&h->released);
	int64_t steals = atomic_load(&h->steals);
	res->ops = taken + steals;
	fl_take_error(res, &h->err);
	if (h->posted != taken + rel + left)
		fl_fail(res, "tokens not conserved: %lld posted, %lld taken + %lld at release + "
			"%lld left", (long long)h->posted, (long long)taken, (long long)rel,
			(long long)left);
	int n = snprintf(res->info, sizeof res->info, "waves %lld steals %lld",
			 (long long)h->waves, (long long)steals);
	if (h->sh.preempt) {
		struct fl_preempt_stats ps;
		int failed = fl_preempt_end(&ps);
		if (failed)
			fl_fail(res, "preempt: %d threads could not arm their timer", failed);
		res->preempt_signals = ps.signals;
		res->preempt_hits = ps.hits;
		snprintf(res->info + n, sizeof res->info - (size_t)n,
			 " preempt %lld/%lld in text (%d ranges %lld KiB)", (long long)ps.hits,
			 (long long)ps.signals, ps.nranges, (long long)(ps.text_bytes >> 10));
	}
}

static void run_shape(const struct shape *shape, const struct fl_variant *v,
		      const struct fl_params *p, struct fl_result *res)
{
	static struct hunt h; /* one rep at a time per process (the runner's) */
	memset(&h, 0, sizeof h);
	h.sh = *shape;
	h.hold_ns = HOLD_NS;
	if (h.sh.preempt && !preempt_setup(&h, v, p, res))
		return;
	int e = fl_sem_open(&h.sem, v, 0);
	if (e) {
		fl_fail(res, "init(0): %s", strerror(e));
		return;
	}
	int nt = h.sh.waiters + h.sh.stealers;
	pthread_barrier_init(&h.start, NULL, (unsigned)nt + 1);
	pthread_t *w = fl_spawn(h.sh.waiters, waiter, &h, 0);
	pthread_t *s = h.sh.stealers ? fl_spawn(h.sh.stealers, stealer, &h, 0) : NULL;
	if (h.sh.preempt)
		fl_preempt_thread_begin();
	int64_t t0 = fl_now_ns(), end = t0 + p->duration_ns, target = 0;
	pthread_barrier_wait(&h.start);
	while (!atomic_load(&h.broken)) {
		if (!wave(&h, v, &target) || h.stalled)
			break;
		if (p->ops ? atomic_load(&h.taken) >= p->ops : fl_now_ns() >= end)
			break;
	}
	res->elapsed_ns = fl_now_ns() - t0;
	atomic_store_explicit(&h.stop, 1, memory_order_release);
	next_wave(&h, (uint32_t)h.waves + 1); /* whoever sleeps on the wave word */
	for (int i = 0; s && i < h.sh.stealers; i++)
		pthread_join(s[i], NULL);
	release(&h);
	for (int i = 0; i < h.sh.waiters; i++)
		pthread_join(w[i], NULL);
	if (h.sh.preempt)
		fl_preempt_thread_end();
	account(&h, res);
	pthread_barrier_destroy(&h.start);
	free(w);
	free(s);
	fl_sem_close(&h.sem);
}

static int cores(void)
{
	long c = sysconf(_SC_NPROCESSORS_ONLN);
	return c < 1 ? 1 : c > 64 ? 64 : (int)c;
}

static void run_herd(const struct fl_variant *v, const struct fl_params *p, struct fl_result *r)
{
	int w = 4 * cores();
	struct shape sh = { w < 16 ? 16 : w, 0, 2, 1, false };
	run_shape(&sh, v, p, r);
}

static void run_steal(const struct fl_variant *v, const struct fl_params *p, struct fl_result *r)
{
	struct shape sh = { 2, 1, 2, 0, false };
	run_shape(&sh, v, p, r);
}

static void run_crowd(const struct fl_variant *v, const struct fl_params *p, struct fl_result *r)
{
	struct shape sh = { 8 * cores(), 2 * cores(), 2, 2, false };
	run_shape(&sh, v, p, r);
}

static void run_preempt(const struct fl_variant *v, const struct fl_params *p,
			struct fl_result *r)
{
	struct shape sh = { 2, 2, 2, 0, true };
	run_shape(&sh, v, p, r);
}

static const char *unavailable_preempt(const struct fl_variant *v, const struct fl_params *p)
{
	return v->text || p->preempt_text[0] ? NULL
		: "the design declares no library text (.text) to preempt in";
}

static const struct fl_workload herd = {
	.name = "herd", .run = run_herd, .fixed_threads = 1 /* a fixed shape (patterns.h) */,
	.summary = "hunt: max(16, 4 x cores) waiters, waves of 1 or 2 tokens",
	.op = "token taken",
};
static const struct fl_workload steal = {
	.name = "steal", .run = run_steal, .fixed_threads = 1 /* a fixed shape (patterns.h) */,
	.summary = "hunt: 2 waiters, 1 stealer trywait+re-post, waves of 2 tokens",
	.op = "token taken or stolen",
};
static const struct fl_workload crowd = {
	.name = "crowd", .run = run_crowd, .fixed_threads = 1 /* a fixed shape (patterns.h) */,
	.summary = "hunt: steal with 8 x cores waiters, 2 x cores stealers (oversubscribed)",
	.op = "token taken or stolen",
};
static const struct fl_workload preempt = {
	.name = "preempt", .run = run_preempt, .unavailable = unavailable_preempt, .fixed_threads = 1 /* a fixed shape (patterns.h) */,
	.summary = "hunt: steal with 2 stealers and a timer that stalls threads inside the library's text",
	.op = "token taken or stolen",
};

const struct fl_workload *const fl_hunt_patterns[] = { &herd, &steal, &crowd, &preempt };
const int fl_hunt_npatterns = sizeof fl_hunt_patterns / sizeof fl_hunt_patterns[0];

const struct fl_workload *fl_hunt_pattern_find(const char *name)
{
	for (int i = 0; i < fl_hunt_npatterns; i++)
		if (!strcmp(fl_hunt_patterns[i]->name, name))
			return fl_hunt_patterns[i];
	return NULL;
}
