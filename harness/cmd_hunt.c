/* harness/cmd_hunt.c — `futexlab hunt`: the lost-wakeup hunter
 * (hunt/README.md). It runs the stress patterns of hunt/patterns.h on each
 * design, rep after rep, with the stranded-waiter detector watching every
 * rep, and reports per design x pattern: ops run, seconds, preemption
 * signals that landed in the library's text, stranded waiters found and the
 * first one's evidence (pattern, ops run until then, the note), CPU per op
 * and, with the collector (root; --no-probes: not loaded), the kernel's
 * futex counts per op, counted in every rep; then one verdict line per
 * design.
 *
 * Rounds: each round runs one rep of every (design, pattern) cell whose
 * time (--seconds) is not used up yet, in a fixed order, so an interrupted
 * hunt has covered every cell about equally. A rep is the pattern's run
 * (hunt/patterns.h: waves of tokens, then a quiet drain), through the one
 * rep runner (proc/rep.h: the stranded-waiter detector around it, in
 * process or in a helper-run design's helper); its counts come back as result
 * fields (preempt_hits, preempt_signals, stranded_taken), its settings go
 * as fl_params fields (preempt_*), so they reach a helper too. Every rep
 * is one CSV row (record/hunt_row.h; record/csv.c: the file always holds
 * every finished row); the table and the verdicts are printed at the end,
 * from the cells' totals.
 *
 * --policy P: the designs' waiting policy (variants/policy.h) for the whole
 * hunt, one policy (a lost wakeup is a property of a design under a
 * policy: a spin that takes the token may hide a wake the design loses, or
 * change which interleavings the patterns reach); a design runs as
 * NAME@POLICY (park: NAME), a shipped library waits its own way.
 *
 * fl_hunt_main is the command's core (commands.h), so that a test
 * executable can hunt in designs that are not registered (tests/
 * hunt_mutants.c). Exit status: 0 when the hunt ran (a lost wakeup is a
 * result, not a failure), 2 for bad input (one line), 130 when interrupted
 * (what finished is kept: table and CSV). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/cli.h"
#include "harness/commands.h"
#include "record/csv.h"
#include "record/hunt_row.h"
#include "runner/spec.h"
#include "fail/xalloc.h"
#include "hunt/cells.h"
#include "hunt/elfsym.h"
#include "hunt/patterns.h"
#include "hunt/preempt.h"
#include "lib/clock.h"
#include "lib/wake.h"
#include "proc/helper.h"
#include "proc/interrupt.h"
#include "proc/rep.h"
#include "probes/probes.h"

/* The options, each with its help: the usage is generated from this table
 * (fl_options_usage). A NULL help is an older name, accepted with a note. */
static const struct fl_option hunt_opts[] = {
	{ "variant", required_argument, 'v', "LIST", "designs, comma separated, or 'all' "
	  "(default all)" },
	{ "policy", required_argument, 'P', "POLICY", "the designs' waiting policy, one of "
	  FL_POLICY_NAMES " (default park); the designs run as NAME@POLICY, the shipped "
	  "libraries wait their own way" },
	{ "pattern", required_argument, 'p', "LIST", "herd, steal, crowd, preempt, or 'all' "
	  "(default all; the patterns are below)" },
	{ "seconds", required_argument, 's', "S", "per design and pattern (default 2)" },
	{ "rep-seconds", required_argument, 'r', "S", "seconds per rep, each ending in a quiet "
	  "drain (default 0.5; --rep is its old name)" },
	{ "rep", required_argument, 'R', "S", NULL },
	{ "stranded-ms", required_argument, 'm', "MS", "a waiter asleep this long with tokens "
	  "available is stranded, 1..10000 (default 50)" },
	{ "stall-us", required_argument, 'u', "US", "preempt: the stall at an interrupted "
	  "library instruction, 0..10000 (default 20; --spin-us is its old name)" },
	{ "spin-us", required_argument, 'U', "US", NULL },
	{ "interval-us", required_argument, 'i', "US", "preempt: a signal per US of each "
	  "thread's CPU time, 10..1000000 (default 500)" },
	{ "text", required_argument, 't', "SPEC", "preempt: this text spec for every design "
	  "instead of its own (dso:NAME, sym:PREFIX, src:FILE.c; ';' between items)" },
	{ "csv", required_argument, 'c', "FILE", "one row per rep (atomically; Ctrl-C keeps "
	  "finished rows)" },
	{ "no-probes", no_argument, 'N', NULL, "do not load the eBPF collector (default: it counts "
	  "every rep's futex calls, when root and BPF work: the table's kernel columns)" },
	{ "quiet", no_argument, 'q', NULL, "no progress (on a terminal one line rewritten, "
	  "elsewhere a line per design and pattern done, one each 5 s at most)" },
	{ "lib", required_argument, 'L', "B+T=PATH", "a row B+T: the library row B (glibc, "
	  "cxx-llvm, cxx-gnu) on the build at PATH, hunted in a helper on that library (as run's "
	  "--lib); name it in --variant; repeatable" },
	{ "help", no_argument, 'h', NULL, "this text (also -h)" },
};
#define NOPTS ((int)(sizeof hunt_opts / sizeof hunt_opts[0]))

