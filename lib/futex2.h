/* lib/futex2.h — the futex2 system calls futex_wait / futex_wake (Linux 6.7+).
 *
 * Same contract as futex.h (errno-valued results, absolute CLOCK_MONOTONIC
 * deadline, NULL for none, spurious returns allowed):
 *   fl_futex2_wait -> 0, EAGAIN, EINTR, ETIMEDOUT, EINVAL (bad tv_nsec);
 *   fl_futex2_wake -> the number of threads woken (>= 0).
 * The word is 32 bits (FUTEX2_SIZE_U32), private unless `shared`
 * (FUTEX2_PRIVATE). The mask is FUTEX_BITSET_MATCH_ANY, so these words are
 * interchangeable with futex(2) and futex_waitv on the same address: a wake
 * through either family finds waiters queued through the other.
 *
 * The Debian 12 (6.1) headers lack the futex2 constants; they are defined
 * here from the kernel's uapi (x86-64 numbers from syscall_64.tbl: 454 is
 * futex_wake, 455 is futex_wait). fl_futex2_unavailable() probes the running
 * kernel once and returns NULL or a one-line reason. */
#ifndef FUTEXLAB_FUTEX2_H
#define FUTEXLAB_FUTEX2_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#ifndef FUTEX2_SIZE_U32
#define FUTEX2_SIZE_U32 0x02
#endif
#ifndef FUTEX2_PRIVATE
#define FUTEX2_PRIVATE 0x80 /* == FUTEX_PRIVATE_FLAG */
#endif

#if defined(__x86_64__) && !defined(__ILP32__)
#define FL_NR_futex_wake 454
#define FL_NR_futex_wait 455
#endif

int fl_futex2_wait(_Atomic uint32_t *addr, uint32_t expected,
		   const struct timespec *abs_deadline, bool shared);
int fl_futex2_wake(_Atomic uint32_t *addr, int n, bool shared);
const char *fl_futex2_unavailable(void);

/* The wait-on-address backend over these calls (waitaddr.h). */
#include "lib/waitaddr.h"
extern const struct fl_waitaddr fl_wa_futex2;

#endif
