/* runner/points.c — a spec's points (spec.h): each group's axes parsed,
 * multiplied and collapsed where a workload does not read an axis, each
 * point's entries with the floors where they mean something. */
#include "runner/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cli.h"
#include "lib/wake.h"
#include "fail/xalloc.h"

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
	fl_copy_list(what, buf, sizeof buf, list);
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
		fl_copy_list("--workload", buf, sizeof buf, g->workloads);
		int n = fl_split_list("--workload", buf, items, FL_MAXLIST);
		for (int i = 0; i < n; i++)
			if (!(a->w[a->nw++] = fl_workload_find(items[i])))
				fl_usage_error("--workload: unknown workload '%s' (see futexlab list)",
					       items[i]);
	}
	parse_ints("--threads", g->threads, 1, 1024, a->threads, &a->nt);
	parse_ints("--tokens", g->tokens, 1, 1000000, a->tokens, &a->nk);
	fl_copy_list("--wake", buf, sizeof buf, g->wake);
	a->nwake = fl_split_list("--wake", buf, items, FL_MAXLIST);
	if (a->nwake > 3)
		fl_usage_error("--wake: more than the three modes (exact, one, all)");
	for (int i = 0; i < a->nwake; i++)
		if ((a->wake[i] = fl_wake_parse(items[i])) < 0)
			fl_usage_error("--wake: unknown mode '%s' (exact, one, all)", items[i]);
	parse_ints("--sems", g->sems ? g->sems : "1", 1, FL_SEM_SLOTS, a->sems, &a->ns);
}

/* What reads an axis or a setting: the workloads a refusal names. */
static bool reads_threads(const struct fl_workload *w) { return !w->fixed_threads; }
static bool reads_tokens(const struct fl_workload *w) { return w->uses_tokens; }
static bool reads_sems(const struct fl_workload *w) { return w->uses_sems; }
static bool reads_busy(const struct fl_workload *w) { return w->busy_work; }

/* Whether one of the n workloads reads it; if none does, out gets the
 * registry's workloads that do ("pool, oversub"). */
static bool any_reads(const struct fl_workload *const *w, int n, bool (*reads)(const struct fl_workload *),
		      char *out, size_t size)
{
	for (int i = 0; i < n; i++)
		if (reads(w[i]))
			return true;
	size_t at = 0;
	out[0] = 0;
	for (int i = 0; i < fl_nworkloads; i++)
		if (reads(fl_workloads[i]) && at < size)
			at += (size_t)snprintf(out + at, size - at, "%s%s", at ? ", " : "",
					       fl_workloads[i]->name);
	return false;
}

static bool any_not_one(const int *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i] != 1)
			return true;
	return false;
}

/* Whether every --threads value is the fixed count of a workload of the
 * group (uncontended --threads 1 says what it runs: not refused). */
static bool fixed_counts(const struct axes *a)
{
	for (int i = 0; i < a->nt; i++) {
		bool some = false;
		for (int j = 0; j < a->nw && !some; j++)
			some = a->w[j]->fixed_threads == a->threads[i];
		if (!some)
			return false;
	}
	return true;
}

/* An axis no workload of the group reads would be dropped silently: refused
 * with one line instead. --threads only when given (its default serves
 * every workload that reads it) and naming a count no workload of the
 * group runs at; --tokens and --sems when any value is not 1, what a
 * workload that does not read them runs with. */
static void refuse_unread(const struct fl_spec *s, const struct fl_group *g, const struct axes *a)
{
	char who[256];
	if (g == &s->cli && g->threads != s->threads_default && !fixed_counts(a) &&
	    !any_reads(a->w, a->nw, reads_threads, who, sizeof who))
		fl_usage_error("--threads: no workload of %s takes a thread count (%s do)",
			       g->workloads, who);
	if (any_not_one(a->tokens, a->nk) && !any_reads(a->w, a->nw, reads_tokens, who, sizeof who))
		fl_usage_error("--tokens: no workload of %s takes tokens (%s do)", g->workloads, who);
	if (any_not_one(a->sems, a->ns) && !any_reads(a->w, a->nw, reads_sems, who, sizeof who))
		fl_usage_error("--sems: no workload of %s spreads over semaphores (%s do)",
			       g->workloads, who);
}

/* --hold and --think (one value for the whole spec): refused when no
 * workload of any group does busy work. */
static void refuse_busy_unread(const struct fl_spec *s)
{
	if (!s->base.hold_ns && !s->base.think_ns)
		return;
	char who[256];
	for (int g = 0; g < s->ngroups; g++) {
		struct axes a;
		parse_group(&s->groups[g], &a);
		if (any_reads(a.w, a.nw, reads_busy, who, sizeof who))
			return;
	}
	fl_usage_error("--%s: no workload of %s does busy work (%s do)",
		       s->base.hold_ns ? "hold" : "think", s->groups[0].workloads, who);
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
	refuse_busy_unread(s);
	for (int g = 0; g < s->ngroups; g++) {
		struct axes a;
		parse_group(&s->groups[g], &a);
		refuse_unread(s, &s->groups[g], &a);
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
				fl_spec_as_check(s, &pt);
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
