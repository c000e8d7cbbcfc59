/* runner/plan.c — what the run will do, decided from the spec and the
 * points before anything runs (run.h): which entry can run at a point
 * and which time their blocking op, how many probed rounds it adds, what
 * it costs, and --dry-run, which says all of it and runs nothing. The
 * parts that run (schedule.c, reps.c, meta.c) ask it; it asks none of
 * them. */
#include "runner/run.h"

#include <stdio.h>

#include "lib/wake.h"
#include "runner/hashmode.h"

bool fl_run_wants_latency(const struct fl_spec *s, const struct fl_workload *w)
{
	return w->latency && (s->latency < 0 ? w->latency_default : s->latency);
}

/* Checked in this order: the hash mode was refused, the kernel or the build
 * lacks the design or its helper, the workload does not fit it. */
const char *fl_run_unavailable(const struct fl_point *pt, const struct fl_entry *e)
{
	const char *why = fl_hash_unavailable();
	if (!why)
		why = fl_rep_unavailable(e->v);
	return why ? why : fl_workload_unavailable(pt->w, e->v, &pt->p);
}

/* --probe-rounds N when the collector is loaded, else none (the run takes
 * no longer for counts it cannot have). */
int fl_run_probed_rounds(const struct fl_spec *s)
{
	return s->probe_rounds > 0 && fl_probes_loaded() ? s->probe_rounds : 0;
}

/* What a rep costs beyond its timed work: its threads made and joined, the
 * adaptive policy's calibration, the stranded-waiter detector, a helper's
 * round trip, the row written. Measured: a quick sweep of 4437 reps of
 * 13 ms took 78 s of wall time (scripts/aa's, results/estimate.md), 4.6 ms
 * a rep beyond the 13; results/estimate.md checks the estimate against
 * other sweeps. */
#define REP_SETUP_S 0.0046

double fl_run_expected_cost(const struct fl_spec *s, const struct fl_point *pts, int n)
{
	double per_rep = (s->base.ops ? 0.05 : (double)s->base.duration_ns / 1e9) + REP_SETUP_S;
	double total = 0;
	int rounds = s->warmup + s->rounds +
		     (s->probe_rounds > 0 && s->probes != FL_PROBES_OFF ? s->probe_rounds : 0);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < pts[i].ne; j++)
			total += fl_run_unavailable(&pts[i], &pts[i].e[j]) ? 0 : per_rep * rounds;
	if (s->target_res > 0 && total < (double)s->res_budget_ns / 1e9)
		total = (double)s->res_budget_ns / 1e9; /* at most: the budget */
	return total;
}

int fl_run_dry(const struct fl_spec *s, const struct fl_point *pts, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < pts[i].ne; j++) {
			const struct fl_point *p = &pts[i];
			const char *why = fl_run_unavailable(p, &p->e[j]);
			printf("%-20s %-12s T=%-4d K=%-4d sems=%-2d wake=%-5s %s%s\n",
			       p->e[j].label, p->w->name, p->p.threads, p->p.tokens, p->p.sems,
			       fl_wake_name((enum fl_wake_strategy)p->wake), why ? "skipped: " : "",
			       why ? why : "");
		}
	printf("%d points, %d + %d rounds each (+ %d probed), about %.0f s (the reps' timed work "
	       "and %.1f ms a rep to set up)\n", n, s->warmup, s->rounds,
	       s->probes == FL_PROBES_OFF ? 0 : s->probe_rounds, fl_run_expected_cost(s, pts, n),
	       1e3 * REP_SETUP_S);
	return 0;
}
