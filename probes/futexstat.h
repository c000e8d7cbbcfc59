/* probes/futexstat.h — what the in-harness futex collector counts; shared by
 * the BPF side (futexstat.bpf.c, which includes vmlinux.h first) and the
 * loader (futexstat.c).
 *
 * One struct of counters per CPU (a BPF_MAP_TYPE_PERCPU_ARRAY of one entry:
 * no cache line is shared between CPUs on the hot path); the loader zeroes
 * them before a run and sums them after it. Everything counted is
 * restricted to one process (the harness's own tgid) or, in follow mode, to
 * the process tree it starts (see "the tree").
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
 *                   within herd_window_ns of their wait returning (each
 *                   counted once)
 *   EAGAIN storm    an interval of storm_interval_ns, opened by an EAGAIN on
 *                   an address, holding more than storm_min EAGAIN returns on
 *                   that address
 *   wake-to-run     (with wake_to_run set) for a thread of the process that
 *                   sched:sched_wakeup reports woken while it is inside a wait
 *                   syscall: the time from that event to sched:sched_switch
 *                   switching the thread in; a wakeup after which the thread
 *                   leaves the wait without being switched in (it never got
 *                   off the CPU) gives no sample
 *   resleep         a wait (futex(2) WAIT/WAIT_BITSET, futex_wait(2)) entered
 *                   on address A by a thread whose previous futex-family
 *                   syscall was a wait of those kinds on A that returned 0
 *                   (woken) at most resleep_window_ns before; counted at
 *                   entry, whatever the re-wait returns
 *   the tree        (with follow_children set) the processes counted instead
 *                   of the caller's own: every process the caller forks while
 *                   counting is on (the roots), every process those fork, and
 *                   so on, each with all its threads; a process joins at
 *                   sched:sched_process_fork and leaves when its last thread
 *                   passes sched:sched_process_exit (its group is dead)
 *   word            (with per_word set) a futex word as one process names it:
 *                   (process, address); futex_waitv(2) names several words
 *                   and is left out of the per-word counts */
#ifndef FUTEXLAB_FUTEXSTAT_H
#define FUTEXLAB_FUTEXSTAT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define FUTEXSTAT_HIST_SLOTS 64 /* slot i: wait durations in [2^i, 2^(i+1)) ns */
/* The wake-to-run histogram is log-linear: 8 sub-buckets per power of two.
 * Slot i < 8 holds [i, i+1) ns; slot i >= 8 with e = i / 8 + 2, s = i % 8
 * holds [(8 + s) << (e - 3), (9 + s) << (e - 3)) ns — a width of 1/8 of its
 * power of two, so the upper bound is at most 12.5% above any value in it.
 * The last slot also holds every value of 2^40 ns (18 min) and more. */
#define FUTEXSTAT_WTR_SUB_BITS 3
#define FUTEXSTAT_WTR_MAXPOW 40
#define FUTEXSTAT_WTR_SLOTS (8 * (FUTEXSTAT_WTR_MAXPOW - 2))

/* The wake-to-run slot of v ns (shared by the BPF side and the loader). */
static inline __u32 futexstat_wtr_slot(__u64 v)
{
	if (v < 8)
		return (__u32)v;
	__u32 e = 0;
	__u64 x = v;
	if (x >> 32) { x >>= 32; e += 32; }
	if (x >> 16) { x >>= 16; e += 16; }
	if (x >> 8) { x >>= 8; e += 8; }
	if (x >> 4) { x >>= 4; e += 4; }
	if (x >> 2) { x >>= 2; e += 2; }
	if (x >> 1) { e += 1; }
	if (e >= FUTEXSTAT_WTR_MAXPOW)
		return FUTEXSTAT_WTR_SLOTS - 1;
	return ((e - 2) << FUTEXSTAT_WTR_SUB_BITS) |
	       (__u32)((v >> (e - FUTEXSTAT_WTR_SUB_BITS)) & 7);
}

/* Defaults; the loader can override every one at open time. */
#define FUTEXSTAT_HERD_MIN 3
#define FUTEXSTAT_HERD_WINDOW_NS 5000000ULL      /* 5 ms */
#define FUTEXSTAT_STORM_INTERVAL_NS 10000000ULL  /* 10 ms */
#define FUTEXSTAT_STORM_MIN 100
#define FUTEXSTAT_RESLEEP_WINDOW_NS 50000ULL    /* 50 us */

