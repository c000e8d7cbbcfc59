/* schema/columns.h — the names of the run CSV's columns that the one
 * table of a rep's result (schema/result_fields.h) lists, for the writer
 * (run_row.h) and the reader (table.h) alike. The perf and probe columns
 * that follow them in the file are their modules' (probes/perf.h,
 * probes/probes.h). */
#ifndef FUTEXLAB_COLUMNS_H
#define FUTEXLAB_COLUMNS_H

#include "schema/result_fields.h"

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

#endif
