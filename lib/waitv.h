/* lib/waitv.h — futex_waitv (Linux 5.16): sleep on up to 128 words at once.
 *
 * The kernel queues the caller on every word, then compares each word with
 * its expected value (all under the queue locks, as futex_wait does for one):
 * if any differs it returns at once, so a change to any of them before the
 * sleep is never missed. A FUTEX_WAKE (futex(2), futex2 or io_uring) on any of
 * the words wakes the caller. Words are 32-bit; each is private unless its
 * `shared` is set, and must agree with the wakes on it.
 *
 * fl_futex_waitv returns the index of a woken word (>= 0; with several woken
 * the kernel names any one of them, and a spurious wake is possible), or a
 * negative errno: -EAGAIN (some word differed), -ETIMEDOUT, -EINTR,
 * -EINVAL (tv_nsec out of range, or n outside 1..FL_WAITV_MAX). The deadline
 * is absolute CLOCK_MONOTONIC, NULL for none; negative tv_sec is already
 * past. fl_waitv_unavailable() probes the running kernel once. */
#ifndef FUTEXLAB_WAITV_H
#define FUTEXLAB_WAITV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define FL_WAITV_MAX 128 /* the kernel's FUTEX_WAITV_MAX */

struct fl_waitv {
	_Atomic uint32_t *addr;
	uint32_t expected;
	bool shared;
};

int fl_futex_waitv(const struct fl_waitv *w, int n, const struct timespec *abs_deadline);
const char *fl_waitv_unavailable(void);

#endif
