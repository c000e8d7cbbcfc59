/* tests/mutants/mut_split_weak.c — split with the seq_cst pair weakened (store-buffer bug) (see base_split.h). */
/* killed-by: edge handoff */
#define MUT_WEAK 1
#define MUT_NAME mut_split_weak
#include "tests/mutants/base_split.h"
