/* tests/test_clock.c — unit tests for lib/clock: timespec arithmetic,
 * deadlines and the negative-counter note's timeout clamps. */
#include <limits.h>
#include <stdint.h>

#include "tests/check.h"
#include "lib/clock.h"

static void t_add(void *arg)
{
	(void)arg;
	struct timespec a = { 1, 900000000 };
	struct timespec r = fl_ts_add_ns(a, 200000000);
	CHECK(r.tv_sec == 2 && r.tv_nsec == 100000000, "carry: %lld.%09ld", (long long)r.tv_sec, r.tv_nsec);
	r = fl_ts_add_ns(a, -1950000000);
	CHECK(r.tv_sec == -1 && r.tv_nsec == 950000000, "borrow: %lld.%09ld", (long long)r.tv_sec, r.tv_nsec);
	struct timespec big = { INT64_MAX, 999999999 };
	r = fl_ts_add_ns(big, 1);
	CHECK(r.tv_sec == INT64_MAX && r.tv_nsec == 999999999, "saturates at the top, not wraps");
	r = fl_ts_add_ns(big, INT64_MAX);
	CHECK(r.tv_sec == INT64_MAX, "huge add saturates");
	struct timespec small = { INT64_MIN, 0 };
	r = fl_ts_add_ns(small, -1);
	CHECK(r.tv_sec == INT64_MIN && r.tv_nsec == 0, "saturates at the bottom");
}

static void t_cmp_diff(void *arg)
{
	(void)arg;
	struct timespec a = { 5, 10 }, b = { 5, 20 }, c = { 4, 999999999 };
	CHECK(fl_ts_cmp(&a, &b) < 0 && fl_ts_cmp(&b, &a) > 0 && fl_ts_cmp(&a, &a) == 0, "cmp");
	CHECK(fl_ts_cmp(&c, &a) < 0, "cmp across seconds");
	CHECK(fl_ts_diff_ns(&b, &a) == 10, "diff %lld", (long long)fl_ts_diff_ns(&b, &a));
	CHECK(fl_ts_diff_ns(&a, &c) == 11, "diff across seconds");
	struct timespec hi = { INT64_MAX, 0 }, lo = { INT64_MIN, 0 };
	CHECK(fl_ts_diff_ns(&hi, &lo) == INT64_MAX, "diff saturates high");
	CHECK(fl_ts_diff_ns(&lo, &hi) == INT64_MIN, "diff saturates low");
	struct timespec t = fl_ns_to_ts(-1);
	CHECK(t.tv_sec == -1 && t.tv_nsec == 999999999, "ns_to_ts(-1) normalised");
	CHECK(fl_ts_to_ns(&t) == -1, "round trip");
	CHECK(fl_ts_to_ns(&hi) == INT64_MAX, "to_ns saturates");
}

static void t_valid(void *arg)
{
	(void)arg;
	struct timespec ok = { 0, 999999999 }, neg = { 0, -1 }, big = { 0, 1000000000 };
	CHECK(fl_ts_valid(&ok), "999999999 ns is valid");
	CHECK(!fl_ts_valid(&neg), "negative ns is invalid");
	CHECK(!fl_ts_valid(&big), "1e9 ns is invalid");
}

static void t_deadline(void *arg)
{
	(void)arg;
	struct timespec now = fl_now();
	struct timespec d = fl_deadline_after_ns(1000000000);
	int64_t diff = fl_ts_diff_ns(&d, &now);
	CHECK(diff >= 1000000000 && diff < 2000000000, "deadline 1 s ahead: %lld", (long long)diff);
	CHECK(!fl_deadline_passed(&d), "future deadline not passed");
	struct timespec past = fl_deadline_after_ns(-1);
	CHECK(fl_deadline_passed(&past), "past deadline passed");
	struct timespec far = fl_deadline_after_ns(INT64_MAX);
	CHECK(far.tv_sec > now.tv_sec, "a huge relative timeout stays in the future");
}

static void t_clamps(void *arg)
{
	(void)arg;
	/* 0 in the microsecond field means forever: zero and negative requests
	 * must become the shortest finite wait. */
	CHECK(fl_timeout_to_us(0) == 1, "zero -> 1 us");
	CHECK(fl_timeout_to_us(-5) == 1, "negative -> 1 us");
	CHECK(fl_timeout_to_us(1) == 1, "1 us stays");
	CHECK(fl_timeout_to_us(123456) == 123456, "in range unchanged");
	CHECK(fl_timeout_to_us(0xFFFFFFFFll) == 0xFFFFFFFFu, "field maximum kept");
	CHECK(fl_timeout_to_us(0x100000000ll) == 0xFFFFFFFFu, "past the field saturates");
	CHECK(fl_timeout_to_us(INT64_MAX) == 0xFFFFFFFFu, "huge saturates");
	/* all ones in the millisecond field means INFINITE: a finite request
	 * never produces it. */
	CHECK(fl_timeout_to_ms(0xFFFFFFFFll) == 0xFFFFFFFEu, "finite never becomes the sentinel");
	CHECK(fl_timeout_to_ms(INT64_MAX) == 0xFFFFFFFEu, "huge saturates below the sentinel");
	CHECK(fl_timeout_to_ms(0xFFFFFFFEll) == 0xFFFFFFFEu, "largest finite kept");
	CHECK(fl_timeout_to_ms(10) == 10, "in range unchanged");
	CHECK(fl_timeout_to_ms(0) == 0 && fl_timeout_to_ms(-1) == 0, "zero/negative poll");
}

int main(void)
{
	run_test("ts_add", t_add, NULL, 10);
	run_test("ts_cmp_diff", t_cmp_diff, NULL, 10);
	run_test("ts_valid", t_valid, NULL, 10);
	run_test("deadline", t_deadline, NULL, 10);
	run_test("timeout_clamps", t_clamps, NULL, 10);
	return tests_done("clock");
}
