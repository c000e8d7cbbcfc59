/* variants/lock1.c — the negative-counter note's lock made of one token.
 *
 * INVARIANT  negcount's (see negcount.c) with the capacity fixed at one:
 *   `count` is 1 (unlocked: one permit), 0 (held, nobody waiting) or -k
 *   (held, k claimants queued); `grants` counts claims a release resolved
 *   whose owners have not yet left. count never exceeds 1: the release is a
 *   CAS loop that clamps at the cap (fl_negcount_post_capped), so an
 *   over-release — unlocking an unlocked lock, from any number of threads
 *   at once — is absorbed and returns 0 instead of creating a second
 *   permit. A release while the lock is held still admits the next thread:
 *   the clamp guards the permit count, not ownership (other lock misuse is
 *   unaffected, as the seed says).
 *
 *   Acquire is negcount's wait: 1 -> 0 enters without the kernel, 0 -> -1
 *   sleeps on grants; timeouts and EINTR leave by negcount's two exits (take
 *   the grant a racing release assigned, or remove the claim). Ordering and
 *   destruction arguments are negcount's: the capped release publishes with
 *   the same release ordering.
 *
 *   value_max = 1 and FL_CAPPED: init accepts 0 or 1 (held or free), post
 *   at the cap returns 0; the conformance suite adapts to both. */
#include <errno.h>

#include "variants/negcount.h"
#include "variants/policy.h"
#include "variants/variant.h"

#define LOCK1_CAP 1

static int l1_init(void *p, unsigned value, int pshared)
{
	if (value > LOCK1_CAP)
		return EINVAL;
	return fl_negcount_init_on(p, value, pshared, &fl_wa_futex);
}

static int l1_post(void *p, unsigned n)
{
	return fl_negcount_post_capped(p, n, LOCK1_CAP);
}

FL_PAIRS(l1_pairs, l1_post, fl_negcount_wait, fl_negcount_trywait)

FL_VARIANT(lock1, struct fl_negcount,
	.text = "src:lock1.c,negcount.c,policy.c;sym:fl_negcount_,fl_futex_,fl_notify,fl_wait,fl_timedwait;dsym:libc.so.6:syscall", /* hunt: its code (variant.h) */
	.summary = "a lock of one token; negcount with a CAS clamp so over-release never adds a permit",
	.flags = FL_CAPPED,
	.value_max = LOCK1_CAP, .init = l1_init, .destroy = fl_negcount_destroy,
	.post = l1_post, .wait = fl_negcount_wait, .trywait = fl_negcount_trywait,
	.timedwait = fl_negcount_timedwait, .getvalue = fl_negcount_getvalue,
	.words = fl_negcount_words, .pairs = l1_pairs);
