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

/* The page of runs[0..nruns) against baseline, from its head (page.h) to
 * its script: the end ("</body></html>") is the shell's, fl_page_close.
 * pool, when not NULL, is those runs pooled (pool.h), shown first. Returns
 * how many figures it wrote. */
int fl_html_page(FILE *f, struct fl_loaded_run *runs, int nruns, const char *baseline,
		 const struct fl_pool_result *pool);

/* How the page is made: out (fl_report_path(the first run's path, out):
 * give out when the first run is not a file), against baseline, pool: the
 * runs are of one configuration, pooled (pool.h; at least two), msg: where
 * "report: PATH (N figures)" is printed. */
struct fl_page_opts {
	const char *out;
	const char *baseline;
	bool pool;
	FILE *msg;
};
/* The command on loaded runs[0..n) (model/run.h; their cells built here
 * where not yet): the page written through a temporary file. Bad input (an
 * empty run, the baseline missing, runs that do not pool, an unwritable
 * out): fl_bad_input, one line, exit 2. Returns 0. */
int fl_report_html_runs(struct fl_loaded_run *runs, int n, const struct fl_page_opts *o);

#endif
