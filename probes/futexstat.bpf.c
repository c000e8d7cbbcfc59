// SPDX-License-Identifier: GPL-2.0
/* probes/futexstat.bpf.c — the in-harness futex collector (BPF side).
 *
 * Syscall tracepoints (this kernel has no kprobes): sys_enter/exit of
 * futex, futex_wait, futex_wake, futex_waitv, futex_requeue, plus
 * io_uring:io_uring_submit_req for io_uring futex opcodes, and, when asked
 * (wake_to_run), the BTF tracepoints sched_wakeup and sched_switch.
 *
 * Cost first: every syscall handler starts with two loads and a compare
 * (`active`, then the current tgid against the target's, a global learned
 * on the target's first call through the pid-namespace helper), so other
 * processes pay one helper call. Counters are per CPU (one
 * BPF_MAP_TYPE_PERCPU_ARRAY entry, its lookup inlined by the verifier), so
 * no cache line bounces between CPUs; the adds stay atomic because a
 * program on a syscall tracepoint can be preempted by another on the same
 * CPU. Totals that are sums of other counters are left to the loader. The
 * loader reads the counters only after clearing `active` and joining the
 * rep's threads, so no reader races a writer.
 *
 * No map helper on the hot paths: per-thread state lives in a
 * direct-mapped table in .bss indexed by tid mod 4096 and tagged with the
 * tid (thr), the latest wake per address and the EAGAIN storm intervals in
 * two more indexed by a hash of the address (last_wake, storms); plain
 * loads and stores. A thread whose tid shares a slot with another thread
 * of the process takes the slot over (a "claim"); the evicted thread's call
 * in flight, if any, counts in `missed`. A wake (the cheap, frequent call:
 * a post that may find nobody) reads no clock: its exit finds "in a wake"
 * in its slot. (On this VM bpf_ktime_get_ns costs ~55 ns a call and a
 * task-storage lookup ~35: together they were most of the collector's
 * cost.) A wait records what and when at entry; its exit classifies the
 * result.
 *
 * Herd bursts: a wake entering on address A takes the next sequence number
 * of A's last_wake slot and becomes "the latest wake on A", named
 * (A, seq, tid). A wait on A notes the slot's seq at entry; if it returns 0
 * and the seq has moved on, it was (by the latest-wake approximation) woken
 * by the latest wake, and remembers it and the time it returned. If its
 * next wait enters on A within herd_window_ns of that return, it adds one
 * re-wait to the wake's herd record. The wake's exit adds FLAG when it
 * returned >= herd_min. Both kinds of update are one atomic fetch-add on
 * one 64-bit score, so exactly one of them sees the score cross "FLAG set
 * and re-waits >= herd_min - 1", and that one counts the burst: no lock, no
 * double count, in whatever order the CPUs get there. (Addresses sharing a
 * slot, or two CPUs writing one slot at once, can misattribute a waiter:
 * a burst can be missed.)
 *
 * EAGAIN storms: per address, an interval opened by the first EAGAIN after
 * the previous interval ended; the EAGAIN that makes the count exceed
 * storm_min counts the storm (again exactly one fetch-add sees the crossing).
 * Reopening an interval is a plain store: two CPUs reopening at once can
 * lose an EAGAIN from the new interval's count, never invent one.
 *
 * Resleeps: per thread, the address of its last wait if that wait returned
 * 0, its wake count and the time at that moment; its next wait or other op
 * clears it, a wake moves the count; a wait entering on that same address
 * with the count unmoved within resleep_window_ns counts one.
 *
 * Wake-to-run: sched_wakeup looks only at tasks of the target tgid (a load
 * from the task_struct) and, if the task is inside a wait (its slot in thr
 * says so), stamps the wakeup time into the slot; sched_switch, for a
 * next task of the target tgid with a stamp, takes now - stamp into a
 * log-linear histogram and clears the stamp. The wait's exit clears a stamp
 * never consumed (woken before it got off the CPU). The two events are
 * ordered by the run-queue lock of the CPU the task wakes on. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "futexstat.h"

char LICENSE[] SEC("license") = "GPL";

/* UAPI values (ABI, they never change). */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256
#define IORING_OP_FUTEX_WAIT 51
#define IORING_OP_FUTEX_WAITV 53
#define EAGAIN 11
#define EINTR 4
#define ETIMEDOUT 110
/* Kernel-internal restart codes a signal-interrupted wait exits with before
 * the signal code turns them into EINTR or a restart (include/linux/errno.h). */
