/* tests/mutants/mut_neg_eintr_claim.c — negcount returning EINTR with its claim left behind (see base_negcount.h). */
/* killed-by: edge eintr */
#define MUT_EINTR_CLAIM 1
#define MUT_NAME mut_neg_eintr_claim
#include "tests/mutants/base_negcount.h"
