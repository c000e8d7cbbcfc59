/* tests/mutants/mut_policy_credit_neg.c — the waiting policy's credit mutant
 * (variants/policy.c, FL_POLICY_MUTANTS): a try of the policy's that saw a
 * token and lost it to another taker returns success anyway — two holders
 * of one token, and the release posts a token more. Over the unmutated
 * negcount copy (base_negcount.h), under spin:100. (Was
 * mut_neg_spin_credit, the same bug in negcount's own spin, which the
 * policy replaced.) */
/* killed-by: exclusion exclusion */
/* policy: spin:100 */
#define MUT_NAME mut_policy_credit_neg
#include "tests/mutants/base_negcount.h"
