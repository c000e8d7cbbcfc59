/* harness/runner.c — see runner.h. */
#include "harness/runner.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/cli.h"
#include "lib/clock.h"
#include "record/csv.h"
#include "harness/hashmode.h"
#include "record/machine.h"
#include "probes/perf.h"
#include "report/summary.h"
#include "report/rounds.h"
#include "record/run_row.h"
#include "report/stats_text.h"
#include "report/table.h"
#include "lib/wake.h"
#include "report/xalloc.h"
#include "variants/policy.h"
#include "proc/exec.h"
#include "proc/helper.h"
#include "proc/interrupt.h"
#include "proc/rep.h"

/* ---- rows ------------------------------------------------------------------ */

/* What a timer read costs (the median of back-to-back fl_now_ns pairs,
 * measured once per run): subtracted from the latency percentiles, since
 * each timed interval contains one read's worth of the clock itself. */
static double timer_ns;

static void measure_timer(void)
{
	enum { N = 4001 };
	static int64_t d[N];
	for (int i = 0; i < N; i++) {
		int64_t a = fl_now_ns();
		d[i] = fl_now_ns() - a;
	}
	for (int i = 1; i < N; i++) /* insertion sort: small, mostly equal */
		for (int j = i; j > 0 && d[j] < d[j - 1]; j--) {
			int64_t t = d[j];
			d[j] = d[j - 1];
			d[j - 1] = t;
		}
	int64_t median = d[N / 2];
	timer_ns = (double)median;
}

static void csv_check(const struct fl_csv *csv, int e)
{
	if (e) {
		fprintf(stderr, "futexlab: cannot write %s: %s\n", csv->path ? csv->path : "rows",
			strerror(e));
		exit(1);
	}
}

/* One rep's row (run_row.h), in memory until the round's flush. */
static void emit(struct fl_csv *csv, const struct fl_point *pt, const struct fl_run_rep *x)
{
	char row[4096];
	fl_run_row(row, sizeof row, pt, x, timer_ns);
	csv_check(csv, fl_csv_append(csv, row));
}

/* ---- one point ------------------------------------------------------------- */

/* Progress on stderr (not with --quiet). On a terminal one line, rewritten
 * in place before each point's round. Anywhere else (a CI job's log, a
 * file) a rewritten line is noise, and none at all leaves a log silent for
 * the whole run: a line of its own after a point's round, the first one at
 * once (how long the run will take) and then at most one every LOG_GAP_S
 * seconds or every LOG_SHARE of the estimated time, whichever is longer
 * (a log of at most about a hundred lines however long the run). */
#define LOG_GAP_S 5.0
#define LOG_SHARE 0.01

struct progress {
	bool on, tty;
	int64_t t0, logged;  /* the run's start; the last line's time (0: none yet) */
	double total, done; /* seconds of expected timed work */
	int point, npoints;
	char stage[48];     /* the round the points are in, for the log's lines */
};

static void fmt_time(char *out, size_t n, double s)
{
	if (s < 60)
		snprintf(out, n, "%.0fs", s < 0 ? 0 : s);
	else
		snprintf(out, n, "%d:%02d", (int)s / 60, (int)s % 60);
}

static void show(const struct progress *g, const struct fl_point *pt, int round, int rounds)
{
	if (!g->on || !g->tty)
		return;
	double el = (double)(fl_now_ns() - g->t0) / 1e9;
	char a[16], b[16];
	fmt_time(a, sizeof a, el);
	fmt_time(b, sizeof b, g->done > 0 ? el * (g->total - g->done) / g->done : g->total);
	fprintf(stderr, "\r\033[K[%d/%d] %3.0f%% elapsed %s, ~%s left  %s T=%d K=%d %s",
		g->point, g->npoints, 100 * g->done / g->total, a, b, pt->w->name, pt->p.threads,
		pt->p.tokens, fl_wake_name((enum fl_wake_strategy)pt->wake));
	if (pt->p.sems > 1)
		fprintf(stderr, " sems=%d", pt->p.sems);
	fprintf(stderr, round < 0 ? "  warm-up" : "  round %d/%d", round + 1, rounds);
}

/* After a point's round, off a terminal: its line when one is due, e.g.
 * "futexlab: progress: 34% after 25s, about 48s left (round 4/15, point
 * 3/10 done: pool T=4 K=1 exact)". */
static void log_line(struct progress *g, const struct fl_point *pt)
{
	if (!g->on || g->tty)
		return;
	int64_t now = fl_now_ns();
	double gap = LOG_SHARE * g->total > LOG_GAP_S ? LOG_SHARE * g->total : LOG_GAP_S;
	if (g->logged && (double)(now - g->logged) / 1e9 < gap)
		return;
	g->logged = now;
	double el = (double)(now - g->t0) / 1e9, share = g->total > 0 ? g->done / g->total : 1;
	char a[16], b[16], sems[24] = "";
	fmt_time(a, sizeof a, el);
	fmt_time(b, sizeof b, g->done > 0 ? el * (g->total - g->done) / g->done : g->total);
	if (pt->p.sems > 1)
		snprintf(sems, sizeof sems, " sems=%d", pt->p.sems);
	fprintf(stderr, "futexlab: progress: %.0f%% after %s, about %s left (%s, point %d/%d "
		"done: %s T=%d K=%d %s%s)\n", 100 * (share > 1 ? 1 : share), a, b, g->stage,
		g->point, g->npoints, pt->w->name, pt->p.threads, pt->p.tokens,
		fl_wake_name((enum fl_wake_strategy)pt->wake), sems);
}

