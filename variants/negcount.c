/* variants/negcount.c — the negative-counter note's single negative counter.
 *
 * INVARIANT
 *   `count` is the seed's one word. Positive: tokens available. Zero: no
 *   tokens and no unresolved claims. Negative: -count claims that posts must
 *   still resolve. A waiter that finds no token leaves its decrement in the
 *   word as a claim; a post resolves min(n, -old) claims in the same atomic
 *   add that publishes its tokens, so token count and claims are observed
 *   together and no lock or double-width atomic is needed.
 *
 *   `grants` counts resolved claims whose owners have not yet left: the
 *   tokens a post has assigned to waiters. Waiters sleep on this word.
 *
 *   Every waiter in timedwait is a claimant, so at every instant
 *       claimants in flight = max(0, -count) + grants + (claims resolved by a
 *                             post that has not yet added them to grants)
 *   Claims and grants are anonymous: whichever claimant takes a grant owns
 *   that token, and the one it "stole" from keeps an equivalent claim.
 *
 * WHY A SECOND WORD
 *   In the seed the kernel wake itself is the grant: post wakes min(n,
 *   claims) sleepers and a woken sleeper returns with a token. The futex
 *   contract allows spurious wakeups (and EINTR, and stale wakes for reused
 *   memory), and one signed word cannot tell a woken claimant whether its
 *   claim was resolved: with count = -1 it may be its own unresolved claim
 *   or another's. Guessing either way loses a token or a waiter. The grant
 *   word makes the wake a hint and the grant the fact; the post path is
 *   still the seed's one fetch_add and a sign test when nobody waits.
 *
 * POST  old = fetch_add(count, n). If old < 0 it resolved k = min(n, -old)
 *   claims: add k to grants, then wake k sleepers (exact count, or the run's
 *   wake strategy). Overflow is checked after the add and undone with a
 *   subtract: the clamp engages only past twice value_max, so the common
 *   path carries one compare, no CAS loop. A failed post's add and subtract
 *   cancel; a concurrent trywait that saw the inflated value took a real
 *   token all the same (the sum is conserved).
 *
 * TIMEOUT (and EINTR): the waiter holds a claim and must leave by exactly
 *   one of two exits, never both (the negative-counter note):
 *     1. take a grant a racing post assigned (then it reports success);
 *     2. remove an unresolved claim with a CAS raising count by one (then it
 *        reports the timeout).
 *   A grant already published is taken first (the seed's "take the token a
 *   racing post assigned it"; claims being anonymous, removing another's
 *   claim instead would also be correct, since a thread that got
 *   ETIMEDOUT or EINTR was not the one a wake dequeued). If count >= 0
 *   there is no unresolved claim left, so ours was resolved and its grant is
 *   between the post's two adds: wait for it (in 100 us slices, re-reading
 *   count: a newcomer may claim and take that grant, making ours the
 *   unresolved claim again). Reporting the timeout there would strand the
 *   grant and lose the token.
 *
 * ORDERING
 *   count and grants are each one word, so the decisions never rely on two
 *   words being seen in the same order (no store-buffer pattern here: the
 *   sleeper's decision to sleep depends on grants alone, compared by the
 *   kernel). Post's add is release and the waiter's subtract acquire, so a
 *   token taken from count carries the poster's writes; a grant is added
 *   with release after the count add and taken with an acquire CAS, which
 *   carries them to a claimant. Claim removal needs no ordering beyond the
 *   RMW's atomicity: it transfers no data.
 *
 * DESTRUCTION (POSIX: destroy is safe once no thread is blocked; glibc BZ
 *   12674)  After its fetch_add on count a post touches the semaphore only
 *   when it resolved k >= 1 claims, and then only before it publishes their
 *   grants: until then the semaphore is live, because k claimants cannot
 *   have left — no unresolved claim is left for exit 2 to remove (count >=
 *   0 after the add, or the claims left belong to others) and exit 1 needs
 *   a grant that is not there yet — so at least one thread is still
 *   blocked, and POSIX forbids destroying it. In that window the post reads
 *   what it needs (backend, shared); the grant add is its last access. (Read
 *   there, not before the add: a post nobody waits for pays nothing.) The claimant may then
 *   take the grant, return and destroy + unmap the semaphore while the
 *   poster is still about to call wake: the wake only names the address. A
 *   private FUTEX_WAKE hashes it without dereferencing it; a shared one on
 *   an unmapped page fails with EFAULT, which the backends report as nobody
 *   woken (glibc: "could have happened due to memory reuse"), and one on
 *   reused memory is a spurious wakeup for whoever sleeps there, which the
 *   futex contract allows. The one exception is EOVERFLOW: an add past the
 *   clamp is undone with a second access; it needs 2^29 tokens posted and a
 *   taker of the transient surplus destroying at once — documented, not
 *   fixed (a CAS loop on every post would cost the fast path). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/clock.h"
#include "lib/futex.h"
#include "lib/futex2.h"
#include "lib/numa.h"
#include "lib/portable.h"
#include "lib/race.h"
#include "lib/uring.h"
#include "lib/wake.h"
#include "variants/negcount.h"
#include "variants/policy.h"
#include "variants/variant.h"
#include "variants/waitany.h"

#define NEG_MAX   FL_NEGCOUNT_MAX  /* guaranteed: init and post up to here */
#define NEG_LIMIT (2 * NEG_MAX)    /* clamp: a post fails past this sum */
/* Headroom INT32_MAX - NEG_LIMIT is about 2 * NEG_MAX: two concurrent failing
 * posts of the largest size can overshoot before they undo, without wrapping
 * the sign. Callers at or below NEG_MAX never come near it. */

