/* hunt/preempt.h — preemption *inside* a library: a timer signal whose
 * handler spins only when it interrupted the library's code.
 *
 * The way to widen a race window in a binary one cannot recompile (libc.so.6,
 * libc++.so.1, musl's libc.a inside a static helper): every worker thread
 * arms a timer on its own CPU time (CLOCK_THREAD_CPUTIME_ID, signal directed
 * at the thread itself with SIGEV_THREAD_ID), so the signal only ever lands
 * while the thread runs; the handler reads the interrupted PC from the
 * ucontext and, when it is inside the design's library text (the ranges of
 * its text spec, elfsym.h), busy-waits stall_ns before returning — the thread
 * stalls *at that instruction*, as if preempted there, while the others run
 * on. Outside library text the handler returns at once. The handler is
 * async-signal-safe: a precomputed sorted array, relaxed atomic counters, a
 * vDSO clock read; it saves and restores errno.
 *
 * Counts: signals taken, and hits (signals that landed in library text): a
 * hunt whose timer never hit the library proved nothing, so the count is
 * reported. Portable C that also builds with musl-gcc -static (the
 * musl-libc helper runs the patterns inside itself; the libc++ and --lib
helpers too, proc/README.md).
 *
 * The signal: FL_PREEMPT_SIG, SIGRTMIN + 6 — not SIGINT/SIGTERM (Ctrl-C's,
 * proc/interrupt.h), not the stranded-waiter detector's rescue signal, not
 * SIGRTMIN..SIGRTMIN+2 (libc-internal on some libcs' ranges). */
#ifndef FUTEXLAB_PREEMPT_H
#define FUTEXLAB_PREEMPT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define FL_PREEMPT_SIG (SIGRTMIN + 6)

/* Defaults (hunt/README.md, "Preemption inside the library"): */
#define FL_PREEMPT_STALL_NS 20000     /* 20 us stalled inside the library per hit */
#define FL_PREEMPT_INTERVAL_NS 500000 /* a signal every 0.5 ms of a thread's CPU time */
#define FL_PREEMPT_MAX_RANGES 512

struct fl_preempt_stats {
	int64_t signals;   /* handler entries */
	int64_t hits;      /* ... whose PC was in library text (and spun) */
	int nranges;       /* address ranges of the text spec */
	int64_t text_bytes;/* their total size */
};

/* Resolves spec (elfsym.h) and installs the handler for a rep: 0, or -1
 * with why (a bad spec, nothing matched, sigaction failed). Counters are
 * zeroed. Call before the rep's threads start (their creation orders the
 * ranges before any timer). */
int fl_preempt_begin(const char *spec, int64_t stall_ns, int64_t interval_ns, char *why,
		     size_t whyn);
/* In each thread of the rep, after fl_preempt_begin: arms / deletes this
 * thread's timer (a failure to arm is counted, see fl_preempt_end). */
void fl_preempt_thread_begin(void);
void fl_preempt_thread_end(void);
/* After the rep's threads are joined: the counters. Returns the number of
 * threads whose timer could not be armed (0 normally). The handler stays
 * installed (a signal still queued from a deleted timer must find it). */
int fl_preempt_end(struct fl_preempt_stats *out);

#endif