/* Per CPU in the BPF map; summed by the loader, which also fills the three
 * totals the BPF side does not count (futex_calls, wake_calls, wait_calls:
 * sums of the per-op counters, one increment fewer per call). */
struct futexstat_counts {
	/* futex(2) calls, by decoded op; op_wait + op_wait_bitset + op_wake +
	 * op_other == futex_calls; op_wake_bitset is the part of op_other that
	 * is WAKE_BITSET */
	__u64 futex_calls;
	__u64 op_wait, op_wait_bitset, op_wake, op_other, op_wake_bitset;
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
	/* see "resleep" above */
	__u64 resleeps;
	/* wake-to-run samples (see above) and their histogram */
	__u64 wake_to_run_n;
	/* calls in flight whose thread's state slot another thread of the
	 * process took over (tids equal mod 4096): their results are missing
	 * from the counts above */
	__u64 missed;
	__u64 wait_hist[FUTEXSTAT_HIST_SLOTS];
	__u64 wtr_hist[FUTEXSTAT_WTR_SLOTS];
	/* Appended after the histograms, not before them: every field the BPF
	 * programs of a normal run (follow_children and per_word off) touch
	 * keeps its offset, so those programs stay instruction for instruction
	 * what they were (the harness reads fields by name). */
	/* (follow_children) processes that joined the tree during the rep, the
	 * roots included; and those that could not, the tree map being full
	 * (FUTEXSTAT_TREE_MAX processes alive in it at once): their calls and
	 * their descendants' are not counted */
	__u64 procs, procs_lost;
	/* (per_word) per-word updates lost: a wait's exit, a wake's entry or a
	 * wake's exit that woke threads, whose word had no record and could not
	 * get one, the map being full (FUTEXSTAT_WORDS_MAX records). One per
	 * update, not per word: a word never recorded cannot be told apart
	 * from another. The totals above still count those calls. */
	__u64 words_lost;
	/* Appended after those for the same reason (futexstat.bpf.c, "Nodes").
	 * FUTEX2_NUMA ops: futex_wait(2) and futex_wake(2) calls with
	 * FUTEX2_NUMA (0x04) in their flags; of them, those with FUTEX2_MPOL
	 * (0x08) too; and those whose word named no node (FUTEX_NO_NODE in its
	 * second half at the call's entry and still at its exit, or unreadable,
	 * or a word size other than u32) */
	__u64 numa_ops, numa_mpol_ops, numa_no_node;
	/* the nodes those words named: bit n for node n (63: node 63 or
	 * above); OR-ed across CPUs by the loader, not summed */
	__u64 numa_node_mask;
	/* woken waits (futex(2) WAIT/WAIT_BITSET, futex_wait(2) returning 0)
	 * matched to the wake that woke them (the herd bursts' latest-wake
	 * rule); of them, those whose waker's CPU (at the wake's entry) was on
	 * another node than the woken thread's (at the wait's exit); and the
	 * nodes of those CPUs (a mask like numa_node_mask) */
	__u64 wake_pairs, cross_node_wakes, cpu_node_mask;
};

/* A slot of the BPF side's direct-mapped table of the latest wake per
 * address (its .bss, so the skeleton needs the type). */
#define FUTEXSTAT_LW_BITS 12

/* The slot of a word in that table and in the storms table: a multiplicative
 * hash of its key, the address — in follow mode the address with the
 * process's host tgid mixed in (futexstat_lw_key). Here so that the tests
 * can aim two processes' words at one slot. */
static inline __u32 futexstat_lw_index(__u64 key)
{
	__u32 i = (__u32)((key * 0x9E3779B97F4A7C15ULL) >> (64 - FUTEXSTAT_LW_BITS));
	return i & ((1 << FUTEXSTAT_LW_BITS) - 1);
}

