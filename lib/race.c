/* lib/race.c — see race.h. Compiled into every build; called only by the
 * race-window build of the variants. */
#include <sched.h>
#include <stdint.h>

#include "clock.h"
#include "cpu.h"

void fl_race_window(void);

void fl_race_window(void)
{
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
