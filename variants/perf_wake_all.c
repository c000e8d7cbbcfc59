/* variants/perf_wake_all.c — performance mutant: negcount waking every
 * sleeper where it owes k wakes (variant.h, struct fl_perf;
 * variants/README.md, "Performance mutants").
 *
 * MIMICS  libstdc++ 12's std::counting_semaphore: _M_release from 0 wakes
 *   all (__atomic_notify_address_bare(&_M_counter, true), FUTEX_WAKE
 *   INT_MAX, bits/semaphore_base.h 253-258, with the FIXME that the
 *   wake-one form "does not wake a waiting thread"): the thundering herd,
 *   every sleeper woken to re-check, all but one going back to sleep.
 *
 * THE COST  negcount's post, but a post that resolved k claims wakes every
 *   thread asleep on the grants word (FUTEX_WAKE INT_MAX) instead of k,
 *   whatever the run's --wake (negcount.c, post_impl's herd). The k
 *   claimants it owes are among them; the others find no grant, re-check
 *   and sleep again — negcount's own loop, so correctness is negcount's.
 *
 * WHERE IT MUST COST  where many threads sleep on one semaphore and each
 *   post resolves one claim: wake-each T=16 (16 threads asleep, 16 post(1)
 *   in a row). negcount wakes one per post; this wakes every sleeper at
 *   each post, the losers re-check and sleep again: herd bursts (a wake of
 *   3 or more, 2 of them asleep again within 5 ms: probes/columns.md),
 *   none in negcount (its wake-one cannot make one), several per round
 *   here, and `woke 0`, several per round from none too (the posts that
 *   find everyone awake): both the herd's, and which is named first (of
 *   two counts from none the larger: model/evidence.h) is the run's draw
 *   (each has come first in quiet runs, the two close), so both are
 *   declared, either first. It is slower at wake-each T=16 and more at T=32; T=8 is too
 *   small a herd to be flagged every time (results/sensitivity.md). Not in
 *   the quick preset: scripts/perf-mutants runs it as a point of its own
 *   with the preset's settings. At the quick points it costs nothing
 *   measurable (~ or within the noise):
 *   two sleepers on a word at most make no herd.
 */
#include "lib/waitaddr.h"
#include "variants/negcount.h"
#include "variants/variant.h"

static int wl_init(void *p, unsigned value, int pshared)
{
	return fl_negcount_init_on(p, value, pshared, &fl_wa_futex);
}

static const struct fl_perf perf = {
	.parent = "negcount",
	.cost = "a post that owes k wakes wakes every sleeper (FUTEX_WAKE INT_MAX)",
	.mimics = "libstdc++ 12 std::counting_semaphore: _M_release wakes all "
		  "(bits/semaphore_base.h 253-258, FIXME on wake-one)",
	.points = "wake-each T=16 wake=exact",
	.count = "herd/1k|woke 0",
};

FL_VARIANT(perf_wake_all, struct fl_negcount,
	.summary = "negcount waking every sleeper for one claim (the herd)",
	.init = wl_init, .value_max = FL_NEGCOUNT_MAX, .destroy = fl_negcount_destroy,
	.post = fl_negcount_post_herd, .wait = fl_negcount_wait, .trywait = fl_negcount_trywait,
	.timedwait = fl_negcount_timedwait, .getvalue = fl_negcount_getvalue,
	.words = fl_negcount_words, .perf = &perf);
