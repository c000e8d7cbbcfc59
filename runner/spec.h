/* runner/spec.h — what a `run` or `sweep` asks for, and the points it
 * expands to. The flow, file by file:
 *
 *   spec.c     argv -> struct fl_spec (one option table for run, sweep and
 *              exec; each command only sets its defaults)
 *   presets.c  sweep --preset: the presets' table and what each sets
 *   entries.c  --variant x --policy -> the entries, the control, --as
 *   points.c   the spec -> points, each with its entries
 *   runner.c   points -> rounds -> CSV rows (the one point runner: run.h)
 *   model/     CSV rows -> cells (one per point and variant) -> paired
 *              ratios -> the table's rule -> the results model
 *   report/    the model's views: the summary, the tables, TSV, the page
 *
 * A *point* is one configuration: a workload with its threads, tokens,
 * semaphores (--sems), hold/think and wake mode. Its *entries* are what run
 * at it: the chosen variants crossed with the waiting policies (--policy:
 * each design a policy applies to once per policy, labelled NAME for park
 * and NAME@POLICY otherwise; a shipped library once, waiting its own way),
 * the floors where they mean something, and the control — the baseline a
 * second time, as BASELINE#2 — whose ratio to the baseline is the run's own
 * A/A: the noise floor every verdict of the table stands on. */
#ifndef FUTEXLAB_SPEC_H
#define FUTEXLAB_SPEC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "probes/probes.h"
#include "variants/policy.h"
#include "workloads/point.h"
#include "workloads/workload.h"

#define FL_MAXLIST 64

/* One cartesian product of axes; comma lists. */
struct fl_group {
	const char *workloads, *threads, *tokens, *wake;
	const char *sems;               /* NULL: "1" (the presets) */
};


struct fl_csv;
struct fl_point;

/* What a command other than run and sweep (exec: cmd_exec.c) hands the
 * runner: its own workload, run at one point (s->base), and hooks. Every
 * hook may be NULL. */
struct fl_bench_hooks {
	const struct fl_workload *workload;
	/* extra metadata lines, after the machine's */
	void (*meta)(struct fl_csv *csv);
	/* after each measured rep whose run returned (probes stopped: their
	 * per-rep data, e.g. fl_probes_words, is that rep's when probed, the
	 * last probed rep's otherwise); entry indexes pt->e; probed: the
	 * collector counted this rep */
	void (*rep_done)(const struct fl_point *pt, int entry, int round,
			 const struct fl_result *r, bool probed);
};

/* The most floor rows a point adds: floor-atomic, floor-futex, and where
 * the workload inlines it floor-inline (workloads/floors.c). */
#define FL_NFLOORS 3

struct fl_spec {
	const char *cmd;                /* "run" or "sweep", for messages */
	const char *preset;             /* name, or NULL */
	const struct fl_group *groups;  /* pgroups (a preset's), or &cli */
	int ngroups;
	struct fl_group cli, pgroups[16];
	const char *threads_default;    /* cli.threads before the options: --threads not given */
	char pthreads[16][64];          /* pgroups' thread lists, scaled */
	/* what runs at every point but the floors (up to FL_NFLOORS of them,
	 * added per point: fill_entries): --variant x --policy, the control
	 * right after the baseline (fl_spec_entries) */
	struct fl_entry ents[FL_MAXENTRY - FL_NFLOORS];
	int nent;
	struct fl_params base;          /* hold, think, ops, duration */
	int rounds, warmup;             /* rounds measured, rounds unmeasured */
	int64_t budget_ns;
	/* the probed rounds (--probe-rounds N): N rounds beside the timed
	 * ones, spread through them, in which the collector counts; the
	 * timed rounds run unprobed. 0: every round probed (--probes, or
	 * --probe-rounds 0); -1: not given (the preset's, else
	 * fl_spec_probe_rounds's) */
	int probe_rounds;
	/* buying resolution (--target-res, --res-budget: stats/rounds.h):
	 * after the first rounds, more rounds go to the points whose control
	 * resolution is above target_res (a fraction; 0: off) until the run
	 * has taken res_budget_ns */
	double target_res;              /* < 0: not given */
	int64_t res_budget_ns;          /* < 0: not given */
	/* stretch each point's reps to its workload's min_blocking blocking
	 * ops, from the warm-up round (--min-blocking; the standard preset);
	 * -1: not given */
	int min_blocking;
	const char *csv_path, *baseline, *pin, *bt_script;
	const char *vlist;              /* --variant LIST as given; NULL: the preset's, or all */
	const char *policy_arg;         /* --policy LIST as given; NULL: not given */
	int64_t duration_ns;            /* --duration; -1: not given */
	bool seed_given, axes_given;    /* --seed; any of the axes' options */
	char blabel[48];                /* the baseline's label, canonical (baseline points here) */
	const char *policies;           /* --policy or --spin's list; NULL: neither (park) */
	/* --as PARENT=MUTANT (test only): every entry of the design parent
	 * runs mutant's code under parent's label (fl_spec_as) */
	struct fl_as {
		const struct fl_variant *parent, *mutant;
	} as[8];
	int nas;
	char spin_policies[1024];       /* --spin N,M (the old name) as a policy list */
	bool floors, control, quiet, dry;
	bool detail;                    /* --detail: the full tables on the screen too */
	bool perf;                      /* --perf: the runner turns the counters on */
	int latency;                    /* -1 the workload's default, 0 off, 1 on */
	enum fl_probes_mode probes;
	char hlist[1024];               /* --hash list */
	uint64_t seed;
	const struct fl_bench_hooks *hooks; /* NULL for run and sweep */
	int argc;                       /* the command's own argv, for the CSV */
	char **argv;
};