/* The runner's hooks around a rep (proc/rep.h), inside the detector's
 * window: the probes and the perf counters. A helper-run design's rep runs in
 * its helper process: the collector counts that process instead of this
 * one for the rep, and --perf, open on this process, has nothing of it to
 * count (its cells stay empty). */
struct rep_ctx {
	bool measured, probed;
	struct fl_csv *csv;
	struct fl_perf_reading perf;
	const char *workload;
	bool exec;                      /* the workload is a program (proc/exec.h) */
};

static void rep_begin(void *arg, pid_t pid)
{
	struct rep_ctx *c = arg;
	if (c->measured && c->probed) {
		/* exec: the collector counts the next run's cgroup, made ahead
		 * (proc/exec.h), by bpf_get_current_cgroup_id alone — every
		 * process of the run, daemons included; without a cgroup (0) it
		 * follows the program's process tree (probes/follow.md) */
		if (c->exec)
			fl_probes_count_cgroup(fl_exec_cgroup_next());
		fl_probes_rep_begin(pid); /* a helper's: counted there */
	}
	if (!pid)
		fl_perf_begin();
}

static void rep_end(void *arg, pid_t pid, const struct fl_result *r)
{
	struct rep_ctx *c = arg;
	if (!pid)
		fl_perf_end(&c->perf);
	if (c->measured && c->probed)
		fl_probes_rep_end(pid, c->workload, r->ops);
}

static void rep_meta(void *arg, const char *line)
{
	struct rep_ctx *c = arg;
	fl_csv_meta(c->csv, "%s", line);
}

/* What kind of round a rep is in: its number (-1: warm-up), whether it is
 * measured and whether the collector counts it. */
struct round_kind {
	int round;
	bool measured, probed;
};

/* What the runner keeps of a rep beyond its row: ns per op (NAN when it did
 * not run ok) and its voluntary context switches (its blocking ops). */
struct rep_out {
	double ns_per_op;
	int64_t blocking;
};

/* Runs one rep of one entry; false (and the error row) if it failed. */
static bool run_rep(const struct fl_spec *s, struct fl_csv *csv, const struct fl_point *pt,
		    int ei, struct round_kind k, int slot, bool latency, struct fl_hist **acc,
		    struct rep_out *out)
{
	const struct fl_entry *e = &pt->e[ei];
	struct fl_result r = FL_RESULT_EMPTY;
	struct fl_params p = pt->p;
	p.latency = latency;
	bool pe = fl_perf_enabled, measured = k.measured;
	int round = k.round;
	out->ns_per_op = NAN;
	fl_perf_enabled = pe && measured; /* warm-up rounds count nothing */
	struct rep_ctx c = { .measured = measured, .probed = k.probed, .csv = csv,
			     .workload = pt->w->name, .exec = pt->w == &fl_exec_workload };
	struct fl_rep_hooks hooks = { rep_begin, rep_end, rep_meta, &c };
	fl_probes_stranded_clear();
	fl_rep_run(&(struct fl_rep){ e->v, pt->w, p, pt->wake, e->policy }, &hooks, &r);
	fl_perf_enabled = pe;
	if (fl_interrupted) {
		free(r.lat);
		return true; /* an interrupted rep is not a measurement */
	}
	if (measured && s->hooks && s->hooks->rep_done)
		s->hooks->rep_done(pt, ei, round, &r, k.probed && fl_probes_loaded());
	/* probed: the collector counted this rep (it may have failed to attach:
	 * then it is unloaded, and the row says 0) */
	struct fl_run_rep x = { e, round, slot, "ok", r.info, &r, e->v->helper ? NULL : &c.perf,
				k.probed && fl_probes_loaded(), fl_hash_column() };
	char why[120], lost[420];
	if (r.error[0]) {
		x.status = "error";
		x.note = r.error;
		if (r.stranded > 0) { /* the evidence, with the kernel's side */
			char k[200];
			if (measured && !x.probed && fl_probes_loaded())
				snprintf(k, sizeof k, "kernel side not recorded (a timed round: "
					 "the collector detached; --probes counts every round)");
			else
				fl_probes_stranded_note(r.stranded_tid, measured, k, sizeof k);
			snprintf(lost, sizeof lost, "%s; %s", r.error, k);
			x.note = lost;
		}
	} else if (r.ops == 0 || r.elapsed_ns <= 0) {
		/* Not a broken invariant (a stuck design hangs the workload, it
		 * does not return): the threads were not scheduled within the
		 * rep, e.g. on a loaded machine. The round goes unpaired. */
		snprintf(why, sizeof why, "no operation completed in %.3f s: the machine was busy",
			 (double)r.elapsed_ns / 1e9);
		x.status = "empty";
		x.note = why;
	}
	if (measured || r.error[0])
		emit(csv, pt, &x);
	if (!strcmp(x.status, "ok")) {
		out->ns_per_op = (double)r.elapsed_ns / (double)r.ops;
		out->blocking = r.csw_vol;
	}
	if (measured && r.lat && !strcmp(x.status, "ok")) { /* the point's distribution */
		if (!*acc)
			*acc = fl_xcalloc(1, sizeof **acc);
		fl_hist_merge(*acc, r.lat);
	}
	free(r.lat);
	return !r.error[0];
}

