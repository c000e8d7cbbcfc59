/* proc/metric.h — the program's own figure (`futexlab exec --metric REGEX`):
 * a POSIX extended regex whose first capture group is a number, searched in
 * the program's output; the LAST match counts (a program that prints a
 * running figure and then its total is read at its total).
 *
 * The output is searched line by line (a line without its '\n'): `^` and
 * `$` anchor at a line's ends, and a match never spans two lines. Within a
 * line every match counts in order (regexec again after the previous
 * match's end), so "tps 10 ... tps 20" on one line reads 20. Pure
 * functions of their input: no I/O but the FILE the caller hands over. */
#ifndef FUTEXLAB_METRIC_H
#define FUTEXLAB_METRIC_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct fl_metric {
	regex_t re;
	char text[256];  /* the REGEX as given (for messages and the CSV) */
	bool higher;     /* --higher-is-better */
};

/* The last match seen so far (fl_metric_found_init, then lines). */
struct fl_metric_found {
	enum {
		FL_METRIC_NONE,       /* no match */
		FL_METRIC_NUMBER,     /* value holds the figure */
		FL_METRIC_NOT_NUMBER, /* group 1 matched text that is not a finite
				       * number, or took no part in the match */
	} how;
	double value;
	char text[64];   /* group 1's text (cut at 63 bytes) */
};

/* Compiles re (REG_EXTENDED) into m: 0, or -1 with one line in why (the
 * regex does not compile: regerror's words; or has no capture group). m is
 * fl_metric_free'd by the caller only after 0. */
int fl_metric_compile(struct fl_metric *m, const char *re, bool higher, char *why, size_t whyn);
void fl_metric_free(struct fl_metric *m);

void fl_metric_found_init(struct fl_metric_found *f);
/* One line of output (no '\n'; a '\n' inside ends the line there). */
void fl_metric_line(const struct fl_metric *m, const char *line, struct fl_metric_found *f);
/* A buffer of output: its lines, the last one with or without a '\n'. A
 * NUL byte in the output ends its line's search there (regexec reads C
 * strings). */
void fl_metric_buffer(const struct fl_metric *m, const char *buf, size_t len,
		      struct fl_metric_found *f);
/* A stream of output from where it stands to its end. */
void fl_metric_stream(const struct fl_metric *m, FILE *in, struct fl_metric_found *f);

/* The found figure as an error row's reason, or "" when it is a usable
 * figure (a finite number > 0: a ratio needs one): "no match for --metric
 * 'REGEX' in the program's output", "--metric 'REGEX': group 1 matched
 * 'abc', not a number", "... the figure is 0: a ratio needs a number > 0". */
const char *fl_metric_problem(const struct fl_metric *m, const struct fl_metric_found *f,
			      char *b, size_t n);

#endif
