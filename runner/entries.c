/* runner/entries.c — what runs at every point (spec.h): --variant's items
 * crossed with --policy's, the control after the baseline, the baseline's
 * canonical label, and --as (a performance mutant under its parent's
 * name). */
#include "runner/spec.h"

#include <stdio.h>
#include <string.h>

#include "runner/cli.h"

static const struct fl_variant *find_variant(const char *name,
					     const struct fl_variant *const *extra, int nextra)
{
	for (int i = 0; i < nextra; i++)
		if (!strcmp(extra[i]->name, name))
			return extra[i];
	return fl_variant_find(name);
}

int fl_variant_list(const char *list, const struct fl_variant *const *extra, int nextra,
		    const struct fl_variant **out)
{
	int nv = 0;
	if (!strcmp(list, "all")) {
		for (int i = 0; i < nextra && nv < FL_MAXLIST; i++)
			out[nv++] = extra[i];
		for (int i = 0; i < fl_nvariants && nv < FL_MAXLIST; i++)
			out[nv++] = fl_variants[i];
		return nv;
	}
	char buf[1024], *items[FL_MAXLIST];
	fl_copy_list("--variant", buf, sizeof buf, list);
	int n = fl_split_list("--variant", buf, items, FL_MAXLIST);
	for (int i = 0; i < n; i++) {
		const struct fl_variant *v = find_variant(items[i], extra, nextra);
		if (!v)
			fl_usage_error("--variant: unknown variant '%s' (see futexlab list)", items[i]);
		for (int k = 0; k < nv; k++)
			if (out[k] == v)
				fl_usage_error("--variant: '%s' given twice", items[i]);
		out[nv++] = v;
	}
	return nv;
}

/* ---- entries: the designs crossed with the waiting policies ---------------- */

/* One item of --variant (or the baseline): a design, and the policy it
 * names (NAME@POLICY: pinned), else park, to be crossed with --policy. */
struct pick {
	const struct fl_variant *v;
	struct fl_policy pol;
	bool pinned;
};

static const struct fl_variant *find_floor(const char *name)
{
	return !strcmp(name, fl_floor_atomic.name) ? &fl_floor_atomic
	       : !strcmp(name, fl_floor_inline.name) ? &fl_floor_inline
	       : !strcmp(name, fl_floor_futex.name) ? &fl_floor_futex : NULL;
}

/* NAME-inline: the design NAME's inline form (workloads/workload.h), or
 * NULL when item is no such name; a design without one is an error. */
static const struct fl_variant *find_form(const char *what, const char *item)
{
	static const char sfx[] = "-inline";
	size_t n = strlen(item), ns = sizeof sfx - 1;
	char name[64];
	if (n <= ns || strcmp(item + n - ns, sfx) || n - ns >= sizeof name)
		return NULL;
	snprintf(name, sizeof name, "%.*s", (int)(n - ns), item);
	const struct fl_variant *v = fl_variant_find(name);
	if (!v)
		return NULL;
	const struct fl_variant *f = fl_inline_form(v);
	if (!f)
		fl_usage_error("%s: %s has no inline form (%s); see futexlab list", what, v->name,
			       v->helper ? "it runs in a helper" : "it defines no .pairs: variant.h");
	return f;
}

/* "NAME" or "NAME@POLICY" (item is modified); floors: a floor's name too. */
static struct pick parse_pick(const char *what, char *item, bool floors)
{
	struct pick k = { NULL, FL_POLICY_PARK_INIT, false };
	char *at = strchr(item, '@'), err[160];
	if (at)
		*at = '\0';
	k.v = fl_variant_find(item);
	if (!k.v && floors)
		k.v = find_floor(item);
	if (!k.v)
		k.v = find_form(what, item);
	if (!k.v)
		fl_usage_error("%s: unknown variant '%s' (see futexlab list)", what, item);
	if (!at)
		return k;
	*at = '@';
	if (!fl_policy_applies(k.v))
		fl_usage_error("%s %s: %s is %s and waits its own way (%s): no policy", what, item,
			       k.v->name, find_floor(k.v->name) ? "a floor" : "a shipped library",
			       k.v->own_policy);
	if (fl_policy_parse(at + 1, &k.pol, err, sizeof err))
		fl_usage_error("%s %s: %s", what, item, err);
	k.pinned = true;
	return k;
}

void fl_spec_baseline(struct fl_spec *s)
{
	char b[sizeof s->blabel];
	if (snprintf(b, sizeof b, "%s", s->baseline) >= (int)sizeof b)
		fl_usage_error("--baseline: '%s' is longer than any entry's label", s->baseline);
	struct pick k = parse_pick("--baseline", b, true);
	fl_entry_label(k.v, &k.pol, s->blabel, sizeof s->blabel);
	s->baseline = s->blabel;
}

