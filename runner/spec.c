/* runner/spec.c — argv -> spec (spec.h): the options' table, parsing, and
 * what is settled once the options are in. The presets are presets.c's,
 * the entries (designs x policies, the control, --as) entries.c's, the
 * points points.c's.
 *
 * `run` and `sweep` take the same options from one table; `run` is a sweep
 * whose axes usually hold one value each. A preset (sweep --preset) is a
 * list of groups, each a cartesian product, so pool can sweep threads while
 * uncontended does not. Axes that do not apply to a workload collapse for
 * it (uncontended runs one thread whatever --threads says; only workloads
 * that use tokens read --tokens, only those that spread over semaphores
 * --sems, only pool and oversub --hold/--think); an option that no workload
 * of the group reads is a usage error, not silently dropped (points.c,
 * refuse_unread). A
 * combination a variant cannot run becomes a skipped row with the reason;
 * a workload none of whose combinations can run is a bad specification
 * (exit 2). The waiting policies (--policy) are not an axis of the points
 * but of their entries, crossed with the designs (fl_spec_entries): every
 * policy of a design runs in the same rounds as the baseline, so its ratio
 * is paired like any design's. */
#include "runner/spec.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runner/cli.h"
#include "lib/prctl.h"

int fl_hash_list(char *list, char **items, int max)
{
	int n = fl_split_list("--hash", list, items, max);
	for (int i = 0; i < n; i++) {
		struct fl_hash_mode m;
		const char *why = fl_hash_parse(items[i], &m);
		if (why)
			fl_usage_error("--hash: '%s': %s", items[i], why);
		for (int j = 0; j < i; j++) {
			/* the same mode however spelled (private:16, private:016):
			 * one child per mode */
			struct fl_hash_mode o;
			if (fl_hash_parse(items[j], &o) || o.kind != m.kind || o.slots != m.slots)
				continue;
			if (!strcmp(items[i], items[j]))
				fl_usage_error("--hash: '%s' given twice", items[i]);
			fl_usage_error("--hash: '%s' is '%s' again", items[i], items[j]);
		}
	}
	return n;
}

/* The probed rounds and buying resolution: bad combinations are usage
 * errors; what is left unset, its default. */
static void resolution_finish(struct fl_spec *s)
{
	fl_spec_probes_check(s);
	if (s->target_res >= 0 && s->res_budget_ns < 0)
		fl_usage_error("%s: --target-res needs --res-budget SECONDS (what the run may "
			       "spend reaching it)", s->cmd);
	if (s->res_budget_ns >= 0 && s->target_res < 0)
		s->target_res = 0.05;
	if (s->target_res > 0 && !s->control)
		fl_usage_error("%s: --target-res is the control's resolution: drop --no-control",
			       s->cmd);
	if (s->target_res < 0)
		s->target_res = 0;
	if (s->res_budget_ns < 0)
		s->res_budget_ns = 0;
	if (s->min_blocking < 0)
		s->min_blocking = s->target_res > 0;
}

void fl_spec_probe_rounds(struct fl_spec *s)
{
	if (s->probe_rounds >= 0)
		return;
	int n = s->rounds / 3;
	s->probe_rounds = s->probes != FL_PROBES_DEFAULT ? 0 : n < 1 ? 1 : n > 3 ? 3 : n;
}

