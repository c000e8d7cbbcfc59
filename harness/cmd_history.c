/* harness/cmd_history.c — `futexlab history`: a machine's runs over time,
 * per (machine, point, entry) series, and where they changed (report/
 * history.h: E-Divisive means with Hunter's t-test). The runs come from the
 * store (--db and its selection) or from CSV files, in date order. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cli.h"
#include "harness/commands.h"
#include "harness/select.h"
#include "report/history.h"
#include "report/judge.h"
#include "variants/variant.h"

static const struct fl_option opts[] = {
	FL_SELECT_OPTIONS,
	{ "point", required_argument, 'P', "P", "the series of points whose key begins with P "
	  "(\"pool T=4\", \"uncontended\")" },
	{ "variant", required_argument, 'V', "NAME", "the series of one entry (negcount, "
	  "negcount@adaptive, glibc)" },
	{ "by", required_argument, 'B', "date|rev", "one value per run in date order "
	  "(default), or per revision (its runs' geometric mean, the revisions in the order of "
	  "their first run)" },
	{ "threshold", required_argument, 'T', "PCT", "the least step a change point is kept "
	  "for, in percent (default 10, the gate's)" },
	{ "all", no_argument, 'a', NULL, "every series' values per run, not only the change "
	  "points" },
	{ "tsv", no_argument, 't', NULL, "one tab-separated line per series and run (machine "
	  "point variant pos run date revision ns ratio test change)" },
	{ "html", required_argument, 'H', "FILE", "also a page with the series plotted and "
	  "their change points marked (with --all: every series)" },
	{ "baseline", required_argument, 'b', "NAME", "the variant ratios are taken against "
	  "(default glibc)" },
	{ "help", no_argument, 'h', NULL, "this text (also -h)" },
};
#define NOPTS ((int)(sizeof opts / sizeof opts[0]))

static void usage(void)
{
	fl_options_usage(stdout,
		"usage: futexlab history [--db PATH] [selection] [options]\n"
		"       futexlab history RUN.csv... [options]\n"
		"  per (machine, point, entry) the median time and the ratio to the baseline\n"
		"  of every run, and the change points of the ratio (of the baseline: its\n"
		"  time), each on a line that begins 'change point' (report/history.h)\n",
		opts, NOPTS, NULL);
}

static int cmp_date(const void *a, const void *b)
{
	const struct fl_table *x = a, *y = b;
	return strcmp(fl_table_meta(x, "date"), fl_table_meta(y, "date"));
}

int fl_cmd_history(int argc, char **argv)
{
	struct option lopts[NOPTS + 1];
	fl_options_getopt(opts, NOPTS, lopts);
	struct fl_select sel = { .cmd = "history" };
	struct fl_history_opts ho = { .threshold = FL_JUDGE_THRESHOLD };
	const char *baseline = "glibc";
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		if (fl_select_option(&sel, c, optarg))
			continue;
		switch (c) {
		case 'P': ho.point = optarg; break;
		case 'V': ho.variant = fl_variant_name(optarg); break;
		case 'B':
			if (strcmp(optarg, "date") && strcmp(optarg, "rev"))
				fl_usage_error("history: --by takes date or rev, not '%s'", optarg);
			ho.by_rev = !strcmp(optarg, "rev");
			break;
		case 'T': ho.threshold = fl_parse_double("--threshold", optarg, 0, 1000) / 100; break;
		case 'a': ho.all = true; break;
		case 't': ho.tsv = true; break;
		case 'H': ho.html = optarg; break;
		case 'b': baseline = fl_variant_name(optarg); break;
		case 'h': usage(); return 0;
		case ':': fl_usage_error("history: %s needs a value", argv[optind - 1]);
		default:
			fl_usage_error("history: unknown option '%s' (see futexlab history --help)",
				       argv[optind - 1]);
		}
	}
	if (ho.all && ho.tsv && !ho.html)
		fl_usage_error("history: --tsv prints every series' runs already; --all goes with "
			       "the text or --html");
	int nfiles = argc - optind;
	struct fl_runs r;
	if (nfiles) {
		if (sel.db || fl_select_given(&sel))
			fl_usage_error("history: give CSV files or --db and a selection, not both");
		fl_runs_files(&r, "history", argv + optind, nfiles, NULL, 0);
		/* date order; the names follow their tables */
		for (int i = 1; i < r.n; i++)
			for (int j = i; j > 0 && cmp_date(&r.run[j - 1].t, &r.run[j].t) > 0; j--) {
				struct fl_loaded_run x = r.run[j];
				r.run[j] = r.run[j - 1];
				r.run[j - 1] = x;
			}
	} else {
		if (!sel.db)
			sel.db = FL_DEFAULT_DB;
		fl_runs_store(&r, &sel, NULL, 0, false);
		if (!r.n)
			fl_usage_error("history: no run in %s matches the selection", sel.db);
	}
	char err[300];
	struct fl_model m;
	if (fl_model_build(&m, r.run, r.n, baseline, err, sizeof err))
		fl_usage_error("history: %s", err);
	fl_history(stdout, &m, &ho);
	fl_model_free(&m);
	fl_runs_free(&r);
	return 0;
}
