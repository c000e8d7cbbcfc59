/* stranded/cost.c — what the stranded-waiter detector adds per op
 * (stranded/README.md, "Cost"; not part of the harness: a tool,
 * `build/stranded/stranded-cost [VARIANT...]`, default negcount glibc).
 *
 * uncontended: one thread, post(1)+wait pairs on one semaphore, in blocks
 * of N pairs, three modes interleaved block by block — raw (v->post and
 * fl_wait, the design's wait under the process's waiting policy,
 * variants/policy.h, called directly: no marks), off (the marked ops, which are the
 * workloads' fl_sem_* wrappers, with the detector off: a thread-local read
 * and a compare) and on (the marked ops inside fl_stranded_begin/end with
 * the watchdog running at 50 ms) — each mode's fastest block and median
 * block, in ns per pair.
 * pingpong: two threads, one posts ping and waits for pong, the other waits
 * for ping and posts pong (the marked ops), PP_OPS round trips, off and on
 * alternated PP_REPS times; the median ns per round trip of each.
 *
 * The semaphores are opened as the workloads open theirs: on a cache line
 * of their own, and told to the detector (fl_stranded_opened) so that the
 * watchdog samples them as it would a workload's. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "stranded/stranded.h"
#include "variants/policy.h"
#include "variants/variant.h"

#define BLOCKS 15
#define N 200000
#define PP_OPS 20000
#define PP_REPS 11
#define THRESHOLD_NS 50000000LL /* the harness's default --stranded-ms 50 */

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void die(const char *what)
{
	fprintf(stderr, "stranded-cost: %s\n", what);
	exit(1);
}

/* Design v's semaphore of value 0 in slot `slot`, on a line of its own. */
static void *sem_open(const struct fl_variant *v, int slot)
{
	void *s = aligned_alloc(64, 64);
	if (!s || v->size > 64 || v->align > 64)
		die("cannot place the semaphore");
	memset(s, 0, 64);
	if (v->init(s, 0, 0))
		die("init failed");
	fl_stranded_opened(slot, v, s, 0);
	return s;
}

static void sem_close(const struct fl_variant *v, void *s, int slot)
{
	fl_stranded_closed(slot);
	v->destroy(s);
	free(s);
}

static double block(const struct fl_variant *v, void *s, int mode)
{
	int64_t t0 = fl_now_ns();
	if (mode == 0) {
		for (int i = 0; i < N; i++)
			if (v->post(s, 1) || fl_wait(v, s))
				die("raw post/wait failed");
	} else {
		for (int i = 0; i < N; i++)
			if (fl_stranded_post(v, s, 0, 1) || fl_stranded_wait(v, s, 0))
				die("post/wait failed");
	}
	return (double)(fl_now_ns() - t0) / N;
}

static void uncontended(const struct fl_variant *v)
{
	static const char *const name[3] = { "raw", "off", "on" };
	double t[3][BLOCKS];
	for (int b = 0; b < BLOCKS; b++)
		for (int mode = 0; mode < 3; mode++) {
			struct fl_stranded_findings rep;
			fl_stranded_begin(mode == 2 ? THRESHOLD_NS : 0);
			void *s = sem_open(v, 0);
			t[mode][b] = block(v, s, mode);
			sem_close(v, s, 0);
			fl_stranded_end(&rep);
		}
	printf("%-10s uncontended ns/pair:", v->name);
	for (int mode = 0; mode < 3; mode++) {
		qsort(t[mode], BLOCKS, sizeof t[mode][0], cmp);
		printf("  %s %.2f (median %.2f)", name[mode], t[mode][0], t[mode][BLOCKS / 2]);
	}
	printf("\n");
}

/* The pong side: slot 0 is ping, slot 1 pong. */
struct pp {
	const struct fl_variant *v;
	void *ping, *pong;
};

static void *ponger(void *arg)
{
	struct pp *p = arg;
	for (int i = 0; i < PP_OPS; i++)
		if (fl_stranded_wait(p->v, p->ping, 0) || fl_stranded_post(p->v, p->pong, 1, 1))
			die("pong failed");
	return NULL;
}

/* ns per round trip of one rep, the detector at `threshold_ns` (0: off). */
static double pingpong_rep(const struct fl_variant *v, int64_t threshold_ns)
{
	struct fl_stranded_findings rep;
	fl_stranded_begin(threshold_ns);
	struct pp p = { v, sem_open(v, 0), sem_open(v, 1) };
	pthread_t t;
	if (pthread_create(&t, NULL, ponger, &p))
		die("pthread_create failed");
	int64_t t0 = fl_now_ns();
	for (int i = 0; i < PP_OPS; i++)
		if (fl_stranded_post(v, p.ping, 0, 1) || fl_stranded_wait(v, p.pong, 1))
			die("ping failed");
	int64_t ns = fl_now_ns() - t0;
	pthread_join(t, NULL);
	sem_close(v, p.ping, 0);
	sem_close(v, p.pong, 1);
	fl_stranded_end(&rep);
	if (rep.stranded > 0)
		die(rep.note);
	return (double)ns / PP_OPS;
}

static void pingpong(const struct fl_variant *v)
{
	double t[2][PP_REPS];
	for (int i = 0; i < PP_REPS; i++)
		for (int mode = 0; mode < 2; mode++)
			t[mode][i] = pingpong_rep(v, mode ? THRESHOLD_NS : 0);
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
			fprintf(stderr, "stranded-cost: unknown variant '%s'\n", name);
			return 2;
		}
		uncontended(v);
		pingpong(v);
	}
	return 0;
}
