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
 * in its slot (a clock read and a task-storage lookup are most of what
 * the collector costs a call: probes/overhead.md). A wait records what and when at entry; its exit classifies the
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
 * ordered by the run-queue lock of the CPU the task wakes on.
 *
 * Two sets of programs. Every handler above exists twice, built from one
 * __always_inline body with a compile-time `ext` argument: the plain set
 * (ext false: `futex_enter`, ...) and the extended set (ext true: the same
 * names with `_x`). The loader loads one set: the plain one when neither
 * follow_children nor per_word is asked for, which is what the harness's
 * runs use. With ext a literal false every branch of the new modes folds
 * away in clang, so the plain programs are instruction for instruction the
 * collector of before these modes (checked by diffing `llvm-objdump -d`
 * of the object before and after; the new counters sit after the
 * histograms so no offset moves). Inside the extended set the two modes
 * are `const volatile` flags, so the verifier prunes the mode not asked
 * for (its branch is known from the frozen .rodata); what remains of a
 * flag test there is its load. A runtime flag in one set of programs would
 * have cost every normal run's futex call those loads and compares.
 *
 * Follow mode (follow_children): the counted processes are the keys of
 * `tree`, a hash by host tgid. tp_btf/sched_process_fork (run by the
 * parent, before the child first runs) adds the child when it is a new
 * process (not a thread: tgids differ) whose parent is in the tree or is
 * the caller (the target tgid, identified like target() does). tp_btf/
 * sched_process_exit removes the process when its group is dead, so a
 * reused pid never counts: do_exit decrements signal->live before the
 * tracepoint, and the thread that takes it to 0 is the group's last, so
 * live == 0 there is the kernel's own group_dead (read from the task,
 * not the tracepoint's group_dead argument, which kernels before 6.16 or so
 * lack; two threads dying at once may both see 0 and both delete: the
 * second is a no-op, and the pid cannot be reused before the group is
 * reaped). It fires before the parent is notified, so once waitpid has
 * returned for every process of the tree the tree is empty. target() then
 * asks the tree (one hash lookup per futex call while counting, paid by
 * every process of the machine: the price of following processes that
 * are not known in advance), and the caller only when count_self is set
 * (after the tree, so that the harness, measuring its own calls with
 * count_self on, pays the lookup a process of the tree pays). The
 * per-thread table stays the one table, tagged by tid (tids are unique on
 * the machine); the loader zeroes it at each start, and the exit program
 * clears the slot of every exiting thread that holds one, so a slot tagged
 * with a tid always belongs to a thread being counted: a tid reused by
 * another thread, within a rep or across reps, never inherits a state.
 * That is also what wake-to-run tests in this mode (the slot's tag, no
 * tgid compare), and why stale_end is not needed in it. The last_wake and
 * storms slots are tagged with the tgid too: the processes of a tree are
 * often fork copies whose private words share addresses, and a wake in one
 * must not be taken for the waker of a wait in another (nor EAGAINs in two
 * of them for one storm); for a word shared between processes (MAP_SHARED)
 * this hides a cross-process burst or storm, never invents one.
 *
 * Per-word mode (per_word): `words`, a hash by (host tgid, address), one
 * record per word, updated with atomic adds at a wait's exit (futex(2)
 * WAIT/WAIT_BITSET, futex_wait(2): the wait's duration is at hand there),
 * at a wake's entry (one wake more) and at a wake's exit when it woke
 * someone (the threads woken; a wake that woke nobody, the common cheap
 * case, pays one lookup, not two). futex_waitv(2) has no single word and
 * is left out. A record is created on first use; when the map is full
 * the update is lost and counted (words_lost). The key: (host tgid,
 * address) for a private op; for a non-private one on a VM_SHARED file
 * mapping (anonymous MAP_SHARED memory is a shmem file) the inode, device
 * and file offset, found with bpf_find_vma at the call's entry — where the
 * op's private flag is at hand — and kept in wkeys for its exit, so one
 * word of shared memory is one record whichever processes wait and wake on
 * it. Each record names up to FUTEXSTAT_WORD_PIDS processes (word_pid).
 *
 * Counting by cgroup (cgroup_id set, follow mode's programs): target()
 * compares bpf_get_current_cgroup_id() with it instead of looking the tgid
 * up in the tree; the fork program counts a process forked into the
 * cgroup and adds nothing to the tree; tree_join (tp_btf/cgroup_attach_task)
 * counts a whole process moved in. A variable, not a constant: the harness
 * sets it between reps, once it has made the run's cgroup.
 *
 * Nodes (FUTEX2_NUMA, Linux 6.16). A futex_wait(2) or futex_wake(2) with
 * FUTEX2_NUMA in its flags counts in numa_ops (FUTEX2_MPOL too: in
 * numa_mpol_ops) at its entry, which reads the node its word names, the
 * u32 after the value (bpf_probe_read_user of uaddr + 4: the word is a
 * {u32 value, u32 node} pair). A node there goes into numa_node_mask; a
 * FUTEX_NO_NODE (~0) leaves the address in the thread's numa_at slot, and
 * the call's exit reads it again: a wait's kernel wrote its node back there
 * (with FUTEX2_MPOL the mapping's policy node, else the waiter's CPU's
 * node), so that is the node the call used; still ~0 (or unreadable):
 * numa_no_node. futex_waitv(2)'s per-entry flags (an array in user memory)
 * and io_uring's futex requests (its tracepoint has no flags) are not read.
 * Every wake, NUMA or not, futex(2) or futex_wake(2), stores its CPU's node
 * (bpf_get_numa_node_id) in its last_wake slot beside its seq; a wait that
 * returns 0 and is matched to a wake by the herd bursts' latest-wake rule
 * compares it with the node of the CPU it runs on at its exit: a wake_pair,
 * cross-node when they differ. Not at sched_wakeup: with the wakee's CPU
 * idle the kernel queues the wakeup to that CPU (ttwu_queue_wakelist), so
 * the event's CPU is then the wakee's, not the waker's; and the wait's exit
 * runs where the woken thread was switched in (the wake-to-run sample's
 * CPU) unless it was migrated on its way out, without needing wake_to_run.
 * The node field sits in the upper half of the slot's 64-bit tgid tag
 * (always 0 there) and the node counters after words_lost, so no offset of
 * the older fields moves; every wake makes one helper call for it (plain
 * programs included). */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "probes/futexstat.h"

char LICENSE[] SEC("license") = "GPL";

/* UAPI values (ABI, they never change). */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256
#define FUTEX2_PRIVATE 128
#define FUTEX2_SIZE_MASK 0x03
#define FUTEX2_SIZE_U32 0x02
#define FUTEX2_NUMA 0x04
#define FUTEX2_MPOL 0x08
#define FUTEX_NO_NODE 0xffffffffU
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
/* The modes of the extended programs (see the top); read only by them. */
const volatile __u32 follow_children = 0;
const volatile __u32 per_word = 0;
/* Per-word mode: the machine's page size (log2), for a shared word's offset
 * in its file. Its own section (and cgroup_id's below): the plain programs'
 * .rodata and .bss offsets stay what they were. */
const volatile __u32 page_shift SEC(".rodata.words") = 12;

/* Set by the loader around each rep: the programs stay attached for the
 * whole run (attaching and detaching tracepoints per rep costs an RCU grace
 * period each, ~0.5 s a rep here) and count only while this is 1. Read by
 * every handler, written once per rep: its cache line stays shared. */
__u32 active = 0;
/* targ_tgid as the kernel's global pid namespace numbers it (task->tgid,
 * bpf_get_current_pid_tgid()), learned on the first call made by the
 * target; 0 until then. */
__u32 host_tgid = 0;
/* Follow mode: whether the caller's own process counts too
 * (futexstat_count_self); a variable, not a constant: the harness turns it
 * on and off between reps. */
__u32 count_self = 0;
/* Follow mode: count by cgroup (futexstat_count_cgroup): a call counts iff
 * the task's cgroup v2 id is this one; 0: by the tree. Set between reps. */
__u64 cgroup_id SEC(".data.cgroup") = 0;

enum kind { K_NONE, K_WAIT, K_OTHER, K_WAITV };
_Static_assert(K_WAIT == FUTEXSTAT_KIND_WAIT && K_WAITV == FUTEXSTAT_KIND_WAITV,
	       "futexstat.h's kind values (futexstat_thread_wait)");

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
/* Indexed and tagged like thr: a FUTEX2_NUMA call in flight whose word
 * named no node at its entry, the address of the word's node half (0:
 * none); see "Nodes" at the top. The loader zeroes it at each start. */
struct futexstat_numa_pend numa_at[1 << FUTEXSTAT_TW_BITS] = {};


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

/* Follow mode's processes, by host tgid (the value is unused). A plain
 * preallocated hash: no allocation in the fork program, and kernels
 * before 6.1 allow tracing programs no other kind of hash; an LRU would
 * evict a live process of the tree to make room, where a full map refuses
 * a new one and says so (procs_lost). The loader shrinks it to 1 entry when
 * follow_children is off, and empties it at each start. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FUTEXSTAT_TREE_MAX);
	__type(key, __u32);
	__type(value, __u32);
} tree SEC(".maps");

/* Per-word records (see the top); preallocated for the same reasons, shrunk
 * to 1 entry when per_word is off, emptied at each start. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FUTEXSTAT_WORDS_MAX);
	__type(key, struct futexstat_word_key);
	__type(value, struct futexstat_word_val);
} words SEC(".maps");

/* Per-word mode: the word key of each thread's call in flight, indexed like
 * thr (its slot's tag says whose): resolved once at the call's entry, where
 * the op (private or not) is known, and used again at its exit. An array,
 * its lookup inlined; a map rather than a field of thr so that the plain
 * programs' thr stays 128 bytes. Shrunk to 1 entry when per_word is off. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << FUTEXSTAT_TW_BITS);
	__type(key, __u32);
	__type(value, struct futexstat_word_key);
} wkeys SEC(".maps");


#define ADD(c, field, v) __sync_fetch_and_add(&(c)->field, (v))

/* The new modes, as the extended programs see them; a literal false in the
 * plain ones (see "Two sets of programs" at the top). */
static __always_inline bool follow(const bool ext)
{
	return ext && follow_children;
}

static __always_inline bool by_word(const bool ext)
{
	return ext && per_word;
}

static __always_inline struct futexstat_counts *counts(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&pcpu, &zero);
}

