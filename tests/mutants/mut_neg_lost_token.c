/* tests/mutants/mut_neg_lost_token.c — negcount reporting a timeout after losing the claim CAS (see base_negcount.h). */
/* killed-by: conformance release_vs_deadline */
#define MUT_LOST_TOKEN 1
#define MUT_NAME mut_neg_lost_token
#include "tests/mutants/base_negcount.h"
