/* harness/csv.c — see csv.h. */
#include "csv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "revision.h"

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

int fl_csv_open(struct fl_csv *c, const char *path, const char *header,
		int argc, char **argv)
{
	memset(c, 0, sizeof *c);
	char kernel[256], cpu[256], date[64], cmd[2048] = "";
	int cores;
	fl_machine(kernel, sizeof kernel, cpu, sizeof cpu, &cores);
	time_t now = time(NULL);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(cmd);
		snprintf(cmd + l, sizeof cmd - l, "%s%s", i ? " " : "", argv[i]);
	}
	if (asprintf(&c->meta,
		     "# futexlab %s\n# date: %s\n# kernel: %s\n# cpu: %s\n# cores: %d\n"
		     "# command: %s\n%s\n",
		     FL_REVISION, date, kernel, cpu, cores, cmd, header) < 0)
		return ENOMEM;
	if (!path)
		return 0; /* in memory only (sweep without --csv) */
	c->path = strdup(path);
	return c->path ? fl_csv_add(c, NULL) : ENOMEM;
}

int fl_csv_add(struct fl_csv *c, const char *row)
{
	if (row) {
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
	}
	if (!c->path)
		return 0;
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", c->path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return errno;
	fputs(c->meta, f);
	for (int i = 0; i < c->n; i++)
		fprintf(f, "%s\n", c->lines[i]);
	int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, c->path) != 0) {
		int e = errno ? errno : EIO;
		unlink(tmp);
		return e;
	}
	return 0;
}

void fl_csv_close(struct fl_csv *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->lines[i]);
	free(c->lines);
	free(c->meta);
	free(c->path);
	memset(c, 0, sizeof *c);
}
