/* variants/uring.c — negcount's algorithm with its sleeps and wakes
 * submitted as io_uring futex operations (lib/uring.h).
 *
 * INVARIANT  Exactly negcount's (variants/negcount.c): `count` holds tokens
 *   when positive and unresolved waiter claims when negative; `grants`
 *   holds resolved claims whose owners have not left, and is the word
 *   waiters sleep on. Ownership, memory orderings and the two-exit timeout
 *   carry over unchanged: only the backend differs.
 *
 * WHAT DIFFERS  A sleep is an IORING_OP_FUTEX_WAIT (+ a linked absolute
 *   timeout) submitted on the thread's own ring, then a wait for its CQE; a
 *   wake is an IORING_OP_FUTEX_WAKE. The fast paths never touch the ring,
 *   so uncontended it costs what negcount costs; each sleep/wake costs a
 *   submission plus a CQE wait instead of one futex syscall — the overhead
 *   an event loop that already owns a ring would not pay twice, measured
 *   here in isolation. Wait-any uses IORING_OP_FUTEX_WAITV on the grant
 *   words (variants/waitany.h). Skipped with the reason when liburing is
 *   missing at build time, io_uring is disabled, or the opcodes are not
 *   there. */
#include "lib/uring.h"
#include "variants/negcount.h"
#include "variants/variant.h"
#include "variants/waitany.h"

static int ur_init(void *p, unsigned value, int pshared)
{
	return fl_negcount_init_on(p, value, pshared, &fl_wa_uring);
}

static const struct fl_any_ops uring_any = {
	.unavailable = fl_uring_waitv_unavailable, .waitv = fl_uring_waitv,
	.arm = fl_negcount_any_arm, .poll = fl_negcount_any_poll,
	.disarm = fl_negcount_any_disarm, .pass_on = fl_negcount_any_pass_on,
};

FL_VARIANT(uring, struct fl_negcount,
	.text = "src:uring.c,negcount.c,policy.c;sym:fl_negcount_,fl_uring_,fl_notify,fl_wait,fl_timedwait;dso:liburing.so", /* hunt: its code (variant.h) */
	.summary = "negcount's algorithm, sleeps/wakes as io_uring FUTEX_WAIT/WAKE SQEs (6.7+), one ring per thread",
	.unavailable = fl_uring_unavailable,
	.init = ur_init, FL_NEGCOUNT_OPS,
	.any = &uring_any);
