/* variants/cxx_gnu.cc — libstdc++ 12's std::counting_semaphore (g++, Debian
 * 12), the semaphore a C++20 programmer on this machine gets by default.
 * This file only instantiates cxx_sem.h's translation of the interface of
 * variant.h onto the standard API; the design below is libstdc++'s, as
 * read from its headers (/usr/include/c++/12/bits/semaphore_base.h,
 * atomic_wait.h, atomic_timed_wait.h) and seen with strace.
 *
 * INVARIANT  one `int` (__atomic_semaphore::_M_counter, 4 bytes, the whole
 *   object) holds the tokens; it never counts waiters and never goes
 *   negative. A token is taken by a CAS counter -> counter - 1 from a
 *   non-zero value (_S_do_try_acquire); release is one fetch_add.
 *
 * WAITS  acquire() (__atomic_wait_address_bare) loads the counter into
 *   `val`, then spins on the CAS 16 times (12 with `pause`, 4 with
 *   sched_yield), then FUTEX_WAIT(counter, val) — a *shared* futex op:
 *   __futex_wait_flags::__private_flag is 128 only where configure defined
 *   _GLIBCXX_HAVE_LINUX_FUTEX_PRIVATE, and Debian's libstdc++ 12 does not
 *   (strace: `futex(ADDR, FUTEX_WAIT, 0, NULL)`). It loops until the CAS
 *   succeeds; EINTR and EAGAIN just loop (never reported). try_acquire() is
 *   the same 16-round spin without the sleep (so trywait on an empty
 *   semaphore costs 4 sched_yield). try_acquire_until(steady_clock deadline)
 *   spins with a timed backoff policy (atomic_timed_wait.h,
 *   __timed_backoff_spin_policy) before it would ever reach the futex:
 *   after 4 us it yields, after 64 us it *naps* nanosleep(elapsed / 2)
 *   (64 ms naps past 128 ms) until the deadline, testing the CAS between
 *   naps — strace of a 20 ms timed wait: 4 sched_yield, then naps of 80 us,
 *   230 us, ..., 8.9 ms and no futex call. Only a spin that gives up within
 *   4 us reaches FUTEX_WAIT_BITSET with the absolute CLOCK_MONOTONIC
 *   deadline. So a timed waiter is not in the futex queue (a post does not
 *   wake it: it sees the token after its nap) and returns up to half its
 *   elapsed time late (64 ms at most). steady_clock::now() is
 *   clock_gettime(CLOCK_MONOTONIC) (objdump of libstdc++.so.6). A deadline
 *   already passed still gets the 16 spins.
 *
 * WAKES  release(n) is fetch_add(n, release); only when the old value was 0
 *   does it FUTEX_WAKE INT_MAX (every waiter, whatever n: the one-waiter
 *   wake is commented out in the header, "FIXME - Figure out why this does
 *   not wake a waiting thread"). A release onto a positive count makes no
 *   system call. Ping-pong therefore costs a wake-all per hand-off.
 *
 * THE KERNEL SEES  FUTEX_WAIT / FUTEX_WAKE(INT_MAX), shared (not _PRIVATE),
 *   on the counter itself (strace of ping-pong: `futex(ADDR, FUTEX_WAKE,
 *   2147483647)` per hand-off), sched_yield, and nanosleep for timed waits:
 *   words() returns the counter, so the torture test's injector reaches
 *   every untimed sleeper.
 *
 * THE PUBLISHED LOST WAKEUP (GCC PR 104928, "std::counting_semaphore ... can
 *   sleep forever"; Debian 12's libstdc++ still has it): the value a waiter
 *   sleeps on is the one _S_do_spin loaded *before* its 16 spins
 *   (atomic_wait.h, __atomic_wait_address_bare: `__val` from _S_do_spin,
 *   then __platform_wait(__addr, __val)). If the counter was 1 when loaded,
 *   another thread took the token during the spins (1 -> 0) and a release
 *   brought it back (0 -> 1, a wake-all of nobody: the waiter is not asleep
 *   yet), the waiter's FUTEX_WAIT(counter, 1) finds 1 and sleeps — with a
 *   token available, and no later release wakes it while the count stays
 *   positive (semaphore_base.h, _M_release: `if (0 < fetch_add) return`).
 *   The sleep is untimed: it ends only when some other path drives the
 *   counter through 0 again. The shared suites can hit it (a stranded
 *   waiter fails the drain of tests/torture.c); futexlab hunt
 *   hunts it on purpose.
 *
 * PROMISES  destroy after the last wait: kept — release's last access to
 *   the semaphore is the fetch_add that publishes the token; the FUTEX_WAKE
 *   after it only names the address (a shared wake on a page already
 *   unmapped is EFAULT, which libstdc++ ignores). post from a signal
 *   handler: kept — an atomic RMW and a system call, no lock. EINTR: never
 *   (FL_NO_EINTR): every sleep loops on EINTR. Not offered: getvalue (the
 *   standard has none; FL_NO_GETVALUE), process-shared (C++20 promises
 *   nothing across processes — that libstdc++ 12's futex calls happen to be
 *   shared is an accident of its configure, not an API; FL_NO_PSHARED), an
 *   EOVERFLOW (release past max() breaks the standard's precondition, and
 *   here wraps the int negative; FL_NO_OVERFLOW: only post(n > value_max)
 *   is refused).
 *
 * value_max = max() = INT_MAX. timedwait: the absolute CLOCK_MONOTONIC
 *   deadline becomes a steady_clock time_point of the same nanoseconds
 *   (saturated at +-2^62 ns); a malformed tv_nsec is EINVAL unless a token
 *   is there (the standard has no such case: checked in cxx_sem.h). */
