/* report/html_file.c — `futexlab report`'s files (html.h): the runs in
 * (loaded runs, model/run.h: a file's or the store's), checked;
 * the page out, through a temporary file renamed into place (page.h). */
#include "report/html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/page.h"
#include "report/pool.h"
#include "fail/fail.h"
#include "fail/xalloc.h"

static void cells(struct fl_loaded_run *r, const char *baseline)
{
	char err[300];
	const struct fl_cells *c = &r->c;
	const char *name = r->path;
	if (fl_loaded_cells(r, err, sizeof err))
		fl_bad_input("report: %s", err);
	if (c->n == 0)
		fl_bad_input("report: no rows in %s (an empty run)", name);
	if (!fl_cell_find_variant(c, baseline))
		fl_bad_input("report: baseline '%s' is not in %s (see --baseline)", baseline, name);
}

/* The page to path through a temporary file (page.h); returns its figures. */
static int write_page(const char *path, struct fl_loaded_run *runs, int n,
		      const char *baseline, const struct fl_pool_result *pool)
{
	struct fl_page_file p;
	int figs = fl_html_page(fl_page_open(&p, "report", path), runs, n, baseline, pool);
	fl_page_close(&p);
	return figs;
}

int fl_report_html_runs(struct fl_loaded_run *runs, int n, const struct fl_page_opts *o)
{
	if (n < 1)
		fl_bad_input("report: no run to report (see futexlab report --help)");
	if (o->pool && n < 2)
		fl_bad_input("report --pool: give two or more runs of one configuration");
	for (int k = 0; k < n; k++)
		cells(&runs[k], o->baseline);
	struct fl_pool_result pr;
	char err[400], path[4096];
	if (o->pool && fl_pool_build(&pr, runs, n, &(struct fl_pool_opts){ .baseline = o->baseline },
				     err, sizeof err))
		fl_bad_input("report --pool: %s", err);
	fl_report_path(path, sizeof path, runs[0].path, o->out);
	int figs = write_page(path, runs, n, o->baseline, o->pool ? &pr : NULL);
	fprintf(o->msg, "report: %s (%d figures)\n", path, figs);
	if (o->pool)
		fl_pool_result_free(&pr);
	return 0;
}
