/* proc/spawn.c — see spawn.h. */
#include "proc/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/clock.h"
#include "proc/cgroup.h"
#include "proc/interrupt.h"

/* ---- the child ------------------------------------------------------------- */

/* What the child writes on the report pipe when it cannot go on: the
 * stage and errno. */
struct child_err {
	int stage; /* 1: joining the cgroup, 2: execvp */
	int err;
};

static void child_fail(int report, int stage, int err)
{
	struct child_err ce = { stage, err };
	if (write(report, &ce, sizeof ce) < 0)
		_exit(127);
	_exit(127);
}

static void child(const struct fl_program *p, int errfd, int report)
{
	setpgid(0, 0);
	/* First: whatever the child does from here on, and every process it
	 * starts, is in the cgroup (its CPU, the kill at the end). */
	int e = p->cg ? fl_cgroup_join(p->cg) : 0;
	if (e)
		child_fail(report, 1, e);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		if (!p->output)
			dup2(null, 1);
	}
	if (p->keep)
		dup2(errfd, 1); /* one open file, one offset: the two interleave, never overwrite */
	if (!p->output || p->keep)
		dup2(errfd, 2);
	/* Nothing of futexlab's reaches the program: its CSV's temporary
	 * file, bpftrace's pipes, the collector's descriptors. Close-on-exec,
	 * not closed: the report pipe must live until the exec. (Kernels before
	 * 5.11 lack the flag: then only what was opened CLOEXEC is spared.) */
	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	if (p->setup)
		p->setup(p->arg);
	execvp(p->argv[0], p->argv);
	child_fail(report, 2, errno);
}

/* ---- the parent ------------------------------------------------------------ */

/* The first non-empty line of the program's stderr, for an error row. */
static void first_line(int fd, char *out, size_t n)
{
	char buf[512];
	ssize_t k = pread(fd, buf, sizeof buf - 1, 0);
	out[0] = '\0';
	if (k <= 0)
		return;
	buf[k] = '\0';
	char *s = buf;
	while (*s == '\n')
		s++;
	s[strcspn(s, "\n")] = '\0';
	if (*s)
		snprintf(out, n, ": %.150s", s);
}

/* Kills the program's whole process group (and its cgroup: the daemons
 * that left the group) and reaps the program. */
static void kill_all(const struct fl_program *p, pid_t pid, int sig, struct rusage *ru,
		     int *status)
{
	killpg(pid, sig);
	if (p->cg && sig == SIGKILL)
		fl_cgroup_kill(p->cg);
	while (wait4(pid, status, 0, ru) < 0 && errno == EINTR)
		;
}

/* Ctrl-C reached us, not the program (its own group): pass it on, give it
 * a moment, then make sure. */
static void pass_interrupt(const struct fl_program *p, pid_t pid, int *status,
			   struct rusage *ru)
{
	killpg(pid, SIGINT);
	for (int i = 0; i < 50; i++) {
		if (wait4(pid, status, WNOHANG, ru) == pid)
			return;
		struct timespec d = { 0, 20000000 };
		nanosleep(&d, NULL);
	}
	kill_all(p, pid, SIGKILL, ru, status);
}

/* One wait of the loop: up to ms for the program's end (pidfd; without
 * one, a 1 ms nap and wait4 WNOHANG) or the report channel, whose
 * connections are served here. Whether the program ended (reaped). */
static bool wait_slice(const struct fl_program *p, pid_t pid, int pfd, int ms, int *status,
		       struct rusage *ru)
{
	struct pollfd f[2] = { { .fd = pfd, .events = POLLIN },
			       { .fd = p->service_fd, .events = POLLIN } };
	if (pfd < 0)
		ms = 1; /* no pidfd (kernel < 5.3): look at the child every ms */
	int k = poll(f, 2, ms);
	if (k > 0 && (f[1].revents & POLLIN) && p->service)
		p->service(p->service_arg);
	if (pfd >= 0 && !(k > 0 && (f[0].revents & POLLIN)))
		return false; /* timeout slice, EINTR or a report: look again */
	return wait4(pid, status, pfd >= 0 ? 0 : WNOHANG, ru) == pid;
}

/* Waits for the program until the deadline (absolute, CLOCK_MONOTONIC).
 * EXITED when it ended (reaped into status and ru), else TIMED_OUT or
 * INTERRUPTED (then killed and reaped). With a cgroup, its processes are
 * sampled at every wake, at least every 20 ms: a process that lives
 * shorter than that between two samples is missed (unless it reports). */
