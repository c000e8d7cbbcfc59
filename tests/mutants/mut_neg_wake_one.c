/* tests/mutants/mut_neg_wake_one.c — negcount waking one when several claims are owed (see base_negcount.h). */
/* killed-by: edge post_n_sleepers */
#define MUT_WAKE_ONE 1
#define MUT_NAME mut_neg_wake_one
#include "tests/mutants/base_negcount.h"
