/* variants/glibc64.c — glibc's current sem_t layout: one 64-bit word.
 *
 * INVARIANT
 *   `data` is one 64-bit word: the low 32 bits are the token count (never
 *   negative, at most SEM_VALUE_MAX), the high 32 bits the number of
 *   registered waiters. The low half is also the futex word: the kernel
 *   compares 32 bits at an address, and on a little-endian machine the low
 *   half of a 64-bit word is its first 4 bytes (big-endian: the last 4;
 *   futex_word() picks the right half).
 *   A token belongs to whoever CASes the whole word from a value with count
 *   c > 0 to one with count c - 1; nobody owns a token while it sits in the
 *   count (barging: a woken waiter competes with newcomers). A waiter is
 *   registered from its one `fetch_add(1 << 32)` until the CAS that takes a
 *   token and deregisters in the same step, or — when it gives up — the CAS
 *   that deregisters while the count is zero.
 *
 * POST  one CAS on the whole word adds n tokens (EOVERFLOW with the word
 *   unchanged past SEM_VALUE_MAX) and, in the same step, reads the number of
 *   registered waiters. Only if that number is non-zero does it call
 *   FUTEX_WAKE for min(n, waiters). The poster's last access to the
 *   semaphore's memory is that CAS: the wake only names an address.
 *
 * WHY THIS IS DESTRUCTION-SAFE WHERE `split` IS NOT (glibc bug 12674)
 *   split publishes the token with one atomic and then reads `waiters` with a
 *   second: between the two, the last waiter may take the token, return, and
 *   the owner may sem_destroy + free the memory, so split's read of
 *   `waiters` touches freed memory. Here publishing the token and observing
 *   the waiters are the same CAS, so there is no second access. The only
 *   later use is FUTEX_WAKE on the address, and a private wake only hashes
 *   the address, never dereferences it; everything else post needs (the
 *   shared flag) is read before the CAS. A shared wake on a page the waiter
 *   has already unmapped fails with EFAULT, which lib/futex.c reports as
 *   nobody woken, as glibc does. The cost, measured by the harness: a CAS
 *   loop instead of split's fetch_add, and a 64-bit word.
 *
 * NO LOST WAKEUP, WITHOUT SEQ_CST
 *   split needs two seq_cst pairs because its two facts live in two words.
 *   Here both live in one word, whose modification order is total for every
 *   ordering: a waiter's registration either precedes a post's CAS in that
 *   order (the post sees waiters > 0 and wakes) or follows it (the waiter's
 *   later reads, and the kernel's compare of the low half, which follows
 *   the registration in the same thread, see the count > 0 and it does not
 *   sleep). So the RMWs only need release (post: the poster's writes travel
 *   with the token) and acquire (the taker of a token).
 *
 * TIMEOUT / EINTR  the kernel returns ETIMEDOUT or EINTR only to a waiter no
 *   wake dequeued, so giving up never strands a wake meant for it. It leaves
 *   with one CAS: a token present at that instant is taken (return 0; a
 *   token that is there is taken whatever the deadline), else it
 *   deregisters with the count at zero. Either way registration ends in the
 *   same atomic step as the decision, so a post can never count a waiter
 *   that has left without a token being available to the others. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/futex.h"
#include "lib/race.h"
#include "lib/wake.h"
#include "variants/policy.h"
#include "variants/variant.h"

#define G64_MAX   INT32_MAX /* SEM_VALUE_MAX */
#define G64_ONE_W ((uint64_t)1 << 32)

struct glibc64 {
	_Atomic uint64_t data;
	int shared;
};

static inline uint32_t g_count(uint64_t d)
{
	return (uint32_t)d;
}

static inline uint32_t g_waiters(uint64_t d)
{
	return (uint32_t)(d >> 32);
}

static _Atomic uint32_t *futex_word(struct glibc64 *s)
{
	_Atomic uint32_t *w = (_Atomic uint32_t *)(void *)&s->data;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w++; /* the low half is the second 4 bytes */
#endif
	return w;
}

static int g_init(void *p, unsigned value, int pshared)
{
	struct glibc64 *s = p;
	if (value > G64_MAX)
		return EINVAL;
	atomic_init(&s->data, (uint64_t)value);
	s->shared = pshared != 0;
	return 0;
}

static void g_destroy(void *p)
{
	(void)p;
}

