/* harness/spec.c — argv -> spec -> points (spec.h).
 *
 * `run` and `sweep` take the same options from one table; `run` is a sweep
 * whose axes usually hold one value each. A preset (sweep --preset) is a
 * list of groups, each a cartesian product, so pool can sweep threads while
 * uncontended does not. Axes that do not apply to a workload collapse for
 * it (uncontended ignores --threads; only workloads that use tokens read
 * --tokens, only those that spread over semaphores --sems; a --sems above 1
 * that no workload of the group reads is a usage error, not a silent 1). A
 * combination a variant cannot run becomes a skipped row with the reason;
 * a workload none of whose combinations can run is a bad specification
 * (exit 2). The waiting policies (--policy) are not an axis of the points
 * but of their entries, crossed with the designs (fl_spec_entries): every
 * policy of a design runs in the same rounds as the baseline, so its ratio
 * is paired like any design's. */
#include "harness/spec.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/cli.h"
#include "lib/cpuset.h"
#include "lib/prctl.h"
#include "lib/wake.h"
#include "report/xalloc.h"

/* The presets: each a list of groups (one cartesian product each), in one
 * table. quick is the README's default — every variant on the main
 * workloads, and the adaptive waiting policy beside six of them, under a
 * minute on 2 cores: 14 timed rounds of 0.013 s at 10 points, 23 entries,
 * and 3 probed rounds among them (the kernel's counts: options.md). Many
 * short rounds beat few long ones here: a round then spans ~0.3 s, so the
 * two reps of a pair see nearly the same machine, and the interval of a
 * median over 14 rounds ([x(3), x(12)], 98%) is narrow. Measured on the
 * 2-vCPU VM (control resolution, uncontended / pool T=4 K=1): 10 x 0.03 s
 * gave +-3.3% / +-10.0%, 20 x 0.015 s +-1.8% / +-4.1% (with 17 entries:
 * 20 x 0.015 s with 23 took 76 s). standard is quick's points and entries
 * with the resolution bought (options.md, "Buying resolution"): 10 timed
 * rounds first, reps stretched to hold 8000 blocking ops (pingpong's
 * control, 12 rounds: +-21.7% at 20 ms reps, +-7.0% at 80 ms), then rounds
 * where the control is worst, within 270 s. full is the reference sweep
 * (results/): every axis that tells designs apart. */
static const struct {
	const char *preset;
	struct fl_group g;
} preset_groups[] = {
	{ "quick", { "uncontended,pingpong", "1", "1", "exact", "1" } },
	{ "quick", { "pool", "2,4,8", "1", "exact", "1" } },
	{ "quick", { "prodcons", "4", "4", "exact", "1" } },
	{ "quick", { "barrier", "4", "1", "exact,all", "1" } },
	{ "quick", { "timeouts", "4", "1", "exact", "1" } },
	{ "quick", { "oversub", "32", "2", "exact", "1" } },
	{ "full", { "uncontended,pingpong", "1", "1", "exact", "1" } },
	{ "full", { "pool", "1,2,4,8,16", "1,4", "exact,one,all", "1" } },
	{ "full", { "prodcons", "2,4,8", "1,16", "exact", "1" } },
	{ "full", { "barrier", "2,4,8,16", "1", "exact,one,all", "1" } },
	{ "full", { "timeouts", "2,8,32", "1", "exact", "1" } },
	{ "full", { "oversub", "16,64", "1,2", "exact,all", "1" } },
};
/* quick's entries: every design as written and every library, and the
 * adaptive waiting policy (variants/policy.h) on each design whose protocol
 * is its own — negcount stands for lock1, portable, futex2 and uring, its
 * algorithm on other sleeps, whose adaptive rows would re-try the same
 * trywait (six rows more: the round stays within the minute). */
#define QUICK_VARIANTS "all,negcount@adaptive,split@adaptive,musl@adaptive,glibc64@adaptive," \
		       "textbook@adaptive,gosema@adaptive"
static const struct {
	const char *name;
	int rounds, warmup;
	double duration;
	const char *variants;           /* the default --variant */
	const char *groups;             /* whose points (preset_groups) */
	int probe_rounds;               /* --probe-rounds */
	double target_pct, budget_s;    /* --target-res, --res-budget (0: off) */
	bool min_blocking;              /* --min-blocking */
} presets[] = {
	{ "quick", 14, 1, 0.013, QUICK_VARIANTS, "quick", 3, 0, 0, false },
	{ "standard", 10, 1, 0.02, QUICK_VARIANTS, "quick", 3, 5, 270, true },
	{ "full", 20, 1, 0.05, "all", "full", 4, 0, 0, false },
};

