/* stranded/stranded.c — the stranded-waiter detector: a lost wakeup seen
 * from user space, for every design, in every rep.
 *
 * WHAT IT FINDS  A waiter that stays asleep in a wait on semaphore s while s
 * has had a token for it all along: the signature of a lost wakeup (a post
 * that published its token and owed a wake that never came). The workloads
 * know each semaphore's *logical value*: its initial value plus the tokens
 * of the posts that have returned minus the acquisitions that have
 * completed — they make every op through the fl_sem_* wrappers
 * (workloads/sem.h), whose marks (stranded.h) count. A design's own
 * getvalue is not used: it may be absent (C++ peers), or wrong in exactly
 * the designs under suspicion.
 *
 * COST  The measured path gains no shared write: each thread has a record
 * of its own (stranded.h: the op in flight, and per-semaphore counts of
 * tokens posted and taken, on the thread's own cache lines, like fl_tstat),
 * written with plain stores (relaxed atomics: a load and a store, no lock prefix).
 * An op costs a thread-local read and a generation compare, two stores
 * before the call (mask, op word), a load and a store after it (the count)
 * and one store to leave — the same instructions for every design, so
 * ratios between designs do not move. A shared counter would have added a
 * contended line to every op and changed the very contention measured.
 * The price is paid by the reader: the watchdog sums over threads. The
 * figures are in stranded/README.md ("Cost"; the tool: cost.c).
 * Enrolment (a thread's first op of a rep) takes a lock and allocates once.
 * The watchdog thread itself wakes every threshold/10 (5 ms at the default
 * 50 ms): ~200 wakes a second, a few microseconds each, which the rep's
 * cpu_* and csw_vol columns include (they count the whole process); it
 * makes no futex call, so the probe columns do not see it, and it is
 * created before and joined after the probes' window.
 *
 * THE RULE  Every threshold/10 the watchdog reads, for each enrolled
 * thread, the op in flight (a one-writer seqlock: op word, mask, op word
 * again), then every semaphore's sum of posted over all threads, then (an
 * acquire fence between) the sum of taken: the value so computed is never
 * above the logical value at the moment between the two passes (counters
 * only grow: posts read early are at most what they were then, takes read
 * late at least) — it can only under-state, which can only hide a
 * stranding, never invent one. A thread T is *stranded* on s when
 *   (a) T has been in one and the same wait (wait, timedwait or wait-any
 *       whose set holds s: same op sequence number) at every sample for
 *       at least the threshold, and
 *   (b) s's value was > 0 at every sample over that same stretch, and
 *   (c) at confirmation, no thread of the process but the watchdog is
 *       runnable ('R' in /proc/self/task/TID/stat) — in particular none
 *       with an op in flight on s (waiters, trywaits, posts) — and T
 *       itself sleeps ('S' or 'D'), and
 *   (d) after those reads, the ops in flight on s are the same ones as at
 *       the sample (no thread came or went) and s's value is still > 0.
 * What is NOT a lost wakeup, and why each is excluded:
 *   - a post that has published its token but not returned (its wake may
 *     still be coming): its tokens count only once it returns, so they are
 *     not in the value yet;
 *   - a waiter woken but not yet scheduled: it is runnable (c);
 *   - a waiter re-trying under a waiting policy (variants/policy.h: spin,
 *     spin-yield, adaptive) before the design's wait: it is runnable (c);
 *   - a thread that took the token (returned from its wait or trywait) but
 *     has not counted it yet: its op is still in flight on s, and it is
 *     runnable (c) — it cannot sleep between the two, the count is the next
 *     thing it does;
 *   - a woken waiter that lost the token to a barger and slept again: the
 *     barger took the token, so either the value fell (b) or the barger's
 *     op is in flight and runnable (c);
 *   - a design's internal lock: a thread asleep on it waits for one that
 *     holds it inside an op, on s or on another semaphore sharing the lock
 *     (portable's one global mutex, gosema's root table), which is running
 *     or runnable (c) — hence "no thread of the process", not only those on
 *     s; likewise a wake handed to a kernel worker of the process (an
 *     io_uring FUTEX_WAKE executed off the submitting thread);
 *   - a timedwait that timed out: it leaves its op (a), and took nothing;
 *   - long preemption on a noisy machine (a woken waiter not run for
 *     50 ms): runnable (c) however long it lasts; the rule never reads a
 *     clock to decide who is late.
 * A correct design keeps: once a post has returned, a token on s is being
 *   taken by a thread that is awake (runnable), or no thread sleeps in a
 *   wait on s. So (a)-(d) together are a lost wakeup, not a slow one.
 * Limits: a design whose waiters sleep on something other than the
 * semaphore in long stretches, with a token present (polling with backoff
 * sleeps: libc++'s try_acquire_for polls with nanosleep; a backoff that
 * grew past the threshold would be reported — libc++'s waits back off to
 * at most 64 us, and its futex sleep with a token present is the
 * bug); FL_CAPPED designs posting at their cap (the post returns 0 but
 * adds nothing: the workloads never do, timeouts checks first); a rep
 * whose threads outgrow FL_STRANDED_THREADS records (the detector steps
 * back: stranded = -1, "not watched"). Detection waits for a quiet moment: while
 * other threads keep running (a busy pool cycling its tokens past the
 * stranded one) nothing is confirmed, and the stranding is caught when
 * they stop — at the latest at the rep's end, which cannot come without
 * the stranded thread; stranded_max_ns is then longer. The value is the
 * workload's bookkeeping, so a design that loses a *token* (its count
 * below the bookkeeping) strands its waiters the same way and is reported
 * the same way; the workloads' final-value checks tell the two apart.
 *
 * THE RESCUE  A stranded waiter would hang the rep. Once recorded (and the
 * hook has had the kernel's view of it, fl_stranded_on_confirm), the
 * watchdog sends it FL_STRANDED_SIGNAL, whose handler does nothing and is
 * installed without SA_RESTART: its futex sleep returns EINTR, and the
 * design either returns EINTR (fl_sem_wait retries: a new op, which finds
 * the token) or loops and re-checks its word, finds the token and takes
 * it. A design that sleeps where a signal cannot reach (FL_NO_EINTR) or
 * whose loop does not look at the token again: the watchdog repeats the
 * signal every threshold, and from the third on also posts one token
 * itself (a fresh post makes a fresh wake; the value's bookkeeping counts
 * it, so the rest of the rep stays judged right), up to RESCUE_POSTS. A
 * design that ignores all of that hangs the rep, as a design that loses
 * tokens always could; the verdict is already set. The rep's own invariant
 * checks may then fail (an extra token): the lost wakeup replaces their
 * error, being the cause.
 *
 * Ordering on the writer side: the mask is stored before the op word
 * (release), the count before the op word's leave (release); the watchdog's
 * op-word loads are acquire. On x86-64 all of these are plain moves. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/task.h"
#include "stranded/stranded.h"

#define FL_STRANDED_THREADS 4096 /* records per rep (threads that made an op) */
#define SLOTS FL_STRANDED_SLOTS
#define RESCUE_POSTS 10       /* at most, per stranding */

