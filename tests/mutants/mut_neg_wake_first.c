/* tests/mutants/mut_neg_wake_first.c — negcount whose post wakes before it publishes the grant (see base_negcount.h). */
/* killed-by: edge huge_deadlines */
#define MUT_WAKE_FIRST 1
#define MUT_NAME mut_neg_wake_first
#include "tests/mutants/base_negcount.h"
