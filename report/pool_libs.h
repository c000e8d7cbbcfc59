/* report/pool_libs.h — the libraries line's question (peers.h) asked of a
 * pool of runs (pool.h), the run as the top level: at each point, is some
 * futexlab entry at or below the fastest shipped library's time, at no
 * more than its CPU per op — and beyond the noise over runs?
 *
 * Per point:
 *   the fastest library: of the shipped libraries (catalog.h) with a
 *     ratio to the baseline in every run, the one whose pooled ratio to
 *     the baseline is the lowest (the pool's own figure; the baseline's, a
 *     library itself, is 1). Its figure as printed: the geometric mean
 *     over the runs of its median ns per op (or the program's metric);
 *   every other row's ratio to that library, pooled as the pool pools
 *     ratios to the baseline: each run's median of the paired per-round
 *     ratios (the same round of the same point), fl_pool_point over the
 *     runs (the geometric mean, the long-run interval at FL_POOL_CONF);
 *     of time, and of CPU per op ((cpu_user_ns + cpu_sys_ns) / ops, the
 *     cells' cpu figure: table.h);
 *   the best futexlab entry: of the designs (catalog.h: not a library, a
 *     floor or the control) with a time ratio in every run, the lowest
 *     pooled time ratio among those at <= FL_POOL_LIBS_CPU of the
 *     library's CPU (pooled, from every run); else the lowest of all,
 *     marked over on CPU;
 *   its verdict: ahead when its time ratio <= FL_POOL_LIBS_TIME and its
 *     CPU ratio <= FL_POOL_LIBS_CPU; faster when ahead and the pool's
 *     verdict on the time ratio (fl_pool_verdict, against the band of the
 *     control BASELINE#2 at the point) is faster: the long-run interval
 *     wholly below 1 and the ratio beyond the control's band; behind
 *     otherwise (CPU not known: behind).
 * A point without a library in every run or without a design has no line
 * and is not counted. After the pool's tables, a line per judged point,
 * then
 *   vs the libraries, pooled over N runs: some futexlab entry at or below
 *   the fastest library's time at <= 1.00x its CPU at A of P points,
 *   faster beyond the noise at B
 * (one line). tsv: a line per judged point whose first field is
 * "vs-libraries" (no point's name), then one "vs-libraries-total" line;
 * their fields: fl_pool_libs_print. */
#ifndef FUTEXLAB_POOL_LIBS_H
#define FUTEXLAB_POOL_LIBS_H

#include <stdbool.h>
#include <stdio.h>

#include "stats/stats.h"
#include "model/table.h"

#include "report/peers.h" /* the rule, defined once: FL_LIBS_TIME, FL_LIBS_CPU */
#define FL_POOL_LIBS_TIME FL_LIBS_TIME
#define FL_POOL_LIBS_CPU FL_LIBS_CPU

enum fl_pool_libs_verdict { FL_LIBS_BEHIND, FL_LIBS_AHEAD, FL_LIBS_FASTER };

/* One point judged. */
struct fl_pool_libs_point {
	const char *point, *lib, *entry;  /* labels: run 1's cells' */
	enum fl_value value;              /* what lib_value is (table.h) */
	double lib_value;                 /* the library's figure, pooled */
	struct fl_pool_entry time;        /* the entry's time ratio to lib, pooled */
	double cpu;                       /* its CPU ratio to lib, pooled (NAN: not known) */
	bool cheap;                       /* cpu <= FL_POOL_LIBS_CPU */
	enum fl_pool_libs_verdict v;
};

/* What the pool has of a point (pool.c): the runs' cells, the point, the
 * baseline, the point's rows but the baseline's (run 1's cells) with the
 * pool's figure of each against the baseline, and the control's band. */
struct fl_pool_libs_in {
	int nrun;
	const struct fl_cells *const *cells;
	const char *point, *baseline;
	const struct fl_cell *const *ent;
	const struct fl_pool_entry *out;
	int nent;
	double band;
};

/* Judges one point; false (lp untouched) when it has no library in every
 * run or no design with a time ratio in every run. */
bool fl_pool_libs_judge(const struct fl_pool_libs_in *in, struct fl_pool_libs_point *lp);
/* "behind", "ahead", "faster". */
const char *fl_pool_libs_verdict_name(enum fl_pool_libs_verdict v);
/* Of the judged points, how many ahead (faster counted too) and faster. */
void fl_pool_libs_count(const struct fl_pool_libs_point *p, int n, int *ahead, int *faster);
/* The block: the explanation and a line per judged point (tsv: the
 * "vs-libraries" lines), then the closing line ("vs-libraries-total").
 * Nothing when no point was judged. */
void fl_pool_libs_print(FILE *f, const struct fl_pool_libs_point *p, int n, int nrun,
			const char *baseline, bool tsv);

#endif
