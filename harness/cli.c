/* harness/cli.c — see cli.h. */
#include "harness/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void (*fl_usage_trap)(const char *line);

void fl_usage_error(const char *fmt, ...)
{
	va_list ap;
	if (fl_usage_trap) {
		char line[1024];
		va_start(ap, fmt);
		vsnprintf(line, sizeof line, fmt, ap);
		va_end(ap);
		fl_usage_trap(line);
		abort(); /* a trap must not return */
	}
	fputs("futexlab: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(FL_EXIT_USAGE);
}

int64_t fl_parse_int(const char *what, const char *s, int64_t lo, int64_t hi)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0')
		fl_usage_error("%s: '%s' is not a whole number", what, s);
	if (errno == ERANGE || v < lo || v > hi)
		fl_usage_error("%s: %s is out of range [%lld, %lld]", what, s,
			       (long long)lo, (long long)hi);
	return v;
}

int64_t fl_parse_seconds(const char *what, const char *s, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || isnan(v))
		fl_usage_error("%s: '%s' is not a number of seconds", what, s);
	if (errno == ERANGE || !(v > 0) || v > hi)
		fl_usage_error("%s: %s is out of range (0, %g] seconds", what, s, hi);
	return (int64_t)(v * 1e9);
}

int fl_split_list(const char *what, char *s, char **out, int max)
{
	int n = 0;
	char *p = s;
	for (;;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (*p == '\0')
			fl_usage_error("%s: empty item in list", what);
		if (n == max)
			fl_usage_error("%s: more than %d items", what, max);
		out[n++] = p;
		if (!comma)
			return n;
		p = comma + 1;
	}
}

void fl_bpftrace_check(const char *script)
{
	if (access(script, R_OK))
		fl_usage_error("--bpftrace: cannot read script '%s': %s", script, strerror(errno));
}
