/* tests/mutants/mut_glibc64_bz12674_shim.c — glibc BZ 12674 again (the same
 * code as mut_glibc64_bz12674, see base_glibc64.h), judged by the promises
 * suite through the LD_PRELOAD shim: a POSIX program's waiter destroys and
 * unmaps the semaphore while the post has not returned (tests/shim/promises.c
 * destroy-private; the race window after the publishing CAS lands it within
 * the first iterations). */
/* killed-by: promises destroy-private */
#define MUT_BZ12674 1
#define MUT_NAME mut_glibc64_bz12674_shim
#include "tests/mutants/base_glibc64.h"