static void usage(void)
{
	fl_options_usage(stdout,
		"usage: futexlab hunt [options]   the lost-wakeup hunter\n"
		"  Runs the stress patterns that expose lost wakeups on each design, with the\n"
		"  stranded-waiter detector watching every rep, and reports per design and\n"
		"  pattern the ops run, preemption signals that landed in the library's text,\n"
		"  stranded waiters found and the first one's evidence; then a verdict per design.\n",
		hunt_opts, NOPTS,
		"  The patterns:\n"
		"    herd     max(16, 4 x cores) waiters, waves of 1-2 tokens\n"
		"    steal    2 waiters, 2 stealers trywait and re-post\n"
		"    crowd    steal with 8 x cores waiters, 2 x cores stealers\n"
		"    preempt  steal, a timer stalling threads in the library's text\n"
		"  Exit status 0 when the hunt ran (a lost wakeup found is a result), 2 for bad\n"
		"  input, 130 when interrupted (the table of what finished is printed).\n");
}

/* The options, as given (fl_hunt_main's defaults). */
struct opts {
	const char *vlist, *plist, *text, *csv_path;
	struct fl_policy policy;  /* --policy */
	bool policy_given;
	int64_t seconds_ns, rep_ns, stranded_ms, stall_us, interval_us;
	bool quiet, no_probes;
};

/* What a rep's hooks share: the CSV, the pattern. */
struct rep_arg {
	struct fl_csv *csv;
	const char *pattern;
};

/* A helper that started says what it runs on (proc/rep.h). */
static void csv_meta(void *arg, const char *line)
{
	fl_csv_meta(((struct rep_arg *)arg)->csv, "%s", line);
}

/* The collector around every rep (a helper-run design's: in its helper). */
static void probes_begin(void *arg, pid_t pid)
{
	(void)arg, fl_probes_rep_begin(pid);
}

static void probes_end(void *arg, pid_t pid, const struct fl_result *r)
{
	fl_probes_rep_end(pid, ((struct rep_arg *)arg)->pattern, r->ops);
}

/* Rep r of cell c into the cell's totals (hunt/cells.h) and its CSV row. */
static void fold(struct fl_hunt_cell *c, const struct fl_result *r, struct fl_csv *csv)
{
	struct fl_hunt_rep x = { c->label, c->w->name, 0, r, 0, "", "", false };
	struct fl_kcounts k;
	x.probed = fl_probes_rep_kcounts(&k);
	fl_hunt_fold(c, r, x.probed ? &k : NULL, &x.status, &x.note, &x.stranded);
	x.rep = c->reps;
	int e = fl_hunt_csv_add(csv, &x);
	if (e)
		fprintf(stderr, "futexlab: cannot write %s: %s\n", csv->path, strerror(e));
}

