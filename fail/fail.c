/* fail/fail.c — see fail.h. */
#include "fail/fail.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void (*fl_bad_input_trap)(const char *line);

void fl_bad_input(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fl_bad_input_v(fmt, ap);
	va_end(ap); /* not reached: the pair is the caller's, as the standard asks */
}

void fl_bad_input_v(const char *fmt, va_list ap)
{
	char line[FL_BAD_INPUT_MAX];
	vsnprintf(line, sizeof line, fmt, ap);
	if (fl_bad_input_trap) {
		fl_bad_input_trap(line);
		abort(); /* a trap must not return */
	}
	fprintf(stderr, "futexlab: %s\n", line);
	exit(FL_EXIT_USAGE);
}