_Atomic unsigned fl_stranded_gen = 0;
_Thread_local struct fl_stranded_thread *fl_stranded_me FL_STRANDED_TLS;
_Thread_local unsigned fl_stranded_me_gen FL_STRANDED_TLS;
void (*volatile fl_stranded_on_confirm)(int tid);

/* What the watchdog remembers of a thread between samples. */
struct seen {
	uint64_t op, mask;      /* its wait (kind != NONE) */
	int64_t since;          /* first sample that saw it in this wait */
	int64_t strand_start;   /* reported: when its stranding began */
	int64_t last_rescue;
	int rescues, posts;
	bool reported;
	bool in_wait;
};

static struct {
	pthread_mutex_t lock;   /* enrolment, open/close */
	bool on;                /* between begin and end, detector on */
	_Atomic bool overflow;  /* a thread could not enroll: not judged */
	int64_t threshold, period;
	struct fl_stranded_thread *t[FL_STRANDED_THREADS];
	_Atomic int n;
	_Atomic int64_t base[SLOTS];   /* value at open, less the counts then */
	const struct fl_variant *v[SLOTS];
	void *s[SLOTS];
	_Atomic uint64_t used;         /* slots open */
	/* the watchdog */
	pthread_t dog;
	int dog_tid;
	_Atomic int stop;
	int pipe[2];
	struct seen seen[FL_STRANDED_THREADS];
	int64_t pos_since[SLOTS], pos_min[SLOTS];
	/* results (the watchdog's, read after the join) */
	int64_t stranded, max_ns;
	char note[FL_STRANDED_NOTE];
	int tid;
	int64_t taken;  /* the note's "- N taken", as a number */
} W = { .lock = PTHREAD_MUTEX_INITIALIZER, .pipe = { -1, -1 } };