/* One rep of cell c: runs it and folds it into the cell; the CSV row. */
static void run_rep(struct fl_hunt_cell *c, const struct fl_params *base, struct fl_csv *csv)
{
	struct fl_result r = FL_RESULT_EMPTY;
	struct rep_arg a = { csv, c->w->name };
	struct fl_rep_hooks hooks = { probes_begin, probes_end, csv_meta, &a };
	fl_rep_run(&(struct fl_rep){ c->v, c->w, *base, FL_WAKE_EXACT, c->policy }, &hooks, &r);
	free(r.lat);
	if (fl_interrupted)
		return; /* an interrupted rep is not a result */
	if (!strncmp(r.error, "preempt: ", 9) && r.ops == 0) {
		/* the preemption could not be set up (a text spec matching
		 * nothing in that process): the cell cannot run, no finding */
		c->unavailable = fl_xstrdup(r.error);
		return;
	}
	fold(c, &r, csv);
}

/* An option's old name: accepted, with one line saying the new one. */
static void renamed(const char *old, const char *now)
{
	fprintf(stderr, "futexlab: hunt: %s is now %s (the old name still works)\n", old, now);
}

/* --policy P: one policy (a list is refused: run and sweep cross them). */
static void policy_opt(struct opts *o, const char *text)
{
	char err[160];
	if (strchr(text, ','))
		fl_usage_error("hunt: --policy takes one policy, not a list ('%s')", text);
	if (fl_policy_parse(text, &o->policy, err, sizeof err))
		fl_usage_error("--policy: %s", err);
	o->policy_given = true;
}

/* argv into o (the defaults set by the caller). 1 when --help was printed. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	struct option opts[NOPTS + 1];
	fl_options_getopt(hunt_opts, NOPTS, opts);
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'v': o->vlist = optarg; break;
		case 'p': o->plist = optarg; break;
		case 'P': policy_opt(o, optarg); break;
		case 's': o->seconds_ns = fl_parse_seconds("--seconds", optarg, 86400); break;
		case 'r': o->rep_ns = fl_parse_seconds("--rep-seconds", optarg, 60); break;
		case 'R': /* the note after the value parsed: bad input stays one line */
			o->rep_ns = fl_parse_seconds("--rep", optarg, 60);
			renamed("--rep", "--rep-seconds");
			break;
		case 'm': o->stranded_ms = fl_parse_int("--stranded-ms", optarg, 1, 10000); break;
		case 'u': o->stall_us = fl_parse_int("--stall-us", optarg, 0, 10000); break;
		case 'U':
			o->stall_us = fl_parse_int("--spin-us", optarg, 0, 10000);
			renamed("--spin-us", "--stall-us");
			break;
		case 'i': o->interval_us = fl_parse_int("--interval-us", optarg, 10, 1000000); break;
		case 't': o->text = optarg; break;
		case 'c': o->csv_path = optarg; break;
		case 'q': o->quiet = true; break;
		case 'N': o->no_probes = true; break;
		case 'L': fl_lib_option(optarg); break;
		case 'h': usage(); return 1;
		default:
			fl_usage_error("hunt: unknown or incomplete option '%s' (futexlab hunt --help)",
				       argv[optind - 1]);
		}
	}
	if (optind < argc)
		fl_usage_error("hunt: unexpected argument '%s' (futexlab hunt --help)", argv[optind]);
	if (o->rep_ns > o->seconds_ns)
		o->rep_ns = o->seconds_ns;
	char why[200];
	if (o->text && fl_text_spec_check(o->text, why, sizeof why))
		fl_usage_error("--text: %s", why);
	return 0;
}

