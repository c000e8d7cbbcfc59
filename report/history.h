/* report/history.h — a machine's runs over time, and where they changed:
 * `futexlab history`.
 *
 * A series is one (machine, point, entry) over the selected runs, in date
 * order (or one value per revision, `--by rev`: the geometric mean of the
 * revision's runs, the revisions in the order of their first run, as asv
 * plots one value per commit). Each value is what the run's own table says
 * there: the entry's median time per op and its paired ratio to the
 * baseline (model.h).
 *
 * The change points of a series are found on the log of its ratio — the
 * figure the pairing makes insensitive to the machine's state, so a step
 * in it is the entry's and not the VM's. The baseline's own series (its
 * ratio is 1) shows its time and gets no change points: its time steps
 * with the machine's state (on a VM, between runs minutes apart), and a
 * change of the baseline's own code shows as every other ratio of its
 * point stepping at the same run. The method is E-Divisive
 * means with Hunter's t-test (stats/edivisive.h: deterministic, so the
 * same history always gives the same change points), and a change point is
 * kept only when its step is at least the threshold (the gate's, judge.h:
 * 10% by default; Otava's min_magnitude), since a step smaller than that is
 * within what a machine's state moves a ratio at the quiet points.
 *
 * Each change point is one line beginning `change point`, with its run's
 * (or revision's) position in the series, 1-based, its date and revision,
 * the figure before and after (the means of the stretches either side, as
 * the method found them), the size of the step and its p-value. A run made
 * with `--as` (a performance mutant under a design's name) is a test run:
 * the history says so above its series, and such a run is never taken for
 * a measurement of the design. */
#ifndef FUTEXLAB_HISTORY_H
#define FUTEXLAB_HISTORY_H

#include <stdbool.h>
#include <stdio.h>

#include "model/model.h"

struct fl_history_opts {
	const char *point;     /* a point key, or a prefix of one ("pool T=4"); NULL: all */
	const char *variant;   /* an entry label; NULL: all */
	bool by_rev;           /* one value per revision */
	double threshold;      /* least step kept, a fraction */
	bool all;              /* every series' values, not only the change points */
	bool tsv;              /* one line per series and run instead */
	const char *html;      /* also a page with the series plotted (NULL: none) */
};

/* The history of the model's runs (in date order). Returns the number of
 * change points; a usage error (exit 2) when no series matches. */
int fl_history(FILE *f, const struct fl_model *m, const struct fl_history_opts *o);

#endif
