/* probes/fastest.h — the timing loop of the probes' cost tools (floor-cmp,
 * mode-cost): ns per futex(2) call of `op` (private) on *word, the fastest of
 * 200 blocks of 1000 calls — other work on the machine only ever adds time,
 * so the minimum is the cost. A header of static functions: each tool is one
 * file and links nothing else of the project's. */
#ifndef FUTEXLAB_PROBES_FASTEST_H
#define FUTEXLAB_PROBES_FASTEST_H

#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline int64_t fastest_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline double fastest_ns(uint32_t *word, int op)
{
	double best = 1e12;
	for (int b = 0; b < 200; b++) {
		int64_t t0 = fastest_now_ns();
		for (int i = 0; i < 1000; i++)
			syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
		double d = (double)(fastest_now_ns() - t0) / 1000;
		best = d < best ? d : best;
	}
	return best;
}

#endif
