/* report/usage.c — see usage.h. */
#include "report/usage.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
