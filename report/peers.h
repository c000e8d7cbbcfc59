/* report/peers.h — the question the ratio table exists for, asked of every
 * point: does some futexlab design, under some waiting policy, match the
 * fastest shipped library (a registered design with its own policy:
 * glibc, musl-libc, cxx-gnu, cxx-llvm; variant.h .own_policy) — in time
 * and without spending more CPU to do it?
 *
 * Under a point's ratio table, one line: the fastest library (lowest
 * median ns per op), and the futexlab entry that comes closest: the one
 * with the lowest paired time ratio to that library (round by round,
 * median: table.h) among those whose paired CPU ratio is at most
 * FL_PEERS_CPU, else the fastest of all; "within" when its time ratio is at
 * most FL_PEERS_TIME and its CPU ratio at most FL_PEERS_CPU. After the
 * last point, how many points were within. Floors and the control are
 * neither libraries nor designs. */
#ifndef FUTEXLAB_PEERS_H
#define FUTEXLAB_PEERS_H

#include <stdbool.h>
#include <stdio.h>

#include "report/table.h"

#define FL_PEERS_TIME 1.05
#define FL_PEERS_CPU 1.05

struct fl_peers_tally {
	int points, within;
};

/* The line of one point's rows (nothing when it has no usable library or
 * no usable futexlab entry). regimes: the point's baseline runs in two
 * states (regimes.h); then every median there mixes them in a share that
 * changes from run to run, and the line says `two regimes: not judged`,
 * the point left out of the tally. */
void fl_peers_line(FILE *f, const struct fl_cell *const *row, int nrow, bool regimes,
		   struct fl_peers_tally *t);
/* The same judgement, tallied without a line (the summary: summary.h). */
void fl_peers_count(const struct fl_cell *const *row, int nrow, bool regimes,
		    struct fl_peers_tally *t);
/* The closing line (nothing when no point had one). */
void fl_peers_summary(FILE *f, const struct fl_peers_tally *t);

#endif
