/* proc/spawn.h — running another program with a deadline and a group kill.
 *
 * The program runs in a process group of its own (so that the whole tree it
 * starts can be killed at once, and so that Ctrl-C at the terminal reaches
 * futexlab, which decides), with the default dispositions of SIGINT,
 * SIGTERM and SIGPIPE and no signal blocked, stdin from /dev/null, stdout
 * discarded and stderr kept in a temporary file (its first line is the
 * reason of an error) unless `output` is set, and none of futexlab's open
 * files (close-on-exec from 3 up: a CSV's temporary file, bpftrace's pipes,
 * the collector's descriptors). Its wall time runs from fork to reaped, its
 * rusage is wait4's (the program and every descendant it waited for).
 *
 * Nothing outlives the run: when it ends, times out or is interrupted
 * (proc/interrupt.h: Ctrl-C is passed on as SIGINT to the group, then
 * SIGKILL after a second), the group is killed, and with a cgroup
 * (fl_program.cg) every process in it — daemons that left the group too —
 * so descendants left behind cannot run into the next rep. */
#ifndef FUTEXLAB_SPAWN_H
#define FUTEXLAB_SPAWN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "proc/cgroup.h"

struct fl_program {
	char *const *argv;          /* the command, NULL-terminated (execvp) */
	double timeout_s;           /* then the group is killed */
	bool output;                /* stdout and stderr pass through */
	/* In the child, after its set-up and just before the exec: the
	 * environment (setenv, putenv). NULL: none. */
	void (*setup)(void *arg);
	void *arg;
	/* stdout too into the kept file (the two in the order written, output
	 * set or not), handed back in out_fd: exec --metric searches both */
	bool keep;
	/* The program's container (proc/cgroup.h), made and empty, or NULL
	 * (the process group alone). The child joins it before the exec (a
	 * failure is NOT_RUN); it is sampled (cg->seen) every ~20 ms while the
	 * program runs; at the end it is killed, waited empty, its cpu.stat
	 * read into cg and removed. */
	struct fl_cgroup *cg;
	/* The report channel (proc/report.h), or fd -1: service(service_arg)
	 * whenever fd is readable, and once after the main process ended,
	 * before anything is killed (the drain). */
	int service_fd;
	void (*service)(void *arg);
	void *service_arg;
	pid_t *started;             /* set to the program's pid right after the
				     * fork, before any service; NULL: not wanted */
};

struct fl_program_end {
	enum {
		FL_PROGRAM_EXITED,      /* reaped: status and ru are its */
		FL_PROGRAM_TIMED_OUT,   /* killed at the deadline */
		FL_PROGRAM_INTERRUPTED, /* Ctrl-C: killed; not a measurement */
		FL_PROGRAM_NOT_RUN,     /* why says why (exec failed, no fork, ...) */
	} how;
	int status;                 /* wait4's, when EXITED */
	struct rusage ru;
	int64_t elapsed_ns;         /* fork to reaped */
	char why[200];              /* NOT_RUN: the reason */
	char first_line[160];       /* ": " and the first non-empty line of its
				     * stderr (output unset), else "" */
	int out_fd;                 /* keep: the kept file (read it from offset
				     * 0; the caller closes it), else -1 */
	char cg_error[200];         /* the cgroup's end went wrong (still
				     * populated, no cpu.stat): why; else "" */
};

/* Runs p to its end (or deadline, or Ctrl-C) into e. */
void fl_program_run(const struct fl_program *p, struct fl_program_end *e);

#endif
