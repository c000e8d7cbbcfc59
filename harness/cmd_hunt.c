/* harness/cmd_hunt.c — `futexlab hunt`: the lost-wakeup hunter
 * (hunt/README.md). It runs the stress patterns of hunt/patterns.h on each
 * design, rep after rep, with the stranded-waiter detector watching every
 * rep, and reports per design x pattern: ops run, seconds, preemption
 * signals that landed in the library's text, stranded waiters found and the
 * first one's evidence (pattern, ops run until then, the note); then one
 * verdict line per design.
 *
 * Rounds: each round runs one rep of every (design, pattern) cell whose
 * time (--seconds) is not used up yet, in a fixed order, so an interrupted
 * hunt has covered every cell about equally. A rep is the pattern's run
 * (hunt/patterns.h: waves of tokens, then a quiet drain), through the one
 * rep runner (proc/rep.h: the stranded-waiter detector around it, in
 * process or in a helper-run design's helper); its counts come back as result
 * fields (preempt_hits, preempt_signals, stranded_taken), its settings go
 * as fl_params fields (preempt_*), so they reach a helper too. Every rep
 * is one CSV row (record/csv.c: the file always holds every finished
 * row); the table and the verdicts are printed at the end, from the cells'
 * totals.
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

#include "harness/cli.h"
#include "harness/commands.h"
#include "record/csv.h"
#include "harness/spec.h"
#include "report/xalloc.h"
#include "hunt/elfsym.h"
#include "hunt/patterns.h"
#include "hunt/preempt.h"
#include "lib/clock.h"
#include "lib/wake.h"
#include "proc/helper.h"
#include "proc/interrupt.h"
#include "proc/rep.h"

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
	{ "quiet", no_argument, 'q', NULL, "no progress line" },
	{ "help", no_argument, 'h', NULL, "this text" },
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

static const char csv_header[] =
	"variant,pattern,rep,ops,elapsed_ns,signals,text_hits,stranded,stranded_max_ns,"
	"status,note";

struct cell {
	const struct fl_variant *v;
	struct fl_policy policy;  /* --policy, park for a shipped library */
	char label[40];           /* NAME or NAME@POLICY (fl_entry_label) */
	const struct fl_workload *w;
	const char *unavailable; /* non-NULL: why this cell does not run */
	int reps;
	int64_t ops, elapsed_ns, signals, hits;
	int64_t stranded;      /* stranded waiters found, over all reps */
	int64_t stranded_max_ns;
	int errors;            /* reps with another broken invariant */
	int found_rep;         /* 0: nothing found yet */
	int64_t found_ops;     /* ops run in this cell up to the end of that rep */
	char found[240];       /* the first finding's note */
};

/* The options, as given (fl_hunt_main's defaults). */
struct opts {
	const char *vlist, *plist, *text, *csv_path;
	struct fl_policy policy;  /* --policy */
	bool policy_given;
	int64_t seconds_ns, rep_ns, stranded_ms, stall_us, interval_us;
	bool quiet;
};

/* A helper that started says what it runs on (proc/rep.h). */
static void csv_meta(void *arg, const char *line)
{
	fl_csv_meta(arg, "%s", line);
}

/* The first finding of cell c, from rep r: its note, and the ops run until
 * it — the earlier reps', plus this rep's acquisitions up to it when the
 * detector confirmed it (stranded_taken: every wait and trywait that took a
 * token, i.e. this pattern's ops), else this rep's whole count. */
static void first_finding(struct cell *c, const struct fl_result *r)
{
	c->found_rep = c->reps;
	c->found_ops = c->ops;
	if (r->stranded > 0 && r->stranded_taken <= r->ops)
		c->found_ops = c->ops - r->ops + r->stranded_taken;
	snprintf(c->found, sizeof c->found, "%s", r->error);
}

