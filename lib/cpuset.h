/* lib/cpuset.h — CPU lists as the kernel prints them ("0-3,8-11": sysfs's
 * cpulist and node lists, taskset's -c), and how many CPUs the presets
 * scale their thread axis to.
 *
 * FUTEXLAB_CPUS=N, read here and nowhere else, stands in for the CPUs
 * online when the presets scale (tests, and a plan's --dry-run for a
 * bigger machine); it changes nothing else. */
#ifndef FUTEXLAB_CPUSET_H
#define FUTEXLAB_CPUSET_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* "0-3,8,10-11" into set (emptied first); ids below CPU_SETSIZE. 0, or -1
 * when s is empty, not such a list, or names an id out of range. A node
 * list ("0-1") parses the same way. */
int fl_cpulist_parse(const char *s, cpu_set_t *set);

/* The set as a list, ranges collapsed ("0-3,8"); "" when empty. */
void fl_cpulist_format(const cpu_set_t *set, char *out, size_t n);

/* The CPUs online (sysconf), or FUTEXLAB_CPUS when set (*overridden then
 * true); -1 when FUTEXLAB_CPUS is not a number 1..4096. */
int fl_cpus_present(bool *overridden);

/* A preset's thread list scaled to cpus: the list, then each of cpus/2,
 * cpus and 2*cpus (at most 1024) that is above the list's largest value,
 * in that order. A list whose largest value is 1 (single-threaded
 * workloads) is left as is. So every list keeps its points, and on a
 * machine of few CPUs (2: 1, 2, 4) none is added to a list reaching 4.
 * 0, or -1 when the list does not parse or out is too small. */
int fl_threads_scaled(const char *threads, int cpus, char *out, size_t n);

#endif
