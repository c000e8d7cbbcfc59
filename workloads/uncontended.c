/* workloads/uncontended.c — one thread, post(1)+wait pairs: the fast path.
 *
 * One op is a post(1) followed by a wait on the same semaphore, which starts
 * at 0: the wait always finds the token its post just made, so nobody ever
 * waits for anybody and a design's figure is the cost of its uncontended
 * post and wait. Invariant checked: no post or wait fails, and the final
 * value is 0 (every token posted was taken). */
#include <string.h>

#include "workload.h"

static int64_t variant_loop(const struct fl_variant *v, struct fl_sem *m,
			    const struct fl_params *p, int64_t end_ns, struct fl_result *res)
{
	int64_t n = 0;
	while (!fl_rep_over(p, n, end_ns)) {
		int a = v->post(m->s, 1), b = fl_sem_wait(m);
		if (a || b) {
			fl_fail(res, "post=%s wait=%s", strerror(a), strerror(b));
			break;
		}
		n++;
	}
	return n;
}

void fl_run_uncontended(const struct fl_variant *v, const struct fl_params *p,
			struct fl_result *res)
{
	struct fl_sem m;
	int e = fl_sem_open(&m, v, 0);
	if (e) {
		fl_fail(res, "init: %s", strerror(e));
		return;
	}
	int64_t t0 = fl_now_ns(), end = t0 + p->duration_ns;
	res->ops = variant_loop(v, &m, p, end, res);
	res->elapsed_ns = fl_now_ns() - t0;
	if (v->getvalue(m.s) != 0)
		fl_fail(res, "final value %d, expected 0", v->getvalue(m.s));
	fl_sem_close(&m);
}
