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

#include "report/table.h"

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

/* The page of runs[0..nruns) against baseline; pool_tsv, when not NULL,
 * is `compare --pool`'s TSV of those runs (pool.h), shown first as the
 * runs pooled. Returns how many figures it wrote. */
int fl_html_page(FILE *f, const struct fl_html_run *runs, int nruns, const char *baseline,
		 const char *pool_tsv);

/* The command: loads paths[0..nfiles), writes the page to
 * fl_report_path(paths[0], out) through a temporary file, and prints
 * "report: PATH (N figures)" on msg. pool: the files are runs of one
 * configuration, pooled (pool.h; at least two). Bad input (a file that is
 * not futexlab's CSV, an empty one, the baseline missing, an unwritable
 * out): fl_usage_error, one line, exit 2. Returns 0. */
int fl_report_html(int nfiles, char *const *paths, const char *out, const char *baseline,
		   bool pool, FILE *msg);

#endif