/* Rep r of cell c into the cell's totals and its CSV row. */
static void fold(struct cell *c, const struct fl_result *r, struct fl_csv *csv)
{
	c->reps++;
	c->ops += r->ops;
	c->elapsed_ns += r->elapsed_ns;
	c->hits += r->preempt_hits;
	c->signals += r->preempt_signals;
	/* The detector's count; a wave the pattern itself saw stall (the
	 * detector off, or a stranding it could not confirm) counts one. */
	int64_t stranded = r->stranded > 0 ? r->stranded : 0, smax = r->stranded_max_ns;
	const char *status = "ok", *note = r->info;
	if (r->error[0] && strstr(r->error, "lost wakeup")) {
		status = "stranded";
		note = r->error;
		stranded = stranded ? stranded : 1;
	} else if (r->error[0]) {
		status = "error";
		note = r->error;
		c->errors++;
	}
	c->stranded += stranded;
	if (smax > c->stranded_max_ns)
		c->stranded_max_ns = smax;
	if (r->error[0] && !c->found_rep)
		first_finding(c, r);
	char q[512], row[1024];
	fl_csv_quote(q, sizeof q, note);
	snprintf(row, sizeof row, "%s,%s,%d,%lld,%lld,%lld,%lld,%lld,%lld,%s,%s", c->label,
		 c->w->name, c->reps, (long long)r->ops, (long long)r->elapsed_ns,
		 (long long)r->preempt_signals, (long long)r->preempt_hits, (long long)stranded,
		 (long long)smax, status, q);
	int e = fl_csv_add(csv, row);
	if (e)
		fprintf(stderr, "futexlab: cannot write %s: %s\n", csv->path, strerror(e));
}