#define ERESTARTSYS 512
#define ERESTART_RESTARTBLOCK 516

const volatile __u64 targ_ns_dev = 0;
const volatile __u64 targ_ns_ino = 0;
const volatile __u32 targ_tgid = 0;
const volatile __u32 herd_min = FUTEXSTAT_HERD_MIN;
const volatile __u64 herd_window_ns = FUTEXSTAT_HERD_WINDOW_NS;
const volatile __u64 storm_interval_ns = FUTEXSTAT_STORM_INTERVAL_NS;
const volatile __u32 storm_min = FUTEXSTAT_STORM_MIN;
const volatile __u64 resleep_window_ns = FUTEXSTAT_RESLEEP_WINDOW_NS;

/* Set by the loader around each rep: the programs stay attached for the
 * whole run (attaching and detaching tracepoints per rep costs an RCU grace
 * period each, ~0.5 s a rep here) and count only while this is 1. Read by
 * every handler, written once per rep: its cache line stays shared. */
__u32 active = 0;
/* targ_tgid as the kernel's global pid namespace numbers it (task->tgid,
 * bpf_get_current_pid_tgid()), learned on the first call made by the
 * target; 0 until then. */
__u32 host_tgid = 0;

enum kind { K_NONE, K_WAIT, K_OTHER, K_WAITV };

struct wake_id {
	__u64 uaddr;
	__u64 seq; /* the wake's number in its last_wake slot */
	__u64 tid; /* the waker */
};

#define HERD_FLAG (1ULL << 32) /* the wake returned >= herd_min */

#define LW_BITS FUTEXSTAT_LW_BITS
/* Direct-mapped: the latest wake entered on each address (see the top). */
struct futexstat_wake_rec last_wake[1 << LW_BITS] = {};
/* Direct-mapped by address like last_wake: the EAGAIN storm interval. */
struct futexstat_storm storms[1 << LW_BITS] = {};
/* Direct-mapped by tid: per-thread state (see futexstat.h). */
struct futexstat_thread thr[1 << FUTEXSTAT_TW_BITS] = {};


struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct futexstat_counts);
} pcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct wake_id);
	__type(value, __u64); /* score: HERD_FLAG | re-waits */
} herd SEC(".maps");


#define ADD(c, field, v) __sync_fetch_and_add(&(c)->field, (v))

static __always_inline struct futexstat_counts *counts(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&pcpu, &zero);
}

/* The target's counters when the current thread belongs to the target
 * process (its tgid as seen in the loader's pid namespace) and counting
 * is on; NULL otherwise. */
static __always_inline struct futexstat_counts *target(__u32 *tid)
{
	if (!active)
		return NULL;
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	*tid = (__u32)id;
	__u32 h = host_tgid;
	if (h) {
		if (tgid != h)
			return NULL;
	} else {
		struct bpf_pidns_info ns = {};
		if (bpf_get_ns_current_pid_tgid(targ_ns_dev, targ_ns_ino, &ns, sizeof ns) ||
		    ns.tgid != targ_tgid)
			return NULL;
		host_tgid = tgid;
	}
	return counts();
}

static __always_inline __u32 lw_index(__u64 uaddr)
{
	__u32 i = (__u32)((uaddr * 0x9E3779B97F4A7C15ULL) >> (64 - LW_BITS));
	return i & ((1 << LW_BITS) - 1);
}

static __always_inline struct futexstat_wake_rec *lw_slot(__u64 uaddr)
{
	return &last_wake[lw_index(uaddr)];
}

static __always_inline bool herd_done(__u64 score)
{
	return (score & HERD_FLAG) && (score & 0xffffffffULL) + 1 >= herd_min;
}

/* One atomic add to a herd score, creating the record on first use; the
 * adder that crosses the line counts the burst. */
static __always_inline void herd_add(struct futexstat_counts *c, struct wake_id *k, __u64 v)
{
	__u64 zero = 0, *score = bpf_map_lookup_elem(&herd, k);
	if (!score) {
		bpf_map_update_elem(&herd, k, &zero, BPF_NOEXIST);
		score = bpf_map_lookup_elem(&herd, k);
		if (!score)
			return;
	}
	__u64 old = __sync_fetch_and_add(score, v);
	if (!herd_done(old) && herd_done(old + v))
		ADD(c, herd_bursts, 1);
}

