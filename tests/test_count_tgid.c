/* tests/test_count_tgid.c — futexstat_count_tgid (probes/futexstat.h): the
 * collector's plain programs count another process instead of the caller's,
 * and only it, then the caller's again — exactly, as the harness uses it for
 * a helper-run design's helper (proc/helper.h).
 *
 * A forked child makes N_CHILD FUTEX_WAKEs (nobody waits) each time the
 * parent asks (one byte on a pipe; its answer, one byte back); the parent
 * makes N_PARENT of its own in the same window. Pipe reads and writes are
 * not futex calls, and neither process does anything else in the window, so
 * the counts are exact:
 *   counting the child:   fx_wake == futex calls == N_CHILD
 *   back to the caller:   fx_wake == futex calls == N_PARENT
 *   the child again:      N_CHILD (switching twice works)
 * The first switch happens before any rep has started: the path where the
 * caller's own host tgid is not learned yet.
 * Exit 77 (skipped, with the reason) only when BPF cannot be used here. */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probes/futexstat.h"

enum { N_CHILD = 37, N_PARENT = 11 };

static void wakes(int n)
{
	static uint32_t word;
	for (int i = 0; i < n; i++)
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static int failures;

static void expect(const char *what, unsigned long long got, unsigned long long want)
{
	printf("%s %s: %llu (want %llu)\n", got == want ? "ok  " : "FAIL", what, got, want);
	failures += got != want;
}

/* One window: start, the parent's wakes, the child's (asked and answered),
 * stop. */
static void window(struct futexstat *fs, int to, int from, struct futexstat_counts *c)
{
	char why[300], b = 'w';
	if (futexstat_start(fs, why, sizeof why)) {
		printf("FAIL start: %s\n", why);
		exit(1);
	}
	wakes(N_PARENT);
	if (write(to, &b, 1) != 1 || read(from, &b, 1) != 1) {
		printf("FAIL the child does not answer\n");
		exit(1);
	}
	futexstat_stop(fs, c);
}

int main(void)
{
	char why[300];
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct futexstat_config cfg = { 0 };
	struct futexstat *fs = futexstat_open(&cfg, why, sizeof why);
	if (!fs) {
		printf("SKIP: %s\n", why);
		return 77;
	}
	int down[2], up[2];
	if (pipe(down) || pipe(up)) {
		perror("pipe");
		return 1;
	}
	pid_t child = fork();
	if (child == 0) {
		char b;
		close(down[1]); /* or its own write end keeps the pipe open */
		close(up[0]);
		while (read(down[0], &b, 1) == 1) {
			wakes(N_CHILD);
			if (write(up[1], &b, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	struct futexstat_counts c;
	int e = futexstat_count_tgid(fs, child);
	if (e == -EXDEV) {
		printf("SKIP: the test runs in a nested pid namespace\n");
		kill(child, SIGKILL);
		return 77;
	}
	expect("count_tgid(child) returns", (unsigned long long)-e, 0);
	window(fs, down[1], up[0], &c);
	expect("child: fx_wake", c.op_wake, N_CHILD);
	expect("child: futex calls", c.futex_calls, N_CHILD);
	expect("count_tgid(0) returns", (unsigned long long)-futexstat_count_tgid(fs, 0), 0);
	window(fs, down[1], up[0], &c);
	expect("caller again: fx_wake", c.op_wake, N_PARENT);
	expect("caller again: futex calls", c.futex_calls, N_PARENT);
	futexstat_count_tgid(fs, child);
	window(fs, down[1], up[0], &c);
	expect("child again: fx_wake", c.op_wake, N_CHILD);
	futexstat_count_tgid(fs, 0);
	close(down[1]);
	waitpid(child, NULL, 0);
	futexstat_close(fs);
	/* follow mode has its own way (the tree): refused */
	struct futexstat_config fc = { .follow_children = 1 };
	fs = futexstat_open(&fc, why, sizeof why);
	if (fs) {
		expect("follow mode refuses (EINVAL)", (unsigned long long)-futexstat_count_tgid(fs, 1),
		       EINVAL);
		futexstat_close(fs);
	}
	printf("%s\n", failures ? "FAILED" : "all ok");
	return failures ? 1 : 0;
}
