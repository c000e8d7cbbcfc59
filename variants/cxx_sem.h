/* variants/cxx_sem.h — the adapter from variant.h's interface onto a
 * standard library's std::counting_semaphore, written once: cxx_gnu.cc
 * instantiates it with libstdc++'s semaphore, cxx_llvm.cc with libc++'s.
 * Each .cc says what its library does (its design comment); this file only
 * translates, the same way for both: value_max from the standard's max(),
 * the interface's absolute CLOCK_MONOTONIC deadline as a time point of the
 * library's steady_clock, the error numbers the standard has no notion of.
 *
 * Its standard headers are those of whichever library the including file
 * is compiled against (libstdc++ or libc++: each TU sees only its own,
 * variants/meson.build), so it names nothing but the standard API. Both libraries' steady_clock::now() is
 * clock_gettime(CLOCK_MONOTONIC) (objdump of libstdc++.so.6 and
 * libc++.so.1: `mov $0x1,%edi; call clock_gettime`), so the same
 * nanoseconds are the same instant.
 *
 * Everything is in an unnamed namespace, on purpose in a header: each TU's
 * instantiations are its own local functions (STB_LOCAL under the TU's
 * STT_FILE symbol), which is what `futexlab hunt`'s "src:cxx_gnu.cc" text
 * item selects (variant.h, .text), and the two libraries' instantiations
 * never meet at link time. */
#ifndef FUTEXLAB_CXX_SEM_H
#define FUTEXLAB_CXX_SEM_H

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <new>
#include <ratio>
#include <type_traits>

#include "variants/variant.h"

/* A macro's value as a string literal (the library's version macros, for
 * the descriptor's .library). */
#define FL_CXX_STR_(x) #x
#define FL_CXX_STR(x) FL_CXX_STR_(x)

namespace {

/* The interface's value is an int: min(max(), INT_MAX). */
constexpr int fl_cxx_value_max(std::ptrdiff_t max)
{
	return max < INT_MAX ? static_cast<int>(max) : INT_MAX;
}

inline bool fl_cxx_valid(const struct timespec *dl)
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

/* ---- the operations, for Sem = the library's std::counting_semaphore<> ----
 * The state is the semaphore object itself, constructed in place by init
 * and destroyed by destroy; every other op reaches it through
 * std::launder (the bytes are the interface's, the object placement-new'd
 * into them). */

template <class Sem>
Sem *fl_cxx_sem(void *p)
{
	return std::launder(static_cast<Sem *>(p));
}

/* Not process-shared (the standard promises nothing across processes):
 * ENOTSUP; a value past value_max: EINVAL. */
template <class Sem>
int fl_cxx_init(void *p, unsigned value, int pshared)
{
	if (pshared)
		return ENOTSUP;
	if (value > static_cast<unsigned>(fl_cxx_value_max(Sem::max())))
		return EINVAL;
	new (p) Sem(static_cast<std::ptrdiff_t>(value));
	return 0;
}

template <class Sem>
void fl_cxx_destroy(void *p)
{
	fl_cxx_sem<Sem>(p)->~Sem();
}

/* release() cannot see the count: only n > value_max is refused (EOVERFLOW);
 * a release past max() is the caller's broken precondition (FL_NO_OVERFLOW). */
template <class Sem>
int fl_cxx_post(void *p, unsigned n)
{
	if (n > static_cast<unsigned>(fl_cxx_value_max(Sem::max())))
		return EOVERFLOW;
	fl_cxx_sem<Sem>(p)->release(static_cast<std::ptrdiff_t>(n));
	return 0;
}

/* acquire() never fails and never returns early (FL_NO_EINTR). */
template <class Sem>
int fl_cxx_wait(void *p)
{
	fl_cxx_sem<Sem>(p)->acquire();
	return 0;
}

template <class Sem>
int fl_cxx_trywait(void *p)
{
	return fl_cxx_sem<Sem>(p)->try_acquire() ? 0 : EAGAIN;
}

/* No deadline: wait. A malformed tv_nsec: EINVAL unless a token is there
 * (the standard has no such case: checked here; POSIX lets sem_timedwait
 * skip the check when it can take a token at once). */
template <class Sem>
int fl_cxx_timedwait(void *p, const struct timespec *dl)
{
	if (!dl)
		return fl_cxx_wait<Sem>(p);
	if (!fl_cxx_valid(dl))
		return fl_cxx_sem<Sem>(p)->try_acquire() ? 0 : EINVAL;
	return fl_cxx_sem<Sem>(p)->try_acquire_until(
		       fl_cxx_steady<std::chrono::steady_clock>(dl)) ? 0 : ETIMEDOUT;
}

/* The inline form's loop (variant.h, .pairs): release(1) and acquire()
 * inlined from the library's header, as in a C++ program's own loop. A
 * shipped library waits its own way (fl_wait calls its wait at once), so
 * no policy stands before acquire() and v is not read. */
template <class Sem>
int fl_cxx_pairs(const fl_variant *, void *p, int64_t n)
{
	Sem *s = fl_cxx_sem<Sem>(p);
	for (int64_t i = 0; i < n; i++) {
		s->release(1);
		s->acquire();
	}
	return 0;
}

} // namespace

#endif
