/* workloads/rep.c — see rep.h. */
#include "workloads/rep.h"

#include <sys/resource.h>

#include "lib/wake.h"

static int64_t tv_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

/* The process's CPU and context switches from a to b: the whole rep, its
 * set-up and joins included (threads that ended count: RUSAGE_SELF keeps
 * them). */
static void rusage_diff(const struct rusage *a, const struct rusage *b, struct fl_result *r)
{
	r->cpu_set = true;
	r->cpu_user_ns = tv_ns(b->ru_utime) - tv_ns(a->ru_utime);
	r->cpu_sys_ns = tv_ns(b->ru_stime) - tv_ns(a->ru_stime);
	r->csw_vol = b->ru_nvcsw - a->ru_nvcsw;
	r->csw_invol = b->ru_nivcsw - a->ru_nivcsw;
}

void fl_rep_here(const struct fl_rep *x, const struct fl_rep_hooks *h, struct fl_result *r)
{
	struct rusage a = { 0 }, b = { 0 };
	fl_wake_set_strategy((enum fl_wake_strategy)x->wake);
	fl_policy_set(&x->policy);
	fl_policy_forget();
	fl_stranded_rep_begin(&x->p);
	if (h && h->begin)
		h->begin(h->arg, 0);
	getrusage(RUSAGE_SELF, &a);
	x->w->run(x->v, &x->p, r);
	getrusage(RUSAGE_SELF, &b);
	if (h && h->end)
		h->end(h->arg, 0, r);
	fl_stranded_rep_end(r);
	if (!r->cpu_set)
		rusage_diff(&a, &b, r);
}
