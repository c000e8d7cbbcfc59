/* proc/exec.h — running another program as a rep (`futexlab exec`).
 *
 * The program runs under the LD_PRELOAD shim (shim/README.md) with one
 * design, or unshimmed for `glibc` (glibc's sem_t as the program runs
 * today), as proc/spawn.h runs a program (its own process group, a
 * deadline, the group killed at the end; stderr's first line kept for an
 * error row unless `output` is set). Its wall time (fork to reaped),
 * wait4's rusage (the command and every descendant it waited for) and the
 * shim's per-process loglines (FUTEXLAB_LOG) make the rep's result. A
 * non-zero exit, a signal, a timeout, or a shim that did
 * not put the program's semaphores on the design is an error, never a
 * figure. */
#ifndef FUTEXLAB_EXEC_H
#define FUTEXLAB_EXEC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/metric.h"
#include "schema/survey.h"
#include "shim/logline.h" /* the shim's logline (its published format) */
#include "variants/policy.h"
#include "workloads/point.h"
#include "workloads/workload.h"

#define FL_EXEC_MAXENV 32

struct fl_exec {
	char **argv;                 /* the command, NULL-terminated */
	char shim[PATH_MAX];         /* libfutexlab-preload.so */
	char *env[FL_EXEC_MAXENV];   /* --env K=V, in order */
	int nenv;
	char allow[64];              /* FUTEXLAB_ALLOW for the shim ("" none) */
	unsigned allow_flags;        /* the same as FL_DESTROY_UNSAFE | ... */
	double timeout_s;            /* per run; then the group is killed */
	bool output;                 /* the program's stdout and stderr pass through */
	const struct fl_metric *metric; /* --metric (NULL: none): the figure, from
				      * stdout and stderr kept in one file */
};

extern struct fl_exec fl_exec_cfg;

/* The workload `exec` (not registered: `futexlab exec` hands it to the
 * runner): one op per rep, elapsed = the program's wall time. */
extern const struct fl_workload fl_exec_workload;

/* The shim's loglines of one run. */
struct fl_exec_shim {
	int n;                        /* lines (processes that reported) */
	struct fl_shim_logline r[64];  /* the first 64 of them */
	unsigned long long ours, handed, named, inits; /* summed over every line */
	unsigned long long waits, blocked, posts;      /* (FUTEXLAB_STATS) waits of the three kinds */
	int not_on;                   /* lines whose state is not `on` */
	int forged;                   /* lines from outside the run, dropped (proc/report.h) */
	char why[160];                /* the first such line's state and reason */
};

/* One run of the command: `v` NULL runs it unshimmed; else under the shim
 * with FUTEXLAB_VARIANT = v->name, FUTEXLAB_POLICY = pol's text unless pol
 * is park (which the shim's designs run by default: the variable is then
 * removed, so that none inherited from futexlab's own environment changes
 * what the row's label says), and FUTEXLAB_STATS=1 when stats. Fills r
 * (ops 1, elapsed, cpu, or error) and, when sh is not NULL, the shim's
 * loglines. As a workload (fl_exec_workload), pol is the rep's policy
 * (workloads/rep.h sets it in this process before the run). */
void fl_exec_once(const struct fl_variant *v, const struct fl_policy *pol, bool stats,
		  struct fl_result *r, struct fl_exec_shim *sh);

/* `exec --survey`: one run of the command with the shim counting
 * (FUTEXLAB_STATS=1) on entry e's design under its policy — glibc: the
 * shim's pass-through, glibc's own sem_t, as the program runs today — into
 * *sv (schema/survey.h). Returns 0; 1 when the run failed (as a rep's
 * error row would: exit status, signal, the shim not on the design), or a
 * process whose shim reports e's design under another policy than e's (the
 * counts would be another survey's; one on another design is the
 * program's own doing, a FUTEXLAB_VARIANT it set, and its line says so);
 * 2, running nothing, when e cannot be surveyed (what a rep of it would be
 * skipped for: a design the shim refuses or does not offer, or one this
 * machine lacks). why: the reason, one line, for 1 and 2. */
int fl_exec_survey(const struct fl_entry *e, struct fl_survey *sv, char *why, size_t whyn);

/* The cgroup the next run will be in (proc/cgroup.h), made now if it is
 * not yet: its id (bpf_get_current_cgroup_id()'s value for the program's
 * processes), for the collector to count by before the run starts; 0 when
 * runs have no cgroup (then one line on stderr, once). Call between reps;
 * the next run takes that cgroup and removes it at its end. */
uint64_t fl_exec_cgroup_next(void);

/* The CPU (ns) the runs' cgroups counted beyond wait4's rusage, summed over
 * every run of this process so far: daemons and workers no wait4 of ours
 * reaped. Beside RUSAGE_CHILDREN it is the runs' whole CPU, which the
 * harness's "other work" figure must not count as someone else's. */
int64_t fl_exec_unreaped_ns(void);

/* The shim's loglines of the last run of the workload. */
const struct fl_exec_shim *fl_exec_last_shim(void);

/* Finds the shim beside this futexlab (FUTEXLAB_SHIM overrides) into
 * fl_exec_cfg.shim: 0, or -1 with one line in why when there is none.
 * Also decides, once, whether runs can have a cgroup (proc/cgroup.h's
 * trial: a forked child, kept out of every rep). */
int fl_exec_find_shim(char *why, size_t whyn);

/* Whether argv0 can be executed (a path, or found in PATH as execvp
 * would): 0, or -1 with one line in why. */
int fl_exec_check_command(const char *argv0, char *why, size_t whyn);

#endif