/* Defaults of a command: run and sweep differ only in these. */
struct fl_spec_defaults {
	const char *threads;
	int rounds, warmup;
	double duration;
	/* --help: synopsis, the options (from the one table), notes (or
	 * NULL); synopsis NULL: --help prints nothing (the fuzz targets) */
	const char *synopsis, *notes;
};

/* ---- the options run, sweep and exec share ------------------------------------
 *
 * One table (spec.c): one row per option with its name, its value's
 * placeholder, its help, and how it sets its field of struct fl_spec. A
 * command's getopt table and --help are made from the rows it takes
 * (fl_spec_options); getopt's code for a row is FL_OPT_CODE0 + its index,
 * so a command's own options keep codes below FL_OPT_CODE0. */
enum fl_opt_kind {
	FL_OPT_TEXT,    /* const char *: the value as given */
	FL_OPT_INT,     /* int: a whole number in [lo, hi] */
	FL_OPT_I64,     /* int64_t: a whole number in [lo, hi], times scale */
	FL_OPT_SECONDS, /* int64_t ns: seconds in (0, hi] */
	FL_OPT_SET,     /* int or enum: set to lo; no value */
	FL_OPT_FLAG,    /* bool: set to lo; no value */
	FL_OPT_FN,      /* fn(s, value): what a field alone cannot say */
};
enum {
	FL_FOR_EXEC = 1,        /* exec takes it too (run and sweep take every row) */
	FL_FOR_SURVEY = 2,      /* exec --survey reads it (the others only the rounds do) */
	FL_AXIS = 4,            /* an axis of the points: a preset sets them */
	FL_OPT_CODE0 = 0x1000,
};
struct fl_spec_option {
	const char *name, *arg, *help; /* as struct fl_option's (cli.h) */
	enum fl_opt_kind kind;
	size_t off;                     /* the field: offsetof(struct fl_spec, ...) */
	int64_t lo, hi, scale;
	void (*fn)(struct fl_spec *s, const char *arg);
	unsigned flags;
};

struct fl_option;
/* The options of a command into out (max slots): the shared rows it takes
 * (FL_FOR_EXEC: exec's; 0: run's and sweep's, all of them), then own[0..nown),
 * then --help (code 'h'). Returns how many. */
int fl_spec_options(unsigned who, const struct fl_option *own, int nown, struct fl_option *out,
		    int max);
/* The shared row of getopt's code c, or NULL (a command's own option). */
const struct fl_spec_option *fl_spec_option_row(int c);
/* Applies the shared option of getopt's code c to s; false when c is not
 * one (a command's own). Bad input: usage error (one line, exit 2). */
bool fl_spec_option(struct fl_spec *s, int c, const char *arg);
/* getopt_long's ':' (a value missing) and '?' (unknown): one line, exit 2. */
_Noreturn void fl_spec_bad_option(const char *cmd, int c, char **argv);
/* --probe-rounds against --probes and --no-probes: usage errors. */
void fl_spec_probes_check(const struct fl_spec *s);
#define FL_SPEC_MAXOPTS 64

/* The usage of run or sweep: d's synopsis, the options, d's notes. */
void fl_spec_usage(FILE *f, const struct fl_spec_defaults *d);

/* ---- the presets (presets.c) ---------------------------------------------------- */

