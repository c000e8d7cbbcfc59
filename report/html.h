/* report/html.h — `futexlab report`: one self-contained HTML page of one
 * or more runs (report/report.md: what is on it, how to read the plots).
 *
 * Nothing on the page is fetched: the style is inline, the plots inline
 * SVG written in C (svg.h, html_plots.c), the one script (it records each
 * figure's rendered size on the figure, for the browser test) inline too.
 * Every string that comes from a CSV is HTML-escaped. */
#ifndef FUTEXLAB_HTML_H
#define FUTEXLAB_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/pool.h"
#include "model/table.h"

/* Where the page goes: out ending in ".html" is the file; another out is a
 * directory (made if missing) that gets index.html; no out: beside the
 * first CSV, its name with .html for .csv (results/latest.csv ->
 * results/latest.html). */
const char *fl_report_path(char *b, size_t n, const char *first_csv, const char *out);

/* One run on the page: its file's name (as given), its table and cells. */
struct fl_html_run {
	const char *path;
	const struct fl_table *t;
	const struct fl_cells *c;
};

/* The page of runs[0..nruns) against baseline; pool, when not NULL, is
 * those runs pooled (pool.h), shown first. Returns how many figures it
 * wrote. */
int fl_html_page(FILE *f, const struct fl_html_run *runs, int nruns, const char *baseline,
		 const struct fl_pool_result *pool);

/* The command on loaded runs: t[0..n) named names[] (a file's path, or
 * "store:ID"), the page written to out (fl_report_path(names[0], out):
 * give out when names[0] is not a file's) through a temporary file, and
 * "report: PATH (N figures)" printed on msg. pool: the runs are of one
 * configuration, pooled (pool.h; at least two). Bad input (an empty run,
 * the baseline missing, runs that do not pool, an unwritable out):
 * fl_bad_input, one line, exit 2. Returns 0. */
int fl_report_html_runs(int n, const struct fl_table *t, char *const *names, const char *out,
			const char *baseline, bool pool, FILE *msg);

/* The command on files: loads paths[0..nfiles) (a file that is not
 * futexlab's CSV: exit 2), then fl_report_html_runs. Returns 0. */
int fl_report_html(int nfiles, char *const *paths, const char *out, const char *baseline,
		   bool pool, FILE *msg);

#endif
