/* report/html_file.c — `futexlab report`'s files (html.h): the runs in
 * (CSV files, or tables the caller loaded, e.g. from the store), checked;
 * the page out, through a temporary file renamed into place. */
#include "report/html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/pool.h"
#include "fail/fail.h"
#include "fail/xalloc.h"

static void cells(const struct fl_table *t, struct fl_cells *c, const char *name,
		  const char *baseline)
{
	char err[300];
	if (fl_cells_build(t, c, err, sizeof err))
		fl_bad_input("report: %s", err);
	if (c->n == 0)
		fl_bad_input("report: no rows in %s (an empty run)", name);
	if (!fl_cell_find_variant(c, baseline))
		fl_bad_input("report: baseline '%s' is not in %s (see --baseline)", baseline, name);
}

/* The page to path through a temporary file; returns its figures. */
static int write_page(const char *path, const struct fl_html_run *runs, int n,
		      const char *baseline, const struct fl_pool_result *pool)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		fl_bad_input("report: cannot write %s: %s", path, strerror(errno));
	int figs = fl_html_page(f, runs, n, baseline, pool);
	if (ferror(f) | fclose(f) || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		fl_bad_input("report: cannot write %s: %s", path, strerror(e));
	}
	return figs;
}

int fl_report_html_runs(int n, const struct fl_table *t, char *const *names, const char *out,
			const char *baseline, bool pool, FILE *msg)
{
	if (n < 1)
		fl_bad_input("report: no run to report (see futexlab report --help)");
	if (pool && n < 2)
		fl_bad_input("report --pool: give two or more runs of one configuration");
	struct fl_cells *c = fl_xcalloc((size_t)n, sizeof *c);
	struct fl_html_run *runs = fl_xcalloc((size_t)n, sizeof *runs);
	for (int k = 0; k < n; k++) {
		cells(&t[k], &c[k], names[k], baseline);
		runs[k] = (struct fl_html_run){ .path = names[k], .t = &t[k], .c = &c[k] };
	}
	struct fl_pool_result pr;
	char err[400], path[4096];
	if (pool && fl_pool_build(&pr, n, t, names, NULL, NULL, baseline, err, sizeof err))
		fl_bad_input("report --pool: %s", err);
	fl_report_path(path, sizeof path, names[0], out);
	int figs = write_page(path, runs, n, baseline, pool ? &pr : NULL);
	fprintf(msg, "report: %s (%d figures)\n", path, figs);
	if (pool)
		fl_pool_result_free(&pr);
	for (int k = 0; k < n; k++)
		fl_cells_free(&c[k]);
	free(runs);
	free(c);
	return 0;
}

int fl_report_html(int nfiles, char *const *paths, const char *out, const char *baseline,
		   bool pool, FILE *msg)
{
	if (nfiles < 1)
		fl_bad_input("report: give one or more CSV files (see futexlab report --help)");
	if (pool && nfiles < 2)
		fl_bad_input("report --pool: give two or more CSV files of one configuration");
	struct fl_table *t = fl_xcalloc((size_t)nfiles, sizeof *t);
	char err[300];
	for (int k = 0; k < nfiles; k++)
		if (fl_table_load(&t[k], paths[k], err, sizeof err))
			fl_bad_input("report: %s", err);
	fl_report_html_runs(nfiles, t, paths, out, baseline, pool, msg);
	for (int k = 0; k < nfiles; k++)
		fl_table_free(&t[k]);
	free(t);
	return 0;
}
