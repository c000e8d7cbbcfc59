/* variants/cxx_llvm.cc — libc++ 14's std::counting_semaphore (LLVM 14,
 * Debian 12's libc++-14-dev), compiled against libc++'s headers
 * (-nostdinc++ -isystem /usr/lib/llvm-14/include/c++/v1) and linked with
 * libc++.so.1 — in the same process as cxx_gnu.cc's libstdc++
 * (variants/README.md: why one process is safe). This file only instantiates
 * cxx_sem.h's translation of the interface of variant.h onto the standard
 * API; the design below is libc++'s, as read from <semaphore>, <atomic>,
 * __thread/poll_with_backoff.h, __thread/timed_backoff_policy.h and
 * src/atomic.cpp of release/14.x.
 *
 * INVARIANT  one `ptrdiff_t` (__atomic_semaphore_base::__a, 8 bytes) holds
 *   the tokens; never negative, never counts waiters. A token is taken by a
 *   CAS from a non-zero value; release is one fetch_add.
 *
 * WAITS  acquire() polls the CAS 64 times (__libcpp_thread_poll_with_backoff),
 *   then backs off by elapsed time: sched_yield after 4 us; after 64 us it
 *   sleeps in libc++.so (__libcpp_atomic_wait): an 8-byte atomic is not a
 *   futex word, so it waits on a *proxy*: entry hash(&counter) % 256 of a
 *   static contention table in libc++.so holds a waiter count and a 32-bit
 *   `__platform_state`; the waiter reads the proxy (the "monitor"), retries
 *   the CAS, counts itself in, and FUTEX_WAIT_PRIVATE(proxy, monitor) with a
 *   *relative 2 s timeout*, then loops. Semaphores whose addresses hash alike
 *   share a proxy. try_acquire_for / try_acquire_until never sleep in the
 *   kernel's futex queue: they poll with the timed backoff policy (yield,
 *   then nanosleep(elapsed / 2), capped at 8 ms after 128 ms), so a timed
 *   wait returns up to half its elapsed time (at most 8 ms) late, and a
 *   post does not shorten the nap in progress.
 *
 * WAKES  release(n) is fetch_add(n, release); only when the old value was 0
 *   does it notify (__cxx_atomic_notify_one/all, the same for a laundered
 *   atomic): proxy += 1, then FUTEX_WAKE_PRIVATE(proxy, INT_MAX) only when
 *   the entry's waiter count is non-zero. A release onto a positive count,
 *   or with nobody counted in, makes no system call.
 *
 * THE KERNEL SEES  FUTEX_WAIT_PRIVATE with a 2 s timeout and FUTEX_WAKE_PRIVATE
 *   (INT_MAX) on an address inside libc++.so's .bss, never on the semaphore;
 *   nanosleep for timed waits. words() returns 0: waiters never sleep on the
 *   semaphore's bytes, and the proxy is libc++'s private table (a wake there
 *   would reach unrelated atomics' waiters).
 *
 * THE PUBLISHED LOST WAKEUPS (llvm/llvm-project#46357, 2020: release
 *   notifies only on 0 -> n; llvm/llvm-project#77659 / D114119: the monitor is read
 *   after the counter was tested, so a waiter can sleep on a proxy value
 *   taken after the release it needed — fixed by PR 79265, LLVM 19). In 14
 *   they live in <semaphore> (__atomic_semaphore_base::release: `if (0 <
 *   fetch_add) ;`) and <atomic> (__libcpp_atomic_wait_backoff_impl:
 *   monitor, test, wait). A stranded waiter here is bounded: the 2 s
 *   FUTEX_WAIT timeout re-polls it. The hunt (futexlab hunt) measures that.
 *
 * PROMISES  destroy after the last wait: kept — release's last access to
 *   the semaphore is the fetch_add; the notify only hashes its address
 *   (the proxy and waiter count are libc++'s). post from a signal handler:
 *   kept — atomic RMWs on the counter and the table, one system call, no
 *   lock. EINTR: never (FL_NO_EINTR): the futex wait loops, nanosleep
 *   restarts. Not offered: getvalue (FL_NO_GETVALUE), process-shared
 *   (the proxy table is process-local, FL_NO_PSHARED), EOVERFLOW
 *   (FL_NO_OVERFLOW: max() is PTRDIFF_MAX, the interface's value_max
 *   INT_MAX, and post cannot see the count: only post(n > value_max) is
 *   refused).
 *
 * value_max = min(max(), INT_MAX) = INT_MAX. timedwait: the absolute
 *   CLOCK_MONOTONIC deadline as a steady_clock time point (libc++'s
 *   steady_clock is CLOCK_MONOTONIC), which try_acquire_until turns into a
 *   relative poll; a malformed tv_nsec is EINVAL unless a token is there.
 *
 * Built without libc++ (no libc++-14-dev), the variant is listed as skipped
 * with the reason and its operations are never called.
 *
 * THE OTHER VERSIONS (cxx-llvm15, cxx-llvm16)  The same file, compiled with
 *   -DFL_LIBCXX_ROW=N twice more per version (variants/meson.build,
 *   proc/meson.build): against libc++ N's headers, with the ops, into the
 *   helper futexlab-libcxxN that loads libc++ N's libc++.so.1 (a second
 *   libc++.so.1 cannot join this process); and in the harness, without
 *   libc++, as the descriptor naming that helper (.helper, no ops). 15 and
 *   16 keep 14's design: their <semaphore>'s __atomic_semaphore_base and
 *   <atomic>'s __libcpp_atomic_wait_backoff_impl differ from 14's only by a
 *   member's name (__a_) and std:: qualifications (diffed), and libc++.so.1
 *   exports the same atomic-wait functions; both published lost wakeups are
 *   still there (fixed in 19). */
