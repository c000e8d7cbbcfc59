/* harness/exec.c — see exec.h. */
#include "harness/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/cli.h"
#include "lib/clock.h"
#include "harness/runner.h"

struct fl_exec fl_exec_cfg = { .timeout_s = 600 };

void fl_exec_find_shim(void)
{
	const char *env = getenv("FUTEXLAB_SHIM");
	if (env && *env) {
		snprintf(fl_exec_cfg.shim, sizeof fl_exec_cfg.shim, "%s", env);
	} else {
		/* build/harness/futexlab -> build/shim/libfutexlab-preload.so */
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0)
			fl_usage_error("exec: cannot find this futexlab (/proc/self/exe): set FUTEXLAB_SHIM");
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		*slash = '\0';
		snprintf(fl_exec_cfg.shim, sizeof fl_exec_cfg.shim, "%.*s/../shim/libfutexlab-preload.so",
			 (int)(sizeof fl_exec_cfg.shim - 40), exe);
	}
	char real[PATH_MAX];
	if (!realpath(fl_exec_cfg.shim, real) || access(real, R_OK))
		fl_usage_error("exec: no shim at %s (build it: ninja -C build; or set FUTEXLAB_SHIM)",
			       fl_exec_cfg.shim);
	/* absolute: the program may change directory before it execs another */
	snprintf(fl_exec_cfg.shim, sizeof fl_exec_cfg.shim, "%s", real);
}

static bool executable(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

void fl_exec_check_command(const char *argv0)
{
	if (!*argv0)
		fl_usage_error("exec: an empty command");
	if (strchr(argv0, '/')) {
		if (!executable(argv0))
			fl_usage_error("exec: cannot execute %s: %s", argv0,
				       access(argv0, F_OK) ? strerror(errno) : "not an executable file");
		return;
	}
	const char *path = getenv("PATH");
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path && *path ? path : "/bin:/usr/bin");
	for (char *save, *dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char full[PATH_MAX];
		snprintf(full, sizeof full, "%s/%s", *dir ? dir : ".", argv0);
		if (executable(full))
			return;
	}
	fl_usage_error("exec: %s: command not found in PATH", argv0);
}

/* ---- the child ------------------------------------------------------------- */

static void child(const struct fl_variant *v, bool stats, const char *logp, int errfd,
		  int report)
{
	setpgid(0, 0);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		if (!fl_exec_cfg.output)
			dup2(null, 1);
	}
	if (!fl_exec_cfg.output)
		dup2(errfd, 2);
	/* Nothing of the harness's reaches the program: its CSV's temporary
	 * file, bpftrace's pipes, the collector's descriptors. Close-on-exec,
	 * not closed: the report pipe must live until the exec. (Kernels before
	 * 5.11 lack the flag: then only what was opened CLOEXEC is spared.) */
	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	if (v) {
		const char *old = getenv("LD_PRELOAD");
		char pre[PATH_MAX + 1024];
		snprintf(pre, sizeof pre, "%s%s%s", fl_exec_cfg.shim, old && *old ? ":" : "",
			 old ? old : "");
		setenv("LD_PRELOAD", pre, 1);
		setenv("FUTEXLAB_VARIANT", v->name, 1);
		setenv("FUTEXLAB_LOG", logp, 1);
		if (fl_exec_cfg.allow[0])
			setenv("FUTEXLAB_ALLOW", fl_exec_cfg.allow, 1);
		if (stats)
			setenv("FUTEXLAB_STATS", "1", 1);
	}
	for (int i = 0; i < fl_exec_cfg.nenv; i++)
		putenv(fl_exec_cfg.env[i]);
	execvp(fl_exec_cfg.argv[0], fl_exec_cfg.argv);
	int e = errno;
	if (write(report, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
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

/* Kills the program's whole process group and reaps the program. */
static void kill_all(pid_t pid, int sig, struct rusage *ru, int *status)
{
	killpg(pid, sig);
	while (wait4(pid, status, 0, ru) < 0 && errno == EINTR)
		;
}

/* Waits for the program until the timeout; true when it ended (reaped into
 * status and ru), false on timeout or interrupt (then killed and reaped). */
static bool await(pid_t pid, int *status, struct rusage *ru, bool *timed_out)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int64_t end = fl_now_ns() + (int64_t)(fl_exec_cfg.timeout_s * 1e9);
	*timed_out = false;
	for (;;) {
		if (fl_interrupted) {
			/* Ctrl-C reached us, not the program (its own group): pass it
			 * on, give it a moment, then make sure. */
			killpg(pid, SIGINT);
			for (int i = 0; i < 50; i++) {
				if (wait4(pid, status, WNOHANG, ru) == pid)
					goto gone;
				struct timespec d = { 0, 20000000 };
				nanosleep(&d, NULL);
			}
			kill_all(pid, SIGKILL, ru, status);
			goto gone;
		}
		int64_t left = end - fl_now_ns();
		if (left <= 0) {
			*timed_out = true;
			kill_all(pid, SIGKILL, ru, status);
			goto gone;
		}
		if (pfd >= 0) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };
			int ms = left / 1000000 > 1000 ? 1000 : (int)(left / 1000000) + 1;
			if (poll(&p, 1, ms) <= 0)
				continue; /* timeout slice, or EINTR: look again */
			if (wait4(pid, status, 0, ru) == pid)
				break;
		} else { /* no pidfd (kernel < 5.3): poll the child every ms */
			if (wait4(pid, status, WNOHANG, ru) == pid)
				break;
			struct timespec d = { 0, 1000000 };
			nanosleep(&d, NULL);
		}
	}
	if (pfd >= 0)
		close(pfd);
	return true;
