/* lib/task.h — a thread's scheduler state, from /proc/self/task/TID/stat.
 *
 * 'S' (interruptible sleep) is where a futex wait puts a thread; 'R'
 * running or runnable. Used to know, rather than guess, that waiters are
 * asleep before a post (tests/sleepers.h, workloads/wake.c). '?' when the
 * thread is gone or the file cannot be read. */
#ifndef FUTEXLAB_TASK_H
#define FUTEXLAB_TASK_H

#include <stdio.h>
#include <string.h>
#include <sys/types.h>

static inline char fl_task_state(pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return '?';
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *rp = strrchr(buf, ')'); /* the name may hold spaces and ')' */
	return rp && rp[1] == ' ' ? rp[2] : '?';
}

#endif
