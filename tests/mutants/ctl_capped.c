/* tests/mutants/ctl_capped.c — control: the negative-counter note's capped
 * semaphore (capacity 2), must survive (see base_negcount.h). */
#define CAPPED 1
#define MUT_NAME ctl_capped
#include "tests/mutants/base_negcount.h"