/* The sleeping backend is explicit per variant (negcount.h): negcount
 * itself sleeps on futex(2); portable, futex2 and uring reuse this file's
 * algorithm on their own backends. */
static const struct fl_waitaddr *const backends[] = {
	&fl_wa_futex, &fl_wa_futex2, &fl_wa_uring, &fl_wa_portable,
	&fl_wa_futex2_numa, &fl_wa_futex2_numa_pinned, &fl_wa_futex2_mpol,
};
#define NBACKENDS (int)(sizeof backends / sizeof backends[0])

const struct fl_waitaddr *fl_negcount_wa(const struct fl_negcount *s)
{
	if (s->backend >= NBACKENDS)
		abort(); /* bytes no init of ours wrote */
	return backends[s->backend];
}

int fl_negcount_init_on(void *p, unsigned value, int pshared, const struct fl_waitaddr *wa)
{
	struct fl_negcount *s = p;
	if (value > NEG_MAX)
		return EINVAL;
	int b = 0;
	while (b < NBACKENDS && backends[b] != wa)
		b++;
	if (b == NBACKENDS)
		abort(); /* a backend missing from the table: a build bug */
	atomic_init(&s->count, (int32_t)value);
	atomic_init(&s->grants, 0);
	atomic_init(&s->node, FL_FUTEX_NO_NODE); /* the numa designs' init may set it */
	s->shared = pshared != 0;
	s->backend = (uint8_t)b;
	return 0;
}

static int nc_init(void *p, unsigned value, int pshared)
{
	return fl_negcount_init_on(p, value, pshared, &fl_wa_futex);
}

void fl_negcount_destroy(void *p)
{
	(void)p;
}

/* A post that resolved k >= 1 claims publishes their grants and wakes k.
 * Everything it needs from s is read before the grant add, its last access
 * (DESTRUCTION); here, not before the count add, so that a post nobody
 * waits for pays nothing. The grant add is release: it carries the poster's
 * writes to the claimant that takes the grant.
 * FL_SLOW_PATH: a post nobody waits for never comes here. */
FL_SLOW_PATH static void publish_grants(struct fl_negcount *s, int k, bool herd)
{
	fl_race_window(); /* claims resolved, grants not yet published */
	const struct fl_waitaddr *wa = fl_negcount_wa(s);
	bool shared = s->shared;
	_Atomic uint32_t *word = &s->grants;
	atomic_fetch_add_explicit(word, (uint32_t)k, memory_order_release);
	fl_race_window(); /* granted: the claimant may destroy s now */
	if (herd) /* the performance mutant perf_wake_all (negcount.h): every sleeper */
		wa->wake(word, INT_MAX, shared);
	else
		fl_notify_on(wa, word, k, shared);
}

/* negcount's post; herd: wake every sleeper instead of the k claims
 * resolved (negcount.h, the performance mutants' hooks). Constant at each
 * call site; only publish_grants, on the path that wakes, tests it. */
