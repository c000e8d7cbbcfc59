/* harness/cmd_exec.c — `futexlab exec`: an unmodified program on every
 * design, in the interleaved rounds of the one point runner (runner.h), with
 * the kernel's view of its whole process tree; or, with --survey, one
 * stats-only pass through glibc to see whether it uses semaphores at all.
 *
 * The program is the workload (exec.h: one op per rep, wall time), so the
 * rounds, the control (glibc#2), the paired verdicts, the CSV, Ctrl-C and the
 * error rows are run's own. What exec adds: the shim's environment, the
 * collector in follow-the-tree mode, and the per-program summary
 * (exec_summary.h) after the ratio table. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runner/cli.h"
#include "harness/bench.h"
#include "harness/commands.h"
#include "record/csv.h"
#include "report/exec_summary.h"
#include "report/survey.h"
#include "fail/xalloc.h"
#include "proc/exec.h"
#include "shim/env.h"

/* ---- what each rep leaves for the summary ----------------------------------- */

static struct fl_exec_rep *reps;
static int nreps, capreps;
static bool probes_on;

static void rep_done(const struct fl_point *pt, int entry, int round, const struct fl_result *r,
		     bool probed)
{
	if (r->error[0] || r->ops != 1)
		return;
	if (nreps == capreps)
		reps = fl_xrealloc(reps, (size_t)(capreps = capreps ? 2 * capreps : 64) * sizeof *reps);
	struct fl_exec_rep *x = &reps[nreps++];
	memset(x, 0, sizeof *x);
	snprintf(x->label, sizeof x->label, "%s", pt->e[entry].label);
	x->round = round;
	x->wall_ns = (double)r->elapsed_ns;
	x->probed = probed;
	/* an unprobed rep's words would be the last probed rep's */
	for (int by = 0; by < 2 && probed; by++)
		x->ntop[by] = fl_probes_words(by, x->top[by], FL_EXEC_TOP, &x->nwords, &x->lost);
	probes_on |= x->nwords > 0;
	/* the process names the shim reported, for the words' pids */
	const struct fl_exec_shim *s = fl_exec_last_shim();
	for (int i = 0; i < s->n && i < (int)(sizeof s->r / sizeof s->r[0]) &&
			x->nprocs < (int)(sizeof x->procs / sizeof x->procs[0]); i++) {
		x->procs[x->nprocs].pid = (unsigned)s->r[i].pid;
		snprintf(x->procs[x->nprocs].comm, sizeof x->procs[0].comm, "%s", s->r[i].comm);
		x->nprocs++;
	}
}

static const struct fl_spec *spec;

static void summary(FILE *f, const struct fl_table *t)
{
	const struct fl_point *pt = NULL;
	const char *labels[FL_MAXENTRY];
	int n = 0;
	struct fl_point *pts;
	int npts = fl_points_build(spec, &pts);
	pt = npts ? &pts[0] : NULL;
	for (int i = 0; pt && i < pt->ne; i++)
		labels[n++] = pt->e[i].label;
	fl_exec_summary(f, t, &(struct fl_exec_in){ labels, n, reps, nreps, probes_on });
	free(pts);
}

static void meta(struct fl_csv *csv)
{
	char cmd[2048] = "";
	for (char **a = fl_exec_cfg.argv; *a; a++)
		snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s%s", a == fl_exec_cfg.argv ?
			 "" : " ", *a);
	fl_csv_meta(csv, "exec: %s", cmd);
	for (int i = 0; i < fl_exec_cfg.nenv; i++)
		fl_csv_meta(csv, "exec env: %s", fl_exec_cfg.env[i]);
	fl_csv_meta(csv, "exec shim: %s (glibc runs unshimmed)%s%s", fl_exec_cfg.shim,
		    fl_exec_cfg.allow[0] ? ", FUTEXLAB_ALLOW=" : "", fl_exec_cfg.allow);
	fl_csv_meta(csv, "exec timeout: %.0f s", fl_exec_cfg.timeout_s);
	/* the one line that makes every table read the figure (table.h) */
	if (fl_exec_cfg.metric)
		fl_csv_meta(csv, "exec metric: %s (%s is better)", fl_exec_cfg.metric->text,
			    fl_exec_cfg.metric->higher ? "higher" : "lower");
}

/* ---- --survey ----------------------------------------------------------------- */

/* --survey: CMD once, the shim counting, on one entry: glibc by default —
 * the shim's pass-through, glibc's own sem_t, the program as shipped — or
 * the design --variant names, under its policy (--policy P, or NAME@P).
 * A policy is what a futexlab design's waits do before they sleep
 * (variants/policy.h); glibc's sem_wait is shipped code that sleeps its own
 * way, and the pass-through leaves it so. So --policy alone has nothing to
 * apply to, and swapping glibc for some design unasked would survey another
 * program than the one that ships: a usage error that names the way. */
