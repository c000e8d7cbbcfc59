/* runner/meta.c — what the run's CSV says of the machine and the run
 * (run.h): the metadata lines before the first rep (the machine's state,
 * the seed, the rounds, --as, the timer, the latency, the detector, the
 * probes), the quiet check before starting, and each point's closing
 * line. The rows themselves are reps.c's. */
#include "runner/run.h"
#include "runner/runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "probes/perf.h"
#include "record/csv.h"
#include "variants/policy.h"

/* So that the store and every table mark the run (model/table.h,
 * fl_table_as_mark). */
void fl_run_as_meta(struct fl_csv *csv, const void *arg)
{
	const struct fl_spec *s = arg;
	for (int k = 0; k < s->nas; k++)
		fl_csv_meta(csv, "as: %s=%s (test only: these rows are not %s's code)",
			    s->as[k].parent->name, s->as[k].mutant->name, s->as[k].parent->name);
}

/* runner.h; defined here, where it is read first (the # handoffs: line),
 * below runner.c, which reads it too */
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
	char label[FL_RUN_KEY_LEN];
	double steal, others = fl_cpu_others(&(struct fl_cpu_sample){ 0 }, &pr->cpu, &steal);
	fl_csv_meta(r->csv, "point %d (%s): load %.2f -> %.2f, other work %.1f%% of a core, "
		    "steal %.1f%%", i + 1, fl_run_point_key(&r->pts[i], label, sizeof label),
		    pr->load_first, pr->load_last, 100 * others, 100 * steal);
}