/* Presets and the default seed: what is left after the options. */
static void finish(struct fl_spec *s, const struct fl_spec_defaults *d)
{
	int64_t duration_ns = s->duration_ns;
	if (s->preset && s->axes_given)
		fl_usage_error("%s: --preset sets the axes; drop --workloads/--threads/--tokens/"
			       "--sems/--wake", s->cmd);
	if (s->base.ops && duration_ns > 0)
		fl_usage_error("%s: give --duration or --ops, not both", s->cmd);
	if (s->base.ops && s->budget_ns)
		fl_usage_error("%s: --budget caps durations; it does not apply to --ops", s->cmd);
	/* min_blocking 1 here: --min-blocking given (a preset's is set later) */
	if (s->min_blocking == 1 && s->base.ops)
		fl_usage_error("%s: --min-blocking stretches durations; it does not apply to --ops",
			       s->cmd);
	if (s->min_blocking == 1 && s->warmup == 0)
		fl_usage_error("%s: --min-blocking judges the warm-up reps: it needs --warmup 1 or "
			       "more", s->cmd);
	double dur = s->preset ? fl_preset_apply(s) : d->duration;
	resolution_finish(s);
	if (s->rounds < 0)
		s->rounds = d->rounds;
	if (s->warmup < 0)
		s->warmup = d->warmup;
	fl_spec_probe_rounds(s);
	if (duration_ns < 0)
		duration_ns = (int64_t)(dur * 1e9);
	if (s->budget_ns && s->budget_ns / (s->warmup + s->rounds) < duration_ns) {
		duration_ns = s->budget_ns / (s->warmup + s->rounds);
		if (duration_ns < 1000000)
			fl_usage_error("%s: --budget leaves under 1 ms per rep for %d reps", s->cmd,
				       s->warmup + s->rounds);
	}
	s->base.duration_ns = s->base.ops ? 0 : duration_ns;
	if (!s->seed_given) /* recorded in the CSV: any run can be repeated exactly */
		s->seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
	fl_spec_baseline(s);
	char h[1024], *items[FL_MAXLIST];
	fl_copy_list("--hash", h, sizeof h, s->hlist);
	fl_hash_list(h, items, FL_MAXLIST); /* validated before anything runs */
}

/* ---- the options run, sweep and exec share ------------------------------------ */

/* The setters a field alone cannot be (FL_OPT_FN). */
static void preset_option(struct fl_spec *s, const char *arg) { s->preset = fl_preset_known(arg); }
/* --lib: a library the user built as a row (proc/userlib.h): not the spec's */
static void lib_option(struct fl_spec *s, const char *arg)
{
	(void)s;
	fl_lib_option(arg);
}
static void hash_option(struct fl_spec *s, const char *arg)
{
	fl_copy_list("--hash", s->hlist, sizeof s->hlist, arg);
}
static void bpftrace_option(struct fl_spec *s, const char *arg)
{
	s->bt_script = arg;
	fl_bpftrace_check(arg);
}

static void seed_option(struct fl_spec *s, const char *arg)
{
	s->seed = (uint64_t)fl_parse_int("--seed", arg, 0, INT64_MAX);
	s->seed_given = true;
}

/* --reps, the old name of --rounds: the same, with a note. */
static void reps_option(struct fl_spec *s, const char *arg)
{
	fl_reps_deprecated();
	s->rounds = (int)fl_parse_int("--rounds", arg, 1, 1000);
}

static void target_res_option(struct fl_spec *s, const char *arg)
{
	s->target_res = fl_parse_double("--target-res", arg, 0.5, 50) / 100;
}

static void res_budget_option(struct fl_spec *s, const char *arg)
{
	s->res_budget_ns = fl_parse_seconds("--res-budget", arg, 86400);
	if (s->res_budget_ns < 1000000000)
		fl_usage_error("--res-budget: '%s' is under 1 s", arg);
}

/* --spin N,M (the old form of --policy): each N is spin:N, 0 park. (Its
 * note is printed once the whole command line has parsed: bad input stays
 * one line.) */
static void spin_option(struct fl_spec *s, const char *list)
{
	char buf[1024], *items[FL_MAXLIST];
	fl_copy_list("--spin", buf, sizeof buf, list);
	int n = fl_split_list("--spin", buf, items, FL_MAXLIST);
	size_t l = 0;
	for (int i = 0; i < n; i++) {
		int v = (int)fl_parse_int("--spin", items[i], 0, FL_POLICY_BOUND_MAX);
		char *at = s->spin_policies + l;
		size_t room = sizeof s->spin_policies - l;
		l += (size_t)(v ? snprintf(at, room, "%sspin:%d", i ? "," : "", v)
			      : snprintf(at, room, "%spark", i ? "," : ""));
	}
}

