/* schema/columns.c — see columns.h: the names, generated from the table. */
#include "schema/columns.h"

#define NAME_FIELD(kind, name, arg, csv) FL_RESULT_CSV_##csv(const char fl_col_##name[] = #name;)
#define NAME_COLUMN(name) const char fl_col_##name[] = #name;
FL_RESULT_TABLE(NAME_FIELD, NAME_COLUMN)

#define LIST_FIELD(kind, name, arg, csv) FL_RESULT_CSV_##csv(fl_col_##name,)
#define LIST_COLUMN(name) fl_col_##name,
const char *const fl_run_cols[FL_RUN_NCOLS] = { FL_RESULT_TABLE(LIST_FIELD, LIST_COLUMN) };

