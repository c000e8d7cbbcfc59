/* record/machine.c — see machine.h. */
#include "record/machine.h"

#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "proc/exec.h"

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