struct counts {
	int ok, skipped, error;
};

/* Whether reps at this point time their blocking op (--latency). */
static bool want_latency(const struct fl_spec *s, const struct fl_workload *w)
{
	return w->latency && (s->latency < 0 ? w->latency_default : s->latency);
}

/* NULL when this entry can run at this point, else why not (its skipped
 * row), checked in this order: the hash mode was refused, the kernel or the
 * build lacks the design or its helper, the workload does not fit it. */
static const char *entry_unavailable(const struct fl_point *pt, const struct fl_entry *e)
{
	const char *why = fl_hash_unavailable();
	if (!why)
		why = fl_rep_unavailable(e->v);
	return why ? why : fl_workload_unavailable(pt->w, e->v, &pt->p);
}

/* What a point carries across the run's rounds (run_points interleaves them). */
struct point_run {
	struct fl_hist *acc[FL_MAXENTRY];    /* latency over the measured reps */
	bool live[FL_MAXENTRY];              /* neither skipped nor failed */
	bool latency;
	struct fl_cpu_sample cpu;            /* summed over the point's rounds */
	double load_first, load_last;
	int base, ctrl;                      /* the baseline's and the control's entry, or -1 */
	double *bns, *cns;                   /* their ns per op in the timed rounds both ran ok */
	int npair, cap;
	int64_t warm[FL_MAXENTRY];           /* each entry's blocking ops in the last warm-up */
	int next;                            /* the number of the point's next round */
	int timed;                           /* its timed rounds so far */
};

/* A timed round's baseline and control, paired (the control's resolution:
 * report/rounds.h). */
static void pair_push(struct point_run *pr, double b, double c)
{
	if (isnan(b) || isnan(c))
		return;
	if (pr->npair == pr->cap) {
		pr->cap = pr->cap ? 2 * pr->cap : 32;
		pr->bns = fl_xrealloc(pr->bns, (size_t)pr->cap * sizeof *pr->bns);
		pr->cns = fl_xrealloc(pr->cns, (size_t)pr->cap * sizeof *pr->cns);
	}
	pr->bns[pr->npair] = b;
	pr->cns[pr->npair++] = c;
}

/* Before the first round: the skipped rows, once. */
static void point_begin(const struct fl_spec *s, const struct fl_point *pt, struct fl_csv *csv,
			struct point_run *pr, struct counts *n)
{
	pr->latency = want_latency(s, pt->w);
	pr->base = pr->ctrl = -1;
	char ctrl[64];
	snprintf(ctrl, sizeof ctrl, "%s#2", s->blabel);
	for (int i = 0; i < pt->ne; i++) {
		if (!strcmp(pt->e[i].label, s->blabel))
			pr->base = i;
		else if (!strcmp(pt->e[i].label, ctrl))
			pr->ctrl = i;
		const char *why = entry_unavailable(pt, &pt->e[i]);
		pr->live[i] = !why;
		if (why)
			emit(csv, pt, &(struct fl_run_rep){ &pt->e[i], 0, 0, "skipped", why, NULL, NULL,
							      false, fl_hash_column() });
		n->skipped += !pr->live[i];
	}
}

/* One round of one point: every live entry once, in a fresh random order.
 * A timed round (measured, not one of --probe-rounds' probed rounds)
 * pairs the baseline with its control for the stop rule. */
static void point_round(const struct fl_spec *s, const struct fl_point *pt, struct round_kind rk,
			bool timed, struct fl_csv *csv, struct point_run *pr, uint64_t *rng,
			struct progress *g, struct counts *n)
{
	struct fl_cpu_sample a, b;
	double la = fl_loadavg();
	if (rk.round == -s->warmup)
		pr->load_first = la;
	fl_cpu_sample(&a);
	double per_rep = s->base.ops ? 0.05 : (double)pt->p.duration_ns / 1e9;
	double ns[FL_MAXENTRY];
	int order[FL_MAXENTRY];
	show(g, pt, rk.round, s->rounds);
	fl_round_order(rng, pt->ne, order);
	if (rk.round < 0)
		rk.round = -1;
	for (int k = 0, slot = 0; k < pt->ne && !fl_interrupted; k++) {
		int i = order[k];
		struct rep_out o = { NAN, 0 };
		if (pr->live[i] && !run_rep(s, csv, pt, i, rk, slot++, pr->latency, &pr->acc[i], &o)) {
			pr->live[i] = false; /* one error row is the verdict */
			n->error++;
		}
		ns[i] = o.ns_per_op;
		if (!rk.measured)
			pr->warm[i] = isnan(o.ns_per_op) ? -1 : o.blocking;
		g->done += pr->live[i] ? per_rep : 0;
	}
	if (!fl_interrupted)
		log_line(g, pt);
	pr->timed += timed;
	if (timed && pr->base >= 0 && pr->ctrl >= 0)
		pair_push(pr, ns[pr->base], ns[pr->ctrl]);
	csv_check(csv, fl_csv_flush(csv)); /* a round's rows at once */
	fl_cpu_sample(&b);
	pr->cpu.busy_ns += b.busy_ns - a.busy_ns;
	pr->cpu.steal_ns += b.steal_ns - a.steal_ns;
	pr->cpu.self_ns += b.self_ns - a.self_ns;
	pr->cpu.wall_ns += b.wall_ns - a.wall_ns;
	pr->load_last = fl_loadavg();
}

