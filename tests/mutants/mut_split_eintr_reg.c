/* tests/mutants/mut_split_eintr_reg.c — split whose interrupted waiter leaves its registration in waiters (see base_split.h). */
/* killed-by: edge left_no_registration */
#define MUT_EINTR_REG 1
#define MUT_NAME mut_split_eintr_reg
#include "tests/mutants/base_split.h"