/* A list option into a writable buffer: one longer than the buffer is a
 * usage error, never cut short (a cut "...,12" would silently run "...,1"). */
static void copy_list(const char *what, char *buf, size_t size, const char *list)
{
	if (snprintf(buf, size, "%s", list) >= (int)size)
		fl_usage_error("%s: list longer than %zu bytes", what, size - 1);
}

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
	copy_list("--variant", buf, sizeof buf, list);
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
	copy_list("--variant", buf, sizeof buf, list);
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
	copy_list("--policy", buf, sizeof buf, list);
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
static void as_option(struct fl_spec *s, const char *arg)
{
	char buf[1024], *items[FL_MAXLIST];
	copy_list("--as", buf, sizeof buf, arg);
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
static void as_point_check(const struct fl_spec *s, const struct fl_point *pt)
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

int fl_hash_list(char *list, char **items, int max)
{
	int n = fl_split_list("--hash", list, items, max);
	for (int i = 0; i < n; i++) {
		struct fl_hash_mode m;
		const char *why = fl_hash_parse(items[i], &m);
		if (why)
			fl_usage_error("--hash: '%s': %s", items[i], why);
		for (int j = 0; j < i; j++) {
			/* the same mode however spelled (private:16, private:016):
			 * one child per mode */
			struct fl_hash_mode o;
			if (fl_hash_parse(items[j], &o) || o.kind != m.kind || o.slots != m.slots)
				continue;
			if (!strcmp(items[i], items[j]))
				fl_usage_error("--hash: '%s' given twice", items[i]);
			fl_usage_error("--hash: '%s' is '%s' again", items[i], items[j]);
		}
	}
	return n;
}

/* The preset's default --variant, or "all". */
static const char *preset_variants(const struct fl_spec *s)
{
	for (size_t i = 0; s->preset && i < sizeof presets / sizeof presets[0]; i++)
		if (!strcmp(s->preset, presets[i].name))
			return presets[i].variants;
	return "all";
}

/* The probed rounds and buying resolution: the preset's unless given;
 * bad combinations are usage errors. */
static void resolution_finish(struct fl_spec *s)
{
	for (size_t i = 0; s->preset && i < sizeof presets / sizeof presets[0]; i++)
		if (!strcmp(s->preset, presets[i].name)) {
			if (s->probe_rounds < 0 && s->probes == FL_PROBES_DEFAULT)
				s->probe_rounds = presets[i].probe_rounds;
			if (s->target_res < 0 && s->res_budget_ns < 0 && presets[i].target_pct > 0) {
				s->target_res = presets[i].target_pct / 100;
				s->res_budget_ns = (int64_t)(presets[i].budget_s * 1e9);
			}
			if (s->min_blocking < 0)
				s->min_blocking = presets[i].min_blocking;
		}
	if (s->probe_rounds > 0 && s->probes == FL_PROBES_OFF)
		fl_usage_error("%s: --probe-rounds counts with the probes: drop --no-probes", s->cmd);
	if (s->probe_rounds > 0 && s->probes == FL_PROBES_ON)
		fl_usage_error("%s: --probes probes every round, --probe-rounds %d spreads probed "
			       "rounds of their own: give one", s->cmd, s->probe_rounds);
	if (s->target_res >= 0 && s->res_budget_ns < 0)
		fl_usage_error("%s: --target-res needs --res-budget SECONDS (what the run may "
			       "spend reaching it)", s->cmd);
	if (s->res_budget_ns >= 0 && s->target_res < 0)
		s->target_res = 0.05;
	if (s->target_res > 0 && !s->control)
		fl_usage_error("%s: --target-res is the control's resolution: drop --no-control",
			       s->cmd);
	if (s->target_res < 0)
		s->target_res = 0;
	if (s->res_budget_ns < 0)
		s->res_budget_ns = 0;
	if (s->min_blocking < 0)
		s->min_blocking = s->target_res > 0;
}

void fl_spec_probe_rounds(struct fl_spec *s)
{
	if (s->probe_rounds >= 0)
		return;
	int n = s->rounds / 3;
	s->probe_rounds = s->probes != FL_PROBES_DEFAULT ? 0 : n < 1 ? 1 : n > 3 ? 3 : n;
}

/* Presets and the default seed: what is left after the options. */
static void finish(struct fl_spec *s, const struct fl_spec_defaults *d, bool axes_given,
		   int64_t duration_ns, bool seed_given)
{
	if (s->preset && axes_given)
		fl_usage_error("%s: --preset sets the axes; drop --workloads/--threads/--tokens/"
			       "--sems/--wake", s->cmd);
	if (s->base.ops && duration_ns > 0)
		fl_usage_error("%s: give --duration or --ops, not both", s->cmd);
	if (s->base.ops && s->budget_ns)
		fl_usage_error("%s: --budget caps durations; it does not apply to --ops", s->cmd);
	/* min_blocking 1 here: --min-blocking given (a preset's is set later) */
	if (s->min_blocking == 1 && s->base.ops)
		fl_usage_error("%s: --min-blocking stretches durations; it does not apply to --ops",
			       s->cmd);
	if (s->min_blocking == 1 && s->warmup == 0)
		fl_usage_error("%s: --min-blocking judges the warm-up reps: it needs --warmup 1 or "
			       "more", s->cmd);
	double dur = d->duration;
	if (s->preset)
		s->ngroups = 0;
	const char *groups = s->preset;
	bool cpus_env;
	int cpus = s->preset ? fl_cpus_present(&cpus_env) : 1;
	if (cpus < 0)
		fl_usage_error("FUTEXLAB_CPUS: not a CPU count 1..4096 (cpuset.h)");
	for (size_t i = 0; s->preset && i < sizeof presets / sizeof presets[0]; i++)
		if (!strcmp(s->preset, presets[i].name))
			groups = presets[i].groups;
	for (size_t i = 0; s->preset && i < sizeof preset_groups / sizeof preset_groups[0]; i++)
		if (!strcmp(groups, preset_groups[i].preset) &&
		    s->ngroups < (int)(sizeof s->pgroups / sizeof s->pgroups[0])) {
			struct fl_group *g = &s->pgroups[s->ngroups]; /* threads scaled: cpuset.h */
			*g = preset_groups[i].g;
			if (!fl_threads_scaled(g->threads, cpus, s->pthreads[s->ngroups], 64))
				g->threads = s->pthreads[s->ngroups];
			s->ngroups++;
		}
	if (s->preset)
		s->groups = s->pgroups;
	for (size_t i = 0; s->preset && i < sizeof presets / sizeof presets[0]; i++)
		if (!strcmp(s->preset, presets[i].name)) {
			s->rounds = s->rounds < 0 ? presets[i].rounds : s->rounds;
			s->warmup = s->warmup < 0 ? presets[i].warmup : s->warmup;
			dur = presets[i].duration;
		}
	resolution_finish(s);
	if (s->rounds < 0)
		s->rounds = d->rounds;
	if (s->warmup < 0)
		s->warmup = d->warmup;
	fl_spec_probe_rounds(s);
	if (duration_ns < 0)
		duration_ns = (int64_t)(dur * 1e9);
	if (s->budget_ns && s->budget_ns / (s->warmup + s->rounds) < duration_ns) {
		duration_ns = s->budget_ns / (s->warmup + s->rounds);
		if (duration_ns < 1000000)
			fl_usage_error("%s: --budget leaves under 1 ms per rep for %d reps", s->cmd,
				       s->warmup + s->rounds);
	}
	s->base.duration_ns = s->base.ops ? 0 : duration_ns;
	if (!seed_given) /* recorded in the CSV: any run can be repeated exactly */
		s->seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
	fl_spec_baseline(s);
	char h[1024], *items[FL_MAXLIST];
	copy_list("--hash", h, sizeof h, s->hlist);
	fl_hash_list(h, items, FL_MAXLIST); /* validated before anything runs */
}

/* The options of run and sweep: one table, the help text in it (each
 * command gives only its synopsis and notes: cmd_run.c, cmd_sweep.c). */
#define REPS_ALIAS 0x107 /* --reps: the old name of --rounds */
#define POLICY_OPT 0x108
#define SPIN_ALIAS 0x109 /* --spin N,M: the old form of --policy spin:N,spin:M */
#define AS_OPT 0x110     /* --as PARENT=MUTANT */
#define LIB_OPT 0x111    /* --lib BASE+TAG=PATH: proc/userlib.h */
static const struct fl_option opts[] = {
	{ "preset", required_argument, 'p', "NAME", "the axes, rounds, duration and entries of "
	  "a preset: quick (what scripts/bench runs), standard (+-5% aimed at every point), full "
	  "(the reference sweep); each one's settings: 'presets' below" },
	{ "variant", required_argument, 'v', "LIST", "variants, comma separated, or 'all' "
	  "(default all; also --variants); NAME@POLICY: that design under that policy alone, "
	  "beside the --policy crossing" },
	{ "variants", required_argument, 'v', NULL, NULL },
	{ "workload", required_argument, 'w', "LIST", "workloads, comma separated, or 'all' "
	  "(default all; also --workloads)" },
	{ "workloads", required_argument, 'w', NULL, NULL },
	{ "threads", required_argument, 't', "LIST", "thread counts, 1..1024 each (default: run "
	  "4, sweep 1,2,4,8; ignored by fixed-thread workloads)" },
	{ "tokens", required_argument, 'k', "LIST", "initial tokens / buffer capacity, "
	  "1..1000000 each (default 1)" },
	{ "sems", required_argument, 0x103, "LIST", "pool/oversub: spread the threads over N "
	  "semaphores of K tokens each (thread i on i % N), 1..64 each, e.g. 1,2,4,8 (default 1; "
	  "other workloads: 1)" },
	{ "wake", required_argument, 'W', "LIST", "how a release wakes: exact, one, all, a comma "
	  "list (default exact)" },
	{ "policy", required_argument, POLICY_OPT, "LIST", "waiting policies, comma separated: "
	  FL_POLICY_NAMES " (default park: the designs as written); each design runs once per "
	  "policy, as NAME@POLICY (park: NAME); the shipped libraries wait their own way, once "
	  "(futexlab list)" },
	{ "spin", required_argument, SPIN_ALIAS, NULL, NULL },
	{ "hash", required_argument, 'X', "LIST", "futex hash modes auto|global|private:N; more "
	  "than one: the run once per mode, each in a process of its own (default auto; kernel "
	  "6.16+)" },
	{ "hold", required_argument, 'H', "NS", "pool/oversub: busy work while holding a token, "
	  "ns (default 0)" },
	{ "think", required_argument, 'T', "NS", "pool/oversub: busy work between tokens, ns "
	  "(default 0)" },
	{ "duration", required_argument, 'd', "S", "seconds per rep (default 0.1)" },
	{ "ops", required_argument, 'o', "N", "operations per rep instead of a duration" },
	{ "budget", required_argument, 'b', "S", "cap per point and variant: the rep's duration "
	  "becomes S/(warmup+rounds)" },
	{ "probe-rounds", required_argument, 0x10a, "N", "N probed rounds, 0..100, spread "
	  "through the timed ones, which then run with the collector detached: the time "
	  "untaxed, the kernel's counts from the probed rounds (default: rounds/3, 1..3; "
	  "presets: quick 3, standard 3, full 4; 0: every round probed, as --probes)" },
	{ "target-res", required_argument, 0x10b, "PCT", "after the first rounds, more rounds "
	  "to the points whose control band is wider than x/÷(1 + PCT/100), 0.5..50 (needs "
	  "--res-budget; default 5 with it)" },
	{ "res-budget", required_argument, 0x10c, "S", "seconds the whole run may take buying "
	  "resolution (--target-res), 1..86400" },
	{ "min-blocking", no_argument, 0x10d, NULL, "stretch each point's reps (up to 4x) to "
	  "hold its workload's minimum of blocking ops, judged in the warm-up (default with "
	  "--res-budget and the standard preset)" },
	{ "no-min-blocking", no_argument, 0x10e, NULL, "no stretching (with --res-budget or "
	  "the standard preset)" },
	{ "rounds", required_argument, 'r', "R", "measured rounds per point, 1..1000 (default "
	  "10): a round runs every variant of the point once, in a fresh random order" },
	{ "reps", required_argument, REPS_ALIAS, NULL, NULL },
	{ "warmup", required_argument, 'u', "N", "unmeasured rounds first, 0..100 (default 1)" },
	{ "seed", required_argument, 's', "N", "the order of the rounds (default: from the "
	  "clock; in the CSV)" },
	{ "baseline", required_argument, 'B', "NAME", "the entry ratios are taken against: a "
	  "variant or NAME@POLICY (default glibc)" },
	{ "no-control", no_argument, 'C', NULL, "do not run the baseline twice per round "
	  "(BASELINE#2: the A/A row)" },
	{ "no-floors", no_argument, 'F', NULL, "omit the floor reference rows (floor-atomic, "
	  "floor-futex; floor-inline at uncontended)" },
	{ "csv", required_argument, 'c', "FILE", "one row per rep (atomic rewrite; Ctrl-C keeps "
	  "finished rows)" },
	{ "pin", required_argument, 'P', "CPUS", "run every thread on these CPUs "
	  "(sched_setaffinity): a list (0,1 or 0-3), node:N (node N's) or spread (every "
	  "node's)" },
	{ "quiet", no_argument, 'q', NULL, "nothing on stderr but errors (no progress, no load "
	  "warning)" },
	{ "probes", no_argument, 0x100, NULL, "count futex calls in the kernel in every round, "
	  "the times then taxed by the collector (eBPF; default: in --probe-rounds' rounds of "
	  "their own, when root and BPF work), as extra CSV columns" },
	{ "no-probes", no_argument, 0x101, NULL, "do not load the eBPF collector" },
	{ "bpftrace", required_argument, 0x102, "SCRIPT", "run a bpftrace script (probes/*.bt) "
	  "on this process during the whole run; its output goes beside the CSV" },
	{ "latency", no_argument, 0x104, NULL, "time every blocking op (latency percentiles, "
	  "starvation) in every workload that can; default: where it costs <= 5%" },
	{ "no-latency", no_argument, 0x105, NULL, "time nothing (fairness counts stay)" },
	{ "stranded-ms", required_argument, 0x106, "N", "a waiter asleep while its semaphore has "
	  "had a token for N ms is a lost wakeup: an error row (default 50; 0: off)" },
	{ "perf", no_argument, 'e', NULL, "perf counters per rep as CSV columns (empty: "
	  "unsupported)" },
	{ "detail", no_argument, 0x10f, NULL, "the full tables (per point every row, the "
	  "evidence, the libraries) on the screen before the summary; always in X.txt beside "
	  "--csv X.csv" },
	{ "dry-run", no_argument, 'n', NULL, "list the points and skips with the time estimate; "
	  "run nothing" },
	{ "as", required_argument, AS_OPT, "P=M", "test only: run performance mutant M's code "
	  "wherever design P runs (each policy), every row still labelled P and the CSV marked "
	  "(# as:); repeatable or a comma list (the gate's and the history's ground truth)" },
	{ "lib", required_argument, LIB_OPT, "B+T=PATH", "a row B+T: the library row B (glibc, "
	  "cxx-llvm, cxx-gnu) on the build at PATH (a glibc build or install, a directory with "
	  "libc++.so.1 or libstdc++.so.6), in a helper on that library; in 'all', else named in "
	  "--variant; repeatable" },
	{ "help", no_argument, 'h', NULL, "this text (also -h)" },
};
#define NOPTS ((int)(sizeof opts / sizeof opts[0]))

/* --spin N,M (the old form of --policy): each N is spin:N, 0 park. (Its
 * note is printed once the whole command line has parsed: bad input stays
 * one line.) */
static void spin_alias(struct fl_spec *s, const char *list)
{
	char buf[1024], *items[FL_MAXLIST];
	copy_list("--spin", buf, sizeof buf, list);
	int n = fl_split_list("--spin", buf, items, FL_MAXLIST);
	size_t l = 0;
	for (int i = 0; i < n; i++) {
		int v = (int)fl_parse_int("--spin", items[i], 0, FL_POLICY_BOUND_MAX);
		char *at = s->spin_policies + l;
		size_t room = sizeof s->spin_policies - l;
		l += (size_t)(v ? snprintf(at, room, "%sspin:%d", i ? "," : "", v)
			      : snprintf(at, room, "%spark", i ? "," : ""));
	}
	s->policies = s->spin_policies;
}

/* --probe-rounds, --target-res, --res-budget, --min-blocking */
static void resolution_option(struct fl_spec *s, int c, const char *arg)
{
	switch (c) {
	case 0x10a: s->probe_rounds = (int)fl_parse_int("--probe-rounds", arg, 0, 100); break;
	case 0x10b: s->target_res = fl_parse_double("--target-res", arg, 0.5, 50) / 100; break;
	case 0x10c:
		s->res_budget_ns = fl_parse_seconds("--res-budget", arg, 86400);
		if (s->res_budget_ns < 1000000000)
			fl_usage_error("--res-budget: '%s' is under 1 s", arg);
		break;
	case 0x10d: s->min_blocking = 1; break;
	default: s->min_blocking = 0; break;
	}
}

#define NPRESETS (sizeof presets / sizeof presets[0])

void fl_preset_names(char *buf, size_t size, const char *sep)
{
	size_t l = 0;
	buf[0] = 0;
	for (size_t i = 0; i < NPRESETS && l < size; i++)
		l += (size_t)snprintf(buf + l, size - l, "%s%s", i ? sep : "", presets[i].name);
}

/* --preset NAME: one of the table's, else one line naming them. */
static const char *known_preset(const char *name)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (!strcmp(name, presets[i].name))
			return name;
	char names[128];
	fl_preset_names(names, sizeof names, ", ");
	fl_usage_error("--preset: unknown preset '%s' (%s)", name, names);
}

