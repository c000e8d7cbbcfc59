/* runner/cli.h — argument parsing shared by the subcommands.
 * Every bad input ends in one line on stderr and exit status 2. */
#ifndef FUTEXLAB_CLI_H
#define FUTEXLAB_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "fail/fail.h" /* fl_bad_input, FL_EXIT_USAGE */

/* A bad option or value: "futexlab: " and the line on stderr, exit 2
 * (fail/fail.h's fl_bad_input, which a bad file in the report ends in too;
 * the line at most FL_BAD_INPUT_MAX - 1 bytes). */
__attribute__((noreturn, format(printf, 1, 2)))
void fl_usage_error(const char *fmt, ...);


/* Integer in [lo, hi], named `what` in the error. */
int64_t fl_parse_int(const char *what, const char *s, int64_t lo, int64_t hi);
/* A decimal number in [lo, hi], named `what` in the error. */
double fl_parse_double(const char *what, const char *s, double lo, double hi);
/* Seconds as a decimal (e.g. 0.25) in (0, hi]; returns nanoseconds. */
int64_t fl_parse_seconds(const char *what, const char *s, double hi);
/* A list option into a writable buffer: one longer than the buffer is a
 * usage error, never cut short (a cut "...,12" would silently run "...,1"). */
void fl_copy_list(const char *what, char *buf, size_t size, const char *list);
/* Splits a comma list in place; returns the count (at most max). Empty
 * items are an error. */
int fl_split_list(const char *what, char *s, char **out, int max);
/* `--bpftrace SCRIPT`: a usage error when the script cannot be read (the
 * probes run it: probes/probes.h). */
void fl_bpftrace_check(const char *script);

/* `--lib BASE+TAG=PATH` (run, sweep, hunt): a library the user built as a
 * row (proc/userlib.h), made and registered; a bad value is a usage error. */
void fl_lib_option(const char *arg);

/* --reps, the old name of --rounds, is still accepted (run, sweep, exec):
 * this one line on stderr says so each time. */
void fl_reps_deprecated(void);

/* ---- option tables ----------------------------------------------------------
 *
 * A command's options, one entry each, with the help text in the entry:
 * getopt_long's table and the command's --help are both generated from it,
 * so an option cannot be accepted and missing from the help, or listed and
 * refused. */
struct fl_option {
	const char *name;       /* the long option, without "--" */
	int has_arg;            /* no_argument or required_argument (getopt.h) */
	int code;               /* what getopt_long returns for it */
	const char *arg;        /* its value's placeholder in the help ("LIST"), or NULL */
	const char *help;       /* what it does, one paragraph (wrapped when printed);
				   NULL: a hidden alias (an older name) */
};

/* getopt_long's table of the n entries of o (out has n + 1 slots: the
 * terminator). */
struct option;
void fl_options_getopt(const struct fl_option *o, int n, struct option *out);
/* The usage: synopsis (its own lines, "usage: ..."), every listed option
 * with its help wrapped at 79 columns, then notes (or NULL). */
void fl_options_usage(FILE *f, const char *synopsis, const struct fl_option *o, int n,
		      const char *notes);

#endif
