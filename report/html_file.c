/* report/html_file.c — `futexlab report`'s files (html.h): the CSVs in,
 * checked; the page out, through a temporary file renamed into place. */
#include "report/html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/pool.h"
#include "report/usage.h"
#include "report/xalloc.h"

static void load(struct fl_table *t, struct fl_cells *c, const char *path, const char *baseline)
{
	char err[300];
	if (fl_table_load(t, path, err, sizeof err) || fl_cells_build(t, c, err, sizeof err))
		fl_usage_error("report: %s", err);
	if (c->n == 0)
		fl_usage_error("report: no rows in %s (an empty run)", path);
	if (!fl_cell_find_variant(c, baseline))
		fl_usage_error("report: baseline '%s' is not in %s (see --baseline)", baseline, path);
}

/* compare --pool's TSV of the files (pool.h: its estimator, its checks). */
static char *pool_tsv(int nfiles, char *const *paths, const char *baseline)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = fl_xcheck(open_memstream(&text, &len));
	fl_pool_compare(m, nfiles, paths, NULL, baseline, true);
	fclose(m);
	return text;
}

int fl_report_html(int nfiles, char *const *paths, const char *out, const char *baseline,
		   bool pool, FILE *msg)
{
	if (nfiles < 1)
		fl_usage_error("report: give one or more CSV files (see futexlab report --help)");
	if (pool && nfiles < 2)
		fl_usage_error("report --pool: give two or more CSV files of one configuration");
	struct fl_table *t = fl_xcalloc((size_t)nfiles, sizeof *t);
	struct fl_cells *c = fl_xcalloc((size_t)nfiles, sizeof *c);
	struct fl_html_run *runs = fl_xcalloc((size_t)nfiles, sizeof *runs);
	for (int k = 0; k < nfiles; k++) {
		load(&t[k], &c[k], paths[k], baseline);
		runs[k] = (struct fl_html_run){ .path = paths[k], .t = &t[k], .c = &c[k] };
	}
	char *tsv = pool ? pool_tsv(nfiles, paths, baseline) : NULL;
	char path[4096], tmp[4200];
	fl_report_path(path, sizeof path, paths[0], out);
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		fl_usage_error("report: cannot write %s: %s", path, strerror(errno));
	int n = fl_html_page(f, runs, nfiles, baseline, tsv);
	if (ferror(f) | fclose(f) || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		fl_usage_error("report: cannot write %s: %s", path, strerror(e));
	}
	fprintf(msg, "report: %s (%d figures)\n", path, n);
	for (int k = 0; k < nfiles; k++) {
		fl_cells_free(&c[k]);
		fl_table_free(&t[k]);
	}
	free(tsv);
	free(runs);
	free(c);
	free(t);
	return 0;
}