/* The presets' settings, from their table (what the docs quote). */
static void presets_usage(FILE *f)
{
	fprintf(f, "presets (spec.c; an option given overrides its setting):\n");
	for (size_t i = 0; i < NPRESETS; i++) {
		fprintf(f, "  %-9s %d timed rounds of %g s after %d warm-up, %d probed; points: %s's",
			presets[i].name, presets[i].rounds, presets[i].duration, presets[i].warmup,
			presets[i].probe_rounds, presets[i].groups);
		if (presets[i].target_pct > 0)
			fprintf(f, "\n            --target-res %g --res-budget %g", presets[i].target_pct,
				presets[i].budget_s);
		if (presets[i].min_blocking)
			fprintf(f, " --min-blocking");
		fprintf(f, "\n            --variant %s\n", presets[i].variants);
	}
}

void fl_spec_usage(FILE *f, const struct fl_spec_defaults *d)
{
	fl_options_usage(f, d->synopsis, opts, NOPTS, NULL);
	presets_usage(f);
	if (d->notes)
		fputs(d->notes, f);
}

/* Everything an option may change, before the options. */
static void spec_init(struct fl_spec *s, const char *cmd, const struct fl_spec_defaults *d,
		      int argc, char **argv)
{
	memset(s, 0, sizeof *s);
	s->cmd = cmd;
	s->cli = (struct fl_group){ "all", d->threads, "1", "exact", "1" };
	s->groups = &s->cli;
	s->ngroups = 1;
	s->rounds = s->warmup = -1;
	s->baseline = "glibc";
	s->floors = s->control = true;
	s->probes = FL_PROBES_DEFAULT;
	s->probe_rounds = s->min_blocking = -1;
	s->target_res = -1;
	s->res_budget_ns = -1;
	s->latency = -1;
	s->base = (struct fl_params){ .threads = 1, .tokens = 1,
				      .stranded_ns = FL_STRANDED_NS_DEFAULT };
	s->argc = argc;
	s->argv = argv;
	snprintf(s->hlist, sizeof s->hlist, "auto");
}

