/* record/machine.c — see machine.h. */
#include "record/machine.h"

#include <gnu/libc-version.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/cpuset.h"
#include "proc/exec.h"
#include "variants/variant.h"

void fl_machine(char *kernel, int klen, char *cpu, int clen, int *cores)
{
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(kernel, (size_t)klen, "%s %s %s", u.sysname, u.release, u.machine);
	else
		snprintf(kernel, (size_t)klen, "unknown");
	snprintf(cpu, (size_t)clen, "unknown");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[512];
		while (fgets(line, sizeof line, f)) {
			char *colon = strchr(line, ':');
			if (strncmp(line, "model name", 10) == 0 && colon) {
				char *v = colon + 1;
				while (*v == ' ')
					v++;
				v[strcspn(v, "\n")] = '\0';
				snprintf(cpu, (size_t)clen, "%s", v);
				break;
			}
		}
		fclose(f);
	}
	*cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
}

int fl_machine_cpus_given(cpu_set_t *set)
{
	static cpu_set_t given;
	static int n = -1;
	if (n < 0) {
		CPU_ZERO(&given);
		n = sched_getaffinity(0, sizeof given, &given) == 0 ? CPU_COUNT(&given) : 0;
	}
	if (set)
		*set = given;
	return n;
}

/* First line of a file, or "" */
static void first_line(const char *path, char *out, size_t n)
{
	out[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(out, (int)n, f))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

void fl_machine_software(char *host, size_t hn, char *libc, size_t ln, char *libs, size_t bn)
{
	if (gethostname(host, hn) != 0)
		snprintf(host, hn, "unknown");
	host[hn - 1] = '\0'; /* gethostname need not terminate a cut name */
	snprintf(libc, ln, "glibc %s", gnu_get_libc_version());
	size_t l = 0;
	libs[0] = '\0';
	for (int i = 0; i < fl_nvariants + fl_nvariants_added && l < bn; i++) {
		const struct fl_variant *v = i < fl_nvariants ? fl_variants[i]
				       : fl_variants_added[i - fl_nvariants]; /* --lib's */
		if (v->library)
			l += (size_t)snprintf(libs + l, bn - l, "%s%s", l ? ", " : "", v->library);
	}
	if (!libs[0])
		snprintf(libs, bn, "none known");
}

void fl_machine_virt(char *hyp, size_t hlen, char *gov, size_t glen)
{
	/* The CPUID hypervisor bit shows up as the "hypervisor" flag. */
	bool flag = false;
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	while (f && !flag && fgets(line, sizeof line, f))
		flag = !strncmp(line, "flags", 5) && strstr(line, " hypervisor");
	if (f)
		fclose(f);
	char vendor[128];
	first_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof vendor);
	if (!flag)
		snprintf(hyp, hlen, "none");
	else
		snprintf(hyp, hlen, "yes%s%s%s", vendor[0] ? " (" : "", vendor, vendor[0] ? ")" : "");
	first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", gov, glen);
	if (!gov[0])
		snprintf(gov, glen, "unreadable (no cpufreq)");
}

