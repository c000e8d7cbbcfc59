/* probes/tracefs.h — make sure the syscall tracepoints can be found.
 *
 * Attaching to a tracepoint (libbpf or bpftrace) looks its id up in tracefs.
 * Some systems boot without tracefs mounted (some VMs' kernels do); root can mount
 * it. No libbpf here: the bpftrace path uses it too. */
#ifndef FUTEXLAB_TRACEFS_H
#define FUTEXLAB_TRACEFS_H

#include <stddef.h>

/* 0 when tracefs (with the futex syscall tracepoints) is usable, mounting it
 * at /sys/kernel/tracing first if it is not and we may; otherwise an errno
 * value and one sentence in why[n]. */
int fl_tracefs_ready(char *why, size_t n);

#endif
