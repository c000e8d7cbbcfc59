/* proc/exec.c — see exec.h. */
#include "proc/exec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/cgroup.h"
#include "proc/rep.h"
#include "proc/report.h"
#include "proc/spawn.h"

struct fl_exec fl_exec_cfg = { .timeout_s = 600 };

/* CPU of the runs' processes that wait4 never reaped (fl_exec_unreaped_ns) */
static int64_t unreaped_ns;

int64_t fl_exec_unreaped_ns(void)
{
	return unreaped_ns;
}

int fl_exec_find_shim(char *why, size_t whyn)
{
	const char *env = getenv("FUTEXLAB_SHIM");
	if (env && *env) {
		snprintf(fl_exec_cfg.shim, sizeof fl_exec_cfg.shim, "%s", env);
	} else {
		/* build/harness/futexlab -> build/shim/libfutexlab-preload.so */
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0) {
			snprintf(why, whyn, "exec: cannot find this futexlab (/proc/self/exe): set "
				 "FUTEXLAB_SHIM");
			return -1;
		}
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		*slash = '\0';
		snprintf(fl_exec_cfg.shim, sizeof fl_exec_cfg.shim, "%.*s/../shim/libfutexlab-preload.so",
			 (int)(sizeof fl_exec_cfg.shim - 40), exe);
	}
	char real[PATH_MAX];
	if (!realpath(fl_exec_cfg.shim, real) || access(real, R_OK)) {
		snprintf(why, whyn, "exec: no shim at %s (build it: ninja -C build; or set "
			 "FUTEXLAB_SHIM)", fl_exec_cfg.shim);
		return -1;
	}
	/* absolute: the program may change directory before it execs another */
	snprintf(fl_exec_cfg.shim, sizeof fl_exec_cfg.shim, "%s", real);
	/* Whether runs can have a cgroup is decided here, once, at the
	 * command's start: the trial forks a child (proc/cgroup.c), which
	 * inside a rep the collector's follow mode would count as the
	 * program's. Nothing is left behind (a usage error may still come). */
	fl_cgroup_usable(why, whyn);
	why[0] = '\0';
	return 0;
}

static bool executable(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

int fl_exec_check_command(const char *argv0, char *why, size_t whyn)
{
	if (!*argv0) {
		snprintf(why, whyn, "exec: an empty command");
		return -1;
	}
	if (strchr(argv0, '/')) {
		if (executable(argv0))
			return 0;
		snprintf(why, whyn, "exec: cannot execute %s: %s", argv0,
			 access(argv0, F_OK) ? strerror(errno) : "not an executable file");
		return -1;
	}
	const char *path = getenv("PATH");
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path && *path ? path : "/bin:/usr/bin");
	for (char *save, *dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char full[PATH_MAX];
		snprintf(full, sizeof full, "%s/%s", *dir ? dir : ".", argv0);
		if (executable(full))
			return 0;
	}
	snprintf(why, whyn, "exec: %s: command not found in PATH", argv0);
	return -1;
}

/* ---- one run ------------------------------------------------------------- */

/* The shim's environment, in the child before the exec (spawn.h). */
struct shim_env {
	const struct fl_variant *v;
	bool stats;
	const char *logp;
	const char *policy;             /* FUTEXLAB_POLICY's text; NULL: park */
};

static void shim_setup(void *arg)
{
	const struct shim_env *x = arg;
	if (x->v) {
		const char *old = getenv("LD_PRELOAD");
		char pre[PATH_MAX + 1024];
		snprintf(pre, sizeof pre, "%s%s%s", fl_exec_cfg.shim, old && *old ? ":" : "",
			 old ? old : "");
		setenv("LD_PRELOAD", pre, 1);
		setenv("FUTEXLAB_VARIANT", x->v->name, 1);
		setenv("FUTEXLAB_LOG", x->logp, 1);
		if (x->policy)
			setenv("FUTEXLAB_POLICY", x->policy, 1);
		else
			unsetenv("FUTEXLAB_POLICY");
		if (fl_exec_cfg.allow[0])
			setenv("FUTEXLAB_ALLOW", fl_exec_cfg.allow, 1);
		if (x->stats)
			setenv("FUTEXLAB_STATS", "1", 1);
	}
	for (int i = 0; i < fl_exec_cfg.nenv; i++)
		putenv(fl_exec_cfg.env[i]);
}

