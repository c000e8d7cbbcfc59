/* harness/hunt_cmd.h — `futexlab hunt`: the lost-wakeup hunter (harness/README.md,
 * hunt section). It runs the stress patterns of workloads/hunt.h on each
 * design, rep after rep, with the stranded-waiter detector watching every
 * rep, and reports per design x pattern: ops run, seconds, preemption
 * signals that landed in the library's text, stranded waiters found and the
 * first one's evidence (pattern, ops run until then, the note); then one
 * verdict line per design. Reps of a remote design (musl-libc) run in its
 * helper (proc/helper.h), like the runner's.
 *
 * The command's core is this function, so that a test executable can hunt
 * in designs that are not registered (tests/test_hunt.sh: a mutant that
 * drops a wake, from tests/mutants/): `extra` designs are found by name
 * before the registry's. Exit status: 0 when the hunt ran (a lost wakeup is
 * a result, not a failure), 2 for bad input (one line), 130 when
 * interrupted (what finished is kept: table and CSV). */
#ifndef FUTEXLAB_HUNT_CMD_H
#define FUTEXLAB_HUNT_CMD_H

#include "variants/variant.h"

int fl_hunt_main(int argc, char **argv, const struct fl_variant *const *extra, int nextra);

#endif
