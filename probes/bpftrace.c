/* probes/bpftrace.c — a bpftrace script run beside the whole command
 * (probes.h: fl_bpftrace_start/stop, `--bpftrace SCRIPT`), filtered to this
 * process, its output in a file beside the CSV. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probes/probes.h"
#include "probes/tracefs.h"

static pid_t bt_pid = -1;
static char bt_out[1024];

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Whether FILE holds `needle`, and the number of lines after its line. */
static int lines_after(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[512];
	int after = -1;
	while (fgets(line, sizeof line, f))
		if (after >= 0)
			after++;
		else if (strstr(line, needle))
			after = 0;
	fclose(f);
	return after;
}

/* The output file's name: the CSV's without .csv, then the script's
 * without .bt, then .txt (futexlab.SCRIPT.txt with no CSV). */
static void name_output(const char *script, const char *csv_path)
{
	const char *base = strrchr(script, '/') ? strrchr(script, '/') + 1 : script;
	int blen = (int)strlen(base);
	if (blen > 3 && !strcmp(base + blen - 3, ".bt"))
		blen -= 3;
	if (csv_path) {
		int clen = (int)strlen(csv_path);
		if (clen > 4 && !strcmp(csv_path + clen - 4, ".csv"))
			clen -= 4;
		snprintf(bt_out, sizeof bt_out, "%.*s.%.*s.txt", clen, csv_path, blen, base);
	} else {
		snprintf(bt_out, sizeof bt_out, "futexlab.%.*s.txt", blen, base);
	}
}

/* bpftrace on `script` for this process, its output into fd: its pid, or
 * -1 (one line said why). */
static pid_t spawn(const char *script, int fd)
{
	char pid[24];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	fflush(NULL);
	pid_t c = fork();
	if (c < 0) {
		fprintf(stderr, "futexlab: bpftrace off: fork: %s\n", strerror(errno));
		return -1;
	}
	if (c == 0) {
		/* Its own process group: Ctrl-C stops futexlab after the current
		 * rep, and futexlab then stops bpftrace, so its output is whole. */
		setpgid(0, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execlp("bpftrace", "bpftrace", script, pid, (char *)NULL);
		dprintf(2, "futexlab: cannot run bpftrace: %s\n", strerror(errno));
		_exit(127);
	}
	return c;
}

/* Attached when bpftrace has said "Attaching N probes..." and the script's
 * BEGIN has printed (BEGIN runs once every probe is in); with that line and
 * nothing after it (a script whose BEGIN prints nothing), once 3 s have
 * passed. */
static void wait_attached(void)
{
	for (int ms = 0; ms < 60000; ms += 50) {
		int st;
		if (waitpid(bt_pid, &st, WNOHANG) == bt_pid) {
			fprintf(stderr, "futexlab: bpftrace off: it exited before attaching "
				"(see %s); run continues without it\n", bt_out);
			bt_pid = -1;
			return;
		}
		int after = lines_after(bt_out, "Attaching");
		if (after > 0 || (after == 0 && ms >= 3000))
			return;
		sleep_ms(50);
	}
	fprintf(stderr, "futexlab: bpftrace did not attach within 60 s (see %s); "
		"run continues without it\n", bt_out);
	kill(bt_pid, SIGKILL);
	waitpid(bt_pid, NULL, 0);
	bt_pid = -1;
}

void fl_bpftrace_start(const char *script, const char *csv_path)
{
	char why[300];
	name_output(script, csv_path);
	if (geteuid() != 0) {
		fprintf(stderr, "futexlab: bpftrace off: it needs root; run continues without it\n");
		return;
	}
	if (fl_tracefs_ready(why, sizeof why)) {
		fprintf(stderr, "futexlab: bpftrace off: %s\n", why);
		return;
	}
	int fd = open(bt_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "futexlab: bpftrace off: cannot write %s: %s\n", bt_out,
			strerror(errno));
		return;
	}
	pid_t c = spawn(script, fd);
	close(fd);
	if (c < 0)
		return;
	bt_pid = c;
	wait_attached();
}

void fl_bpftrace_stop(void)
{
	if (bt_pid < 0)
		return;
	kill(bt_pid, SIGINT);
	int st = 0;
	for (int ms = 0; ms < 30000; ms += 20) {
		if (waitpid(bt_pid, &st, WNOHANG) == bt_pid) {
			bt_pid = -1;
			printf("bpftrace: output in %s\n", bt_out);
			return;
		}
		sleep_ms(20);
	}
	kill(bt_pid, SIGKILL);
	waitpid(bt_pid, NULL, 0);
	bt_pid = -1;
	fprintf(stderr, "futexlab: bpftrace did not stop on SIGINT; killed (see %s)\n", bt_out);
}
