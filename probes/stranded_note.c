/* probes/stranded_note.c — the stranded-waiter detector's kernel side
 * (probes.h): at detection, the stranded thread's futex wait in flight as
 * the collector's per-thread slot has it; after the rep, the note
 * "kernel: tid T slept in FUTEX_WAIT on 0x... for X ms", or why there is
 * none. */
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#ifdef FL_HAVE_PROBES
#include "probes/futexstat.h"
#include "probes/session.h"
#endif
#include "probes/probes.h"

#ifdef FL_HAVE_PROBES
/* The stranded threads' kernel view, snapshot by the watchdog thread at
 * detection (fl_rep_stranded_hook), read by the runner after the rep (the
 * watchdog is joined in between: no lock needed). */
#define KSNAPS 8
static struct ksnap {
	int tid;
	int have;                   /* 1: in a futex wait (w); 0: not seen in one */
	struct futexstat_wait_now w;
	__u64 at_ns;                /* the snapshot's CLOCK_MONOTONIC time */
} ksnap[KSNAPS];
static int nksnap;

static __u64 mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

void fl_probes_on_stranded(int tid)
{
	if (nksnap >= KSNAPS)
		return; /* the note shows the first */
	struct ksnap *k = &ksnap[nksnap];
	k->tid = tid;
	k->at_ns = mono_ns();
	k->have = fl_probes_counting() &&
		  futexstat_thread_wait(fl_probes_collector(), tid, &k->w);
	nksnap++;
}

void fl_probes_stranded_clear(void)
{
	nksnap = 0;
}

void fl_probes_stranded_note(int tid, bool measured, char *out, size_t n)
{
	for (int i = 0; i < nksnap; i++) {
		const struct ksnap *k = &ksnap[i];
		if (k->tid != tid || !k->have)
			continue;
		char woken[80] = "";
		if (k->w.woken_ns)
			snprintf(woken, sizeof woken, " (woken %.1f ms before, not yet run)",
				 (double)(k->at_ns - k->w.woken_ns) / 1e6);
		if (k->w.kind == FUTEXSTAT_KIND_WAIT)
			snprintf(out, n, "kernel: tid %d slept in FUTEX_WAIT on 0x%llx for %.1f ms%s",
				 tid, (unsigned long long)k->w.uaddr,
				 (double)(k->at_ns - k->w.since_ns) / 1e6, woken);
		else
			snprintf(out, n, "kernel: tid %d slept in futex_waitv for %.1f ms%s", tid,
				 (double)(k->at_ns - k->w.since_ns) / 1e6, woken);
		return;
	}
	if (!fl_probes_collector())
		snprintf(out, n, "kernel side not recorded (probes off)");
	else if (!measured)
		snprintf(out, n, "kernel side not recorded (a warm-up rep: the probes count "
			 "measured reps only)");
	else
		snprintf(out, n, "kernel side: tid %d was in no futex wait the probes saw begin "
			 "(or its slot was taken: tids equal mod 4096)", tid);
}
#else
void fl_probes_stranded_clear(void) {}
void fl_probes_stranded_note(int tid, bool measured, char *out, size_t n)
{
	(void)tid, (void)measured;
	snprintf(out, n, "kernel side not recorded (a build without the probes)");
}
#endif
