/* runner/presets.c — the presets of sweep --preset (spec.h): their table,
 * their names and settings as --help prints them, and what a preset sets
 * that no option gave. */
#include "runner/spec.h"

#include <stdio.h>
#include <string.h>

#include "runner/cli.h"
#include "lib/cpuset.h"

/* The presets: each a list of groups (one cartesian product each), in one
 * table. quick is the README's default — every variant on the main
 * workloads, and the adaptive waiting policy beside six of them, under a
 * minute on 2 cores: 14 timed rounds of 0.013 s at 10 points, 23 entries,
 * and 3 probed rounds among them (the kernel's counts: options.md). Many
 * short rounds beat few long ones: a round then spans a fraction of a
 * second, so the two reps of a pair see nearly the same machine, and the
 * interval of a median over 14 rounds ([x(3), x(12)], 98%) is narrow; the
 * rounds' count and length are the most that fit the minute (the
 * resolution they give: results/quick.md). standard is quick's points and
 * entries with the resolution bought (options.md, "Buying resolution"): 10
 * timed rounds first, reps stretched to hold 8000 blocking ops (a blocking
 * point's control narrows as its reps lengthen: results/resolution.md),
 * then rounds where the control is worst, within 270 s. full is the
 * reference sweep (results/): every axis that tells designs apart. */
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
 * trywait (six rows more; what quick's length buys: results/quick.md). */
#define QUICK_VARIANTS "all,negcount@adaptive,split@adaptive,musl@adaptive,glibc64@adaptive," \
		       "textbook@adaptive,gosema@adaptive"
static const struct preset {
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

#define NPRESETS (sizeof presets / sizeof presets[0])

void fl_preset_names(char *buf, size_t size, const char *sep)
{
	size_t l = 0;
	buf[0] = 0;
	for (size_t i = 0; i < NPRESETS && l < size; i++)
		l += (size_t)snprintf(buf + l, size - l, "%s%s", i ? sep : "", presets[i].name);
}

const char *fl_preset_known(const char *name)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (!strcmp(name, presets[i].name))
			return name;
	char names[128];
	fl_preset_names(names, sizeof names, ", ");
	fl_usage_error("--preset: unknown preset '%s' (%s)", name, names);
}

void fl_presets_usage(FILE *f)
{
	fprintf(f, "presets (presets.c; an option given overrides its setting):\n");
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

const char *fl_preset_variants(const struct fl_spec *s)
{
	for (size_t i = 0; s->preset && i < NPRESETS; i++)
		if (!strcmp(s->preset, presets[i].name))
			return presets[i].variants;
	return "all";
}


/* The preset's entry (s->preset is one: fl_preset_known). */
static const struct preset *preset_of(const struct fl_spec *s)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (!strcmp(s->preset, presets[i].name))
			return &presets[i];
	return &presets[0];
}

double fl_preset_apply(struct fl_spec *s)
{
	const struct preset *p = preset_of(s);
	bool cpus_env;
	int cpus = fl_cpus_present(&cpus_env);
	if (cpus < 0)
		fl_usage_error("FUTEXLAB_CPUS: not a CPU count 1..4096 (cpuset.h)");
	s->ngroups = 0;
	for (size_t i = 0; i < sizeof preset_groups / sizeof preset_groups[0]; i++)
		if (!strcmp(p->groups, preset_groups[i].preset) &&
		    s->ngroups < (int)(sizeof s->pgroups / sizeof s->pgroups[0])) {
			struct fl_group *g = &s->pgroups[s->ngroups]; /* threads scaled: cpuset.h */
			*g = preset_groups[i].g;
			if (!fl_threads_scaled(g->threads, cpus, s->pthreads[s->ngroups], 64))
				g->threads = s->pthreads[s->ngroups];
			s->ngroups++;
		}
	s->groups = s->pgroups;
	s->rounds = s->rounds < 0 ? p->rounds : s->rounds;
	s->warmup = s->warmup < 0 ? p->warmup : s->warmup;
	if (s->probe_rounds < 0 && s->probes == FL_PROBES_DEFAULT)
		s->probe_rounds = p->probe_rounds;
	if (s->target_res < 0 && s->res_budget_ns < 0 && p->target_pct > 0) {
		s->target_res = p->target_pct / 100;
		s->res_budget_ns = (int64_t)(p->budget_s * 1e9);
	}
	if (s->min_blocking < 0)
		s->min_blocking = p->min_blocking;
	return p->duration;
}
