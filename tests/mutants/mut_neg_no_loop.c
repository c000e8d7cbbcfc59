/* tests/mutants/mut_neg_no_loop.c — negcount whose wait does not loop after a wakeup (see base_negcount.h). */
/* killed-by: edge spurious_wakes */
#define MUT_NO_LOOP 1
#define MUT_NAME mut_neg_no_loop
#include "tests/mutants/base_negcount.h"
