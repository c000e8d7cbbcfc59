/* harness/cmd_report.c — `futexlab report`: one self-contained HTML page
 * of one or more runs (report/html.h; what is on it: report/report.md). */
#include <getopt.h>
#include <stdio.h>

#include "harness/cli.h"
#include "harness/commands.h"
#include "report/html.h"
#include "variants/variant.h"

static const struct fl_option opts[] = {
	{ "output", required_argument, 'o', "PATH", "PATH.html: the page; another PATH: a "
	  "directory (made if missing) that gets index.html (default: beside the first CSV, "
	  "X.csv -> X.html)" },
	{ "baseline", required_argument, 'b', "NAME", "the variant ratios are taken against "
	  "(default glibc)" },
	{ "pool", no_argument, 'p', NULL, "two or more files, runs of one configuration: first "
	  "the runs pooled (compare --pool's estimator: the long-run ratio, the next run's 99% "
	  "interval), then each run's own part" },
	{ "help", no_argument, 'h', NULL, "this text" },
};
#define NOPTS ((int)(sizeof opts / sizeof opts[0]))

int fl_cmd_report(int argc, char **argv)
{
	struct option lopts[NOPTS + 1];
	fl_options_getopt(opts, NOPTS, lopts);
	const char *baseline = "glibc", *out = NULL;
	bool pool = false;
	opterr = 0;
	optind = 1;
	int o;
	while ((o = getopt_long(argc, argv, "o:", lopts, NULL)) != -1) {
		switch (o) {
		case 'o': out = optarg; break;
		case 'b': baseline = fl_variant_name(optarg); break;
		case 'p': pool = true; break;
		case 'h':
			fl_options_usage(stdout, "usage: futexlab report FILE.csv [MORE.csv...] "
					 "[-o PATH] [options]\n  one HTML page, nothing fetched: per "
					 "run the summary matrix, per point the ratio table, plots and "
					 "evidence (report/report.md); several files without --pool: "
					 "one part each\n", opts, NOPTS, NULL);
			return 0;
		case ':': fl_usage_error("report: %s needs a value", argv[optind - 1]);
		default:
			fl_usage_error("report: unknown option '%s' (see futexlab report --help)",
				       argv[optind - 1]);
		}
	}
	return fl_report_html(argc - optind, argv + optind, out, baseline, pool, stdout);
}
