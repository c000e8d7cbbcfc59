/* harness/sweep.c — `futexlab sweep`: the cartesian product of variants x
 * workloads x threads x tokens x wake modes x spin bounds, each point run the way `run`
 * runs one (harness/run.c: fl_run_one), with warm-up reps, optional CPU
 * pinning, a per-point time budget, progress on stderr, one CSV row per rep
 * and, at the end, the ratio table against a baseline (harness/compare.c).
 *
 * A sweep is a list of groups, each a cartesian product; the command line
 * gives one group, a preset several (so pool can sweep threads while
 * uncontended does not). Axes that do not apply to a workload collapse for
 * it (uncontended ignores --threads; only pool, prodcons and oversub read
 * --tokens). A combination a variant cannot run is run as a skipped row
 * with the reason; a workload none of whose combinations can run is a bad
 * specification (exit 2). */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "compare.h"
#include "csv.h"
#include "hashmode.h"
#include "perf.h"
#include "probes_glue.h"
#include "run.h"
#include "wake.h"

#define MAXAX 64

struct group {
	const char *workloads;   /* comma lists, parsed by parse_group() */
	const char *threads;
	const char *tokens;
	const char *wake;
	const char *spin;        /* NULL: "0" */
	/* --hash is not an axis here: a futex hash mode belongs to the whole
	 * process (harness/hashmode.h), so a list of modes re-executes the
	 * whole sweep once per mode (fl_hash_run_each) and each child applies
	 * its one mode before any thread starts. compare.c treats the `hash`
	 * and `spin` CSV columns as part of the point. */
};

struct axes {
	const struct fl_workload *w[MAXAX];
	int nw;
	int threads[MAXAX], nt;
	int tokens[MAXAX], nk;
	int wake[3], nwake;
	int spin[MAXAX], nspin;
};

struct spoint {
	const struct fl_variant *v;
	const struct fl_workload *w;
	struct fl_params p;
	int wake;
	int spin;
	double cost;             /* expected seconds, for the ETA */
};

struct preset {
	const char *name, *what;
	int reps, warmup;
	double duration;
	const struct group *groups;
	int ngroups;
};

/* quick: the README's default — every variant on the main workloads, under
 * a minute on 2 cores even with a dozen variants (0.3 s a point). */
static const struct group quick_groups[] = {
	{ "uncontended,pingpong", "1", "1", "exact", "0" },
	{ "pool", "2,4,8", "1", "exact", "0" },
	{ "prodcons", "4", "4", "exact", "0" },
	{ "barrier", "4", "1", "exact,all", "0" },
	{ "timeouts", "4", "1", "exact", "0" },
	{ "oversub", "32", "2", "exact", "0" },
};
/* full: the reference sweep (results/): every axis that tells designs apart. */
static const struct group full_groups[] = {
	{ "uncontended,pingpong", "1", "1", "exact", "0" },
	{ "pool", "1,2,4,8,16", "1,4", "exact,one,all", "0" },
	{ "prodcons", "2,4,8", "1,16", "exact", "0" },
	{ "barrier", "2,4,8,16", "1", "exact,one,all", "0" },
	{ "timeouts", "2,8,32", "1", "exact", "0" },
	{ "oversub", "16,64", "1,2", "exact,all", "0" },
};
static const struct preset presets[] = {
	{ "quick", "every variant x the main workloads, 5 reps of 0.05 s", 5, 1, 0.05,
	  quick_groups, sizeof quick_groups / sizeof quick_groups[0] },
	{ "full", "threads 1-64, tokens, all wake modes, 10 reps of 0.1 s", 10, 1, 0.1,
	  full_groups, sizeof full_groups / sizeof full_groups[0] },
};

