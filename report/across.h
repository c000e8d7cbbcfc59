/* report/across.h — one report across machines (or kernels, or libcs):
 * `futexlab report --db DB --by machine|kernel|libc`.
 *
 * The model's runs are grouped by their machine (its fingerprint: model.h),
 * their kernel or their libc (the CSV's `# kernel:`, `# libc:` lines). A
 * machine's times are never set against another's: every figure is an
 * entry's paired ratio to its own baseline in the same run (the same round
 * of the same point), which is what a design does relative to glibc on
 * that machine. Per group and (point, entry):
 *   - two or more runs: the pool (pool.h, the run as the top level): the
 *     pooled ratio, its prediction interval (where the group's next run
 *     lands: the between-run spread), the pool's verdict against the
 *     control's pooled band;
 *   - one run: that run's ratio, its interval over its rounds and the
 *     table's verdict — which does not know the group's between-run spread,
 *     and says so.
 * Then:
 *   - per point, which entry is fastest on which group (the least ratio,
 *     not the control or a floor; `=`: the entries whose intervals of the
 *     long-run ratio — one run: the ratio's — overlap the fastest's);
 *   - where the groups disagree beyond their between-run spread: two
 *     groups' verdicts on a (point, entry) are decided and differ, and each
 *     group's ratio lies outside the other's interval;
 *   - the libraries line per group: with two or more runs the pool's
 *     (pool_libs.h: some futexlab entry at or below the fastest library's
 *     time at no more than its CPU, over runs), with one the run's.
 * Test runs (`--as`) are left out, and said to be. The page: the same
 * figures, a table per point with a column per group. */
#ifndef FUTEXLAB_ACROSS_H
#define FUTEXLAB_ACROSS_H

#include <stdio.h>

#include "model/model.h"

enum fl_by { FL_BY_MACHINE, FL_BY_KERNEL, FL_BY_LIBC };

/* "machine", "kernel", "libc"; fl_by_parse: -1 for another word. */
const char *fl_by_name(enum fl_by by);
int fl_by_parse(const char *s);

/* The text to f and, when html is not NULL, the page to that path (through
 * a temporary file). Returns the number of disagreements; a usage error
 * (exit 2) when no run is left or a page cannot be written. */
int fl_across(FILE *f, const struct fl_model *m, enum fl_by by, const char *html);

#endif
