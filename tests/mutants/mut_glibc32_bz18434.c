/* tests/mutants/mut_glibc32_bz18434.c — glibc BZ 18434: the overflow test shifted the wrong way, post at SEM_VALUE_MAX wraps (see base_glibc32.h). */
/* killed-by: conformance overflow */
#define MUT_BZ18434 1
#define MUT_NAME mut_glibc32_bz18434
#include "tests/mutants/base_glibc32.h"