/* One logline from the report channel (proc/report.h) into sh: lines that
 * do not parse (a FUTEXLAB_DEBUG message, a usage error) are not counted. */
static void add_line(struct fl_exec_shim *sh, const char *line)
{
	struct fl_shim_logline r;
	if (fl_shim_logline_parse(line, &r))
		return;
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

/* A run's channel and container, as spawn's hooks see them. */
struct run {
	struct fl_report rep;
	struct fl_cgroup *cg;        /* NULL: the process group alone */
	struct fl_exec_shim *sh;
	pid_t pid;                   /* the program's (fl_program.started) */
};

static void on_line(void *arg, const char *line, pid_t pid)
{
	struct run *x = arg;
	if (x->cg)
		fl_cgroup_saw(x->cg, pid); /* a reporter is a process of the run */
	add_line(x->sh, line);
}

/* spawn's service hook: who may report is known once the program runs. */
static void on_service(void *arg)
{
	struct run *x = arg;
	x->rep.pid = x->pid;
	fl_report_service(&x->rep);
}

/* The run's verdict into r: an error for a failure, else ops 1, the wall
 * time, the CPU (the cgroup's cpu.stat: every process of the tree; without
 * one wait4's rusage: the processes reaped) and the context switches
 * (wait4's either way: cpu.stat has none). false when r is not a
 * measurement. */
static bool verdict(const struct fl_program_end *e, const struct fl_cgroup *cg,
		    struct fl_result *r)
{
	switch (e->how) {
	case FL_PROGRAM_NOT_RUN:
		fl_fail(r, "%s", e->why);
		return false;
	case FL_PROGRAM_TIMED_OUT:
		fl_fail(r, "timed out after %g s (killed): hung? (a lost wakeup, or --timeout too "
			"short)", fl_exec_cfg.timeout_s);
		return false;
	case FL_PROGRAM_INTERRUPTED:
		return false; /* not a measurement */
	case FL_PROGRAM_EXITED:
		break;
	}
	if (WIFSIGNALED(e->status)) {
		const char *name = sigabbrev_np(WTERMSIG(e->status));
		fl_fail(r, "killed by signal %d (SIG%s)%s", WTERMSIG(e->status), name ? name : "?",
			e->first_line);
		return false;
	}
	if (WEXITSTATUS(e->status)) {
		fl_fail(r, "exit status %d%s", WEXITSTATUS(e->status), e->first_line);
		return false;
	}
	if (e->cg_error[0]) { /* something may have survived, or no CPU figure */
		fl_fail(r, "exec: %s", e->cg_error);
		return false;
	}
	const struct rusage *ru = &e->ru;
	r->ops = 1;
	r->elapsed_ns = e->elapsed_ns;
	r->cpu_set = true;
	if (cg) {
		r->cpu_user_ns = cg->user_ns;
		r->cpu_sys_ns = cg->sys_ns;
		r->cgroup_procs = cg->nseen;
		/* what wait4 did not see (daemons, workers that left the tree) */
		int64_t reaped = (int64_t)ru->ru_utime.tv_sec * 1000000000 +
				 ru->ru_utime.tv_usec * 1000 +
				 (int64_t)ru->ru_stime.tv_sec * 1000000000 +
				 ru->ru_stime.tv_usec * 1000;
		if (cg->user_ns + cg->sys_ns > reaped)
			unreaped_ns += cg->user_ns + cg->sys_ns - reaped;
	} else {
		r->cpu_user_ns = (int64_t)ru->ru_utime.tv_sec * 1000000000 +
				 ru->ru_utime.tv_usec * 1000;
		r->cpu_sys_ns = (int64_t)ru->ru_stime.tv_sec * 1000000000 +
				ru->ru_stime.tv_usec * 1000;
	}
	r->csw_vol = ru->ru_nvcsw;
	r->csw_invol = ru->ru_nivcsw;
	return true;
}

/* The shim's loglines of a run that ended well (in s), into r's note. */
static void shim_verdict(const struct fl_variant *v, const struct fl_exec_shim *s,
			 struct fl_result *r)
{
	char forged[40] = "";
	if (s->forged)
		snprintf(forged, sizeof forged, ", forged %d", s->forged);
	bool shimmed = strcmp(v->name, "glibc") != 0;
	if (s->not_on && shimmed) {
		fl_fail(r, "the shim did not run the semaphores on %s: %s", v->name, s->why);
	} else if (shimmed && !s->ours && s->inits + s->named > 0) {
		/* the program used semaphores and not one ran on the design: its
		 * figure would be glibc's under the design's name */
		fl_fail(r, "the program's processes used %llu semaphores (%llu sem_init calls, %llu named opens) "
			"and none was on %s: %llu handed to glibc (shim/semantics.md)%s",
			s->inits + s->named, s->inits, s->named, v->name, s->handed, forged);
	} else if (s->n) {
		r->shim_sems = (int64_t)s->ours;
		snprintf(r->info, sizeof r->info, "shim: %d process%s, %llu semaphores on %s, "
			 "%llu handed to glibc, %llu named%s", s->n, s->n == 1 ? "" : "es",
			 s->ours, v->name, s->handed, s->named, forged);
	} else {
		snprintf(r->info, sizeof r->info, "no shim report (a static binary, or every "
			 "process killed by a signal)%s", forged);
	}
}

/* --metric: the figure from the kept output (stdout and stderr in the order
 * written: spawn.h) into r->metric, or an error row with the reason; a run
 * that already failed keeps its own reason. With --output the kept output
 * is copied to our stdout after the run: the terminal sees it whole, a run
 * late (a tee while the program runs would need a reader in spawn's wait
 * loop, and the figure is read after the end anyway). Closes fd. */
static void figure(int fd, struct fl_result *r)
{
	FILE *f = lseek(fd, 0, SEEK_SET) == 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		close(fd);
		fl_fail(r, "exec: cannot read the program's output back: %s", strerror(errno));
		return;
	}
	if (fl_exec_cfg.output) {
		char buf[8192];
		size_t k;
		fflush(stdout);
		while ((k = fread(buf, 1, sizeof buf, f)) > 0)
			fwrite(buf, 1, k, stdout);
		fflush(stdout);
		rewind(f);
	}
	struct fl_metric_found found;
	char why[sizeof r->error];
	fl_metric_found_init(&found);
	fl_metric_stream(fl_exec_cfg.metric, f, &found);
	fclose(f);
	if (r->error[0] || !r->ops)
		return; /* failed, or interrupted: no figure */
	if (fl_metric_problem(fl_exec_cfg.metric, &found, why, sizeof why)[0])
		fl_fail(r, "%s", why);
	else
		r->metric = found.value;
}

