/* lib/cpuset.c — see cpuset.h. */
#include "lib/cpuset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A decimal id below CPU_SETSIZE at *p; advances p. -1 when none. */
static long id_at(const char **p)
{
	if (**p < '0' || **p > '9')
		return -1;
	char *end;
	errno = 0;
	long v = strtol(*p, &end, 10);
	if (errno || v >= CPU_SETSIZE)
		return -1;
	*p = end;
	return v;
}

int fl_cpulist_parse(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	const char *p = s;
	while (p && *p && *p != '\n') {
		long lo = id_at(&p), hi = lo;
		if (lo >= 0 && *p == '-') {
			p++;
			hi = id_at(&p);
		}
		if (lo < 0 || hi < lo)
			return -1;
		for (long c = lo; c <= hi; c++)
			CPU_SET((int)c, set);
		if (*p == ',' && p[1] && p[1] != '\n')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return CPU_COUNT(set) ? 0 : -1;
}

void fl_cpulist_format(const cpu_set_t *set, char *out, size_t n)
{
	size_t l = 0;
	out[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && l < n; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		int w = e > c ? snprintf(out + l, n - l, "%s%d-%d", l ? "," : "", c, e)
			      : snprintf(out + l, n - l, "%s%d", l ? "," : "", c);
		l += w > 0 ? (size_t)w : 0;
		c = e;
	}
}

int fl_cpus_present(bool *overridden)
{
	const char *env = getenv("FUTEXLAB_CPUS");
	*overridden = env != NULL;
	if (!env)
		return (int)sysconf(_SC_NPROCESSORS_ONLN);
	char *end;
	errno = 0;
	long v = strtol(env, &end, 10);
	return errno || end == env || *end || v < 1 || v > 4096 ? -1 : (int)v;
}

int fl_threads_scaled(const char *threads, int cpus, char *out, size_t n)
{
	int w = snprintf(out, n, "%s", threads);
	if (w < 0 || (size_t)w >= n)
		return -1;
	long top = 0;
	for (const char *p = threads; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || (*end && *end != ','))
			return -1;
		top = v > top ? v : top;
		p = *end ? end + 1 : end;
	}
	if (top <= 1)
		return 0;
	const long add[] = { cpus / 2, cpus, 2L * cpus > 1024 ? 1024 : 2L * cpus };
	for (int i = 0; i < 3; i++) {
		if (add[i] <= top)
			continue;
		size_t l = strlen(out);
		w = snprintf(out + l, n - l, ",%ld", add[i]);
		if (w < 0 || (size_t)w >= n - l)
			return -1;
		top = add[i];
	}
	return 0;
}