static inline int post_impl(void *p, unsigned n, bool herd)
{
	struct fl_negcount *s = p;
	if (n > NEG_MAX)
		return EOVERFLOW;
	int32_t old = atomic_fetch_add_explicit(&s->count, (int32_t)n, memory_order_release);
	if (old > NEG_LIMIT - (int32_t)n) {
		atomic_fetch_sub_explicit(&s->count, (int32_t)n, memory_order_relaxed);
		return EOVERFLOW;
	}
	if (old < 0) {
		/* -(int64_t)old: no INT32_MIN negation overflow */
		int k = (int)(-(int64_t)old < n ? -(int64_t)old : n);
		publish_grants(s, k, herd);
	}
	return 0;
}

int fl_negcount_post(void *p, unsigned n)
{
	return post_impl(p, n, false);
}

int fl_negcount_post_herd(void *p, unsigned n)
{
	return post_impl(p, n, true);
}

/* The negative-counter note's clamp for a capped semaphore: a CAS loop instead
 * of the fetch_add, so that no interleaving of releases can raise count past
 * cap even for an instant (an add-then-undo clamp would let a trywait take the
 * transient second permit). Claims are resolved exactly as in fl_negcount_post;
 * the same release ordering, for the same reason. */
int fl_negcount_post_capped(void *p, unsigned n, int32_t cap)
{
	struct fl_negcount *s = p;
	int32_t old = atomic_load_explicit(&s->count, memory_order_relaxed), nv;
	do {
		if (old >= cap)
			return 0;                       /* full: the release is absorbed */
		nv = (int64_t)old + n > cap ? cap : old + (int32_t)n;
	} while (!atomic_compare_exchange_weak_explicit(&s->count, &old, nv,
			memory_order_release, memory_order_relaxed));
	if (old < 0) {
		int k = (int)(-(int64_t)old < nv - old ? -(int64_t)old : nv - old);
		publish_grants(s, k, false);
	}
	return 0;
}

int fl_negcount_trywait(void *p)
{
	struct fl_negcount *s = p;
	int32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
	while (c > 0)
		if (atomic_compare_exchange_weak_explicit(&s->count, &c, c - 1,
				memory_order_acquire, memory_order_relaxed))
			return 0;
	return EAGAIN;
}

static bool take_grant(struct fl_negcount *s)
{
	uint32_t g = atomic_load_explicit(&s->grants, memory_order_relaxed);
	while (g > 0)
		if (atomic_compare_exchange_weak_explicit(&s->grants, &g, g - 1,
				memory_order_acquire, memory_order_relaxed))
			return true;
	return false;
}

/* The claimant gives up (deadline, signal, bad deadline): one of the two exits. */
static int abandon(struct fl_negcount *s, int why)
{
	for (;;) {
		if (take_grant(s))
			return 0;                       /* exit 1: the token assigned to us */
		fl_race_window();
		int32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
		if (c < 0) {
			if (atomic_compare_exchange_weak_explicit(&s->count, &c, c + 1,
					memory_order_relaxed, memory_order_relaxed))
				return why;             /* exit 2: claim removed */
			continue;
		}
		/* No unresolved claim: ours was resolved, its grant is in flight.
		 * Wait for it in short slices and re-read count each time: a
		 * newcomer may claim meanwhile (count < 0 again) and take that
		 * grant, which swaps the claims — ours is then the unresolved one
		 * and exit 2 removes it. An untimed sleep here could outlive the
		 * caller's deadline for as long as no further post comes. */
		struct timespec slice = fl_deadline_after_ns(100000);
		fl_negcount_wa(s)->wait(&s->grants, 0, &slice, s->shared);
	}
}

/* WAITING  No spin here: what a waiter does before it claims is the
 * process's waiting policy (variants/policy.h), whose fl_wait re-tries this
 * design's trywait before it calls this timedwait. Before the claim is
 * where re-tries belong: a re-trier holds no claim (policy.h, CORRECTNESS),
 * so a post landing meanwhile sees old >= 0 and rightly skips the grant and
 * the wake, and once it gives up the fetch_sub below observes every token
 * posted until then. Re-trying after the claim would save the post
 * nothing: the claim is visible, so it must grant and wake all the same.
 * The cost of re-trying from outside: a spin inside the design could stop
 * as soon as count < 0 (claimants queued: a post resolves their claims
 * first, so a spinner cannot win a token); a trywait loop cannot see that,
 * so under spin:N a waiter behind queued claimants spends its tries failing
 * (each a load, no CAS while count <= 0) before it claims — CPU, never a
 * token. */
