/* variants/futex2.c — negcount's algorithm on the futex2 system calls.
 *
 * INVARIANT  Exactly negcount's (variants/negcount.c): `count` holds tokens
 *   when positive and unresolved waiter claims when negative; `grants` holds
 *   the claims a post resolved whose owners have not yet left, and is the
 *   only word anyone sleeps on. Every ownership rule, memory ordering and
 *   the two-exit timeout argument carry over unchanged, because only the
 *   sleeping backend differs.
 *
 * WHAT DIFFERS  Sleeps and wakes go through futex_wait / futex_wake (Linux
 *   6.7, lib/futex2.h) with FUTEX2_SIZE_U32 | FUTEX2_PRIVATE instead of the
 *   futex(2) multiplexer: same kernel queue, a cleaner flags model (the word
 *   size is explicit, which is what later allows 8/16/64-bit futexes), and
 *   one syscall per operation instead of an op code dispatch. What it costs
 *   or saves is the harness's to measure. On a kernel without futex2 the
 *   variant reports why and is skipped. */
#include "lib/futex2.h"
#include "variants/negcount.h"
#include "variants/variant.h"
#include "variants/waitany.h"

static int f2_init(void *p, unsigned value, int pshared)
{
	return fl_negcount_init_on(p, value, pshared, &fl_wa_futex2);
}

FL_VARIANT(futex2, struct fl_negcount,
	.text = "src:futex2.c,negcount.c,policy.c;sym:fl_negcount_,fl_futex2_,fl_notify,fl_wait,fl_timedwait;dsym:libc.so.6:syscall", /* hunt: its code (variant.h) */
	.summary = "negcount's algorithm on the futex2 syscalls futex_wait/futex_wake (6.7+)",
	.unavailable = fl_futex2_unavailable,
	.init = f2_init, FL_NEGCOUNT_OPS,
	.any = &fl_negcount_any);