/* One rep of cell c: runs it and folds it into the cell; the CSV row. */
static void run_rep(struct cell *c, const struct fl_params *base, struct fl_csv *csv)
{
	struct fl_result r = FL_RESULT_EMPTY;
	struct fl_rep_hooks hooks = { .meta = csv_meta, .arg = csv };
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

static void human_ops(char *out, size_t n, int64_t ops)
{
	if (ops >= 10000000)
		snprintf(out, n, "%.1fM", ops / 1e6);
	else if (ops >= 10000)
		snprintf(out, n, "%.1fk", ops / 1e3);
	else
		snprintf(out, n, "%lld", (long long)ops);
}

/* The table: a line per design and pattern. */
static void print_cells(const struct cell *cells, int nc)
{
	printf("\n%-12s %-8s %5s %9s %7s %17s %8s  %s\n", "variant", "pattern", "reps", "ops",
	       "seconds", "in-text/signals", "stranded", "first evidence");
	for (int i = 0; i < nc; i++) {
		const struct cell *c = &cells[i];
		char ops[32], sig[40] = "-";
		if (c->unavailable) {
			printf("%-12s %-8s %5s %9s %7s %17s %8s  skipped: %s\n", c->label,
			       c->w->name, "-", "-", "-", "-", "-", c->unavailable);
			continue;
		}
		human_ops(ops, sizeof ops, c->ops);
		if (c->signals || !strcmp(c->w->name, "preempt"))
			snprintf(sig, sizeof sig, "%lld/%lld", (long long)c->hits,
				 (long long)c->signals);
		char ev[400] = "";
		if (c->found_rep)
			snprintf(ev, sizeof ev, "rep %d, after %lld ops: %s", c->found_rep,
				 (long long)c->found_ops, c->found);
		else if (!strcmp(c->w->name, "preempt") && c->reps && !c->hits)
			snprintf(ev, sizeof ev, "(no signal landed in library text: proves nothing)");
		printf("%-12s %-8s %5d %9s %7.1f %17s %8lld  %s\n", c->label, c->w->name, c->reps,
		       ops, c->elapsed_ns / 1e9, sig, (long long)c->stranded, ev);
	}
}

/* One verdict line per design, from its cells' totals. */
static void print_verdicts(const struct cell *cells, int nc, int np)
{
	for (int i = 0; i < nc; i += np) {
		int64_t ops = 0, stranded = 0, hits = 0;
		int errors = 0, ran = 0, first = -1;
		for (int k = i; k < i + np; k++) {
			ops += cells[k].ops;
			stranded += cells[k].stranded;
			hits += cells[k].hits;
			errors += cells[k].errors;
			ran += cells[k].reps > 0;
			if (first < 0 && cells[k].found_rep)
				first = k;
		}
		const char *name = cells[i].label;
		if (!ran) {
			printf("%s: not run\n", name);
		} else if (stranded) {
			printf("%s: LOST WAKEUP — %lld stranded waiter%s in %lld ops; first in %s "
			       "after %lld ops\n", name, (long long)stranded, stranded == 1 ? "" : "s",
			       (long long)ops, cells[first].w->name, (long long)cells[first].found_ops);
		} else if (errors) {
			printf("%s: BROKEN — %d rep%s broke another invariant (first in %s: %s)\n",
			       name, errors, errors == 1 ? "" : "s", cells[first].w->name,
			       cells[first].found);
		} else {
			printf("%s: clean — no stranded waiter in %lld ops over %d pattern%s "
			       "(%lld preemptions in library text)\n", name, (long long)ops, ran,
			       ran == 1 ? "" : "s", (long long)hits);
		}
	}
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
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
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
static struct cell *make_cells(const struct fl_variant **vs, int nv,
			       const struct fl_workload **ws, int np, const struct fl_params *base,
			       const struct opts *o)
{
	bool takes = false;
	for (int i = 0; i < nv; i++)
		takes |= fl_policy_applies(vs[i]);
	if (o->policy_given && !takes)
		fl_usage_error("hunt: --policy: no design of --variant takes a policy (the shipped "
			       "libraries wait their own way: futexlab list)");
	struct cell *cells = fl_xcalloc((size_t)(nv * np), sizeof *cells);
	for (int i = 0; i < nv; i++)
		for (int k = 0; k < np; k++) {
			struct cell *c = &cells[i * np + k];
			c->v = vs[i];
			c->w = ws[k];
			c->policy = (struct fl_policy)FL_POLICY_PARK_INIT;
			if (fl_policy_applies(vs[i]))
				c->policy = o->policy;
			fl_entry_label(vs[i], &c->policy, c->label, sizeof c->label);
			c->unavailable = fl_rep_unavailable(vs[i]);
			if (!c->unavailable && ws[k]->unavailable)
				c->unavailable = ws[k]->unavailable(vs[i], base);
		}
	return cells;
}

/* Rounds until every cell's time is used up (or Ctrl-C). */
static void hunt(struct cell *cells, int nc, const struct opts *o, const struct fl_params *base,
		 struct fl_csv *csv, int64_t t0)
{
	for (int round = 1; !fl_interrupted; round++) {
		bool any = false;
		for (int i = 0; i < nc && !fl_interrupted; i++) {
			struct cell *c = &cells[i];
			if (c->unavailable || c->elapsed_ns >= o->seconds_ns)
				continue;
			any = true;
			if (!o->quiet && isatty(2))
				fprintf(stderr, "\r\033[Kround %d: %s %s (%.0f s)", round, c->v->name,
					c->w->name, (fl_now_ns() - t0) / 1e9);
			int64_t before = c->elapsed_ns;
			run_rep(c, base, csv);
			if (c->elapsed_ns == before && !fl_interrupted)
				c->elapsed_ns = o->seconds_ns; /* no time passed: never ends otherwise */
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
	struct cell *cells = make_cells(vs, nv, ws, np, &base, &o);
	struct fl_csv csv;
	int e = fl_csv_open(&csv, o.csv_path, csv_header, argc, argv);
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
	fl_interrupt_catch();
	printf("futexlab hunt — %d designs x %d patterns, %.1f s each in reps of %.2f s, "
	       "policy %s\n", nv, np, o.seconds_ns / 1e9, o.rep_ns / 1e9, ptext);
	fflush(stdout);
	int64_t t0 = fl_now_ns();
	hunt(cells, nc, &o, &base, &csv, t0);
	fl_helper_shutdown();
	if (!o.quiet && isatty(2))
		fprintf(stderr, "\r\033[K");
	print_cells(cells, nc);
	print_verdicts(cells, nc, np);
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