#include <cerrno>
#include <chrono>
#include <climits>
#include <new>
#include <semaphore>

#include "variants/cxx_sem.h"
#include "variants/variant.h"

namespace {

using sem_type = std::counting_semaphore<>;
static_assert(sizeof(sem_type) == sizeof(int) && alignof(sem_type) == alignof(int),
	      "libstdc++'s semaphore is one int: words() returns it");

int cg_words(void *p, fl_atomic_u32 **out, int max)
{
	if (max < 1)
		return 0;
	out[0] = static_cast<fl_atomic_u32 *>(p); /* the counter is the object */
	return 1;
}

} // namespace

FL_VARIANT_NAMED(cxx_gnu, "cxx-gnu", sem_type,
	"libstdc++ 12 std::counting_semaphore: spin 16, shared FUTEX_WAIT on the count, "
	"wake-all on 0->n",
	.value_max = fl_cxx_value_max(sem_type::max()),
	.flags = FL_NO_EINTR | FL_NO_GETVALUE | FL_NO_PSHARED | FL_NO_OVERFLOW | FL_LOST_WAKEUP,
	.unavailable = nullptr, .init = fl_cxx_init<sem_type>,
	.destroy = fl_cxx_destroy<sem_type>, .post = fl_cxx_post<sem_type>,
	.wait = fl_cxx_wait<sem_type>, .trywait = fl_cxx_trywait<sem_type>,
	.timedwait = fl_cxx_timedwait<sem_type>, .getvalue = nullptr, .words = cg_words,
	/* hunt's in-library-text preemption (variant.h): the header-only
	 * library as compiled here — this file's functions (the semaphore
	 * inlined into them), the atomic-wait templates left out of line, and
	 * libc's syscall() its futex calls go through */
	.text = "src:cxx_gnu.cc;sym:_ZSt26__atomic_wait_address,_ZSt32__atomic_wait_address,"
		"_ZNSt8__detail;dsym:libc.so.6:syscall",
	.own_policy = "12 polls with a pause, 4 with sched_yield, then FUTEX_WAIT (shared)",
	.pairs = fl_cxx_pairs<sem_type>,
	/* the headers compiled against: their release and their date stamp */
	.library = "libstdc++ " FL_CXX_STR(_GLIBCXX_RELEASE) " (" FL_CXX_STR(__GLIBCXX__) ")");