/* The presets' names from their table, joined by sep ("quick|standard|full"). */
void fl_preset_names(char *buf, size_t size, const char *sep);
/* --preset NAME: one of the table's, else a usage error naming them. */
const char *fl_preset_known(const char *name);
/* The presets' settings, from their table (sweep --help; what the docs quote). */
void fl_presets_usage(FILE *f);
/* The preset's default --variant, or "all" (no preset). */
const char *fl_preset_variants(const struct fl_spec *s);
/* s->preset's groups (their threads scaled to the CPUs: lib/cpuset.h), and
 * its rounds, warm-up, probed rounds, resolution and --min-blocking where
 * no option gave them; returns its rep duration in seconds. */
double fl_preset_apply(struct fl_spec *s);

/* ---- parsing (spec.c) ------------------------------------------------------------ */

/* Parses argv (argv[0] is the command name). Bad input: one line on
 * stderr, exit 2. Returns 1 when --help was printed, else 0. */
int fl_spec_parse(struct fl_spec *s, const char *cmd, const struct fl_spec_defaults *d,
		  int argc, char **argv);

/* The probed rounds when nothing chose them (s->probe_rounds < 0: no
 * --probe-rounds, no preset): with --probes (FL_PROBES_ON) or --no-probes
 * 0 — every round probed, or none —, else R/3 of s->rounds = R, at least 1
 * and at most 3 (R = 10, the default: 3, as the quick and standard
 * presets), so that the timed rounds run untaxed (probes/overhead.md) and
 * the kernel's counts come from rounds of their own. run, sweep and exec;
 * s->rounds must be set. */
void fl_spec_probe_rounds(struct fl_spec *s);

/* --variant LIST into out[] (FL_MAXLIST): "all" (the extra designs, then
 * the registry's) or names, comma separated, an extra design found by name
 * before the registry's (the hunt's test designs). An unknown name or one
 * given twice: usage error (one line, exit 2). Returns how many. (run,
 * sweep and exec take NAME@POLICY items too: fl_spec_entries.) */
int fl_variant_list(const char *list, const struct fl_variant *const *extra, int nextra,
		    const struct fl_variant **out);

/* --hash LIST (modified in place) into items[] (max): each item a mode
 * lib/prctl.h parses, none given twice however spelled (usage error, exit
 * 2). Returns how many. */
int fl_hash_list(char *list, char **items, int max);

/* The entries into s->ents: each item of vlist ("all", or NAME and
 * NAME@POLICY items) in order — a design a policy applies to
 * (fl_policy_applies) once per policy of plist (NULL: park, not given), a
 * NAME@POLICY item once, a shipped library once — and the control
 * (s->control) right after the baseline's entry; with add_baseline (exec)
 * the baseline appended when no item gave it. s->baseline must be
 * canonical (fl_spec_baseline). Bad input, usage error (one line, exit 2):
 * an unknown design or policy, a policy for a shipped library, a plist
 * given with no design it applies to, an entry twice, more than fit. */
void fl_spec_entries(struct fl_spec *s, const char *vlist, const char *plist,
		     bool add_baseline);

/* --as: each pair's parent must be a design among s->ents (not a shipped
 * library, not helper-run), its mutant a performance mutant of that parent
 * with the parent's capacity and promises; then every entry of the parent
 * (each policy, the control) gets the mutant's descriptor, its label kept.
 * Bad input: usage error (one line, exit 2). fl_points_build refuses a
 * point where the mutant would skip and the parent run, or the reverse. */
void fl_spec_as(struct fl_spec *s);
/* One --as value (a comma list of PARENT=MUTANT) into s->as: the names and
 * what each is checked (usage error, exit 2); against the entries in
 * fl_spec_as. */
void fl_spec_as_add(struct fl_spec *s, const char *arg);
/* A point where a stand-in would be skipped and its parent run (or the
 * reverse): a usage error, the workload named (fl_points_build). */
void fl_spec_as_check(const struct fl_spec *s, const struct fl_point *pt);

/* --baseline NAME or NAME@POLICY (a design's, a floor's; a former name
 * read as today's) into s->blabel, its canonical label, s->baseline
 * pointing there. Usage error for an unknown design or a bad policy. */
void fl_spec_baseline(struct fl_spec *s);

/* Expands the spec (usage error, exit 2, for a workload none of whose
 * points can run). Returns the count; *out is malloc'ed. */
int fl_points_build(const struct fl_spec *s, struct fl_point **out);

#endif