/* --pattern LIST into ws[] (at most 8): 'all' or names, no name twice. */
static int patterns(const char *plist, const struct fl_workload **ws)
{
	int np = 0;
	if (!strcmp(plist, "all")) {
		for (int i = 0; i < fl_hunt_npatterns; i++)
			ws[np++] = fl_hunt_patterns[i];
		return np;
	}
	char buf[1024], *items[8];
	snprintf(buf, sizeof buf, "%s", plist);
	int n = fl_split_list("--pattern", buf, items, 8);
	for (int i = 0; i < n; i++) {
		const struct fl_workload *w = fl_hunt_pattern_find(items[i]);
		if (!w)
			fl_usage_error("--pattern: unknown pattern '%s' (herd, steal, crowd, "
				       "preempt)", items[i]);
		for (int k = 0; k < np; k++)
			if (ws[k] == w)
				fl_usage_error("--pattern: '%s' given twice", items[i]);
		ws[np++] = w;
	}
	return np;
}

/* The cells, design-major, each with why it cannot run (or NULL). */
static struct fl_hunt_cell *make_cells(const struct fl_variant **vs, int nv,
			       const struct fl_workload **ws, int np, const struct fl_params *base,
			       const struct opts *o)
{
	bool takes = false;
	for (int i = 0; i < nv; i++)
		takes |= fl_policy_applies(vs[i]);
	if (o->policy_given && !takes)
		fl_usage_error("hunt: --policy: no design of --variant takes a policy (the shipped "
			       "libraries wait their own way: futexlab list)");
	struct fl_hunt_cell *cells = fl_xcalloc((size_t)(nv * np), sizeof *cells);
	for (int i = 0; i < nv; i++)
		for (int k = 0; k < np; k++) {
			struct fl_hunt_cell *c = &cells[i * np + k];
			fl_hunt_cell_init(c, vs[i], ws[k], &o->policy);
			c->unavailable = fl_rep_unavailable(vs[i]);
			if (!c->unavailable && ws[k]->unavailable)
				c->unavailable = ws[k]->unavailable(vs[i], base);
		}
	return cells;
}

/* Off a terminal (a CI log), a line when a design and pattern finishes,
 * at most one every HUNT_LOG_GAP_S and the last one always, e.g.
 * "futexlab: progress: hunt 12/56 done after 25s (negcount herd)": a log
 * is never silent for the whole hunt. On a terminal the one line above is
 * rewritten instead. */
#define HUNT_LOG_GAP_S 5.0
static void hunt_log(const struct fl_hunt_cell *cells, int nc, const struct fl_hunt_cell *c,
		     int64_t seconds_ns, int64_t t0, int64_t *logged)
{
	int done = 0, all = 0;
	for (int i = 0; i < nc; i++)
		if (!cells[i].unavailable) {
			all++;
			done += cells[i].elapsed_ns >= seconds_ns;
		}
	int64_t now = fl_now_ns();
	if (done < all && *logged && (double)(now - *logged) / 1e9 < HUNT_LOG_GAP_S)
		return;
	*logged = now;
	fprintf(stderr, "futexlab: progress: hunt %d/%d done after %.0fs (%s %s)\n", done, all,
		(double)(now - t0) / 1e9, c->v->name, c->w->name);
}

/* Rounds until every cell's time is used up (or Ctrl-C). */
static void hunt(struct fl_hunt_cell *cells, int nc, const struct opts *o, const struct fl_params *base,
		 struct fl_csv *csv, int64_t t0)
{
	bool tty = isatty(2);
	int64_t logged = 0;
	for (int round = 1; !fl_interrupted; round++) {
		bool any = false;
		for (int i = 0; i < nc && !fl_interrupted; i++) {
			struct fl_hunt_cell *c = &cells[i];
			if (c->unavailable || c->elapsed_ns >= o->seconds_ns)
				continue;
			any = true;
			if (!o->quiet && tty)
				fprintf(stderr, "\r\033[Kround %d: %s %s (%.0f s)", round, c->v->name,
					c->w->name, (fl_now_ns() - t0) / 1e9);
			int64_t before = c->elapsed_ns;
			run_rep(c, base, csv);
			if (c->elapsed_ns == before && !fl_interrupted)
				c->elapsed_ns = o->seconds_ns; /* no time passed: never ends otherwise */
			if (c->elapsed_ns >= o->seconds_ns && !o->quiet && !tty)
				hunt_log(cells, nc, c, o->seconds_ns, t0, &logged); /* this cell is done */
		}
		if (!any)
			break;
	}
}

