/* probes/floor-cmp.c — the collector against the trivial-tracepoint floor
 * (probes/floor.bt under bpftrace) on one kind of futex syscall, in one
 * process, without the harness:
 *
 *   build/probes/floor-cmp wake|wait [ROUNDS]     (root; bpftrace on PATH)
 *
 * wake: FUTEX_WAKE on a private word nobody waits on; wait: FUTEX_WAIT on a
 * word that does not hold the expected value (EAGAIN, no sleep). Per round:
 * detached, bpftrace floor, detached, collector attached and counting (as
 * the harness runs it, wake-to-run on), detached; each mode's figure is its
 * fastest of 200 blocks of 1000 calls (other work on the machine only adds
 * time), the added cost is against the mean of the three detached figures.
 * Prints per round the added ns per call of floor and collector and their
 * ratio, then the median ratio. */
#include <linux/futex.h>
#include <signal.h>
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
static int op;

static double fastest(void)
{
	return fastest_ns(&word, op);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "wake") && strcmp(argv[1], "wait"))) {
		fprintf(stderr, "usage: floor-cmp wake|wait [ROUNDS]\n");
		return 2;
	}
	op = strcmp(argv[1], "wake") ? FUTEX_WAIT : FUTEX_WAKE;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	if (rounds < 1 || rounds > 100)
		rounds = 5;
	const char *script = getenv("FLOOR_BT") ? getenv("FLOOR_BT") : "probes/floor.bt";
	char why[300];
	struct futexstat_config cfg = { .wake_to_run = 1 };
	struct futexstat *fs = futexstat_open(&cfg, why, sizeof why);
	if (!fs) {
		fprintf(stderr, "floor-cmp: %s\n", why);
		return 1;
	}
	struct futexstat_counts c;
	double ratio[100] = { 0 };
	printf("%-5s %5s %9s %9s %9s %9s %9s %7s\n", "call", "round", "detached", "floor",
	       "collector", "+floor", "+coll", "ratio");
	for (int r = 0; r < rounds; r++) {
		double d0 = fastest();
		char pid[16];
		snprintf(pid, sizeof pid, "%d", (int)getpid());
		fflush(NULL);
		pid_t bt = fork();
		if (bt == 0) {
			if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
				_exit(127);
			execlp("bpftrace", "bpftrace", script, pid, (char *)NULL);
			_exit(127);
		}
		sleep(5); /* bpftrace compiles and attaches */
		int st;
		if (waitpid(bt, &st, WNOHANG) == bt) {
			fprintf(stderr, "floor-cmp: bpftrace %s exited early\n", script);
			return 1;
		}
		double fl = fastest();
		kill(bt, SIGINT);
		waitpid(bt, NULL, 0);
		double d1 = fastest();
		if (futexstat_start(fs, why, sizeof why)) {
			fprintf(stderr, "floor-cmp: %s\n", why);
			return 1;
		}
		double co = fastest();
		futexstat_stop(fs, &c);
		futexstat_detach(fs);
		double d2 = fastest();
		double d = (d0 + d1 + d2) / 3;
		ratio[r] = (co - d) / (fl - d);
		printf("%-5s %5d %9.1f %9.1f %9.1f %9.1f %9.1f %7.2f\n", argv[1], r + 1, d, fl, co,
		       fl - d, co - d, ratio[r]);
	}
	qsort(ratio, (size_t)rounds, sizeof ratio[0], cmp);
	printf("%s: collector = %.2fx the trivial-tracepoint floor (median of %d rounds, range "
	       "%.2f..%.2f)\n", argv[1], rounds % 2 ? ratio[rounds / 2]
			: (ratio[rounds / 2 - 1] + ratio[rounds / 2]) / 2,
	       rounds, ratio[0], ratio[rounds - 1]);
	futexstat_close(fs);
	return 0;
}
