/* report/html_file.c — `futexlab report`'s files (html.h): the runs in
 * (loaded runs, model/run.h: a file's or the store's), checked;
 * the page out, through a temporary file renamed into place (page.h). */
#include "report/html.h"

#include <stdio.h>

#include "report/page.h"
#include "report/pool.h"
#include "fail/fail.h"

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
	char err[400], path[4096];
	for (int k = 0; k < n; k++)
		if (fl_loaded_check(&runs[k], o->baseline, err, sizeof err))
			fl_bad_input("report: %s", err);
	struct fl_pool_result pr;
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