/* How a row sets its field (struct fl_spec_option, spec.h). */
#define OFF(f) offsetof(struct fl_spec, f)
#define TEXT(f) FL_OPT_TEXT, OFF(f), 0, 0, 1, NULL
#define INT(f, lo, hi) FL_OPT_INT, OFF(f), lo, hi, 1, NULL
#define I64(f, lo, hi, scale) FL_OPT_I64, OFF(f), lo, hi, scale, NULL
#define SECONDS(f, hi) FL_OPT_SECONDS, OFF(f), 0, hi, 1, NULL
#define SET(f, v) FL_OPT_SET, OFF(f), v, 0, 1, NULL
#define FLAG(f, v) FL_OPT_FLAG, OFF(f), v, 0, 1, NULL
#define FN(fn) FL_OPT_FN, 0, 0, 0, 1, fn
#define EXEC FL_FOR_EXEC

/* The options of run, sweep and exec: one row each, in --help's order; a
 * NULL help is a hidden alias (an older name). harness/README.md, "Adding
 * an option". */
static const struct fl_spec_option rows[] = {
	{ "preset", "NAME", "the axes, rounds, duration and entries of a preset: quick (what "
	  "scripts/bench runs), standard (+-5% aimed at every point), full (the reference sweep); "
	  "each one's settings: 'presets' below", FN(preset_option), 0 },
	{ "variant", "LIST", "variants, comma separated, or 'all' (default all; also --variants); "
	  "NAME@POLICY: that design under that policy alone, beside the --policy crossing",
	  TEXT(vlist), EXEC | FL_FOR_SURVEY },
	{ "variants", "LIST", NULL, TEXT(vlist), EXEC | FL_FOR_SURVEY },
	{ "workload", "LIST", "workloads, comma separated, or 'all' (default all; also "
	  "--workloads)", TEXT(cli.workloads), FL_AXIS },
	{ "workloads", "LIST", NULL, TEXT(cli.workloads), FL_AXIS },
	{ "threads", "LIST", "thread counts, 1..1024 each (default: run 4, sweep 1,2,4,8; "
	  "a workload of fixed threads runs its own; refused if none reads them)", TEXT(cli.threads), FL_AXIS },
	{ "tokens", "LIST", "initial tokens / buffer capacity, 1..1000000 each (default 1)",
	  TEXT(cli.tokens), FL_AXIS },
	{ "sems", "LIST", "pool/oversub: spread the threads over N semaphores of K tokens each "
	  "(thread i on i % N), 1..64 each, e.g. 1,2,4,8 (default 1; other workloads: 1)",
	  TEXT(cli.sems), FL_AXIS },
	{ "wake", "LIST", "how a release wakes: exact, one, all, a comma list (default exact)",
	  TEXT(cli.wake), FL_AXIS },
	{ "policy", "LIST", "waiting policies, comma separated: " FL_POLICY_NAMES " (default "
	  "park: the designs as written); each design runs once per policy, as NAME@POLICY (park: "
	  "NAME); the shipped libraries wait their own way, once (futexlab list)",
	  TEXT(policy_arg), EXEC | FL_FOR_SURVEY },
	{ "spin", "LIST", NULL, FN(spin_option), 0 },
	{ "hash", "LIST", "futex hash modes auto|global|private:N; more than one: the run once "
	  "per mode, each in a process of its own (default auto; kernel 6.16+)",
	  FN(hash_option), 0 },
	{ "hold", "NS", "pool/oversub: busy work while holding a token, ns (default 0)",
	  I64(base.hold_ns, 0, 1000000000, 1), 0 },
	{ "think", "NS", "pool/oversub: busy work between tokens, ns (default 0)",
	  I64(base.think_ns, 0, 1000000000, 1), 0 },
	{ "duration", "S", "seconds per rep (default 0.1)", SECONDS(duration_ns, 3600), 0 },
	{ "ops", "N", "operations per rep instead of a duration",
	  I64(base.ops, 1, INT64_MAX / 2, 1), 0 },
	{ "budget", "S", "cap per point and variant: the rep's duration becomes "
	  "S/(warmup+rounds)", SECONDS(budget_ns, 86400), 0 },
	{ "probe-rounds", "N", "N probed rounds, 0..100, spread through the timed ones, which "
	  "then run with the collector detached: the time untaxed, the kernel's counts from the "
	  "probed rounds (default: rounds/3, 1..3; presets: quick 3, standard 3, full 4; 0: every "
	  "round probed, as --probes)", INT(probe_rounds, 0, 100), EXEC },
	{ "target-res", "PCT", "after the first rounds, more rounds to the points whose control "
	  "band is wider than x/÷(1 + PCT/100), 0.5..50 (needs --res-budget; default 5 with it)",
	  FN(target_res_option), 0 },
	{ "res-budget", "S", "seconds the whole run may take buying resolution (--target-res), "
	  "1..86400", FN(res_budget_option), 0 },
	{ "min-blocking", NULL, "stretch each point's reps (up to 4x) to hold its workload's "
	  "minimum of blocking ops, judged in the warm-up (default with --res-budget and the "
	  "standard preset)", SET(min_blocking, 1), 0 },
	{ "no-min-blocking", NULL, "no stretching (with --res-budget or the standard preset)",
	  SET(min_blocking, 0), 0 },
	{ "rounds", "R", "measured rounds per point, 1..1000 (default 10): a round runs every "
	  "variant of the point once, in a fresh random order", INT(rounds, 1, 1000), EXEC },
	{ "reps", "R", NULL, FN(reps_option), EXEC },
	{ "warmup", "N", "unmeasured rounds first, 0..100 (default 1)", INT(warmup, 0, 100), EXEC },
	{ "seed", "N", "the order of the rounds (default: from the clock; in the CSV)",
	  FN(seed_option), EXEC },
	{ "baseline", "NAME", "the entry ratios are taken against: a variant or NAME@POLICY "
	  "(default glibc)", TEXT(baseline), EXEC },
	{ "no-control", NULL, "do not run the baseline twice per round (BASELINE#2: the A/A row)",
	  FLAG(control, false), EXEC },
	{ "no-floors", NULL, "omit the floor reference rows (floor-atomic, floor-futex; "
	  "floor-inline at uncontended)", FLAG(floors, false), 0 },
	{ "csv", "FILE", "one row per rep (atomic rewrite; Ctrl-C keeps finished rows)",
	  TEXT(csv_path), EXEC },
	{ "pin", "CPUS", "run every thread on these CPUs (sched_setaffinity): a list (0,1 or "
	  "0-3), node:N (node N's) or spread (every node's)", TEXT(pin), EXEC },
	{ "quiet", NULL, "nothing on stderr but errors (no progress, no load warning)",
	  FLAG(quiet, true), EXEC },
	{ "probes", NULL, "count futex calls in the kernel in every round, the times then taxed "
	  "by the collector (eBPF; default: in --probe-rounds' rounds of their own, when root and "
	  "BPF work), as extra CSV columns", SET(probes, FL_PROBES_ON), EXEC },
	{ "no-probes", NULL, "do not load the eBPF collector", SET(probes, FL_PROBES_OFF), EXEC },
	{ "bpftrace", "SCRIPT", "run a bpftrace script (probes/*.bt) on this process during the "
	  "whole run; its output goes beside the CSV", FN(bpftrace_option), 0 },
	{ "latency", NULL, "time every blocking op (latency percentiles, starvation) in every "
	  "workload that can; default: where it costs <= 5%", SET(latency, 1), 0 },
	{ "no-latency", NULL, "time nothing (fairness counts stay)", SET(latency, 0), 0 },
	{ "stranded-ms", "N", "a waiter asleep while its semaphore has had a token for N ms is a "
	  "lost wakeup: an error row (default 50; 0: off)",
	  I64(base.stranded_ns, 0, 3600000, 1000000), 0 },
	{ "perf", NULL, "perf counters per rep as CSV columns (empty: unsupported)",
	  FLAG(perf, true), EXEC },
	{ "detail", NULL, "the full tables (per point every row, the evidence, the libraries; "
	  "exec: the per-program report) on the screen before the summary; always in X.txt "
	  "beside --csv X.csv", FLAG(detail, true), EXEC },
	{ "dry-run", NULL, "list the points and skips with the time estimate; run nothing",
	  FLAG(dry, true), 0 },
	{ "as", "P=M", "test only: run performance mutant M's code wherever design P runs (each "
	  "policy), every row still labelled P and the CSV marked (# as:); repeatable or a comma "
	  "list (the gate's and the history's ground truth)", FN(fl_spec_as_add), 0 },
	{ "lib", "B+T=PATH", "a row B+T: the library row B (glibc, cxx-llvm, cxx-gnu) on the "
	  "build at PATH (a glibc build or install, a directory with libc++.so.1 or "
	  "libstdc++.so.6), in a helper on that library; in 'all', else named in --variant; "
	  "repeatable", FN(lib_option), 0 },
};
#define NROWS ((int)(sizeof rows / sizeof rows[0]))
_Static_assert(sizeof(enum fl_probes_mode) == sizeof(int), "SET writes an int");