gone:
	if (pfd >= 0)
		close(pfd);
	return false;
}

static void read_log(const char *path, struct fl_exec_shim *sh)
{
	memset(sh, 0, sizeof *sh);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		struct fl_shim_report r;
		if (fl_shim_report_parse(line, &r))
			continue; /* a debug message, not a report */
		if (sh->n < (int)(sizeof sh->r / sizeof sh->r[0]))
			sh->r[sh->n] = r;
		sh->n++;
		sh->ours += r.ours;
		sh->handed += r.handed;
		sh->named += r.named;
		sh->inits += r.inits;
		sh->waits += r.wait + r.timedwait + r.clockwait;
		sh->blocked += r.blocked;
		sh->posts += r.post;
		if (r.state != FL_SHIM_ON && r.state != FL_SHIM_PASS && !sh->not_on++)
			snprintf(sh->why, sizeof sh->why, "%s (%.140s)", fl_shim_state_name(r.state),
				 r.reason);
	}
	fclose(f);
}

void fl_exec_once(const struct fl_variant *v, bool stats, struct fl_result *r,
		  struct fl_exec_shim *sh)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp"; /* FUTEXLAB_LOG must be absolute (shim/env.h) */
	char logp[PATH_MAX], errp[PATH_MAX];
	snprintf(logp, sizeof logp, "%s/futexlab-shim-XXXXXX", tmp);
	snprintf(errp, sizeof errp, "%s/futexlab-err-XXXXXX", tmp);
	int lfd = mkstemp(logp), efd = mkstemp(errp), pfd[2];
	if (lfd < 0 || efd < 0 || pipe2(pfd, O_CLOEXEC)) {
		fl_fail(r, "exec: cannot make a temporary file or pipe: %s", strerror(errno));
		if (lfd >= 0)
			close(lfd), unlink(logp);
		if (efd >= 0)
			close(efd), unlink(errp);
		return;
	}
	close(lfd);
	unlink(errp); /* the fd is enough: the child appends, we pread */
	fflush(NULL);
	int64_t t0 = fl_now_ns();
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		child(v, stats, logp, efd, pfd[1]);
	}
	close(pfd[1]);
	if (pid < 0) {
		fl_fail(r, "exec: fork: %s", strerror(errno));
		goto out;
	}
	setpgid(pid, pid); /* also here: whichever runs first, the group exists */
	int e = 0;
	ssize_t k;
	while ((k = read(pfd[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	int status = 0;
	struct rusage ru;
	if (k == (ssize_t)sizeof e) { /* execvp failed: the child said why */
		kill_all(pid, SIGKILL, &ru, &status);
		fl_fail(r, "cannot execute %s: %s", fl_exec_cfg.argv[0], strerror(e));
		goto out;
	}
	bool timed_out;
	bool ended = await(pid, &status, &ru, &timed_out);
	int64_t t1 = fl_now_ns();
	killpg(pid, SIGKILL); /* descendants left behind must not run into the next rep */
	if (!ended) {
		if (timed_out)
			fl_fail(r, "timed out after %g s (killed): hung? (a lost wakeup, or "
				"--timeout too short)", fl_exec_cfg.timeout_s);
		goto out; /* interrupted: not a measurement */
	}
	char why[200];
	first_line(efd, why, sizeof why);
	if (WIFSIGNALED(status)) {
		const char *name = sigabbrev_np(WTERMSIG(status));
		fl_fail(r, "killed by signal %d (SIG%s)%s", WTERMSIG(status), name ? name : "?", why);
		goto out;
	}
	if (WEXITSTATUS(status)) {
		fl_fail(r, "exit status %d%s", WEXITSTATUS(status), why);
		goto out;
	}
	r->ops = 1;
	r->elapsed_ns = t1 - t0;
	r->cpu_set = true;
	r->cpu_user_ns = (int64_t)ru.ru_utime.tv_sec * 1000000000 + ru.ru_utime.tv_usec * 1000;
	r->cpu_sys_ns = (int64_t)ru.ru_stime.tv_sec * 1000000000 + ru.ru_stime.tv_usec * 1000;
	r->csw_vol = ru.ru_nvcsw;
	r->csw_invol = ru.ru_nivcsw;
	if (v) {
		static struct fl_exec_shim local; /* 25 KiB: not on the stack */
		struct fl_exec_shim *s = sh ? sh : &local;
		read_log(logp, s);
		if (s->not_on && strcmp(v->name, "glibc") != 0) {
			fl_fail(r, "the shim did not run the semaphores on %s: %s", v->name, s->why);
		} else if (s->n) {
			r->shim_sems = (int64_t)s->ours;
			snprintf(r->info, sizeof r->info, "shim: %d process%s, %llu semaphores on %s, "
				 "%llu handed to glibc, %llu named", s->n, s->n == 1 ? "" : "es",
				 s->ours, v->name, s->handed, s->named);
		} else {
			snprintf(r->info, sizeof r->info, "no shim report (a static binary, or every "
				 "process left by _exit or a signal)");
		}
	}
out:
	close(pfd[0]);
	close(efd);
	unlink(logp);
}

/* ---- as a workload ---------------------------------------------------------- */

static struct fl_exec_shim last;

const struct fl_exec_shim *fl_exec_last_shim(void)
{
	return &last;
}

static void exec_run(const struct fl_variant *v, const struct fl_params *p, struct fl_result *r)
{
	(void)p;
	memset(&last, 0, sizeof last);
	/* glibc: the sem_t the program runs on today, no shim at all */
	fl_exec_once(strcmp(v->name, "glibc") ? v : NULL, false, r, &last);
}

/* What the shim would refuse (shim/README.md), as a skipped row up front
 * instead of a run on glibc labelled with the design's name. (The shim's
 * report is checked after every run too: the two must agree.) */
static const char *exec_unfit(const struct fl_variant *v, const struct fl_params *p)
{
	(void)p;
	static char buf[200];
	if (v->remote) { /* no ops in this process, none in the shim's */
		snprintf(buf, sizeof buf, "runs only in its helper (%s): the shim, loaded into the "
			 "program's glibc, cannot put its semaphores on it", v->remote);
		return buf;
	}
	if (v->flags & FL_CAPPED) {
		snprintf(buf, sizeof buf, "capped (its post absorbs releases past %d): not a POSIX "
			 "semaphore, the shim keeps glibc's", v->value_max);
		return buf;
	}
	if (v->flags & (FL_NO_GETVALUE | FL_NO_OVERFLOW)) /* e.g. the C++ designs */
		return "not offered by the shim: no getvalue or no EOVERFLOW, which sem_getvalue "
		       "and sem_post need (shim/README.md)";
	unsigned breaks = v->flags & (FL_DESTROY_UNSAFE | FL_SIGNAL_UNSAFE | FL_NO_EINTR);
	if (breaks & ~fl_exec_cfg.allow_flags) {
		breaks &= ~fl_exec_cfg.allow_flags;
		snprintf(buf, sizeof buf, "breaks %s%s%sa promise POSIX programs rely on: the shim "
			 "refuses it (--allow to run it anyway)",
			 breaks & FL_DESTROY_UNSAFE ? "destroy, " : "",
			 breaks & FL_SIGNAL_UNSAFE ? "signal, " : "",
			 breaks & FL_NO_EINTR ? "eintr, " : "");
		return buf;
	}
	return NULL;
}

const struct fl_workload fl_exec_workload = {
	.name = "exec",
	.summary = "another program, run under the shim with each design",
	.op = "run",
	.fixed_threads = 1,
	.run = exec_run,
	.unfit = exec_unfit,
};
