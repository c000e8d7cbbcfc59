/* lib/numa.h — FUTEX2_NUMA / FUTEX2_MPOL futexes (Linux 6.16+) and the few
 * NUMA facts their users need: the possible nodes, the calling CPU's node,
 * a preferred-node memory policy on a page. Raw syscalls, no libnuma.
 *
 * THE PAIR  With FUTEX2_NUMA a 32-bit futex is two words, 8-byte aligned:
 *   pair[0] the value compared and slept on, pair[1] the node whose hash
 *   table holds its waiters. FL_FUTEX_NO_NODE in pair[1] makes the kernel
 *   pick the node itself — with FUTEX2_MPOL the node of the word's memory
 *   policy (MPOL_PREFERRED's node, or a bind's home node) when there is
 *   one, else the calling CPU's — and store it back into pair[1]. It does
 *   so in a wait and in a wake alike (get_futex_key, kernel/futex/core.c),
 *   with a plain store, not a compare-and-swap: two calls that both read
 *   FL_FUTEX_NO_NODE on different nodes both write, the last one wins.
 *   A node that is set is passed as it is (never rewritten); one that is
 *   neither FL_FUTEX_NO_NODE nor a possible node is refused.
 *
 * ERRORS  The kernel's, each with one line in fl_futex2_numa_why() (per
 *   thread, the last failure's): a pair not 8-byte aligned (EINVAL: checked
 *   here, before any syscall), a node neither FL_FUTEX_NO_NODE nor a
 *   possible node (EINVAL: from the kernel here, since the wrapper may not
 *   read memory the caller passed; fl_futex2_numa_check_node checks it
 *   first for a caller that knows its pair is readable), and memory the
 *   kernel cannot read, or read-only where it must write the node back
 *   (EFAULT). The results otherwise follow futex2.h. */
#ifndef FUTEXLAB_NUMA_H
#define FUTEXLAB_NUMA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#ifndef FUTEX2_NUMA
#define FUTEX2_NUMA 0x04
#endif
#ifndef FUTEX2_MPOL
#define FUTEX2_MPOL 0x08
#endif
#define FL_FUTEX_NO_NODE 0xffffffffu
#define FL_NUMA_PAIR_ALIGN 8

/* The possible nodes (/sys/devices/system/node/possible; node 0 alone
 * without it): 1 + the highest, and whether one is possible. */
int fl_numa_nodes(void);
bool fl_numa_node_possible(uint32_t node);
/* The node of the CPU the caller runs on now (getcpu(2)). */
uint32_t fl_numa_this_node(void);
/* MPOL_PREFERRED on `node` for the pages covering [addr, addr + len)
 * (mbind(2)): 0 or the errno. What get_mempolicy(MPOL_F_ADDR) says about
 * addr: 0 with *node set when its policy is MPOL_PREFERRED, ENOENT for
 * another policy, else the errno. */
int fl_numa_prefer(void *addr, size_t len, uint32_t node);
int fl_numa_preferred_at(void *addr, uint32_t *node);

/* 0 if pair is 8-byte aligned, else EINVAL (reason set). */
int fl_futex2_numa_check_align(const void *pair);
/* 0 if pair[1] is FL_FUTEX_NO_NODE or a possible node, else EINVAL
 * (reason set). Reads pair[1]: for a caller whose pair is readable. */
int fl_futex2_numa_check_node(const _Atomic uint32_t *pair);
/* futex_wait / futex_wake on a pair, FUTEX2_SIZE_U32 | FUTEX2_NUMA, plus
 * FUTEX2_MPOL if mpol, private unless shared. wait: 0, EAGAIN, EINTR,
 * ETIMEDOUT, EINVAL (bad deadline, misaligned pair, node refused), EFAULT;
 * wake: the number woken, or -EINVAL / -EFAULT. */
int fl_futex2_numa_wait(_Atomic uint32_t *pair, uint32_t expected,
			const struct timespec *abs_deadline, bool mpol, bool shared);
int fl_futex2_numa_wake(_Atomic uint32_t *pair, int n, bool mpol, bool shared);
/* The calling thread's last failure, one line ("" if none); _note sets
 * it, for a caller that reports a failure of its own in this channel. */
const char *fl_futex2_numa_why(void);
void fl_futex2_numa_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* NULL when the running kernel takes FUTEX2_NUMA (…|FUTEX2_MPOL, and
 * mbind) here, else a one-line reason; probed once. */
const char *fl_futex2_numa_unavailable(void);
const char *fl_futex2_mpol_unavailable(void);

/* Wait-on-address backends over a pair whose value word is the address
 * (waitaddr.h), for the FUTEX2_NUMA designs (variants/numa.c says why a
 * sleep is bounded when): on a machine of more than one possible node,
 * `numa` bounds every sleep, `numa_pinned` and `mpol` (FUTEX2_MPOL) a
 * sleep while the pair reads FL_FUTEX_NO_NODE; on one node none.
 * A bad pair is EINVAL from wait and nobody woken from wake, the reason
 * in fl_futex2_numa_why(). */
#include "lib/waitaddr.h"
extern const struct fl_waitaddr fl_wa_futex2_numa;
extern const struct fl_waitaddr fl_wa_futex2_numa_pinned;
extern const struct fl_waitaddr fl_wa_futex2_mpol;
/* The bound of such a sleep: a missed wake costs at most this. */
#define FL_NUMA_SETTLE_SLICE_NS 2000000

#endif
