/* model/model.h — runs x points x entries: the results as data.
 *
 * What a set of runs says, built once from their rows; every output is a
 * view of it: one run's ratio table, TSV, summary and page (rule.h,
 * summary.h, html.h: fl_model_of_run), and across runs the gate against a
 * machine's history (judge.h), the change points over it (history.h), the
 * JSON (json.h), the store (which keeps the runs this is built from). Per
 * run, point and entry the cell holds what the run's own ratio table says
 * there — the median value and its interval, CPU, the table's judgement
 * (the paired ratio to the baseline and its interval against the control's
 * band, the CPU ratio and its verdict: rule.h's fl_judged), the verdict
 * once the point's regimes are taken into account, whether it costs more
 * CPU — and its cell (table.h: the rows' summary, which the evidence,
 * fairness and regimes blocks read); per run and point the fastest, its
 * group and why (fl_mpoint). The figures are computed by the table's own
 * functions (table.h, rule.h, regimes.h), once, so a view never
 * re-derives a figure and nothing is parsed back from printed text.
 *
 * A run also carries its identity (revision, date, seed, command), its
 * machine (fingerprint and name: fl_machine_of) and whether it is a test
 * run (`# as:` — a performance mutant run under a design's name: such a run
 * is marked in every view and never passes for a measurement).
 *
 * Points are the union over the runs in the order of the runs' point
 * numbers (table.h), entries the union in the ratio table's row order
 * (fl_entry_order); a cell an entry did not run in has present == false. */
#ifndef FUTEXLAB_MODEL_H
#define FUTEXLAB_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/rule.h"
#include "model/table.h"

/* A machine's identity: a 16-hex-digit FNV-1a hash of its CSV metadata
 * lines cpu, cores, numa, kernel, hypervisor, host, libc and libraries
 * (the ones a file has; older files lack the last three), and a name
 * for people: the host, else "CPU/Nc/kernel release". */
struct fl_machine_id {
	char fingerprint[17];
	char name[160];
	char label[172];  /* how every output shows the machine: "name [fingerprint8]"
			   * (names need not be unique: fl_machine_label) */
};
void fl_machine_of(const struct fl_table *t, struct fl_machine_id *m);
/* A machine as shown: "name [the fingerprint's first 8 hex digits]". */
void fl_machine_label(const char *name, const char *fingerprint, char *out, size_t n);
/* The metadata keys the fingerprint is made of, NULL-terminated. */
extern const char *const fl_machine_keys[];
/* Whether two runs ran on one machine: every key of fl_machine_keys that
 * both files have agrees (a file from before the host, libc and libraries
 * lines is not another machine for lacking them); else the first key that
 * differs in *key. */
bool fl_machine_same(const struct fl_table *a, const struct fl_table *b, const char **key);

struct fl_mrun {
	char *path;            /* the CSV, or "store:ID" */
	long store_id;         /* 0: not from a store */
	const char *revision, *date, *seed, *command; /* "?" when the file lacks one */
	const char *as;        /* the `# as:` line (a test run), NULL: a real run */
	struct fl_machine_id machine;
};

struct fl_mcell {
	const struct fl_cell *src; /* its cell: the rows' summary, the evidence (NULL: absent) */
	bool present;          /* a row of this entry at this point in this run */
	bool usable;           /* status ok with an ok rep */
	const char *status;    /* ok, error, skipped, interrupted */
	int reps;              /* ok reps the figures are over */
	double value;          /* median value: ns per op, or exec's metric (table.h) */
	double value_lo, value_hi; /* its interval */
	double cpu;            /* median CPU ns per op (NAN: none) */
	struct fl_ratio ratio; /* paired to the baseline (n == 0: none) */
	enum fl_verdict verdict; /* the ratio table's (FL_UNDECIDED: none, or regimes) */
	bool regimes;          /* the point's baseline ran in two states in this run */
	bool judged;           /* j holds: the ratio table's judgement of the row */
	struct fl_judged j;    /* (rule.h) the time and CPU verdicts against the
				* control's band, before the point's regimes are
				* taken into account (the TSV's verdict column) */
	struct fl_ratio cpu_ratio; /* CPU ns per op paired to the baseline's (n == 0: none) */
	bool more_cpu;         /* costs more CPU than the baseline: the CPU ratio's own
				* verdict slower (the control's CPU floor applies), by
				* FL_CPU_NOTE or more (stats.h) */
};

