/* report/gate.c — see gate.h. */
#include "report/gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/catalog.h"
#include "fail/fail.h"
#include "model/stats_text.h"

static unsigned parse(const char *s)
{
	if (!strcmp(s, "slower"))
		return FL_GATE_SLOWER;
	if (!strcmp(s, "faster"))
		return FL_GATE_FASTER;
	if (!strcmp(s, "any"))
		return FL_GATE_SLOWER | FL_GATE_FASTER;
	fl_bad_input("compare: --fail-on takes slower, faster or any, not '%s'", s);
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
	if (!(bit & g->rule.fail_on) || !fl_only_match(g->rule.only, c->variant) ||
	    fabs(log(c->after / c->before)) < log1p(g->rule.threshold))
		return;
	bool own_moved = c->own_apart && (c->verdict == FL_SLOWER) == (c->own[1] > c->own[0]);
	if (c->own[0] > 0 && !own_moved) {
		g->excused++;
		fprintf(g->lines, "fail-on %s: not counted: %s %s ratio %.3g -> %.3g, but its own "
			"time %.4g -> %.4g ns did not move that way beyond the noise: the baseline "
			"moved\n", g->rule.name, c->point, c->variant, c->before, c->after, c->own[0],
			c->own[1]);
		return;
	}
	g->failed++;
	char v[4][32], lo[2][32], hi[2][32];
	fig(v[0], sizeof v[0], c->decimals, c->before);
	fig(v[1], sizeof v[1], c->decimals, c->after);
	for (int i = 0; i < 2; i++) {
		fig(lo[i], sizeof lo[i], c->decimals, c->lo[i]);
		fig(hi[i], sizeof hi[i], c->decimals, c->hi[i]);
	}
	fprintf(g->lines, "fail-on %s: %s %s %s [%s, %s] -> %s [%s, %s] %s (%+.1f%%)\n", g->rule.name,
		c->point, c->variant, v[0], lo[0], hi[0], v[1], lo[1], hi[1],
		fl_verdict_name(c->verdict), 100 * (c->after / c->before - 1));
}

int fl_gate_end(struct fl_gate *g, FILE *f)
{
	fclose(g->lines);
	fputs(g->buf, f);
	free(g->buf);
	const char *what = g->rule.fail_on == (FL_GATE_SLOWER | FL_GATE_FASTER) ? "slower or faster"
			   : g->rule.name;
	fflush(f);
	if (!g->compared)
		fl_bad_input("compare --fail-on: no pair was compared (the files share no "
			       "(point, variant) that ran in both)");
	fprintf(f, "fail-on %s: %d of %d pairs %s beyond the noise and by >= %.0f%%%s%s (%d where "
		   "only the baseline moved): %s\n", g->rule.name, g->failed, g->compared, what,
		100 * g->rule.threshold, g->rule.only ? ", of " : "", g->rule.only ? g->rule.only : "", g->excused,
		g->failed ? "FAIL (exit 1)" : "pass");
	fprintf(f, "note: two single runs: a run's intervals cover its own rounds, not where a "
		   "rerun lands; judge against\nthe machine's history (--db DB --against) or "
		   "pooled runs (--pool ... --against)\n");
	return g->failed ? 1 : 0;
}

void fl_gate_parse(struct fl_gate_rule *r, const char *s)
{
	r->fail_on = parse(s);
	r->name = s;
}

struct fl_change_sink fl_gate_sink(struct fl_gate *g)
{
	if (g->rule.fail_on && !g->lines && !(g->lines = open_memstream(&g->buf, &g->len)))
		fl_bad_input("compare: out of memory");
	return (struct fl_change_sink){ gate_pair, g };
}

bool fl_only_match(const char *only, const char *label)
{
	if (!only)
		return true;
	enum fl_kind k = fl_catalog_kind(label);
	if (!strcmp(only, "designs"))
		return k == FL_KIND_DESIGN;
	if (!strcmp(only, "libraries"))
		return k == FL_KIND_LIBRARY;
	size_t at = strcspn(label, "@");
	for (const char *s = only; *s;) {
		size_t l = strcspn(s, ",");
		if ((l == strlen(label) || l == at) && !strncmp(s, label, l))
			return true;
		s += l + (s[l] == ',');
	}
	return false;
}

void fl_only_check(const char *only)
{
	if (!*only || only[0] == ',' || strstr(only, ",,") || only[strlen(only) - 1] == ',')
		fl_bad_input("compare: --only takes designs, libraries or a list of names, "
			       "not '%s'", only);
}
