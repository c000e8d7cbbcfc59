/* lib/task.h — a thread's scheduler state, from /proc/self/task/TID/stat.
 *
 * 'S' (interruptible sleep) is where a futex wait puts a thread; 'R'
 * running or runnable. Used to know, rather than guess, that waiters are
 * asleep before a post (tests/sleepers.h, workloads/wake.c), and that no
 * thread is runnable before calling a waiter stranded (stranded/stranded.c,
 * whose watchdog reads it while other threads may fork: hence open(2) with
 * O_CLOEXEC, not stdio, so that an exec'ed child inherits nothing). '?'
 * when the thread is gone or the file cannot be read. */
#ifndef FUTEXLAB_TASK_H
#define FUTEXLAB_TASK_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static inline char fl_task_state(pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	char *rp = strrchr(buf, ')'); /* the name may hold spaces and ')' */
	return rp && rp[1] == ' ' ? rp[2] : '?';
}

#endif
