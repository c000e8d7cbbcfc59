/* record/csv.c — see csv.h. */
#include "record/csv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/cpuset.h"
#include "proc/interrupt.h"
#include "record/machine.h"
#include "schema/fnv.h"
#include "revision.h"

int fl_csv_open(struct fl_csv *c, const char *path, const char *header,
		int argc, char **argv)
{
	memset(c, 0, sizeof *c);
	char kernel[256], cpu[256], date[64], cmd[2048] = "", numa[2048];
	char host[256], libc[64], libs[4096]; /* the results store's fingerprint (--lib rows: paths) */
	int cores;
	fl_machine(kernel, sizeof kernel, cpu, sizeof cpu, &cores);
	/* the CPUs the run may use: the machine's online count, or those the
	 * process was given where fewer ("1 (cpus 0 of 2 online)"), which the
	 * fingerprint then tells from the whole machine (model/model.c) */
	char corestr[300], given[256];
	cpu_set_t gs;
	int ng = fl_machine_cpus_given(&gs);
	fl_cpulist_format(&gs, given, sizeof given);
	if (ng > 0 && ng < cores)
		snprintf(corestr, sizeof corestr, "%d (cpus %s of %d online)", ng, given, cores);
	else
		snprintf(corestr, sizeof corestr, "%d", cores);
	fl_machine_numa(numa, sizeof numa);
	fl_machine_software(host, sizeof host, libc, sizeof libc, libs, sizeof libs);
	time_t now = time(NULL);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(cmd);
		snprintf(cmd + l, sizeof cmd - l, "%s%s", i ? " " : "", argv[i]);
	}
	if (asprintf(&c->meta,
		     "# futexlab %s\n# date: %s\n# kernel: %s\n# cpu: %s\n# cores: %s\n"
		     "# numa: %s\n# host: %s\n# libc: %s\n# libraries: %s\n# command: %s\n"
		     "# format: 2 (the last line, '# end: N rows ...', says the run finished)\n",
		     FL_REVISION, date, kernel, cpu, corestr, numa, host, libc, libs, cmd) < 0 ||
	    !(c->header = strdup(header)))
		return ENOMEM;
	bool env;
	int cpus = fl_cpus_present(&env);
	if (env && cpus > 0 && fl_csv_meta(c, "cpus: FUTEXLAB_CPUS=%d (a preset's thread axis scaled to %d "
			       "CPUs, not to the %d online: lib/cpuset.h)", cpus, cpus, cores))
		return ENOMEM;
	if (!path)
		return 0; /* in memory only (sweep without --csv) */
	c->path = strdup(path);
	return c->path ? fl_csv_add(c, NULL) : ENOMEM;
}

int fl_csv_meta(struct fl_csv *c, const char *fmt, ...)
{
	char *line, *m;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (r < 0)
		return ENOMEM;
	r = asprintf(&m, "%s# %s\n", c->meta, line);
	free(line);
	if (r < 0)
		return ENOMEM;
	free(c->meta);
	c->meta = m;
	return fl_csv_flush(c);
}

int fl_csv_append(struct fl_csv *c, const char *row)
{
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 64;
		char **l = realloc(c->lines, (size_t)cap * sizeof *l);
		if (!l)
			return ENOMEM;
		c->lines = l;
		c->cap = cap;
	}
	if (!(c->lines[c->n] = strdup(row)))
		return ENOMEM;
	c->n++;
	return 0;
}

int fl_csv_add(struct fl_csv *c, const char *row)
{
	int e = row ? fl_csv_append(c, row) : 0;
	return e ? e : fl_csv_flush(c);
}

bool fl_csv_durable = true;

int fl_csv_flush(struct fl_csv *c)
{
	if (!c->path)
		return 0;
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", c->path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return errno;
	fputs(c->meta, f);
	fprintf(f, "%s\n", c->header);
	for (int i = 0; i < c->n; i++)
		fprintf(f, "%s\n", c->lines[i]);
	if (c->end)
		fprintf(f, "%s\n", c->end);
	int bad = fflush(f) != 0 || (fl_csv_durable && fsync(fileno(f)) != 0);
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, c->path) != 0) {
		int e = errno ? errno : EIO;
		unlink(tmp);
		return e;
	}
	return 0;
}

/* The rows' checksum (schema/fnv.h), what model/table.c reads back. */
static unsigned long long rows_sum(const struct fl_csv *c)
{
	uint64_t h = FL_FNV_BASIS;
	for (int i = 0; i < c->n; i++)
		h = fl_fnv1a_line(h, c->lines[i]);
	return (unsigned long long)h;
}

int fl_csv_end(struct fl_csv *c)
{
	if (c->end)
		return 0;
	if (asprintf(&c->end, "# end: %d rows, fnv1a64 %016llx%s", c->n, rows_sum(c),
		     fl_interrupted ? ", interrupted" : "") < 0) {
		c->end = NULL;
		return ENOMEM;
	}
	return fl_csv_flush(c);
}

void fl_csv_close(struct fl_csv *c)
{
	int e = c->path ? fl_csv_end(c) : 0;
	if (e)
		fprintf(stderr, "futexlab: cannot write the end line of %s: %s\n", c->path,
			strerror(e));
	free(c->end);
	for (int i = 0; i < c->n; i++)
		free(c->lines[i]);
	free(c->lines);
	free(c->meta);
	free(c->header);
	free(c->path);
	memset(c, 0, sizeof *c);
}

const char fl_lat_csv_header[] =
	"variant,workload,threads,tokens,hold_ns,think_ns,wake,policy,hash,lo_ns,width_ns,count,"
	"timer_ns";

void fl_lat_path(const char *csv_path, char *out, size_t n)
{
	size_t l = strlen(csv_path);
	if (l > 4 && !strcmp(csv_path + l - 4, ".csv"))
		snprintf(out, n, "%.*s.lat.csv", (int)(l - 4), csv_path);
	else
		snprintf(out, n, "%s.lat.csv", csv_path);
}

const char *fl_detail_path(const char *csv_path, char *out, size_t n)
{
	size_t l = strlen(csv_path);
	if (l > 4 && !strcmp(csv_path + l - 4, ".csv"))
		snprintf(out, n, "%.*s.txt", (int)(l - 4), csv_path);
	else
		snprintf(out, n, "%s.txt", csv_path);
	return out;
}

void fl_csv_quote(char *out, size_t n, const char *s)
{
	size_t k = 0;
	if (n < 3)
		return;
	out[k++] = '"';
	for (; *s && k + 3 < n; s++) {
		if (*s == '"')
			out[k++] = '"';
		out[k++] = *s == '\n' ? ' ' : *s;
	}
	out[k++] = '"';
	out[k] = '\0';
}