static int survey(struct fl_spec *s, const char *vlist, const char *plist)
{
	if (plist && !vlist)
		fl_usage_error("exec: --survey --policy %s: the survey runs on glibc's own sem_t, "
			       "which waits its own way: name a design to survey under a policy "
			       "(--variant negcount --policy %s)", plist, plist);
	s->control = false;
	fl_spec_entries(s, vlist ? vlist : "glibc", plist, false);
	if (s->nent != 1)
		fl_usage_error("exec: --survey runs CMD once, on one design: --variant and --policy "
			       "make %d entries", s->nent);
	static struct fl_survey sv; /* 12 KiB: not on the stack */
	char why[400];
	int rc = fl_exec_survey(&s->ents[0], &sv, why, sizeof why);
	if (rc == 2)
		fl_usage_error("exec: --survey: %s", why);
	if (rc) {
		fprintf(stderr, "futexlab: exec --survey: %s\n", why);
		return 1;
	}
	fl_survey_print(stdout, &sv);
	return 0;
}

/* ---- options -------------------------------------------------------------------- */

/* exec's own options; the ones it shares with run and sweep are spec.c's
 * rows marked FL_FOR_EXEC (spec.h). */
static const struct fl_option own[] = {
	{ "env", required_argument, 'E', "K=V", "set K=V in CMD's environment (repeatable)" },
	{ "allow", required_argument, 'A', "LIST", "run designs that break POSIX promises "
	  "anyway: destroy, signal, eintr, all (FUTEXLAB_ALLOW; default none)" },
	{ "timeout", required_argument, 'T', "S", "kill a run after S seconds: an error row "
	  "(default 600)" },
	{ "output", no_argument, 'O', NULL, "let CMD's stdout and stderr through (default: "
	  "discarded; stderr's first line is kept for an error row; with --metric: kept, and "
	  "shown after each run)" },
	{ "metric", required_argument, 'M', "REGEX", "compare CMD's own figure instead of its "
	  "wall time: the number in REGEX's first group (POSIX ERE), its last match in CMD's "
	  "stdout and stderr; no match: an error row. Lower is better" },
	{ "higher-is-better", no_argument, 'H', NULL, "--metric's figure is a throughput: the "
	  "ratio is then the baseline's over the row's (> 1 still means worse)" },
	{ "survey", no_argument, 'S', NULL, "instead: run CMD once with the shim counting "
	  "(sem_init, waits, posts, blocked waits) per process, on glibc's semaphores, or on one "
	  "design under one policy (--variant NAME[@POLICY], --policy)" },
};
#define NOWN ((int)(sizeof own / sizeof own[0]))

static void usage(const struct fl_option *opts, int nopts)
{
	fl_options_usage(stdout,
		"usage: futexlab exec [options] -- CMD [ARGS...]\n"
		"  Runs CMD once per design per round, under the LD_PRELOAD shim (glibc:\n"
		"  unshimmed), interleaved in a fresh random order every round; prints the\n"
		"  paired ratio table against glibc and a per-program report.\n",
		opts, nopts,
		"  Bad input (no --, unknown design, CMD not executable, a --metric that is not an\n"
		"  ERE or has no group): one line, exit 2. A run that exits non-zero, is killed,\n"
		"  times out or lacks --metric's figure: an error row, exit 1.\n");
}

/* --env K=V: one more variable for the program's environment. */
static void add_env(char *kv)
{
	if (!strchr(kv, '=') || kv[0] == '=')
		fl_usage_error("exec: --env wants K=V, not '%s'", kv);
	if (fl_exec_cfg.nenv == FL_EXEC_MAXENV)
		fl_usage_error("exec: more than %d --env", FL_EXEC_MAXENV);
	fl_exec_cfg.env[fl_exec_cfg.nenv++] = kv;
}

/* --allow LIST: the promises the shim may break, parsed as FUTEXLAB_ALLOW
 * (shim/env.h) so that a value the shim would refuse is refused here. */
static void set_allow(const char *list)
{
	struct fl_shim_env env;
	char err[200];
	if (fl_shim_env_parse(&(struct fl_shim_vars){ .allow = list }, &env, err, sizeof err))
		fl_usage_error("exec: --allow: %s", err);
	fl_exec_cfg.allow_flags = env.allow;
	snprintf(fl_exec_cfg.allow, sizeof fl_exec_cfg.allow, "%s", list);
}

struct exec_args {
	const char *metric;             /* --metric (NULL: not given) */
	bool survey, higher;
	const char *rounds_only;        /* the first option given that only the rounds read */
};

