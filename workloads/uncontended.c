/* workloads/uncontended.c — one thread, post(1)+wait pairs: the fast path.
 *
 * One op is a post(1) followed by a wait on the same semaphore, which starts
 * at 0: the wait always finds the token its post just made, so nobody ever
 * waits for anybody and a design's figure is the cost of its uncontended
 * post and wait. Invariant checked: no post or wait fails, and the final
 * value is 0 (every token posted was taken).
 *
 * The floors (floors.c) run here too:
 *   floor-atomic runs the designs' loop, as every design does: its post (one
 *   atomic_fetch_add, release) and wait (one CAS-decrement, acquire) called
 *   through the variant table inside the detector's marks. It is the floor
 *   a design is judged on: the least a counting semaphore costs on the path
 *   every design pays, so a design's ratio to it is its own logic alone.
 *   floor-inline is the same two RMWs inlined in a loop (floor-atomic's
 *   inline form, below: no table, no marks): what the hardware costs at
 *   the least, and floor-atomic over it is what the harness's path costs
 *   an op. No design can beat either here; neither bounds anything once a
 *   waiter must sleep (they spin: see floors.c).
 *   NAME-inline, a design's inline form (asked for by name: --variant
 *   negcount-inline), runs as floor-inline does: the design's own post and
 *   wait called directly from a loop compiled with them, the wait through
 *   the waiting policy as fl_wait passes it (its .pairs, variant.h;
 *   FL_PAIRS, policy.h), so the compiler inlines what a program calling
 *   them in a loop would inline (a header-only library: all of it;
 *   glibc's sem_t: nothing, the calls go through the PLT). NAME-inline
 *   over floor-inline is the design's own logic on the path a program
 *   pays, as NAME over floor-atomic is on the harness's path
 *   (results/uncontended.md).
 *   floor-futex is no floor here: its post always makes a FUTEX_WAKE, a
 *   syscall every design skips when nobody sleeps — the cost of a post that
 *   always enters the kernel, the unit of the /futex column. */
#include <stdio.h>
#include <string.h>

#include "workloads/workload.h"

/* The designs, floor-atomic and floor-futex: every post and wait through
 * the table, inside the detector's marks. */
static int64_t variant_loop(struct fl_sem *m,
			    const struct fl_params *p, int64_t end_ns, struct fl_result *res)
{
	int64_t n = 0;
	while (!fl_rep_over(p, n, end_ns)) {
		int a = fl_sem_post_r(m, 1), b = fl_sem_wait(m);
		if (a || b) {
			fl_fail(res, "post=%s wait=%s", strerror(a), strerror(b));
			break;
		}
		n++;
	}
	return n;
}

/* The inline forms (workload.h): a copy of the design's descriptor under
 * the name NAME-inline, so that rows, labels and a baseline tell the form
 * from the design; its ops are the design's (open, close and the value
 * check use them), its pairs are what the rep times. Built at parse time,
 * before any rep, one per design at most. */
#define FL_MAX_FORMS 64
static struct fl_variant forms[FL_MAX_FORMS];
static const struct fl_variant *form_of[FL_MAX_FORMS];
static char form_name[FL_MAX_FORMS][48];
static int nforms;

const struct fl_variant *fl_inline_form(const struct fl_variant *v)
{
	if (v == &fl_floor_atomic)
		return &fl_floor_inline;
	if (!v->pairs || v->helper)
		return NULL;
	for (int i = 0; i < nforms; i++)
		if (form_of[i] == v)
			return &forms[i];
	if (nforms == FL_MAX_FORMS)
		return NULL;
	snprintf(form_name[nforms], sizeof form_name[0], "%s-inline", v->name);
	forms[nforms] = *v;
	forms[nforms].name = form_name[nforms];
	form_of[nforms] = v;
	return &forms[nforms++];
}

const struct fl_variant *fl_inline_of(const struct fl_variant *v)
{
	if (v == &fl_floor_inline)
		return &fl_floor_atomic;
	for (int i = 0; i < nforms; i++)
		if (v == &forms[i])
			return form_of[i];
	return NULL;
}

/* An inline form's loop: its pairs, FL_CLOCK_EVERY a call (the clock
 * read between calls, as variant_loop reads it every FL_CLOCK_EVERY ops;
 * --ops is met exactly). One call per 256 pairs is the loop's only cost
 * beyond the design's own code. */
static int64_t pairs_loop(const struct fl_variant *v, void *s, const struct fl_params *p,
			  int64_t end_ns, struct fl_result *res)
{
	int64_t n = 0;
	while (!fl_rep_over(p, n, end_ns)) {
		int64_t k = FL_CLOCK_EVERY;
		if (p->ops && p->ops - n < k)
			k = p->ops - n;
		int e = v->pairs(v, s, k);
		if (e) {
			fl_fail(res, "post+wait: %s", strerror(e));
			break;
		}
		n += k;
	}
	return n;
}

static void fl_run_uncontended(const struct fl_variant *v, const struct fl_params *p,
			struct fl_result *res)
{
	struct fl_sem m;
	int e = fl_sem_open(&m, v, 0);
	if (e) {
		fl_fail(res, "init: %s", strerror(e));
		return;
	}
	int64_t t0 = fl_now_ns(), end = t0 + p->duration_ns;
	res->ops = fl_inline_of(v) ? pairs_loop(v, m.s, p, end, res) : variant_loop(&m, p, end, res);
	res->elapsed_ns = fl_now_ns() - t0;
	if (fl_sem_value_or(&m, 0) != 0)
		fl_fail(res, "final value %d, expected 0", fl_sem_value_or(&m, 0));
	fl_sem_close(&m);
}

/* registered in workloads/meson.build (workload_names) */
const struct fl_workload fl_workload_uncontended = {
	.name = "uncontended",
	.run = fl_run_uncontended,
	.summary = "one thread, post(1)+wait pairs: the fast path",
	.op = "post+wait",
	.fixed_threads = 1,
	.has_floors = true,
	.inline_floor = true,
};
