/* runner/runner.c — see runner.h; the run end to end. Its parts (run.h):
 * plan.c what the run will do, schedule.c which point runs when, reps.c one
 * point's round, meta.c the CSV's metadata, progress.c the progress lines. */
#include "runner/runner.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cli.h"
#include "runner/hashmode.h"
#include "runner/run.h"
#include "lib/clock.h"
#include "probes/perf.h"
#include "proc/helper.h"
#include "proc/interrupt.h"
#include "record/csv.h"
#include "record/run_row.h"
#include "fail/xalloc.h"

/* --pin: this process (and every thread and helper it starts) on the CPUs,
 * their text for the # pin: line into r->pin_text. */
static void pin(struct fl_run *r, const char *arg)
{
	cpu_set_t set;
	char err[2400];
	if (fl_pin_resolve(arg, &set, r->pin_text, sizeof r->pin_text, err, sizeof err))
		fl_usage_error("--pin: %s", err);
	fl_machine_cpus_given(NULL); /* the # cores: line's: what we had before the pin */
	if (sched_setaffinity(0, sizeof set, &set))
		fl_usage_error("--pin: cannot run on CPUs %s: %s", arg, strerror(errno));
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
	struct fl_hash_csv to = { s->csv_path, fl_run_csv_header(), fl_run_as_meta, s };
	int rc = fl_hash_run_each(s->argc + 2, argv, items, nh, &to);
	free(argv);
	return rc;
}

/* The run's rounds, then the closing lines; the exit status. The table of
 * the rows is the command's (runner.h). */
static int run_rounds(struct fl_run *r)
{
	const struct fl_spec *s = r->s;
	int npts = r->npts;
	printf("futexlab %s — %d points, %d warm-up + %d measured rounds, seed %llu\n", s->cmd,
	       npts, s->warmup, s->rounds, (unsigned long long)s->seed);
	fflush(stdout);
	int64_t t0 = fl_now_ns();
	fl_run_points(r);
	if (!fl_run_scratch) /* ab-worker: its helpers serve its next run too */
		fl_helper_shutdown();
	fl_bpftrace_stop();
	fl_probes_teardown();
	printf("\n%s %s: %d of %d points in %.1f s — %d ok, %d skipped, %d error\n", s->cmd,
	       fl_interrupted ? "INTERRUPTED" : "done", r->done, npts,
	       (double)(fl_now_ns() - t0) / 1e9, r->n.ok, r->n.skipped, r->n.error);
	if (s->csv_path)
		printf("CSV: %s (%d rows%s)\n", s->csv_path, r->csv->n,
		       fl_interrupted ? ", every rep finished before the interrupt" : "");
	fflush(stdout);
	if (fl_interrupted)
		return 130;
	return r->n.error ? 1 : 0;
}

int fl_bench(struct fl_spec *s, struct fl_bench_out *out)
{
	*out = (struct fl_bench_out){ 0 };
	char hbuf[1024], *hitems[FL_MAXLIST];
	snprintf(hbuf, sizeof hbuf, "%s", s->hlist);
	int nh = fl_hash_list(hbuf, hitems, FL_MAXLIST);
	if (s->perf) /* --perf, parsed into the spec; applied here, before any rep */
		fl_perf_enabled = true;
	static struct fl_run run; /* 2 KiB of pin text: not on the stack */
	struct fl_run *r = &run;
	*r = (struct fl_run){ .s = s };
	struct fl_point *pts;
	int npts = fl_points_build(s, &pts);
	r->pts = pts;
	r->npts = npts;
	if (s->pin)
		pin(r, s->pin);
	if (s->dry || nh > 1) {
		int rc = s->dry ? fl_run_dry(s, pts, npts) : each_hash_mode(s, hitems, nh);
		free(pts);
		return rc;
	}
	fl_hash_setup(hitems[0]); /* before any worker thread exists */
	fl_helper_set_hash(hitems[0]); /* the helper's too (proc/helper.h) */
	struct fl_csv *csv = &out->csv;
	int e = fl_csv_open(csv, s->csv_path, fl_run_csv_header(), s->argc, s->argv);
	if (e) {
		fprintf(stderr, "futexlab: cannot write %s: %s\n", s->csv_path, strerror(e));
		free(pts);
		return 1;
	}
	r->csv = csv;
	char lw[512]; /* the run's workloads that time their blocking op */
	fl_run_meta(r, lw, sizeof lw);
	struct fl_csv *lat = NULL;
	char latpath[1100];
	if (s->csv_path && lw[0]) { /* x.csv -> x.lat.csv: the latency distributions */
		fl_lat_path(s->csv_path, latpath, sizeof latpath);
		e = fl_csv_open(&out->lat, latpath, fl_lat_csv_header, s->argc, s->argv);
		if (e) {
			fprintf(stderr, "futexlab: cannot write %s: %s\n", latpath, strerror(e));
			fl_csv_close(csv);
			free(pts);
			return 1;
		}
		lat = &out->lat;
		out->lat_open = true;
		fl_run_as_meta(lat, s); /* its rows are labelled as the CSV's */
	}
	fl_interrupt_catch();
	r->lat = lat;
	fl_run_probes_start(s, csv);
	if (!s->quiet)
		fl_run_check_quiet();
	int rc = run_rounds(r);
	out->rows = true;
	out->errors = r->n.error;
	free(pts);
	return rc;
}

void fl_bench_close(struct fl_bench_out *out)
{
	if (out->rows)
		fl_csv_close(&out->csv);
	if (out->lat_open)
		fl_csv_close(&out->lat);
	out->rows = out->lat_open = false;
}
