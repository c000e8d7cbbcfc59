/* probes/tracefs.c — see tracefs.h. */
#include "probes/tracefs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#define EVENT "/events/syscalls/sys_enter_futex"

static int have_event(void)
{
	return access("/sys/kernel/tracing" EVENT, F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing" EVENT, F_OK) == 0;
}

int fl_tracefs_ready(char *why, size_t n)
{
	if (have_event())
		return 0;
	if (access("/sys/kernel/tracing", F_OK) == 0 &&
	    mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 && have_event())
		return 0;
	int e = errno ? errno : ENOENT;
	if (access("/sys/kernel/tracing/events", F_OK) == 0) {
		snprintf(why, n, "the kernel has no syscalls:sys_enter_futex tracepoint "
			 "(CONFIG_FTRACE_SYSCALLS off?)");
		return ENOENT;
	}
	snprintf(why, n, "tracefs is not mounted and mounting it failed (%s); "
		 "as root: mount -t tracefs nodev /sys/kernel/tracing", strerror(e));
	return e;
}
