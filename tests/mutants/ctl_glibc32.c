/* tests/mutants/ctl_glibc32.c — control: glibc's sem_t without 64-bit atomics, must survive (see base_glibc32.h). */
#define MUT_NAME ctl_glibc32
#include "tests/mutants/base_glibc32.h"
