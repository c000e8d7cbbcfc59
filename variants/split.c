/* variants/split.c — count and waiters in two 32-bit words (the futex note).
 *
 * INVARIANT
 *   `count` holds the tokens (never negative) and is the futex word. A token
 *   belongs to whoever moves count from c to c-1 with a CAS; nobody owns a
 *   token while it sits in count. `waiters` counts threads between their
 *   registration and their deregistration around a sleep; it exists only so
 *   that a post can skip the wake syscall when it reads zero. A woken thread
 *   owns nothing: it competes for count like a newcomer (barging), and if it
 *   loses it sleeps again.
 *
 * THE SEQUENTIALLY CONSISTENT PAIRS (the store-buffer pattern)
 *   The poster does   count += n (seq_cst RMW);  then reads waiters (seq_cst).
 *   The waiter does   waiters += 1 (seq_cst RMW); then the kernel re-reads count.
 *   In the single total order of seq_cst operations, either the poster's read
 *   of waiters follows the waiter's increment — and the poster wakes — or it
 *   precedes it; then the count increment precedes the waiter's increment too,
 *   and the kernel's re-read of count (inside futex_wait, after a full
 *   barrier taken when the waiter is queued) sees count > 0 and returns
 *   EAGAIN. Weaken either pair to release/acquire and a store may sit in a
 *   store buffer while the other side's load passes it: the poster reads
 *   waiters == 0 and skips the wake, the waiter reads the old count == 0 and
 *   sleeps with a token available — the most common bug in hand-written
 *   futex code.
 *
 * WAKE COUNT  post(n) wakes min(n, waiters). waiters may include threads not
 *   yet asleep (they will see count != 0 and not sleep), so a wake may find
 *   fewer sleepers than requested; it never needs to find more, because
 *   every woken or arriving thread re-reads count.
 *
 * TIMEOUT  The kernel returns ETIMEDOUT only to a waiter no wake dequeued
 *   (a wake that raced the timer returns 0 to the waiter it counted), so a
 *   timed-out waiter never strands a wake meant for it. It still makes one
 *   last trywait: a token that arrived at the deadline is taken, not left.
 *
 * NOT DESTRUCTION-SAFE, BY CONSTRUCTION (FL_DESTROY_UNSAFE)  The read of
 *   `waiters` after the count add is the store-buffer pattern's second half:
 *   it cannot move before the add without losing wakeups, and it cannot be
 *   folded into it while the two are separate words. So this design keeps
 *   glibc's bug 12674 on purpose (it is the layout glibc had), declares it,
 *   and the shared destruction test records it as an expected failure; the
 *   shim refuses the design unless FUTEXLAB_ALLOW=destroy.
 *
 * WHY GLIBC MERGED THE TWO WORDS (bug 12674)
 *   The post above touches the semaphore after it published the token: it
 *   reads `waiters` and calls wake on &count. POSIX allows the last waiter to
 *   take that token, return, and sem_destroy + free the memory while the
 *   poster is between those steps: the read of waiters is then a read of
 *   freed memory (and, for a shared futex, the wake may hit a new mapping).
 *   glibc therefore moved the count and the waiter count into one 64-bit
 *   word: one CAS publishes the token and observes the waiters at once, and
 *   the only later access is the futex wake on an address, which is safe.
 *   The `glibc64` variant measures what that safety costs against this one. */
#include <errno.h>
#include <stdint.h>

#include "lib/futex.h"
#include "lib/race.h"
#include "lib/wake.h"
#include "variants/policy.h"
#include "variants/variant.h"
#include "variants/waitany.h"

#define SPLIT_MAX INT32_MAX /* SEM_VALUE_MAX */

struct split {
	_Atomic uint32_t count;
	_Atomic uint32_t waiters;
	int shared;
};

static int sp_init(void *p, unsigned value, int pshared)
{
	struct split *s = p;
	if (value > SPLIT_MAX)
		return EINVAL;
	atomic_init(&s->count, value);
	atomic_init(&s->waiters, 0);
	s->shared = pshared != 0;
	return 0;
}

static void sp_destroy(void *p)
{
	(void)p;
}

static int sp_post(void *p, unsigned n)
{
	struct split *s = p;
	uint32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
	do {
		if (n > SPLIT_MAX || c > SPLIT_MAX - n)
			return EOVERFLOW;
	} while (!atomic_compare_exchange_weak_explicit(&s->count, &c, c + n,
			memory_order_seq_cst, memory_order_relaxed)); /* pair 1, store */
	fl_race_window();
	uint32_t w = atomic_load_explicit(&s->waiters, memory_order_seq_cst); /* pair 1, load */
	if (w > 0)
		fl_notify(&s->count, (int)(w < n ? w : n), s->shared);
	return 0;
}

static int sp_trywait(void *p)
{
	struct split *s = p;
	uint32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
	while (c > 0)
		if (atomic_compare_exchange_weak_explicit(&s->count, &c, c - 1,
				memory_order_acquire, memory_order_relaxed))
			return 0;
	return EAGAIN;
}

