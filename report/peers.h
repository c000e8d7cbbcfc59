/* report/peers.h — the question the ratio table exists for, asked of every
 * point: does some futexlab design, under some waiting policy, match the
 * fastest shipped library (a registered design with its own policy:
 * glibc, musl-libc, cxx-gnu, cxx-llvm...; variant.h .own_policy) — in time
 * and without spending more CPU to do it?
 *
 * "vs the libraries", defined once, for one run here and for pooled runs
 * in pool_libs.h, which differ only in what a ratio and its verdict are
 * (one run: the median over its rounds, the table's rule against the
 * control's band; pooled: the pool's ratio and its verdict over runs):
 *   the fastest library: the library of lowest median time at the point;
 *   the closest futexlab entry: of the designs, the one with the lowest
 *     paired time ratio to that library among those whose paired CPU
 *     ratio is at most FL_LIBS_CPU, else the lowest of all;
 *   ahead: its time ratio at most FL_LIBS_TIME and its CPU ratio at most
 *     FL_LIBS_CPU (at or below the library's time, at no more CPU);
 *     faster: ahead, and its time ratio judged `faster` (below 1 beyond
 *     the noise and the control's band); else behind.
 * Under a point's ratio table, one line; after the last point, how many
 * points were ahead and how many faster. Floors and the control are
 * neither libraries nor designs; a point whose baseline runs in two states
 * is not judged. */
#ifndef FUTEXLAB_PEERS_H
#define FUTEXLAB_PEERS_H

#include <stdbool.h>
#include <stdio.h>

#include "model/table.h"

#define FL_LIBS_TIME 1.00
#define FL_LIBS_CPU 1.00

struct fl_peers_tally {
	int points, ahead, faster;
};

/* The line of one point's rows (nothing when it has no usable library or
 * no usable futexlab entry). regimes: the point's baseline runs in two
 * states (regimes.h); then every median there mixes them in a share that
 * changes from run to run, and the line says `two regimes: not judged`,
 * the point left out of the tally. */
/* band: the control's resolution at the point (0: none), the floor a
 * `faster` stands on. */
void fl_peers_line(FILE *f, const struct fl_cell *const *row, int nrow, bool regimes, double band,
		   struct fl_peers_tally *t);
/* The same judgement, tallied without a line (the summary: summary.h). */
void fl_peers_count(const struct fl_cell *const *row, int nrow, bool regimes, double band,
		    struct fl_peers_tally *t);
/* The closing line, one run's (nrun 1) or a pool's, in one wording:
 * "vs the libraries[, pooled over N runs]: a futexlab entry at or below the
 * fastest library in time and CPU at A of P points, faster at F". */
void fl_libs_line(FILE *f, int nrun, int ahead, int points, int faster);
/* The closing line (nothing when no point had one). */
void fl_peers_summary(FILE *f, const struct fl_peers_tally *t);

#endif
