/* lib/clock.c — see clock.h. */
#include "lib/clock.h"

#include <errno.h>
#include <limits.h>

#include "lib/cpu.h"

struct timespec fl_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts;
}

int64_t fl_now_ns(void)
{
	struct timespec ts = fl_now();
	return fl_ts_to_ns(&ts);
}

bool fl_ts_valid(const struct timespec *ts)
{
	return ts->tv_nsec >= 0 && ts->tv_nsec < FL_NSEC_PER_SEC;
}

static const struct timespec ts_max = { .tv_sec = INT64_MAX, .tv_nsec = FL_NSEC_PER_SEC - 1 };
static const struct timespec ts_min = { .tv_sec = INT64_MIN, .tv_nsec = 0 };

struct timespec fl_ts_add_ns(struct timespec a, int64_t ns)
{
	int64_t sec = ns / FL_NSEC_PER_SEC;
	long nsec = (long)(ns % FL_NSEC_PER_SEC);
	struct timespec r;
	if (__builtin_add_overflow((int64_t)a.tv_sec, sec, &sec))
		return sec < 0 ? ts_max : ts_min; /* wrapped: report the saturated end */
	nsec += a.tv_nsec;
	if (nsec >= FL_NSEC_PER_SEC) {
		nsec -= FL_NSEC_PER_SEC;
		if (sec == INT64_MAX)
			return ts_max;
		sec++;
	} else if (nsec < 0) {
		nsec += FL_NSEC_PER_SEC;
		if (sec == INT64_MIN)
			return ts_min;
		sec--;
	}
	r.tv_sec = sec;
	r.tv_nsec = nsec;
	return r;
}

int fl_ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	if (a->tv_nsec != b->tv_nsec)
		return a->tv_nsec < b->tv_nsec ? -1 : 1;
	return 0;
}

int64_t fl_ts_to_ns(const struct timespec *ts)
{
	int64_t r;
	if (__builtin_mul_overflow((int64_t)ts->tv_sec, FL_NSEC_PER_SEC, &r))
		return ts->tv_sec < 0 ? INT64_MIN : INT64_MAX;
	if (__builtin_add_overflow(r, (int64_t)ts->tv_nsec, &r))
		return INT64_MAX;
	return r;
}

struct timespec fl_ns_to_ts(int64_t ns)
{
	struct timespec r = { .tv_sec = ns / FL_NSEC_PER_SEC, .tv_nsec = ns % FL_NSEC_PER_SEC };
	if (r.tv_nsec < 0) {
		r.tv_nsec += FL_NSEC_PER_SEC;
		r.tv_sec--;
	}
	return r;
}

int64_t fl_ts_diff_ns(const struct timespec *a, const struct timespec *b)
{
	int64_t ds, r;
	if (__builtin_sub_overflow((int64_t)a->tv_sec, (int64_t)b->tv_sec, &ds) ||
	    __builtin_mul_overflow(ds, FL_NSEC_PER_SEC, &r) ||
	    __builtin_add_overflow(r, (int64_t)(a->tv_nsec - b->tv_nsec), &r))
		return fl_ts_cmp(a, b) < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

struct timespec fl_deadline_after_ns(int64_t rel_ns)
{
	return fl_ts_add_ns(fl_now(), rel_ns);
}

int fl_deadline_for_kernel(const struct timespec *in, struct timespec *out)
{
	if (!fl_ts_valid(in))
		return EINVAL;
	*out = *in;
	if (out->tv_sec < 0) /* before the monotonic epoch: already past */
		out->tv_sec = 0, out->tv_nsec = 0;
	return 0;
}

bool fl_deadline_passed(const struct timespec *deadline)
{
	struct timespec now = fl_now();
	return fl_ts_cmp(deadline, &now) <= 0;
}

uint32_t fl_timeout_to_us(int64_t us)
{
	if (us <= 0)
		return 1;          /* zero would mean "forever" to the kernel */
	if (us > 0xFFFFFFFFll)
		return 0xFFFFFFFFu; /* saturate the field; caller waits again */
	return (uint32_t)us;
}

uint32_t fl_timeout_to_ms(int64_t ms)
{
	if (ms < 0)
		return 0;
	if (ms >= 0xFFFFFFFFll)
		return 0xFFFFFFFEu; /* all ones is INFINITE: a finite wait stops one short */
	return (uint32_t)ms;
}

void fl_busy_ns(int64_t ns)
{
	if (ns <= 0)
		return;
	int64_t end = fl_now_ns() + ns;
	while (fl_now_ns() < end)
		fl_cpu_relax();
}
