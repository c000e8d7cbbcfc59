/* tests/mutants/mut_musl_wake_bit.c — musl between 159d1f6c and 882aedf6: post wakes only on the waiters bit (see base_musl_libc.h). */
/* killed-by: edge steal_and_unmap */
#define MUT_WAKE_BIT 1
#define MUT_NAME mut_musl_wake_bit
#include "tests/mutants/base_musl_libc.h"
