/* proc/metric.c — see metric.h. */
#include "proc/metric.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int fl_metric_compile(struct fl_metric *m, const char *re, bool higher, char *why, size_t whyn)
{
	memset(m, 0, sizeof *m);
	if (strlen(re) >= sizeof m->text) {
		snprintf(why, whyn, "exec: --metric: longer than %zu characters", sizeof m->text - 1);
		return -1;
	}
	if (strchr(re, '\n')) {
		snprintf(why, whyn, "exec: --metric: a newline in it: the output is matched line by "
			 "line");
		return -1;
	}
	int e = regcomp(&m->re, re, REG_EXTENDED);
	if (e) {
		char msg[160];
		regerror(e, &m->re, msg, sizeof msg);
		snprintf(why, whyn, "exec: --metric '%s': not a regular expression (POSIX ERE): %s",
			 re, msg);
		return -1; /* regcomp freed what it had on failure */
	}
	if (m->re.re_nsub == 0) {
		regfree(&m->re);
		snprintf(why, whyn, "exec: --metric '%s': no capture group: put the number in "
			 "parentheses, e.g. 'tps = ([0-9.]+)'", re);
		return -1;
	}
	snprintf(m->text, sizeof m->text, "%s", re);
	m->higher = higher;
	return 0;
}

void fl_metric_free(struct fl_metric *m)
{
	regfree(&m->re);
}

void fl_metric_found_init(struct fl_metric_found *f)
{
	memset(f, 0, sizeof *f);
	f->how = FL_METRIC_NONE;
}

/* A match's group 1 into f: the number, or why it is not one. */
static void take(const char *s, const regmatch_t *g, struct fl_metric_found *f)
{
	if (g->rm_so < 0) { /* group 1 took no part: (x)|y matched y */
		f->how = FL_METRIC_NOT_NUMBER;
		snprintf(f->text, sizeof f->text, "%s", "");
		return;
	}
	int len = (int)(g->rm_eo - g->rm_so);
	snprintf(f->text, sizeof f->text, "%.*s", len, s + g->rm_so);
	char *num = strndup(s + g->rm_so, (size_t)len), *end;
	double x = num ? strtod(num, &end) : NAN;
	/* the whole group, nothing around it: "12 tps" or "1,234" is not a
	 * number a user meant to compare */
	bool whole = num && end != num && *end == '\0';
	free(num);
	f->how = whole && isfinite(x) ? FL_METRIC_NUMBER : FL_METRIC_NOT_NUMBER;
	f->value = f->how == FL_METRIC_NUMBER ? x : 0;
}

void fl_metric_line(const struct fl_metric *m, const char *line, struct fl_metric_found *f)
{
	size_t len = strcspn(line, "\n");
	char *s = strndup(line, len);
	if (!s)
		return;
	regmatch_t g[2];
	size_t at = 0;
	int flags = 0;
	/* every match of the line, left to right: the last one counts */
	while (at <= len && regexec(&m->re, s + at, 2, g, flags) == 0) {
		g[1].rm_so = g[1].rm_so < 0 ? -1 : g[1].rm_so + (regoff_t)at;
		g[1].rm_eo = g[1].rm_eo < 0 ? -1 : g[1].rm_eo + (regoff_t)at;
		take(s, &g[1], f);
		/* on past this match; an empty one moves one character (else the
		 * same empty match forever) */
		at += (size_t)g[0].rm_eo + (g[0].rm_eo == g[0].rm_so);
		flags = REG_NOTBOL; /* ^ is the line's start only */
	}
	free(s);
}

void fl_metric_buffer(const struct fl_metric *m, const char *buf, size_t len,
		      struct fl_metric_found *f)
{
	size_t i = 0;
	while (i < len) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (buf + i)) : len - i;
		char *s = strndup(buf + i, l); /* stops at a NUL byte too */
		if (s)
			fl_metric_line(m, s, f);
		free(s);
		i += l + 1;
	}
}

void fl_metric_stream(const struct fl_metric *m, FILE *in, struct fl_metric_found *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t k;
	while ((k = getline(&line, &cap, in)) >= 0)
		fl_metric_buffer(m, line, (size_t)k, f);
	free(line);
}

const char *fl_metric_problem(const struct fl_metric *m, const struct fl_metric_found *f,
			      char *b, size_t n)
{
	b[0] = '\0';
	if (f->how == FL_METRIC_NONE)
		snprintf(b, n, "no match for --metric '%s' in the program's output", m->text);
	else if (f->how == FL_METRIC_NOT_NUMBER)
		snprintf(b, n, "--metric '%s': its first group matched '%s', not a number", m->text,
			 f->text);
	else if (!(f->value > 0))
		snprintf(b, n, "--metric '%s': the figure is %g: a ratio needs a number > 0",
			 m->text, f->value);
	return b;
}
