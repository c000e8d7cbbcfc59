/* record/machine.h — the machine a run ran on, and what else it was doing.
 *
 * The VM drifts: only ratios measured in one run mean anything, and even
 * those get noisier when something else runs. So every CSV records the
 * machine (CPU, cores, kernel, hypervisor, frequency governor, pinning,
 * seed) and, per point, the load average and the CPU time *other* processes
 * used while it ran: the system's busy time from /proc/stat minus this
 * process's own CPU time (CLOCK_PROCESS_CPUTIME_ID, every thread, exited
 * ones included), and the hypervisor's steal time. The load average alone
 * cannot say this: it counts our own threads and lags a minute behind. */
#ifndef FUTEXLAB_MACHINE_H
#define FUTEXLAB_MACHINE_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

/* CPU model, cores online, kernel (uname). */
void fl_machine(char *kernel, int klen, char *cpu, int clen, int *cores);
/* The CPUs this process was given — its affinity as it started: taskset,
 * a cpuset cgroup, a container's CPU set, an sshd pinned so — before
 * --pin narrows it: the first call reads it, every later call returns that
 * (so --pin calls it before it sets the affinity). Its count; 0 when
 * unreadable. set may be NULL. The `# cores:` line says it where it is
 * fewer than the CPUs online (csv.c). */
int fl_machine_cpus_given(cpu_set_t *set);
/* "KVM", "none", ... and the cpufreq governor ("unreadable" in most VMs). */
void fl_machine_virt(char *hyp, size_t hlen, char *gov, size_t glen);
/* The software a run's numbers depend on beyond the kernel, for the
 * results store's fingerprint: the host's name (gethostname), the glibc
 * this process loaded ("glibc 2.36", gnu_get_libc_version) and the
 * libraries the build compiled designs against, as the registry's
 * descriptors say (.library, variant.h: "libstdc++ 12 (20230528), libc++
 * 14000, musl 1.2.3-1"; a library the user built, --lib, as "glibc+fix:
 * /its/path"; "none known" when no descriptor says). */
void fl_machine_software(char *host, size_t hn, char *libc, size_t ln, char *libs, size_t bn);
/* The NUMA topology, for the `# numa:` line: "N node(s) (node0: cpus 0-1;
 * node1: cpus 2-3)", N first, the online nodes of /sys/devices/system/node
 * (online, nodeK/cpulist; a node without CPUs says "no cpus"). A kernel
 * without that directory (no CONFIG_NUMA) is one node holding the CPUs
 * online: "1 node (no NUMA in sysfs: cpus 0-1)". */
void fl_machine_numa(char *out, size_t n);
/* Node k's CPUs into set: 0, or
 * -1 when k is not an online node; "node 0" of a kernel without NUMA
 * holds the CPUs online. */
int fl_numa_node_cpus(int k, cpu_set_t *set);
/* What --pin ARG means: a CPU list ("0,1", "0-3"), `node:K` (node K's
 * CPUs) or `spread` (every online node's CPUs: the process, its helpers
 * and exec'd programs may run anywhere; threads are not placed per node).
 * Fills set and desc (the `# pin:` line's text): 0; or -1 with one line in
 * err. */
int fl_pin_resolve(const char *arg, cpu_set_t *set, char *desc, size_t dn, char *err,
		   size_t en);
/* 1-minute load average, -1 if unreadable. */
double fl_loadavg(void);

struct fl_cpu_sample {
	int64_t busy_ns, steal_ns, self_ns, wall_ns;
};
void fl_cpu_sample(struct fl_cpu_sample *s);
/* Between two samples: CPU used by other processes, in cores (1.0 = one
 * core busy all along), and steal time in cores (*steal). */
double fl_cpu_others(const struct fl_cpu_sample *a, const struct fl_cpu_sample *b,
		     double *steal);

#endif