static __always_inline struct futexstat_thread *tslot(__u32 tid)
{
	return &thr[tid & ((1 << FUTEXSTAT_TW_BITS) - 1)];
}

/* The current thread's slot, claimed if another thread held it: a claim
 * resets the state and adds 2^32 to the wake count (so the count of a slot
 * never comes back to a value it had); evicting a thread with a call in
 * flight counts one `missed`. */
static __always_inline struct futexstat_thread *claim(struct futexstat_counts *c, __u32 tid)
{
	struct futexstat_thread *t = tslot(tid);
	if (t->tid != tid) {
		if (t->tid && (t->kind != K_NONE || t->in_wake))
			ADD(c, missed, 1);
		t->tid = tid;
		t->nwakes += 1ULL << 32;
		t->in_wake = 0;
		t->kind = K_NONE;
		t->woken = 0;
		t->resleep_uaddr = 0;
		t->wake_ts = 0;
	}
	return t;
}

/* A wake's entry: no clock read, no helper call (the
 * cheap, frequent call). It becomes the latest wake on its address (a new
 * seq in the last_wake slot) and marks its thread's slot "in a
 * wake" for the exit. */
static __always_inline void wake_begin(struct futexstat_counts *c, __u64 uaddr, __u32 tid)
{
	struct futexstat_wake_rec *lw = lw_slot(uaddr);
	__u64 seq = lw->seq + 1;
	lw->uaddr = uaddr;
	lw->seq = seq;
	lw->tid = tid;
	struct futexstat_thread *t = claim(c, tid);
	t->nwakes++;
	t->wseq = seq;
	t->wuaddr = uaddr;
	t->in_wake = 1;
}

static __always_inline void wait_begin(struct futexstat_counts *c, __u32 kind, __u64 uaddr,
				       __u32 tid)
{
	struct futexstat_thread *t = claim(c, tid);
	__u64 now = bpf_ktime_get_ns();
	struct futexstat_wake_rec *lw = lw_slot(uaddr);
	t->lw_seq = lw->uaddr == uaddr ? lw->seq : ~0ULL;
	if (t->resleep_uaddr && kind == K_WAIT && t->resleep_uaddr == uaddr) {
		/* no wake by this thread since that wait returned 0, soon */
		if (t->nwakes == t->resleep_wakes && now - t->resleep_at <= resleep_window_ns)
			ADD(c, resleeps, 1);
	}
	if (t->woken) {
		struct wake_id k = { .uaddr = t->by_uaddr, .seq = t->by_seq, .tid = t->by_tid };
		t->woken = 0;
		/* Re-waiting on the address it was woken from, soon enough. */
		if (kind == K_WAIT && k.uaddr == uaddr && now - t->woken_at <= herd_window_ns)
			herd_add(c, &k, 1);
	}
	t->wake_ts = 0;
	t->resleep_uaddr = 0;
	t->ts = now;
	t->uaddr = uaddr;
	t->kind = kind;
}

/* A futex-family call that is neither wait nor wake: it still ends a
 * resleep chain. */
static __always_inline void other_call(struct futexstat_counts *c, __u32 tid)
{
	struct futexstat_thread *t = claim(c, tid);
	t->resleep_uaddr = 0;
	t->kind = K_OTHER;
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) { r += 1; }
	return r;
}

static __always_inline void eagain(struct futexstat_counts *c, __u64 uaddr, __u64 now)
{
	struct futexstat_storm *s = &storms[lw_index(uaddr)];
	if (s->uaddr != uaddr) { /* another address's interval: taken over */
		s->uaddr = uaddr;
		s->start = now;
		s->n = 0;
	} else if (now - s->start >= storm_interval_ns) {
		s->start = now;
		s->n = 0;
	}
	if (__sync_fetch_and_add(&s->n, 1) == storm_min)
		ADD(c, eagain_storms, 1);
}

/* A wake's exit; a wake that woke >= herd_min is named for its herd
 * record from its thread's slot. */
static __always_inline void wake_end(struct futexstat_counts *c, long ret, __u32 tid)
{
	if (ret > 0) {
		ADD(c, woken, ret);
		if (ret >= herd_min) {
			struct futexstat_thread *t = tslot(tid);
			if (t->tid == tid) {
				struct wake_id k = { .uaddr = t->wuaddr, .seq = t->wseq, .tid = tid };
				herd_add(c, &k, HERD_FLAG);
			}
		}
	} else if (ret == 0) {
		ADD(c, wake_none, 1);
	} else {
		ADD(c, wake_err, 1);
	}
}

