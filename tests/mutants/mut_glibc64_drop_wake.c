/* tests/mutants/mut_glibc64_drop_wake.c — glibc64 whose first post owing a
 * wake skips it: one lost wakeup (see base_glibc64.h, MUT_DROP_WAKE). */
/* killed-by: edge huge_deadlines */
#define MUT_NAME mut_glibc64_drop_wake
#define MUT_DROP_WAKE
#include "tests/mutants/base_glibc64.h"