int fl_spec_options(unsigned who, const struct fl_option *own, int nown, struct fl_option *out,
		    int max)
{
	int n = 0;
	if (NROWS + nown + 1 > max) { /* a table outgrew FL_SPEC_MAXOPTS: never drop an option */
		fprintf(stderr, "futexlab: %d options, room for %d (FL_SPEC_MAXOPTS)\n",
			NROWS + nown + 1, max);
		abort();
	}
	for (int i = 0; i < NROWS; i++)
		if (!who || (rows[i].flags & who))
			out[n++] = (struct fl_option){ rows[i].name,
						       rows[i].arg ? required_argument : no_argument,
						       FL_OPT_CODE0 + i, rows[i].arg, rows[i].help };
	for (int i = 0; i < nown; i++)
		out[n++] = own[i];
	out[n++] = (struct fl_option){ "help", no_argument, 'h', NULL, "this text (also -h)" };
	return n;
}

const struct fl_spec_option *fl_spec_option_row(int c)
{
	return c >= FL_OPT_CODE0 && c < FL_OPT_CODE0 + NROWS ? &rows[c - FL_OPT_CODE0] : NULL;
}

bool fl_spec_option(struct fl_spec *s, int c, const char *arg)
{
	const struct fl_spec_option *o = fl_spec_option_row(c);
	if (!o)
		return false;
	char what[40], *f = (char *)s + o->off;
	snprintf(what, sizeof what, "--%s", o->name);
	int v;
	int64_t w;
	switch (o->kind) {
	case FL_OPT_TEXT: memcpy(f, &arg, sizeof arg); break;
	case FL_OPT_INT:
		v = (int)fl_parse_int(what, arg, o->lo, o->hi);
		memcpy(f, &v, sizeof v);
		break;
	case FL_OPT_I64:
		w = fl_parse_int(what, arg, o->lo, o->hi) * o->scale;
		memcpy(f, &w, sizeof w);
		break;
	case FL_OPT_SECONDS:
		w = fl_parse_seconds(what, arg, (double)o->hi);
		memcpy(f, &w, sizeof w);
		break;
	case FL_OPT_SET:
		v = (int)o->lo;
		memcpy(f, &v, sizeof v);
		break;
	case FL_OPT_FLAG: *(bool *)f = o->lo; break;
	case FL_OPT_FN: o->fn(s, arg); break;
	}
	s->axes_given |= (o->flags & FL_AXIS) != 0;
	return true;
}

