/* runner/meta.c — what the run says (run.h): the point's label, the
 * progress on stderr, the dry run, the CSV's metadata lines, and the ratio
 * table at the end. */
#include "runner/run.h"
#include "runner/runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/wake.h"
#include "probes/perf.h"
#include "record/csv.h"
#include "report/summary.h"
#include "model/table.h"
#include "variants/policy.h"

const char *fl_point_label(const struct fl_point *pt, char *out, size_t n)
{
	int l = snprintf(out, n, "%s T=%d K=%d %s", pt->w->name, pt->p.threads, pt->p.tokens,
			 fl_wake_name((enum fl_wake_strategy)pt->wake));
	if (pt->p.sems > 1 && l >= 0 && (size_t)l < n)
		snprintf(out + l, n - (size_t)l, " sems=%d", pt->p.sems);
	return out;
}

/* Progress on stderr (not with --quiet). On a terminal one line, rewritten
 * in place before each point's round. Anywhere else (a CI job's log, a
 * file) a rewritten line is noise, and none at all leaves a log silent for
 * the whole run: a line of its own after a point's round, the first one at
 * once (how long the run will take) and then at most one every LOG_GAP_S
 * seconds or every LOG_SHARE of the estimated time, whichever is longer
 * (a log of at most about a hundred lines however long the run). */
#define LOG_GAP_S 5.0
#define LOG_SHARE 0.01

static void fmt_time(char *out, size_t n, double s)
{
	if (s < 60)
		snprintf(out, n, "%.0fs", s < 0 ? 0 : s);
	else
		snprintf(out, n, "%d:%02d", (int)s / 60, (int)s % 60);
}

void fl_progress_show(const struct fl_run *r, int pi, int round)
{
	const struct fl_progress *g = &r->g;
	const struct fl_point *pt = &r->pts[pi];
	if (!g->on || !g->tty)
		return;
	double el = (double)(fl_now_ns() - g->t0) / 1e9;
	char a[16], b[16];
	fmt_time(a, sizeof a, el);
	fmt_time(b, sizeof b, g->done > 0 ? el * (g->total - g->done) / g->done : g->total);
	char label[96];
	fprintf(stderr, "\r\033[K[%d/%d] %3.0f%% elapsed %s, ~%s left  %s", g->point, g->npoints,
		100 * g->done / g->total, a, b, fl_point_label(pt, label, sizeof label));
	fprintf(stderr, round < 0 ? "  warm-up" : "  round %d/%d", round + 1, r->s->rounds);
}

/* After a point's round, off a terminal: its line when one is due, e.g.
 * "futexlab: progress: 34% after 25s, about 48s left (round 4/15, point
 * 3/10 done: pool T=4 K=1 exact)". */
void fl_progress_log(struct fl_run *r, int pi)
{
	struct fl_progress *g = &r->g;
	if (!g->on || g->tty)
		return;
	int64_t now = fl_now_ns();
	double gap = LOG_SHARE * g->total > LOG_GAP_S ? LOG_SHARE * g->total : LOG_GAP_S;
	if (g->logged && (double)(now - g->logged) / 1e9 < gap)
		return;
	g->logged = now;
	double el = (double)(now - g->t0) / 1e9, share = g->total > 0 ? g->done / g->total : 1;
	char a[16], b[16], label[96];
	fmt_time(a, sizeof a, el);
	fmt_time(b, sizeof b, g->done > 0 ? el * (g->total - g->done) / g->done : g->total);
	fprintf(stderr, "futexlab: progress: %.0f%% after %s, about %s left (%s, point %d/%d "
		"done: %s)\n", 100 * (share > 1 ? 1 : share), a, b, g->stage, g->point, g->npoints,
		fl_point_label(&r->pts[pi], label, sizeof label));
}

