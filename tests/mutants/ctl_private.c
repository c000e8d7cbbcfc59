/* tests/mutants/ctl_private.c — control: negcount that refuses process-shared semaphores (ENOTSUP), must survive (see base_negcount.h). */
#define PRIVATE_ONLY 1
#define MUT_NAME ctl_private
#include "tests/mutants/base_negcount.h"
