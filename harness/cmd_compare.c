/* harness/cmd_compare.c — `futexlab compare`: one CSV's ratio table, two
 * CSVs before/after (changes.h: by in-run ratios unless --absolute), runs
 * pooled (pool.h), a change judged against the between-run spread of a
 * machine's history (judge.h), or the runs as JSON (json.h). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cli.h"
#include "harness/commands.h"
#include "harness/select.h"
#include "report/gate.h"
#include "report/json.h"
#include "report/judge.h"
#include "report/pool.h"
#include "model/model.h"
#include "report/changes.h"
#include "report/tables.h"
#include "report/summary.h"
#include "fail/xalloc.h"
#include "variants/variant.h"

static const struct fl_option opts[] = {
	{ "baseline", required_argument, 'b', "NAME", "the variant ratios are taken against "
	  "(default glibc)" },
	{ "absolute", no_argument, 'A', NULL, "two files: compare ns per op instead (cannot "
	  "tell a change from the machine drifting between the runs)" },
	{ "all", no_argument, 'a', NULL, "two files, or a judgement (--db --against; --pool "
	  "with --fail-on or several --against): list every pair, not only the changes" },
	{ "tsv", no_argument, 't', NULL, "tab-separated lines, of one file: one per point "
	  "and variant (what scripts/plot reads); with --pool: the pool's, one line per point "
	  "and entry, then the 'vs-libraries' lines; a judgement's (--db --against; --pool "
	  "with --fail-on or several --against): one line per pair (pred_lo pred_hi "
	  "against_ratio inside ...)" },
	{ "json", no_argument, 'j', NULL, "the runs (files, or --db's selection) as one JSON "
	  "object: runs, points, entries, cells (harness/json.md); with --fail-on and "
	  "--against, the judgement instead (futexlab-judgement/1), its exit status the "
	  "same" },
	{ "pool", no_argument, 'p', NULL, "two or more files, runs of one configuration on "
	  "one machine: pooled with the run as the top level (per entry the ratio, where the "
	  "long-run ratio lies, where the next identical run's ratio will land, the verdict); "
	  "then per point the best futexlab entry against the fastest library, and the "
	  "libraries line" },
	{ "against", required_argument, 'g', "FILE", "with --db: a later run judged against "
	  "the store's history of its machine; with --pool: the pool's own check of one FILE "
	  "(its ratio inside the next run's interval?), and a judgement against the pool with "
	  "--fail-on or several FILEs (repeat it for several, pooled)" },
	{ "detail", no_argument, 'd', NULL, "one file: the full tables (per point every row, "
	  "the evidence, the libraries) before the summary" },
	{ "fail-on", required_argument, 'f', "slower|faster|any", "two files, or --against "
	  "(--db, --pool): "
	  "exit 1 when some entry changed that way beyond the noise (against a history or a "
	  "pool: beyond the between-run spread), each such pair named, then a count line; "
	  "exit 0 otherwise (a CI gate)" },
	{ "threshold", required_argument, 'T', "PCT", "with --fail-on: the least change that "
	  "fails, in percent (default 10: report/judge.h argues it); against a history or a "
	  "pool, also the change every gated pair must be able to see for a pass (else "
	  "inconclusive, exit 3)" },
	{ "reference", required_argument, 'R', "REV|DATE", "with --db --against: judge the "
	  "new run also against a fixed window, the machine's runs of revisions beginning REV "
	  "or its last runs dated DATE or before (beside the rolling window of its last "
	  "earlier runs), so a regression crept in over many revisions fails; the worse of "
	  "the two judgements is the exit status" },
	{ "only", required_argument, 'O', "NAMES", "with --fail-on: only these entries may "
	  "fail it: designs (futexlab's and their policy forms), libraries, or a comma list "
	  "of names (NAME also matches NAME@POLICY)" },
	{ "across-machines", no_argument, 'X', NULL, "runs of different machines, which "
	  "--fail-on, --pool, --db and --json refuse otherwise: compare their same-run ratios "
	  "only (two files without --fail-on are compared by their ratios anyway)" },
	FL_SELECT_OPTIONS,
	{ "help", no_argument, 'h', NULL, "this text (also -h)" },
};
#define NOPTS ((int)(sizeof opts / sizeof opts[0]))

static void usage(void)
{
	fl_options_usage(stdout,
		"usage: futexlab compare FILE.csv [OTHER.csv] [options]\n"
		"       futexlab compare --pool A.csv B.csv [C.csv...] [--against D.csv...]\n"
		"       futexlab compare --db DB [--machine M] [--last N] --against NEW.csv...\n"
		"  one file:   the summary (the ratios of every variant against the baseline per\n"
		"              point, the fastest per point, the overall); --detail: the full tables\n"
		"  two files:  before (FILE) / after (OTHER) per point and variant; only the\n"
		"              changes beyond the noise are listed. By default the in-run\n"
		"              ratios to the baseline are compared (drift between the runs\n"
		"              cancels); the last line is 'N of M pairs changed beyond the noise'\n"
		"  runs:       identical runs pooled, the run as the top level (harness/verdicts.md,\n"
		"              \"Runs as the top level\"); a new run (or several) judged against the\n"
		"              pool or the store's history of its machine: per entry its ratio and\n"
		"              its own time against where a new run lands (\"Across runs\")\n",
		opts, NOPTS, NULL);
}

struct cmp {
	const char *baseline;
	bool all, tsv, json, absolute, pool, detail, across;
	char *against[64];
	int nagainst;
	struct fl_gate g;       /* its rule (gate.h) also the judgement's */
	struct fl_select sel;
	const char *reference;  /* --reference REV|DATE */
	const char *window;     /* the judgement's window: rolling, reference, pool */
	bool more;              /* a second judgement follows in one TSV: no header */
};

