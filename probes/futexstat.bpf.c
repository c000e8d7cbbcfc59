// SPDX-License-Identifier: GPL-2.0
/* probes/futexstat.bpf.c — the in-harness futex collector (BPF side).
 *
 * Syscall tracepoints only (this kernel has no kprobes): sys_enter/exit of
 * futex, futex_wait, futex_wake, futex_waitv, futex_requeue, plus
 * io_uring:io_uring_submit_req for io_uring futex opcodes. Every handler
 * first filters on the target process (its tgid, seen through the pid
 * namespace the loader lives in), so the cost for other processes is one
 * helper call.
 *
 * Enter handlers count the call and remember (per thread) what it was and
 * when; exit handlers read the return value and classify it. Counters are
 * one struct in .bss (see futexstat.h), updated with atomic adds because
 * several CPUs run the harness's threads at once; the loader reads them
 * only after detaching, so no reader races a writer.
 *
 * Herd bursts: a wake entering on address A takes a sequence number and
 * becomes "the latest wake on A" (map last_wake) with a herd record keyed by
 * (A, seq). A waiter on A that returns 0 after entering before that wake
 * was (by the latest-wake approximation) woken by it, and remembers (A, seq).
 * If its next wait enters on A within herd_window_ns of the wake, it adds one
 * re-wait to the record. The wake's exit adds FLAG when it returned >=
 * herd_min. Both kinds of update are one atomic fetch-add on one 64-bit
 * score, so exactly one of them sees the score cross "FLAG set and re-waits
 * >= herd_min - 1", and that one counts the burst: no lock, no double count,
 * in whatever order the CPUs get there.
 *
 * EAGAIN storms: per address, an interval opened by the first EAGAIN after
 * the previous interval ended; the EAGAIN that makes the count exceed
 * storm_min counts the storm (again exactly one fetch-add sees the crossing).
 * Reopening an interval is a plain store: two CPUs reopening at once can
 * lose an EAGAIN from the new interval's count, never invent one. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

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

struct futexstat_counts counts = {};
__u64 wake_seq = 0;

enum kind { K_NONE, K_WAIT, K_WAKE, K_WAITV };

struct herd_key {
	__u64 uaddr;
	__u64 seq;
};

/* Per thread, in task-local storage (cheaper than a hash keyed by tid, and
 * freed with the thread). */
struct thread_state {
	__u64 ts;              /* enter time of the call in flight */
	__u64 uaddr;           /* its futex word (0 for waitv) */
	__u64 seq;             /* a wake in flight: its sequence number */
	__u32 kind;            /* K_NONE: no call in flight */
	__u32 woken;           /* the last wait returned 0 after this wake: */
	struct herd_key by;    /*   (address, wake seq) */
};

#define HERD_FLAG (1ULL << 32) /* the wake returned >= herd_min */

struct wake_rec {
	__u64 ts;
	__u64 seq;
};

struct storm {
	__u64 start;
	__u64 n;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_state);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64); /* futex address */
	__type(value, struct wake_rec); /* the latest wake that entered on it */
} last_wake SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct herd_key);
	__type(value, __u64); /* score: HERD_FLAG | re-waits */
} herd SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64); /* futex address */
	__type(value, struct storm);
} storms SEC(".maps");

#define ADD(field, v) __sync_fetch_and_add(&counts.field, (v))

/* Whether the current thread belongs to the target process, its tgid as
 * seen in the loader's pid namespace. */
static __always_inline bool target(void)
{
	struct bpf_pidns_info ns = {};
	if (bpf_get_ns_current_pid_tgid(targ_ns_dev, targ_ns_ino, &ns, sizeof ns))
		return false;
	return ns.tgid == targ_tgid;
}

static __always_inline bool herd_done(__u64 score)
{
	return (score & HERD_FLAG) && (score & 0xffffffffULL) + 1 >= herd_min;
}

/* One atomic add to a herd score, creating the record on first use; the
 * adder that crosses the line counts the burst. */
static __always_inline void herd_add(struct herd_key *k, __u64 v)
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
		ADD(herd_bursts, 1);
}

