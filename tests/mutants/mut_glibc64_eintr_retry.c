/* tests/mutants/mut_glibc64_eintr_retry.c — a wait interrupted by a signal
 * sleeps again instead of returning EINTR (see base_glibc64.h), judged by
 * the promises suite through the shim (tests/shim/promises.c eintr). */
/* killed-by: promises eintr */
#define MUT_EINTR_RETRY 1
#define MUT_NAME mut_glibc64_eintr_retry
#include "tests/mutants/base_glibc64.h"