/* What a rep costs beyond its timed work: its threads made and joined, the
 * adaptive policy's calibration, the stranded-waiter detector, a helper's
 * round trip, the row written. Measured: a quick sweep of 4437 reps of
 * 13 ms took 78 s of wall time (scripts/aa's, results/estimate.md), 4.6 ms
 * a rep beyond the 13; results/estimate.md checks the estimate against
 * other sweeps. */
#define REP_SETUP_S 0.0046

double fl_run_expected_cost(const struct fl_spec *s, const struct fl_point *pts, int n)
{
	double per_rep = (s->base.ops ? 0.05 : (double)s->base.duration_ns / 1e9) + REP_SETUP_S;
	double total = 0;
	int rounds = s->warmup + s->rounds +
		     (s->probe_rounds > 0 && s->probes != FL_PROBES_OFF ? s->probe_rounds : 0);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < pts[i].ne; j++)
			total += fl_run_unavailable(&pts[i], &pts[i].e[j]) ? 0 : per_rep * rounds;
	if (s->target_res > 0 && total < (double)s->res_budget_ns / 1e9)
		total = (double)s->res_budget_ns / 1e9; /* at most: the budget */
	return total;
}

int fl_run_dry(const struct fl_spec *s, const struct fl_point *pts, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < pts[i].ne; j++) {
			const struct fl_point *p = &pts[i];
			const char *why = fl_run_unavailable(p, &p->e[j]);
			printf("%-20s %-12s T=%-4d K=%-4d sems=%-2d wake=%-5s %s%s\n",
			       p->e[j].label, p->w->name, p->p.threads, p->p.tokens, p->p.sems,
			       fl_wake_name((enum fl_wake_strategy)p->wake), why ? "skipped: " : "",
			       why ? why : "");
		}
	printf("%d points, %d + %d rounds each (+ %d probed), about %.0f s (the reps' timed work "
	       "and %.1f ms a rep to set up)\n", n, s->warmup, s->rounds,
	       s->probes == FL_PROBES_OFF ? 0 : s->probe_rounds, fl_run_expected_cost(s, pts, n),
	       1e3 * REP_SETUP_S);
	return 0;
}

/* So that the store and every table mark the run (model/table.h,
 * fl_table_as_mark). */
void fl_run_as_meta(struct fl_csv *csv, const void *arg)
{
	const struct fl_spec *s = arg;
	for (int k = 0; k < s->nas; k++)
		fl_csv_meta(csv, "as: %s=%s (test only: these rows are not %s's code)",
			    s->as[k].parent->name, s->as[k].mutant->name, s->as[k].parent->name);
}

bool fl_run_scratch;

static void machine_meta(const struct fl_run *r)
{
	const struct fl_spec *s = r->s;
	struct fl_csv *csv = r->csv;
	char hyp[160], gov[160];
	fl_machine_virt(hyp, sizeof hyp, gov, sizeof gov);
	fl_run_as_meta(csv, s);
	fl_csv_meta(csv, "seed: %llu", (unsigned long long)s->seed);
	fl_csv_meta(csv, "rounds: %d measured + %d warm-up per point, interleaved across the "
		    "points (each round: every point once; the points from round 1 on, and within "
		    "each point the variants, in a fresh random order)", s->rounds, s->warmup);
	fl_csv_meta(csv, "hypervisor: %s", hyp);
	fl_csv_meta(csv, "governor: %s", gov);
	fl_csv_meta(csv, "pin: %s", s->pin ? r->pin_text : "none");
	fl_csv_meta(csv, "load before: %.2f", fl_loadavg());
	/* The machine's state of the moment, which moves between runs (a
	 * VM's two CPUs may be near or far apart, and a spin handoff's round
	 * trip with them: variants/policy.c, point 6): the adaptive policy's
	 * calibration, once here (each adaptive rep calibrates again). */
	if (!fl_run_scratch && fl_adapt_calibrate() == 0) {
		struct fl_adapt_costs c = fl_adapt_costs();
		fl_csv_meta(csv, "handoffs: spin round trip %u ns between two CPUs (0: not measured), "
			    "futex handoff %u ns; a yield %u ns with nothing to switch to",
			    c.spin_rt_ns, c.park_ns, c.yield_ns);
	}
}