static int await(const struct fl_program *p, pid_t pid, int64_t end, int *status,
		 struct rusage *ru)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0), how = FL_PROGRAM_EXITED;
	int slice = p->cg ? 20 : 1000;
	for (;;) {
		if (p->cg)
			fl_cgroup_sample(p->cg);
		if (fl_interrupted) {
			pass_interrupt(p, pid, status, ru);
			how = FL_PROGRAM_INTERRUPTED;
			break;
		}
		int64_t left = end - fl_now_ns();
		if (left <= 0) {
			kill_all(p, pid, SIGKILL, ru, status);
			how = FL_PROGRAM_TIMED_OUT;
			break;
		}
		int ms = left / 1000000 > slice ? slice : (int)(left / 1000000) + 1;
		if (wait_slice(p, pid, pfd, ms, status, ru))
			break;
	}
	if (pfd >= 0)
		close(pfd);
	return how;
}

/* The end of every run that started: the reports drained (the main
 * process was reaped; its descendants that reported are blocked on the
 * ack, alive, in the cgroup: so before the kill), the group killed, then
 * the cgroup: killed, emptied, cpu.stat, removed. */
static void finish(const struct fl_program *p, pid_t pid, struct fl_program_end *e)
{
	if (p->service)
		p->service(p->service_arg);
	killpg(pid, SIGKILL); /* descendants left behind must not run into the next rep */
	if (p->cg)
		fl_cgroup_end(p->cg, e->cg_error, sizeof e->cg_error);
}

/* After the fork: the exec's verdict (the child writes on the report pipe
 * only when it cannot exec: the cgroup refused it, or execvp failed; the
 * pipe closes on a successful exec), then the wait. */
static void parent(const struct fl_program *p, pid_t pid, int64_t t0, int rfd, int efd,
		   struct fl_program_end *e)
{
	setpgid(pid, pid); /* also here: whichever runs first, the group exists */
	struct child_err ce;
	ssize_t k;
	while ((k = read(rfd, &ce, sizeof ce)) < 0 && errno == EINTR)
		;
	if (p->cg)
		fl_cgroup_saw(p->cg, pid);
	if (k == (ssize_t)sizeof ce) {
		kill_all(p, pid, SIGKILL, &e->ru, &e->status);
		e->how = FL_PROGRAM_NOT_RUN;
		if (ce.stage == 1)
			snprintf(e->why, sizeof e->why, "exec: cannot join the cgroup %.120s: %s",
				 p->cg->dir, strerror(ce.err));
		else
			snprintf(e->why, sizeof e->why, "cannot execute %s: %s", p->argv[0],
				 strerror(ce.err));
		finish(p, pid, e);
		return;
	}
	e->how = await(p, pid, t0 + (int64_t)(p->timeout_s * 1e9), &e->status, &e->ru);
	e->elapsed_ns = fl_now_ns() - t0;
	finish(p, pid, e);
	if (e->how == FL_PROGRAM_EXITED)
		first_line(efd, e->first_line, sizeof e->first_line);
}

void fl_program_run(const struct fl_program *p, struct fl_program_end *e)
{
	memset(e, 0, sizeof *e);
	e->out_fd = -1;
	const char *tmp = getenv("TMPDIR");
	char errp[4096];
	snprintf(errp, sizeof errp, "%s/futexlab-err-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
	int efd = mkstemp(errp), rfd[2];
	if (efd < 0 || pipe2(rfd, O_CLOEXEC)) {
		e->how = FL_PROGRAM_NOT_RUN;
		snprintf(e->why, sizeof e->why, "exec: cannot make a temporary file or pipe: %s",
			 strerror(errno));
		if (efd >= 0)
			close(efd), unlink(errp);
		return;
	}
	unlink(errp); /* the fd is enough: the child appends, we pread */
	fflush(NULL);
	int64_t t0 = fl_now_ns();
	pid_t pid = fork();
	if (pid == 0) {
		close(rfd[0]);
		child(p, efd, rfd[1]);
	}
	close(rfd[1]);
	if (pid > 0 && p->started)
		*p->started = pid;
	if (pid < 0) {
		e->how = FL_PROGRAM_NOT_RUN;
		snprintf(e->why, sizeof e->why, "exec: fork: %s", strerror(errno));
	} else {
		parent(p, pid, t0, rfd[0], efd, e);
	}
	close(rfd[0]);
	if (p->keep)
		e->out_fd = efd;
	else
		close(efd);
}
