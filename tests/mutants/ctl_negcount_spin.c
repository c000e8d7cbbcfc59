/* tests/mutants/ctl_negcount_spin.c — control: the unmutated negcount copy under
 * the spin:100 waiting policy (variants/policy.h), must survive every suite
 * there: the policy mutants' kills are judged against it (see base_negcount.h). */
/* policy: spin:100 */
#define MUT_NAME ctl_negcount_spin
#include "tests/mutants/base_negcount.h"
