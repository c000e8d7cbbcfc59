/* harness/bench.h — the life of `run`, `sweep` and `exec` after their
 * options: the point runner (runner/runner.h), then the report of the rows
 * it wrote. The runner runs and writes; what the rows say — the ratio
 * table, the summary, the full tables in X.txt — is the report's
 * (report/summary.h), called here, after the runner has returned. */
#ifndef FUTEXLAB_BENCH_H
#define FUTEXLAB_BENCH_H

#include <stdio.h>

#include "runner/spec.h"

struct fl_table;

/* Runs s, then reports its rows; more (NULL: none) adds a command's own
 * report to the full tables, after the ratio table (exec's per-program
 * report). Returns the runner's exit status (runner.h). */
int fl_bench_report(struct fl_spec *s, void (*more)(FILE *f, const struct fl_table *t));

/* A command's whole life: parse with its defaults (spec.h), run, report. */
int fl_bench_main(const char *cmd, const struct fl_spec_defaults *d, int argc, char **argv);

#endif