static int g_post(void *p, unsigned n)
{
	struct glibc64 *s = p;
	/* Read before the CAS, as glibc reads isem->private: after it, the
	 * last waiter may take the token and free s (bug 12674, below). */
	bool shared = s->shared;
	_Atomic uint32_t *word = futex_word(s);
	uint64_t d = atomic_load_explicit(&s->data, memory_order_relaxed);
	do {
		if (n > G64_MAX || g_count(d) > G64_MAX - n)
			return EOVERFLOW;
		/* release: the token carries the poster's writes to its taker */
	} while (!atomic_compare_exchange_weak_explicit(&s->data, &d, d + n,
			memory_order_release, memory_order_relaxed));
	uint32_t w = g_waiters(d); /* observed by the same CAS: no second access */
	if (w > 0) {
		fl_race_window(); /* token published; a waiter may take it and free s */
		fl_notify(word, (int)(w < n ? w : n), shared);
	}
	return 0;
}

/* Takes a token if one is there, deregistering `unreg` waiters (0 or 1) in
 * the same CAS. acquire: pairs with the post that published the token. */
static int take(struct glibc64 *s, uint64_t unreg)
{
	uint64_t d = atomic_load_explicit(&s->data, memory_order_relaxed);
	while (g_count(d) > 0)
		if (atomic_compare_exchange_weak_explicit(&s->data, &d, d - 1 - unreg,
				memory_order_acquire, memory_order_relaxed))
			return 0;
	return EAGAIN;
}

static int g_trywait(void *p)
{
	return take(p, 0);
}

/* Give up (deadline, signal, bad deadline): take a token present now, or
 * deregister while the count is zero — one CAS decides both. No ordering:
 * deregistering transfers no data; the token branch is acquire as above. */
static int give_up(struct glibc64 *s, int why)
{
	uint64_t d = atomic_load_explicit(&s->data, memory_order_relaxed);
	for (;;) {
		if (g_count(d) > 0) {
			if (atomic_compare_exchange_weak_explicit(&s->data, &d, d - 1 - G64_ONE_W,
					memory_order_acquire, memory_order_relaxed))
				return 0;
		} else if (atomic_compare_exchange_weak_explicit(&s->data, &d, d - G64_ONE_W,
				memory_order_relaxed, memory_order_relaxed)) {
			return why;
		}
	}
}

/* g_timedwait after its first take found none (FL_SLOW_PATH). */
FL_SLOW_PATH static int g_timedwait_slow(struct glibc64 *s,
						       const struct timespec *dl)
{
	/* Register. Relaxed: the registration's place in the word's modification
	 * order is all a post needs (see NO LOST WAKEUP). */
	atomic_fetch_add_explicit(&s->data, G64_ONE_W, memory_order_relaxed);
	for (;;) {
		if (take(s, G64_ONE_W) == 0)
			return 0;               /* token taken and deregistered: one CAS */
		fl_race_window();               /* registered, count seen 0, not asleep */
		int r = fl_futex_wait(futex_word(s), 0, dl, s->shared);
		if (r == ETIMEDOUT || r == EINTR || r == EINVAL)
			return give_up(s, r);
		/* 0 (woken or spurious) or EAGAIN (count changed): compete again */
	}
}

static int g_timedwait(void *p, const struct timespec *dl)
{
	if (take(p, 0) == 0)
		return 0;
	return g_timedwait_slow(p, dl);
}

static int g_wait(void *p)
{
	return g_timedwait(p, NULL);
}

static int g_getvalue(void *p)
{
	return (int)g_count(atomic_load_explicit(&((struct glibc64 *)p)->data,
						 memory_order_relaxed));
}

static int g_words(void *p, _Atomic uint32_t **out, int max)
{
	if (max < 1)
		return 0;
	out[0] = futex_word(p);
	return 1;
}

FL_PAIRS(g_pairs, g_post, g_wait, g_trywait)

FL_VARIANT(glibc64, struct glibc64,
	.text = "src:glibc64.c,policy.c;sym:fl_futex_,fl_notify,fl_wait,fl_timedwait;dsym:libc.so.6:syscall", /* hunt: its code (variant.h) */
	.summary = "glibc's layout: count and waiters in one 64-bit word, post is one CAS (bug 12674)",
	.value_max = G64_MAX,
	.init = g_init, .destroy = g_destroy, .post = g_post, .wait = g_wait,
	.trywait = g_trywait, .timedwait = g_timedwait, .getvalue = g_getvalue,
	.words = g_words,
	.pairs = g_pairs);
