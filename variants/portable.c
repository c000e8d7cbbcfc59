/* variants/portable.c — negcount's algorithm on the negative-counter note's
 * portable wait-on-address fallback (lib/portable.c: one process-wide mutex and
 * condition variable for every address, broadcast on every wake).
 *
 * INVARIANT  exactly negcount's (variants/negcount.c): `count` holds tokens
 *   when positive and unresolved waiter claims when negative; `grants`
 *   counts resolved claims whose owners have not left, and is the word
 *   waiters sleep on; a timed-out claimant leaves by taking a grant or by
 *   removing a claim, never both. Only the sleeping backend differs, and it
 *   is named here, explicitly: this file is the one place that chooses the
 *   fallback (no build switch or run-time probe ever substitutes it for
 *   futex(2)). The fast paths never touch the backend, so uncontended cost
 *   equals negcount's; every sleep and wake takes the one global mutex, and
 *   every wake broadcasts to all sleepers of the process — what the fallback
 *   costs is what this variant measures.
 *
 * PROMISES NOT KEPT (flags, variant.h; the shim refuses this design unless
 *   FUTEXLAB_ALLOW names them)
 *   FL_SIGNAL_UNSAFE: a wake takes the backend's mutex, so a signal handler
 *   posting while its own thread holds that mutex (inside a wait or a post
 *   that sleeps or wakes) deadlocks. Blocking signals around the locked
 *   section would cost two sigprocmask syscalls per sleep and per wake and
 *   still leave pthread_mutex_lock, which POSIX does not make
 *   async-signal-safe; a fallback for platforms without futex declares it.
 *   FL_NO_EINTR: the sleep is pthread_cond_timedwait, which POSIX forbids
 *   from returning EINTR (glibc's restarts its futex wait after a handler),
 *   so a handler never interrupts a wait here; POSIX lists EINTR for sem_wait
 *   and sem_timedwait under "may fail". Reporting it would need a sleep a
 *   signal interrupts (a per-waiter pipe and poll, say) — another design.
 *
 * pshared: ENOTSUP. The mutex and the waiter list live in this process's
 *   memory, so a waiter in another process could never be woken. */
#include <errno.h>

#include "lib/portable.h"
#include "variants/negcount.h"
#include "variants/variant.h"

static int pt_init(void *p, unsigned value, int pshared)
{
	if (pshared && value <= FL_NEGCOUNT_MAX)
		return ENOTSUP;
	return fl_negcount_init_on(p, value, 0, &fl_wa_portable);
}

FL_VARIANT(portable, struct fl_negcount,
	.text = "src:portable.c,negcount.c,policy.c;sym:fl_negcount_,fl_portable_,fl_wait,fl_timedwait;dsym:libc.so.6:pthread_mutex_,pthread_cond_", /* hunt: its code (variant.h) */
	.summary = "negcount's portable fallback: on one global mutex+condvar (broadcast) for every address",
	.flags = FL_SIGNAL_UNSAFE | FL_NO_EINTR,
	.init = pt_init, FL_NEGCOUNT_OPS);
