/* harness/cmd_compare.c — `futexlab compare`: one CSV's ratio table, or
 * two CSVs before/after (ratios.h: by in-run ratios unless --absolute). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "harness/commands.h"
#include "report/gate.h"
#include "report/pool.h"
#include "report/ratios.h"
#include "report/summary.h"
#include "variants/variant.h"

static const struct fl_option opts[] = {
	{ "baseline", required_argument, 'b', "NAME", "the variant ratios are taken against "
	  "(default glibc)" },
	{ "absolute", no_argument, 'A', NULL, "two files: compare ns per op instead (cannot "
	  "tell a change from the machine drifting between the runs)" },
	{ "all", no_argument, 'a', NULL, "two files: list every pair, not only the changes" },
	{ "tsv", no_argument, 't', NULL, "one file: one tab-separated line per point and "
	  "variant (what scripts/plot reads); with --pool: the pool's, one line per point "
	  "and entry, then the 'vs-libraries' lines" },
	{ "pool", no_argument, 'p', NULL, "two or more files, runs of one configuration: "
	  "pooled with the run as the top level (per entry the ratio, where the long-run "
	  "ratio lies, where the next identical run's ratio will land, the verdict); then "
	  "per point the best futexlab entry against the fastest library, and the libraries line" },
	{ "against", required_argument, 'g', "FILE", "with --pool: a later run of the same "
	  "configuration checked against the pool (its ratio inside the next run's interval? "
	  "verdicts contradicting?), ending in one summary line" },
	{ "detail", no_argument, 'd', NULL, "one file: the full tables (per point every row, "
	  "the evidence, the libraries) before the summary" },
	{ "fail-on", required_argument, 'f', "slower|faster|any", "two files: exit 1 when "
	  "some pair's verdict is that (a change beyond the noise), each such pair one "
	  "'fail-on' line after the table, then a count line; exit 0 otherwise (a CI gate)" },
	{ "help", no_argument, 'h', NULL, "this text" },
};
#define NOPTS ((int)(sizeof opts / sizeof opts[0]))

static void usage(void)
{
	fl_options_usage(stdout,
		"usage: futexlab compare FILE.csv [OTHER.csv] [options]\n"
		"  one file:   the summary (the ratios of every variant against the baseline per\n"
		"              point, the fastest per point, the overall); --detail: the full tables\n"
		"  two files:  before (FILE) / after (OTHER) per point and variant; only the\n"
		"              changes beyond the noise are listed. By default the in-run\n"
		"              ratios to the baseline are compared (drift between the runs\n"
		"              cancels); the last line is 'N of M pairs changed beyond the noise'\n"
		"  --pool A.csv B.csv [C.csv...] [--against D.csv]: identical runs pooled, the run\n"
		"              as the top level (harness/verdicts.md, \"Runs as the top level\");\n"
		"              a single run's interval covers only that run's rounds\n"
		"  --fail-on slower|faster|any: two files, as a CI gate: exit 1 when a pair\n"
		"              changed that way beyond the noise (each named), else 0\n"
		"              (harness/verdicts.md, \"Across runs\")\n",
		opts, NOPTS, NULL);
}

/* One or two files loaded; the ratio table, the TSV or before/after (with
 * the gate when `g->fail_on`). */
static int compare_files(int nfiles, char **files, const char *baseline, bool all, bool tsv,
			 bool absolute, bool detail, struct fl_gate *g)
{
	struct fl_table t[2];
	struct fl_cells c[2];
	char err[300];
	for (int i = 0; i < nfiles; i++) {
		if (fl_table_load(&t[i], files[i], err, sizeof err) ||
		    fl_cells_build(&t[i], &c[i], err, sizeof err))
			fl_usage_error("compare: %s", err);
		if (t[i].nrows == 0)
			fl_usage_error("compare: %s has no rows (a run that measured nothing)",
				       files[i]);
		if (!absolute && !tsv && !fl_cell_find_variant(&c[i], baseline))
			fl_usage_error("compare: baseline '%s' is not in %s (see --baseline)",
				       baseline, files[i]);
	}
	int rc = 0;
	if (tsv) {
		fl_print_tsv(stdout, &c[0], baseline);
	} else if (nfiles == 1) {
		printf("futexlab compare %s\n", files[0]);
		fl_report_text(stdout, NULL, detail, &t[0], &c[0], baseline, NULL, NULL);
	} else {
		printf("futexlab compare %s %s\n", files[0], files[1]);
		struct fl_change_sink sink = { 0 };
		if (g->fail_on)
			sink = fl_gate_sink(g);
		fl_print_changes(stdout, &t[0], &c[0], &t[1], &c[1], baseline, all, absolute,
				 g->fail_on ? &sink : NULL);
		if (g->fail_on)
			rc = fl_gate_end(g, stdout);
	}
	for (int i = 0; i < nfiles; i++) {
		fl_cells_free(&c[i]);
		fl_table_free(&t[i]);
	}
	return rc;
}

int fl_cmd_compare(int argc, char **argv)
{
	struct option lopts[NOPTS + 1];
	fl_options_getopt(opts, NOPTS, lopts);
	const char *baseline = "glibc";
	bool all = false, tsv = false, absolute = false, pool = false, detail = false;
	const char *against = NULL;
	struct fl_gate g = { 0 };
	opterr = 0;
	optind = 1;
	int o;
	while ((o = getopt_long(argc, argv, ":", lopts, NULL)) != -1) {
		switch (o) {
		case 'b': baseline = fl_variant_name(optarg); break;
		case 'a': all = true; break;
		case 't': tsv = true; break;
		case 'A': absolute = true; break;
		case 'p': pool = true; break;
		case 'd': detail = true; break;
		case 'g': against = optarg; break;
		case 'f': fl_gate_parse(&g, optarg); break;
		case 'h': usage(); return 0;
		case ':': fl_usage_error("compare: %s needs a value", argv[optind - 1]);
		default:
			fl_usage_error("compare: unknown option '%s' (see futexlab compare --help)",
				       argv[optind - 1]);
		}
	}
	int nfiles = argc - optind;
	if (against && !pool)
		fl_usage_error("compare: --against takes --pool (a rerun checked against a pool)");
	if (pool) {
		if (absolute || all || g.fail_on)
			fl_usage_error("compare --pool: %s does not apply to a pool",
				       absolute ? "--absolute" : all ? "--all" : "--fail-on");
		return fl_pool_compare(stdout, nfiles, argv + optind, against, baseline, tsv);
	}
	if (nfiles < 1 || nfiles > 2)
		fl_usage_error("compare: give one or two CSV files (see futexlab compare --help)");
	if (tsv && nfiles != 1)
		fl_usage_error("compare: --tsv takes one file");
	if (absolute && nfiles != 2)
		fl_usage_error("compare: --absolute compares two files");
	if (g.fail_on && nfiles != 2)
		fl_usage_error("compare: --fail-on compares two files (before, after)");
	return compare_files(nfiles, argv + optind, baseline, all, tsv, absolute, detail, &g);
}
