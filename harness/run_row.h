/* harness/run_row.h — the run CSV's columns: the header, one rep's row, and
 * the names the reader looks columns up by, all generated from the one
 * table of a rep's result (workloads/result_fields.h), then the perf and
 * probe columns their modules write (perf.h, probes_glue.h). The schema,
 * column by column: harness/README.md. */
#ifndef FUTEXLAB_RUN_ROW_H
#define FUTEXLAB_RUN_ROW_H

#include <stddef.h>

#include "harness/perf.h"
#include "harness/spec.h"
#include "workloads/result_fields.h"

/* The table's columns, in order: FL_RUN_COL_name indexes fl_run_cols[]. */
#define FL_RUN_COL_ENUM_FIELD(kind, name, arg, csv) FL_RESULT_CSV_##csv(FL_RUN_COL_##name,)
#define FL_RUN_COL_ENUM_COLUMN(name) FL_RUN_COL_##name,
enum fl_run_col {
	FL_RESULT_TABLE(FL_RUN_COL_ENUM_FIELD, FL_RUN_COL_ENUM_COLUMN)
	FL_RUN_NCOLS
};
extern const char *const fl_run_cols[FL_RUN_NCOLS];

/* A column's name, for the reader: FL_COL(round) is "round". An address
 * constant (usable in static tables); a name the table does not write is
 * an undeclared identifier, not a lookup that finds nothing at run time. */
#define FL_COL(name) fl_col_##name
#define FL_RUN_COL_DECL_FIELD(kind, name, arg, csv) \
	FL_RESULT_CSV_##csv(extern const char fl_col_##name[];)
#define FL_RUN_COL_DECL_COLUMN(name) extern const char fl_col_##name[];
FL_RESULT_TABLE(FL_RUN_COL_DECL_FIELD, FL_RUN_COL_DECL_COLUMN)

/* The whole header: the table's columns, the perf columns, the probe
 * columns. */
const char *fl_run_csv_header(void);

/* One measured (or skipped, or failed) rep. */
struct fl_run_rep {
	const struct fl_entry *e;
	int round, slot;                /* round -1: a warm-up rep */
	const char *status, *note;      /* ok, error, skipped, empty; its note */
	const struct fl_result *r;      /* NULL for skipped rows */
	const struct fl_perf_reading *perf; /* NULL: none (empty cells) */
};

/* x's row at pt (no newline) into out[n]: the table's cells, the perf
 * cells, the probe cells of the last rep (probes_glue.h). timer_ns, what
 * one clock read costs, is subtracted from the latency percentiles. Exits
 * when the row does not fit (it always does in 4096 bytes). */
void fl_run_row(char *out, size_t n, const struct fl_point *pt, const struct fl_run_rep *x,
		double timer_ns);

#endif