int fl_hunt_main(int argc, char **argv, const struct fl_variant *const *extra, int nextra)
{
	struct opts o = { .vlist = "all", .plist = "all", .policy = FL_POLICY_PARK_INIT,
			  .seconds_ns = 2000000000, .rep_ns = 500000000, .stranded_ms = 50,
			  .stall_us = FL_PREEMPT_STALL_NS / 1000,
			  .interval_us = FL_PREEMPT_INTERVAL_NS / 1000 };
	if (parse_opts(argc, argv, &o))
		return 0;
	const struct fl_variant *vs[FL_MAXLIST];
	const struct fl_workload *ws[8];
	int nv = fl_variant_list(o.vlist, extra, nextra, vs), np = patterns(o.plist, ws);
	/* The patterns' settings travel with the rep (a helper's too). */
	struct fl_params base = { .threads = 1, .tokens = 1, .sems = 1, .duration_ns = o.rep_ns,
				  .stranded_ns = o.stranded_ms * 1000000,
				  .preempt_stall_ns = o.stall_us * 1000,
				  .preempt_interval_ns = o.interval_us * 1000 };
	snprintf(base.preempt_text, sizeof base.preempt_text, "%s", o.text ? o.text : "");
	int nc = nv * np;
	struct fl_hunt_cell *cells = make_cells(vs, nv, ws, np, &base, &o);
	struct fl_csv csv;
	int e = fl_csv_open(&csv, o.csv_path, fl_hunt_csv_header(), argc, argv);
	if (e) {
		fprintf(stderr, "futexlab: cannot write %s: %s\n", o.csv_path, strerror(e));
		free(cells);
		return 1;
	}
	fl_csv_meta(&csv, "hunt: %lld s per design and pattern, reps of %.3f s, stranded after "
		    "%lld ms; preempt: stall %lld us per hit, a signal per %lld us of thread CPU "
		    "time%s%s", (long long)(o.seconds_ns / 1000000000), o.rep_ns / 1e9,
		    (long long)o.stranded_ms, (long long)o.stall_us, (long long)o.interval_us,
		    o.text ? ", text " : "", o.text ? o.text : "");
	char ptext[FL_POLICY_TEXT_MAX];
	fl_csv_meta(&csv, "policy: %s (the designs'; the shipped libraries wait their own way)",
		    fl_policy_format(&o.policy, ptext, sizeof ptext));
	fl_probes_setup(o.no_probes ? FL_PROBES_OFF : FL_PROBES_DEFAULT);
	fl_csv_meta(&csv, "probes: %s%s", fl_probes_loaded() ? "every rep" : "off: ",
		    fl_probes_off_why());
	fl_interrupt_catch();
	printf("futexlab hunt — %d designs x %d patterns, %.1f s each in reps of %.2f s, "
	       "policy %s\n", nv, np, o.seconds_ns / 1e9, o.rep_ns / 1e9, ptext);
	fflush(stdout);
	int64_t t0 = fl_now_ns();
	hunt(cells, nc, &o, &base, &csv, t0);
	fl_helper_shutdown();
	if (!o.quiet && isatty(2))
		fprintf(stderr, "\r\033[K");
	fl_hunt_table(stdout, cells, nc, fl_probes_off_why());
	fl_probes_teardown();
	fl_hunt_verdicts(stdout, cells, nc, np);
	printf("\nhunt %s in %.1f s\n", fl_interrupted ? "INTERRUPTED" : "done",
	       (fl_now_ns() - t0) / 1e9);
	if (o.csv_path)
		printf("CSV: %s (%d rows%s)\n", o.csv_path, csv.n,
		       fl_interrupted ? ", every rep finished before the interrupt" : "");
	fl_csv_close(&csv);
	free(cells);
	return fl_interrupted ? 130 : 0;
}

int fl_cmd_hunt(int argc, char **argv)
{
	return fl_hunt_main(argc, argv, NULL, 0);
}