/* ---- the whole run ----------------------------------------------------------- */

static char pin_text[2200]; /* the # pin: line's (record/machine.h) */
static void pin(const char *arg)
{
	cpu_set_t set;
	char err[2400];
	if (fl_pin_resolve(arg, &set, pin_text, sizeof pin_text, err, sizeof err))
		fl_usage_error("--pin: %s", err);
	fl_machine_cpus_given(NULL); /* the # cores: line's: what we had before the pin */
	if (sched_setaffinity(0, sizeof set, &set))
		fl_usage_error("--pin: cannot run on CPUs %s: %s", arg, strerror(errno));
}

static double expected_cost(const struct fl_spec *s, const struct fl_point *pts, int n)
{
	double per_rep = s->base.ops ? 0.05 : (double)s->base.duration_ns / 1e9, total = 0;
	int rounds = s->warmup + s->rounds +
		     (s->probe_rounds > 0 && s->probes != FL_PROBES_OFF ? s->probe_rounds : 0);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < pts[i].ne; j++)
			total += entry_unavailable(&pts[i], &pts[i].e[j]) ? 0 : per_rep * rounds;
	if (s->target_res > 0 && total < (double)s->res_budget_ns / 1e9)
		total = (double)s->res_budget_ns / 1e9; /* at most: the budget */
	return total;
}

static int dry_run(const struct fl_spec *s, const struct fl_point *pts, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < pts[i].ne; j++) {
			const struct fl_point *p = &pts[i];
			const char *why = entry_unavailable(p, &p->e[j]);
			printf("%-20s %-12s T=%-4d K=%-4d sems=%-2d wake=%-5s %s%s\n",
			       p->e[j].label, p->w->name, p->p.threads, p->p.tokens, p->p.sems,
			       fl_wake_name((enum fl_wake_strategy)p->wake), why ? "skipped: " : "",
			       why ? why : "");
		}
	printf("%d points, %d + %d rounds each (+ %d probed), about %.0f s of timed work\n", n,
	       s->warmup, s->rounds, s->probes == FL_PROBES_OFF ? 0 : s->probe_rounds,
	       expected_cost(s, pts, n));
	return 0;
}

/* --as: one `# as:` line per pair, so that the store and every table mark
 * the run (report/table.h, fl_table_as_mark), a --hash list's merged file
 * too. */
static void as_meta(struct fl_csv *csv, const void *arg)
{
	const struct fl_spec *s = arg;
	for (int k = 0; k < s->nas; k++)
		fl_csv_meta(csv, "as: %s=%s (test only: these rows are not %s's code)",
			    s->as[k].parent->name, s->as[k].mutant->name, s->as[k].parent->name);
}

/* A --hash list: the same command once per mode, each in its own process,
 * all with this run's seed (hashmode.h). */
static int each_hash_mode(const struct fl_spec *s, char **items, int nh)
{
	char **argv = fl_xcalloc((size_t)s->argc + 3, sizeof *argv), seed[32];
	memcpy(argv, s->argv, (size_t)s->argc * sizeof *argv);
	snprintf(seed, sizeof seed, "%llu", (unsigned long long)s->seed);
	argv[s->argc] = "--seed";
	argv[s->argc + 1] = seed;
	fl_interrupt_catch();
	int rc = fl_hash_run_each(s->argc + 2, argv, items, nh, s->csv_path, fl_run_csv_header(),
				  as_meta, s);
	free(argv);
	return rc;
}

static void machine_meta(const struct fl_spec *s, struct fl_csv *csv)
{
	char hyp[160], gov[160];
	fl_machine_virt(hyp, sizeof hyp, gov, sizeof gov);
	as_meta(csv, s);
	fl_csv_meta(csv, "seed: %llu", (unsigned long long)s->seed);
	fl_csv_meta(csv, "rounds: %d measured + %d warm-up per point, interleaved across the "
		    "points (each round: every point once; the points from round 1 on, and within "
		    "each point the variants, in a fresh random order)", s->rounds, s->warmup);
	fl_csv_meta(csv, "hypervisor: %s", hyp);
	fl_csv_meta(csv, "governor: %s", gov);
	fl_csv_meta(csv, "pin: %s", s->pin ? pin_text : "none");
	fl_csv_meta(csv, "load before: %.2f", fl_loadavg());
	/* The machine's state of the moment, which moves between runs (on
	 * the 2-vCPU VM its two CPUs are near or far apart: a spin handoff
	 * round trip of ~110 or ~450 ns; variants/policy.c, point 6): the
	 * adaptive policy's calibration, once here (each adaptive rep
	 * calibrates again). */
	if (fl_adapt_calibrate() == 0) {
		struct fl_adapt_costs c = fl_adapt_costs();
		fl_csv_meta(csv, "handoffs: spin round trip %u ns between two CPUs (0: not measured), "
			    "futex handoff %u ns", c.spin_rt_ns, c.park_ns);
	}
}

