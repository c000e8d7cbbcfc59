/* report/pool.h — `futexlab compare --pool A.csv B.csv [C.csv...]`: runs
 * of one configuration pooled with the run as the top level (the
 * estimator and why: stats.h, "Runs as the top level").
 *
 * The files must be runs of one configuration: the same points, the same
 * entries at each (the first difference is named in one line, exit 2).
 * Per point and entry: the pooled ratio (the geometric mean of the runs'
 * median ratios), where the long-run ratio lies (confidence, over runs,
 * FL_POOL_CONF), where the next identical run's ratio will land
 * (prediction, FL_POOL_PRED), each run's own median ratio, and the pool's
 * verdict (fl_pool_verdict: the single-run table's rule, the control's
 * pooled band). After the points, the libraries judgement over the same
 * runs (pool_libs.h). With `against`, a later run of the same configuration is
 * checked against the pool: per pair whether its median ratio lies in the
 * prediction interval and whether its verdict (the ratio table's) says the
 * opposite of the pool's, and the summary line
 *   prediction: FILE's ratio inside for N of M (point, entry) pairs (P%);
 *   median half-width x/F; verdicts contradicting: C
 * tsv: one tab-separated line per point and entry instead, then the
 * libraries' lines (first field vs-libraries, vs-libraries-total). */
#ifndef FUTEXLAB_POOL_H
#define FUTEXLAB_POOL_H

#include <stdbool.h>
#include <stdio.h>

/* Bad input (fewer than two files, a file that cannot be read, files of
 * different configurations, the baseline missing): fl_usage_error, one line,
 * exit 2. Returns 0. */
int fl_pool_compare(FILE *f, int nfiles, char *const *paths, const char *against,
		    const char *baseline, bool tsv);

#endif