/* One or two files loaded; the ratio table, the TSV or before/after (with
 * the gate when `g.rule.fail_on`). */
static int compare_files(int nfiles, char **files, struct cmp *o)
{
	struct fl_loaded_run run[2];
	char err[300];
	for (int i = 0; i < nfiles; i++) {
		/* --absolute and --tsv need no baseline: none checked */
		const char *baseline = o->absolute || o->tsv ? NULL : o->baseline;
		if (fl_loaded_file(&run[i], files[i], err, sizeof err) ||
		    fl_loaded_check(&run[i], baseline, err, sizeof err))
			fl_usage_error("compare: %s", err);
	}
	if (nfiles == 2 && (o->g.rule.fail_on || o->absolute))
		fl_runs_check(run, 2, &(struct fl_runs_check){ "compare", o->across, false, NULL });
	int rc = 0;
	if (o->tsv) {
		struct fl_model m;
		fl_model_of_run(&m, &run[0], o->baseline);
		fl_print_tsv(stdout, &m, 0);
		fl_model_free(&m);
	} else if (nfiles == 1) {
		printf("futexlab compare %s\n", files[0]);
		fl_report_text(stdout, &run[0], &(struct fl_text_opts){ .show_detail = o->detail,
							  .baseline = o->baseline });
	} else {
		printf("futexlab compare %s %s\n", files[0], files[1]);
		struct fl_change_sink sink = { 0 };
		if (o->g.rule.fail_on)
			sink = fl_gate_sink(&o->g);
		fl_print_changes(stdout, &run[0], &run[1], &(struct fl_changes_opts){
			o->baseline, o->all, o->absolute, o->g.rule.fail_on ? &sink : NULL });
		if (o->g.rule.fail_on)
			rc = fl_gate_end(&o->g, stdout);
	}
	for (int i = 0; i < nfiles; i++)
		fl_loaded_free(&run[i]);
	return rc;
}

static struct fl_judge_opts judge_opts(const struct cmp *o)
{
	return (struct fl_judge_opts){ .rule = o->g.rule, .all = o->all, .tsv = o->tsv,
				       .ratio_only = o->across, .window = o->window,
				       .tsv_no_header = o->more, .json = o->json };
}

/* The model of the runs in r (history first, then the new side), judged
 * or printed as JSON. */
