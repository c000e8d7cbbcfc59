/* tests/mutants/mut_neg_spin_credit.c — negcount whose spin takes a token it
 * lost to another taker: two holders of one token (see base_negcount.h). */
/* killed-by: exclusion exclusion */
#define MUT_SPIN_CREDIT 1
#define MUT_NAME mut_neg_spin_credit
#include "tests/mutants/base_negcount.h"
