/* report/pool.h — `futexlab compare --pool A.csv B.csv [C.csv...]`: runs
 * of one configuration pooled with the run as the top level (the
 * estimator and why: stats.h, "Runs as the top level").
 *
 * The runs must be of one configuration: the same points, the same
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
 * libraries' lines (first field vs-libraries, vs-libraries-total).
 *
 * The pool is data first (struct fl_pool_result, fl_pool_build); the text
 * table, the TSV and the HTML page's pooled part (html_pool.c) are views
 * of it, so no view reads another's printed text. */
#ifndef FUTEXLAB_POOL_H
#define FUTEXLAB_POOL_H

#include <stdbool.h>
#include <stdio.h>

#include "report/pool_libs.h"
#include "model/run.h"
#include "model/table.h"
#include "stats/stats.h"

/* One entry of a point (every row of the point but the baseline's). */
struct fl_pool_row {
	const char *variant;          /* run 1's cells' label */
	struct fl_pool_entry e;       /* pooled: ratio, intervals, df, tau2 (stats.h) */
	enum fl_verdict verdict;      /* fl_pool_verdict against the control's band */
	double *run_ratio;            /* [nruns] each run's median ratio (NAN: none) */
	const char **run_status;      /* [nruns] a run without one: its status, or "-" */
	/* against a rerun (fl_pool_result.against not NULL): */
	enum fl_verdict against_v;    /* its ratio table's verdict */
	bool checked;                 /* it has a ratio and the pool a prediction: */
	double against_ratio;         /*   its median ratio */
	bool inside, contradicts;     /*   in the prediction interval; faster vs slower */
};

/* One point: its pool (the between-run sd: sqrt(pp.tau2)) and its rows. */
struct fl_pool_pt {
	const char *point;
	struct fl_pool_point pp;
	double band;                  /* the control's long-run log half-width (0: none) */
	struct fl_pool_row *row;
	int nrow;
};

struct fl_pool_result {
	int nruns;
	const char *baseline;
	struct fl_loaded_run *runs;   /* the caller's (model/run.h; their cells built
				       * here where not yet): outlive the result */
	struct fl_loaded_run *against; /* NULL: no rerun checked */
	struct fl_pool_pt *pt;
	int npt;
	struct fl_pool_libs_point *libs; /* the points judged against the libraries */
	int nlibs;
	int pairs, inside, contra;    /* the rerun's checked pairs, inside, contradicting */
	double median_half;           /* their prediction half-widths' median (NAN: none) */
};

/* What the pool is built with: the rerun checked against it (NULL: none),
 * the baseline, and (fl_pool_compare) the TSV rather than the text. */
struct fl_pool_opts {
	struct fl_loaded_run *against;
	const char *baseline;
	bool tsv;
};
/* Pools runs[0..nruns), and checks the rerun o->against against them. Bad
 * input (fewer than two runs, runs of different configurations, the
 * baseline missing): -1 with one line in err (no command's prefix), r
 * freed. The runs must outlive r. */
int fl_pool_build(struct fl_pool_result *r, struct fl_loaded_run *runs, int nruns,
		  const struct fl_pool_opts *o, char *err, int errlen);
void fl_pool_result_free(struct fl_pool_result *r);
/* The views: the text table (and the summary line against a rerun), or
 * the TSV; then the libraries' block. */
void fl_pool_print(FILE *f, const struct fl_pool_result *r, bool tsv);

/* The command: build (bad input: fl_bad_input, one line, exit 2), print,
 * free. Returns 0. */
int fl_pool_compare(FILE *f, struct fl_loaded_run *runs, int nruns, const struct fl_pool_opts *o);

#endif