static const char sweep_usage[] =
"usage: futexlab sweep [options]\n"
"  --preset NAME      quick (the README's default, < 60 s on 2 cores) or full\n"
"  --variants LIST    variants, comma separated, or 'all' (default all)\n"
"  --workloads LIST   workloads, or 'all' (default all)\n"
"  --threads LIST     thread counts (default 1,2,4,8; ignored by fixed-thread workloads)\n"
"  --tokens LIST      initial tokens / buffer capacity (default 1)\n"
"  --wake LIST        wake modes exact,one,all (default exact)\n"
"  --spin LIST        spin-then-park bounds, e.g. 0,100 (default 0)\n"
"  --hash LIST        futex hash modes auto|global|private:N; more than one:\n"
"                     the sweep runs once per mode, each in its own process\n"
"  --hold NS, --think NS   pool/oversub busy work (default 0)\n"
"  --reps R           measured reps per point (default 5)\n"
"  --warmup N         unmeasured reps before them (default 1)\n"
"  --duration S       seconds per rep (default 0.1), or --ops N per rep\n"
"  --budget S         cap per point: rep duration becomes S/(warmup+reps) if shorter\n"
"  --pin CPULIST      run every thread on these CPUs (sched_setaffinity), e.g. 0 or 0,1\n"
"  --csv FILE         one row per rep (atomic rewrite; Ctrl-C keeps finished rows)\n"
"  --baseline NAME    variant of the ratio table (default posix)\n"
"  --no-floors        omit the floor rows on uncontended/pingpong\n"
"  --perf             perf counters per rep as CSV columns\n"
"  --probes / --no-probes  eBPF futex counts per rep as CSV columns (default:\n"
"                     on when root and BPF works; see futexlab run --help)\n"
"  --quiet            no progress line on stderr\n"
"  --dry-run          list the points (and skips) with the time estimate; run nothing\n"
"Axes multiply: every listed value of each axis with every other. With --preset\n"
"the axes come from the preset; --variants, --reps, --duration etc. still apply.\n";

static void on_signal(int sig)
{
	(void)sig;
	fl_interrupted = 1;
}

static void parse_ints(const char *what, const char *list, int lo, int hi, int *out, int *n)
{
	char buf[1024], *items[MAXAX];
	snprintf(buf, sizeof buf, "%s", list);
	*n = fl_split_list(what, buf, items, MAXAX);
	for (int i = 0; i < *n; i++)
		out[i] = (int)fl_parse_int(what, items[i], lo, hi);
}

static void parse_group(const struct group *g, struct axes *a)
{
	char buf[1024], *items[MAXAX];
	memset(a, 0, sizeof *a);
	if (!strcmp(g->workloads, "all")) {
		for (int i = 0; i < fl_nworkloads && i < MAXAX; i++)
			a->w[a->nw++] = &fl_workloads[i];
	} else {
		snprintf(buf, sizeof buf, "%s", g->workloads);
		int n = fl_split_list("--workloads", buf, items, MAXAX);
		for (int i = 0; i < n; i++)
			if (!(a->w[a->nw++] = fl_workload_find(items[i])))
				fl_usage_error("--workloads: unknown workload '%s' (see futexlab list)",
					       items[i]);
	}
	parse_ints("--threads", g->threads, 1, 1024, a->threads, &a->nt);
	parse_ints("--tokens", g->tokens, 1, 1000000, a->tokens, &a->nk);
	snprintf(buf, sizeof buf, "%s", g->wake);
	a->nwake = fl_split_list("--wake", buf, items, MAXAX);
	if (a->nwake > 3)
		fl_usage_error("--wake: more than the three modes (exact, one, all)");
	for (int i = 0; i < a->nwake; i++)
		if ((a->wake[i] = fl_wake_parse(items[i])) < 0)
			fl_usage_error("--wake: unknown mode '%s' (exact, one, all)", items[i]);
	parse_ints("--spin", g->spin ? g->spin : "0", 0, FL_SPIN_MAX, a->spin, &a->nspin);
}

static bool same_point(const struct spoint *x, const struct spoint *y)
{
	return x->v == y->v && x->w == y->w && x->p.threads == y->p.threads &&
	       x->p.tokens == y->p.tokens && x->wake == y->wake && x->spin == y->spin;
}

