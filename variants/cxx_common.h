/* variants/cxx_common.h — what cxx_gnu.cc and cxx_llvm.cc translate the same
 * way: value_max from the standard's max(), and the interface's absolute
 * CLOCK_MONOTONIC deadline as a time point of the library's steady_clock.
 *
 * Included after <chrono> of whichever standard library the including file
 * is compiled against (libstdc++ or libc++: each TU sees only its own), so
 * it names nothing but the standard API. Both libraries' steady_clock::now()
 * is clock_gettime(CLOCK_MONOTONIC) (objdump of libstdc++.so.6 and
 * libc++.so.1: `mov $0x1,%edi; call clock_gettime`), so the same
 * nanoseconds are the same instant. */
#ifndef FUTEXLAB_CXX_COMMON_H
#define FUTEXLAB_CXX_COMMON_H

#include <climits>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <ratio>
#include <type_traits>

/* The interface's value is an int: min(max(), INT_MAX). */
constexpr int fl_cxx_value_max(std::ptrdiff_t max)
{
	return max < INT_MAX ? static_cast<int>(max) : INT_MAX;
}

static inline bool fl_cxx_valid(const struct timespec *dl)
{
	return dl->tv_nsec >= 0 && dl->tv_nsec < 1000000000;
}

/* dl (valid tv_nsec) as Clock's time point of the same count of nanoseconds
 * since the CLOCK_MONOTONIC epoch, saturated at +-2^62 ns (146 years: no
 * deadline arithmetic inside either library can overflow from there). */
template <class Clock>
typename Clock::time_point fl_cxx_steady(const struct timespec *dl)
{
	static_assert(std::is_same_v<typename Clock::period, std::nano>,
		      "a coarser steady_clock would round deadlines early");
	constexpr int64_t lim_s = (INT64_C(1) << 62) / 1000000000;
	int64_t ns;
	if (dl->tv_sec > lim_s)
		ns = INT64_C(1) << 62;
	else if (dl->tv_sec < -lim_s)
		ns = -(INT64_C(1) << 62);
	else
		ns = static_cast<int64_t>(dl->tv_sec) * 1000000000 + dl->tv_nsec;
	return typename Clock::time_point(std::chrono::duration_cast<typename Clock::duration>(
		std::chrono::nanoseconds(ns)));
}

#endif
