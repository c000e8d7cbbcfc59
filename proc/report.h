/* proc/report.h — the report channel's server: the shim's loglines from
 * every process of a run, whatever its user.
 *
 * An abstract AF_UNIX SOCK_SEQPACKET socket named
 * `futexlab-<pid>-<16 hex from getrandom>` (FUTEXLAB_LOG=@NAME for the
 * shim: shim/log.md). Abstract: no file at all, so none another user could
 * write into or replace; reachable from any user in this network
 * namespace, so each connection is checked: SO_PEERCRED's pid must be a
 * process of the run — in the run's cgroup (its /proc/PID/cgroup), or,
 * without one, in the program's process group or below the program's
 * pid. The sender is alive while we look: it waits for our ack. A line
 * from anyone else is dropped and counted (`forged`). Then one message
 * (the line, with its '\n'), a 1-byte ack, close.
 *
 * Serviced while the program runs (proc/spawn.h's service hook, from the
 * wait loop) and drained once its main process ended, before the cgroup
 * is killed. */
#ifndef FUTEXLAB_REPORT_H
#define FUTEXLAB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "proc/cgroup.h"

struct fl_report {
	int fd;                      /* the listening socket (-1: none) */
	char name[64];               /* without the leading NUL */
	/* who may report (set before the first service): */
	const struct fl_cgroup *cg;  /* the run's cgroup, or NULL */
	pid_t pid;                   /* without: the program's pid (its group's id) */
	/* each accepted line (NUL-terminated, its '\n' kept) and its sender */
	void (*line)(void *arg, const char *line, pid_t pid);
	void *arg;
	int lines, forged, bad;      /* accepted; dropped (not the run's); unreadable */
};

/* Makes, binds and listens (non-blocking, close-on-exec): 0, or -1 with
 * why. */
int fl_report_open(struct fl_report *r, char *why, size_t n);

/* Serves every connection waiting now, without waiting for new ones. */
void fl_report_service(struct fl_report *r);

/* Whether pid belongs to the run (the rule above). */
bool fl_report_member(const struct fl_report *r, pid_t pid);

void fl_report_close(struct fl_report *r);

#endif
