/* tests/mutants/ctl_split_spin.c — control: the unmutated split copy under
 * the spin:100 waiting policy (variants/policy.h), must survive every suite
 * there: the policy mutants' kills are judged against it (see base_split.h). */
/* policy: spin:100 */
#define MUT_NAME ctl_split_spin
#include "tests/mutants/base_split.h"
