/* tests/mutants/ctl_musl_libc.c — control: musl's own semaphore after musl commit 882aedf6, must survive (see base_musl_libc.h). */
#define MUT_NAME ctl_musl_libc
#include "tests/mutants/base_musl_libc.h"
