/* report/html_point.h — one point of the HTML report as its parts see it
 * (html.c writes the tables, html_plots.c the figures). Internal to the
 * report's page. */
#ifndef FUTEXLAB_HTML_POINT_H
#define FUTEXLAB_HTML_POINT_H

#include <stdbool.h>
#include <stdio.h>

#include "stats/stats.h"
#include "model/table.h"

/* One row of a point: its cell, and what the ratio table says of it. */
struct fl_hrow {
	const struct fl_cell *y;
	bool usable;             /* fl_cell_usable */
	bool have;               /* q holds: a ratio to the baseline (the baseline: 1) */
	struct fl_ratio q;
	enum fl_verdict v;       /* the model's (FL_UNDECIDED: none, or two regimes) */
	char vt[64];             /* the verdict column's text */
};

struct fl_hpoint {
	const struct fl_cells *c;
	const char *baseline;
	const struct fl_cell *ref;  /* the baseline's cell (NULL: did not run) */
	const char *prefix;         /* of the ids: "" or "f2-" (the second file) */
	int id;                     /* the point's number, from 1 */
	struct fl_hrow *r;
	enum fl_verdict *v;         /* each row's time verdict before regimes (the evidence's) */
	int nrow;
};

/* The figures of a point (each a <figure> holding one <svg>); returns how
 * many it wrote. */
int fl_html_point_plots(FILE *f, const struct fl_hpoint *p);
/* The legend of the markers: one figure. */
void fl_html_legend(FILE *f, const char *baseline);

#endif
