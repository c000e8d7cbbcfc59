/* model/table.h — reading futexlab CSVs back: metadata, points, cells,
 * and the paired ratios every verdict is made of (rule.h judges them).
 *
 * A CSV is: '#' metadata lines ("# futexlab REV", then "# key: value" for
 * date, kernel, cpu, cores, command), one header line, one row per rep.
 * Columns are found by name, so columns appended later (perf, probes) are
 * carried along and older files without them still load.
 *
 * A *point* is one configuration: every column left of `ops` except
 * `variant` (workload, threads, tokens, hold_ns, think_ns, wake), plus the
 * configuration columns later options append (hash, sems) when present;
 * sems=1 (and a file without the column) keys as no sems at all. An older
 * file's `spin` is configuration too, spin 0 keying as none (park, what the
 * waiting policy's `policy` column, the entry's and not the point's,
 * replaced it with: harness/csv.md).
 * The rows of one (point, variant) are its reps; their values (a row's
 * value: below) are summarized by stats.h, and beside them what each rep cost in CPU: CPU ns
 * per op, (cpu_user_ns + cpu_sys_ns) / ops (user+sys of the whole process
 * over the rep, every thread: the kernel's precise total, though its split
 * into user and sys is sampled at the tick), and context switches per op,
 * (csw_vol + csw_invol) / ops; a file or a row without those cells has
 * none (NAN). Each rep carries its round (column `round`; files
 * written before rounds existed pair by `rep` instead, and say so;
 * harness/csv.md, "Reading older files"): the
 * ratio of a variant to the baseline is taken round by round (stats.h).
 *
 * Probed rows: a row is probed when its `probed` cell is 1 (older files
 * without that column: when its futex_syscalls cell is not empty). A
 * cell's time, CPU and context-switch figures (everything a ratio, a
 * verdict or a control floor reads) come from its unprobed ok reps when it
 * has any, else from all its ok reps (a --probes run); the kernel counts
 * (fl_kcount_cols) from its probed ok reps. */
#ifndef FUTEXLAB_TABLE_H
#define FUTEXLAB_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stats/stats.h"

/* A row's value, the one figure its medians, paired ratios, verdicts,
 * control, intervals and regimes are taken of (fl_cells_build decides it
 * per file, row_value in table.c): its ns_per_op; or, in a file with an
 * `# exec metric: REGEX (lower|higher is better)` line (exec --metric), the
 * program's own figure, column `metric` — as is when lower is better, its
 * reciprocal when higher is: a cost either way, so that a ratio row/baseline
 * (baseline/row of the figures) > 1 still means worse and every verdict
 * keeps its word. */
enum fl_value { FL_VALUE_NS, FL_VALUE_LOWER, FL_VALUE_HIGHER };
/* A value as the tables show it: ns per op, or the program's figure. */
double fl_value_shown(enum fl_value kind, double v);
/* How a run's file ends (harness/csv.md, "The end of a run"): a file
 * whose opening lines say `# format: 2` (or more) ends with the writer's
 * `# end: N rows, fnv1a64 HEX[, interrupted]` line when the run finished;
 * one without that line was written before the trailer existed and is
 * read without it. */
enum fl_end {
	FL_END_OLD,          /* no `# format:` line: written before the trailer */
	FL_END_MISSING,      /* due, but absent: killed, still running, or cut */
	FL_END_DONE,         /* the run finished */
	FL_END_INTERRUPTED,  /* the run was interrupted (Ctrl-C): its trailer says so */
};

struct fl_table {
	char *(*meta)[2];        /* key, value ("revision" for the first line) */
	int nmeta;
	char **cols;             /* header names */
	int ncol;
	char ***rows;            /* rows[i][j]: cell j of row i */
	int nrows;
	enum fl_end end;         /* how the file ends (above) */
	int end_rows;            /* the rows its trailer counts (-1: no trailer) */
	char *end_line;          /* the trailer as written, without "# " (NULL: none) */
	uint64_t rows_sum;       /* the rows' checksum as read (schema/fnv.h) */
};


/* The fairness and latency columns a cell summarizes: the
 * median over its ok reps of each, NAN where no rep has a value. */
#define FL_NEXTRA 8
extern const char *const fl_extra_cols[FL_NEXTRA]; /* fair_jain ... lat_max_ns */

/* The kernel counts a cell summarizes from its probed reps (probes/columns.md):
 * per op (the column over `ops`) but for wakes_per_post (the column: per
 * post) and the wake-to-run quantiles (ns). FL_K_XNODE, cross_node_wakes
 * per op, means something only on a machine of more than one NUMA node
 * (fl_cell.nodes). */
enum fl_kcount {
	FL_K_FUTEX, FL_K_WAITS, FL_K_WAKES, FL_K_WAKE_NONE, FL_K_EAGAIN, FL_K_WAKES_PER_POST,
	FL_K_RESLEEPS, FL_K_HERD, FL_K_W2R_P50, FL_K_W2R_P99, FL_K_XNODE, FL_NKCOUNT
};
extern const char *const fl_kcount_cols[FL_NKCOUNT]; /* futex_syscalls ... cross_node_wakes */

/* One (point, variant): the summary of its ok reps (the unprobed ones when
 * it has any: above). */