/* The options into s, fl_exec_cfg and a; returns optind (CMD's index), or
 * -1 after --help. */
static int parse(int argc, char **argv, struct fl_spec *s, struct exec_args *a)
{
	struct fl_option opts[FL_SPEC_MAXOPTS];
	int nopts = fl_spec_options(FL_FOR_EXEC, own, NOWN, opts, FL_SPEC_MAXOPTS);
	struct option lopts[FL_SPEC_MAXOPTS + 1];
	fl_options_getopt(opts, nopts, lopts);
	opterr = 0;
	optind = 1;
	int c;
	/* '+': stop at the first non-option, so CMD's own options stay its own */
	while ((c = getopt_long(argc, argv, "+:h", lopts, NULL)) != -1) {
		const struct fl_spec_option *row = fl_spec_option_row(c);
		/* --survey runs CMD once and compares nothing: the options only
		 * the compared rounds read are refused there */
		if (row && !(row->flags & FL_FOR_SURVEY) && !a->rounds_only)
			a->rounds_only = row->name;
		if (fl_spec_option(s, c, optarg))
			continue;
		switch (c) {
		case 'E': add_env(optarg); break;
		case 'A': set_allow(optarg); break;
		case 'T': fl_exec_cfg.timeout_s = (double)fl_parse_seconds("--timeout", optarg, 86400) / 1e9;
			  break;
		case 'O': fl_exec_cfg.output = true; break;
		case 'M': a->metric = optarg; break;
		case 'H': a->higher = true; break;
		case 'S': a->survey = true; break;
		case 'h': usage(opts, nopts); return -1;
		default: fl_spec_bad_option("exec", c, argv);
		}
	}
	return optind;
}

/* --metric, --higher-is-better: compiled once for every run. */
static void set_metric(const struct exec_args *a)
{
	static struct fl_metric m;
	char why[600];
	if (a->higher && !a->metric)
		fl_usage_error("exec: --higher-is-better says which way --metric's figure goes: "
			       "give --metric REGEX too");
	if (!a->metric)
		return;
	if (a->survey)
		fl_usage_error("exec: --survey runs CMD once, compares nothing: no --metric");
	if (fl_metric_compile(&m, a->metric, a->higher, why, sizeof why))
		fl_usage_error("%s", why);
	fl_exec_cfg.metric = &m;
}

int fl_cmd_exec(int argc, char **argv)
{
	static struct fl_spec s;
	static const struct fl_bench_hooks hooks = {
		.workload = &fl_exec_workload, .meta = meta, .rep_done = rep_done,
	};
	struct exec_args a = { 0 };
	memset(&s, 0, sizeof s);
	s.cmd = "exec";
	s.rounds = 10;
	s.warmup = 1;
	s.baseline = "glibc";
	s.control = true;
	s.probes = FL_PROBES_DEFAULT;
	s.probe_rounds = -1;
	s.latency = 0;
	s.base = (struct fl_params){ .threads = 1, .tokens = 1, .sems = 1 };
	s.hooks = &hooks;
	snprintf(s.hlist, sizeof s.hlist, "auto");
	int cmd = parse(argc, argv, &s, &a);
	if (cmd < 0)
		return 0; /* --help */
	set_metric(&a);
	if (a.survey && a.rounds_only)
		fl_usage_error("exec: --survey runs CMD once and compares nothing: --%s does not "
			       "apply", a.rounds_only);
	fl_spec_probes_check(&s);
	fl_spec_probe_rounds(&s);
	if (cmd >= argc || strcmp(argv[cmd - 1], "--") != 0) {
		if (cmd < argc)
			fl_usage_error("exec: the command goes after --: futexlab exec [options] -- %s",
				       argv[cmd]);
		fl_usage_error("exec: no command: futexlab exec [options] -- CMD [ARGS...]");
	}
	fl_exec_cfg.argv = argv + cmd;
	char why[PATH_MAX + 200];
	if (fl_exec_check_command(fl_exec_cfg.argv[0], why, sizeof why) ||
	    fl_exec_find_shim(why, sizeof why))
		fl_usage_error("%s", why);
	if (a.survey)
		return survey(&s, s.vlist, s.policy_arg);
	fl_spec_baseline(&s);
	fl_spec_entries(&s, s.vlist ? s.vlist : "all", s.policy_arg, true);
	if (!s.seed_given)
		s.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	s.argc = argc;
	s.argv = argv;
	spec = &s;
	if (s.probes != FL_PROBES_OFF)
		fl_probes_follow_children();
	int rc = fl_bench_report(&s, summary);
	free(reps);
	return rc;
}