static inline __u64 futexstat_lw_key(__u64 uaddr, __u32 tgid)
{
	return uaddr ^ ((__u64)tgid << 12);
}
struct futexstat_wake_rec {
	__u64 uaddr; /* tag: the address this slot holds; 0: empty */
	__u64 seq;   /* +1 at every wake entering on an address of this slot */
	__u64 tid;   /* the waker */
	__u32 tgid;  /* (follow_children) the rest of the tag: the process whose
		      * address it is (host tgid); 0 otherwise. Was padding (32
		      * bytes: two slots per cache line) */
	__u32 node;  /* the waker's CPU's NUMA node at the wake's entry (was
		      * the upper half of a 64-bit tgid, always 0) */
};

/* A slot of its table of EAGAIN storm intervals, by address like the above. */
struct futexstat_storm {
	__u64 uaddr; /* tag */
	__u64 start; /* the interval's start */
	__u64 n;     /* EAGAINs in it */
	__u64 tgid;  /* as in futexstat_wake_rec */
};

/* Follow mode's map of the tree (futexstat.bpf.c: `tree`), keyed by host
 * tgid: the most processes of the tree alive at once. */
#define FUTEXSTAT_TREE_MAX 8192
/* Per-word mode's map (`words`): the most distinct (process, word) records in
 * one rep. */
#define FUTEXSTAT_WORDS_MAX 16384

/* Its key. A private word (a private op, FUTEX_PRIVATE_FLAG or futex2's
 * FUTEX2_PRIVATE, or a word outside any shared file mapping): the process as
 * the kernel's global pid namespace numbers it (unique on the machine while
 * the process lives) and the address; dev and ino 0. A shared word (a
 * non-private op on a VM_SHARED mapping of a file, anonymous MAP_SHARED
 * memory being a shmem file): the file's device and inode and the word's
 * offset in the file, tgid 0 — the same key in every process that maps it,
 * as the kernel's own futex key. */
struct futexstat_word_key {
	__u32 tgid;
	__u32 dev;   /* the inode's i_sb->s_dev (the kernel's encoding) */
	__u64 uaddr; /* the address, or the offset in the file */
	__u64 ino;   /* 0: a private word */
};

/* The most processes a word's record names (futexstat_word.pids). */
#define FUTEXSTAT_WORD_PIDS 4

/* Its value; the counts are atomic adds (one record can be updated by
 * several CPUs at once). */
struct futexstat_word_val {
	__u32 tgid; /* the process's pid in the loader's pid namespace (0: none
		     * there; cannot happen for the processes counted, which
		     * live in that namespace or below it) */
	__u32 more; /* 1: more processes touched it than hpid holds */
	__u64 waits, wait_ns, wakes, woken, eagain, timedout; /* see futexstat_word */
	__u32 hpid[FUTEXSTAT_WORD_PIDS]; /* the processes that waited or woke on
					  * it (host tgids; 0: free), each taken
					  * by a compare-and-swap */
	__u32 pid[FUTEXSTAT_WORD_PIDS];  /* the same in the loader's pid
					  * namespace (written after the swap) */
};
/* A slot of its table of per-thread state, indexed by tid mod 4096 and
 * tagged with the tid (a direct-mapped table: cheaper than task storage or a
 * hash, ~35 ns a lookup here). */
#define FUTEXSTAT_TW_BITS 12
/* futexstat_thread.kind's values (futexstat.bpf.c's enum kind, asserted
 * there). */
#define FUTEXSTAT_KIND_WAIT 1
#define FUTEXSTAT_KIND_WAITV 3
struct futexstat_thread {
	__u32 tid;           /* tag: the thread this slot holds; 0: none yet */
	__u32 in_wake;       /* a wake of that thread is in flight */
	__u64 nwakes;        /* its wakes; + 2^32 whenever a thread claims the slot */
	__u64 wseq, wuaddr;  /* its latest wake: seq in last_wake, address */
	__u64 ts;            /* enter time of the wait in flight */
	__u64 uaddr;         /* its futex word (0 for waitv) */
	__u64 wake_ts;       /* sched_wakeup seen inside this wait, not yet run */
	__u64 resleep_uaddr; /* the previous futex call was a wait on this word
			      * that returned 0; 0: none */
	__u64 resleep_wakes; /* nwakes then */
	__u64 lw_seq;        /* the wait's address's last_wake seq at entry
			      * (~0: the slot held another address) */
	__u64 woken_at;      /* when the last wait returned 0 after this wake: */
	__u64 by_uaddr, by_seq, by_tid;
	__u32 kind;          /* no wait (or other op) in flight, a wait, ... */
	__u32 woken;         /* by_* and woken_at are valid */
	__u64 resleep_at;    /* when that wait returned */
};                           /* 128 bytes: two cache lines */
/* A slot of its table of FUTEX2_NUMA calls in flight whose word named no
 * node at entry (futexstat.bpf.c, "Nodes"), indexed and tagged like the
 * above. */
