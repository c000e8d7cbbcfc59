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
 *   cgroup    the same programs counting by cgroup id (exec with a cgroup
 *             of its own: futexstat_count_cgroup), a process in that cgroup
 *             (C, moved into a fresh cgroup2 directory at the start): a
 *             helper call and a compare instead of the tree's lookup, and
 *             the per-word update
 *   cg-out    by cgroup id, M outside the cgroup: what every other process
 *             of the machine pays then
 * (cgroup and cg-out need a writable cgroup2: without one they print nan.)
 * Prints per round the ns each mode adds per call, then the medians. Each
 * collector is attached for its mode only (an attach and a detach cost an RCU
 * grace period: a round takes a few seconds). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/cgroup2.h"
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

enum { OFF, PLAIN, OTHER, TREE, TREE_NW, OUTSIDE, CGROUP, CG_OUT, NMODES };
static const char *const names[NMODES] = { "off",     "plain",   "other",  "tree",
					    "tree-nw", "outside", "cgroup", "cg-out" };

/* A fresh cgroup2 directory under our own cgroup (the first cgroup2 mount
 * of mountinfo, /proc/self/cgroup's 0:: line) into dir; its id (inode
 * number), or 0 with one line on stderr. */
static __u64 make_cgroup(char *dir, size_t n)
{
	char own[PATH_MAX], why[200];
	struct stat st;
	int k = fl_cgroup2_own_dir(own, sizeof own, why, sizeof why) ? -1 :
		snprintf(dir, n, "%s/mode-cost-%d", own, (int)getpid());
	if (k < 0 || (size_t)k >= n || mkdir(dir, 0755) || stat(dir, &st)) {
		fprintf(stderr, "mode-cost: no writable cgroup2 (%s): cgroup and cg-out not measured\n",
			k < 0 ? why : strerror(errno));
		dir[0] = '\0';
		return 0;
	}
	return st.st_ino;
}

/* C: moves itself into the cgroup (dir), then measures like M. */
static pid_t cgroup_measurer(const char *dir, int *cmd, int *res)
{
	int c[2], r[2];
	if (pipe(c) || pipe(r))
		exit(1);
	fflush(NULL);
	pid_t p = fork();
	if (p == 0) {
		char procs[PATH_MAX + 96];
		snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
		int fd = open(procs, O_WRONLY);
		if (fd < 0 || write(fd, "0", 1) != 1)
			_exit(1);
		close(fd);
		close(c[1]);
		measurer(c[0], r[1]);
	}
	close(c[0]);
	close(r[1]);
	*cmd = c[1];
	*res = r[0];
	return p;
}

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

/* Everything a round uses: M's pipes, C's (-1: no cgroup), the collectors. */
struct rig {
	int cmd, res, ccmd, cres;
	struct futexstat *plain_m, *plain_us, *ext_us, *follow_us, *cg_us;
};

/* Measures each mode once with its collector counting (attached for that
 * mode only); v[OFF] and *off2: M detached before and after, coff[2] C's. */
