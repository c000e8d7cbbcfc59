/* tests/mutants/ctl_split.c — control: the unmutated split copy, must survive (see base_split.h). */
#define MUT_NAME ctl_split
#include "tests/mutants/base_split.h"
