/* lib/prctl.h — the futex hash of the process: prctl(PR_FUTEX_HASH).
 *
 * Linux 6.16 gave each process the option of a private futex hash instead
 * of the one global hash shared by the whole machine (kernel/futex/core.c):
 *   prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, N, 0)  N a power of two
 *        >= 2: a private hash of N buckets; N = 0: the global hash, and
 *        then for good — a later SET_SLOTS fails with EBUSY, so each mode
 *        is measured in a process of its own;
 *   prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0)  the buckets of the
 *        private hash, 0 while the process uses the global one.
 * Without a SET, the kernel sizes a private hash itself when the process
 * creates its first thread and grows it with the thread count ("auto": 16
 * buckets for a handful of threads on 2 cores); a process that never
 * created a thread uses the global hash. Pre-release kernels had an
 * "immutable" flag in the fourth argument (FH_FLAG_IMMUTABLE, and a
 * GET_IMMUTABLE = 3); it was removed before 6.16 shipped — released kernels
 * answer EINVAL to both, so it is not offered. Kernels before 6.16 answer
 * EINVAL to PR_FUTEX_HASH itself.
 *
 * The constants are defined here: the 6.1 headers of Debian 12 lack them. */
#ifndef FUTEXLAB_PRCTL_H
#define FUTEXLAB_PRCTL_H

#include <stddef.h>

#ifndef PR_FUTEX_HASH
#define PR_FUTEX_HASH 78
#define PR_FUTEX_HASH_SET_SLOTS 1
#define PR_FUTEX_HASH_GET_SLOTS 2
#endif

#define FL_HASH_SLOTS_MAX (1UL << 30)

/* 0 or an errno value. */
int fl_futex_hash_set_slots(unsigned long slots);
/* The private hash's bucket count (0: global hash), or -errno. */
long fl_futex_hash_get_slots(void);

enum fl_hash_kind { FL_HASH_AUTO, FL_HASH_GLOBAL, FL_HASH_PRIVATE };
struct fl_hash_mode {
	enum fl_hash_kind kind;
	unsigned long slots;     /* FL_HASH_PRIVATE: requested buckets */
};

/* "auto", "global" or "private:N" (N a power of two in [2, 2^30]). NULL on
 * success, else a one-line reason (for a usage error). */
const char *fl_hash_parse(const char *s, struct fl_hash_mode *m);
/* The mode as text, as parsed: "auto", "global", "private:16". */
void fl_hash_name(const struct fl_hash_mode *m, char *buf, size_t n);
/* Applies the mode to this process; call before any thread is created.
 * 0, or an errno value with `why` set to a one-line reason (kernel too old,
 * the kernel refused the size, ...). "auto" applies nothing: 0. */
int fl_hash_apply(const struct fl_hash_mode *m, char *why, size_t n);
/* What the kernel reports now, as text: "global", "private:N", or for
 * "auto" "auto:N" (N buckets of the kernel-sized hash, 0 = global hash so
 * far) — plain "auto" on a kernel without PR_FUTEX_HASH. */
void fl_hash_read_back(const struct fl_hash_mode *m, char *buf, size_t n);

#endif