static void one_round(const struct rig *g, double v[NMODES], double *off2, double coff[2])
{
	struct futexstat_counts c;
	v[OFF] = ask(g->cmd, g->res);
	coff[0] = g->ccmd >= 0 ? ask(g->ccmd, g->cres) : NAN;

	start_or_die(g->plain_m);
	v[PLAIN] = ask(g->cmd, g->res);
	futexstat_stop(g->plain_m, &c);
	futexstat_detach(g->plain_m);

	start_or_die(g->plain_us);
	syscall(SYS_futex, &word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	v[OTHER] = ask(g->cmd, g->res); /* host_tgid learned: the steady state */
	futexstat_stop(g->plain_us, &c);
	futexstat_detach(g->plain_us);

	start_or_die(g->ext_us);
	v[OUTSIDE] = ask(g->cmd, g->res);
	v[TREE] = in_tree();
	futexstat_stop(g->ext_us, &c);
	futexstat_detach(g->ext_us);

	start_or_die(g->follow_us);
	v[TREE_NW] = in_tree();
	futexstat_stop(g->follow_us, &c);
	futexstat_detach(g->follow_us);

	start_or_die(g->cg_us);
	v[CG_OUT] = ask(g->cmd, g->res);
	v[CGROUP] = g->ccmd >= 0 ? ask(g->ccmd, g->cres) : NAN;
	futexstat_stop(g->cg_us, &c);
	futexstat_detach(g->cg_us);

	*off2 = ask(g->cmd, g->res);
	coff[1] = g->ccmd >= 0 ? ask(g->ccmd, g->cres) : NAN;
}

/* The two ways of following side by side, round by round (the rounds drift
 * more than a mode's cost moves), then each mode's median. */
static void report(double add[NMODES][1000], int rounds)
{
	double dc[1000] = { 0 }, dout[1000] = { 0 }; /* (rounds >= 1: main checks) */
	for (int r = 0; r < rounds; r++) {
		dc[r] = add[CGROUP][r] - add[TREE][r];
		dout[r] = add[CG_OUT][r] - add[OUTSIDE][r];
	}
	qsort(dc, (size_t)rounds, sizeof dc[0], cmp);
	qsort(dout, (size_t)rounds, sizeof dout[0], cmp);
	printf("paired (median of the rounds' differences): cgroup - tree %.1f, cg-out - outside "
	       "%.1f ns per call\n", dc[rounds / 2], dout[rounds / 2]);
	printf("median");
	for (int k = PLAIN; k < NMODES; k++) {
		qsort(add[k], (size_t)rounds, sizeof add[k][0], cmp);
		printf(" %s %.1f", names[k], add[k][rounds / 2]);
	}
	printf(" ns per call\n");
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
	struct rig g = {
		.cmd = cmd[1], .res = res[0], .ccmd = -1, .cres = -1,
		.plain_m = open_or_die(m, 0, 0),   /* target: M */
		.plain_us = open_or_die(0, 0, 0),  /* target: us */
		.ext_us = open_or_die(0, 1, 1),    /* follows what we fork */
		.follow_us = open_or_die(0, 1, 0), /* the same, no per-word */
		.cg_us = open_or_die(0, 1, 1),     /* by cgroup, per-word */
	};
	char dir[PATH_MAX + 64];
	__u64 cg = make_cgroup(dir, sizeof dir);
	pid_t cm = cg ? cgroup_measurer(dir, &g.ccmd, &g.cres) : -1;
	futexstat_count_cgroup(g.cg_us, cg ? cg : ~0ULL); /* ~0: no cgroup's id */
	static double add[NMODES][1000];
	printf("round  plain  other   tree tree-nw outside cgroup cg-out  (ns added per FUTEX_WAKE; "
	       "off = mean of before and after)\n");
	for (int r = 0; r < rounds; r++) {
		double v[NMODES], off2, coff[2];
		one_round(&g, v, &off2, coff);
		for (int k = PLAIN; k < NMODES; k++)
			add[k][r] = v[k] - (v[OFF] + off2) / 2;
		/* C against its own detached blocks: another process, maybe on
		 * the other CPU */
		add[CGROUP][r] = v[CGROUP] - (coff[0] + coff[1]) / 2;
		printf("%5d %6.1f %6.1f %6.1f %7.1f %7.1f %6.1f %6.1f  (off %.1f, %.1f ns a call)\n",
		       r + 1, add[PLAIN][r], add[OTHER][r], add[TREE][r], add[TREE_NW][r],
		       add[OUTSIDE][r], add[CGROUP][r], add[CG_OUT][r], v[OFF], off2);
	}
	report(add, rounds);
	if (cg) { /* C first: it holds a copy of M's command pipe */
		close(g.ccmd);
		waitpid(cm, NULL, 0);
		if (rmdir(dir))
			fprintf(stderr, "mode-cost: rmdir %s: %s\n", dir, strerror(errno));
	}
	close(cmd[1]);
	waitpid(m, NULL, 0);
	futexstat_close(g.cg_us);
	futexstat_close(g.plain_m);
	futexstat_close(g.plain_us);
	futexstat_close(g.ext_us);
	futexstat_close(g.follow_us);
	return 0;
}
