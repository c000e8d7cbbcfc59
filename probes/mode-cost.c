/* probes/mode-cost.c — what the collector's modes cost a FUTEX_WAKE, in one
 * run, without the harness:
 *
 *   build/probes/mode-cost [ROUNDS]     (root)
 *
 * FUTEX_WAKE on a private word nobody waits on, the fastest of 200 blocks of
 * 1000 calls (other work on the machine only adds time), in a process M of
 * its own, in five modes per round:
 *   off       nothing attached (before and after the others: their mean is
 *             the baseline)
 *   plain     the plain programs counting M (the harness's mode: target M,
 *             wake-to-run on)
 *   other     the plain programs counting another process: what every other
 *             process of the machine pays
 *   tree      the extended programs, follow_children and per_word, M a
 *             process of the tree (forked by the caller during the rep): a
 *             hash lookup that hits, and a per-word update per wake
 *   tree-nw   the same with follow_children alone: the lookup, no per-word
 *   outside   follow_children and per_word, M outside the tree (forked
 *             before the rep): what every other process of the machine
 *             pays while following
 * Prints per round the ns each mode adds per call, then the medians. Each
 * collector is attached for its mode only (an attach and a detach cost an RCU
 * grace period: a round takes a few seconds). */
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probes/fastest.h"
#include "probes/futexstat.h"

static uint32_t word;

static double fastest(void)
{
	return fastest_ns(&word, FUTEX_WAKE);
}

/* The measuring process: one figure per byte received, until EOF. */
static void measurer(int in, int out)
{
	char b;
	while (read(in, &b, 1) == 1) {
		double d = fastest();
		if (write(out, &d, sizeof d) != sizeof d)
			_exit(1);
	}
	_exit(0);
}

static double ask(int cmd, int res)
{
	char b = 0;
	double d = -1;
	if (write(cmd, &b, 1) != 1 || read(res, &d, sizeof d) != sizeof d)
		return -1;
	return d;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static struct futexstat *open_or_die(pid_t tgid, int follow, int per_word)
{
	char why[300];
	struct futexstat_config cfg = { .tgid = tgid, .wake_to_run = 1, .follow_children = follow,
					.per_word = per_word };
	struct futexstat *fs = futexstat_open(&cfg, why, sizeof why);
	if (!fs) {
		fprintf(stderr, "mode-cost: %s\n", why);
		exit(1);
	}
	return fs;
}

static void start_or_die(struct futexstat *fs)
{
	char why[300];
	if (futexstat_start(fs, why, sizeof why)) {
		fprintf(stderr, "mode-cost: %s\n", why);
		exit(1);
	}
}

enum { OFF, PLAIN, OTHER, TREE, TREE_NW, OUTSIDE, NMODES };
static const char *const names[NMODES] = { "off", "plain", "other", "tree", "tree-nw", "outside" };

/* A process of the tree (forked now, during the rep of `fs`) measures. */
static double in_tree(void)
{
	int tc[2], tr[2];
	if (pipe(tc) || pipe(tr))
		exit(1);
	fflush(NULL);
	pid_t t = fork();
	if (t == 0) {
		close(tc[1]);
		measurer(tc[0], tr[1]);
	}
	close(tc[0]);
	double d = ask(tc[1], tr[0]);
	close(tc[1]);
	waitpid(t, NULL, 0);
	close(tr[0]), close(tr[1]);
	return d;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	if (argc > 2 || rounds < 1 || rounds > 1000) {
		fprintf(stderr, "usage: mode-cost [ROUNDS]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	int cmd[2], res[2];
	if (pipe(cmd) || pipe(res))
		return 1;
	fflush(NULL);
	pid_t m = fork(); /* M, forked before any rep: never in a tree */
	if (m == 0) {
		close(cmd[1]);
		measurer(cmd[0], res[1]);
	}
	close(cmd[0]);
	struct futexstat *plain_m = open_or_die(m, 0, 0);   /* target: M */
	struct futexstat *plain_us = open_or_die(0, 0, 0);  /* target: us */
	struct futexstat *ext_us = open_or_die(0, 1, 1);    /* follows what we fork */
	struct futexstat *follow_us = open_or_die(0, 1, 0); /* the same, no per-word */
	double add[NMODES][1000];
	printf("round  plain  other   tree tree-nw outside  (ns added per FUTEX_WAKE; off = %s)\n",
	       "mean of before and after");
	for (int r = 0; r < rounds; r++) {
		struct futexstat_counts c;
		double v[NMODES], off2;
		v[OFF] = ask(cmd[1], res[0]);

		start_or_die(plain_m);
		v[PLAIN] = ask(cmd[1], res[0]);
		futexstat_stop(plain_m, &c);
		futexstat_detach(plain_m);

		start_or_die(plain_us);
		syscall(SYS_futex, &word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
		v[OTHER] = ask(cmd[1], res[0]); /* host_tgid learned: the steady state */
		futexstat_stop(plain_us, &c);
		futexstat_detach(plain_us);

		start_or_die(ext_us);
		v[OUTSIDE] = ask(cmd[1], res[0]);
		v[TREE] = in_tree();
		futexstat_stop(ext_us, &c);
		futexstat_detach(ext_us);

		start_or_die(follow_us);
		v[TREE_NW] = in_tree();
		futexstat_stop(follow_us, &c);
		futexstat_detach(follow_us);

		off2 = ask(cmd[1], res[0]);
		double base = (v[OFF] + off2) / 2;
		for (int k = PLAIN; k < NMODES; k++)
			add[k][r] = v[k] - base;
		printf("%5d %6.1f %6.1f %6.1f %7.1f %7.1f  (off %.1f, %.1f ns a call)\n", r + 1,
		       add[PLAIN][r], add[OTHER][r], add[TREE][r], add[TREE_NW][r], add[OUTSIDE][r],
		       v[OFF], off2);
	}
	printf("median");
	for (int k = PLAIN; k < NMODES; k++) {
		qsort(add[k], (size_t)rounds, sizeof add[k][0], cmp);
		printf(" %s %.1f", names[k], add[k][rounds / 2]);
	}
	printf(" ns per call\n");
	close(cmd[1]);
	waitpid(m, NULL, 0);
	futexstat_close(plain_m);
	futexstat_close(plain_us);
	futexstat_close(ext_us);
	futexstat_close(follow_us);
	return 0;
}
