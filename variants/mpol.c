/* variants/mpol.c — negcount's algorithm on a FUTEX2_NUMA | FUTEX2_MPOL
 * pair: the node is the one the memory policy of the semaphore's page
 * prefers, set at init with mbind(2) (Linux 6.16+).
 *
 * INVARIANT  numa's (variants/numa.c), and so negcount's: the same words,
 *   the same pair (`grants`, `node`), orderings and errors. What differs is
 *   where the node comes from. init writes FUTEX_NO_NODE into `node` and
 *   gives the page(s) holding the pair the policy MPOL_PREFERRED on the
 *   creating CPU's node (raw mbind; fl_numa_prefer). With FUTEX2_MPOL the
 *   kernel, finding FUTEX_NO_NODE, asks the policy of the word's mapping
 *   first (futex_mpol: MPOL_PREFERRED's node, or a bind's home node) and
 *   only without one takes the calling CPU's node; FUTEX2_NUMA then stores
 *   the node back into the pair (get_futex_key).
 *
 * WHY FUTEX2_NUMA TOO  FUTEX2_MPOL alone keeps a one-word futex and asks
 *   the mapping's policy on every call, wait and wake alike. Then a policy
 *   that changes while a waiter sleeps — the program's own mbind on that
 *   page, or another mpol semaphore's init on the same page from a CPU of
 *   another node (mbind works on whole pages) — sends the next wake to
 *   another node's table than the sleeper's: a lost wakeup nothing in the
 *   word can detect. With the pair the policy is consulted once, by the
 *   first call that finds FUTEX_NO_NODE, and the node is latched in the
 *   pair: later policy changes move nothing. And the store-back race of
 *   numa (numa.c THE NODE: two first callers on different CPUs both store)
 *   is harmless here in the common case, because every racer computes the
 *   node from the same policy, not from its own CPU: they store the same
 *   value. Only if the policy is gone or changed mid-race do racers
 *   disagree, so on a machine of more than one node a sleep is bounded
 *   while the pair reads FUTEX_NO_NODE (lib/numa.c, the `mpol` backend;
 *   numa.c says what a bound costs: a handler between two slices is no
 *   EINTR); once the node is latched no sleep is bounded, and on one node
 *   none ever is (every racer stores node 0).
 *
 * WHAT IT COSTS THE CALLER  The policy stays on the page after destroy (it
 *   may hold other semaphores of this design, and the policy it replaced is
 *   not ours to restore): the caller's other data on that page is then
 *   allocated preferably on the creator's node — a placement hint, like
 *   all of MPOL_PREFERRED. Where mbind fails (a seccomp filter's EPERM, a
 *   kernel without CONFIG_NUMA: unavailable() says so first), init fails
 *   with EINVAL, the reason in fl_futex2_numa_why(). A process-shared
 *   semaphore in a shmem mapping gets the object's shared policy; in bytes
 *   that are copied elsewhere after init (a file written, then mapped) the
 *   policy stays behind with the copy's source: the latched node then
 *   comes from the first caller's CPU, as in numa. No `.any` (numa.c). */
#include <errno.h>
#include <string.h>

#include "lib/numa.h"
#include "variants/negcount.h"
#include "variants/variant.h"

static int mpol_init(void *p, unsigned value, int pshared)
{
	struct fl_negcount *s = p;
	int r = fl_numa_init_on(p, value, pshared, &fl_wa_futex2_mpol, FL_FUTEX_NO_NODE);
	if (r)
		return r;
	uint32_t node = fl_numa_this_node();
	int e = fl_numa_prefer(&s->grants, 2 * sizeof(uint32_t), node);
	if (e) {
		/* a reason in the wrapper's channel, the caller's errno EINVAL */
		fl_futex2_numa_note("mbind(MPOL_PREFERRED, node %u) on the semaphore's page "
				    "failed: %s: EINVAL", node, strerror(e));
		return EINVAL;
	}
	return 0;
}

FL_VARIANT(mpol, struct fl_negcount,
	.text = "src:mpol.c,numa.c,negcount.c,policy.c;sym:fl_negcount_,fl_numa_,fl_futex2_,fl_notify,fl_wait,fl_timedwait;dsym:libc.so.6:syscall", /* hunt: its code (variant.h) */
	.summary = "negcount on a FUTEX2_NUMA|FUTEX2_MPOL pair: the node the page's mbind policy prefers, latched by the kernel (6.16+)",
	.unavailable = fl_futex2_mpol_unavailable,
	.init = mpol_init, FL_NEGCOUNT_OPS_BUT_POST, .post = fl_numa_post,
	.word_flags = FUTEX2_NUMA | FUTEX2_MPOL);
