/* report/usage.h — bad input ends a command in one line on stderr and
 * exit status 2: the command line's options (harness/cli.h) and the
 * report's files (a CSV that is not futexlab's, an empty one, an unwritable
 * output) alike. */
#ifndef FUTEXLAB_USAGE_H
#define FUTEXLAB_USAGE_H

#define FL_EXIT_USAGE 2

__attribute__((noreturn, format(printf, 1, 2)))
void fl_usage_error(const char *fmt, ...);
/* Tests only (tests/fuzz): when set, fl_usage_error hands its line to this
 * function instead of printing it and exiting, and the function must not
 * return (a fuzzer longjmps back to its loop). NULL in futexlab. */
extern void (*fl_usage_trap)(const char *line);

#endif
