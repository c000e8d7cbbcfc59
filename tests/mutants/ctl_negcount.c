/* tests/mutants/ctl_negcount.c — control: the unmutated negcount copy, must survive (see base_negcount.h). */
#define MUT_NAME ctl_negcount
#include "tests/mutants/base_negcount.h"
