/* tests/sleepers.h — know, rather than guess, that threads are asleep.
 *
 * A test that wants "4 waiters are blocked, now post 2" must not rely on a
 * sleep(): it reads each thread's state from /proc/self/task/TID/stat and
 * waits until all of them are in S (interruptible sleep) — where a futex
 * wait puts them. */
#ifndef FUTEXLAB_SLEEPERS_H
#define FUTEXLAB_SLEEPERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "task.h"

/* True once every tid[i] (0 = not started yet) is sleeping; false after
 * timeout_ms. */
static inline bool wait_sleeping(_Atomic pid_t *tid, int n, int timeout_ms)
{
	for (int waited = 0; waited <= timeout_ms; waited++) {
		int asleep = 0;
		for (int i = 0; i < n; i++) {
			pid_t t = atomic_load(&tid[i]);
			if (t && fl_task_state(t) == 'S')
				asleep++;
		}
		if (asleep == n)
			return true;
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	return false;
}

#endif
