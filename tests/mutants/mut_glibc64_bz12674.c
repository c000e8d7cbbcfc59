/* tests/mutants/mut_glibc64_bz12674.c — glibc BZ 12674: post reads the waiter count and the private flag after publishing the token (see base_glibc64.h). */
/* killed-by: edge destruction */
#define MUT_BZ12674 1
#define MUT_NAME mut_glibc64_bz12674
#include "tests/mutants/base_glibc64.h"
