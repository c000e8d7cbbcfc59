/* record/run_row.h — the run CSV's header and one rep's row, generated
 * from the one table of a rep's result (schema/result_fields.h; the
 * columns' names: columns.h), then the perf and probe columns their
 * modules write (probes/perf.h, probes/probes.h). The schema, column by
 * column: harness/csv.md. */
#ifndef FUTEXLAB_RUN_ROW_H
#define FUTEXLAB_RUN_ROW_H

#include <stdbool.h>
#include <stddef.h>

#include "schema/columns.h"
#include "probes/perf.h"
#include "workloads/point.h"

/* The whole header: the table's columns, the perf columns, the probe
 * columns, `probed`. */
const char *fl_run_csv_header(void);

/* One measured (or skipped, or failed) rep. */
struct fl_run_rep {
	const struct fl_entry *e;
	int round, slot;                /* round -1: a warm-up rep */
	const char *status, *note;      /* ok, error, skipped, empty; its note */
	const struct fl_result *r;      /* NULL for skipped rows */
	const struct fl_perf_reading *perf; /* NULL: none (empty cells) */
	bool probed;                    /* the collector counted this rep */
	const char *hash;               /* the hash column: the futex hash mode the
					 * process runs in (runner/hashmode.h) */
};

/* x's row at pt (no newline) into out[n]: the table's cells, the perf
 * cells, the probe cells of the last rep (probes/probes.h). timer_ns, what
 * one clock read costs, is subtracted from the latency percentiles. Exits
 * when the row does not fit (it always does in 4096 bytes). */
void fl_run_row(char *out, size_t n, const struct fl_point *pt, const struct fl_run_rep *x,
		double timer_ns);

/* Point pt's key as its rows spell it (schema/point_key.h: the tables'),
 * from the cells this file writes (hash: the hash column's text); out. */
const char *fl_run_row_key(const struct fl_point *pt, const char *hash, char *out, size_t n);

struct fl_csv;
struct fl_hist;
/* The point's latency distributions, one per entry over its measured reps
 * (acc[i]: entry i's, NULL: none; each freed and cleared), into the side
 * file (lat NULL: only freed), for the CDF plots; hash: the hash column.
 * Returns 0 or the first write's errno. */
int fl_lat_rows(struct fl_csv *lat, const struct fl_point *pt, struct fl_hist **acc,
		const char *hash, double timer_ns);

#endif