/* The cgroup of the next run, made ahead (fl_exec_cgroup_next) or at the
 * run; its id is the collector's. */
static struct fl_cgroup next_cg;
static bool next_ready;

uint64_t fl_exec_cgroup_next(void)
{
	static bool said;
	char why[400];
	if (!next_ready && !fl_cgroup_make(&next_cg, why, sizeof why))
		next_ready = true;
	else if (!next_ready && !said) {
		said = true; /* once per command */
		fprintf(stderr, "futexlab: exec: no writable cgroup2 (%s): falls back to the "
			"process group and wait4's rusage\n", why);
	}
	return next_ready ? next_cg.id : 0;
}

void fl_exec_once(const struct fl_variant *v, const struct fl_policy *pol, bool stats,
		  struct fl_result *r, struct fl_exec_shim *sh)
{
	static struct fl_exec_shim local; /* 25 KiB: not on the stack */
	struct run x = { .sh = sh ? sh : &local };
	memset(x.sh, 0, sizeof *x.sh);
	char ptext[FL_POLICY_TEXT_MAX]; /* formatted here: the child only sets it */
	fl_policy_format(pol, ptext, sizeof ptext);
	x.cg = fl_exec_cgroup_next() ? &next_cg : NULL;
	next_ready = false; /* this run's now: the next one makes its own */
	x.rep = (struct fl_report){ .fd = -1, .cg = x.cg, .line = on_line, .arg = &x };
	char why[200], logname[80];
	if (v && fl_report_open(&x.rep, why, sizeof why)) {
		fl_fail(r, "%s", why);
		if (x.cg)
			fl_cgroup_end(x.cg, why, sizeof why);
		return;
	}
	snprintf(logname, sizeof logname, "@%s", x.rep.name);
	struct shim_env env = { v, stats, logname, pol->kind == FL_POLICY_PARK ? NULL : ptext };
	struct fl_program p = { fl_exec_cfg.argv, fl_exec_cfg.timeout_s, fl_exec_cfg.output,
				shim_setup, &env, fl_exec_cfg.metric != NULL, x.cg, x.rep.fd,
				v ? on_service : NULL, &x, &x.pid };
	struct fl_program_end e;
	fl_program_run(&p, &e);
	if (x.cg) /* not forked: spawn did not end it */
		fl_cgroup_end(x.cg, why, sizeof why);
	fl_report_close(&x.rep);
	x.sh->forged = x.rep.forged;
	if (verdict(&e, x.cg, r) && v)
		shim_verdict(v, x.sh, r);
	if (e.out_fd >= 0)
		figure(e.out_fd, r);
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
	/* glibc: the sem_t the program runs on today, no shim at all; the
	 * policy is the rep's, set in this process (workloads/rep.h) */
	struct fl_policy pol = fl_policy_get();
	fl_exec_once(strcmp(v->name, "glibc") ? v : NULL, &pol, false, r, &last);
}