#include <cerrno>
#include <climits>

#include "variants/variant.h"

/* What every build of this file says alike: the row's name (cxx-llvm, or
 * cxx-llvmN for a helper-run version), its flags, how it waits, where its
 * code is for the hunt (variant.h .text: the header code as inlined into
 * this file's functions, libc++.so.1's atomic-wait functions — src/atomic.cpp:
 * from the first exported entry point to the end of the last, its static
 * helpers between them — and libc's syscall() its futex calls go through;
 * a helper-run version's is read in its helper). */
#define CL_STR_(x) #x
#define CL_STR(x) CL_STR_(x)
#define CL_CAT_(a, b) a##b
#define CL_CAT(a, b) CL_CAT_(a, b)
/* FL_VARIANT_NAMED with its arguments macro-expanded first (the cname) */
#define CL_NAMED(...) FL_VARIANT_NAMED(__VA_ARGS__)
#ifdef FL_LIBCXX_ROW
#define CL_CNAME CL_CAT(cxx_llvm, FL_LIBCXX_ROW)
#define CL_NAME "cxx-llvm" CL_STR(FL_LIBCXX_ROW)
#define CL_VERSION CL_STR(FL_LIBCXX_ROW)
#else
#define CL_CNAME cxx_llvm
#define CL_NAME "cxx-llvm"
#define CL_VERSION "14"
#endif
#define CL_FLAGS (FL_NO_EINTR | FL_NO_GETVALUE | FL_NO_PSHARED | FL_NO_OVERFLOW | FL_LOST_WAKEUP)
#define CL_SUMMARY "libc++ " CL_VERSION " std::counting_semaphore: poll 64, yield, private " \
	"FUTEX_WAIT (2 s) on a proxy word; timed waits nap"
#define CL_POLICY "64 polls, polls to 4 us, sched_yield to 64 us, then FUTEX_WAIT on a proxy word"
#define CL_TEXT "src:cxx_llvm.cc;span:libc++.so.1:_ZNSt3__120__libcpp_atomic_wait," \
	"_ZNSt3__123__cxx_atomic_notify,_ZNSt3__123__libcpp_atomic_monitor;" \
	"dsym:libc.so.6:syscall"

#ifdef FL_HAVE_LIBCXX
#include <chrono>
#include <new>
#include <semaphore>

#include "variants/cxx_sem.h"

