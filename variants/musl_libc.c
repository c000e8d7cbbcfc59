/* variants/musl_libc.c — `musl-libc`: the real musl sem_t (Debian 12's
 * musl-tools, musl 1.2.3), not a re-implementation (that is `musl`, after
 * the musl thread).
 *
 * This file is compiled twice:
 *   - by musl-gcc (-DFL_MUSL, statically linked into the helper
 *     `futexlab-musl` and the musl conformance test): the ops below call
 *     musl's own sem_init/sem_post/sem_wait/sem_trywait/sem_timedwait/
 *     sem_getvalue/sem_destroy. musl's libc cannot be loaded into the glibc
 *     harness (two libcs, two thread libraries, one process), so this is
 *     the only place they run.
 *   - by the project's compiler (glibc): a descriptor with no ops and
 *     `.helper` naming the helper; the harness runs every rep of this design
 *     in that helper (proc/helper.h), the in-process suites, the shim and
 *     `exec` leave it out.
 *
 * INVARIANT  whatever musl 1.2.3 keeps (src/thread/sem_*.c, read for this
 *   file): __val[0] is the value and the futex word, -1 when it is 0 and a
 *   waiter may sleep; __val[1] counts the waiters registered; __val[2] is
 *   the futex private flag (0 for pshared, FUTEX_PRIVATE otherwise). post is a
 *   CAS loop on __val[0] (val+1, or +2 from -1) that reads __val[1] outside
 *   the CAS and wakes one when val < 0 or waiters were seen: the ABA window
 *   musl commit 159d1f6c (1.2.4) closed; this is the code before it. wait
 *   tries, spins 100 times while the value is empty and nobody waits, then
 *   registers in __val[1], sets __val[0] from 0 to -1 and sleeps with
 *   FUTEX_WAIT on __val[0] (not WAIT_BITSET: the probes' `wait` column, not
 *   glibc's `wait_bs`). musl keeps its own waiting policy (.own_policy: a
 *   policy of variants/policy.h is refused for it) and ignores futexlab's
 *   --wake (as glibc's sem_t does for `glibc`): its spin bound and its
 *   wake-one are its own.
 *
 * What this file adds, and its caveats:
 *   - post(n) is n sem_post calls (no multi-token post), with the value
 *     checked against SEM_VALUE_MAX first, as variants/glibc.c does.
 *   - timedwait: musl 1.2.3 has no sem_clockwait; sem_timedwait takes a
 *     CLOCK_REALTIME deadline. The absolute CLOCK_MONOTONIC deadline is
 *     turned into a CLOCK_REALTIME one by adding the remaining monotonic time
 *     to the realtime clock read right after the monotonic one. Caveat: a
 *     step of the realtime clock (settimeofday, NTP's step, not its slew)
 *     while a waiter sleeps moves its deadline by the same amount; the two
 *     reads are not atomic either, so the deadline can land up to the gap
 *     between them (tens of ns) early or late. An out-of-range tv_nsec is
 *     checked here before the conversion would hide it: a token available
 *     is still taken, else EINVAL (the interface's rule; musl checks only
 *     after its trywait too).
 *   - EINTR as musl has it: musl's futex wait returns EINTR only once the
 *     process has installed a signal handler without SA_RESTART
 *     (__eintr_valid_flag); with SA_RESTART handlers, or none, a signal never
 *     ends a wait. Both are within the interface's "EINTR when a handler
 *     interrupted the sleep" (POSIX: may fail); the suites retry EINTR.
 *   - pshared works in musl (the private flag lives in __val[2]); getvalue
 *     never reports waiters (musl 1.2.3 clamps a negative __val[0] at 0).
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>

#include "variants/variant.h"

/* How musl waits (sem_timedwait.c), for `futexlab list`: its own policy. */
#define ML_POLICY "spins 100 times while the value is empty and nobody waits, then FUTEX_WAIT"