int fl_spec_parse(struct fl_spec *s, const char *cmd, const struct fl_spec_defaults *d,
		  int argc, char **argv)
{
	spec_init(s, cmd, d, argc, argv);
	const char *vlist = NULL; /* NULL: the preset's, or all */
	bool axes_given = false, seed_given = false, policy_given = false, spin_given = false;
	int64_t duration_ns = -1;
	struct option lopts[NOPTS + 1];
	fl_options_getopt(opts, NOPTS, lopts);
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		switch (c) {
		case 'p': s->preset = known_preset(optarg); break;
		case 'v': vlist = optarg; break;
		case 'w': s->cli.workloads = optarg; axes_given = true; break;
		case 't': s->cli.threads = optarg; axes_given = true; break;
		case 'k': s->cli.tokens = optarg; axes_given = true; break;
		case 'W': s->cli.wake = optarg; axes_given = true; break;
		case POLICY_OPT: s->policies = optarg; policy_given = true; break;
		case SPIN_ALIAS: spin_alias(s, optarg); spin_given = true; break;
		case 0x103: s->cli.sems = optarg; axes_given = true; break;
		case 'X': copy_list("--hash", s->hlist, sizeof s->hlist, optarg); break;
		case 'H': s->base.hold_ns = fl_parse_int("--hold", optarg, 0, 1000000000); break;
		case 'T': s->base.think_ns = fl_parse_int("--think", optarg, 0, 1000000000); break;
		case REPS_ALIAS: fl_reps_deprecated(); __attribute__((fallthrough));
		case 'r': s->rounds = (int)fl_parse_int("--rounds", optarg, 1, 1000); break;
		case 'u': s->warmup = (int)fl_parse_int("--warmup", optarg, 0, 100); break;
		case 'd': duration_ns = fl_parse_seconds("--duration", optarg, 3600); break;
		case 'o': s->base.ops = fl_parse_int("--ops", optarg, 1, INT64_MAX / 2); break;
		case 'b': s->budget_ns = fl_parse_seconds("--budget", optarg, 86400); break;
		case 'P': s->pin = optarg; break;
		case 'c': s->csv_path = optarg; break;
		case 'B': s->baseline = optarg; break;
		case 'F': s->floors = false; break;
		case 'C': s->control = false; break;
		case 's': s->seed = (uint64_t)fl_parse_int("--seed", optarg, 0, INT64_MAX);
			  seed_given = true; break;
		case 'e': s->perf = true; break;
		case 'q': s->quiet = true; break;
		case 0x10f: s->detail = true; break;
		case AS_OPT: as_option(s, optarg); break;
		case LIB_OPT: fl_lib_option(optarg); break;
		case 'n': s->dry = true; break;
		case 0x100: s->probes = FL_PROBES_ON; break;
		case 0x101: s->probes = FL_PROBES_OFF; break;
		case 0x102: s->bt_script = optarg; fl_bpftrace_check(optarg); break;
		case 0x104: case 0x105: s->latency = c == 0x104; break;
		case 0x10a: case 0x10b: case 0x10c: case 0x10d: case 0x10e:
			resolution_option(s, c, optarg);
			break;
		case 0x106: /* the stranded-waiter threshold; 0: off */
			s->base.stranded_ns = fl_parse_int("--stranded-ms", optarg, 0, 3600000) * 1000000;
			break;
		case 'h':
			if (d->synopsis)
				fl_spec_usage(stdout, d);
			return 1;
		case ':': fl_usage_error("%s: %s needs a value", cmd, argv[optind - 1]);
		default:
			fl_usage_error("%s: unknown option '%s' (see futexlab %s --help)", cmd,
				       argv[optind - 1], cmd);
		}
	}
	if (optind < argc)
		fl_usage_error("%s: unexpected argument '%s'", cmd, argv[optind]);
	if (s->dry) {
		const char *no = s->csv_path ? "--csv" : s->detail ? "--detail" : s->bt_script ?
				 "--bpftrace" : s->perf ? "--perf" : NULL;
		if (no)
			fl_usage_error("%s: --dry-run runs nothing: %s has nothing to do", cmd, no);
	}
	if (policy_given && spin_given)
		fl_usage_error("%s: --spin is the old form of --policy: give one", cmd);
	finish(s, d, axes_given, duration_ns, seed_given);
	fl_spec_entries(s, vlist ? vlist : !policy_given && !spin_given ? preset_variants(s) : "all",
			s->policies, false);
	fl_spec_as(s);
	if (spin_given)
		fprintf(stderr, "futexlab: --spin is now --policy (here --policy %s)\n", s->policies);
	return 0;
}