static __always_inline struct thread_state *thread(void)
{
	return bpf_task_storage_get(&threads, bpf_get_current_task_btf(), 0,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
}

static __always_inline void begin(__u32 kind, __u64 uaddr)
{
	struct thread_state *t = thread();
	if (!t) {
		ADD(missed, 1);
		return;
	}
	__u64 now = bpf_ktime_get_ns();
	if (kind == K_WAIT || kind == K_WAITV) {
		ADD(wait_calls, 1);
		if (t->woken) {
			struct herd_key k = t->by;
			t->woken = 0;
			struct wake_rec *lw = bpf_map_lookup_elem(&last_wake, &k.uaddr);
			/* Re-waiting on the address it was woken from, soon enough. */
			if (kind == K_WAIT && k.uaddr == uaddr && lw && now - lw->ts <= herd_window_ns)
				herd_add(&k, 1);
		}
	} else if (kind == K_WAKE) {
		ADD(wake_calls, 1);
		struct wake_rec w = { .ts = now, .seq = __sync_fetch_and_add(&wake_seq, 1) + 1 };
		t->seq = w.seq;
		bpf_map_update_elem(&last_wake, &uaddr, &w, BPF_ANY);
	}
	t->ts = now;
	t->uaddr = uaddr;
	t->kind = kind;
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

static __always_inline void eagain(__u64 uaddr, __u64 now)
{
	struct storm *s = bpf_map_lookup_elem(&storms, &uaddr);
	if (!s) {
		struct storm fresh = { .start = now };
		bpf_map_update_elem(&storms, &uaddr, &fresh, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&storms, &uaddr);
		if (!s)
			return;
	}
	if (now - s->start >= storm_interval_ns) {
		s->start = now;
		s->n = 0;
	}
	if (__sync_fetch_and_add(&s->n, 1) == storm_min)
		ADD(eagain_storms, 1);
}

static __always_inline void end(long ret)
{
	struct thread_state *t = bpf_task_storage_get(&threads, bpf_get_current_task_btf(), 0, 0);
	if (!t || t->kind == K_NONE)
		return; /* entered before the collector was attached */
	__u32 kind = t->kind;
	t->kind = K_NONE;
	__u64 now = bpf_ktime_get_ns();

	if (kind == K_WAKE) {
		if (ret > 0) {
			ADD(woken, ret);
			if (ret >= herd_min) {
				struct herd_key k = { .uaddr = t->uaddr, .seq = t->seq };
				herd_add(&k, HERD_FLAG);
			}
		} else if (ret == 0) {
			ADD(wake_none, 1);
		} else {
			ADD(wake_err, 1);
		}
		return;
	}

	__u32 slot = log2_u64(now - t->ts);
	if (slot >= FUTEXSTAT_HIST_SLOTS)
		slot = FUTEXSTAT_HIST_SLOTS - 1;
	__sync_fetch_and_add(&counts.wait_hist[slot], 1);

	if (ret >= 0) { /* futex_waitv returns the index of the woken word */
		ADD(wait_ok, 1);
		if (kind == K_WAIT) {
			struct wake_rec *lw = bpf_map_lookup_elem(&last_wake, &t->uaddr);
			/* A wake that entered after this wait did can have woken it;
			 * the latest such wake is taken to be the one. */
			if (lw && lw->ts >= t->ts) {
				t->by.uaddr = t->uaddr;
				t->by.seq = lw->seq;
				t->woken = 1;
			}
		}
	} else if (ret == -EAGAIN) {
		ADD(wait_eagain, 1);
		if (kind == K_WAIT)
			eagain(t->uaddr, now);
	} else if (ret == -ETIMEDOUT) {
		ADD(wait_timedout, 1);
	} else if (ret == -EINTR || (ret <= -ERESTARTSYS && ret >= -ERESTART_RESTARTBLOCK)) {
		ADD(wait_eintr, 1);
	} else {
		ADD(wait_err, 1);
	}
}

SEC("tracepoint/syscalls/sys_enter_futex")
int futex_enter(struct trace_event_raw_sys_enter *ctx)
{
	if (!target())
		return 0;
	__u64 uaddr = ctx->args[0];
	int op = (int)ctx->args[1] & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	__u32 kind = K_NONE;
	ADD(futex_calls, 1);
	switch (op) {
	case FUTEX_WAIT: ADD(op_wait, 1); kind = K_WAIT; break;
	case FUTEX_WAIT_BITSET: ADD(op_wait_bitset, 1); kind = K_WAIT; break;
	case FUTEX_WAKE: ADD(op_wake, 1); kind = K_WAKE; break;
	case FUTEX_WAKE_BITSET: ADD(op_other, 1); kind = K_WAKE; break;
	default: ADD(op_other, 1); return 0;
	}
	begin(kind, uaddr);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex")
int futex_exit(struct trace_event_raw_sys_exit *ctx)
{
	if (target())
		end(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_wait")
int futex2_wait_enter(struct trace_event_raw_sys_enter *ctx)
{
	if (!target())
		return 0;
	ADD(f2_wait, 1);
	begin(K_WAIT, ctx->args[0]);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_wake")
int futex2_wake_enter(struct trace_event_raw_sys_enter *ctx)
{
	if (!target())
		return 0;
	ADD(f2_wake, 1);
	begin(K_WAKE, ctx->args[0]);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_waitv")
int futex2_waitv_enter(struct trace_event_raw_sys_enter *ctx)
{
	if (!target())
		return 0;
	ADD(f2_waitv, 1);
	begin(K_WAITV, 0);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_requeue")
int futex2_requeue_enter(struct trace_event_raw_sys_enter *ctx)
{
	(void)ctx;
	if (target())
		ADD(f2_requeue, 1);
	return 0;
}

/* One exit handler for the three futex2 calls whose entry was recorded. */
static __always_inline int f2_exit(struct trace_event_raw_sys_exit *ctx)
{
	if (target())
		end(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex_wait")
int futex2_wait_exit(struct trace_event_raw_sys_exit *ctx) { return f2_exit(ctx); }

SEC("tracepoint/syscalls/sys_exit_futex_wake")
int futex2_wake_exit(struct trace_event_raw_sys_exit *ctx) { return f2_exit(ctx); }

SEC("tracepoint/syscalls/sys_exit_futex_waitv")
int futex2_waitv_exit(struct trace_event_raw_sys_exit *ctx) { return f2_exit(ctx); }

/* io_uring futex requests never pass through a futex syscall: the only
 * kernel-side trace of them is the submission, with its opcode. The loader
 * does not load this program where the tracepoint does not exist. */
SEC("tracepoint/io_uring/io_uring_submit_req")
int uring_submit(struct trace_event_raw_io_uring_submit_req *ctx)
{
	if (!target())
		return 0;
	__u8 op = ctx->opcode;
	if (op >= IORING_OP_FUTEX_WAIT && op <= IORING_OP_FUTEX_WAITV)
		ADD(uring_futex, 1);
	return 0;
}
