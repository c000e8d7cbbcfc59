/* workloads/point.h — a point and what runs at it.
 *
 * A *point* is one configuration: a workload with its parameters (threads,
 * tokens, semaphores, hold/think) and a wake mode. Its *entries* are what
 * run at it: a design under a waiting policy each, labelled as the CSV's
 * variant column says (NAME under park and for what waits its own way,
 * NAME@POLICY otherwise, BASELINE#2 for the control). The command line
 * builds points (runner/points.c), the runner runs them, and the row writer
 * (record/run_row.c) writes their cells. */
#ifndef FUTEXLAB_POINT_H
#define FUTEXLAB_POINT_H

#include <stddef.h>

#include "variants/policy.h"
#include "variants/variant.h"
#include "workloads/workload.h"

/* The entries a point holds: designs x policies and the control, then the
 * two floors. */
#define FL_MAXENTRY 128

/* One entry of a point: a design under a waiting policy (park for what
 * waits its own way: a shipped library, a floor). */
struct fl_entry {
	const struct fl_variant *v;
	struct fl_policy policy;
	char label[40];                 /* the CSV's variant: NAME, NAME@POLICY, BASELINE#2 */
};

struct fl_point {
	const struct fl_workload *w;
	struct fl_params p;
	int wake;                       /* enum fl_wake_strategy */
	struct fl_entry e[FL_MAXENTRY];
	int ne;
};

/* An entry's label: v's name under park and for what waits its own way,
 * else NAME@POLICY (fl_policy_format's text). */
void fl_entry_label(const struct fl_variant *v, const struct fl_policy *p, char *out, size_t n);
/* The policy cell of the CSV: the policy's text, or "own" for what waits
 * its own way (a shipped library, a floor). */
const char *fl_entry_policy_text(const struct fl_entry *e, char *buf, size_t n);

#endif
