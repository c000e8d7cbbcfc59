/* tests/mutants/mut_musl_aba.c — musl before 159d1f6c: the -1 waiters state and a stale waiter count (ABA, missed wake) (see base_musl_libc.h). */
/* killed-by: edge stale_post */
#define MUT_ABA 1
#define MUT_NAME mut_musl_aba
#include "tests/mutants/base_musl_libc.h"
