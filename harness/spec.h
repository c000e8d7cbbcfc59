/* harness/spec.h — what a `run` or `sweep` asks for, and the points it
 * expands to. The flow, file by file:
 *
 *   spec.c     argv -> struct fl_spec (one option table for run and sweep;
 *              each command only sets its defaults) -> points
 *   runner.c   points -> rounds -> CSV rows (the one point runner)
 *   table.c    CSV rows -> cells (one per point and variant) -> paired ratios
 *   ratios.c   cells -> the ratio table, the before/after comparison, TSV
 *
 * A *point* is one configuration: a workload with its threads, tokens,
 * semaphores (--sems), hold/think, wake mode and spin bound. Its *entries* are what run at it:
 * the chosen variants, the floors where they mean something, and the
 * control — the baseline a second time, as BASELINE#2 — whose ratio to the
 * baseline is the run's own A/A: the noise floor every verdict of the
 * table stands on. */
#ifndef FUTEXLAB_SPEC_H
#define FUTEXLAB_SPEC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "probes/probes.h"
#include "workloads/workload.h"

#define FL_MAXLIST 64

/* One cartesian product of axes; comma lists. */
struct fl_group {
	const char *workloads, *threads, *tokens, *wake, *spin;
	const char *sems;               /* NULL: "1" (the presets) */
};

struct fl_csv;
struct fl_table;
struct fl_point;

/* What a command other than run and sweep (exec: cmd_exec.c) hands the
 * runner: its own workload, run at one point (s->base), and hooks. Every
 * hook may be NULL. */
struct fl_bench_hooks {
	const struct fl_workload *workload;
	/* extra metadata lines, after the machine's */
	void (*meta)(struct fl_csv *csv);
	/* after each measured rep whose run returned (probes stopped: their
	 * per-rep data, e.g. fl_probes_words, is that rep's); entry indexes
	 * pt->e */
	void (*rep_done)(const struct fl_point *pt, int entry, int round,
			 const struct fl_result *r);
	/* after the ratio table, on the run's rows */
	void (*summary)(const struct fl_table *t);
};

struct fl_spec {
	const char *cmd;                /* "run" or "sweep", for messages */
	const char *preset;             /* name, or NULL */
	const struct fl_group *groups;  /* pgroups (a preset's), or &cli */
	int ngroups;
	struct fl_group cli, pgroups[16];
	const struct fl_variant *vs[FL_MAXLIST];
	int nv;
	struct fl_params base;          /* hold, think, ops, duration */
	int rounds, warmup;             /* rounds measured, rounds unmeasured */
	int64_t budget_ns;
	const char *csv_path, *baseline, *pin, *bt_script;
	bool floors, control, quiet, dry;
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

/* The usage of run or sweep: d's synopsis, the options, d's notes. */
void fl_spec_usage(FILE *f, const struct fl_spec_defaults *d);

/* Parses argv (argv[0] is the command name). Bad input: one line on
 * stderr, exit 2. Returns 1 when --help was printed, else 0. */
int fl_spec_parse(struct fl_spec *s, const char *cmd, const struct fl_spec_defaults *d,
		  int argc, char **argv);

/* --variant LIST into out[] (FL_MAXLIST): "all" (the extra designs, then
 * the registry's) or names, comma separated, an extra design found by name
 * before the registry's (the hunt's test designs). An unknown name or one
 * given twice: usage error (one line, exit 2). Returns how many. */
int fl_variant_list(const char *list, const struct fl_variant *const *extra, int nextra,
		    const struct fl_variant **out);

/* --hash LIST (modified in place) into items[] (max): each item a mode
 * lib/prctl.h parses, none given twice however spelled (usage error, exit
 * 2). Returns how many. */
int fl_hash_list(char *list, char **items, int max);

/* exec: --variant LIST into s->vs, the baseline added when not listed
 * (usage error, exit 2, for an unknown name). */
void fl_spec_variants(struct fl_spec *s, const char *list);

struct fl_entry {
	const struct fl_variant *v;
	char label[40];                 /* the CSV's variant: name, or BASELINE#2 */
};

struct fl_point {
	const struct fl_workload *w;
	struct fl_params p;
	int wake, spin;
	struct fl_entry e[FL_MAXLIST + 3];
	int ne;
};

/* Expands the spec (usage error, exit 2, for a workload none of whose
 * points can run). Returns the count; *out is malloc'ed. */
int fl_points_build(const struct fl_spec *s, struct fl_point **out);

#endif