double fl_loadavg(void)
{
	double l = -1;
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

void fl_cpu_sample(struct fl_cpu_sample *s)
{
	memset(s, 0, sizeof *s);
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	if (f) {
		/* cpu  user nice system idle iowait irq softirq steal guest guest_nice */
		if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
			memset(v, 0, sizeof v);
		fclose(f);
	}
	double tick = 1e9 / (double)sysconf(_SC_CLK_TCK);
	s->busy_ns = (int64_t)((double)(v[0] + v[1] + v[2] + v[5] + v[6]) * tick);
	s->steal_ns = (int64_t)((double)v[7] * tick);
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	s->self_ns = fl_ts_to_ns(&ts);
	/* and the children this process reaped: `exec`'s programs (and --hash's
	 * processes) are the run's own work, not other work */
	struct rusage ru;
	if (!getrusage(RUSAGE_CHILDREN, &ru))
		s->self_ns += (int64_t)ru.ru_utime.tv_sec * 1000000000 + ru.ru_utime.tv_usec * 1000 +
			      (int64_t)ru.ru_stime.tv_sec * 1000000000 + ru.ru_stime.tv_usec * 1000;
	/* and what their cgroups counted beyond that: an exec'd server's
	 * daemon and workers, never reaped by us, are the run's work too */
	s->self_ns += fl_exec_unreaped_ns();
	s->wall_ns = fl_now_ns();
}

double fl_cpu_others(const struct fl_cpu_sample *a, const struct fl_cpu_sample *b,
		     double *steal)
{
	double wall = (double)(b->wall_ns - a->wall_ns);
	if (wall <= 0) {
		*steal = 0;
		return 0;
	}
	*steal = (double)(b->steal_ns - a->steal_ns) / wall;
	double others = (double)((b->busy_ns - a->busy_ns) - (b->self_ns - a->self_ns)) / wall;
	return others > 0 ? others : 0;
}

/* ---- NUMA: /sys/devices/system/node ------------------------------------------ */

#define NODE_DIR "/sys/devices/system/node"

/* The online nodes into nodes (a node list parses as a CPU list): 0, or
 * -1 when sysfs has no NUMA (the CPUs online stand for node 0). */
static int online_nodes(cpu_set_t *nodes)
{
	char line[1024];
	first_line(NODE_DIR "/online", line, sizeof line);
	return fl_cpulist_parse(line, nodes);
}

int fl_numa_node_cpus(int k, cpu_set_t *cpus)
{
	cpu_set_t nodes;
	char path[128], line[4096];
	if (online_nodes(&nodes)) {
		first_line("/sys/devices/system/cpu/online", line, sizeof line);
		return k == 0 ? fl_cpulist_parse(line, cpus) : -1;
	}
	if (k < 0 || k >= CPU_SETSIZE || !CPU_ISSET(k, &nodes))
		return -1;
	snprintf(path, sizeof path, NODE_DIR "/node%d/cpulist", k);
	first_line(path, line, sizeof line);
	if (fl_cpulist_parse(line, cpus))
		CPU_ZERO(cpus); /* a node of memory only */
	return 0;
}

void fl_machine_numa(char *out, size_t n)
{
	cpu_set_t nodes, cpus;
	char list[2048];
	if (online_nodes(&nodes)) {
		fl_numa_node_cpus(0, &cpus);
		fl_cpulist_format(&cpus, list, sizeof list);
		snprintf(out, n, "1 node (no NUMA in sysfs: cpus %s)", list);
		return;
	}
	int nn = CPU_COUNT(&nodes);
	size_t l = (size_t)snprintf(out, n, "%d node%s (", nn, nn == 1 ? "" : "s");
	for (int k = 0, i = 0; k < CPU_SETSIZE && l < n; k++) {
		if (!CPU_ISSET(k, &nodes))
			continue;
		fl_numa_node_cpus(k, &cpus);
		fl_cpulist_format(&cpus, list, sizeof list);
		int w = snprintf(out + l, n - l, "%snode%d: %s%s", i++ ? "; " : "", k,
				 list[0] ? "cpus " : "no cpus", list);
		l += w > 0 ? (size_t)w : 0;
	}
	if (l < n)
		snprintf(out + l, n - l, ")");
}

/* --pin spread: every online node's CPUs. */
static void spread(cpu_set_t *set, char *desc, size_t dn)
{
	cpu_set_t nodes, cpus;
	char list[2048];
	if (online_nodes(&nodes)) { /* no NUMA in sysfs: node 0, the CPUs online */
		CPU_ZERO(&nodes);
		CPU_SET(0, &nodes);
	}
	int nn = CPU_COUNT(&nodes);
	CPU_ZERO(set);
	for (int k = 0; k < CPU_SETSIZE; k++)
		if (CPU_ISSET(k, &nodes) && !fl_numa_node_cpus(k, &cpus))
			CPU_OR(set, set, &cpus);
	fl_cpulist_format(set, list, sizeof list);
	snprintf(desc, dn, "spread (%d node%s, cpus %s: the process on every node's CPUs, "
		 "its threads placed by the scheduler)", nn, nn == 1 ? "" : "s", list);
}

int fl_pin_resolve(const char *arg, cpu_set_t *set, char *desc, size_t dn, char *err,
		   size_t en)
{
	char list[2048], numa[2048];
	if (!strcmp(arg, "spread")) {
		spread(set, desc, dn);
		return 0;
	}
	if (strncmp(arg, "node:", 5)) {
		snprintf(desc, dn, "%s", arg);
		if (!fl_cpulist_parse(arg, set))
			return 0;
		snprintf(err, en, "'%s' is not a CPU list (0,1 or 0-3), node:N or spread", arg);
		return -1;
	}
	char *end;
	long k = strtol(arg + 5, &end, 10);
	if (arg[5] < '0' || arg[5] > '9' || *end || k >= CPU_SETSIZE) {
		snprintf(err, en, "'%s': node:N takes a node number (0, 1, ...)", arg);
		return -1;
	}
	fl_machine_numa(numa, sizeof numa);
	if (k < 0 || fl_numa_node_cpus((int)k, set) || !CPU_COUNT(set)) {
		snprintf(err, en, "'%s': no node %ld with CPUs online here (numa: %s)", arg, k, numa);
		return -1;
	}
	fl_cpulist_format(set, list, sizeof list);
	snprintf(desc, dn, "node:%ld (cpus %s)", k, list);
	return 0;
}
