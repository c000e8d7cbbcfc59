/* proc/cgroup.h — a cgroup v2 of its own as a program's container.
 *
 * cgroup2 is the first `cgroup2` entry of /proc/self/mountinfo (a hybrid
 * layout mounts it at /sys/fs/cgroup/unified, a systemd host at
 * /sys/fs/cgroup); futexlab's own cgroup is the `0::` line of
 * /proc/self/cgroup. A run's cgroup is a new directory under it,
 * `futexlab-<pid>-<n>`. The child joins it between fork and exec (a
 * descriptor of its cgroup.procs, opened here, written "0"), so every
 * process the program ever starts is in it — daemons that left the process
 * group and were reparented to init included. At the end: cgroup.kill,
 * wait for `populated 0`, cpu.stat (the CPU of every process of the tree,
 * the killed ones too; its usage/user/system come from the cgroup core,
 * without the cpu controller), rmdir.
 *
 * FUTEXLAB_CGROUP=off: no cgroup (the process group and wait4's rusage, as
 * before); FUTEXLAB_CGROUP=DIR: make the runs' cgroups under DIR instead
 * of futexlab's own (a directory in cgroup2; tests point it at one that is
 * not writable to see the fallback). */
#ifndef FUTEXLAB_CGROUP_H
#define FUTEXLAB_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FL_CGROUP_MAXPIDS 1024

struct fl_cgroup {
	char dir[PATH_MAX];     /* the directory ("" once removed) */
	char rel[PATH_MAX];     /* its path as /proc/PID/cgroup's 0:: line shows it */
	uint64_t id;            /* stat(dir).st_ino: bpf_get_current_cgroup_id()'s value */
	int procs_fd;           /* its cgroup.procs, O_WRONLY (the child writes "0") */
	/* distinct tgids seen in it (fl_cgroup_sample, fl_cgroup_saw) */
	pid_t seen[FL_CGROUP_MAXPIDS];
	int nseen;              /* may exceed FL_CGROUP_MAXPIDS: then a floor */
	/* cpu.stat, after fl_cgroup_end */
	int64_t usage_ns, user_ns, sys_ns;
};

/* Whether runs can have a cgroup (decided once per process, from the
 * environment and the mounts): 0, or -1 with the reason in why (e.g.
 * "FUTEXLAB_CGROUP=off", "no cgroup2 mounted", "/sys/fs/cgroup/x: Permission
 * denied"). */
int fl_cgroup_usable(char *why, size_t n);

/* Makes a run's cgroup: 0, or -1 with the reason in why (nothing left
 * behind). */
int fl_cgroup_make(struct fl_cgroup *c, char *why, size_t n);

/* In the child, after fork, before exec (async-signal-safe: one write):
 * moves the calling process into c. 0, or an errno. */
int fl_cgroup_join(const struct fl_cgroup *c);

/* Reads cgroup.procs and adds the tgids not seen yet. */
void fl_cgroup_sample(struct fl_cgroup *c);
/* Adds one tgid (a process that reported, the program's own pid). */
void fl_cgroup_saw(struct fl_cgroup *c, pid_t pid);

/* Whether pid is (now) in c or a cgroup below it (/proc/PID/cgroup). */
bool fl_cgroup_holds(const struct fl_cgroup *c, pid_t pid);

/* Kills everything in c (cgroup.kill; kernels before 5.14: SIGKILL to each
 * process of cgroup.procs until none is left), without waiting. */
void fl_cgroup_kill(struct fl_cgroup *c);

/* The end of a run: kill, wait until it is empty (bounded: 10 s), read
 * cpu.stat, remove it. 0, or -1 with why (still populated, or cpu.stat
 * unreadable: the figures are then 0). Idempotent; the descriptor closed. */
int fl_cgroup_end(struct fl_cgroup *c, char *why, size_t n);

#endif
