/* tests/mutants/mut_glibc64_eintr_reg.c — an interrupted waiter leaves its registration behind (see base_glibc64.h). */
/* killed-by: edge left_no_registration */
#define MUT_EINTR_REG 1
#define MUT_NAME mut_glibc64_eintr_reg
#include "tests/mutants/base_glibc64.h"
