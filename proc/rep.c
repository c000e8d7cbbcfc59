/* proc/rep.c — see rep.h. */
#include "proc/rep.h"

#include "proc/helper.h"

const char *fl_rep_unavailable(const struct fl_variant *v)
{
	const char *why = v->unavailable ? v->unavailable() : NULL;
	if (!why && v->helper)
		why = fl_helper_unavailable(v); /* its helper beside futexlab */
	return why;
}

void fl_rep_run(const struct fl_rep *x, const struct fl_rep_hooks *h, struct fl_result *r)
{
	if (!x->v->helper) {
		fl_rep_here(x, h, r);
		return;
	}
	/* The helper starts before the hooks begin: its start-up (exec, page
	 * faults, the hello) is not the rep's, and the hooks learn which
	 * process to count. */
	char meta[4096]; /* the helper line: its maps list the shared objects */
	pid_t pid = fl_helper_ready(x->v, meta, sizeof meta, r);
	if (meta[0] && h && h->meta)
		h->meta(h->arg, meta);
	if (h && h->begin)
		h->begin(h->arg, pid);
	if (pid > 0)
		fl_helper_run(x, r);
	if (h && h->end)
		h->end(h->arg, pid, r);
}
