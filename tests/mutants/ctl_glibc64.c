/* tests/mutants/ctl_glibc64.c — control: the unmutated glibc64 copy, must survive (see base_glibc64.h). */
#define MUT_NAME ctl_glibc64
#include "tests/mutants/base_glibc64.h"