/* Other processes' CPU over ~0.1 s before starting: a one-line warning. */
static void check_quiet(void)
{
	struct fl_cpu_sample a, b;
	fl_cpu_sample(&a);
	struct timespec d = { 0, 100000000 };
	nanosleep(&d, NULL);
	fl_cpu_sample(&b);
	double steal, others = fl_cpu_others(&a, &b, &steal);
	if (others > 0.25)
		fprintf(stderr, "futexlab: warning: other work is running (%.0f%% of a core, load "
			"average %.2f): expect wider intervals\n", 100 * others, fl_loadavg());
}

static const struct fl_spec *more_spec; /* exec's per-program report, in the full tables */
static void more(FILE *f, void *t) { more_spec->hooks->summary(f, t); }

static void print_table(const struct fl_spec *s, struct fl_csv *csv)
{
	struct fl_table t;
	struct fl_cells cells;
	char err[300], txt[1100];
	if (fl_table_from_lines(&t, csv->meta, csv->header, csv->lines, csv->n, err,
				sizeof err) == 0 &&
	    fl_cells_build(&t, &cells, err, sizeof err) == 0) {
		more_spec = s;
		fl_report_text(stdout, s->csv_path ? fl_detail_path(s->csv_path, txt, sizeof txt) : NULL,
			       s->detail, &t, &cells, s->baseline,
			       s->hooks && s->hooks->summary ? more : NULL, &t);
		fl_cells_free(&cells);
		fl_table_free(&t);
	} else {
		fprintf(stderr, "futexlab: cannot summarize: %s\n", err);
	}
}

/* ---- probed rounds, stretched reps ------------------------------------------ */

/* The probed rounds this run adds beside its timed ones: --probe-rounds N
 * when the collector is loaded, else none (the run takes no longer for
 * counts it cannot have). */
static int probed_rounds(const struct fl_spec *s)
{
	return s->probe_rounds > 0 && fl_probes_loaded() ? s->probe_rounds : 0;
}

/* Whether measured round r is probed. With --probe-rounds N the N probed
 * rounds are spread evenly through the R + N (round r is probed where
 * floor(r N / (R + N)) steps up: never the first, always the last), so
 * they sample the run's machine states like the timed ones; the timed
 * rounds run with the collector detached, their time untaxed
 * (probes/overhead.md). With 0 (--probes, --probe-rounds 0) every round
 * is probed when the collector is loaded; without a preset or the option
 * N is fl_spec_probe_rounds's (spec.h). */
static bool round_probed(const struct fl_spec *s, int r)
{
	int np = probed_rounds(s), m = s->rounds + np;
	if (!np)
		return fl_probes_loaded();
	return (int64_t)(r + 1) * np / m != (int64_t)r * np / m;
}

/* --min-blocking: after the warm-up, each point's rep is stretched so that
 * it holds its workload's min_blocking blocking ops (workload.h), judged by
 * the median over the point's entries of their warm-up reps' voluntary
 * context switches; at most STRETCH_MAX times the duration. The median: a
 * design that spins and never sleeps must not stretch a point whose other
 * entries block plenty, nor one that blocks on every op shrink it. */
enum { STRETCH_MAX = 4 };

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void stretch(const struct fl_spec *s, struct fl_point *pts, struct point_run *pr,
		    int npts, struct fl_csv *csv)
{
	for (int i = 0; i < npts; i++) {
		int64_t v[FL_MAXENTRY];
		int nv = 0;
		for (int e = 0; e < pts[i].ne; e++)
			if (pr[i].live[e] && pr[i].warm[e] >= 0)
				v[nv++] = pr[i].warm[e];
		int want = pts[i].w->min_blocking;
		if (!nv || !want || s->base.ops)
			continue;
		qsort(v, (size_t)nv, sizeof *v, cmp_i64);
		int64_t med = v[nv / 2];
		double f = med >= want ? 1 : med < 1 ? STRETCH_MAX : (double)want / (double)med;
		if (f > STRETCH_MAX)
			f = STRETCH_MAX;
		if (f <= 1.05)
			continue;
		pts[i].p.duration_ns = (int64_t)((double)pts[i].p.duration_ns * f);
		fl_csv_meta(csv, "point %d (%s T=%d K=%d): reps stretched to %.0f ms (%lld blocking "
			    "ops a warm-up rep, median over its entries; its workload asks %d)", i + 1,
			    pts[i].w->name, pts[i].p.threads, pts[i].p.tokens,
			    (double)pts[i].p.duration_ns / 1e6, (long long)med, want);
	}
}

/* ---- buying resolution: --target-res, --res-budget -------------------------- */

/* The most timed rounds a point may reach: ROUNDS_CAP times the run's
 * --rounds (a point in two regimes never reaches a target: the cap keeps
 * it from taking the whole budget). */