static void on_rescue_signal(int sig)
{
	(void)sig; /* only to interrupt the sleep */
}

struct fl_stranded_thread *fl_stranded_enroll(void)
{
	struct fl_stranded_thread *t = NULL;
	pthread_mutex_lock(&W.lock);
	unsigned g = atomic_load_explicit(&fl_stranded_gen, memory_order_relaxed);
	if (W.on) {
		int n = atomic_load_explicit(&W.n, memory_order_relaxed);
		if (n < FL_STRANDED_THREADS) {
			size_t sz = (sizeof *t + 63) / 64 * 64;
			t = aligned_alloc(64, sz);
		}
		if (t) {
			memset(t, 0, sizeof *t);
			t->tid = (int)syscall(SYS_gettid);
			W.t[n] = t;
			atomic_store_explicit(&W.n, n + 1, memory_order_release);
		} else {
			atomic_store(&W.overflow, true); /* its ops uncounted: not judged */
		}
	}
	fl_stranded_me = t;
	fl_stranded_me_gen = g;
	pthread_mutex_unlock(&W.lock);
	return t;
}

/* Sum of one counter array's slot over the enrolled threads. */
static int64_t sum(int n, int slot, bool posted)
{
	int64_t x = 0;
	for (int i = 0; i < n; i++)
		x += atomic_load_explicit(posted ? &W.t[i]->posted[slot] : &W.t[i]->taken[slot],
					  memory_order_relaxed);
	return x;
}

void fl_stranded_opened(int id, const struct fl_variant *v, void *s, unsigned value)
{
	pthread_mutex_lock(&W.lock);
	if (W.on) {
		/* A slot reopened within the rep: the counts so far belong to
		 * the previous semaphore; no op is in flight on a new one. */
		int n = atomic_load(&W.n);
		atomic_store(&W.base[id], (int64_t)value - sum(n, id, true) + sum(n, id, false));
		W.v[id] = v;
		W.s[id] = s;
		atomic_fetch_or(&W.used, (uint64_t)1 << id);
	}
	pthread_mutex_unlock(&W.lock);
}

void fl_stranded_closed(int id)
{
	pthread_mutex_lock(&W.lock);
	atomic_fetch_and(&W.used, ~((uint64_t)1 << id));
	pthread_mutex_unlock(&W.lock);
}

bool fl_stranded_value(int slot, int64_t *value)
{
	bool ok = false;
	pthread_mutex_lock(&W.lock);
	if (W.on && !atomic_load(&W.overflow) && (atomic_load(&W.used) >> slot & 1)) {
		int n = atomic_load(&W.n);
		*value = atomic_load(&W.base[slot]) + sum(n, slot, true) - sum(n, slot, false);
		ok = true;
	}
	pthread_mutex_unlock(&W.lock);
	return ok;
}

/* ---- the watchdog ------------------------------------------------------------ */