/* ---- points --------------------------------------------------------------- */

struct axes {
	const struct fl_workload *w[FL_MAXLIST];
	int nw;
	int threads[FL_MAXLIST], nt;
	int tokens[FL_MAXLIST], nk;
	int sems[FL_MAXLIST], ns;
	int wake[3], nwake;
};

static void parse_ints(const char *what, const char *list, int lo, int hi, int *out, int *n)
{
	char buf[1024], *items[FL_MAXLIST];
	copy_list(what, buf, sizeof buf, list);
	*n = fl_split_list(what, buf, items, FL_MAXLIST);
	for (int i = 0; i < *n; i++)
		out[i] = (int)fl_parse_int(what, items[i], lo, hi);
}

static void parse_group(const struct fl_group *g, struct axes *a)
{
	char buf[1024], *items[FL_MAXLIST];
	memset(a, 0, sizeof *a);
	if (!strcmp(g->workloads, "all")) {
		for (int i = 0; i < fl_nworkloads && i < FL_MAXLIST; i++)
			a->w[a->nw++] = fl_workloads[i];
	} else {
		copy_list("--workload", buf, sizeof buf, g->workloads);
		int n = fl_split_list("--workload", buf, items, FL_MAXLIST);
		for (int i = 0; i < n; i++)
			if (!(a->w[a->nw++] = fl_workload_find(items[i])))
				fl_usage_error("--workload: unknown workload '%s' (see futexlab list)",
					       items[i]);
	}
	parse_ints("--threads", g->threads, 1, 1024, a->threads, &a->nt);
	parse_ints("--tokens", g->tokens, 1, 1000000, a->tokens, &a->nk);
	copy_list("--wake", buf, sizeof buf, g->wake);
	a->nwake = fl_split_list("--wake", buf, items, FL_MAXLIST);
	if (a->nwake > 3)
		fl_usage_error("--wake: more than the three modes (exact, one, all)");
	for (int i = 0; i < a->nwake; i++)
		if ((a->wake[i] = fl_wake_parse(items[i])) < 0)
			fl_usage_error("--wake: unknown mode '%s' (exact, one, all)", items[i]);
	parse_ints("--sems", g->sems ? g->sems : "1", 1, FL_SEM_SLOTS, a->sems, &a->ns);
	/* An axis no workload of the group reads would be dropped silently. */
	bool uses = false, more = false;
	for (int i = 0; i < a->nw; i++)
		uses |= a->w[i]->uses_sems;
	for (int i = 0; i < a->ns; i++)
		more |= a->sems[i] != 1;
	if (more && !uses)
		fl_usage_error("--sems: no workload of %s spreads over semaphores (pool, oversub do)",
			       g->workloads);
}