/* What one run says at one point: the fastest group and why.
 * The candidates are the entries with a paired ratio but the control and
 * the floors (the baseline is one, at ratio 1). The fastest is the one of
 * least ratio; its group, every candidate the ratio table's rule cannot
 * tell from it: their paired ratio (fastest / other, in the same rounds)
 * judged against the control's band by fl_cell_verdict is not `faster`.
 * A group is a tie: naming one member would say more than the run does.
 * No fastest where the baseline ran in two states (regimes). Why: against
 * the baseline (when the fastest is the baseline: the fastest candidate
 * outside its group), when the fastest is faster than it by the table's
 * rule, the count that moved the way of the result by the why line's rule
 * (fl_why_toward, evidence.h); none_why when no count did. */
struct fl_mpoint {
	int fastest;          /* entry index, -1: none */
	int ngroup, *group;   /* the group, fastest first, by ratio */
	int against;          /* the entry the why is against, -1: no result to explain */
	bool none_why;        /* a result, and no count moved its way */
	char why[160];        /* "csw/op 0.065 -> 0.010"; "" */
};

struct fl_model {
	const char *baseline;
	int nrun, npoint, nentry;
	struct fl_mrun *run;
	char **point;          /* display keys (table.h) */
	char **entry;          /* entry labels */
	struct fl_mcell *cell; /* [(r * npoint + p) * nentry + e] */
	struct fl_mpoint *pt;  /* [r * npoint + p] */
	struct fl_table *t;    /* the runs' tables, owned */
	struct fl_cells *c;    /* and their cells */
	bool borrowed;         /* t and c are the caller's (fl_model_of_run) */
};

/* Builds the model of n runs: t, a malloc'ed array of n loaded tables, is
 * taken over (freed by fl_model_free, also on failure); paths[i] names run i, store_ids[i] its
 * store id (NULL: none). Returns 0, or -1 with one line in err (a table
 * whose cells cannot be built). */
int fl_model_build(struct fl_model *m, int n, struct fl_table *t, char *const *paths,
		   const long *store_ids, const char *baseline, char *err, int errlen);
/* The model of one run whose table and cells the caller keeps (what run,
 * sweep, exec and `compare FILE` end with; the page's runs): t and c are
 * read, not taken over, and must outlive m. */
void fl_model_of_run(struct fl_model *m, const struct fl_table *t, const struct fl_cells *c,
		     const char *path, const char *baseline);
void fl_model_free(struct fl_model *m);
const struct fl_mpoint *fl_model_pt(const struct fl_model *m, int r, int p);
const struct fl_mcell *fl_model_cell(const struct fl_model *m, int r, int p, int e);
/* The index of a point key or an entry label, -1: none. */
int fl_model_point(const struct fl_model *m, const char *key);
int fl_model_entry(const struct fl_model *m, const char *label);
/* What entry e is, defined once: the baseline, its control, a floor
 * (floor-*), else the catalog's kind (catalog.h: a design, a shipped
 * library, or other — without a catalog every such entry is other). */
enum fl_entry_kind { FL_ENTRY_BASELINE, FL_ENTRY_CONTROL, FL_ENTRY_FLOOR, FL_ENTRY_DESIGN,
		     FL_ENTRY_LIBRARY, FL_ENTRY_OTHER };
enum fl_entry_kind fl_model_kind(const struct fl_model *m, int e);
/* Its name in the JSON and the docs: baseline, control, floor, design, library, other. */
const char *fl_entry_kind_name(enum fl_entry_kind k);
/* Whether entry e is the baseline or its control. */
bool fl_model_is_baseline(const struct fl_model *m, int e);
bool fl_model_is_control(const struct fl_model *m, int e);

/* The runs of one comparison, checked before anything is said of them:
 * with `once`, the same run twice (the same revision, date, seed and command: a copy
 * or the same file named twice would count its runs' evidence twice) and
 * runs of different machines (unless `across`: then only same-run ratios
 * may be compared) are usage errors naming `what` ("compare --pool"); runs
 * of more than one revision get a line on f saying which, since a change of
 * the code is not a rerun. */
void fl_runs_check(const struct fl_table *t, char *const *paths, int n, bool across,
		   bool once, const char *what, FILE *f);

#endif
