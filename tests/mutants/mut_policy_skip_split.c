/* tests/mutants/mut_policy_skip_split.c — the waiting policy's skip mutant
 * (variants/policy.c, FL_POLICY_MUTANTS): after its tries it returns 0
 * without calling the design's wait — a token nobody gave. Over the
 * unmutated split copy (base_split.h), under spin:100. */
/* killed-by: torture conservation */
/* policy: spin:100 */
#define MUT_NAME mut_policy_skip_split
#include "tests/mutants/base_split.h"