/* Appends the group's points for variants vs[]; returns the new count. */
static int enumerate(const struct axes *a, const struct fl_variant *const *vs, int nv,
		     bool floors, const struct fl_params *base, struct spoint **pts, int n,
		     int *cap)
{
	for (int wi = 0; wi < a->nw; wi++) {
		const struct fl_workload *w = a->w[wi];
		int nt = w->fixed_threads ? 1 : a->nt, nk = w->uses_tokens ? a->nk : 1;
		const struct fl_variant *row[MAXAX + 2];
		int nr = 0;
		for (int i = 0; i < nv; i++)
			row[nr++] = vs[i];
		if (floors && w->has_floors) {
			row[nr++] = &fl_floor_atomic;
			row[nr++] = &fl_floor_futex;
		}
		for (int ti = 0; ti < nt; ti++)
			for (int ki = 0; ki < nk; ki++)
				for (int xi = 0; xi < a->nwake * a->nspin; xi++)
					for (int ri = 0; ri < nr; ri++) {
						struct spoint s = { .v = row[ri], .w = w, .p = *base,
								    .wake = a->wake[xi / a->nspin],
								    .spin = a->spin[xi % a->nspin] };
						s.p.threads = w->fixed_threads ? w->fixed_threads
									       : a->threads[ti];
						s.p.tokens = w->uses_tokens ? a->tokens[ki] : 1;
						bool dup = false;
						for (int j = 0; j < n && !dup; j++)
							dup = same_point(&(*pts)[j], &s);
						if (dup)
							continue;
						if (n == *cap) {
							*cap = *cap ? 2 * *cap : 64;
							*pts = realloc(*pts, (size_t)*cap * sizeof **pts);
						}
						(*pts)[n++] = s;
					}
	}
	return n;
}

/* Why (v, w, p) will be skipped for a reason of the spec (not of the
 * kernel): NULL if it can run. */
static const char *spec_unfit(const struct spoint *s)
{
	if (s->w->uses_tokens && s->p.tokens > s->v->value_max)
		return "tokens above the variant's maximum";
	return fl_workload_unfit(s->w, s->v, &s->p);
}

static void fmt_time(char *out, size_t n, double s)
{
	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(out, n, "%.0fs", s);
	else
		snprintf(out, n, "%d:%02d", (int)s / 60, (int)s % 60);
}

