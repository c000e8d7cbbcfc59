/* lib/cgroup2.h — where cgroup v2 is: its mount (from /proc/self/mountinfo,
 * the first `cgroup2` line: /sys/fs/cgroup on systemd hosts,
 * /sys/fs/cgroup/unified in a hybrid layout) and this process's cgroup in
 * it (/proc/self/cgroup's `0::` line). Shared by exec's container
 * (proc/cgroup.c), the collector's cost measurement (probes/mode-cost.c)
 * and the tests that make a cgroup of their own. */
#ifndef FUTEXLAB_CGROUP2_H
#define FUTEXLAB_CGROUP2_H

#include <stddef.h>

/* The first cgroup2 mount: its root within the hierarchy and its mount
 * point (mountinfo's octal escapes undone), each into n bytes. 0, or -1. */
int fl_cgroup2_mount(char *root, char *mnt, size_t n);

/* This process's cgroup v2 path, relative to the namespace's root (the
 * 0:: line). 0, or -1. */
int fl_cgroup2_own(char *path, size_t n);

/* This process's cgroup as a directory: the mount point + its path below
 * the mount's root. 0, or -1 with one line in why. */
int fl_cgroup2_own_dir(char *dir, size_t n, char *why, size_t wn);

#endif
