/* lib/race.c — see race.h. Compiled into every build; called only by the
 * race-window build of the variants. */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "lib/clock.h"
#include "lib/cpu.h"

#ifndef FL_RACE_WINDOWS
#define FL_RACE_WINDOWS 1 /* the out-of-line window, whatever the build */
#endif
#include "lib/race.h"

static _Atomic bool seen;
static _Thread_local void (*armed_fn)(void *);
static _Thread_local void *armed_arg;

void fl_race_arm(void (*fn)(void *), void *arg)
{
	armed_arg = arg;
	armed_fn = fn;
}

bool fl_race_windows_seen(void)
{
	return atomic_load_explicit(&seen, memory_order_relaxed);
}

void fl_race_window(void)
{
	if (!atomic_load_explicit(&seen, memory_order_relaxed)) /* a flag, not a counter */
		atomic_store_explicit(&seen, true, memory_order_relaxed);
	if (armed_fn) {
		armed_fn(armed_arg);
		return;
	}
	static _Thread_local uint64_t x;
	if (!x)
		x = (uint64_t)(uintptr_t)&x ^ (uint64_t)fl_now_ns() ^ 0x9E3779B97F4A7C15ull;
	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	unsigned r = (unsigned)(x % 16);
	if (r < 10)
		return;                 /* most of the time: no delay */
	if (r < 13) {
		sched_yield();          /* let the other side run */
		return;
	}
	int64_t ns = (int64_t)(x >> 40) % 20000; /* up to 20 us of spinning */
	int64_t end = fl_now_ns() + ns;
	while (fl_now_ns() < end)
		fl_cpu_relax();
}
