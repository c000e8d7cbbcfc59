/* report/tables.h — one run's full tables and TSV: views of its results
 * model (model.h), each figure the model's (the table's rule, model/rule.h). */
#ifndef FUTEXLAB_TABLES_H
#define FUTEXLAB_TABLES_H

#include <stdbool.h>
#include <stdio.h>

#include "model/model.h"
#include "model/rule.h"
#include "model/table.h"

/* The ratio table of every entry against `baseline`, per point (its first
 * line with its rounds): median ns, the paired ratio, its interval and the
 * verdict with its CPU note (stats.h, fl_cpu_note); under the rows the
 * fairness medians, the evidence block and its why line (evidence.h), the
 * libraries line; then the control's summary line. Returns the count of
 * error rows. */
int fl_print_ratios(FILE *f, const struct fl_model *m, int r);

/* The fairness and latency medians under a point's rows (the cells'
 * extra[], table.h), for a view that lays them out itself (the page):
 * column k's head ("jain", "cv", "min/max", "starve", "lat p50", "p99",
 * "p99.9", "max") and value x of it as the block prints it ("-": none). */
extern const char *const fl_extra_heads[FL_NEXTRA];
const char *fl_extra_text(char *b, size_t n, int k, double x);

/* Run r's rows at point p of the model, in the table's order, and each
 * row's time verdict in *v (both malloc'ed: free them). */
const struct fl_cell **fl_model_rows(const struct fl_model *m, int r, int p, enum fl_verdict **v,
				     int *nrow);

/* One tab-separated line per point and variant (scripts/plot reads it),
 * with the paired ratio to `baseline`, the fairness and latency medians,
 * then the CPU figures, then the kernel counts (new columns go at the end:
 * harness/verdicts.md). */
void fl_print_tsv(FILE *f, const struct fl_model *m, int r);

#endif