namespace {

using sem_type = std::counting_semaphore<>;
/* libc++'s default max() is PTRDIFF_MAX, libstdc++'s INT_MAX: this file
 * must be compiled against libc++'s headers (variants/meson.build). */
static_assert(sem_type::max() > INT_MAX, "cxx_llvm.cc compiled against another <semaphore>");
#ifdef FL_LIBCXX_ROW
/* _LIBCPP_VERSION: 15006 is 15.0.6, 160006 is 16.0.6 (six digits from 16) */
static_assert((_LIBCPP_VERSION < 160000 ? _LIBCPP_VERSION / 1000 : _LIBCPP_VERSION / 10000) ==
		      FL_LIBCXX_ROW,
	      "cxx-llvmN compiled against another libc++");
#endif

int cl_words(void *, fl_atomic_u32 **, int)
{
	return 0; /* waiters sleep on libc++.so's proxy words, never on the semaphore */
}

} // namespace

CL_NAMED(CL_CNAME, CL_NAME, sem_type, CL_SUMMARY,
	.value_max = fl_cxx_value_max(sem_type::max()),
	.flags = CL_FLAGS,
	.unavailable = nullptr, .init = fl_cxx_init<sem_type>,
	.destroy = fl_cxx_destroy<sem_type>, .post = fl_cxx_post<sem_type>,
	.wait = fl_cxx_wait<sem_type>, .trywait = fl_cxx_trywait<sem_type>,
	.timedwait = fl_cxx_timedwait<sem_type>, .getvalue = nullptr, .words = cl_words,
	.text = CL_TEXT, .own_policy = CL_POLICY,
	.pairs = fl_cxx_pairs<sem_type>,
	/* the headers compiled against: _LIBCPP_VERSION as they define it
	 * (14000: 14.0; 15006: 15.0.6; 160006: 16.0.6) */
	.library = "libc++ " FL_CXX_STR(_LIBCPP_VERSION));

#elif defined(FL_LIBCXX_ROW) /* the harness's descriptor of a helper-run version */

namespace {

const char *cl_row_unavailable()
{
#ifdef FL_LIBCXX_ROW_BUILT
	return nullptr;
#else
	return "built without libc++ " CL_VERSION " (scripts/setup unpacks it under "
	       "/opt/futexlab-libcxx/" CL_VERSION ")";
#endif
}

} // namespace

/* the headers the helper is built with, as meson read them */
#ifdef FL_LIBCXX_ROW_LIBRARY
#define CL_ROW_LIBRARY FL_LIBCXX_ROW_LIBRARY
#else
#define CL_ROW_LIBRARY nullptr
#endif

/* libc++'s semaphore is one ptrdiff_t (8 bytes), as the helper's build
 * checks against its headers; this one says so for `futexlab list`. */
CL_NAMED(CL_CNAME, CL_NAME, long long, CL_SUMMARY ", in its helper",
	.value_max = INT_MAX,
	.flags = CL_FLAGS,
	.unavailable = cl_row_unavailable,
	.helper = "futexlab-libcxx" CL_VERSION,
	.text = CL_TEXT, /* (read in the helper) */
	.own_policy = CL_POLICY, .library = CL_ROW_LIBRARY);

#else /* built without libc++ */

namespace {

const char *cl_unavailable()
{
	return "built without libc++ (apt install libc++-14-dev)";
}

/* Never called: every user asks unavailable() first (variant.h). */
int cl_refuse_init(void *, unsigned, int) { return ENOSYS; }
void cl_refuse_destroy(void *) {}
int cl_refuse_post(void *, unsigned) { return ENOSYS; }
int cl_refuse_wait(void *) { return ENOSYS; }
int cl_refuse_timedwait(void *, const struct timespec *) { return ENOSYS; }
int cl_refuse_words(void *, fl_atomic_u32 **, int) { return 0; }

} // namespace

FL_VARIANT_NAMED(cxx_llvm, "cxx-llvm", long long,
	"libc++ 14 std::counting_semaphore (not built: no libc++)",
	.value_max = INT_MAX,
	.flags = CL_FLAGS,
	.unavailable = cl_unavailable, .init = cl_refuse_init, .destroy = cl_refuse_destroy,
	.post = cl_refuse_post, .wait = cl_refuse_wait, .trywait = cl_refuse_wait,
	.timedwait = cl_refuse_timedwait, .getvalue = nullptr, .words = cl_refuse_words,
	.text = nullptr,
	.own_policy = CL_POLICY);

#endif
