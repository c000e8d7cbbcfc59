/* tests/loadavg.h — the machine's load, for the failure message of a check
 * that keeps a time bound: a bound missed on a loaded machine says so
 * ("took 1.8 s; load 5.12 4.01 2.00 7/300 1234"), so a reader can tell a
 * slow machine from a broken design. */
#ifndef FUTEXLAB_LOADAVG_H
#define FUTEXLAB_LOADAVG_H

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* /proc/loadavg's line without its newline, or "(unknown)". Not reentrant:
 * one static buffer, for a failure message. */
static inline const char *fl_loadavg(void)
{
	static char buf[128];
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return "(unknown)";
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

#endif
