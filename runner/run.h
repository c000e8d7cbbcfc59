/* runner/run.h — the point runner's parts (runner.h), from the top:
 *
 *   runner.c    the run end to end: its CSVs, --pin, --hash, the closing lines
 *   schedule.c  which point runs when: the interleaved rounds, the probed
 *               rounds among them, stretched reps, bought rounds
 *   reps.c      one point's round: every live entry once, one rep each, its row
 *   meta.c      the CSV's metadata lines: the machine, the run, each point's close
 *   progress.c  a point's key and the progress lines on stderr
 *   plan.c      what the run will do, from the spec alone: which entry can run
 *               where, the probed rounds, the cost, --dry-run
 *
 * Each part calls only the parts below it in this list (no circle); the
 * run's state is one struct fl_run, handed to each. */
#ifndef FUTEXLAB_RUN_H
#define FUTEXLAB_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "runner/spec.h"
#include "proc/rep.h"
#include "record/machine.h"

struct fl_csv;

/* Progress on stderr (progress.c). */
struct fl_progress {
	bool on, tty;
	int64_t t0, logged;  /* the run's start; the last line's time (0: none yet) */
	double total, done;  /* seconds of expected timed work */
	int point, npoints;
	char stage[48];      /* the round the points are in, for the log's lines */
};

struct fl_counts {
	int ok, skipped, error;
};

/* What a point carries across the run's rounds (schedule.c interleaves them). */
struct fl_point_run {
	struct fl_hist *acc[FL_MAXENTRY];    /* latency over the measured reps */
	bool live[FL_MAXENTRY];              /* neither skipped nor failed */
	bool latency;
	struct fl_cpu_sample cpu;            /* summed over the point's rounds */
	double load_first, load_last;
	int base, ctrl;                      /* the baseline's and the control's entry, or -1 */
	double *bns, *cns;                   /* their ns per op in the timed rounds both ran ok */
	int npair, cap;
	int64_t warm[FL_MAXENTRY];           /* each entry's blocking ops in the last warm-up */
	int next;                            /* the number of the point's next round */
	int timed;                           /* its timed rounds so far */
};

/* What kind of round a rep is in: its number (-1: warm-up), whether it is
 * measured and whether the collector counts it. */
struct fl_round_kind {
	int round;
	bool measured, probed;
};

/* The run: what every part reads and writes. */
struct fl_run {
	const struct fl_spec *s;
	struct fl_point *pts;
	int npts;
	struct fl_point_run *pr;        /* one per point */
	struct fl_csv *csv, *lat;       /* the rows; the latency side file (or NULL) */
	uint64_t rng;                   /* the seeded generator of every order */
	struct fl_progress g;
	struct fl_counts n;
	int done;                       /* points whose last round ran */
	/* what a timer read costs (the median of back-to-back fl_now_ns pairs,
	 * measured once per run): subtracted from the latency percentiles,
	 * since each timed interval contains one read's worth of the clock */
	double timer_ns;
	char pin_text[2200];            /* the # pin: line's (record/machine.h) */
};

/* ---- reps.c ---- */
/* A failed write of the rows: one line, exit 1. */
void fl_run_csv_check(const struct fl_csv *csv, int e);
/* Before point i's first round: its skipped rows, once. */
void fl_run_point_begin(struct fl_run *r, int i);
/* One round of point i: every live entry once, in a fresh random order;
 * a timed round pairs the baseline with its control. */
void fl_run_point_round(struct fl_run *r, int i, struct fl_round_kind rk, bool timed);

/* ---- schedule.c ---- */
/* Every point's rounds, interleaved; then the bought ones (--target-res). */
void fl_run_points(struct fl_run *r);

/* ---- meta.c ---- */
/* --as: one `# as:` line per pair (arg: the spec), the --hash merge's too. */
void fl_run_as_meta(struct fl_csv *csv, const void *arg);
/* The CSV's metadata before the first rep: the machine's, the command's
 * hook's, the run's (the timer, measured into r->timer_ns; the workloads
 * that time their blocking op, into lw); the collector, perf and bpftrace
 * started. */
void fl_run_meta(struct fl_run *r, char *lw, size_t n);
void fl_run_probes_start(const struct fl_spec *s, struct fl_csv *csv);
/* Other processes' CPU over ~0.1 s before starting: a one-line warning. */
void fl_run_check_quiet(void);
/* The point's closing metadata line: its load and other processes' CPU. */
void fl_run_point_meta(const struct fl_run *r, int i);

/* ---- progress.c ---- */
/* Point pt's key, the tables' (schema/point_key.h), as its rows spell it
 * (hash: this process's mode): "pool T=4 K=1 wake=exact hash=auto", every
 * line of the run alike — the progress, the CSV's `# point N (KEY)`. */
const char *fl_run_point_key(const struct fl_point *pt, char *out, size_t n);
enum { FL_RUN_KEY_LEN = 192 }; /* a key's buffer: the longest is ~100 bytes */
/* Before point i's round (on a terminal: the line rewritten in place). */
void fl_progress_show(const struct fl_run *r, int i, int round);
/* After point i's round, off a terminal: its line when one is due. */
void fl_progress_log(struct fl_run *r, int i);

/* ---- plan.c ---- */
/* NULL when this entry can run at this point, else why not (its skipped row). */
const char *fl_run_unavailable(const struct fl_point *pt, const struct fl_entry *e);
/* Whether reps at this point time their blocking op (--latency). */
bool fl_run_wants_latency(const struct fl_spec *s, const struct fl_workload *w);
/* The probed rounds this run adds beside its timed ones. */
int fl_run_probed_rounds(const struct fl_spec *s);
/* Seconds of timed work the run expects. */
double fl_run_expected_cost(const struct fl_spec *s, const struct fl_point *pts, int n);
/* --dry-run: the points, the entries, the skips, the estimate. */
int fl_run_dry(const struct fl_spec *s, const struct fl_point *pts, int n);

#endif