/* WAITING  No spin here: the process's waiting policy (variants/policy.h)
 * re-tries sp_trywait before this is called. A re-trier is not in
 * `waiters` and holds nothing (policy.h, CORRECTNESS), so a post meanwhile
 * may read 0 and skip the wake: none is owed, the re-trier reads count
 * itself, and once it gives up it registers below and the kernel re-checks
 * count (pair 2) exactly as without the re-tries. The cost of re-trying
 * from outside: a spin inside the design could stop once waiters were
 * registered; a trywait loop cannot see them, so under a spin policy a re-trier may barge
 * past sleepers and take a token posted for one of them. That is this
 * design's rule anyway (a woken thread owns nothing, it competes like a
 * newcomer): the sleeper's wake becomes a futile one and it sleeps again —
 * a cost the policy's rows show, never a token or a wakeup lost. */
/* sp_timedwait after its first try found none (FL_SLOW_PATH). */
FL_SLOW_PATH static int sp_timedwait_slow(struct split *s,
							const struct timespec *dl)
{
	for (;;) {
		if (sp_trywait(s) == 0)
			return 0;
		atomic_fetch_add_explicit(&s->waiters, 1, memory_order_seq_cst); /* pair 2, store */
		fl_race_window();
		int r = fl_futex_wait(&s->count, 0, dl, s->shared);         /* pair 2, load (kernel) */
		atomic_fetch_sub_explicit(&s->waiters, 1, memory_order_relaxed);
		if (r == ETIMEDOUT || r == EINTR || r == EINVAL)
			return sp_trywait(s) == 0 ? 0 : r;
		/* 0 or EAGAIN: compete for count again. */
	}
}

static int sp_timedwait(void *p, const struct timespec *dl)
{
	if (sp_trywait(p) == 0)
		return 0;
	return sp_timedwait_slow(p, dl); /* which tries again first: harmless */
}

static int sp_wait(void *p)
{
	return sp_timedwait(p, NULL);
}

static int sp_getvalue(void *p)
{
	return (int)atomic_load_explicit(&((struct split *)p)->count, memory_order_relaxed);
}

static int sp_words(void *p, _Atomic uint32_t **out, int max)
{
	if (max < 1)
		return 0;
	out[0] = &((struct split *)p)->count;
	return 1;
}

/* ---- wait-any (variants/waitany.h) ------------------------------------
 *
 * Registration is the `waiters` increment of timedwait, held for the whole
 * wait-any (over-counting waiters only costs a wake that finds nobody), and
 * the sleep word is `count` with 0 expected. arm's seq_cst increment is pair
 * 2's store, futex_waitv's re-read of every count after queueing is pair 2's
 * load, so the store-buffer argument above holds per semaphore: a post
 * either sees this waiter registered and wakes the word, or its token is
 * seen by the kernel's compare and the sleep does not happen. poll is
 * trywait plus deregistration. disarm deregisters; pass_on then hands on
 * wakes it may have absorbed (waitany.h): with c tokens left and w waiters
 * registered, wake min(c, w). Those reads are seq_cst against the
 * registrations (pair 2's store) and follow our return from the sleep that
 * absorbed the wakes, so a token whose wake we absorbed is seen unless
 * someone took it. split's disarm never takes a token: a woken waiter owns
 * nothing here. */
static int sp_any_arm(void *p, struct fl_waitv *slot)
{
	struct split *s = p;
	atomic_fetch_add_explicit(&s->waiters, 1, memory_order_seq_cst); /* pair 2, store */
	fl_race_window();
	*slot = (struct fl_waitv){ .addr = &s->count, .expected = 0, .shared = s->shared };
	return 0;
}

static int sp_any_poll(void *p)
{
	struct split *s = p;
	if (sp_trywait(s) != 0)
		return 0;
	atomic_fetch_sub_explicit(&s->waiters, 1, memory_order_relaxed);
	return 1;
}

static int sp_any_disarm(void *p)
{
	struct split *s = p;
	atomic_fetch_sub_explicit(&s->waiters, 1, memory_order_seq_cst);
	return 0;
}

static void sp_any_pass_on(void *p)
{
	struct split *s = p;
	fl_race_window();
	uint32_t c = atomic_load_explicit(&s->count, memory_order_seq_cst);
	uint32_t w = c ? atomic_load_explicit(&s->waiters, memory_order_seq_cst) : 0;
	if (c > 0 && w > 0)
		fl_futex_wake(&s->count, (int)(c < w ? c : w), s->shared);
}

static const struct fl_any_ops split_any = {
	.unavailable = fl_waitv_unavailable, .waitv = fl_futex_waitv,
	.arm = sp_any_arm, .poll = sp_any_poll, .disarm = sp_any_disarm,
	.pass_on = sp_any_pass_on,
};

FL_PAIRS(sp_pairs, sp_post, sp_wait, sp_trywait)

FL_VARIANT(split, struct split,
	.text = "src:split.c,policy.c;sym:fl_futex_,fl_notify,fl_wait,fl_timedwait;dsym:libc.so.6:syscall", /* hunt: its code (variant.h) */
	.summary = "count and waiters in two words, seq_cst pairs, wake only if waiters",
	.flags = FL_DESTROY_UNSAFE,
	.value_max = SPLIT_MAX,
	.init = sp_init, .destroy = sp_destroy, .post = sp_post, .wait = sp_wait,
	.trywait = sp_trywait, .timedwait = sp_timedwait, .getvalue = sp_getvalue,
	.words = sp_words, .any = &split_any,
	.pairs = sp_pairs);
