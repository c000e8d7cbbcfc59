/* harness/compare.h — reading futexlab CSVs back: metadata, points, the
 * ratio table against a baseline and the before/after comparison.
 *
 * A CSV is: '#' metadata lines ("# futexlab REV", then "# key: value" for
 * date, kernel, cpu, cores, command), one header line, one row per rep.
 * Columns are found by name, so columns appended later (perf, probes) are
 * carried along and older files without them still load.
 *
 * A *point* is one configuration: every column left of `rep` except
 * `variant` (workload, threads, tokens, hold_ns, think_ns, wake), plus the
 * configuration columns later options append (hash, spin) when present.
 * The rows of one (point, variant) are its reps; their ns_per_op values are
 * summarized by stats.h. */
#ifndef FUTEXLAB_COMPARE_H
#define FUTEXLAB_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "stats.h"

struct fl_table {
	char *meta[8][2];        /* key, value ("revision" for the first line) */
	int nmeta;
	char **cols;             /* header names */
	int ncol;
	char ***rows;            /* rows[i][j]: cell j of row i */
	int nrows;
};

/* One (point, variant): the summary of its ok reps. */
struct fl_cell {
	char *point;             /* display key, e.g. "pool T=4 K=1 wake=exact" */
	char *workload, *variant;
	int threads;
	char *status;            /* ok, error, skipped, interrupted */
	char *note;
	struct fl_summary ns;    /* ns per op over ok reps (ns.n == 0: none) */
	double ops_s;            /* median ops/s */
};

struct fl_cells {
	struct fl_cell *c;
	int n;
};

/* Loads a CSV file; on failure returns -1 with a one-line reason in err. */
int fl_table_load(struct fl_table *t, const char *path, char *err, int errlen);
/* Builds a table from the text of the metadata+header and the row lines. */
int fl_table_from_lines(struct fl_table *t, const char *head, char *const *rows, int n,
			char *err, int errlen);
void fl_table_free(struct fl_table *t);
const char *fl_table_meta(const struct fl_table *t, const char *key);

/* Groups a table's rows into (point, variant) cells in first-seen order. */
int fl_cells_build(const struct fl_table *t, struct fl_cells *out, char *err, int errlen);
void fl_cells_free(struct fl_cells *c);

/* The ratio table of every variant against `baseline` per point. */
void fl_print_ratios(FILE *f, const struct fl_table *t, const struct fl_cells *c,
		     const char *baseline);
/* Before/after: prints the (point, variant) pairs whose CIs are apart (all
 * pairs with `all`); returns how many changed beyond the noise. */
int fl_print_changes(FILE *f, const struct fl_table *a, const struct fl_cells *ca,
		     const struct fl_table *b, const struct fl_cells *cb, bool all);

#endif