enum { ROUNDS_CAP = 8 };

/* The points of pick[0..np) whose next round still fits in the budget,
 * worst first (a point's round: its live entries, one rep each), in a
 * fresh random order; returns how many. */
static int fit_budget(const struct fl_spec *s, const struct fl_point *pts,
		      const struct point_run *pr, int *pick, int np, int64_t t0, uint64_t *rng)
{
	double left = (double)(s->res_budget_ns - (fl_now_ns() - t0)) / 1e9;
	int k = 0;
	for (int j = 0; j < np; j++) {
		const struct point_run *r = &pr[pick[j]];
		int live = 0;
		for (int e = 0; e < pts[pick[j]].ne; e++)
			live += r->live[e];
		double cost = live * (double)pts[pick[j]].p.duration_ns / 1e9;
		if (cost > left)
			break;
		left -= cost;
		pick[k++] = pick[j];
	}
	int order[FL_MAXLIST * 8], tmp[FL_MAXLIST * 8];
	if (k > (int)(sizeof order / sizeof order[0]))
		k = (int)(sizeof order / sizeof order[0]);
	fl_round_order(rng, k, order);
	memcpy(tmp, pick, (size_t)k * sizeof *pick);
	for (int j = 0; j < k; j++)
		pick[j] = tmp[order[j]];
	return k;
}

/* After the first rounds: passes of one more timed round for each point
 * fl_rounds_pick names (the control's resolution above the target: the
 * control alone decides, never a design's ratio: stats.h), until it names
 * none, the points it names are at the cap, or the next pass would not fit
 * in what is left of --res-budget, counted from the run's start. */
static void buy_rounds(const struct fl_spec *s, struct fl_point *pts, int npts,
		       struct fl_csv *csv, struct point_run *pr, uint64_t *rng,
		       struct progress *g, struct counts *n, int64_t t0)
{
	double *res = fl_xcalloc((size_t)npts, sizeof *res);
	int *rounds = fl_xcalloc((size_t)npts, sizeof *rounds);
	int *pick = fl_xcalloc((size_t)npts, sizeof *pick), extra = 0, passes = 0;
	int cap = s->rounds * ROUNDS_CAP > 1000 ? 1000 : s->rounds * ROUNDS_CAP;
	/* --target-res PCT is a band of x/÷(1 + PCT/100): resolutions are
	 * half-widths in ln r (stats.h, "the log scale") */
	double target = log1p(s->target_res);
	while (!fl_interrupted) {
		for (int i = 0; i < npts; i++) {
			bool paired = pr[i].base >= 0 && pr[i].ctrl >= 0 && pr[i].live[pr[i].base] &&
				      pr[i].live[pr[i].ctrl];
			res[i] = paired ? fl_control_resolution(pr[i].bns, pr[i].cns, pr[i].npair) : 0;
			rounds[i] = pr[i].timed;
		}
		int np = fl_rounds_pick(res, rounds, npts, target, cap, pick);
		np = fit_budget(s, pts, pr, pick, np, t0, rng);
		if (!np)
			break;
		passes++;
		snprintf(g->stage, sizeof g->stage, "extra rounds, pass %d", passes);
		g->npoints = np;
		for (int j = 0; j < np && !fl_interrupted; j++, extra++) {
			struct point_run *r = &pr[pick[j]];
			g->point = j + 1;
			point_round(s, &pts[pick[j]], (struct round_kind){ r->next, true, false }, true,
				    csv, r, rng, g, n);
			r->next++;
		}
	}
	int under = 0;
	for (int i = 0; i < npts; i++) {
		double q = fl_control_resolution(pr[i].bns, pr[i].cns, pr[i].npair);
		under += q <= target;
		char band[32];
		fl_csv_meta(csv, "point %d (%s T=%d K=%d): %d timed rounds, control %s", i + 1,
			    pts[i].w->name, pts[i].p.threads, pts[i].p.tokens, pr[i].timed,
			    fl_factor_text(band, sizeof band, q));
	}
	fl_csv_meta(csv, "resolution: target +-%.1f%%, budget %.0f s: %d extra rounds in %d "
		    "passes; %d of %d points at or under the target", 100 * s->target_res,
		    (double)s->res_budget_ns / 1e9, extra, passes, under, npts);
	free(res);
	free(rounds);
	free(pick);
}

/* The rounds are interleaved across the points: each round runs every point
 * once, the points in a fresh random order (the warm-up and first rounds in
 * their listed order), so a point's rounds are spread over the whole run
 * instead of one stretch of it. The machine's state drifts in steps that
 * last seconds (results/trust.md, "Why every round visits every point":
 * the uncontended fast path of every design but the inlined floor moves
 * 17 -> 28 ns and back); a point run in one stretch sees one state, its
 * ratios that state's, and two runs disagree. Spread over the run, each
 * point samples the run's states and its interval shows their spread. */
