/* runner/runner.h — the one point runner behind `run` and `sweep`.
 *
 * At every point the entries (spec.h) run in *rounds*: a round runs each
 * entry once, in a fresh random order drawn from the seeded generator
 * (stats.h: fl_round_order; the seed is in the CSV), so that drift over
 * the run lands on every entry alike and drift within a round favours
 * nobody in particular. `warmup` unmeasured rounds come first. Every rep is
 * one CSV row with its round and its slot in the round's order. */
#ifndef FUTEXLAB_RUNNER_H
#define FUTEXLAB_RUNNER_H

#include "runner/spec.h"

/* Runs the spec end to end: CSV, probes, the table. Returns the exit
 * status (0; 1 when a point broke an invariant; 130 when interrupted). */
int fl_bench(struct fl_spec *s);

/* Set by `futexlab ab-worker`, whose runs' CSVs are scratch its parent
 * reads at once: no `# handoffs:` line (the adaptive policy's calibration
 * once per run, 44 ms of sched_yield: each adaptive rep calibrates again
 * anyway), and the helper processes (proc/helper.h) left running for the
 * worker's next run (~50 ms each to start: the worker stops them when it
 * ends). Every rep is measured as in any run. */
extern bool fl_run_scratch;

/* A command's whole life: parse with its defaults (spec.h), then run. */
int fl_bench_main(const char *cmd, const struct fl_spec_defaults *d, int argc, char **argv);

#endif