/* --variant LIST into picks[] (FL_MAXLIST): items, the first of which may
 * be "all" (the registry's, each crossed), no item twice however its
 * policy is spelled. */
static int pick_list(const char *list, struct pick *picks)
{
	int n = 0;
	char buf[1024], *items[FL_MAXLIST];
	fl_copy_list("--variant", buf, sizeof buf, list);
	int ni = fl_split_list("--variant", buf, items, FL_MAXLIST);
	for (int i = 0; i < ni; i++) {
		if (!strcmp(items[i], "all")) { /* the registry's, each crossed, in its order */
			if (n)
				fl_usage_error("--variant: 'all' goes first");
			for (int r = 0; r < fl_nvariants && n < FL_MAXLIST; r++)
				picks[n++] = (struct pick){ fl_variants[r], FL_POLICY_PARK_INIT, false };
			for (int r = 0; r < fl_nvariants_added && n < FL_MAXLIST; r++) /* --lib's */
				picks[n++] = (struct pick){ fl_variants_added[r], FL_POLICY_PARK_INIT, false };
			continue;
		}
		if (n == FL_MAXLIST)
			fl_usage_error("--variant: more than %d items", FL_MAXLIST);
		struct pick k = parse_pick("--variant", items[i], false);
		for (int j = 0; j < n; j++)
			if (picks[j].v == k.v && picks[j].pinned == k.pinned &&
			    (!k.pinned || (picks[j].pol.kind == k.pol.kind &&
					   picks[j].pol.bound == k.pol.bound)))
				fl_usage_error("--variant: '%s' given twice", items[i]);
		picks[n++] = k;
	}
	return n;
}

/* --policy LIST into pols[] (FL_MAXLIST): each a policy, none twice. */
static int policy_list(const char *list, struct fl_policy *pols)
{
	char buf[1024], *items[FL_MAXLIST], err[160], a[FL_POLICY_TEXT_MAX], b[FL_POLICY_TEXT_MAX];
	fl_copy_list("--policy", buf, sizeof buf, list);
	int n = fl_split_list("--policy", buf, items, FL_MAXLIST);
	for (int i = 0; i < n; i++) {
		if (fl_policy_parse(items[i], &pols[i], err, sizeof err))
			fl_usage_error("--policy: %s", err);
		for (int j = 0; j < i; j++)
			if (!strcmp(fl_policy_format(&pols[i], a, sizeof a),
				    fl_policy_format(&pols[j], b, sizeof b)))
				fl_usage_error("--policy: '%s' given twice", items[i]);
	}
	return n;
}

/* One entry more, and the control right after the baseline's. */
static void push_entry(struct fl_spec *s, const struct fl_variant *v, struct fl_policy p)
{
	for (int control = 0; control < 2; control++) {
		struct fl_entry e = { v, FL_POLICY_PARK_INIT, "" };
		if (fl_policy_applies(v))
			e.policy = p;
		fl_entry_label(v, &e.policy, e.label, sizeof e.label);
		if (control && (!s->control || strcmp(e.label, s->baseline)))
			return;
		if (control)
			snprintf(e.label + strlen(e.label), sizeof e.label - strlen(e.label), "#2");
		for (int i = 0; i < s->nent; i++)
			if (!strcmp(s->ents[i].label, e.label))
				fl_usage_error("%s: the entry %s twice (a NAME@POLICY of --variant is "
					       "also NAME crossed with --policy)", s->cmd, e.label);
		if (s->nent == FL_MAXENTRY - FL_NFLOORS)
			fl_usage_error("%s: more than %d entries at a point (designs x policies, the "
				       "control): fewer designs or policies", s->cmd, FL_MAXENTRY - FL_NFLOORS);
		s->ents[s->nent++] = e;
	}
}

void fl_spec_entries(struct fl_spec *s, const char *vlist, const char *plist, bool add_baseline)
{
	struct fl_policy pols[FL_MAXLIST];
	struct pick picks[FL_MAXLIST];
	int np = policy_list(plist ? plist : "park", pols), nk = pick_list(vlist, picks);
	bool takes = false;
	for (int i = 0; i < nk; i++)
		takes |= !picks[i].pinned && fl_policy_applies(picks[i].v);
	if (plist && !takes)
		fl_usage_error("--policy %s: no design of --variant takes a policy (the shipped "
			       "libraries wait their own way: futexlab list)", plist);
	s->nent = 0;
	for (int i = 0; i < nk; i++) {
		bool cross = !picks[i].pinned && fl_policy_applies(picks[i].v);
		for (int j = 0; j < (cross ? np : 1); j++)
			push_entry(s, picks[i].v, cross ? pols[j] : picks[i].pol);
	}
	for (int i = 0; i < s->nent; i++)
		if (!strcmp(s->ents[i].label, s->baseline))
			return;
	if (add_baseline) { /* the baseline runs whether named or not */
		char b[sizeof s->blabel];
		snprintf(b, sizeof b, "%s", s->baseline);
		struct pick k = parse_pick("--baseline", b, false);
		push_entry(s, k.v, k.pol);
	}
}