static void run_points(const struct fl_spec *s, struct fl_point *pts, int npts,
		       struct fl_csv *csv, struct fl_csv *lat, struct counts *n, int *done)
{
	uint64_t rng = s->seed;
	struct progress g = { .on = !s->quiet, .tty = isatty(2), .t0 = fl_now_ns(),
			      .total = expected_cost(s, pts, npts), .npoints = npts };
	struct fl_cpu_sample c0, c1;
	fl_cpu_sample(&c0);
	struct point_run *pr = fl_xcalloc((size_t)npts, sizeof *pr);
	int *porder = fl_xcalloc((size_t)npts, sizeof *porder);
	for (int i = 0; i < npts; i++)
		point_begin(s, &pts[i], csv, &pr[i], n);
	int nprobed = probed_rounds(s), nround = s->rounds + nprobed;
	for (int round = -s->warmup; round < nround && !fl_interrupted; round++) {
		if (round == 0 && s->warmup > 0 && s->min_blocking)
			stretch(s, pts, pr, npts, csv);
		/* The warm-up rounds and the first measured one (the CSV's first
		 * rows: warm-up reps are not written) take the points in their
		 * listed order, so the CSV and every table list them so. The
		 * order of points cannot bias a ratio (both sides of a ratio are
		 * in one point's round); only the order within a point could. */
		if (round <= 0)
			for (int k = 0; k < npts; k++)
				porder[k] = k;
		else
			fl_round_order(&rng, npts, porder);
		struct round_kind rk = { round, round >= 0, round >= 0 && round_probed(s, round) };
		if (round < 0)
			snprintf(g.stage, sizeof g.stage, "warm-up %d/%d", round + s->warmup + 1,
				 s->warmup);
		else
			snprintf(g.stage, sizeof g.stage, "round %d/%d", round + 1, nround);
		bool timed = rk.measured && (!rk.probed || !nprobed);
		for (int k = 0; k < npts && !fl_interrupted; k++) {
			int i = porder[k];
			g.point = k + 1;
			point_round(s, &pts[i], rk, timed, csv, &pr[i], &rng, &g, n);
			pr[i].next = round + 1;
		}
	}
	if (s->target_res > 0)
		buy_rounds(s, pts, npts, csv, pr, &rng, &g, n, g.t0);
	*done = fl_interrupted ? 0 : npts; /* a point is done when its last round is */
	for (int i = 0; i < npts; i++) {
		double steal, others = fl_cpu_others(&(struct fl_cpu_sample){ 0 }, &pr[i].cpu, &steal);
		fl_csv_meta(csv, "point %d (%s T=%d K=%d): load %.2f -> %.2f, other work %.1f%% of a "
			    "core, steal %.1f%%", i + 1, pts[i].w->name, pts[i].p.threads,
			    pts[i].p.tokens, pr[i].load_first, pr[i].load_last, 100 * others,
			    100 * steal);
		for (int e = 0; e < pts[i].ne && !fl_interrupted; e++)
			n->ok += pr[i].live[e]; /* neither skipped nor failed */
		csv_check(lat, fl_lat_rows(lat, &pts[i], pr[i].acc, fl_hash_column(), timer_ns));
		free(pr[i].bns);
		free(pr[i].cns);
	}
	free(porder);
	free(pr);
	if (g.on && g.tty)
		fprintf(stderr, "\r\033[K");
	fl_cpu_sample(&c1);
	double steal, others = fl_cpu_others(&c0, &c1, &steal);
	fl_csv_meta(csv, "other work: %.1f%% of a core over the run, steal %.1f%%", 100 * others,
		    100 * steal);
	if (others > 0.10 && !s->quiet)
		fprintf(stderr, "futexlab: warning: other processes used %.0f%% of a core during "
			"the run: intervals are wider than on a quiet machine\n", 100 * others);
}

/* The metadata lines of the run (after the machine's and the command's):
 * the timer's cost, which workloads time their blocking op (into lw, the
 * side file is written when any does), the detector's threshold. */
static void run_meta(const struct fl_spec *s, struct fl_csv *csv, const struct fl_point *pts,
		     int npts, char *lw, size_t n)
{
	measure_timer();
	fl_csv_meta(csv, "timer: fl_now_ns (vDSO clock_gettime CLOCK_MONOTONIC) %.0f ns a read "
		    "(median of back-to-back pairs), subtracted from the lat_* columns", timer_ns);
	lw[0] = '\0';
	for (int i = 0; i < fl_nworkloads; i++) {
		bool in_run = false;
		for (int k = 0; k < npts && !in_run; k++)
			in_run = pts[k].w == fl_workloads[i];
		if (in_run && want_latency(s, fl_workloads[i]))
			snprintf(lw + strlen(lw), n - strlen(lw), "%s%s", lw[0] ? "," : "",
				 fl_workloads[i]->name);
	}
	fl_csv_meta(csv, "latency: %s (%s)", lw[0] ? lw : "none",
		    s->latency < 0 ? "each workload's default" : s->latency ? "--latency" :
		    "--no-latency");
	if (s->base.stranded_ns > 0)
		fl_csv_meta(csv, "stranded: %lld ms (the stranded-waiter detector's threshold, "
			    "--stranded-ms)", (long long)(s->base.stranded_ns / 1000000));
	else
		fl_csv_meta(csv, "stranded: off");
}

