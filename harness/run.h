/* harness/run.h — the subcommands. */
#ifndef FUTEXLAB_RUN_H
#define FUTEXLAB_RUN_H

#include <signal.h>

#include "csv.h"
#include "stats.h"
#include "workload.h"

/* Set by SIGINT/SIGTERM: finished rows are kept, the sweep stops. */
extern volatile sig_atomic_t fl_interrupted;

int fl_cmd_run(int argc, char **argv);
int fl_cmd_list(int argc, char **argv);
int fl_cmd_sweep(int argc, char **argv);
int fl_cmd_compare(int argc, char **argv);

/* One (variant, workload, params) point run the way `run` runs it: reps,
 * CSV rows (csv may be NULL), skip and error handling. The wake strategy is
 * the process-wide one (fl_wake_set_strategy) at the time of the call. */
struct fl_point_result {
	const char *status;   /* "ok", "error", "skipped", "interrupted" */
	char note[200];
	struct fl_summary ns; /* ns per op over the reps (status ok) */
	double ops_s;         /* median ops/s */
};
void fl_run_one(const struct fl_variant *v, const struct fl_workload *w,
		const struct fl_params *p, int reps, struct fl_csv *csv,
		struct fl_point_result *out);
const char *fl_run_csv_header(void);

#endif
