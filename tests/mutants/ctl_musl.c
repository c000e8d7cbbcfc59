/* tests/mutants/ctl_musl.c — control: the unmutated musl-like design, must survive (see base_musl.h). */
#define MUT_NAME ctl_musl
#include "tests/mutants/base_musl.h"
