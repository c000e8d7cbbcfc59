/* model/regimes.h — a point whose baseline runs in two states, named.
 *
 * The detector (which rounds form two states, and the argument for its
 * rule) is stats/regimes.h; this is the report's side: a point's states
 * read from its baseline's rounds, each entry's ratios within them, the
 * block under the point's rows.
 *
 * ---- per state ---------------------------------------------------------------
 *
 * Each round is put in the state of its baseline rep (below the cut: A, the
 * faster state; above: B). A design's paired ratios (table.h) are split by
 * the state of their round and summarized per state like the point's
 * (fl_ratio_summarize), with a verdict per state by fl_ratio_verdict against
 * the control's resolution within that state (as rule.c does over all
 * rounds). A state with fewer rounds than a 95% interval needs gets `?` and
 * the reason ("N rounds: too few"). The baseline's medians within each state
 * (ns/op, context switches per op) describe the state. */
#ifndef FUTEXLAB_REGIMES_H
#define FUTEXLAB_REGIMES_H

#include <stdbool.h>
#include <stdio.h>

#include "model/table.h"
#include "stats/regimes.h"


/* One entry's paired ratios to the baseline within one state. */
struct fl_regime_ratio {
	int n;                  /* its paired rounds in the state */
	struct fl_ratio q;      /* valid when n > 0; resolution raised to the floor */
	enum fl_verdict v;      /* FL_UNDECIDED when n is too few for 95% */
};

/* The baseline's (ref's) states at its point, from its ns/op per round. */
struct fl_regime_split fl_point_regimes(const struct fl_cell *ref);
bool fl_point_has_regimes(const struct fl_cell *ref);
/* y against ref within state (0: A, 1: B) of split s; floor: the
 * control's resolution within the state (0 for the control itself). */
struct fl_regime_ratio fl_regime_ratio(const struct fl_cell *y, const struct fl_cell *ref,
				       const struct fl_regime_split *s, int state, double floor);

/* Under a point's rows, when its baseline runs in two states: the states
 * (rounds, the baseline's ns/op and csw/op in each), then per entry its
 * rounds in each state and its ratio and verdict within each. Returns
 * whether it printed (the point has two states). */
bool fl_print_regimes(FILE *f, const struct fl_cells *c, const struct fl_cell **row, int nrow,
		      const struct fl_cell *ref, const char *baseline);

#endif
