/* harness/cmd_compare.c — `futexlab compare`: one CSV's ratio table, or
 * two CSVs before/after (ratios.h: by in-run ratios unless --absolute). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "harness/commands.h"
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
	  "and entry" },
	{ "pool", no_argument, 'p', NULL, "two or more files, runs of one configuration: "
	  "pooled with the run as the top level (per entry the ratio, where the long-run "
	  "ratio lies, where the next identical run's ratio will land, the verdict)" },
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

/* --fail-on: the verdicts that fail the gate, and what it found. Every
 * compared pair comes through gate_pair (ratios.h's sink); the failing
 * pairs' lines are kept and printed after the table, then the count. */
enum { FAIL_SLOWER = 1, FAIL_FASTER = 2 };
struct gate {
	unsigned fail_on;  /* FAIL_* bits; 0: no gate */
	const char *name;  /* slower, faster, any */
	FILE *lines;       /* the failing pairs' lines */
	char *buf;
	size_t len;
	int failed, compared;
};

static unsigned parse_fail_on(const char *s)
{
	if (!strcmp(s, "slower"))
		return FAIL_SLOWER;
	if (!strcmp(s, "faster"))
		return FAIL_FASTER;
	if (!strcmp(s, "any"))
		return FAIL_SLOWER | FAIL_FASTER;
	fl_usage_error("compare: --fail-on takes slower, faster or any, not '%s'", s);
}

static void fig(char *b, size_t n, int decimals, double v)
{
	if (decimals >= 0)
		snprintf(b, n, "%.*f", decimals, v);
	else
		snprintf(b, n, "%.6g", v);
}

static void gate_pair(void *arg, const struct fl_change *c)
{
	struct gate *g = arg;
	g->compared++;
	unsigned bit = c->verdict == FL_SLOWER ? FAIL_SLOWER
		       : c->verdict == FL_FASTER ? FAIL_FASTER : 0;
	if (!(bit & g->fail_on))
		return;
	g->failed++;
	char v[4][32], lo[2][32], hi[2][32];
	fig(v[0], sizeof v[0], c->decimals, c->before);
	fig(v[1], sizeof v[1], c->decimals, c->after);
	for (int i = 0; i < 2; i++) {
		fig(lo[i], sizeof lo[i], c->decimals, c->lo[i]);
		fig(hi[i], sizeof hi[i], c->decimals, c->hi[i]);
	}
	fprintf(g->lines, "fail-on %s: %s %s %s [%s, %s] -> %s [%s, %s] %s (%+.1f%%)\n", g->name,
		c->point, c->variant, v[0], lo[0], hi[0], v[1], lo[1], hi[1],
		fl_verdict_name(c->verdict), 100 * (c->after / c->before - 1));
}

/* The gate's lines and its count; its exit status (2: nothing compared). */
static int gate_end(struct gate *g)
{
	fclose(g->lines);
	fputs(g->buf, stdout);
	free(g->buf);
	const char *what = g->fail_on == (FAIL_SLOWER | FAIL_FASTER) ? "slower or faster"
			   : g->name;
	fflush(stdout);
	if (!g->compared)
		fl_usage_error("compare --fail-on: no pair was compared (the files share no "
			       "(point, variant) that ran in both)");
	printf("fail-on %s: %d of %d pairs %s beyond the noise: %s\n", g->name, g->failed,
	       g->compared, what, g->failed ? "FAIL (exit 1)" : "pass");
	return g->failed ? 1 : 0;
}

/* One or two files loaded; the ratio table, the TSV or before/after (with
 * the gate when `g->fail_on`). */
static int compare_files(int nfiles, char **files, const char *baseline, bool all, bool tsv,
			 bool absolute, bool detail, struct gate *g)
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
		struct fl_change_sink sink = { gate_pair, g };
		if (g->fail_on && !(g->lines = open_memstream(&g->buf, &g->len)))
			fl_usage_error("compare: out of memory");
		fl_print_changes(stdout, &t[0], &c[0], &t[1], &c[1], baseline, all, absolute,
				 g->fail_on ? &sink : NULL);
		if (g->fail_on)
			rc = gate_end(g);
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
	struct gate g = { 0 };
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
		case 'f': g.fail_on = parse_fail_on(optarg), g.name = optarg; break;
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
