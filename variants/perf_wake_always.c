/* variants/perf_wake_always.c — performance mutant: negcount with a
 * FUTEX_WAKE on every post, whether or not anyone waits (variant.h,
 * struct fl_perf; variants/README.md, "Performance mutants").
 *
 * MIMICS  libstdc++ 12's std::counting_semaphore (__atomic_semaphore,
 *   bits/semaphore_base.h 248-258): _M_release returns early only when its
 *   fetch_add found a positive count; a release from 0 always calls
 *   __atomic_notify_address_bare, a FUTEX_WAKE, with no waiter count to
 *   tell it nobody sleeps. The uncontended post+wait pair posts from 0
 *   every time, so every op pays a wake syscall that wakes nobody
 *   (../results: cxx-gnu's futex column at uncontended, 1.000 per op).
 *
 * THE COST  negcount's post, then one FUTEX_WAKE of 1 on the grants word,
 *   every post. Everything else is negcount's: where the post owed a wake
 *   it has made it already, and the extra one is a wake that wakes nobody
 *   or a spurious wakeup, which every negcount sleeper re-checks (its wait
 *   loops on take_grant): correctness is negcount's.
 *
 * WHERE IT MUST COST  uncontended: negcount's post finds old >= 0 and makes
 *   no syscall (its futex column is 0 there), so the op gains a whole wake
 *   syscall (~1 us here against ~30 ns), and the evidence's `wakes` goes
 *   from none to 1.000 per op — named first by the why line (`woke 0` and
 *   `wk/post` come from none too; of counts from none the larger goes
 *   first, and neither can exceed it here: the wakes that woke nobody are
 *   some of the wakes, and a post+wait op makes one post; equal, the
 *   earlier column stays first: model/evidence.h).
 *
 * DESTRUCTION  The backend and the shared flag are read before the post's
 *   add (negcount.c, DESTRUCTION: after it the waiter that takes the token
 *   may destroy s); the extra wake only names the address, as negcount's
 *   own wake does: a private FUTEX_WAKE does not dereference it, a shared
 *   one on an unmapped page fails with EFAULT (nobody woken). */
#include <stdbool.h>

#include "lib/waitaddr.h"
#include "variants/negcount.h"
#include "variants/variant.h"

static int wa_init(void *p, unsigned value, int pshared)
{
	return fl_negcount_init_on(p, value, pshared, &fl_wa_futex);
}

static int wa_post(void *p, unsigned n)
{
	struct fl_negcount *s = p;
	const struct fl_waitaddr *wa = fl_negcount_wa(s);
	bool shared = s->shared;
	_Atomic uint32_t *word = &s->grants;
	int r = fl_negcount_post(p, n);
	wa->wake(word, 1, shared); /* the one cost: always, nobody asleep or not */
	return r;
}

static const struct fl_perf perf = {
	.parent = "negcount",
	.cost = "a FUTEX_WAKE on every post, whether or not anyone waits",
	.mimics = "libstdc++ 12 std::counting_semaphore: _M_release from 0 always "
		  "notifies (bits/semaphore_base.h 248-258), no waiter count",
	.points = "uncontended T=1 wake=exact",
	.count = "wakes",
};

FL_VARIANT(perf_wake_always, struct fl_negcount,
	.summary = "negcount + a FUTEX_WAKE on every post (libstdc++ 12's release)",
	.init = wa_init, .value_max = FL_NEGCOUNT_MAX, .destroy = fl_negcount_destroy,
	.post = wa_post, .wait = fl_negcount_wait, .trywait = fl_negcount_trywait,
	.timedwait = fl_negcount_timedwait, .getvalue = fl_negcount_getvalue,
	.words = fl_negcount_words, .perf = &perf);
