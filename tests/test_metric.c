/* tests/test_metric.c — proc/metric.c, the program's figure of exec
 * --metric: what compiles (a group, an ERE), which match counts (the last:
 * across lines, within a line, in a buffer without a final newline, from a
 * stream), what is a number, and the error rows' reasons. */
#include <stdio.h>
#include <string.h>

#include "proc/metric.h"
#include "tests/expect.h"

static struct fl_metric_found scan(const char *re, const char *out)
{
	struct fl_metric m;
	struct fl_metric_found f;
	char why[300];
	fl_metric_found_init(&f);
	if (fl_metric_compile(&m, re, false, why, sizeof why)) {
		EXPECT(0, "'%s' did not compile: %s", re, why);
		return f;
	}
	fl_metric_buffer(&m, out, strlen(out), &f);
	fl_metric_free(&m);
	return f;
}

static void t_compile(void)
{
	struct fl_metric m;
	char why[300];
	EXPECT(fl_metric_compile(&m, "tps = ([0-9.]+)", true, why, sizeof why) == 0, "%s", why);
	EXPECT(m.higher && !strcmp(m.text, "tps = ([0-9.]+)"), "kept: %d '%s'", m.higher, m.text);
	fl_metric_free(&m);
	EXPECT(fl_metric_compile(&m, "tps = [0-9]+", false, why, sizeof why) == -1 &&
	       strstr(why, "no capture group"), "no group: %s", why);
	EXPECT(fl_metric_compile(&m, "tps = ([0-9]+", false, why, sizeof why) == -1 &&
	       strstr(why, "not a regular expression"), "unbalanced: %s", why);
	EXPECT(fl_metric_compile(&m, "a\n(b)", false, why, sizeof why) == -1 &&
	       strstr(why, "newline"), "newline: %s", why);
	/* extended, not basic: \( is a literal there, ( a group */
	EXPECT(fl_metric_compile(&m, "x+ ([0-9])", false, why, sizeof why) == 0, "ERE: %s", why);
	fl_metric_free(&m);
}

static void t_last_match(void)
{
	struct fl_metric_found f = scan("tps = ([0-9.]+)", "tps = 1\nnoise\ntps = 2.5\nend\n");
	EXPECT(f.how == FL_METRIC_NUMBER && f.value == 2.5, "last line's: %d %g", f.how, f.value);
	f = scan("tps ([0-9]+)", "tps 10 then tps 20 and tps 30");
	EXPECT(f.how == FL_METRIC_NUMBER && f.value == 30, "last within a line: %g", f.value);
	f = scan("^([0-9]+)$", "7\nx 8\n9");
	EXPECT(f.how == FL_METRIC_NUMBER && f.value == 9, "anchors per line, no final \\n: %g",
	       f.value);
	f = scan("^t=([0-9]+)", "t=1 t=2");
	EXPECT(f.how == FL_METRIC_NUMBER && f.value == 1, "^ only at a line's start: %g", f.value);
	f = scan("v=(-?[0-9.e+]+)", "v=1.5e+3\n");
	EXPECT(f.how == FL_METRIC_NUMBER && f.value == 1500, "exponent: %g", f.value);
	f = scan("tps = ([0-9.]+)", "nothing here\n");
	EXPECT(f.how == FL_METRIC_NONE, "no match: %d", f.how);
	f = scan("x(a*)", "xxxx"); /* empty matches: no endless loop */
	EXPECT(f.how == FL_METRIC_NOT_NUMBER && !strcmp(f.text, ""), "empty group: %d '%s'", f.how,
	       f.text);
}

static void t_not_number(void)
{
	struct fl_metric_found f = scan("tps = ([^ ]+)", "tps = 12 \ntps = 1,234\n");
	EXPECT(f.how == FL_METRIC_NOT_NUMBER && !strcmp(f.text, "1,234"), "1,234: %d '%s'",
	       f.how, f.text);
	f = scan("tps = ([^ ]+)", "tps = inf\n");
	EXPECT(f.how == FL_METRIC_NOT_NUMBER, "inf: %d", f.how);
	f = scan("t(x)|(y)", "y\n"); /* group 1 took no part in the last match */
	EXPECT(f.how == FL_METRIC_NOT_NUMBER, "group 1 unset: %d", f.how);
	f = scan("t=(.*)", "t=5 s\n");
	EXPECT(f.how == FL_METRIC_NOT_NUMBER && !strcmp(f.text, "5 s"), "trailing text: '%s'",
	       f.text);
}

static void t_stream_and_problem(void)
{
	struct fl_metric m;
	struct fl_metric_found f;
	char why[300], b[300];
	EXPECT(fl_metric_compile(&m, "ms: ([0-9.]+)", false, why, sizeof why) == 0, "%s", why);
	char text[] = "ms: 4\nms: 0\n";
	FILE *in = fmemopen(text, strlen(text), "r");
	fl_metric_found_init(&f);
	fl_metric_stream(&m, in, &f);
	fclose(in);
	EXPECT(f.how == FL_METRIC_NUMBER && f.value == 0, "stream: %d %g", f.how, f.value);
	EXPECT(strstr(fl_metric_problem(&m, &f, b, sizeof b), "needs a number > 0"), "zero: %s", b);
	f.value = 3;
	EXPECT(fl_metric_problem(&m, &f, b, sizeof b)[0] == '\0', "3 is a figure: %s", b);
	fl_metric_found_init(&f);
	EXPECT(!strcmp(fl_metric_problem(&m, &f, b, sizeof b),
		       "no match for --metric 'ms: ([0-9.]+)' in the program's output"), "%s", b);
	f.how = FL_METRIC_NOT_NUMBER;
	snprintf(f.text, sizeof f.text, "abc");
	EXPECT(strstr(fl_metric_problem(&m, &f, b, sizeof b), "matched 'abc', not a number"),
	       "%s", b);
	fl_metric_free(&m);
}

int main(void)
{
	t_compile();
	t_last_match();
	t_not_number();
	t_stream_and_problem();
	printf("%s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
