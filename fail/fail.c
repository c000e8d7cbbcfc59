/* fail/fail.c — see fail.h. */
#include "fail/fail.h"

#include <stdio.h>
#include <stdlib.h>

void (*fl_bad_input_trap)(const char *line);

void fl_bad_input_v(const char *fmt, va_list ap)
{
	if (fl_bad_input_trap) {
		char line[1024];
		vsnprintf(line, sizeof line, fmt, ap);
		fl_bad_input_trap(line);
		abort(); /* a trap must not return */
	}
	fputs("futexlab: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	exit(FL_EXIT_USAGE);
}

void fl_bad_input(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fl_bad_input_v(fmt, ap);
}
