/* probes/overhead.c — what the collector adds to one futex syscall of this
 * process (probes.h: fl_probes_overhead_ns, _parts), measured once, for the
 * run's metadata. */
#include <linux/futex.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef FL_HAVE_PROBES
#include "probes/futexstat.h"
#include "probes/session.h"
#endif
#include "probes/probes.h"

#ifdef FL_HAVE_PROBES
#define OVH_BLOCKS 9
#define OVH_CALLS 5000

static double ovh_total = NAN, ovh_tp = NAN, ovh_body = NAN;
static bool ovh_done;

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* ns per FUTEX_WAKE on a private word nobody waits on: the cheapest futex
 * syscall, the one the probes add the most to in relative terms. */
static double wake_block(void)
{
	static _Alignas(64) uint32_t word;
	int64_t t0 = now_ns();
	for (int i = 0; i < OVH_CALLS; i++)
		syscall(SYS_futex, &word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	return (double)(now_ns() - t0) / OVH_CALLS;
}

static double min_of(const double *v, int n)
{
	double m = v[0];
	for (int i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

/* Three modes, OVH_BLOCKS blocks of OVH_CALLS FUTEX_WAKEs each: detached
 * (no program on any tracepoint: what --no-probes pays), then, after one
 * attach, idle (attached, `active` clear: each program returns at its first
 * test) and counting, those two alternating block by block. A detach costs
 * an RCU grace period (~0.6 s here), so the detached blocks come first, not
 * interleaved. Each mode's figure is its fastest block (other work on the
 * machine only ever adds time). ~0.1-0.2 s in all. */
static void measure_overhead_blocks(struct futexstat *fs);

static void measure_overhead(void)
{
	struct futexstat *fs = fl_probes_collector();
	ovh_done = true;
	if (!fs)
		return;
	/* following children (exec), the collector counts this process only
	 * while measuring its cost here: the programs of follow mode, with this
	 * process counted as a member of the tree is */
	futexstat_count_self(fs, fl_probes_following());
	measure_overhead_blocks(fs);
	futexstat_count_self(fs, 0);
}

static void measure_overhead_blocks(struct futexstat *fs)
{
	char why[300];
	struct futexstat_counts c;
	double det[OVH_BLOCKS] = { 0 }, idle[OVH_BLOCKS] = { 0 }, on[OVH_BLOCKS] = { 0 };
	futexstat_detach(fs); /* only if a rep attached it already */
	wake_block();         /* warm the loop and the page */
	for (int b = 0; b < OVH_BLOCKS; b++)
		det[b] = wake_block();
	if (futexstat_start(fs, why, sizeof why))
		return;
	futexstat_stop(fs, &c);
	for (int b = 0; b < OVH_BLOCKS; b++) {
		for (int k = 0; k < 2; k++) {
			if ((k == 0) == (b % 2 == 0)) {
				idle[b] = wake_block();
			} else {
				if (futexstat_start(fs, why, sizeof why))
					return;
				on[b] = wake_block();
				futexstat_stop(fs, &c);
			}
		}
	}
	double d = min_of(det, OVH_BLOCKS), i = min_of(idle, OVH_BLOCKS),
	       a = min_of(on, OVH_BLOCKS);
	ovh_total = a - d;
	ovh_tp = i - d;
	ovh_body = a - i;
}

double fl_probes_overhead_ns(void)
{
	if (!ovh_done)
		measure_overhead();
	return ovh_total;
}

void fl_probes_overhead_parts(double *tracepoint_ns, double *body_ns)
{
	fl_probes_overhead_ns();
	*tracepoint_ns = ovh_tp;
	*body_ns = ovh_body;
}
#else
double fl_probes_overhead_ns(void) { return NAN; }
void fl_probes_overhead_parts(double *tracepoint_ns, double *body_ns)
{
	*tracepoint_ns = *body_ns = NAN;
}
#endif
