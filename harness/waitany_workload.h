/* harness/waitany_workload.h — the `waitany` workload (waitany_workload.c). */
#ifndef FUTEXLAB_WAITANY_WORKLOAD_H
#define FUTEXLAB_WAITANY_WORKLOAD_H

#include "workload.h"

void fl_run_waitany(const struct fl_variant *v, const struct fl_params *p,
		    struct fl_result *r);

#endif