/* The entries of a point: the spec's (designs x policies, the control),
 * then the floors where they mean something. */
static void fill_entries(const struct fl_spec *s, struct fl_point *pt)
{
	memcpy(pt->e, s->ents, (size_t)s->nent * sizeof *pt->e);
	pt->ne = s->nent;
	static const struct fl_variant *const floors[FL_NFLOORS] = { &fl_floor_atomic, &fl_floor_futex,
							     &fl_floor_inline };
	if (s->floors && pt->w->has_floors)
		for (int i = 0; i < 2 + pt->w->inline_floor; i++) {
			const struct fl_variant *f = floors[i];
			pt->e[pt->ne++] = (struct fl_entry){ f, FL_POLICY_PARK_INIT, "" };
			snprintf(pt->e[pt->ne - 1].label, sizeof pt->e[0].label, "%s", f->name);
		}
}

static bool same_config(const struct fl_point *x, const struct fl_point *y)
{
	return x->w == y->w && x->p.threads == y->p.threads && x->p.tokens == y->p.tokens &&
	       x->p.sems == y->p.sems && x->wake == y->wake;
}

/* NULL when some point of workload w in [from, n) has an entry that fits,
 * else why not. */
static const char *impossible(const struct fl_point *pts, int from, int n,
			      const struct fl_workload *w)
{
	const char *why = NULL;
	for (int i = from; i < n; i++)
		for (int j = 0; pts[i].w == w && j < pts[i].ne; j++) {
			const char *r = fl_workload_unavailable(w, pts[i].e[j].v, &pts[i].p);
			if (!r)
				return NULL;
			why = r;
		}
	return why;
}

