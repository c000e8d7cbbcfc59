/* tests/mutants/mut_musl_getvalue.c — musl-like getvalue ignoring pending wakes (see base_musl.h). */
/* killed-by: torture conservation */
#define MUT_GETVALUE 1
#define MUT_NAME mut_musl_getvalue
#include "tests/mutants/base_musl.h"
