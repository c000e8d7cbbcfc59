/* runner/reps.c — one point's round (run.h): every live entry once, in a
 * fresh random order, one rep each through proc/rep.h, each rep's row. */
#include "runner/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/hashmode.h"
#include "probes/perf.h"
#include "proc/exec.h"
#include "proc/interrupt.h"
#include "record/csv.h"
#include "record/run_row.h"
#include "fail/xalloc.h"
#include "stats/stats.h"

void fl_run_csv_check(const struct fl_csv *csv, int e)
{
	if (e) {
		fprintf(stderr, "futexlab: cannot write %s: %s\n", csv->path ? csv->path : "rows",
			strerror(e));
		exit(1);
	}
}

/* One rep's row (run_row.h), in memory until the round's flush. */
static void emit(const struct fl_run *r, const struct fl_point *pt, const struct fl_run_rep *x)
{
	char row[4096];
	fl_run_row(row, sizeof row, pt, x, r->timer_ns);
	fl_run_csv_check(r->csv, fl_csv_append(r->csv, row));
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

/* What the runner keeps of a rep beyond its row: ns per op (NAN when it did
 * not run ok) and its voluntary context switches (its blocking ops). */
struct rep_out {
	double ns_per_op;
	int64_t blocking;
};

/* Runs one rep of one entry; false (and the error row) if it failed. */
static bool run_rep(struct fl_run *run, int pi, int ei, struct fl_round_kind k, int slot,
		    struct rep_out *out)
{
	const struct fl_spec *s = run->s;
	const struct fl_point *pt = &run->pts[pi];
	struct fl_hist **acc = &run->pr[pi].acc[ei];
	const struct fl_entry *e = &pt->e[ei];
	struct fl_result r = FL_RESULT_EMPTY;
	struct fl_params p = pt->p;
	p.latency = run->pr[pi].latency;
	bool pe = fl_perf_enabled, measured = k.measured;
	int round = k.round;
	out->ns_per_op = NAN;
	fl_perf_enabled = pe && measured; /* warm-up rounds count nothing */
	struct rep_ctx c = { .measured = measured, .probed = k.probed, .csv = run->csv,
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
		emit(run, pt, &x);
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

/* A timed round's baseline and control, paired (the control's resolution:
 * stats/rounds.h). */
static void pair_push(struct fl_point_run *pr, double b, double c)
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

void fl_run_point_begin(struct fl_run *r, int pi)
{
	const struct fl_spec *s = r->s;
	const struct fl_point *pt = &r->pts[pi];
	struct fl_point_run *pr = &r->pr[pi];
	pr->latency = fl_run_wants_latency(s, pt->w);
	pr->base = pr->ctrl = -1;
	char ctrl[64];
	snprintf(ctrl, sizeof ctrl, "%s#2", s->blabel);
	for (int i = 0; i < pt->ne; i++) {
		if (!strcmp(pt->e[i].label, s->blabel))
			pr->base = i;
		else if (!strcmp(pt->e[i].label, ctrl))
			pr->ctrl = i;
		const char *why = fl_run_unavailable(pt, &pt->e[i]);
		pr->live[i] = !why;
		if (why)
			emit(r, pt, &(struct fl_run_rep){ &pt->e[i], 0, 0, "skipped", why, NULL, NULL,
							      false, fl_hash_column() });
		r->n.skipped += !pr->live[i];
	}
}

/* A timed round (measured, not one of --probe-rounds' probed rounds)
 * pairs the baseline with its control for the stop rule. */
void fl_run_point_round(struct fl_run *r, int pi, struct fl_round_kind rk, bool timed)
{
	const struct fl_spec *s = r->s;
	const struct fl_point *pt = &r->pts[pi];
	struct fl_point_run *pr = &r->pr[pi];
	struct fl_cpu_sample a, b;
	double la = fl_loadavg();
	if (rk.round == -s->warmup)
		pr->load_first = la;
	fl_cpu_sample(&a);
	double per_rep = s->base.ops ? 0.05 : (double)pt->p.duration_ns / 1e9;
	double ns[FL_MAXENTRY];
	int order[FL_MAXENTRY];
	fl_progress_show(r, pi, rk.round);
	fl_round_order(&r->rng, pt->ne, order);
	if (rk.round < 0)
		rk.round = -1;
	for (int k = 0, slot = 0; k < pt->ne && !fl_interrupted; k++) {
		int i = order[k];
		struct rep_out o = { NAN, 0 };
		if (pr->live[i] && !run_rep(r, pi, i, rk, slot++, &o)) {
			pr->live[i] = false; /* one error row is the verdict */
			r->n.error++;
		}
		ns[i] = o.ns_per_op;
		if (!rk.measured)
			pr->warm[i] = isnan(o.ns_per_op) ? -1 : o.blocking;
		r->g.done += pr->live[i] ? per_rep : 0;
	}
	if (!fl_interrupted)
		fl_progress_log(r, pi);
	pr->timed += timed;
	if (timed && pr->base >= 0 && pr->ctrl >= 0)
		pair_push(pr, ns[pr->base], ns[pr->ctrl]);
	fl_run_csv_check(r->csv, fl_csv_flush(r->csv)); /* a round's rows at once */
	fl_cpu_sample(&b);
	pr->cpu.busy_ns += b.busy_ns - a.busy_ns;
	pr->cpu.steal_ns += b.steal_ns - a.steal_ns;
	pr->cpu.self_ns += b.self_ns - a.self_ns;
	pr->cpu.wall_ns += b.wall_ns - a.wall_ns;
	pr->load_last = fl_loadavg();
}
