/* tests/mutants/mut_neg_no_clamp.c — negcount without the overflow clamp (see base_negcount.h). */
/* killed-by: conformance overflow */
#define MUT_NO_CLAMP 1
#define MUT_NAME mut_neg_no_clamp
#include "tests/mutants/base_negcount.h"
