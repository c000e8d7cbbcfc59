/* workloads/watch_cost.c — what the stranded-waiter detector adds per op
 * (workloads/README.md, "The stranded-waiter detector"; not part of the
 * harness: a tool, `build/workloads/watch-cost [VARIANT...]`).
 *
 * uncontended: one thread, post(1)+wait pairs on one semaphore, in blocks
 * of N pairs, three modes interleaved block by block — raw (v->post and
 * v->wait called directly: no wrapper), off (the fl_sem_* wrappers with the
 * detector off: a thread-local read and a compare) and on (the wrappers
 * inside fl_watch_begin/end with the watchdog running at 50 ms) — each
 * mode's fastest block and median block, in ns per pair.
 * pingpong: the workload itself, --ops M round trips, off and on
 * alternated R times; the median ns per round trip of each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

#define BLOCKS 15
#define N 200000
#define PP_OPS 20000
#define PP_REPS 11

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double block(struct fl_sem *m, int mode)
{
	int64_t t0 = fl_now_ns();
	if (mode == 0) {
		for (int i = 0; i < N; i++)
			if (m->v->post(m->s, 1) || m->v->wait(m->s))
				exit(1);
	} else {
		for (int i = 0; i < N; i++)
			if (fl_sem_post_r(m, 1) || fl_sem_wait(m))
				exit(1);
	}
	return (double)(fl_now_ns() - t0) / N;
}

static void uncontended(const struct fl_variant *v)
{
	static const char *const name[3] = { "raw", "off", "on" };
	double t[3][BLOCKS];
	struct fl_params on = { .stranded_ns = FL_STRANDED_NS_DEFAULT }, off = { 0 };
	for (int b = 0; b < BLOCKS; b++)
		for (int mode = 0; mode < 3; mode++) {
			struct fl_result r;
			fl_watch_begin(mode == 2 ? &on : &off);
			struct fl_sem m;
			if (fl_sem_open(&m, v, 0))
				exit(1);
			t[mode][b] = block(&m, mode);
			fl_sem_close(&m);
			fl_watch_end(&r);
		}
	printf("%-10s uncontended ns/pair:", v->name);
	for (int mode = 0; mode < 3; mode++) {
		qsort(t[mode], BLOCKS, sizeof t[mode][0], cmp);
		printf("  %s %.2f (median %.2f)", name[mode], t[mode][0], t[mode][BLOCKS / 2]);
	}
	printf("\n");
}

static void pingpong(const struct fl_variant *v)
{
	double t[2][PP_REPS];
	const struct fl_workload *w = fl_workload_find("pingpong");
	for (int i = 0; i < PP_REPS; i++)
		for (int mode = 0; mode < 2; mode++) {
			struct fl_params p = { .threads = 2, .tokens = 1, .sems = 1, .ops = PP_OPS,
					       .stranded_ns = mode ? FL_STRANDED_NS_DEFAULT : 0 };
			struct fl_result r = { 0 };
			fl_watch_begin(&p);
			w->run(v, &p, &r);
			fl_watch_end(&r);
			free(r.lat);
			if (r.error[0] || r.ops <= 0) {
				fprintf(stderr, "pingpong: %s\n", r.error);
				exit(1);
			}
			t[mode][i] = (double)r.elapsed_ns / (double)r.ops;
		}
	qsort(t[0], PP_REPS, sizeof t[0][0], cmp);
	qsort(t[1], PP_REPS, sizeof t[1][0], cmp);
	printf("%-10s pingpong ns/round trip: off %.0f  on %.0f (medians of %d)\n", v->name,
	       t[0][PP_REPS / 2], t[1][PP_REPS / 2], PP_REPS);
}

int main(int argc, char **argv)
{
	const char *def[] = { "negcount", "glibc" };
	int n = argc > 1 ? argc - 1 : 2;
	for (int i = 0; i < n; i++) {
		const char *name = argc > 1 ? argv[i + 1] : def[i];
		const struct fl_variant *v = fl_variant_find(name);
		if (!v) {
			fprintf(stderr, "watch-cost: unknown variant '%s'\n", name);
			return 2;
		}
		uncontended(v);
		pingpong(v);
	}
	return 0;
}
