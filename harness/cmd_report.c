/* harness/cmd_report.c — `futexlab report`: one self-contained HTML page
 * of one or more runs (report/html.h; what is on it: report/report.md).
 * The runs come from CSV files, or from the results store (--db and its
 * selection, harness/select.h), the page made of their loaded tables. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "runner/cli.h"
#include "harness/commands.h"
#include "harness/select.h"
#include "report/across.h"
#include "report/html.h"
#include "model/model.h"
#include "variants/variant.h"

static const struct fl_option opts[] = {
	FL_SELECT_OPTIONS,
	{ "output", required_argument, 'o', "PATH", "PATH.html: the page; another PATH: a "
	  "directory (made if missing) that gets index.html (default: beside the first CSV, "
	  "X.csv -> X.html; with --db beside the store, X.db -> X.html)" },
	{ "baseline", required_argument, 'b', "NAME", "the variant ratios are taken against "
	  "(default glibc)" },
	{ "pool", no_argument, 'p', NULL, "two or more runs of one configuration: first "
	  "the runs pooled (compare --pool's estimator: the long-run ratio, the next run's 99% "
	  "interval), then each run's own part" },
	{ "by", required_argument, 'B', "machine|kernel|libc", "the runs grouped by machine "
	  "(fingerprint), kernel or libc: per group its own ratios to its own baseline, pooled "
	  "over its runs; the fastest per point on each, where they disagree beyond their "
	  "between-run spread, the libraries line of each (the text, and a page: -o, default "
	  "X-by-machine.html beside the first CSV or the store)" },
	{ "help", no_argument, 'h', NULL, "this text (also -h)" },
};
#define NOPTS ((int)(sizeof opts / sizeof opts[0]))

static void usage(void)
{
	fl_options_usage(stdout,
		"usage: futexlab report FILE.csv [MORE.csv...] [-o PATH] [options]\n"
		"       futexlab report --db PATH [selection] [-o PATH] [options]\n"
		"       futexlab report --db PATH [selection] --by machine|kernel|libc [-o PAGE]\n"
		"  one HTML page, nothing fetched: per run the summary matrix, per point the\n"
		"  ratio table, plots and evidence (report/report.md); several runs without\n"
		"  --pool: one part each, named by their file or store:ID (futexlab store ls)\n",
		opts, NOPTS, NULL);
}

/* The page of the store's selection: beside the store unless -o says. */
static int from_store(struct fl_select *sel, const char *out, const char *baseline, bool pool)
{
	char def[4096];
	size_t l = strlen(sel->db);
	if (l >= 3 && !strcmp(sel->db + l - 3, ".db"))
		l -= 3;
	snprintf(def, sizeof def, "%.*s.html", (int)l, sel->db);
	struct fl_runs r;
	fl_runs_store(&r, sel, NULL, 0, false);
	if (!r.n)
		fl_usage_error("report: no run in %s matches the selection", sel->db);
	fl_report_html_runs(r.run, r.n, &(struct fl_page_opts){ out ? out : def, baseline, pool,
								stdout });
	fl_runs_free(&r);
	return 0;
}

/* --by: the runs' model grouped (report/across.h), its text and page. */
static int by_groups(struct fl_runs *r, enum fl_by by, const char *out, const char *first,
		     const char *baseline)
{
	char def[4096], err[300];
	size_t l = strlen(first);
	const char *ext = strrchr(first, '.');
	if (ext && !strchr(ext, '/'))
		l = (size_t)(ext - first);
	snprintf(def, sizeof def, "%.*s-by-%s.html", (int)l, first, fl_by_name(by));
	/* the same run twice is refused; other machines are the point here; mixed
	 * revisions are said */
	fl_runs_check(r->run, r->n, &(struct fl_runs_check){ "report --by", true, true, stdout });
	struct fl_model m;
	if (fl_model_build(&m, r->run, r->n, baseline, err, sizeof err))
		fl_usage_error("report: %s", err);
	fl_across(stdout, &m, by, out ? out : def);
	fl_model_free(&m);
	fl_runs_free(r);
	return 0;
}

int fl_cmd_report(int argc, char **argv)
{
	struct option lopts[NOPTS + 1];
	fl_options_getopt(opts, NOPTS, lopts);
	struct fl_select sel = { .cmd = "report" };
	const char *baseline = "glibc", *out = NULL;
	bool pool = false;
	int by = -1;
	opterr = 0;
	optind = 1;
	int o;
	while ((o = getopt_long(argc, argv, ":ho:", lopts, NULL)) != -1) {
		if (fl_select_option(&sel, o, optarg))
			continue;
		switch (o) {
		case 'o': out = optarg; break;
		case 'b': baseline = fl_variant_name(optarg); break;
		case 'p': pool = true; break;
		case 'B':
			if ((by = fl_by_parse(optarg)) < 0)
				fl_usage_error("report: --by takes machine, kernel or libc, not '%s'",
					       optarg);
			break;
		case 'h': usage(); return 0;
		case ':': fl_usage_error("report: %s needs a value", argv[optind - 1]);
		default:
			fl_usage_error("report: unknown option '%s' (see futexlab report --help)",
				       argv[optind - 1]);
		}
	}
	int nfiles = argc - optind;
	if (by >= 0 && pool)
		fl_usage_error("report: --by pools each group's runs already; --pool goes without it");
	if (by >= 0) {
		struct fl_runs r;
		if (nfiles && (sel.db || fl_select_given(&sel)))
			fl_usage_error("report: give CSV files or --db and a selection, not both");
		if (nfiles) {
			fl_runs_files(&r, "report", argv + optind, nfiles, NULL, 0);
			return by_groups(&r, (enum fl_by)by, out, argv[optind], baseline);
		}
		if (!sel.db)
			sel.db = FL_DEFAULT_DB;
		fl_runs_store(&r, &sel, NULL, 0, false);
		if (!r.n)
			fl_usage_error("report: no run in %s matches the selection", sel.db);
		return by_groups(&r, (enum fl_by)by, out, sel.db, baseline);
	}
	if (sel.db || fl_select_given(&sel)) {
		if (nfiles)
			fl_usage_error("report: give CSV files or --db and a selection, not both");
		if (!sel.db)
			sel.db = FL_DEFAULT_DB;
		return from_store(&sel, out, baseline, pool);
	}
	if (nfiles < 1)
		fl_usage_error("report: give one or more CSV files (see futexlab report --help)");
	if (pool && nfiles < 2)
		fl_usage_error("report --pool: give two or more CSV files of one configuration");
	struct fl_runs r;
	fl_runs_files(&r, "report", argv + optind, nfiles, NULL, 0);
	fl_report_html_runs(r.run, r.n, &(struct fl_page_opts){ out, baseline, pool, stdout });
	fl_runs_free(&r);
	return 0;
}
