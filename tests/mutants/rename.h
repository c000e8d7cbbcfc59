/* tests/mutants/rename.h — a mutant's own names for what its design exports.
 *
 * Every generated mutant (tests/mutants/make-mutant) starts with
 * `#define FL_MUTANT NAME` and this header, then its design's text. The
 * descriptor is renamed by FL_VARIANT itself (variants/variant.h); a design
 * that exports functions — negcount.c's fl_negcount_*, and negcount_any.c's
 * wait-any hooks, compiled beside each negcount mutant under the same names
 * — would define them once per mutant in one library, and beside the
 * product's own in a program that links both (tests/hunt_mutants.c). So
 * each is renamed here to NAME_<mutant>, e.g. fl_negcount_post_mut_neg_no_loop.
 *
 * The list is negcount.c's and negcount_any.c's exported names. A function
 * a design starts exporting and this list lacks fails the link of the
 * mutants (a duplicate symbol, one definition per mutant, or one beside the
 * product's): add its name here. */
#ifndef FUTEXLAB_MUTANT_RENAME_H
#define FUTEXLAB_MUTANT_RENAME_H

#ifndef FL_MUTANT
#error "tests/mutants/rename.h: define FL_MUTANT (the mutant's name) first"
#endif

#define FL_MUTANT_NAME_(f, m) f##_##m
#define FL_MUTANT_NAME(f, m)  FL_MUTANT_NAME_(f, m)

/* variants/negcount.c */
#define fl_negcount_wa                FL_MUTANT_NAME(fl_negcount_wa, FL_MUTANT)
#define fl_negcount_init_on           FL_MUTANT_NAME(fl_negcount_init_on, FL_MUTANT)
#define fl_negcount_destroy           FL_MUTANT_NAME(fl_negcount_destroy, FL_MUTANT)
#define fl_negcount_post              FL_MUTANT_NAME(fl_negcount_post, FL_MUTANT)
#define fl_negcount_post_herd         FL_MUTANT_NAME(fl_negcount_post_herd, FL_MUTANT)
#define fl_negcount_post_capped       FL_MUTANT_NAME(fl_negcount_post_capped, FL_MUTANT)
#define fl_negcount_trywait           FL_MUTANT_NAME(fl_negcount_trywait, FL_MUTANT)
#define fl_negcount_timedwait         FL_MUTANT_NAME(fl_negcount_timedwait, FL_MUTANT)
#define fl_negcount_timedwait_resleep FL_MUTANT_NAME(fl_negcount_timedwait_resleep, FL_MUTANT)
#define fl_negcount_wait              FL_MUTANT_NAME(fl_negcount_wait, FL_MUTANT)
#define fl_negcount_pairs             FL_MUTANT_NAME(fl_negcount_pairs, FL_MUTANT)
#define fl_negcount_getvalue          FL_MUTANT_NAME(fl_negcount_getvalue, FL_MUTANT)
#define fl_negcount_words             FL_MUTANT_NAME(fl_negcount_words, FL_MUTANT)
/* variants/negcount_any.c */
#define fl_negcount_any               FL_MUTANT_NAME(fl_negcount_any, FL_MUTANT)
#define fl_negcount_any_arm           FL_MUTANT_NAME(fl_negcount_any_arm, FL_MUTANT)
#define fl_negcount_any_poll          FL_MUTANT_NAME(fl_negcount_any_poll, FL_MUTANT)
#define fl_negcount_any_disarm        FL_MUTANT_NAME(fl_negcount_any_disarm, FL_MUTANT)
#define fl_negcount_any_pass_on       FL_MUTANT_NAME(fl_negcount_any_pass_on, FL_MUTANT)

#endif