static int model_view(struct fl_runs *r, int nhist, struct cmp *o)
{
	char err[300];
	fl_runs_check(r->run, r->n, &(struct fl_runs_check){ "compare", o->across, true,
							     o->tsv || o->json ? stderr : stdout });
	struct fl_model m;
	if (fl_model_build(&m, r->run, r->n, o->baseline, err, sizeof err))
		fl_usage_error("compare: %s", err);
	int rc = 0;
	if (o->json && !o->g.rule.fail_on) {
		fl_model_json(stdout, &m);
	} else {
		if (fl_model_entry(&m, o->baseline) < 0)
			fl_usage_error("compare: baseline '%s' is in none of the runs (see "
				       "--baseline)", o->baseline);
		if (!o->tsv && !o->json)
			fl_judge_describe(stdout, &m, nhist);
		struct fl_judge_opts jo = judge_opts(o);
		rc = fl_judge(stdout, &m, nhist, &jo);
	}
	fl_model_free(&m);
	fl_runs_free(r);
	return rc;
}

/* Where a judgement's history was narrowed: said on the text's stream (on
 * stderr beside a TSV). */
static void history_note(const struct cmp *o, int later, int other, const char *settings)
{
	FILE *f = o->tsv || o->json ? stderr : stdout;
	if (later)
		fprintf(f, "note: %s: %d run%s of the machine left out of the history, dated (or "
			   "stored) at or after the new run: a history holds earlier runs only\n",
			o->window, later, later == 1 ? "" : "s");
	if (other)
		fprintf(f, "note: %s: %d run%s of other settings left out of the history (the new "
			   "run's: %s): quick and standard runs, or other rounds or durations, are "
			   "never one history\n", o->window, other, other == 1 ? "" : "s", settings);
}

/* The pool's runs that may be the new runs' history: dated before the
 * first of them, of its settings (the others freed and said). */
static int pool_history(struct fl_runs *r, int nfiles, const struct cmp *o)
{
	char set[sizeof r->run[0].settings]; /* a copy: the runs move below */
	const char *first = "";
	for (int i = nfiles; i < r->n; i++) {
		const char *d = r->run[i].date;
		if (strcmp(d, "?") && (!*first || strcmp(d, first) < 0))
			first = d;
	}
	snprintf(set, sizeof set, "%s", r->run[nfiles].settings);
	int k = 0, later = 0, others = 0;
	for (int i = 0; i < r->n; i++) {
		bool keep = i >= nfiles;
		if (!keep) {
			const char *other = r->run[i].settings, *d = r->run[i].date;
			bool late = *first && strcmp(d, first) >= 0;
			later += late;
			others += !late && strcmp(set, other);
			keep = !late && !strcmp(set, other);
		}
		if (!keep) {
			fl_loaded_free(&r->run[i]);
			continue;
		}
		r->run[k++] = r->run[i];
	}
	r->n = k;
	history_note(o, later, others, set);
	return nfiles - later - others;
}

/* --pool FILES [--against F...]: the pool's own table; a judgement when a
 * gate is asked for or the new side is more than one run. */
static int compare_pool(int nfiles, char **files, struct cmp *o)
{
	if (o->absolute || o->detail)
		fl_usage_error("compare --pool: %s does not apply to a pool", o->absolute ?
			       "--absolute" : "--detail (the pool's table is its full table)");
	if (o->g.rule.fail_on && !o->nagainst)
		fl_usage_error("compare --pool: --fail-on judges later runs against the pool: give "
			       "--against NEW.csv");
	bool judge = o->g.rule.fail_on || o->nagainst > 1;
	if (o->all && !judge)
		fl_usage_error("compare --pool: --all lists a judgement's pairs: it goes with "
			       "--fail-on or several --against");
	struct fl_runs r;
	fl_runs_files(&r, "compare", files, nfiles, o->against, o->nagainst);
	fl_runs_check(r.run, r.n, &(struct fl_runs_check){ "compare --pool", o->across, true, NULL });
	o->window = "pool";
	if (judge)
		nfiles = pool_history(&r, nfiles, o);
	if (judge && o->json) { /* the judgement alone, as JSON */
		printf("{\"schema\":\"%s\",\"windows\":[", FL_JUDGE_SCHEMA);
		int rc = model_view(&r, nfiles, o);
		printf("],\"exit\":%d}\n", rc);
		return rc;
	}
	if (nfiles < 2 && judge)
		return model_view(&r, nfiles, o);
	if (!judge || !o->tsv) {
		bool one = o->nagainst == 1;
		int rc = fl_pool_compare(stdout, r.run, nfiles, &(struct fl_pool_opts){
			.against = one ? &r.run[nfiles] : NULL, .baseline = o->baseline,
			.tsv = o->tsv });
		if (!judge) {
			fl_runs_free(&r);
			return rc;
		}
		printf("\n");
	}
	return model_view(&r, nfiles, o);
}

