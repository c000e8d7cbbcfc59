/* probes/perf.c — see perf.h. */
#include "probes/perf.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

const char *const fl_perf_names[FL_PERF_N] = {
	"task_clock_ns", "context_switches", "cpu_migrations", "cycles", "instructions",
};

static const struct { uint32_t type; uint64_t config; } events[FL_PERF_N] = {
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
};

bool fl_perf_enabled;
static int fds[FL_PERF_N] = { -1, -1, -1, -1, -1 };

static int open_counter(int i)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = events[i].type;
	a.config = events[i].config;
	a.disabled = 1;
	a.inherit = 1;         /* the workload's threads are created after this */
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* pid 0, cpu -1: this thread and its future children, on any CPU. */
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

void fl_perf_begin(void)
{
	if (!fl_perf_enabled)
		return;
	for (int i = 0; i < FL_PERF_N; i++)
		fds[i] = open_counter(i);
	for (int i = 0; i < FL_PERF_N; i++)
		if (fds[i] >= 0)
			ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
}

void fl_perf_end(struct fl_perf_reading *out)
{
	for (int i = 0; i < FL_PERF_N; i++)
		out->v[i] = -1;
	if (!fl_perf_enabled)
		return;
	for (int i = 0; i < FL_PERF_N; i++)
		if (fds[i] >= 0)
			ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; i < FL_PERF_N; i++) {
		if (fds[i] < 0)
			continue;
		uint64_t buf[3]; /* value, time enabled, time running */
		if (read(fds[i], buf, sizeof buf) == (ssize_t)sizeof buf) {
			if (buf[2] == 0)
				out->v[i] = -1; /* never counted: unknown, not zero */
			else if (buf[2] < buf[1]) /* multiplexed: scale like perf stat */
				out->v[i] = (int64_t)((double)buf[0] * (double)buf[1] / (double)buf[2]);
			else
				out->v[i] = (int64_t)buf[0];
		}
		close(fds[i]);
		fds[i] = -1;
	}
}

const char *fl_perf_header(void)
{
	static char h[200];
	if (!h[0])
		for (int i = 0; i < FL_PERF_N; i++) {
			size_t l = strlen(h);
			snprintf(h + l, sizeof h - l, ",%s", fl_perf_names[i]);
		}
	return h;
}

void fl_perf_cells(const struct fl_perf_reading *r, char *out, int n)
{
	int j = 0;
	out[0] = '\0';
	for (int i = 0; i < FL_PERF_N && j < n; i++) {
		if (r && r->v[i] >= 0)
			j += snprintf(out + j, (size_t)(n - j), ",%lld", (long long)r->v[i]);
		else
			j += snprintf(out + j, (size_t)(n - j), ",");
	}
}

void fl_perf_probe(char *out, int n)
{
	int j = 0;
	out[0] = '\0';
	for (int i = 0; i < FL_PERF_N && j < n; i++) {
		int fd = open_counter(i);
		j += snprintf(out + j, (size_t)(n - j), "%s%s%s", i ? ", " : "", fl_perf_names[i],
			      fd >= 0 ? "" : " (unsupported)");
		if (fd >= 0)
			close(fd);
	}
}