void fl_run_check_quiet(void)
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

/* exec's per-program report, in the full tables (fl_report_text's more) */
struct more {
	const struct fl_bench_hooks *hooks;
	const struct fl_table *t;
};

static void more(FILE *f, void *arg)
{
	const struct more *m = arg;
	m->hooks->summary(f, m->t);
}

void fl_run_table(const struct fl_spec *s, struct fl_csv *csv)
{
	struct fl_table t;
	struct fl_cells cells;
	char err[300], txt[1100];
	if (fl_table_from_lines(&t, csv->meta, csv->header, csv->lines, csv->n, err,
				sizeof err) == 0 &&
	    fl_cells_build(&t, &cells, err, sizeof err) == 0) {
		struct more m = { s->hooks, &t };
		fl_report_text(stdout, s->csv_path ? fl_detail_path(s->csv_path, txt, sizeof txt) : NULL,
			       s->detail, &t, &cells, s->baseline,
			       s->hooks && s->hooks->summary ? more : NULL, &m);
		fl_cells_free(&cells);
		fl_table_free(&t);
	} else {
		fprintf(stderr, "futexlab: cannot summarize: %s\n", err);
	}
}

/* The median of back-to-back fl_now_ns pairs, in ns. */
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static double measure_timer(void)
{
	enum { N = 4001 };
	static int64_t d[N];
	for (int i = 0; i < N; i++) {
		int64_t a = fl_now_ns();
		d[i] = fl_now_ns() - a;
	}
	/* qsort, not an insertion sort: on a busy VM the reads are not mostly
	 * equal, and 4001 of them took 8 M swaps, 25 ms of every run's start
	 * (74% of a one-rep run's time, seen by perf in ab's workers) */
	qsort(d, N, sizeof d[0], cmp_i64);
	int64_t median = d[N / 2];
	return (double)median;
}

void fl_run_meta(struct fl_run *r, char *lw, size_t n)
{
	const struct fl_spec *s = r->s;
	struct fl_csv *csv = r->csv;
	machine_meta(r);
	if (s->hooks && s->hooks->meta)
		s->hooks->meta(csv);
	r->timer_ns = measure_timer();
	fl_csv_meta(csv, "timer: fl_now_ns (vDSO clock_gettime CLOCK_MONOTONIC) %.0f ns a read "
		    "(median of back-to-back pairs), subtracted from the lat_* columns", r->timer_ns);
	lw[0] = '\0';
	for (int i = 0; i < fl_nworkloads; i++) {
		bool in_run = false;
		for (int k = 0; k < r->npts && !in_run; k++)
			in_run = r->pts[k].w == fl_workloads[i];
		if (in_run && fl_run_wants_latency(s, fl_workloads[i]))
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

void fl_run_probes_start(const struct fl_spec *s, struct fl_csv *csv)
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
	else if (fl_run_probed_rounds(s))
		fl_csv_meta(csv, "probes: %d probed rounds beside %d timed (unprobed) rounds, "
			    "spread through them", fl_run_probed_rounds(s), s->rounds);
	else
		fl_csv_meta(csv, "probes: every round");
	if (s->bt_script)
		fl_bpftrace_start(s->bt_script, s->csv_path);
}

void fl_run_point_meta(const struct fl_run *r, int i)
{
	const struct fl_point_run *pr = &r->pr[i];
	char label[96];
	double steal, others = fl_cpu_others(&(struct fl_cpu_sample){ 0 }, &pr->cpu, &steal);
	fl_csv_meta(r->csv, "point %d (%s): load %.2f -> %.2f, other work %.1f%% of a core, "
		    "steal %.1f%%", i + 1, fl_point_label(&r->pts[i], label, sizeof label),
		    pr->load_first, pr->load_last, 100 * others, 100 * steal);
}