/* Follow mode: whether the current process is one of the program's: by
 * cgroup when an id is set (one helper call and a compare, no lookup), else
 * by the tree (a hash lookup). */
static __always_inline bool in_run(__u32 tgid)
{
	__u64 cg = cgroup_id;
	if (cg)
		return bpf_get_current_cgroup_id() == cg;
	return bpf_map_lookup_elem(&tree, &tgid) != NULL;
}

/* The target's counters when the current thread belongs to the target
 * process (its tgid as seen in the loader's pid namespace) — or, in follow
 * mode, to a process of the tree (or to the target with count_self) — and
 * counting is on; NULL otherwise. *tgid gets the current host tgid. */
static __always_inline struct futexstat_counts *target(__u32 *tid, __u32 *tgidp, const bool ext)
{
	if (!active)
		return NULL;
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	*tid = (__u32)id;
	*tgidp = tgid;
	if (follow(ext)) {
		if (in_run(tgid))
			return counts();
		if (!count_self)
			return NULL;
	}
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

/* The slot index of a word in last_wake and storms: by address, and in
 * follow mode by process too (the tgid moves the address to another page
 * number before hashing; futexstat.h). */
static __always_inline __u32 word_index(__u64 uaddr, __u32 tgid, const bool ext)
{
	return futexstat_lw_index(follow(ext) ? futexstat_lw_key(uaddr, tgid) : uaddr);
}

/* Whether a last_wake or storms slot (its uaddr and tgid tag) holds the word. */
static __always_inline bool word_tag(__u64 tag_uaddr, __u64 tag_tgid, __u64 uaddr, __u32 tgid,
				     const bool ext)
{
	return tag_uaddr == uaddr && (!follow(ext) || tag_tgid == tgid);
}

static __always_inline struct futexstat_wake_rec *lw_slot(__u64 uaddr, __u32 tgid, const bool ext)
{
	return &last_wake[word_index(uaddr, tgid, ext)];
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

/* The deepest pid namespace nesting (MAX_PID_NS_LEVEL, include/linux/pid_namespace.h). */
#define MAX_PID_NS_LEVEL 32

/* The current process's pid in the loader's pid namespace, for a word's
 * record (once per record, so cost does not matter here). The helper
 * answers for a process whose own pid namespace is the loader's — every
 * process, unless it sits in a nested one (unshare -p, CLONE_NEWPID); for
 * those, its tgid's struct pid holds one number per level, the loader's
 * namespace among them: found by its inode. 0 if none (not below the
 * loader's namespace: cannot be a process counted). */
static __always_inline __u32 ns_tgid(void)
{
	struct bpf_pidns_info ns = {};
	if (!bpf_get_ns_current_pid_tgid(targ_ns_dev, targ_ns_ino, &ns, sizeof ns))
		return ns.tgid;
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct pid *pid = BPF_CORE_READ(task, group_leader, thread_pid);
	__u32 level = BPF_CORE_READ(pid, level);
	__u64 numbers = (__u64)pid + bpf_core_field_offset(struct pid, numbers);
	for (__u32 i = 0; i <= MAX_PID_NS_LEVEL; i++) {
		if (i > level)
			break;
		struct upid u = {};
		if (bpf_probe_read_kernel(&u, sizeof u,
					  (void *)(numbers + i * bpf_core_type_size(struct upid))))
			break;
		if (BPF_CORE_READ(u.ns, ns.inum) == targ_ns_ino)
			return (__u32)u.nr;
	}
	return 0;
}

/* A shared word's key (futexstat.h), from the mapping that holds it: the
 * callback of bpf_find_vma (run under the mm's lock, taken with a trylock:
 * when another thread holds it for writing — an mmap, a munmap — the
 * callback does not run and the word stays keyed by process and address).
 * Only a VM_SHARED mapping of a file (anonymous MAP_SHARED memory is a shmem
 * file) is shared between processes; a private mapping's word is private
 * even when a non-private op names it (the kernel keys it by mm and
 * address too). */
#define VM_SHARED 0x00000008

static long shared_key(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct futexstat_word_key *k = data;
	(void)task;
	if (!(BPF_CORE_READ(vma, vm_flags) & VM_SHARED))
		return 0;
	struct file *f = BPF_CORE_READ(vma, vm_file);
	if (!f)
		return 0;
	struct inode *ino = BPF_CORE_READ(f, f_inode);
	__u64 off = k->uaddr - BPF_CORE_READ(vma, vm_start);
	k->uaddr = off + (BPF_CORE_READ(vma, vm_pgoff) << page_shift);
	k->ino = BPF_CORE_READ(ino, i_ino);
	k->dev = BPF_CORE_READ(ino, i_sb, s_dev);
	k->tgid = 0;
	return 0;
}

/* The key of the current thread's word for its call in flight, into its
 * wkeys slot: (tgid, uaddr) for a private op, the mapping's for another
 * when it is shared. NULL only if the slot cannot be had (cannot happen: an
 * array's index in range). */
static __always_inline struct futexstat_word_key *word_key(__u32 tid, __u64 uaddr, __u32 tgid,
							   bool priv)
{
	__u32 i = tid & ((1 << FUTEXSTAT_TW_BITS) - 1);
	struct futexstat_word_key *slot = bpf_map_lookup_elem(&wkeys, &i);
	if (!slot)
		return NULL;
	struct futexstat_word_key k = { .tgid = tgid, .uaddr = uaddr };
	if (!priv)
		bpf_find_vma(bpf_get_current_task_btf(), uaddr, shared_key, &k, 0);
	*slot = k;
	return slot;
}

/* The key stored by word_key for the current thread's call in flight. */
static __always_inline struct futexstat_word_key *stored_key(__u32 tid)
{
	__u32 i = tid & ((1 << FUTEXSTAT_TW_BITS) - 1);
	return bpf_map_lookup_elem(&wkeys, &i);
}

/* Names process tgid among those that touched the word, once: the first
 * free hpid slot is taken by a compare-and-swap (two CPUs racing for one
 * slot: one wins, the other moves on, or finds its own tgid there), then
 * its pid in the loader's namespace written. A process past the last slot
 * sets `more`. */
static __always_inline void word_pid(struct futexstat_word_val *v, __u32 tgid)
{
	__u32 i;
	for (i = 0; i < FUTEXSTAT_WORD_PIDS; i++) {
		__u32 h = v->hpid[i];
		if (h == tgid)
			return;
		if (h)
			continue;
		h = __sync_val_compare_and_swap(&v->hpid[i], 0, tgid);
		if (!h)
			break;
		if (h == tgid)
			return;
	}
	if (i >= FUTEXSTAT_WORD_PIDS) {
		v->more = 1;
		return;
	}
	v->pid[i] = ns_tgid();
}

/* The per-word record of key k, created on first use, with tgid (the
 * current process) among its processes; NULL (and one words_lost) when the
 * map is full. Two CPUs creating it at once: one insert wins, the other
 * fails with EEXIST and finds the winner's. */
static __always_inline struct futexstat_word_val *word(struct futexstat_counts *c,
						       const struct futexstat_word_key *k, __u32 tgid)
{
	struct futexstat_word_val *v = bpf_map_lookup_elem(&words, k);
	if (!v) {
		struct futexstat_word_val z = { .tgid = ns_tgid() };
		bpf_map_update_elem(&words, k, &z, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&words, k);
		if (!v) {
			ADD(c, words_lost, 1);
			return NULL;
		}
	}
	word_pid(v, tgid);
	return v;
}

/* A node as a bit of a node mask (futexstat.h): node 63 and above share
 * the last bit. */
static __always_inline __u64 node_bit(__u32 node)
{
	return 1ULL << (node < 63 ? node : 63);
}

/* A woken wait matched to its wake, which ran on node `waker` (see "Nodes"
 * at the top): one pair, cross-node unless this CPU is on that node. */
static __always_inline void node_pair(struct futexstat_counts *c, __u32 waker)
{
	__u32 mine = bpf_get_numa_node_id();
	ADD(c, wake_pairs, 1);
	if (mine != waker)
		ADD(c, cross_node_wakes, 1);
	__sync_fetch_and_or(&c->cpu_node_mask, node_bit(mine) | node_bit(waker));
}

/* The node a FUTEX2_NUMA word's second half names, into the mask; 0 when
 * it named one, -1 (not counted) when not (FUTEX_NO_NODE, unreadable). */
static __always_inline int numa_node(struct futexstat_counts *c, __u64 naddr)
{
	__u32 node = FUTEX_NO_NODE;
	if (bpf_probe_read_user(&node, sizeof node, (void *)naddr) || node == FUTEX_NO_NODE)
		return -1;
	__sync_fetch_and_or(&c->numa_node_mask, node_bit(node));
	return 0;
}

/* A futex_wait(2) or futex_wake(2) entry, flags its flags: counts a
 * FUTEX2_NUMA call and its word's node, or leaves the node's address for
 * the exit when the word named none (see "Nodes" at the top). */
static __always_inline void numa_enter(struct futexstat_counts *c, __u64 uaddr, __u64 flags,
				       __u32 tid)
{
	struct futexstat_numa_pend *p = &numa_at[tid & ((1 << FUTEXSTAT_TW_BITS) - 1)];
	p->tid = tid;
	p->naddr = 0;
	if (!(flags & FUTEX2_NUMA))
		return;
	ADD(c, numa_ops, 1);
	if (flags & FUTEX2_MPOL)
		ADD(c, numa_mpol_ops, 1);
	if ((flags & FUTEX2_SIZE_MASK) != FUTEX2_SIZE_U32)
		ADD(c, numa_no_node, 1); /* no other size is taken today */
	else if (numa_node(c, uaddr + 4))
		p->naddr = uaddr + 4;
}

/* A futex2 call's exit: the node the kernel wrote back, for a NUMA call
 * whose word named none at entry. */
static __always_inline void numa_exit(struct futexstat_counts *c, __u32 tid)
{
	struct futexstat_numa_pend *p = &numa_at[tid & ((1 << FUTEXSTAT_TW_BITS) - 1)];
	if (p->tid != tid || !p->naddr)
		return;
	__u64 naddr = p->naddr;
	p->naddr = 0;
	if (numa_node(c, naddr))
		ADD(c, numa_no_node, 1);
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

/* A wait's or a wake's entry: its word and its caller. */
struct futex_call {
	__u64 uaddr;     /* the word (0: futex_waitv's, a vector of words) */
	__u32 tid, tgid; /* the caller (tgid: the host's, as target() gives it) */
	bool priv;       /* a private futex: the per-word mode's key */
};

/* A wake's entry: no clock read, no helper call (the
 * cheap, frequent call). It becomes the latest wake on its address (a new
 * seq in the last_wake slot) and marks its thread's slot "in a
 * wake" for the exit. */
static __always_inline void wake_begin(struct futexstat_counts *c, const struct futex_call *f,
				       const bool ext)
{
	__u64 uaddr = f->uaddr;
	__u32 tid = f->tid, tgid = f->tgid;
	struct futexstat_wake_rec *lw = lw_slot(uaddr, tgid, ext);
	__u64 seq = lw->seq + 1;
	lw->uaddr = uaddr;
	if (follow(ext))
		lw->tgid = tgid;
	lw->node = bpf_get_numa_node_id(); /* before seq: a wait matched to seq reads it */
	lw->seq = seq;
	lw->tid = tid;
	struct futexstat_thread *t = claim(c, tid);
	t->nwakes++;
	t->wseq = seq;
	t->wuaddr = uaddr;
	t->in_wake = 1;
	if (by_word(ext)) {
		struct futexstat_word_key *k = word_key(tid, uaddr, tgid, f->priv);
		struct futexstat_word_val *w = k ? word(c, k, tgid) : NULL;
		if (w)
			__sync_fetch_and_add(&w->wakes, 1);
	}
}

/* A wait's entry (kind: K_WAIT or K_WAITV): the time and the word into
 * its thread's slot for the exit, and what the entry itself tells (a
 * resleep, a herd's re-wait). */
static __always_inline void wait_begin(struct futexstat_counts *c, __u32 kind,
				       const struct futex_call *f, const bool ext)
{
	__u64 uaddr = f->uaddr;
	__u32 tid = f->tid, tgid = f->tgid;
	struct futexstat_thread *t = claim(c, tid);
	__u64 now = bpf_ktime_get_ns();
	struct futexstat_wake_rec *lw = lw_slot(uaddr, tgid, ext);
	t->lw_seq = word_tag(lw->uaddr, lw->tgid, uaddr, tgid, ext) ? lw->seq : ~0ULL;
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
	if (by_word(ext) && kind == K_WAIT)
		word_key(tid, uaddr, tgid, f->priv); /* for the wait's exit */
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

static __always_inline void eagain(struct futexstat_counts *c, __u64 uaddr, __u64 now,
				   __u32 tgid, const bool ext)
{
	struct futexstat_storm *s = &storms[word_index(uaddr, tgid, ext)];
	/* (written as a != test, not !word_tag(): the plain programs' code
	 * stays what it was, block order included) */
	if (s->uaddr != uaddr || (follow(ext) && s->tgid != tgid)) {
		/* another word's interval: taken over */
		s->uaddr = uaddr;
		if (follow(ext))
			s->tgid = tgid;
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
static __always_inline void wake_end(struct futexstat_counts *c, long ret, __u32 tid, __u32 tgid,
				     const bool ext)
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
		if (by_word(ext)) {
			/* the wake's word, from the slot (unless another thread
			 * claimed it meanwhile: counted in `missed`) */
			struct futexstat_thread *t = tslot(tid);
			struct futexstat_word_key *k = t->tid == tid ? stored_key(tid) : NULL;
			struct futexstat_word_val *w = k ? word(c, k, tgid) : NULL;
			if (w)
				__sync_fetch_and_add(&w->woken, ret);
		}
	} else if (ret == 0) {
		ADD(c, wake_none, 1);
	} else {
		ADD(c, wake_err, 1);
	}
}

static __always_inline void wait_end(struct futexstat_counts *c, long ret, __u32 tid, __u32 tgid,
				     const bool ext)
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
	struct futexstat_word_val *w = NULL;
	if (by_word(ext) && kind == K_WAIT) {
		struct futexstat_word_key *k = stored_key(tid);
		w = k ? word(c, k, tgid) : NULL;
		if (w) {
			__sync_fetch_and_add(&w->waits, 1);
			__sync_fetch_and_add(&w->wait_ns, now - t->ts);
		}
	}

	if (ret >= 0) { /* futex_waitv returns the index of the woken word */
		ADD(c, wait_ok, 1);
		if (kind == K_WAIT) {
			if (ret == 0) {
				t->resleep_uaddr = t->uaddr;
				t->resleep_wakes = t->nwakes;
				t->resleep_at = now;
			}
			struct futexstat_wake_rec *lw = lw_slot(t->uaddr, tgid, ext);
			/* A wake that entered after this wait did (the slot's seq
			 * moved on) can have woken it; the latest such wake is
			 * taken to be the one. */
			__u64 seq = lw->seq;
			if (word_tag(lw->uaddr, lw->tgid, t->uaddr, tgid, ext) && seq != t->lw_seq) {
				t->by_uaddr = t->uaddr;
				t->by_seq = seq;
				t->by_tid = lw->tid;
				t->woken_at = now;
				t->woken = 1;
				node_pair(c, lw->node);
			}
		}
	} else if (ret == -EAGAIN) {
		ADD(c, wait_eagain, 1);
		if (kind == K_WAIT)
			eagain(c, t->uaddr, now, tgid, ext);
		if (w)
			__sync_fetch_and_add(&w->eagain, 1);
	} else if (ret == -ETIMEDOUT) {
		ADD(c, wait_timedout, 1);
		if (w)
			__sync_fetch_and_add(&w->timedout, 1);
	} else if (ret == -EINTR || (ret <= -ERESTARTSYS && ret >= -ERESTART_RESTARTBLOCK)) {
		ADD(c, wait_eintr, 1);
	} else {
		ADD(c, wait_err, 1);
	}
}

static __always_inline int do_futex_enter(struct trace_event_raw_sys_enter *ctx, const bool ext)
{
	__u32 tid, tgid;
	struct futexstat_counts *c = target(&tid, &tgid, ext);
	if (!c)
		return 0;
	struct futex_call f = { .uaddr = ctx->args[0], .tid = tid, .tgid = tgid,
				.priv = ctx->args[1] & FUTEX_PRIVATE_FLAG };
	int op = (int)ctx->args[1] & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	__u32 kind;
	switch (op) {
	case FUTEX_WAIT: ADD(c, op_wait, 1); kind = K_WAIT; break;
	case FUTEX_WAIT_BITSET: ADD(c, op_wait_bitset, 1); kind = K_WAIT; break;
	case FUTEX_WAKE: ADD(c, op_wake, 1); wake_begin(c, &f, ext); return 0;
	case FUTEX_WAKE_BITSET:
		ADD(c, op_other, 1);
		ADD(c, op_wake_bitset, 1);
		wake_begin(c, &f, ext);
		return 0;
	default: ADD(c, op_other, 1); other_call(c, tid); return 0;
	}
	wait_begin(c, kind, &f, ext);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex")
int futex_enter(struct trace_event_raw_sys_enter *ctx) { return do_futex_enter(ctx, false); }

SEC("tracepoint/syscalls/sys_enter_futex")
int futex_enter_x(struct trace_event_raw_sys_enter *ctx) { return do_futex_enter(ctx, true); }

/* Between reps (`active` clear) a target thread's wait can still end: its
 * state must not stay "inside a wait", or sched_wakeup would stamp it while
 * it sleeps elsewhere. Costs the target a lookup per exit between reps,
 * others a compare. (Not in follow mode, where the loader zeroes the table
 * at each start and wake-to-run trusts the slot tag: see the top.) */
static __always_inline void stale_end(const bool ext)
{
	if (follow(ext))
		return;
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
static __always_inline int do_futex_exit(struct trace_event_raw_sys_exit *ctx, const bool ext)
{
	__u32 tid, tgid;
	struct futexstat_counts *c = target(&tid, &tgid, ext);
	if (!c) {
		stale_end(ext);
		return 0;
	}
	if (in_wake(tid))
		wake_end(c, ctx->ret, tid, tgid, ext);
	else
		wait_end(c, ctx->ret, tid, tgid, ext);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex")
int futex_exit(struct trace_event_raw_sys_exit *ctx) { return do_futex_exit(ctx, false); }

SEC("tracepoint/syscalls/sys_exit_futex")
int futex_exit_x(struct trace_event_raw_sys_exit *ctx) { return do_futex_exit(ctx, true); }

static __always_inline int do_f2_wait_enter(struct trace_event_raw_sys_enter *ctx, const bool ext)
{
	__u32 tid, tgid;
	struct futexstat_counts *c = target(&tid, &tgid, ext);
	if (!c)
		return 0;
	ADD(c, f2_wait, 1);
	/* futex_wait(uaddr, val, mask, flags, ...) */
	struct futex_call f = { .uaddr = ctx->args[0], .tid = tid, .tgid = tgid,
				.priv = ctx->args[3] & FUTEX2_PRIVATE };
	wait_begin(c, K_WAIT, &f, ext);
	numa_enter(c, ctx->args[0], ctx->args[3], tid);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_wait")
int futex2_wait_enter(struct trace_event_raw_sys_enter *ctx) { return do_f2_wait_enter(ctx, false); }

SEC("tracepoint/syscalls/sys_enter_futex_wait")
int futex2_wait_enter_x(struct trace_event_raw_sys_enter *ctx) { return do_f2_wait_enter(ctx, true); }

static __always_inline int do_f2_wake_enter(struct trace_event_raw_sys_enter *ctx, const bool ext)
{
	__u32 tid, tgid;
	struct futexstat_counts *c = target(&tid, &tgid, ext);
	if (!c)
		return 0;
	ADD(c, f2_wake, 1);
	/* futex_wake(uaddr, mask, nr, flags) */
	struct futex_call f = { .uaddr = ctx->args[0], .tid = tid, .tgid = tgid,
				.priv = ctx->args[3] & FUTEX2_PRIVATE };
	wake_begin(c, &f, ext);
	numa_enter(c, ctx->args[0], ctx->args[3], tid);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_wake")
int futex2_wake_enter(struct trace_event_raw_sys_enter *ctx) { return do_f2_wake_enter(ctx, false); }

SEC("tracepoint/syscalls/sys_enter_futex_wake")
int futex2_wake_enter_x(struct trace_event_raw_sys_enter *ctx) { return do_f2_wake_enter(ctx, true); }

static __always_inline int do_f2_waitv_enter(const bool ext)
{
	__u32 tid, tgid;
	struct futexstat_counts *c = target(&tid, &tgid, ext);
	if (!c)
		return 0;
	ADD(c, f2_waitv, 1);
	struct futex_call f = { .uaddr = 0, .tid = tid, .tgid = tgid, .priv = true };
	wait_begin(c, K_WAITV, &f, ext);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_waitv")
int futex2_waitv_enter(struct trace_event_raw_sys_enter *ctx)
{
	(void)ctx;
	return do_f2_waitv_enter(false);
}

SEC("tracepoint/syscalls/sys_enter_futex_waitv")
int futex2_waitv_enter_x(struct trace_event_raw_sys_enter *ctx)
{
	(void)ctx;
	return do_f2_waitv_enter(true);
}

static __always_inline int do_f2_requeue_enter(const bool ext)
{
	__u32 tid, tgid;
	struct futexstat_counts *c = target(&tid, &tgid, ext);
	if (c) {
		ADD(c, f2_requeue, 1);
		other_call(c, tid);
	}
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_requeue")
int futex2_requeue_enter(struct trace_event_raw_sys_enter *ctx)
{
	(void)ctx;
	return do_f2_requeue_enter(false);
}

SEC("tracepoint/syscalls/sys_enter_futex_requeue")
int futex2_requeue_enter_x(struct trace_event_raw_sys_enter *ctx)
{
	(void)ctx;
	return do_f2_requeue_enter(true);
}

static __always_inline int f2_wait_exit(struct trace_event_raw_sys_exit *ctx, const bool ext)
{
	__u32 tid, tgid;
	struct futexstat_counts *c = target(&tid, &tgid, ext);
	if (c) {
		numa_exit(c, tid);
		wait_end(c, ctx->ret, tid, tgid, ext);
	} else {
		stale_end(ext);
	}
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex_wait")
int futex2_wait_exit(struct trace_event_raw_sys_exit *ctx) { return f2_wait_exit(ctx, false); }

SEC("tracepoint/syscalls/sys_exit_futex_wait")
int futex2_wait_exit_x(struct trace_event_raw_sys_exit *ctx) { return f2_wait_exit(ctx, true); }

SEC("tracepoint/syscalls/sys_exit_futex_waitv")
int futex2_waitv_exit(struct trace_event_raw_sys_exit *ctx) { return f2_wait_exit(ctx, false); }

SEC("tracepoint/syscalls/sys_exit_futex_waitv")
int futex2_waitv_exit_x(struct trace_event_raw_sys_exit *ctx) { return f2_wait_exit(ctx, true); }

static __always_inline int do_f2_wake_exit(struct trace_event_raw_sys_exit *ctx, const bool ext)
{
	__u32 tid, tgid;
	struct futexstat_counts *c = target(&tid, &tgid, ext);
	if (c) {
		in_wake(tid);
		numa_exit(c, tid);
		wake_end(c, ctx->ret, tid, tgid, ext);
	}
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex_wake")
int futex2_wake_exit(struct trace_event_raw_sys_exit *ctx) { return do_f2_wake_exit(ctx, false); }

SEC("tracepoint/syscalls/sys_exit_futex_wake")
int futex2_wake_exit_x(struct trace_event_raw_sys_exit *ctx) { return do_f2_wake_exit(ctx, true); }

/* io_uring futex requests never pass through a futex syscall: the only
 * kernel-side trace of them is the submission, with its opcode. The loader
 * does not load this program where the tracepoint does not exist. */
static __always_inline int do_uring_submit(struct trace_event_raw_io_uring_submit_req *ctx,
					   const bool ext)
{
	__u32 tid, tgid;
	struct futexstat_counts *c = target(&tid, &tgid, ext);
	if (!c)
		return 0;
	__u8 op = ctx->opcode;
	if (op >= IORING_OP_FUTEX_WAIT && op <= IORING_OP_FUTEX_WAITV)
		ADD(c, uring_futex, 1);
	return 0;
}

SEC("tracepoint/io_uring/io_uring_submit_req")
int uring_submit(struct trace_event_raw_io_uring_submit_req *ctx)
{
	return do_uring_submit(ctx, false);
}

SEC("tracepoint/io_uring/io_uring_submit_req")
int uring_submit_x(struct trace_event_raw_io_uring_submit_req *ctx)
{
	return do_uring_submit(ctx, true);
}

/* ---- wake-to-run (loaded only with wake_to_run) ----------------------- */

/* Whether task p belongs to the target: one load from its task_struct.
 * Before host_tgid is learned no target thread can be inside a wait the
 * collector saw enter, so nothing is lost by returning false. In follow
 * mode only `active`: the caller then tests the slot's tag, which only a
 * thread being counted holds (see the top). */
static __always_inline bool target_task(struct task_struct *p, const bool ext)
{
	if (follow(ext))
		return active;
	__u32 h = host_tgid;
	return active && h && (__u32)p->tgid == h;
}

static __always_inline int do_wtr_wakeup(struct task_struct *p, const bool ext)
{
	if (!target_task(p, ext))
		return 0;
	__u32 tid = (__u32)p->pid;
	struct futexstat_thread *t = tslot(tid);
	if (t->tid == tid && (t->kind == K_WAIT || t->kind == K_WAITV))
		t->wake_ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(wtr_wakeup, struct task_struct *p) { return do_wtr_wakeup(p, false); }

SEC("tp_btf/sched_wakeup")
int BPF_PROG(wtr_wakeup_x, struct task_struct *p) { return do_wtr_wakeup(p, true); }

static __always_inline int do_wtr_switch(struct task_struct *next, const bool ext)
{
	if (!target_task(next, ext))
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

SEC("tp_btf/sched_switch")
int BPF_PROG(wtr_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return do_wtr_switch(next, false);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(wtr_switch_x, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return do_wtr_switch(next, true);
}

/* ---- follow mode: the tree (loaded only with follow_children) ---------- */

/* Whether host tgid `tgid`, the current process (the forking parent), is
 * the target: as target() decides, learning host_tgid on the way. */
static __always_inline bool is_caller(__u32 tgid)
{
	__u32 h = host_tgid;
	if (h)
		return tgid == h;
	struct bpf_pidns_info ns = {};
	if (bpf_get_ns_current_pid_tgid(targ_ns_dev, targ_ns_ino, &ns, sizeof ns) ||
	    ns.tgid != targ_tgid)
		return false;
	host_tgid = tgid;
	return true;
}

/* Runs in the parent (current), after the child is fully set up and before
 * it first runs: no call of the child's can come before its entry. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(tree_fork, struct task_struct *parent, struct task_struct *child)
{
	if (!active)
		return 0;
	__u32 ptgid = (__u32)parent->tgid, ctgid = (__u32)child->tgid;
	if (ptgid == ctgid)
		return 0; /* a thread: its process is already in, or not */
	struct futexstat_counts *c;
	__u64 cg = cgroup_id;
	if (cg) {
		/* by cgroup: a process forked inside it, nothing followed. The
		 * child's cgroup, set before this event (cgroup_post_fork): the
		 * parent's, or the one clone3's CLONE_INTO_CGROUP named */
		c = BPF_CORE_READ(child, cgroups, dfl_cgrp, kn, id) == cg ? counts() : NULL;
		if (c)
			ADD(c, procs, 1);
		return 0;
	}
	if (!bpf_map_lookup_elem(&tree, &ptgid) && !is_caller(ptgid))
		return 0;
	c = counts();
	if (!c)
		return 0;
	__u32 one = 1;
	/* BPF_ANY: an entry for this tgid can only be stale (a process of an
	 * earlier rep whose exit fell between reps, when nothing deletes) */
	if (bpf_map_update_elem(&tree, &ctgid, &one, BPF_ANY))
		ADD(c, procs_lost, 1);
	else
		ADD(c, procs, 1);
	return 0;
}

/* By cgroup: a whole process moved into the cgroup (a write of its pid to
 * cgroup.procs; the program's first process joins this way after its fork,
 * before its exec) is one process more. A thread moved alone
 * (cgroup.threads) is not. */
SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(tree_join, struct cgroup *dst, const char *path, struct task_struct *task,
	     bool threadgroup)
{
	__u64 cg = cgroup_id;
	if (!active || !cg || !threadgroup || BPF_CORE_READ(dst, kn, id) != cg)
		return 0;
	struct futexstat_counts *c = counts();
	if (c)
		ADD(c, procs, 1);
	return 0;
}

/* Every exiting thread: frees its slot if it holds one (see the top); the
 * group's last one takes its process out of the tree. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(tree_exit, struct task_struct *p)
{
	if (!active)
		return 0;
	__u32 tid = (__u32)p->pid;
	struct futexstat_thread *t = tslot(tid);
	if (t->tid == tid) {
		t->tid = 0;
		t->kind = K_NONE;
		t->in_wake = 0;
		t->wake_ts = 0;
	}
	if (p->signal->live.counter == 0) {
		__u32 tgid = (__u32)p->tgid;
		bpf_map_delete_elem(&tree, &tgid);
	}
	return 0;
}
