/* variants/numa-pin.c — negcount's algorithm on a FUTEX2_NUMA pair whose
 * node is the creator's, set at init (Linux 6.16+).
 *
 * INVARIANT  numa's (variants/numa.c), and so negcount's: the same words,
 *   the same pair (`grants`, `node`), the same orderings and errors. The one
 *   difference is who names the node: init writes the node of the CPU the
 *   creating thread runs on (getcpu(2)), checked to be a possible node, so
 *   `node` is never FUTEX_NO_NODE and the kernel never stores into it —
 *   every wait and every wake, on any CPU, reads the one node init wrote
 *   and hashes to its table. numa's store-back race (two first callers on
 *   different nodes, numa.c THE NODE) cannot happen, so no sleep needs a
 *   bound, on any machine (lib/numa.c: the `numa_pinned` backend bounds a
 *   sleep only on a pair reading FUTEX_NO_NODE on a machine of more than
 *   one node, which only bytes written by someone else than init can hold).
 *
 * WHAT IT TRADES  The waiters of a semaphore queue on its creator's node
 *   whatever node they run on: remote bucket locks for the others. The
 *   creator may have migrated by the first wait; the node is a placement
 *   hint, never a correctness question. Process-shared: the node is in the
 *   bytes, so every process that maps them agrees. No `.any` (numa.c). */
#include "lib/numa.h"
#include "variants/negcount.h"
#include "variants/variant.h"

static int pin_init(void *p, unsigned value, int pshared)
{
	return fl_numa_init_on(p, value, pshared, &fl_wa_futex2_numa_pinned,
			       fl_numa_this_node());
}

FL_VARIANT_AS(numa_pin, "numa-pin", struct fl_negcount,
	.text = "src:numa-pin.c,numa.c,negcount.c,policy.c;sym:fl_negcount_,fl_numa_,fl_futex2_,fl_notify,fl_wait,fl_timedwait;dsym:libc.so.6:syscall", /* hunt: its code (variant.h) */
	.summary = "negcount on a FUTEX2_NUMA pair whose node is the creator's, set at init (6.16+)",
	.unavailable = fl_futex2_numa_unavailable,
	.init = pin_init, FL_NEGCOUNT_OPS_BUT_POST, .post = fl_numa_post,
	.word_flags = FUTEX2_NUMA);