struct futexstat_numa_pend {
	__u32 tid;   /* tag */
	__u32 pad;
	__u64 naddr; /* the word's node half, read at the exit; 0: none */
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
	__u64 resleep_window_ns;    /* 0: FUTEXSTAT_RESLEEP_WINDOW_NS */
	int wake_to_run;            /* attach sched:sched_wakeup and sched_switch
				     * (tp_btf) and measure wake-to-run; 0: those
				     * programs are not even loaded */
	int follow_children;        /* count not the caller's process (or tgid's)
				     * but every process it forks while counting
				     * is on, their descendants (every thread of
				     * each), followed through sched_process_fork
				     * and sched_process_exit (group dead) */
	int per_word;               /* also keep per-word counts (futexstat_words) */
	/* With both of these 0 the programs loaded are exactly those of a
	 * collector without them (see futexstat.bpf.c, "Two sets of
	 * programs"). */
};

/* One futex word's counts over a rep (futexstat_words). */
struct futexstat_word {
	__u32 tgid;    /* a private word's process: its pid in the loader's pid
			* namespace (also for a process of the tree inside a
			* nested pid namespace, where it has another pid of its
			* own); 0 for a shared word */
	__u64 uaddr;   /* the word's address in that process; a shared word's
			* offset in its file */
	__u64 ino;     /* a shared word's file (inode number); 0: private */
	__u32 dev;     /* its device (the kernel's s_dev encoding) */
	__u32 pids[FUTEXSTAT_WORD_PIDS]; /* the processes that waited or woke
					  * on it (loader's pid namespace) */
	int npids;     /* how many of pids[] */
	int more;      /* 1: more processes than that */
	__u64 waits;   /* waits entered on this word (futex(2) WAIT/WAIT_BITSET,
			* futex_wait(2)) that ended while counting */
	__u64 wait_ns; /* their total time in the kernel */
	__u64 wakes;   /* wakes entered on it (futex(2) WAKE/WAKE_BITSET,
			* futex_wake(2)) */
	__u64 woken;   /* threads they woke */
	__u64 eagain, timedout; /* waits that returned EAGAIN, ETIMEDOUT */
};

/* Loads and verifies the programs (not attached yet). On failure returns
 * NULL and writes one human sentence saying why into why[n]. */
struct futexstat *futexstat_open(const struct futexstat_config *cfg, char *why, size_t n);
/* Zeroes the counters and attaches. 0 or an errno value (why[] filled). */
int futexstat_start(struct futexstat *fs, char *why, size_t n);
/* Stops counting (the programs stay attached) and sums the counters out. */
void futexstat_stop(struct futexstat *fs, struct futexstat_counts *out);
/* Detaches the programs (the next futexstat_start attaches again); costs
 * an RCU grace period or so. For overhead measurements. */
void futexstat_detach(struct futexstat *fs);
/* Whether wake-to-run is measured (asked for and its programs loaded). */
int futexstat_sees_wake_to_run(const struct futexstat *fs);
void futexstat_close(struct futexstat *fs);
/* Whether io_uring futex submissions can be seen here (tracepoint present,
 * kernel with io_uring futex opcodes). */
int futexstat_sees_uring(const struct futexstat *fs);
/* The q-quantile (0 < q <= 1) of the wait-duration histogram, as the upper
 * bound of its log2 slot in ns (so within a factor 2); 0 when no wait. */
__u64 futexstat_wait_quantile(const struct futexstat_counts *c, double q);
/* The q-quantile of the wake-to-run histogram: the upper bound of its slot
 * (at most 12.5% above the samples in it; see FUTEXSTAT_WTR_SLOTS); 0 when
 * no sample. */