struct fl_cell {
	char *point;             /* display key, e.g. "pool T=4 K=1 wake=exact" */
	char *workload, *variant;
	int threads;
	char *status;            /* ok, error, skipped, interrupted */
	char *note;
	enum fl_value value;     /* what ns and ns_r hold (the file's: above) */
	struct fl_summary ns;    /* the value (ns per op) over ok reps (ns.n == 0: none) */
	double shown;            /* the median the value column shows: ns.median,
				  * or the program's figure's */
	double ops_s;            /* median ops/s */
	int nr;                  /* ok reps, in file order: */
	int *round;              /*   their round */
	double *ns_r, *ops_r;    /*   their value (ns per op) and ops/s */
	double *ex_r[FL_NEXTRA]; /*   their extra columns (NAN: empty) */
	double *cpu_r, *csw_r;   /*   their CPU ns and context switches per op (NAN: none) */
	bool *probed_r;          /*   whether probed (all false, or all true: above) */
	double extra[FL_NEXTRA]; /* medians of those (NAN: none) */
	struct fl_summary cpu, csw; /* over the reps that have them (n == 0, median NAN: none) */
	int nprobed;             /* its probed ok reps: */
	double *k_r[FL_NKCOUNT]; /*   their kernel counts (NAN: empty) */
	double k[FL_NKCOUNT];    /* medians of those (NAN: none) */
	int nodes;               /* the NUMA nodes of the machine that ran it: the
				  * file's `# numa: N nodes ...` line; 0: no line */
};

struct fl_cells {
	struct fl_cell *c;
	int n;
	bool paired;             /* the file has a round column */
	enum fl_value value;     /* what a row's value is (above) */
	char *metric;            /* the metric line's text, "REGEX (... is better)"; NULL: none */
};

/* Loads a run's CSV file by the rules every reader shares (compare,
 * report, history and the store: fl_table_check_run), printing one warning
 * line on stderr for a run that did not say it finished (fl_table_end_note);
 * on failure returns -1 with a one-line reason in err. */
int fl_table_load(struct fl_table *t, const char *path, char *err, int errlen);
/* The rules a run's file must meet to be read as one, beyond its shape
 * (fl_table_read's): its `# futexlab REV` line, at least one row, no row
 * repeating the header, every figure (ops, elapsed_ns, ns_per_op,
 * ops_per_s, cpu_*, csw_*, and metric in an exec --metric file) empty or a
 * finite number >= 0 and an ok row's value a finite number > 0, an ok
 * row's round an integer. 0, or -1 with "row R: column C: why" in err. */
int fl_table_check_run(const struct fl_table *t, char *err, int errlen);
/* What a reader says of a run whose file does not say it finished (a
 * trailer due and missing, or an interrupted one), into out: 1 with the
 * text, 0 (nothing to say). */
int fl_table_end_note(const struct fl_table *t, char *out, size_t n);
/* The same from an open stream (fl_table_load's reader; tests/fuzz feeds it
 * arbitrary bytes through fmemopen). On failure t holds what was read so
 * far: fl_table_free it. */
int fl_table_read(struct fl_table *t, FILE *f, char *err, int errlen);
/* Which line of a run CSV is what, the readers' rule written once (the
 * store keeps a file's lines by it, store/add.c): before the header a '#'
 * line is metadata and the first other non-empty line the header; after it
 * a non-empty line not beginning '#' is a row; the rest (blank lines, the
 * end line, notes) is other. line: without its newline. */
enum fl_line_kind { FL_LINE_META, FL_LINE_HEADER, FL_LINE_ROW, FL_LINE_OTHER };
enum fl_line_kind fl_line_kind(const char *line, bool after_header);
/* A CSV as lines: its '#' metadata lines (joined, each ending '\n'), its
 * header and its rows[0..n) (what the writer holds, record/csv.h, and
 * what the store keeps). */
struct fl_csv_lines {
	const char *meta;
	const char *header;
	char *const *rows;
	int n;
};
/* Builds a table from them. */
int fl_table_from_lines(struct fl_table *t, const struct fl_csv_lines *l, char *err, int errlen);
void fl_table_free(struct fl_table *t);
const char *fl_table_meta(const struct fl_table *t, const char *key);
/* A run made with --as PARENT=MUTANT (harness/options.md) is a test run:
 * its PARENT rows are a performance mutant's code. The k-th of its `# as:`
 * lines (k from 0) as the mark every reading of the file prints, "TEST RUN:
 * PARENT is MUTANT's code (--as); not a measurement of PARENT", into out:
 * 0, or -1 when the file has no k-th such line. */
int fl_table_as_mark(const struct fl_table *t, int k, char *out, size_t n);
/* Every such mark on f, each prefix-ed and ending in a newline. */
void fl_table_as_marks(FILE *f, const struct fl_table *t, const char *prefix);
/* The index of the column named name, or -1. */
int fl_table_col(const struct fl_table *t, const char *name);

/* Groups a table's rows into (point, variant) cells in first-seen order. */
int fl_cells_build(const struct fl_table *t, struct fl_cells *out, char *err, int errlen);
void fl_cells_free(struct fl_cells *c);

const struct fl_cell *fl_cell_find(const struct fl_cells *c, const char *point,
				   const char *variant);
/* Any cell of this variant, or NULL. */
const struct fl_cell *fl_cell_find_variant(const struct fl_cells *c, const char *variant);
/* status ok with at least one ok rep */
bool fl_cell_usable(const struct fl_cell *c);
/* The per-round ratios x/base of ns per op over the rounds both ran ok;
 * false if none. */
bool fl_cell_ratio(const struct fl_cell *x, const struct fl_cell *base, struct fl_ratio *out);
/* The same of CPU ns per op, over the rounds both have a CPU figure for;
 * false if none (a file without the CPU columns). */
bool fl_cell_cpu_ratio(const struct fl_cell *x, const struct fl_cell *base, struct fl_ratio *out);

#endif