/* The most combinations a specification may ask for, before duplicates
 * collapse: the full preset asks for 61; 10000 points of the quick preset's
 * rounds run for half a day. The axes' lists (64 items each) multiply to
 * 786432 combinations per workload, which the duplicate check below took
 * hours and gigabytes to build (tests/fuzz/spec/regress-786k-combinations,
 * a timeout of the fuzz target spec). */
#define FL_MAX_COMBINATIONS 10000

int fl_points_build(const struct fl_spec *s, struct fl_point **out)
{
	int n = 0, cap = 0;
	long combinations = 0;
	struct fl_point *pts = NULL;
	if (s->hooks && s->hooks->workload) { /* exec: one point of its own workload */
		pts = fl_xcalloc(1, sizeof *pts);
		pts->w = s->hooks->workload;
		pts->p = s->base;
		fill_entries(s, pts);
		*out = pts;
		return 1;
	}
	for (int g = 0; g < s->ngroups; g++) {
		struct axes a;
		parse_group(&s->groups[g], &a);
		for (int wi = 0; wi < a.nw; wi++) {
			const struct fl_workload *w = a.w[wi];
			int from = n, nt = w->fixed_threads ? 1 : a.nt, nk = w->uses_tokens ? a.nk : 1;
			int ns = w->uses_sems ? a.ns : 1;
			combinations += (long)nt * nk * ns * a.nwake;
			if (combinations > FL_MAX_COMBINATIONS) {
				free(pts);
				fl_usage_error("%s: more than %d combinations of workloads, threads, tokens, "
					       "semaphores and wake modes; split the sweep", s->cmd,
					       FL_MAX_COMBINATIONS);
			}
			for (int i = 0; i < nt * nk * ns * a.nwake; i++) {
				struct fl_point pt = { .w = w, .p = s->base };
				/* threads outermost, then tokens, sems; wake innermost */
				int ti = i / a.nwake / ns / nk, ki = i / a.nwake / ns % nk;
				pt.p.sems = w->uses_sems ? a.sems[i / a.nwake % ns] : 1;
				pt.p.threads = w->fixed_threads ? w->fixed_threads : a.threads[ti];
				pt.p.tokens = w->uses_tokens ? a.tokens[ki] : 1;
				pt.wake = a.wake[i % a.nwake];
				bool dup = false;
				for (int j = 0; j < n && !dup; j++)
					dup = same_config(&pts[j], &pt);
				if (dup)
					continue;
				fill_entries(s, &pt);
				as_point_check(s, &pt);
				if (n == cap)
					pts = fl_xrealloc(pts, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *pts);
				pts[n++] = pt;
			}
			const char *why = s->preset ? NULL : impossible(pts, from, n, w);
			if (why) {
				free(pts);
				fl_usage_error("no combination of %s can run: %s", w->name, why);
			}
		}
	}
	*out = pts;
	return n;
}