__u64 futexstat_wtr_quantile(const struct futexstat_counts *c, double q);
/* Upper bound (exclusive) of wake-to-run slot i, in ns. */
__u64 futexstat_wtr_slot_hi(int i);
/* After futexstat_stop (and before the next futexstat_start): the words of
 * the last rep, up to n of them into out[], sorted descending by waits
 * (by == 0) or by wait_ns (by == 1), ties by ascending uaddr, then tgid;
 * returns how many were written; *nwords (if not NULL) gets how many
 * distinct words were seen. 0 when per_word is off; a negative errno value
 * when `by` is neither 0 nor 1 or n < 0 (-EINVAL), or the map cannot be
 * read. */
int futexstat_words(struct futexstat *fs, int by, struct futexstat_word *out, int n,
		    int *nwords);
/* In follow_children mode, whether the caller's own process counts too (off
 * by default): the harness measures the collector's overhead on its own
 * FUTEX_WAKEs with this on, then turns it off. No effect otherwise. Takes
 * effect at once, also in the middle of a rep. */
void futexstat_count_self(struct futexstat *fs, int on);
/* Plain mode (not follow_children): from now on count process `pid` (of
 * the loader's pid namespace) instead of the target, until called with pid
 * 0 (back to the target). Programs and maps stay as they are: the target's
 * host tgid, the one variable every plain program compares against, is
 * swapped (the harness counts a helper-run design's helper for its reps this
 * way: proc/helper.h). Call between reps. 0; -EINVAL in follow mode;
 * -EXDEV when the loader's pid namespace is not the kernel's global one (a
 * pid here is then not the host tgid the programs see); another negative
 * errno value if the target's tgid could not be learned. */
int futexstat_count_tgid(struct futexstat *fs, pid_t pid);
/* Follow mode (follow_children): from the next futexstat_start, count by
 * cgroup instead of by tree — a futex call counts iff the calling task's
 * cgroup (v2, bpf_get_current_cgroup_id) is `id` (the cgroup directory's
 * inode number, stat's st_ino); no tree lookup, no fork following. `procs`
 * then counts the processes forked inside that cgroup (sched_process_fork,
 * the child's cgroup) and those that joined it (cgroup_attach_task, a whole
 * process moved in: the program's first process joins after its fork).
 * id 0: back to the tree. Call between reps. 0; -EINVAL when not in follow
 * mode. */
int futexstat_count_cgroup(struct futexstat *fs, __u64 id);
/* How many processes the tree holds now (follow_children; 0 otherwise): a
 * debugging and test accessor — once every process of the tree has exited,
 * 0 (each leaves when its group dies). A negative errno value when the map
 * cannot be read. */
int futexstat_tree_size(struct futexstat *fs);

/* A thread's futex wait in flight, read from the BPF side's per-thread
 * table (its .bss, mapped: no syscall, no program added — the programs
 * loaded stay exactly those of a collector without this, probes/
 * plain-same.sh). For the stranded-waiter detector (stranded/stranded.c),
 * called while the thread sleeps. */
struct futexstat_wait_now {
	int kind;           /* FUTEXSTAT_KIND_WAIT (futex(2) WAIT/WAIT_BITSET,
			     * futex_wait(2)) or FUTEXSTAT_KIND_WAITV */
	__u64 uaddr;        /* its word (0 for waitv: several) */
	__u64 since_ns;     /* CLOCK_MONOTONIC when it entered the wait */
	__u64 woken_ns;     /* (wake-to-run measured) when sched_wakeup woke it
			     * inside this wait and it has not run since; 0: not */
};
/* 1 and *out when thread tid (a tid of the counted process as the kernel's
 * global pid namespace numbers it) is inside a futex wait that the
 * collector saw begin while counting; 0 when not (no wait in flight, not
 * counting then, or its slot held by another thread: tids equal mod
 * 4096). The slot is read twice and must agree (the BPF side writes it
 * without a lock). */
int futexstat_thread_wait(struct futexstat *fs, int tid, struct futexstat_wait_now *out);
#endif

#endif