/* What the shim would refuse (shim/README.md), as a skipped row up front
 * instead of a run on glibc labelled with the design's name. (The shim's
 * logline is checked after every run too: the two must agree.) */
static const char *exec_unavailable(const struct fl_variant *v, const struct fl_params *p)
{
	(void)p;
	static char buf[200];
	if (v->helper) { /* no ops in this process, none in the shim's */
		snprintf(buf, sizeof buf, "runs only in its helper (%s): the shim, loaded into the "
			 "program's glibc, cannot put its semaphores on it", v->helper);
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
	.unavailable = exec_unavailable,
};

/* The survey's record from the shim's lines (fl_exec_survey). */
static void survey_fill(struct fl_survey *sv, const struct fl_exec_shim *sh)
{
	sv->n = sh->n;
	sv->inits = sh->inits, sv->named = sh->named, sv->waits = sh->waits;
	sv->blocked = sh->blocked, sv->posts = sh->posts, sv->ours = sh->ours;
	sv->handed = sh->handed;
	for (int i = 0; i < sh->n && i < FL_SURVEY_PROCS; i++) {
		const struct fl_shim_logline *x = &sh->r[i];
		bool park = !strcmp(x->policy, "park");
		sv->p[i] = (struct fl_survey_proc){ x->pid, "", "", { x->inits, x->named, x->wait,
			x->trywait, x->timedwait, x->clockwait, x->post, x->blocked, x->timeouts },
			x->blocked_known };
		snprintf(sv->p[i].comm, sizeof sv->p[i].comm, "%s", x->comm);
		snprintf(sv->p[i].on, sizeof sv->p[i].on, "%s%s%s", x->variant, park ? "" : "@",
			 park ? "" : x->policy);
	}
}

int fl_exec_survey(const struct fl_entry *e, struct fl_survey *sv, char *why, size_t whyn)
{
	static struct fl_exec_shim sh; /* 25 KiB: not on the stack */
	struct fl_result r = { .shim_sems = -1 };
	const struct fl_variant *v = e->v;
	const char *no = exec_unavailable(v, NULL);
	if (no || (no = fl_rep_unavailable(v))) {
		snprintf(why, whyn, "%s: %s", e->label, no);
		return 2;
	}
	memset(sv, 0, sizeof *sv);
	fl_policy_format(&e->policy, sv->policy, sizeof sv->policy);
	fl_exec_once(v, &e->policy, true, &r, &sh);
	/* (a process on another design is the program's choice: semprog runs
	 * a peer on glibc's; one on v under another policy is ours, lost) */
	for (int i = 0; !r.error[0] && i < sh.n && i < (int)(sizeof sh.r / sizeof sh.r[0]); i++)
		if (!strcmp(sh.r[i].variant, v->name) && strcmp(sh.r[i].policy, sv->policy))
			fl_fail(&r, "process %d (%s) ran %s under the policy %s, not %s", sh.r[i].pid,
				sh.r[i].comm, v->name, sh.r[i].policy, sv->policy);
	if (r.error[0]) {
		snprintf(why, whyn, "%s", r.error);
		return 1;
	}
	sv->program = fl_exec_cfg.argv[0];
	sv->seconds = (double)r.elapsed_ns / 1e9;
	snprintf(sv->label, sizeof sv->label, "%s", e->label);
	if (strcmp(v->name, "glibc"))
		snprintf(sv->design, sizeof sv->design, "%s", v->name);
	survey_fill(sv, &sh);
	return 0;
}
