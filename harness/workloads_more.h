/* harness/workloads_more.h — the sweep's workloads (workloads_more.c),
 * registered in the table of workloads.c. */
#ifndef FUTEXLAB_WORKLOADS_MORE_H
#define FUTEXLAB_WORKLOADS_MORE_H

#include "workload.h"

void fl_run_prodcons(const struct fl_variant *v, const struct fl_params *p,
		     struct fl_result *r);
void fl_run_barrier(const struct fl_variant *v, const struct fl_params *p,
		    struct fl_result *r);
void fl_run_timeouts(const struct fl_variant *v, const struct fl_params *p,
		     struct fl_result *r);

/* NULL when (w, v, p) can run, else why not (for a skipped row): prodcons
 * needs a producer and a consumer, barrier posts T tokens at once (T at most
 * the variant's value_max), oversub needs more threads than online cores. */
const char *fl_workload_unfit(const struct fl_workload *w, const struct fl_variant *v,
			      const struct fl_params *p);

#endif