/* ---- --as: a performance mutant under its parent's name (test only) ------- */

/* One --as value (a comma list of PARENT=MUTANT) into s->as: the names and
 * what each is, checked here; against the entries in fl_spec_as. */
void fl_spec_as_add(struct fl_spec *s, const char *arg)
{
	char buf[1024], *items[FL_MAXLIST];
	fl_copy_list("--as", buf, sizeof buf, arg);
	int n = fl_split_list("--as", buf, items, FL_MAXLIST);
	for (int i = 0; i < n; i++) {
		char *eq = strchr(items[i], '=');
		if (!eq || eq == items[i] || !eq[1])
			fl_usage_error("--as: '%s' is not PARENT=MUTANT (e.g. negcount=perf_delay_800)",
				       items[i]);
		*eq = '\0';
		const struct fl_variant *p = fl_variant_find(items[i]), *m = fl_variant_find(eq + 1);
		if (!m || !m->perf)
			fl_usage_error("--as %s=%s: %s is not a performance mutant (only the perf_* "
				       "mutants may stand in: futexlab list)", items[i], eq + 1, eq + 1);
		if (!p || p->perf)
			fl_usage_error("--as %s=%s: %s is not a design (see futexlab list)", items[i],
				       eq + 1, items[i]);
		if (p->own_policy || p->helper)
			fl_usage_error("--as %s=%s: %s %s: only a futexlab design's code can be stood in "
				       "for", items[i], eq + 1, p->name, p->helper ? "runs in a helper process"
				       : "is a shipped library");
		for (int k = 0; k < s->nas; k++)
			if (s->as[k].parent == p)
				fl_usage_error("--as: %s given twice", p->name);
		if (s->nas == (int)(sizeof s->as / sizeof s->as[0]))
			fl_usage_error("--as: more than %d pairs", s->nas);
		s->as[s->nas++] = (struct fl_as){ p, m };
	}
}

/* Whether m may stand in for p: m is p with one cost added (its declared
 * parent), with p's capacity and promises, so that a point's skips, the
 * tokens it may hold and the detector's exclusions stay p's. NULL, or why
 * not. */
static const char *cannot_stand_in(const struct fl_variant *p, const struct fl_variant *m)
{
	if (strcmp(m->perf->parent, p->name))
		return "it is another design with a cost added (its parent in futexlab list "
		       "--mutants)";
	if (m->value_max != p->value_max)
		return "its maximum value differs (the points' skips would)";
	if (m->flags != p->flags)
		return "its promises differ (variant.h flags: the tests' and the detector's "
		       "exclusions would)";
	return NULL;
}

void fl_spec_as(struct fl_spec *s)
{
	for (int k = 0; k < s->nas; k++) {
		const struct fl_variant *p = s->as[k].parent, *m = s->as[k].mutant;
		const char *why = cannot_stand_in(p, m);
		if (why)
			fl_usage_error("--as %s=%s: %s cannot stand in for %s: %s", p->name, m->name,
				       m->name, p->name, why);
		int swapped = 0;
		for (int i = 0; i < s->nent; i++)
			if (s->ents[i].v == p) { /* the label stays the parent's: every row says it */
				s->ents[i].v = m;
				swapped++;
			}
		if (!swapped)
			fl_usage_error("--as %s=%s: %s is not among the chosen variants (--variant)",
				       p->name, m->name, p->name);
	}
}

/* A point where a stand-in would be skipped and its parent run (or the
 * reverse: waitany, which negcount runs and no mutant can) would not be
 * the parent's point: a usage error, the workload named. */
void fl_spec_as_check(const struct fl_spec *s, const struct fl_point *pt)
{
	for (int k = 0; k < s->nas; k++) {
		const struct fl_variant *p = s->as[k].parent, *m = s->as[k].mutant;
		const char *wp = fl_workload_unavailable(pt->w, p, &pt->p);
		const char *wm = fl_workload_unavailable(pt->w, m, &pt->p);
		if (!wp != !wm)
			fl_usage_error("--as %s=%s: at %s T=%d %s cannot stand in for %s (%s): drop "
				       "that workload or the --as", p->name, m->name, pt->w->name,
				       pt->p.threads, m->name, p->name,
				       wm ? wm : "the parent is skipped there, the mutant would run");
	}
}
