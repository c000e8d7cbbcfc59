/* runner/runner.h — the one point runner behind `run`, `sweep` and `exec`.
 *
 * At every point the entries (spec.h) run in *rounds*: a round runs each
 * entry once, in a fresh random order drawn from the seeded generator
 * (stats.h: fl_round_order; the seed is in the CSV), so that drift over
 * the run lands on every entry alike and drift within a round favours
 * nobody in particular. `warmup` unmeasured rounds come first. Every rep is
 * one CSV row with its round and its slot in the round's order. */
#ifndef FUTEXLAB_RUNNER_H
#define FUTEXLAB_RUNNER_H

#include <stdbool.h>

#include "record/csv.h"
#include "runner/spec.h"

/* What a run leaves its command: the rows it wrote, still open, for the
 * command to report (harness/bench.c: the ratio table and the summary,
 * which are the report's, not the runner's) before fl_bench_close ends the
 * files. */
struct fl_bench_out {
	bool rows;              /* csv holds the run's rows: not a dry run, nor a --hash
				 * list (each mode's own process reported its rows) */
	struct fl_csv csv;      /* the rows, in memory (and in --csv's file) */
	struct fl_csv lat;      /* the latency side file, when lat_open */
	bool lat_open;
	int errors;             /* points that broke an invariant (an error row) */
};

/* Runs the spec end to end: the points, the CSV, the probes, the closing
 * lines. Returns the exit status (0; 1 when a point broke an invariant or
 * a file could not be written; 130 when interrupted); out as above. */
int fl_bench(struct fl_spec *s, struct fl_bench_out *out);
/* Ends out's files (record/csv.h: fl_csv_close) and frees them. */
void fl_bench_close(struct fl_bench_out *out);

/* Set by `futexlab ab-worker`, whose runs' CSVs are scratch its parent
 * reads at once: no `# handoffs:` line (the adaptive policy's calibration
 * once per run, 44 ms of sched_yield: each adaptive rep calibrates again
 * anyway), and the helper processes (proc/helper.h) left running for the
 * worker's next run (~50 ms each to start: the worker stops them when it
 * ends). Every rep is measured as in any run. */
extern bool fl_run_scratch;

#endif
