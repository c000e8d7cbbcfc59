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
 *   floor-inline is the same two RMWs inlined in a loop of their own (no
 *   call, no marks; timing, op count and the final-value check are the
 *   designs' loop's): what the hardware costs at the least, and
 *   floor-atomic over it is what the harness's path costs an op. No design
 *   can beat either here; neither bounds anything once a waiter must sleep
 *   (they spin: see floors.c).
 *   floor-futex is no floor here: its post always makes a FUTEX_WAKE, a
 *   syscall every design skips when nobody sleeps — the cost of a post that
 *   always enters the kernel, the unit of the /futex column. */
#include <string.h>

#include "lib/cpu.h"
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

/* floor-inline: floor-atomic's post and wait inlined, one atomic RMW each.
 * The wait is floor-atomic's (floors.c): a CAS-decrement that spins while the count is 0
 * (never, here: its post just made a token). */
static int64_t floor_inline_loop(struct fl_floor *f, const struct fl_params *p, int64_t end_ns)
{
	int64_t n = 0;
	while (!fl_rep_over(p, n, end_ns)) {
		atomic_fetch_add_explicit(&f->count, 1, memory_order_release);
		uint32_t c = atomic_load_explicit(&f->count, memory_order_relaxed);
		do {
			while (c == 0) {
				fl_cpu_relax();
				c = atomic_load_explicit(&f->count, memory_order_relaxed);
			}
		} while (!atomic_compare_exchange_weak_explicit(&f->count, &c, c - 1,
				memory_order_acquire, memory_order_relaxed));
		n++;
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
	res->ops = v == &fl_floor_inline ? floor_inline_loop(m.s, p, end)
					 : variant_loop(&m, p, end, res);
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