/* --db: the store's runs, the history of the new runs' machine (or, with
 * --json and no --against, the selection). */
static int compare_db(int nfiles, char **files, struct cmp *o)
{
	if (nfiles)
		fl_usage_error("compare --db: the runs come from the store and --against; give "
			       "no file (%s)", files[0]);
	if (o->absolute || o->detail || o->pool)
		fl_usage_error("compare --db: %s does not apply", o->absolute ? "--absolute"
							 : o->detail ? "--detail" : "--pool");
	if (!o->nagainst && !o->json)
		fl_usage_error("compare --db: give --against NEW.csv (the run judged against the "
			       "store's history of its machine), or --json");
	if (o->reference && !o->nagainst)
		fl_usage_error("compare --db: --reference is a window a new run is judged against: "
			       "give --against NEW.csv");
	struct fl_runs r;
	o->window = "rolling";
	int nhist = fl_runs_store(&r, &o->sel, o->against, o->nagainst, o->across);
	if (!o->nagainst)
		return model_view(&r, r.n, o);
	history_note(o, r.later, r.other_settings, r.settings);
	o->more = false;
	bool json = o->json && o->g.rule.fail_on;
	if (json)
		printf("{\"schema\":\"%s\",\"windows\":[", FL_JUDGE_SCHEMA);
	int rc = model_view(&r, nhist, o);
	if (!o->reference) {
		if (json)
			printf("],\"exit\":%d}\n", rc);
		return rc;
	}
	/* the fixed window: a revision's runs, or the last runs up to a date */
	struct fl_select ref = o->sel;
	bool date = strlen(o->reference) >= 4 && strspn(o->reference, "0123456789") == 4 &&
		    (!o->reference[4] || o->reference[4] == '-');
	ref.rev = date ? o->sel.rev : o->reference;
	ref.until = date ? o->reference : NULL;
	o->window = "reference";
	o->more = o->tsv;
	if (!o->tsv && !o->json)
		printf("\nreference window (%s %s):\n", date ? "dated up to" : "revision",
		       o->reference);
	if (json)
		putchar(',');
	nhist = fl_runs_store(&r, &ref, o->against, o->nagainst, o->across);
	history_note(o, r.later, r.other_settings, r.settings);
	int rc2 = model_view(&r, nhist, o);
	/* the worse of the two: a failure, then an undecided judgement */
	rc = rc == FL_JUDGE_FAIL || rc2 == FL_JUDGE_FAIL ? FL_JUDGE_FAIL
	     : rc == FL_JUDGE_INCONCLUSIVE || rc2 == FL_JUDGE_INCONCLUSIVE ? FL_JUDGE_INCONCLUSIVE
	     : rc;
	if (json)
		printf("],\"exit\":%d}\n", rc);
	else if (!o->tsv)
		printf("\nrolling and reference windows: %s (exit %d)\n", rc == FL_JUDGE_FAIL ?
		       "FAIL" : rc == FL_JUDGE_INCONCLUSIVE ? "INCONCLUSIVE" : "pass", rc);
	return rc;
}

/* --json prints the runs as data: the options of the text views have
 * nothing to act on there. */
static void json_refusals(const struct cmp *o)
{
	if (!o->json)
		return;
	/* with --fail-on and --against: the judgement as JSON */
	bool judgement = o->g.rule.fail_on && o->nagainst;
	const char *no = o->tsv ? "--tsv" : o->detail ? "--detail" : o->all ? "--all"
			 : o->absolute ? "--absolute" : o->pool && !judgement ? "--pool"
			 : o->g.rule.fail_on && !judgement ? "--fail-on" : NULL;
	if (no)
		fl_usage_error("compare --json: %s does not apply (the JSON holds the runs' cells, "
			       "no view of them; with --fail-on and --against, the judgement)", no);
}