/* Thread i's op in flight: false if it changed while read (then it is
 * treated as between ops for this sample). */
static bool read_op(int i, uint64_t *op, uint64_t *mask)
{
	struct fl_stranded_thread *t = W.t[i];
	uint64_t a = atomic_load_explicit(&t->op, memory_order_acquire);
	*op = a;
	if (!(a & FL_OP_SET)) {
		*mask = (uint64_t)1 << FL_OP_SLOT(a);
		return true;
	}
	*mask = atomic_load_explicit(&t->mask, memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&t->op, memory_order_relaxed) == a;
}

/* The values of the open slots (see THE RULE: posts first, then takes). */
static void values(int n, uint64_t used, int64_t val[SLOTS], int64_t p[SLOTS],
		   int64_t k[SLOTS])
{
	for (int s = 0; s < SLOTS; s++)
		if (used >> s & 1)
			p[s] = sum(n, s, true);
	atomic_thread_fence(memory_order_acquire);
	for (int s = 0; s < SLOTS; s++)
		if (used >> s & 1) {
			k[s] = sum(n, s, false);
			val[s] = atomic_load(&W.base[s]) + p[s] - k[s];
		}
}

static bool waiting(uint64_t op)
{
	unsigned k = FL_OP_KIND(op);
	return k == FL_OP_WAIT || k == FL_OP_TIMED || k == FL_OP_ANY;
}

static const char *kind_name(uint64_t op)
{
	switch (FL_OP_KIND(op)) {
	case FL_OP_WAIT: return "wait";
	case FL_OP_TIMED: return "timedwait";
	case FL_OP_ANY: return "wait-any";
	default: return "op";
	}
}

/* No thread of the process but the watchdog is runnable (c): not only the
 * threads in an op on s — a design's lock or table may be shared between
 * semaphores (portable's one mutex, gosema's root table), an io_uring wake
 * may run on a kernel worker of the process, and whether a thread is in an
 * op was sampled, not read now. */
static bool none_runnable(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return false;
	bool ok = true;
	struct dirent *e;
	while (ok && (e = readdir(d))) {
		int tid = atoi(e->d_name);
		if (tid > 0 && tid != W.dog_tid && fl_task_state(tid) == 'R')
			ok = false;
	}
	closedir(d);
	return ok;
}

/* (c) and (d) for thread i on slot s; the ops/masks are this sample's. */
static bool confirm(int n, int i, int s, const uint64_t *op, const uint64_t *mask, int *others)
{
	uint64_t b = (uint64_t)1 << s;
	int m = 0;
	for (int j = 0; j < n; j++) {
		if (FL_OP_KIND(op[j]) == FL_OP_NONE || !(mask[j] & b))
			continue;
		char st = fl_task_state(W.t[j]->tid);
		if (st == 'R' || st == '?')
			return false;
		if (j == i && st != 'S' && st != 'D')
			return false;
		m++;
	}
	if (!none_runnable())
		return false;
	/* (d): the same ops in flight on s, and still a token. */
	for (int j = 0; j < n; j++) {
		uint64_t o, k;
		bool ok = read_op(j, &o, &k);
		bool on_s = ok && FL_OP_KIND(o) != FL_OP_NONE && (k & b);
		bool was = FL_OP_KIND(op[j]) != FL_OP_NONE && (mask[j] & b);
		if (!ok || on_s != was || (was && o != op[j]))
			return false;
	}
	int64_t val[SLOTS], p[SLOTS], k[SLOTS];
	values(n, b, val, p, k);
	*others = m - 1;
	return val[s] > 0;
}

/* The rescue's signal, by thread id: a pthread_t may be gone by now (a
 * thread that left its wait a moment ago may have been joined), a tid of
 * this process at worst reaches a thread whose sleep retries EINTR. */
static void kick(int tid)
{
	syscall(SYS_tgkill, (int)getpid(), tid, FL_STRANDED_SIGNAL);
}