/* The performance mutant perf_resleep's one added cost (negcount.h): a
 * waiter just woken (its sleep returned 0) sleeps once more on the same
 * word, at most resleep_ns and never past its own deadline, before it
 * re-checks — a real resleep as the probes count it (probes/columns.md:
 * a wait on the word entered right after a wait on it returned 0). It
 * sleeps on the value it reads, so it does sleep (a grant arriving in
 * between makes it EAGAIN: counted all the same). Correctness: the extra
 * sleep holds the claim it held, and takes nothing; the one thing it could
 * do is swallow a wake meant for another sleeper on the word (a post's wake
 * picks any of them). So a resleep ended by a wake (0) passes one wake on:
 * wakes are conserved, and a wake nobody needed is a spurious one, which
 * every sleeper of this design re-checks. A timeout, EINTR or EAGAIN ends
 * it having taken no wake; the loop then re-checks as after any wake, and
 * the caller's deadline and signals are judged by the next sleep. */
static void resleep(struct fl_negcount *s, const struct timespec *dl, int64_t ns)
{
	struct timespec until = fl_deadline_after_ns(ns);
	if (dl && fl_ts_cmp(dl, &until) < 0)
		until = *dl;
	const struct fl_waitaddr *wa = fl_negcount_wa(s);
	uint32_t g = atomic_load_explicit(&s->grants, memory_order_relaxed);
	if (wa->wait(&s->grants, g, &until, s->shared) == 0)
		wa->wake(&s->grants, 1, s->shared);
}

/* negcount's timedwait; resleep_ns > 0: perf_resleep's extra sleep after
 * each wake (above). Constant at each call site, as post_impl's herd. */
static inline int timedwait_impl(void *p, const struct timespec *dl, int64_t resleep_ns)
{
	struct fl_negcount *s = p;
	int32_t old = atomic_fetch_sub_explicit(&s->count, 1, memory_order_acquire);
	if (old > 0)
		return 0;
	/* We hold a claim from here until one of the exits. */
	fl_race_window();
	for (;;) {
		if (take_grant(s))
			return 0;
		int r = fl_negcount_wa(s)->wait(&s->grants, 0, dl, s->shared);
		if (r == ETIMEDOUT || r == EINTR || r == EINVAL)
			return abandon(s, r);
		/* 0 (woken, or spuriously) or EAGAIN (a grant arrived): re-check. */
		if (resleep_ns > 0 && r == 0)
			resleep(s, dl, resleep_ns);
	}
}

int fl_negcount_timedwait(void *p, const struct timespec *dl)
{
	return timedwait_impl(p, dl, 0);
}

int fl_negcount_timedwait_resleep(void *p, const struct timespec *dl, int64_t resleep_ns)
{
	return timedwait_impl(p, dl, resleep_ns);
}

int fl_negcount_wait(void *p)
{
	return fl_negcount_timedwait(p, NULL);
}

/* The inline form's loop (variant.h, .pairs): post_impl and timedwait_impl
 * inlined, as a program calling fl_negcount_post and fl_negcount_wait in a
 * loop built with this file gets them. */
static inline int nc_post(void *p, unsigned n)
{
	return post_impl(p, n, false);
}

static inline int nc_wait(void *p)
{
	return timedwait_impl(p, NULL, 0);
}

FL_PAIRS(nc_pairs, nc_post, nc_wait, fl_negcount_trywait)

int fl_negcount_pairs(const struct fl_variant *v, void *p, int64_t n)
{
	return nc_pairs(v, p, n);
}

int fl_negcount_getvalue(void *p)
{
	int32_t c = atomic_load_explicit(&((struct fl_negcount *)p)->count, memory_order_relaxed);
	return c > 0 ? c : 0;
}

int fl_negcount_words(void *p, _Atomic uint32_t **out, int max)
{
	if (max < 1)
		return 0;
	out[0] = &((struct fl_negcount *)p)->grants;
	return 1;
}

FL_VARIANT(negcount, struct fl_negcount,
	.text = "src:negcount.c,policy.c;sym:fl_negcount_,fl_futex_,fl_notify,fl_wait,fl_timedwait;dsym:libc.so.6:syscall", /* hunt: its code (variant.h) */
	.summary = "one signed word, post = one fetch_add, exact-count wake, two-exit timeout",
	.init = nc_init, FL_NEGCOUNT_OPS, .any = &fl_negcount_any);