/* hunt's in-library-text preemption (variant.h .text): musl's semaphore
 * code inside the static helper — sem_*, the futex sleep (__timedwait*,
 * __wait), the cancellable syscall path it sleeps through; sem_post's wake
 * (__wake) is inline in sem_post. Resolved in the helper's own symbols. */
#define ML_TEXT "sym:sem_,__timedwait,__wait,__syscall_cp,__syscall_ret"

#ifdef FL_MUSL
#include <semaphore.h>
#include "variants/sem_api.h" /* the sem_t API as glibc.c maps it: here musl's */
#include <stdint.h>
#include <time.h>

#ifdef __GLIBC__
#error "FL_MUSL: this translation unit must be compiled by musl-gcc"
#endif

static int ml_timedwait(void *p, const struct timespec *dl)
{
	if (!dl)
		return fl_sem_api_wait(p);
	if (dl->tv_nsec < 0 || dl->tv_nsec >= 1000000000)
		return fl_sem_api_bad_deadline(p);
	struct timespec mono, real;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	/* real + (dl - mono), normalised; a passed deadline stays in the past
	 * (musl then takes a token if one is there, else ETIMEDOUT) */
	long long ns = ((long long)dl->tv_sec - mono.tv_sec) * 1000000000LL +
		       (dl->tv_nsec - mono.tv_nsec) + real.tv_nsec;
	struct timespec at = { real.tv_sec + ns / 1000000000LL, ns % 1000000000LL };
	if (at.tv_nsec < 0) {
		at.tv_nsec += 1000000000L;
		at.tv_sec--;
	}
	return sem_timedwait(p, &at) == 0 ? 0 : errno;
}

static int ml_words(void *p, _Atomic uint32_t **out, int max)
{
	/* musl's waiters sleep on __val[0] */
	if (max < 1)
		return 0;
	out[0] = (_Atomic uint32_t *)(void *)((sem_t *)p)->__val;
	return 1;
}

_Static_assert(sizeof(sem_t) <= FL_STATE_MAX, "musl-libc: state larger than sem_t");

const struct fl_variant fl_variant_musl_libc = {
	.name = "musl-libc", .size = sizeof(sem_t), .align = _Alignof(sem_t),
	.summary = "musl 1.2.3's sem_t (Debian musl-tools), run in a static musl helper",
	.text = ML_TEXT,
	.own_policy = ML_POLICY,
	.value_max = SEM_VALUE_MAX,
	.flags = FL_LOST_WAKEUP, /* 1.2.3: post's ABA (musl 159d1f6c, in 1.2.4) */
	.init = fl_sem_api_init, .destroy = fl_sem_api_destroy, .post = fl_sem_api_post,
	.wait = fl_sem_api_wait, .trywait = fl_sem_api_trywait, .timedwait = ml_timedwait,
	.getvalue = fl_sem_api_getvalue,
	.words = ml_words,
};

#else /* the glibc build: a helper-run descriptor */

static const char *ml_unavailable(void)
{
#ifdef FL_HAVE_MUSL
	return NULL;
#else
	return "built without musl-gcc (apt install musl-tools)";
#endif
}

/* musl's sem_t on x86-64: int __val[4 * sizeof(long) / sizeof(int)], the
 * size of glibc's; the descriptor says so for `futexlab list`. */
const struct fl_variant fl_variant_musl_libc = {
	.name = "musl-libc", .size = 4 * sizeof(long), .align = _Alignof(int),
	.summary = "musl 1.2.3's sem_t (Debian musl-tools), run in a static musl helper",
	.value_max = INT_MAX, /* musl's SEM_VALUE_MAX */
	.flags = FL_LOST_WAKEUP, /* 1.2.3: post's ABA (musl 159d1f6c, in 1.2.4) */
	.unavailable = ml_unavailable,
	.helper = "futexlab-musl",
	.text = ML_TEXT, /* (read in the helper) */
	.own_policy = ML_POLICY,
#ifdef FL_MUSL_VERSION /* the musl-dev package the helper is built with (meson) */
	.library = "musl " FL_MUSL_VERSION,
#endif
};

#endif