static __always_inline void wait_end(struct futexstat_counts *c, long ret, __u32 tid)
{
	struct futexstat_thread *t = tslot(tid);
	if (t->tid != tid)
		return; /* entered before counting began, or evicted */
	__u32 kind = t->kind;
	t->kind = K_NONE;
	if (kind != K_WAIT && kind != K_WAITV)
		return; /* another op, or entered before the collector was attached */

	t->wake_ts = 0; /* a wakeup never followed by a switch-in: no sample */
	__u64 now = bpf_ktime_get_ns();
	__u32 slot = log2_u64(now - t->ts);
	if (slot >= FUTEXSTAT_HIST_SLOTS)
		slot = FUTEXSTAT_HIST_SLOTS - 1;
	ADD(c, wait_hist[slot], 1);

	if (ret >= 0) { /* futex_waitv returns the index of the woken word */
		ADD(c, wait_ok, 1);
		if (kind == K_WAIT) {
			if (ret == 0) {
				t->resleep_uaddr = t->uaddr;
				t->resleep_wakes = t->nwakes;
				t->resleep_at = now;
			}
			struct futexstat_wake_rec *lw = lw_slot(t->uaddr);
			/* A wake that entered after this wait did (the slot's seq
			 * moved on) can have woken it; the latest such wake is
			 * taken to be the one. */
			__u64 seq = lw->seq;
			if (lw->uaddr == t->uaddr && seq != t->lw_seq) {
				t->by_uaddr = t->uaddr;
				t->by_seq = seq;
				t->by_tid = lw->tid;
				t->woken_at = now;
				t->woken = 1;
			}
		}
	} else if (ret == -EAGAIN) {
		ADD(c, wait_eagain, 1);
		if (kind == K_WAIT)
			eagain(c, t->uaddr, now);
	} else if (ret == -ETIMEDOUT) {
		ADD(c, wait_timedout, 1);
	} else if (ret == -EINTR || (ret <= -ERESTARTSYS && ret >= -ERESTART_RESTARTBLOCK)) {
		ADD(c, wait_eintr, 1);
	} else {
		ADD(c, wait_err, 1);
	}
}

SEC("tracepoint/syscalls/sys_enter_futex")
int futex_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u32 tid;
	struct futexstat_counts *c = target(&tid);
	if (!c)
		return 0;
	__u64 uaddr = ctx->args[0];
	int op = (int)ctx->args[1] & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	__u32 kind;
	switch (op) {
	case FUTEX_WAIT: ADD(c, op_wait, 1); kind = K_WAIT; break;
	case FUTEX_WAIT_BITSET: ADD(c, op_wait_bitset, 1); kind = K_WAIT; break;
	case FUTEX_WAKE: ADD(c, op_wake, 1); wake_begin(c, uaddr, tid); return 0;
	case FUTEX_WAKE_BITSET:
		ADD(c, op_other, 1);
		ADD(c, op_wake_bitset, 1);
		wake_begin(c, uaddr, tid);
		return 0;
	default: ADD(c, op_other, 1); other_call(c, tid); return 0;
	}
	wait_begin(c, kind, uaddr, tid);
	return 0;
}

/* Between reps (`active` clear) a target thread's wait can still end: its
 * state must not stay "inside a wait", or sched_wakeup would stamp it while
 * it sleeps elsewhere. Costs the target a lookup per exit between reps,
 * others a compare. */
static __always_inline void stale_end(void)
{
	__u32 h = host_tgid;
	if (active || !h)
		return;
	__u64 id = bpf_get_current_pid_tgid();
	if ((__u32)(id >> 32) != h)
		return;
	struct futexstat_thread *t = tslot((__u32)id);
	if (t->tid == (__u32)id) {
		t->kind = K_NONE;
		t->in_wake = 0;
	}
}

/* Whether the current thread's futex call in flight is a wake (its
 * slot says so; cleared here). */
static __always_inline bool in_wake(__u32 tid)
{
	struct futexstat_thread *t = tslot(tid);
	if (t->tid != tid || !t->in_wake)
		return false;
	t->in_wake = 0;
	return true;
}

/* The futex(2) exit: a wake or anything else, as the thread's slot says.
 * A call whose slot another thread claimed while it was in flight is not
 * classified (counted at its entry and in `missed`). */
