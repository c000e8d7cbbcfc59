/* probes/futexstat.h — what the in-harness futex collector counts; shared by
 * the BPF side (futexstat.bpf.c, which includes vmlinux.h first) and the
 * loader (futexstat.c).
 *
 * One struct of counters lives in the BPF program's .bss; the loader zeroes
 * it before a run, attaches, detaches after the run and copies it out.
 * Everything counted is restricted to one process (the harness's own tgid).
 *
 * Words used below:
 *   futex(2) op     the multiplexer's op with FUTEX_PRIVATE_FLAG (128) and
 *                   FUTEX_CLOCK_REALTIME (256) masked off: glibc waits with
 *                   WAIT_BITSET (9; 393 with both flags), which a tool that
 *                   counts only WAIT would miss.
 *   wait            futex(2) WAIT or WAIT_BITSET, futex_wait(2), futex_waitv(2)
 *   wake            futex(2) WAKE or WAKE_BITSET, futex_wake(2)
 *   herd burst      a wake that returned >= herd_min threads of which at least
 *                   herd_min-1 went back to waiting on the same address
 *                   within herd_window_ns of the wake (each counted once)
 *   EAGAIN storm    an interval of storm_interval_ns, opened by an EAGAIN on
 *                   an address, holding more than storm_min EAGAIN returns on
 *                   that address */
#ifndef FUTEXLAB_FUTEXSTAT_H
#define FUTEXLAB_FUTEXSTAT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define FUTEXSTAT_HIST_SLOTS 64 /* slot i: wait durations in [2^i, 2^(i+1)) ns */

/* Defaults; the loader can override every one at open time. */
#define FUTEXSTAT_HERD_MIN 3
#define FUTEXSTAT_HERD_WINDOW_NS 5000000ULL      /* 5 ms */
#define FUTEXSTAT_STORM_INTERVAL_NS 10000000ULL  /* 10 ms */
#define FUTEXSTAT_STORM_MIN 100

struct futexstat_counts {
	/* futex(2) calls, by decoded op; op_wait + op_wait_bitset + op_wake +
	 * op_other == futex_calls */
	__u64 futex_calls;
	__u64 op_wait, op_wait_bitset, op_wake, op_other;
	/* futex2 syscalls */
	__u64 f2_wait, f2_wake, f2_waitv, f2_requeue;
	/* io_uring submissions with a futex opcode (FUTEX_WAIT/WAKE/WAITV),
	 * seen at io_uring:io_uring_submit_req */
	__u64 uring_futex;
	/* wakes (see above) and what they returned */
	__u64 wake_calls, woken, wake_none, wake_err;
	/* waits and how they returned; EINTR includes the kernel's internal
	 * restart codes (ERESTARTSYS & co.), which is what the exit tracepoint
	 * sees when a signal interrupts a wait */
	__u64 wait_calls, wait_ok, wait_eagain, wait_timedout, wait_eintr, wait_err;
	__u64 herd_bursts, eagain_storms;
	/* calls whose entry could not be recorded (no per-thread storage: out
	 * of memory): their results are missing from the counts above */
	__u64 missed;
	__u64 wait_hist[FUTEXSTAT_HIST_SLOTS];
};

#ifndef __VMLINUX_H__
/* ---- the loader (futexstat.c), user space only ------------------------ */
#include <stddef.h>
#include <sys/types.h>

struct futexstat;

struct futexstat_config {
	pid_t tgid;                 /* process to watch; 0: the caller's */
	unsigned herd_min;          /* 0: FUTEXSTAT_HERD_MIN */
	__u64 herd_window_ns;       /* 0: FUTEXSTAT_HERD_WINDOW_NS */
	__u64 storm_interval_ns;    /* 0: FUTEXSTAT_STORM_INTERVAL_NS */
	unsigned storm_min;         /* 0: FUTEXSTAT_STORM_MIN */
};

/* Loads and verifies the programs (not attached yet). On failure returns
 * NULL and writes one human sentence saying why into why[n]. */
struct futexstat *futexstat_open(const struct futexstat_config *cfg, char *why, size_t n);
/* Zeroes the counters and attaches. 0 or an errno value (why[] filled). */
int futexstat_start(struct futexstat *fs, char *why, size_t n);
/* Detaches and copies the counters out. */
void futexstat_stop(struct futexstat *fs, struct futexstat_counts *out);
void futexstat_close(struct futexstat *fs);
/* Whether io_uring futex submissions can be seen here (tracepoint present,
 * kernel with io_uring futex opcodes). */
int futexstat_sees_uring(const struct futexstat *fs);
/* The q-quantile (0 < q <= 1) of the wait-duration histogram, as the upper
 * bound of its log2 slot in ns (so within a factor 2); 0 when no wait. */
__u64 futexstat_wait_quantile(const struct futexstat_counts *c, double q);
#endif

#endif
