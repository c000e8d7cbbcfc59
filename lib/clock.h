/* lib/clock.h — monotonic time, absolute deadlines and timeout clamps.
 *
 * Every deadline in futexlab is an absolute CLOCK_MONOTONIC timespec: a wait
 * loop that wakes spuriously and sleeps again must not restart its clock, so
 * no relative timeout ever crosses a loop iteration.  The clamps at the end
 * carry the negative-counter note's conversion rules for kernels whose timeout
 * field is narrower or has sentinels: a finite request never becomes "forever",
 * zero never becomes "forever", and a value that does not fit saturates (the
 * caller wakes early and waits again, which the spurious-wakeup contract
 * already allows). */
#ifndef FUTEXLAB_CLOCK_H
#define FUTEXLAB_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define FL_NSEC_PER_SEC 1000000000L

/* Current CLOCK_MONOTONIC time. */
struct timespec fl_now(void);
/* Current CLOCK_MONOTONIC time in nanoseconds. */
int64_t fl_now_ns(void);

/* True when 0 <= tv_nsec < 1e9 (POSIX's condition for EINVAL). */
bool fl_ts_valid(const struct timespec *ts);
/* a + ns, normalised; saturates at the largest representable time instead
 * of wrapping (a huge deadline stays huge, never becomes negative). */
struct timespec fl_ts_add_ns(struct timespec a, int64_t ns);
/* -1, 0, 1 like strcmp. */
int fl_ts_cmp(const struct timespec *a, const struct timespec *b);
/* a - b in nanoseconds, saturating at INT64_MIN / INT64_MAX. */
int64_t fl_ts_diff_ns(const struct timespec *a, const struct timespec *b);
/* Nanoseconds <-> timespec (saturating). */
int64_t fl_ts_to_ns(const struct timespec *ts);
struct timespec fl_ns_to_ts(int64_t ns);

/* The absolute deadline rel_ns from now (negative rel_ns gives a past
 * deadline; it never wraps). */
struct timespec fl_deadline_after_ns(int64_t rel_ns);
/* An absolute deadline as a kernel wait takes it: EINVAL for tv_nsec out of
 * range; a deadline before the monotonic epoch (negative tv_sec, which the
 * kernel rejects) becomes {0, 0}, i.e. already past. 0 and *out otherwise.
 * Shared by the futex, futex2 and portable wait backends. */
int fl_deadline_for_kernel(const struct timespec *in, struct timespec *out);

/* True if the deadline is at or before now. */
bool fl_deadline_passed(const struct timespec *deadline);

/* The negative-counter note's clamps, kept as pure functions with unit tests:
 * - fl_timeout_to_us: for a 32-bit microsecond field in which 0 means
 *   "wait forever". <= 0 becomes 1 (the shortest finite wait), anything past
 *   the field saturates to 0xFFFFFFFF.
 * - fl_timeout_to_ms: for a 32-bit millisecond field in which all ones means
 *   "infinite". A finite request never produces the sentinel: it saturates
 *   at 0xFFFFFFFE; negative becomes 0 (poll). */
uint32_t fl_timeout_to_us(int64_t us);
uint32_t fl_timeout_to_ms(int64_t ms);

/* Busy work for ns nanoseconds (hold/think times in workloads): spins on
 * the clock, never sleeps. */
void fl_busy_ns(int64_t ns);

#endif