SEC("tracepoint/syscalls/sys_exit_futex")
int futex_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u32 tid;
	struct futexstat_counts *c = target(&tid);
	if (!c) {
		stale_end();
		return 0;
	}
	if (in_wake(tid))
		wake_end(c, ctx->ret, tid);
	else
		wait_end(c, ctx->ret, tid);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_wait")
int futex2_wait_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u32 tid;
	struct futexstat_counts *c = target(&tid);
	if (!c)
		return 0;
	ADD(c, f2_wait, 1);
	wait_begin(c, K_WAIT, ctx->args[0], tid);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_wake")
int futex2_wake_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u32 tid;
	struct futexstat_counts *c = target(&tid);
	if (!c)
		return 0;
	ADD(c, f2_wake, 1);
	wake_begin(c, ctx->args[0], tid);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_waitv")
int futex2_waitv_enter(struct trace_event_raw_sys_enter *ctx)
{
	(void)ctx;
	__u32 tid;
	struct futexstat_counts *c = target(&tid);
	if (!c)
		return 0;
	ADD(c, f2_waitv, 1);
	wait_begin(c, K_WAITV, 0, tid);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_requeue")
int futex2_requeue_enter(struct trace_event_raw_sys_enter *ctx)
{
	(void)ctx;
	__u32 tid;
	struct futexstat_counts *c = target(&tid);
	if (c) {
		ADD(c, f2_requeue, 1);
		other_call(c, tid);
	}
	return 0;
}

static __always_inline int f2_wait_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u32 tid;
	struct futexstat_counts *c = target(&tid);
	if (c)
		wait_end(c, ctx->ret, tid);
	else
		stale_end();
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex_wait")
int futex2_wait_exit(struct trace_event_raw_sys_exit *ctx) { return f2_wait_exit(ctx); }

SEC("tracepoint/syscalls/sys_exit_futex_waitv")
int futex2_waitv_exit(struct trace_event_raw_sys_exit *ctx) { return f2_wait_exit(ctx); }

SEC("tracepoint/syscalls/sys_exit_futex_wake")
int futex2_wake_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u32 tid;
	struct futexstat_counts *c = target(&tid);
	if (c) {
		in_wake(tid);
		wake_end(c, ctx->ret, tid);
	}
	return 0;
}

/* io_uring futex requests never pass through a futex syscall: the only
 * kernel-side trace of them is the submission, with its opcode. The loader
 * does not load this program where the tracepoint does not exist. */
SEC("tracepoint/io_uring/io_uring_submit_req")
int uring_submit(struct trace_event_raw_io_uring_submit_req *ctx)
{
	__u32 tid;
	struct futexstat_counts *c = target(&tid);
	if (!c)
		return 0;
	__u8 op = ctx->opcode;
	if (op >= IORING_OP_FUTEX_WAIT && op <= IORING_OP_FUTEX_WAITV)
		ADD(c, uring_futex, 1);
	return 0;
}

/* ---- wake-to-run (loaded only with wake_to_run) ----------------------- */

/* Whether task p belongs to the target: one load from its task_struct.
 * Before host_tgid is learned no target thread can be inside a wait the
 * collector saw enter, so nothing is lost by returning false. */
static __always_inline bool target_task(struct task_struct *p)
{
	__u32 h = host_tgid;
	return active && h && (__u32)p->tgid == h;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(wtr_wakeup, struct task_struct *p)
{
	if (!target_task(p))
		return 0;
	__u32 tid = (__u32)p->pid;
	struct futexstat_thread *t = tslot(tid);
	if (t->tid == tid && (t->kind == K_WAIT || t->kind == K_WAITV))
		t->wake_ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(wtr_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	if (!target_task(next))
		return 0;
	__u32 tid = (__u32)next->pid;
	struct futexstat_thread *t = tslot(tid);
	if (t->tid != tid || !t->wake_ts)
		return 0;
	__u64 d = bpf_ktime_get_ns() - t->wake_ts;
	t->wake_ts = 0;
	struct futexstat_counts *c = counts();
	if (!c)
		return 0;
	ADD(c, wake_to_run_n, 1);
	__u32 slot = futexstat_wtr_slot(d);
	if (slot >= FUTEXSTAT_WTR_SLOTS)
		slot = FUTEXSTAT_WTR_SLOTS - 1;
	ADD(c, wtr_hist[slot], 1);
	return 0;
}
