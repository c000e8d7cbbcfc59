/* report/gate.c — see gate.h. */
#include "report/gate.h"

#include <stdlib.h>
#include <string.h>

#include "report/usage.h"
#include "report/stats_text.h"

static unsigned parse(const char *s)
{
	if (!strcmp(s, "slower"))
		return FL_GATE_SLOWER;
	if (!strcmp(s, "faster"))
		return FL_GATE_FASTER;
	if (!strcmp(s, "any"))
		return FL_GATE_SLOWER | FL_GATE_FASTER;
	fl_usage_error("compare: --fail-on takes slower, faster or any, not '%s'", s);
}

static void fig(char *b, size_t n, int decimals, double v)
{
	if (decimals >= 0)
		snprintf(b, n, "%.*f", decimals, v);
	else
		snprintf(b, n, "%.6g", v);
}

static void gate_pair(void *arg, const struct fl_change *c)
{
	struct fl_gate *g = arg;
	g->compared++;
	unsigned bit = c->verdict == FL_SLOWER ? FL_GATE_SLOWER
		       : c->verdict == FL_FASTER ? FL_GATE_FASTER : 0;
	if (!(bit & g->fail_on))
		return;
	g->failed++;
	char v[4][32], lo[2][32], hi[2][32];
	fig(v[0], sizeof v[0], c->decimals, c->before);
	fig(v[1], sizeof v[1], c->decimals, c->after);
	for (int i = 0; i < 2; i++) {
		fig(lo[i], sizeof lo[i], c->decimals, c->lo[i]);
		fig(hi[i], sizeof hi[i], c->decimals, c->hi[i]);
	}
	fprintf(g->lines, "fail-on %s: %s %s %s [%s, %s] -> %s [%s, %s] %s (%+.1f%%)\n", g->name,
		c->point, c->variant, v[0], lo[0], hi[0], v[1], lo[1], hi[1],
		fl_verdict_name(c->verdict), 100 * (c->after / c->before - 1));
}

int fl_gate_end(struct fl_gate *g, FILE *f)
{
	fclose(g->lines);
	fputs(g->buf, f);
	free(g->buf);
	const char *what = g->fail_on == (FL_GATE_SLOWER | FL_GATE_FASTER) ? "slower or faster"
			   : g->name;
	fflush(f);
	if (!g->compared)
		fl_usage_error("compare --fail-on: no pair was compared (the files share no "
			       "(point, variant) that ran in both)");
	fprintf(f, "fail-on %s: %d of %d pairs %s beyond the noise: %s\n", g->name, g->failed,
	       g->compared, what, g->failed ? "FAIL (exit 1)" : "pass");
	return g->failed ? 1 : 0;
}

void fl_gate_parse(struct fl_gate *g, const char *s)
{
	g->fail_on = parse(s);
	g->name = s;
}

struct fl_change_sink fl_gate_sink(struct fl_gate *g)
{
	if (g->fail_on && !g->lines && !(g->lines = open_memstream(&g->buf, &g->len)))
		fl_usage_error("compare: out of memory");
	return (struct fl_change_sink){ gate_pair, g };
}
