/* fail/fail.h — how a command ends on bad input: one line on stderr,
 * "futexlab: " and the text, and exit status 2, never a crash. The command
 * line's options end so (runner/cli.h: fl_usage_error, over this) and so
 * do the report's files (a CSV that is not futexlab's, an empty one, an
 * unwritable output: report/ calls fl_bad_input itself). One function
 * under both, so that a fuzzer's trap catches either. */
#ifndef FUTEXLAB_FAIL_H
#define FUTEXLAB_FAIL_H

#include <stdarg.h>

#define FL_EXIT_USAGE 2
#define FL_BAD_INPUT_MAX 4096 /* the longest line, its terminator included */

__attribute__((noreturn, format(printf, 1, 2)))
void fl_bad_input(const char *fmt, ...);
/* The same from a caller's own arguments (its va_start, its va_end). */
__attribute__((noreturn, format(printf, 1, 0)))
void fl_bad_input_v(const char *fmt, va_list ap);
/* Tests only (tests/fuzz): when set, fl_bad_input hands its line to this
 * function instead of printing it and exiting, and the function must not
 * return (a fuzzer longjmps back to its loop). NULL in futexlab. */
extern void (*fl_bad_input_trap)(const char *line);

#endif