void fl_spec_bad_option(const char *cmd, int c, char **argv)
{
	if (c == ':')
		fl_usage_error("%s: %s needs a value", cmd, argv[optind - 1]);
	fl_usage_error("%s: unknown option '%s' (see futexlab %s --help)", cmd, argv[optind - 1],
		       cmd);
}

void fl_spec_probes_check(const struct fl_spec *s)
{
	if (s->probe_rounds > 0 && s->probes == FL_PROBES_OFF)
		fl_usage_error("%s: --probe-rounds counts with the probes: drop --no-probes", s->cmd);
	if (s->probe_rounds > 0 && s->probes == FL_PROBES_ON)
		fl_usage_error("%s: --probes probes every round, --probe-rounds %d spreads probed "
			       "rounds of their own: give one", s->cmd, s->probe_rounds);
}

void fl_spec_usage(FILE *f, const struct fl_spec_defaults *d)
{
	struct fl_option o[FL_SPEC_MAXOPTS];
	fl_options_usage(f, d->synopsis, o, fl_spec_options(0, NULL, 0, o, FL_SPEC_MAXOPTS), NULL);
	fl_presets_usage(f);
	if (d->notes)
		fputs(d->notes, f);
}

/* Everything an option may change, before the options. */
static void spec_init(struct fl_spec *s, const char *cmd, const struct fl_spec_defaults *d,
		      int argc, char **argv)
{
	memset(s, 0, sizeof *s);
	s->cmd = cmd;
	s->cli = (struct fl_group){ "all", d->threads, "1", "exact", "1" };
	s->threads_default = d->threads;
	s->groups = &s->cli;
	s->ngroups = 1;
	s->rounds = s->warmup = -1;
	s->baseline = "glibc";
	s->floors = s->control = true;
	s->probes = FL_PROBES_DEFAULT;
	s->probe_rounds = s->min_blocking = -1;
	s->target_res = -1;
	s->res_budget_ns = -1;
	s->duration_ns = -1;
	s->latency = -1;
	s->base = (struct fl_params){ .threads = 1, .tokens = 1,
				      .stranded_ns = FL_STRANDED_NS_DEFAULT };
	s->argc = argc;
	s->argv = argv;
	snprintf(s->hlist, sizeof s->hlist, "auto");
}