static void record(int n, int i, int s, uint64_t op, int64_t now, int others)
{
	struct seen *e = &W.seen[i];
	int64_t start = e->since > W.pos_since[s] ? e->since : W.pos_since[s];
	int64_t val[SLOTS], p[SLOTS], k[SLOTS];
	values(n, (uint64_t)1 << s, val, p, k);
	if (!W.stranded) {
		W.tid = W.t[i]->tid;
		snprintf(W.note, sizeof W.note,
			 "semaphore #%d: thread %d asleep in %s %.0f ms, value >= %lld throughout "
			 "(now %lld = %lld initial + %lld posted - %lld taken), %d other op(s) "
			 "on it, no thread runnable",
			 s, W.tid, kind_name(op), (double)(now - start) / 1e6,
			 (long long)W.pos_min[s], (long long)val[s],
			 (long long)(atomic_load(&W.base[s])), (long long)p[s], (long long)k[s],
			 others);
		W.taken = k[s];
	}
	W.stranded++;
	e->reported = true;
	e->strand_start = start;
	void (*hook)(int) = fl_stranded_on_confirm;
	if (hook)
		hook(W.t[i]->tid); /* the kernel's view, while it still sleeps */
	e->last_rescue = now;
	e->rescues = 1;
	kick(W.t[i]->tid);
}

/* A stranded thread still in its wait a threshold after the last rescue. */
static void rescue_again(int i, int s, int64_t now)
{
	struct seen *e = &W.seen[i];
	if (now - e->last_rescue < W.threshold)
		return;
	e->last_rescue = now;
	e->rescues++;
	if (e->rescues >= 3 && e->posts < RESCUE_POSTS && W.v[s]) {
		pthread_mutex_lock(&W.lock); /* not against a close of s */
		if (atomic_load(&W.used) >> s & 1 && !W.v[s]->post(W.s[s], 1)) {
			atomic_fetch_add(&W.base[s], 1); /* a token the workload never posted */
			e->posts++;
		}
		pthread_mutex_unlock(&W.lock);
	}
	kick(W.t[i]->tid);
}

static void end_strand(struct seen *e, int64_t now)
{
	if (e->reported && now - e->strand_start > W.max_ns)
		W.max_ns = now - e->strand_start;
	e->reported = false;
}

static void sample(int64_t now)
{
	if (atomic_load(&W.overflow))
		return;
	int n = atomic_load_explicit(&W.n, memory_order_acquire);
	static uint64_t op[FL_STRANDED_THREADS], mask[FL_STRANDED_THREADS];
	for (int i = 0; i < n; i++)
		if (!read_op(i, &op[i], &mask[i]))
			op[i] = mask[i] = 0; /* moving: not in one wait */
	uint64_t used = atomic_load(&W.used);
	int64_t val[SLOTS], p[SLOTS], k[SLOTS];
	values(n, used, val, p, k);
	for (int s = 0; s < SLOTS; s++) {
		if (!(used >> s & 1) || val[s] <= 0) {
			W.pos_since[s] = 0;
			continue;
		}
		if (!W.pos_since[s] || val[s] < W.pos_min[s])
			W.pos_min[s] = val[s];
		if (!W.pos_since[s])
			W.pos_since[s] = now;
	}
	for (int i = 0; i < n; i++) {
		struct seen *e = &W.seen[i];
		bool w = waiting(op[i]);
		if (!(e->in_wait && w && e->op == op[i] && e->mask == mask[i])) {
			end_strand(e, now); /* left the wait (or a new one) */
			*e = (struct seen){ .op = op[i], .mask = mask[i], .since = now,
					    .in_wait = w };
			continue;
		}
		bool token = false;
		for (int s = 0; s < SLOTS; s++) {
			if (!((mask[i] & used) >> s & 1) || !W.pos_since[s])
				continue;
			token = true;
			if (e->reported) {
				rescue_again(i, s, now);
				break;
			}
			int64_t start = e->since > W.pos_since[s] ? e->since : W.pos_since[s];
			int others;
			if (now - start >= W.threshold && confirm(n, i, s, op, mask, &others)) {
				record(n, i, s, op[i], now, others);
				break;
			}
		}
		if (e->reported && !token)
			end_strand(e, now); /* no token left for it: stranded no more */
	}
}

