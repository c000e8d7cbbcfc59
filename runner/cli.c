/* runner/cli.c — see cli.h. */
#include "runner/cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/userlib.h"


void fl_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fl_bad_input_v(fmt, ap);
	va_end(ap); /* not reached */
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

double fl_parse_double(const char *what, const char *s, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || isnan(v))
		fl_usage_error("%s: '%s' is not a number", what, s);
	if (errno == ERANGE || v < lo || v > hi)
		fl_usage_error("%s: %s is out of range [%g, %g]", what, s, lo, hi);
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

void fl_copy_list(const char *what, char *buf, size_t size, const char *list)
{
	if (snprintf(buf, size, "%s", list) >= (int)size)
		fl_usage_error("%s: list longer than %zu bytes", what, size - 1);
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

void fl_reps_deprecated(void)
{
	fputs("futexlab: --reps is now --rounds\n", stderr);
}

/* ---- option tables ---------------------------------------------------------- */

void fl_options_getopt(const struct fl_option *o, int n, struct option *out)
{
	for (int i = 0; i < n; i++)
		out[i] = (struct option){ o[i].name, o[i].has_arg, NULL, o[i].code };
	out[n] = (struct option){ 0, 0, 0, 0 };
}

/* The help's layout: the option in the first HELP_COL columns, its text
 * from there, wrapped before WIDTH (a word longer than the line is kept
 * whole). */
enum { HELP_COL = 21, WIDTH = 79 };

static void wrap(FILE *f, const char *text, int col)
{
	const char *w = text;
	while (*w) {
		while (*w == ' ')
			w++;
		size_t len = strcspn(w, " ");
		if (!len)
			break;
		if (col > HELP_COL && col + 1 + (int)len > WIDTH) {
			fprintf(f, "\n%*s", HELP_COL, "");
			col = HELP_COL;
		}
		col += fprintf(f, "%s%.*s", col > HELP_COL ? " " : "", (int)len, w);
		w += len;
	}
	fputc('\n', f);
}

void fl_options_usage(FILE *f, const char *synopsis, const struct fl_option *o, int n,
		      const char *notes)
{
	fputs(synopsis, f);
	for (int i = 0; i < n; i++) {
		if (!o[i].help)
			continue; /* a hidden alias */
		int col = fprintf(f, "  --%s%s%s", o[i].name, o[i].arg ? " " : "",
				  o[i].arg ? o[i].arg : "");
		if (col >= HELP_COL) { /* no room: the text on the next line */
			fprintf(f, "\n%*s", HELP_COL, "");
			col = HELP_COL;
		} else {
			col += fprintf(f, "%*s", HELP_COL - col, "");
		}
		wrap(f, o[i].help, col);
	}
	if (notes)
		fputs(notes, f);
}

void fl_lib_option(const char *arg)
{
	char err[1200];
	if (fl_userlib_add(arg, err, sizeof err))
		fl_usage_error("%s", err);
}