int fl_spec_parse(struct fl_spec *s, const char *cmd, const struct fl_spec_defaults *d,
		  int argc, char **argv)
{
	spec_init(s, cmd, d, argc, argv);
	struct fl_option o[FL_SPEC_MAXOPTS];
	int n = fl_spec_options(0, NULL, 0, o, FL_SPEC_MAXOPTS);
	struct option lopts[FL_SPEC_MAXOPTS + 1];
	fl_options_getopt(o, n, lopts);
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		if (fl_spec_option(s, c, optarg))
			continue;
		if (c != 'h')
			fl_spec_bad_option(cmd, c, argv);
		if (d->synopsis)
			fl_spec_usage(stdout, d);
		return 1;
	}
	if (optind < argc)
		fl_usage_error("%s: unexpected argument '%s'", cmd, argv[optind]);
	if (s->dry) {
		const char *no = s->csv_path ? "--csv" : s->detail ? "--detail" : s->bt_script ?
				 "--bpftrace" : s->perf ? "--perf" : NULL;
		if (no)
			fl_usage_error("%s: --dry-run runs nothing: %s has nothing to do", cmd, no);
	}
	bool spin_given = s->spin_policies[0] != '\0';
	if (s->policy_arg && spin_given)
		fl_usage_error("%s: --spin is the old form of --policy: give one", cmd);
	s->policies = spin_given ? s->spin_policies : s->policy_arg;
	finish(s, d);
	fl_spec_entries(s, s->vlist ? s->vlist : !s->policies ? fl_preset_variants(s) : "all",
			s->policies, false);
	fl_spec_as(s);
	if (spin_given)
		fprintf(stderr, "futexlab: --spin is now --policy (here --policy %s)\n", s->policies);
	return 0;
}
