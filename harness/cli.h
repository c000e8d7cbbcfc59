/* harness/cli.h — argument parsing shared by the subcommands.
 * Every bad input ends in one line on stderr and exit status 2. */
#ifndef FUTEXLAB_CLI_H
#define FUTEXLAB_CLI_H

#include <stdint.h>

#define FL_EXIT_USAGE 2

__attribute__((noreturn, format(printf, 1, 2)))
void fl_usage_error(const char *fmt, ...);
/* Tests only (tests/fuzz): when set, fl_usage_error hands its line to this
 * function instead of printing it and exiting, and the function must not
 * return (a fuzzer longjmps back to its loop). NULL in futexlab. */
extern void (*fl_usage_trap)(const char *line);

/* Integer in [lo, hi], named `what` in the error. */
int64_t fl_parse_int(const char *what, const char *s, int64_t lo, int64_t hi);
/* Seconds as a decimal (e.g. 0.25) in (0, hi]; returns nanoseconds. */
int64_t fl_parse_seconds(const char *what, const char *s, double hi);
/* Splits a comma list in place; returns the count (at most max). Empty
 * items are an error. */
int fl_split_list(const char *what, char *s, char **out, int max);
/* `--bpftrace SCRIPT`: a usage error when the script cannot be read (the
 * probes run it: probes/probes.h). */
void fl_bpftrace_check(const char *script);

#endif
