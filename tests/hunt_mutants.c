/* tests/hunt_mutants.c — `futexlab hunt` over designs the product does not
 * register: a mutant of negcount made by tests/mutants/ (variants/negcount.c
 * patched at build time: mut_neg_wake_one.mut) and its unmutated control
 * (ctl_negcount.mut), found by name before the registry's
 * (harness/commands.h).
 * Same options and output as `futexlab hunt`; tests/test_hunt.sh runs it:
 * the hunt must find the mutant that drops a wake, and not its control. */
#include "harness/commands.h"

extern const struct fl_variant fl_variant_mut_neg_wake_one, fl_variant_ctl_negcount;

int main(int argc, char **argv)
{
	static const struct fl_variant *const extra[] = {
		&fl_variant_mut_neg_wake_one,
		&fl_variant_ctl_negcount,
	};
	return fl_hunt_main(argc, argv, extra, sizeof extra / sizeof extra[0]);
}