int fl_cmd_sweep(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "preset", required_argument, 0, 'p' },
		{ "variants", required_argument, 0, 'v' }, { "variant", required_argument, 0, 'v' },
		{ "workloads", required_argument, 0, 'w' }, { "workload", required_argument, 0, 'w' },
		{ "threads", required_argument, 0, 't' },  { "tokens", required_argument, 0, 'k' },
		{ "wake", required_argument, 0, 'W' },     { "hold", required_argument, 0, 'H' },
		{ "spin", required_argument, 0, 'S' },     { "hash", required_argument, 0, 'X' },
		{ "think", required_argument, 0, 'T' },    { "reps", required_argument, 0, 'r' },
		{ "warmup", required_argument, 0, 'u' },   { "duration", required_argument, 0, 'd' },
		{ "ops", required_argument, 0, 'o' },      { "budget", required_argument, 0, 'b' },
		{ "pin", required_argument, 0, 'P' },      { "csv", required_argument, 0, 'c' },
		{ "baseline", required_argument, 0, 'B' }, { "no-floors", no_argument, 0, 'F' },
		{ "perf", no_argument, 0, 'e' },           { "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },           { "dry-run", no_argument, 0, 'n' },
		{ "probes", no_argument, 0, 0x100 },       { "no-probes", no_argument, 0, 0x101 },
		{ 0, 0, 0, 0 },
	};
	const struct preset *preset = NULL;
	struct group cli = { "all", "1,2,4,8", "1", "exact", "0" };
	char hlist[1024] = "auto";
	bool axes_given = false, floors = true, quiet = false, dry = false;
	enum fl_probes_mode probes = FL_PROBES_DEFAULT;
	const char *vlist = "all", *csv_path = NULL, *baseline = "posix", *pin = NULL;
	int reps = -1, warmup = -1;
	int64_t duration_ns = -1, ops = 0, budget_ns = 0;
	struct fl_params base = { .threads = 1, .tokens = 1 };
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
				if (!strcmp(optarg, presets[i].name))
					preset = &presets[i];
			if (!preset)
				fl_usage_error("--preset: unknown preset '%s' (quick, full)", optarg);
			break;
		case 'v': vlist = optarg; break;
		case 'w': cli.workloads = optarg; axes_given = true; break;
		case 't': cli.threads = optarg; axes_given = true; break;
		case 'k': cli.tokens = optarg; axes_given = true; break;
		case 'W': cli.wake = optarg; axes_given = true; break;
		case 'S': cli.spin = optarg; axes_given = true; break;
		case 'X': snprintf(hlist, sizeof hlist, "%s", optarg); break;
		case 'H': base.hold_ns = fl_parse_int("--hold", optarg, 0, 1000000000); break;
		case 'T': base.think_ns = fl_parse_int("--think", optarg, 0, 1000000000); break;
		case 'r': reps = (int)fl_parse_int("--reps", optarg, 1, 1000); break;
		case 'u': warmup = (int)fl_parse_int("--warmup", optarg, 0, 100); break;
		case 'd': duration_ns = fl_parse_seconds("--duration", optarg, 3600); break;
		case 'o': ops = fl_parse_int("--ops", optarg, 1, INT64_MAX / 2); break;
		case 'b': budget_ns = fl_parse_seconds("--budget", optarg, 86400); break;
		case 'P': pin = optarg; break;
		case 'c': csv_path = optarg; break;
		case 'B': baseline = optarg; break;
		case 'F': floors = false; break;
		case 'e': fl_perf_enabled = true; break;
		case 0x100: probes = FL_PROBES_ON; break;
		case 0x101: probes = FL_PROBES_OFF; break;
		case 'q': quiet = true; break;
		case 'n': dry = true; break;
		case 'h': fputs(sweep_usage, stdout); return 0;
		case ':': fl_usage_error("sweep: %s needs a value", argv[optind - 1]);
		default:
			fl_usage_error("sweep: unknown option '%s' (see futexlab sweep --help)",
				       argv[optind - 1]);
		}
	}
	if (optind < argc)
		fl_usage_error("sweep: unexpected argument '%s'", argv[optind]);
	if (preset && axes_given)
		fl_usage_error("sweep: --preset sets the axes; drop --workloads/--threads/--tokens/--wake/--spin");
	if (ops && duration_ns > 0)
		fl_usage_error("sweep: give --duration or --ops, not both");
	if (ops && budget_ns)
		fl_usage_error("sweep: --budget caps durations; it does not apply to --ops");
	if (reps < 0)
		reps = preset ? preset->reps : 5;
	if (warmup < 0)
		warmup = preset ? preset->warmup : 1;
	if (duration_ns < 0)
		duration_ns = (int64_t)((preset ? preset->duration : 0.1) * 1e9);
	if (budget_ns && budget_ns / (warmup + reps) < duration_ns) {
		duration_ns = budget_ns / (warmup + reps);
		if (duration_ns < 1000000)
			fl_usage_error("sweep: --budget leaves under 1 ms per rep for %d reps", warmup + reps);
	}
	base.ops = ops;
	base.duration_ns = ops ? 0 : duration_ns;

	char *hitems[MAXAX];
	int nh = fl_hash_list(hlist, hitems, MAXAX); /* validated before anything runs */
	if (!fl_variant_find(baseline) && strcmp(baseline, fl_floor_atomic.name) &&
	    strcmp(baseline, fl_floor_futex.name))
		fl_usage_error("--baseline: unknown variant '%s' (see futexlab list)", baseline);

	/* variants */
	const struct fl_variant *vs[MAXAX];
	int nv = 0;
	if (!strcmp(vlist, "all")) {
		for (int i = 0; i < fl_nvariants && nv < MAXAX; i++)
			vs[nv++] = fl_variants[i];
	} else {
		char buf[1024], *items[MAXAX];
		snprintf(buf, sizeof buf, "%s", vlist);
		int n = fl_split_list("--variants", buf, items, MAXAX);
		for (int i = 0; i < n; i++)
			if (!(vs[nv++] = fl_variant_find(items[i])))
				fl_usage_error("--variants: unknown variant '%s' (see futexlab list)",
					       items[i]);
	}

	/* points */
	const struct group *groups = preset ? preset->groups : &cli;
	int ngroups = preset ? preset->ngroups : 1, npts = 0, cap = 0;
	struct spoint *pts = NULL;
	for (int g = 0; g < ngroups; g++) {
		struct axes a;
		parse_group(&groups[g], &a);
		int before = npts;
		npts = enumerate(&a, vs, nv, floors, &base, &pts, npts, &cap);
		/* A workload none of whose points can run: the spec is impossible
		 * (a preset just skips what the chosen variants cannot run). */
		for (int wi = 0; wi < a.nw && !preset; wi++) {
			const char *why = NULL;
			bool any = false;
			for (int i = before; i < npts; i++)
				if (pts[i].w == a.w[wi]) {
					const char *r = spec_unfit(&pts[i]);
					any |= !r;
					if (r)
						why = r;
				}
			if (!any && why)
				fl_usage_error("sweep: no combination of %s can run: %s", a.w[wi]->name, why);
		}
	}
	if (pin) {
		char buf[1024], *items[MAXAX];
		snprintf(buf, sizeof buf, "%s", pin);
		int n = fl_split_list("--pin", buf, items, MAXAX);
		cpu_set_t set;
		CPU_ZERO(&set);
		for (int i = 0; i < n; i++)
			CPU_SET((int)fl_parse_int("--pin", items[i], 0, CPU_SETSIZE - 1), &set);
		if (sched_setaffinity(0, sizeof set, &set))
			fl_usage_error("--pin: cannot run on CPUs %s: %s", pin, strerror(errno));
	}

	if (dry) {
		double est = 0;
		for (int i = 0; i < npts; i++) {
			const char *why = spec_unfit(&pts[i]);
			if (!why && pts[i].v->unavailable)
				why = pts[i].v->unavailable();
			printf("%-14s %-12s T=%-4d K=%-4d wake=%-5s spin=%-4d %s%s\n", pts[i].v->name,
			       pts[i].w->name, pts[i].p.threads, pts[i].p.tokens,
			       fl_wake_name((enum fl_wake_strategy)pts[i].wake), pts[i].spin,
			       why ? "skipped: " : "",
			       why ? why : "");
			if (!why)
				est += (double)(warmup + reps) *
				       (ops ? 0.05 : (double)duration_ns / 1e9);
		}
		printf("%d points, about %.0f s of timed work\n", npts, est);
		free(pts);
		return 0;
	}
	/* --hash: one mode is applied here, before any worker thread exists; a
	 * list re-executes this sweep once per mode (harness/hashmode.h). */
	if (nh > 1) {
		free(pts);
		struct sigaction hsa = { .sa_handler = on_signal, .sa_flags = SA_RESETHAND };
		sigemptyset(&hsa.sa_mask);
		sigaction(SIGINT, &hsa, NULL);
		sigaction(SIGTERM, &hsa, NULL);
		return fl_hash_run_each(argc, argv, hitems, nh, csv_path, fl_run_csv_header());
	}
	fl_hash_setup(hitems[0]);

	struct fl_csv csv;
	int e = fl_csv_open(&csv, csv_path, fl_run_csv_header(), argc, argv);
	if (e) {
		fprintf(stderr, "futexlab: cannot write %s: %s\n", csv_path, strerror(e));
		return 1;
	}
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESETHAND };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	double total_cost = 0, done_cost = 0;
	for (int i = 0; i < npts; i++) {
		double per_rep = ops ? 0.05 : (double)duration_ns / 1e9;
		pts[i].cost = spec_unfit(&pts[i]) ? 0.001 : per_rep * (warmup + reps) + 0.002;
		total_cost += pts[i].cost;
	}
	bool progress = !quiet && isatty(2);
	fl_probes_setup(probes);
	if (fl_perf_enabled) {
		char what[256];
		fl_perf_probe(what, sizeof what);
		fprintf(stderr, "futexlab: perf counters: %s\n", what);
	}
	printf("futexlab sweep — %d points%s%s, %d warm-up + %d reps of %s per point\n", npts,
	       preset ? ", preset " : "", preset ? preset->name : "", warmup, reps,
	       ops ? "--ops" : "the duration");
	fflush(stdout);
	int64_t t0 = fl_now_ns();
	int done = 0, nok = 0, nskip = 0, nerr = 0;
	for (int i = 0; i < npts && !fl_interrupted; i++) {
		struct spoint *s = &pts[i];
		if (progress) {
			double el = (double)(fl_now_ns() - t0) / 1e9;
			char a[16], b[16];
			fmt_time(a, sizeof a, el);
			fmt_time(b, sizeof b, done_cost > 0 ? el * (total_cost - done_cost) / done_cost
							    : total_cost);
			fprintf(stderr, "\r\033[K[%d/%d] %3.0f%% elapsed %s, ~%s left  %s %s T=%d K=%d %s",
				done, npts, 100 * done_cost / total_cost, a, b, s->v->name, s->w->name,
				s->p.threads, s->p.tokens, fl_wake_name((enum fl_wake_strategy)s->wake));
			if (s->spin)
				fprintf(stderr, " spin=%d", s->spin);
		}
		fl_wake_set_strategy((enum fl_wake_strategy)s->wake);
		fl_spin_set(s->spin);
		struct fl_point_result r;
		if (warmup && !spec_unfit(s)) {
			bool pe = fl_perf_enabled;
			fl_perf_enabled = false;
			fl_run_one(s->v, s->w, &s->p, warmup, NULL, &r);
			fl_perf_enabled = pe;
			if (!strcmp(r.status, "error")) {
				/* The measured reps repeat the check; say it here too. */
				fprintf(stderr, "%sfutexlab: warm-up of %s on %s broke an invariant: %s\n",
					progress ? "\r\033[K" : "", s->v->name, s->w->name, r.note);
			}
		}
		if (fl_interrupted)
			break;
		fl_run_one(s->v, s->w, &s->p, reps, &csv, &r);
		if (!strcmp(r.status, "interrupted"))
			break;
		nok += !strcmp(r.status, "ok");
		nskip += !strcmp(r.status, "skipped");
		nerr += !strcmp(r.status, "error");
		done++;
		done_cost += s->cost;
	}
	double elapsed = (double)(fl_now_ns() - t0) / 1e9;
	if (progress)
		fprintf(stderr, "\r\033[K");
	fl_probes_teardown();

	/* The table: the same code as `futexlab compare FILE`. */
	struct fl_table t;
	struct fl_cells cells;
	char err[300];
	if (fl_table_from_lines(&t, csv.meta, csv.lines, csv.n, err, sizeof err) == 0 &&
	    fl_cells_build(&t, &cells, err, sizeof err) == 0) {
		fl_print_ratios(stdout, &t, &cells, baseline);
		fl_cells_free(&cells);
		fl_table_free(&t);
	} else {
		fprintf(stderr, "futexlab: cannot summarize: %s\n", err);
	}
	printf("\nsweep %s: %d of %d points in %.1f s — %d ok, %d skipped, %d error\n",
	       fl_interrupted ? "INTERRUPTED" : "done", done, npts, elapsed, nok, nskip, nerr);
	if (csv_path)
		printf("CSV: %s (%d rows%s)\n", csv_path, csv.n,
		       fl_interrupted ? ", every point finished before the interrupt" : "");
	fl_csv_close(&csv);
	free(pts);
	if (fl_interrupted)
		return 130;
	if (nerr) {
		fprintf(stderr, "futexlab: %d point(s) broke an invariant (error above)\n", nerr);
		return 1;
	}
	return 0;
}
