/* harness/runner.h — the one point runner behind `run` and `sweep`.
 *
 * At every point the entries (spec.h) run in *rounds*: a round runs each
 * entry once, in a fresh random order drawn from the seeded generator
 * (stats.h: fl_round_order; the seed is in the CSV), so that drift over
 * the run lands on every entry alike and drift within a round favours
 * nobody in particular. `warmup` unmeasured rounds come first. Every rep is
 * one CSV row with its round and its slot in the round's order. */
#ifndef FUTEXLAB_RUNNER_H
#define FUTEXLAB_RUNNER_H

#include <signal.h>
#include <stddef.h>

#include "harness/spec.h"

/* Set by SIGINT/SIGTERM: finished rows are kept, the run stops. */
extern volatile sig_atomic_t fl_interrupted;

/* Runs the spec end to end: CSV, probes, the table. Returns the exit
 * status (0; 1 when a point broke an invariant; 130 when interrupted). */
int fl_bench(struct fl_spec *s);

/* A command's whole life: parse with its defaults (spec.h), then run. */
int fl_bench_main(const char *cmd, const struct fl_spec_defaults *d, int argc, char **argv);

/* The latency side file (harness/README.md): beside CSV x.csv, x.lat.csv
 * (else CSV.lat.csv), with this header. */
extern const char fl_lat_csv_header[];
void fl_lat_path(const char *csv_path, char *out, size_t n);

#endif
