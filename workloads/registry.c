/* workloads/registry.c — the registry: every workload, in the order that
 * `futexlab list`, `run --workload all` and the sweep use.
 *
 * Adding a workload (workloads/README.md): its file, NAME.c, defining
 * fl_run_NAME (and fl_unfit_NAME if some points cannot run); its entry in
 * the table below, with the one-line declaration of its functions above it;
 * and NAME.c in workloads/meson.build. */
#include <stdio.h>
#include <string.h>

#include "workload.h"

/* What each workload file defines (the signatures of struct fl_workload). */
#define RUN(name) void fl_run_##name(const struct fl_variant *v, \
				     const struct fl_params *p, struct fl_result *r)
#define UNFIT(name) const char *fl_unfit_##name(const struct fl_variant *v, \
						const struct fl_params *p)
RUN(uncontended);
RUN(pingpong);
RUN(pool); UNFIT(oversub);
RUN(prodcons); UNFIT(prodcons);
RUN(barrier); UNFIT(barrier);
RUN(timeouts);
RUN(waitany); UNFIT(waitany);

const struct fl_workload fl_workloads[] = {
	{ .name = "uncontended", .run = fl_run_uncontended,
	  .summary = "one thread, post(1)+wait pairs: the fast path",
	  .op = "post+wait", .fixed_threads = 1, .has_floors = true },
	{ .name = "pingpong", .run = fl_run_pingpong,
	  .summary = "two threads, two semaphores: a sleep/wake handoff per half trip",
	  .op = "round trip", .fixed_threads = 2, .has_floors = true },
	{ .name = "pool", .run = fl_run_pool,
	  .summary = "T threads contend for K tokens with hold/think busy work",
	  .op = "acquire+release", .uses_tokens = true },
	{ .name = "prodcons", .run = fl_run_prodcons, .unfit = fl_unfit_prodcons,
	  .summary = "bounded buffer: empty/full/mutex semaphores, T/2 producers, K slots",
	  .op = "item through the buffer", .uses_tokens = true },
	{ .name = "barrier", .run = fl_run_barrier, .unfit = fl_unfit_barrier,
	  .summary = "T threads cross a two-turnstile barrier; the last releases all with post(T)",
	  .op = "phase" },
	{ .name = "timeouts", .run = fl_run_timeouts,
	  .summary = "T threads timedwait 50-150us while one token is posted per 100us",
	  .op = "timedwait call" },
	{ .name = "oversub", .run = fl_run_pool, .unfit = fl_unfit_oversub,
	  .summary = "pool with threads >> cores: holders are preempted holding a token",
	  .op = "acquire+release", .uses_tokens = true },
	{ .name = "waitany", .run = fl_run_waitany, .unfit = fl_unfit_waitany,
	  .summary = "T/2 producers post to random semaphores of 4, the rest wait on all 4 (wait-any)",
	  .op = "token handed over" },
};
const int fl_nworkloads = sizeof fl_workloads / sizeof fl_workloads[0];

const struct fl_workload *fl_workload_find(const char *name)
{
	for (int i = 0; i < fl_nworkloads; i++)
		if (strcmp(fl_workloads[i].name, name) == 0)
			return &fl_workloads[i];
	return NULL;
}

const char *fl_workload_unfit(const struct fl_workload *w, const struct fl_variant *v,
			      const struct fl_params *p)
{
	static __thread char why[160];
	if (w->uses_tokens && p->tokens > v->value_max) {
		snprintf(why, sizeof why, "tokens above the variant's maximum %d", v->value_max);
		return why;
	}
	return w->unfit ? w->unfit(v, p) : NULL;
}
