/* variants/numa.c — negcount's algorithm sleeping on a FUTEX2_NUMA pair
 * whose node the kernel picks (Linux 6.16+).
 *
 * INVARIANT  Exactly negcount's (variants/negcount.c): `count` holds tokens
 *   when positive and unresolved claims when negative, `grants` the claims a
 *   post resolved whose owners have not left, and only `grants` is slept on.
 *   What changes is the futex: `grants` and the next word, `node`, are one
 *   FUTEX2_NUMA pair (lib/numa.h; struct fl_negcount puts them first, 8-byte
 *   aligned), so the waiters of `grants` queue in the hash table of the
 *   node `node` names instead of the process's private hash. Every
 *   ownership rule, ordering and the two-exit timeout carry over, because a
 *   sleep is still only a hint re-checked against `grants`: whatever the
 *   node, a wake that finds nobody and a return that was not a wake change
 *   no token.
 *
 * THE NODE  init writes FUTEX_NO_NODE; the first futex call on the pair —
 *   a wait or a wake, get_futex_key handles both alike — finds it, takes
 *   the calling CPU's node and stores it back. From then on `node` holds a
 *   node and every call passes the pair as it is; nothing of ours writes
 *   `node` after init. Post does not read or fix the node: it hands the
 *   pair to futex_wake as is (post's node check below only refuses a value
 *   the kernel would refuse).
 *   One node (this machine): every store-back writes node 0, so every call,
 *   whenever it reads `node`, hashes to node 0's table: waiter and waker
 *   always meet, and the futex contract (the value compared under the
 *   bucket lock the wake also takes) is negcount's.
 *   The race asked about: a post lands between a waiter's claim (its
 *   fetch_sub on count) and its futex_wait's store-back, while `node` is
 *   still FUTEX_NO_NODE. Its futex_wake reads FUTEX_NO_NODE, hashes to the
 *   WAKER's node and stores that back; the waiter's wait then reads the
 *   waker's node — or, if the waiter's own get_futex_key read FUTEX_NO_NODE
 *   too, its own. Same node: they meet (either the grant is already in
 *   `grants`, EAGAIN, or the sleeper is queued where the wake looks, the
 *   plain futex argument). Different nodes, two CPUs racing both read
 *   FUTEX_NO_NODE: the kernel's store-back is a plain store, not a CAS, so
 *   the pair ends naming the last writer's node, and a sleeper may sit on
 *   the loser's node where no wake will look; a third thread reading the
 *   node between the two stores may sleep there too. Neither can be ruled
 *   out from user space (the stores are the kernel's), so on a machine of
 *   more than one possible node the design bounds every sleep instead —
 *   a waiter may be one of the racing writers or the third thread — to
 *   FL_NUMA_SETTLE_SLICE_NS, then re-checks `grants` as after any wakeup
 *   and sleeps again with the node as it now is (lib/numa.c, the
 *   backends). A wake missed that way costs one slice, never a token.
 *   What the slices cost there besides wakeups: a signal whose handler
 *   runs between two slices interrupts no sleep, so that wait goes on
 *   instead of returning EINTR (POSIX's "may fail"; the edge test `eintr`
 *   would see it). On one node (this machine) no sleep is bounded: every
 *   store-back writes the same node, there is no race to bound — and a
 *   first version, which bounded the sleeps before the first store-back on
 *   one node too, failed edge `eintr` under ASan for exactly that reason.
 *   numa-pin.c removes the race instead (the node set at init, the kernel
 *   never writes it).
 *
 * DESTRUCTION (negcount.c's argument, and one thing more)  A wake that
 *   finds FUTEX_NO_NODE makes the kernel STORE into the pair. negcount's
 *   post wakes after the grant add, when the claimant may already have
 *   destroyed and unmapped the semaphore and the memory may belong to
 *   someone else: a store there, if that word happened to read
 *   0xffffffff, would corrupt a stranger's memory (a fault is harmless: the
 *   kernel reports EFAULT, read as nobody woken). So post settles the node
 *   first: a post that reads FUTEX_NO_NODE, before its count add — the
 *   semaphore is surely live then — makes one wake of 1 (fl_numa_post),
 *   whose get_futex_key stores the poster's node back (a spurious wake
 *   for a sleeper if there were one, which it re-checks; there is none in
 *   practice: a sleep stores the node itself). The node is never
 *   FUTEX_NO_NODE again, so the wake after the grant add only reads it.
 *   One syscall per semaphore, on its first post before any sleep.
 *
 * ORDERING  negcount's, argued there, unchanged: post's add on count is
 *   release and the claim's sub acquire; the grant add is release, taking a
 *   grant an acquire CAS. `node` is read relaxed: it orders nothing — it
 *   only picks a bound or is refused, and the kernel reads it itself.
 *
 * ERRORS  init refuses a state that is not 8-byte aligned (EINVAL: the
 *   kernel would refuse every call on it). Post refuses a `node` that is
 *   neither FUTEX_NO_NODE nor a possible node before it adds anything
 *   (EINVAL, value unchanged): only a caller that wrote the semaphore's
 *   bytes can cause it; a wait sleeping on such a pair gets EINVAL and
 *   leaves by exit 2 (negcount's abandon). The reason is in
 *   fl_futex2_numa_why().
 *
 * WHAT IT LACKS  `.any` (wait-any of N): negcount_any sleeps through
 *   futex_waitv on words without FUTEX2_NUMA, in another hash than the
 *   wakes of this design — it would lose wakeups, so none is offered. */
#include <errno.h>
#include <stdint.h>

#include "lib/numa.h"
#include "variants/negcount.h"
#include "variants/variant.h"

int fl_numa_init_on(void *p, unsigned value, int pshared, const struct fl_waitaddr *wa,
		    uint32_t node)
{
	struct fl_negcount *s = p;
	if (fl_futex2_numa_check_align(&s->grants))
		return EINVAL;
	int r = fl_negcount_init_on(p, value, pshared, wa);
	if (r == 0)
		atomic_init(&s->node, node);
	return r;
}

/* DESTRUCTION: the settle wake runs before the count add, on a semaphore
 * the caller still holds; the node read is relaxed (a stale FUTEX_NO_NODE
 * costs one extra settle wake; a node read once set is set for good, and
 * the kernel's later read in this thread cannot see an older value). */
int fl_numa_post(void *p, unsigned n)
{
	struct fl_negcount *s = p;
	if (fl_futex2_numa_check_node(&s->grants))
		return EINVAL;
	if (atomic_load_explicit(&s->node, memory_order_relaxed) == FL_FUTEX_NO_NODE)
		fl_negcount_wa(s)->wake(&s->grants, 1, s->shared);
	return fl_negcount_post(p, n);
}

static int numa_init(void *p, unsigned value, int pshared)
{
	return fl_numa_init_on(p, value, pshared, &fl_wa_futex2_numa, FL_FUTEX_NO_NODE);
}

FL_VARIANT(numa, struct fl_negcount,
	.text = "src:numa.c,negcount.c,policy.c;sym:fl_negcount_,fl_numa_,fl_futex2_,fl_notify,fl_wait,fl_timedwait;dsym:libc.so.6:syscall", /* hunt: its code (variant.h) */
	.summary = "negcount on a FUTEX2_NUMA pair, node FUTEX_NO_NODE: the kernel picks it and writes it back (6.16+)",
	.unavailable = fl_futex2_numa_unavailable,
	.init = numa_init, FL_NEGCOUNT_OPS_BUT_POST, .post = fl_numa_post,
	.word_flags = FUTEX2_NUMA);
