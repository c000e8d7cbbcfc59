/* tests/mutants/mut_split_wake_first.c — split whose post wakes before it publishes the count (see base_split.h). */
/* killed-by: edge huge_deadlines */
#define MUT_WAKE_FIRST 1
#define MUT_NAME mut_split_wake_first
#include "tests/mutants/base_split.h"
