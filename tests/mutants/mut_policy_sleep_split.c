/* tests/mutants/mut_policy_sleep_split.c — the waiting policy's sleep mutant
 * (variants/policy.c, FL_POLICY_MUTANTS): after its tries it sleeps on the
 * design's word (v->words) with the value it read there, outside the
 * design's wait, then re-tries — unregistered, so a post owes it no wake.
 * Over the unmutated split copy (base_split.h), under spin:100. */
/* killed-by: torture drain */
/* policy: spin:100 */
#define MUT_NAME mut_policy_sleep_split
#include "tests/mutants/base_split.h"