static void *watchdog(void *arg)
{
	(void)arg;
	W.dog_tid = (int)syscall(SYS_gettid);
	int ms = (int)((W.period + 999999) / 1000000);
	while (!atomic_load(&W.stop)) {
		struct pollfd pf = { .fd = W.pipe[0], .events = POLLIN };
		poll(&pf, 1, ms); /* EINTR or a timeout: either way, sample */
		if (atomic_load(&W.stop))
			break;
		sample(fl_now_ns());
	}
	return NULL;
}

void fl_stranded_begin(int64_t threshold_ns)
{
	pthread_mutex_lock(&W.lock);
	W.on = false;
	atomic_store(&W.n, 0);
	atomic_store(&W.overflow, false);
	atomic_store(&W.used, 0);
	atomic_store(&W.stop, 0);
	W.stranded = W.max_ns = 0;
	W.note[0] = '\0';
	W.tid = 0;
	memset(W.seen, 0, sizeof W.seen);
	memset(W.pos_since, 0, sizeof W.pos_since);
	if (threshold_ns > 0) {
		static bool installed;
		if (!installed) {
			struct sigaction sa = { .sa_handler = on_rescue_signal }; /* no SA_RESTART */
			sigemptyset(&sa.sa_mask);
			installed = !sigaction(FL_STRANDED_SIGNAL, &sa, NULL);
		}
		if (W.pipe[0] < 0 && pipe2(W.pipe, O_CLOEXEC | O_NONBLOCK))
			W.pipe[0] = W.pipe[1] = -1;
		W.threshold = threshold_ns;
		W.period = threshold_ns / 10 > 1000000 ? threshold_ns / 10 : 1000000;
		W.on = installed && W.pipe[0] >= 0;
	}
	atomic_fetch_add(&fl_stranded_gen, 1); /* every thread enrolls anew */
	pthread_mutex_unlock(&W.lock);
	if (W.on && pthread_create(&W.dog, NULL, watchdog, NULL)) {
		pthread_mutex_lock(&W.lock);
		W.on = false;
		atomic_fetch_add(&fl_stranded_gen, 1);
		pthread_mutex_unlock(&W.lock);
	}
}

void fl_stranded_end(struct fl_stranded_findings *rep)
{
	rep->stranded = -1;
	rep->max_ns = 0;
	rep->note[0] = '\0';
	rep->tid = 0;
	rep->taken = 0;
	if (!W.on)
		return;
	atomic_store(&W.stop, 1);
	char c = 1, drain[16];
	if (write(W.pipe[1], &c, 1) < 0) { /* full: the dog has a byte to read */ }
	pthread_join(W.dog, NULL);
	while (read(W.pipe[0], drain, sizeof drain) > 0)
		;
	int64_t now = fl_now_ns();
	int n = atomic_load(&W.n);
	for (int i = 0; i < n; i++)
		end_strand(&W.seen[i], now);
	pthread_mutex_lock(&W.lock);
	W.on = false;
	atomic_fetch_add(&fl_stranded_gen, 1);
	for (int i = 0; i < n; i++)
		free(W.t[i]);
	atomic_store(&W.n, 0);
	pthread_mutex_unlock(&W.lock);
	if ((atomic_load(&W.overflow) || !n) && !W.stranded)
		return; /* not judged, or no op to judge (exec, floor-inline's loop) */
	rep->stranded = W.stranded;
	rep->max_ns = W.max_ns;
	rep->tid = W.tid;
	rep->taken = W.taken;
	snprintf(rep->note, sizeof rep->note, "%s", W.note);
}