static void parse(int argc, char **argv, struct cmp *o)
{
	struct option lopts[NOPTS + 1];
	fl_options_getopt(opts, NOPTS, lopts);
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		if (fl_select_option(&o->sel, c, optarg))
			continue;
		switch (c) {
		case 'b': o->baseline = fl_variant_name(optarg); break;
		case 'a': o->all = true; break;
		case 't': o->tsv = true; break;
		case 'j': o->json = true; break;
		case 'A': o->absolute = true; break;
		case 'p': o->pool = true; break;
		case 'd': o->detail = true; break;
		case 'X': o->across = true; break;
		case 'g':
			if (o->nagainst == 64)
				fl_usage_error("compare: at most 64 --against files");
			o->against[o->nagainst++] = optarg;
			break;
		case 'f': fl_gate_parse(&o->g.rule, optarg); break;
		case 'T': o->g.rule.threshold = fl_parse_double("--threshold", optarg, 0, 1000) / 100; break;
		case 'O': fl_only_check(optarg), o->g.rule.only = optarg; break;
		case 'R': o->reference = optarg; break;
		case 'h': usage(); exit(0);
		case ':': fl_usage_error("compare: %s needs a value", argv[optind - 1]);
		default:
			fl_usage_error("compare: unknown option '%s' (see futexlab compare --help)",
				       argv[optind - 1]);
		}
	}
}

int fl_cmd_compare(int argc, char **argv)
{
	struct cmp o = { .baseline = "glibc", .g.rule.threshold = NAN };
	parse(argc, argv, &o);
	int nfiles = argc - optind;
	char **files = argv + optind;
	if (!isnan(o.g.rule.threshold) && !o.g.rule.fail_on)
		fl_usage_error("compare: --threshold goes with --fail-on");
	if (o.g.rule.only && !o.g.rule.fail_on)
		fl_usage_error("compare: --only goes with --fail-on");
	if (isnan(o.g.rule.threshold))
		o.g.rule.threshold = FL_JUDGE_THRESHOLD;
	json_refusals(&o);
	if (o.sel.db)
		return compare_db(nfiles, files, &o);
	if (fl_select_given(&o.sel))
		fl_usage_error("compare: --machine, --rev, --since and --last select runs of a "
			       "store: they go with --db");
	if (o.reference)
		fl_usage_error("compare: --reference is a window of a store's runs: it goes with "
			       "--db and --against");
	if (o.nagainst && !o.pool)
		fl_usage_error("compare: --against takes --pool (runs pooled) or --db (a store's "
			       "history)");
	if (o.pool)
		return compare_pool(nfiles, files, &o);
	if (o.json) {
		if (nfiles < 1)
			fl_usage_error("compare --json: give one or more CSV files (or --db)");
		struct fl_runs r;
		fl_runs_files(&r, "compare", files, nfiles, NULL, 0);
		return model_view(&r, nfiles, &o);
	}
	if (nfiles < 1 || nfiles > 2)
		fl_usage_error("compare: give one or two CSV files (see futexlab compare --help)");
	if (o.tsv && nfiles != 1)
		fl_usage_error("compare: --tsv takes one file (or --pool's, or --against's)");
	if (o.absolute && nfiles != 2)
		fl_usage_error("compare: --absolute compares two files");
	if (o.absolute && o.across)
		fl_usage_error("compare: --absolute compares times, which mean nothing across "
			       "machines (--across-machines compares ratios)");
	if (o.g.rule.fail_on && nfiles != 2)
		fl_usage_error("compare: --fail-on compares two files (before, after), or "
			       "--against a pool or a store");
	if (o.all && nfiles != 2)
		fl_usage_error("compare: --all lists the pairs of two files (one file's tables "
			       "list every entry already)");
	if (o.detail && nfiles != 1)
		fl_usage_error("compare: --detail is one file's full tables (two files: --all "
			       "lists every pair)");
	if (o.detail && o.tsv)
		fl_usage_error("compare: --detail is the text's full tables; --tsv prints every "
			       "point already");
	if (o.across && !o.g.rule.fail_on)
		fl_usage_error("compare: --across-machines goes with --fail-on, --pool, --db or "
			       "--json (%s)", nfiles == 1 ? "one file has one machine" :
			       "two files are compared by their ratios without it");
	return compare_files(nfiles, files, &o);
}