/* The collector, perf and bpftrace, before the first rep. */
static void probes_start(const struct fl_spec *s, struct fl_csv *csv)
{
	fl_probes_setup(s->probes);
	/* before bpftrace attaches (its cost would land in the baseline) and
	 * before any rep: ~0.1 s, the wake path (probes/overhead.md) */
	double ovh = fl_probes_overhead_ns();
	if (!isnan(ovh))
		fl_csv_meta(csv, "probes_overhead_ns_per_syscall: %.0f (the collector on a "
			    "FUTEX_WAKE nobody waits on, attached vs detached)", ovh);
	if (fl_perf_enabled) {
		char what[256];
		fl_perf_probe(what, sizeof what);
		fprintf(stderr, "futexlab: perf counters: %s\n", what);
	}
	if (!fl_probes_loaded())
		fl_csv_meta(csv, "probes: off");
	else if (probed_rounds(s))
		fl_csv_meta(csv, "probes: %d probed rounds beside %d timed (unprobed) rounds, "
			    "spread through them", probed_rounds(s), s->rounds);
	else
		fl_csv_meta(csv, "probes: every round");
	if (s->bt_script)
		fl_bpftrace_start(s->bt_script, s->csv_path);
}

/* The run's rounds, then the table and the closing lines; the exit status. */
static int run_and_report(const struct fl_spec *s, struct fl_point *pts, int npts,
			  struct fl_csv *csv, struct fl_csv *lat)
{
	printf("futexlab %s — %d points, %d warm-up + %d measured rounds, seed %llu\n", s->cmd,
	       npts, s->warmup, s->rounds, (unsigned long long)s->seed);
	fflush(stdout);
	int64_t t0 = fl_now_ns();
	struct counts n = { 0 };
	int done = 0;
	run_points(s, pts, npts, csv, lat, &n, &done);
	fl_helper_shutdown();
	fl_bpftrace_stop();
	fl_probes_teardown();
	printf("\n%s %s: %d of %d points in %.1f s — %d ok, %d skipped, %d error\n", s->cmd,
	       fl_interrupted ? "INTERRUPTED" : "done", done, npts,
	       (double)(fl_now_ns() - t0) / 1e9, n.ok, n.skipped, n.error);
	if (s->csv_path)
		printf("CSV: %s (%d rows%s)\n", s->csv_path, csv->n,
		       fl_interrupted ? ", every rep finished before the interrupt" : "");
	fflush(stdout);
	print_table(s, csv);
	if (fl_interrupted)
		return 130;
	if (n.error)
		fprintf(stderr, "futexlab: %d point(s) broke an invariant (error above)\n", n.error);
	return n.error ? 1 : 0;
}

int fl_bench(struct fl_spec *s)
{
	char hbuf[1024], *hitems[FL_MAXLIST];
	snprintf(hbuf, sizeof hbuf, "%s", s->hlist);
	int nh = fl_hash_list(hbuf, hitems, FL_MAXLIST);
	if (s->perf) /* --perf, parsed into the spec; applied here, before any rep */
		fl_perf_enabled = true;
	struct fl_point *pts;
	int npts = fl_points_build(s, &pts);
	if (s->pin)
		pin(s->pin);
	if (s->dry || nh > 1) {
		int rc = s->dry ? dry_run(s, pts, npts) : each_hash_mode(s, hitems, nh);
		free(pts);
		return rc;
	}
	fl_hash_setup(hitems[0]); /* before any worker thread exists */
	fl_helper_set_hash(hitems[0]); /* the helper's too (proc/helper.h) */
	struct fl_csv csv;
	int e = fl_csv_open(&csv, s->csv_path, fl_run_csv_header(), s->argc, s->argv);
	if (e) {
		fprintf(stderr, "futexlab: cannot write %s: %s\n", s->csv_path, strerror(e));
		free(pts);
		return 1;
	}
	machine_meta(s, &csv);
	if (s->hooks && s->hooks->meta)
		s->hooks->meta(&csv);
	char lw[512]; /* the run's workloads that time their blocking op */
	run_meta(s, &csv, pts, npts, lw, sizeof lw);
	struct fl_csv latcsv, *lat = NULL;
	char latpath[1100];
	if (s->csv_path && lw[0]) { /* x.csv -> x.lat.csv: the latency distributions */
		fl_lat_path(s->csv_path, latpath, sizeof latpath);
		e = fl_csv_open(&latcsv, latpath, fl_lat_csv_header, s->argc, s->argv);
		if (e) {
			fprintf(stderr, "futexlab: cannot write %s: %s\n", latpath, strerror(e));
			fl_csv_close(&csv);
			free(pts);
			return 1;
		}
		lat = &latcsv;
		as_meta(lat, s); /* its rows are labelled as the CSV's */
	}
	fl_interrupt_catch();
	probes_start(s, &csv);
	if (!s->quiet)
		check_quiet();
	int rc = run_and_report(s, pts, npts, &csv, lat);
	fl_csv_close(&csv);
	if (lat)
		fl_csv_close(lat);
	free(pts);
	return rc;
}

int fl_bench_main(const char *cmd, const struct fl_spec_defaults *d, int argc, char **argv)
{
	struct fl_spec s;
	if (fl_spec_parse(&s, cmd, d, argc, argv))
		return 0; /* --help */
	return fl_bench(&s);
}
