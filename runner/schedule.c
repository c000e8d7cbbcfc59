/* runner/schedule.c — which point runs when (run.h): the rounds
 * interleaved across the points, the probed rounds spread among the timed
 * ones, reps stretched after the warm-up (--min-blocking), and rounds
 * bought where the control is widest (--target-res, --res-budget). */
#include "runner/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/hashmode.h"
#include "lib/clock.h"
#include "proc/interrupt.h"
#include "record/csv.h"
#include "record/run_row.h"
#include "stats/rounds.h"
#include "model/stats_text.h"
#include "fail/xalloc.h"
#include "stats/stats.h"

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
	int np = fl_run_probed_rounds(s), m = s->rounds + np;
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

static void stretch(struct fl_run *r)
{
	const struct fl_spec *s = r->s;
	struct fl_point *pts = r->pts;
	const struct fl_point_run *pr = r->pr;
	for (int i = 0; i < r->npts; i++) {
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
		char label[FL_RUN_KEY_LEN];
		fl_csv_meta(r->csv, "point %d (%s): reps stretched to %.0f ms (%lld blocking ops a "
			    "warm-up rep, median over its entries; its workload asks %d)", i + 1,
			    fl_run_point_key(&pts[i], label, sizeof label),
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
static int fit_budget(struct fl_run *r, int *pick, int np)
{
	const struct fl_point *pts = r->pts;
	const struct fl_point_run *pr = r->pr;
	double left = (double)(r->s->res_budget_ns - (fl_now_ns() - r->g.t0)) / 1e9;
	int k = 0;
	for (int j = 0; j < np; j++) {
		int live = 0;
		for (int e = 0; e < pts[pick[j]].ne; e++)
			live += pr[pick[j]].live[e];
		double cost = live * (double)pts[pick[j]].p.duration_ns / 1e9;
		if (cost > left)
			break;
		left -= cost;
		pick[k++] = pick[j];
	}
	int order[FL_MAXLIST * 8], tmp[FL_MAXLIST * 8];
	if (k > (int)(sizeof order / sizeof order[0]))
		k = (int)(sizeof order / sizeof order[0]);
	fl_round_order(&r->rng, k, order);
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
static void buy_rounds(struct fl_run *r)
{
	const struct fl_spec *s = r->s;
	const struct fl_point *pts = r->pts;
	struct fl_point_run *pr = r->pr;
	int npts = r->npts;
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
		np = fit_budget(r, pick, np);
		if (!np)
			break;
		passes++;
		snprintf(r->g.stage, sizeof r->g.stage, "extra rounds, pass %d", passes);
		r->g.npoints = np;
		for (int j = 0; j < np && !fl_interrupted; j++, extra++) {
			r->g.point = j + 1;
			fl_run_point_round(r, pick[j], (struct fl_round_kind){ pr[pick[j]].next, true,
									   false }, true);
			pr[pick[j]].next++;
		}
	}
	int under = 0;
	for (int i = 0; i < npts; i++) {
		double q = fl_control_resolution(pr[i].bns, pr[i].cns, pr[i].npair);
		under += q <= target;
		char band[32], label[FL_RUN_KEY_LEN];
		fl_csv_meta(r->csv, "point %d (%s): %d timed rounds, control %s", i + 1,
			    fl_run_point_key(&pts[i], label, sizeof label), pr[i].timed,
			    fl_factor_text(band, sizeof band, q));
	}
	fl_csv_meta(r->csv, "resolution: target +-%.1f%%, budget %.0f s: %d extra rounds in %d "
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
 * between two costs); a point run in one stretch sees one state, its
 * ratios that state's, and two runs disagree. Spread over the run, each
 * point samples the run's states and its interval shows their spread. */
void fl_run_points(struct fl_run *r)
{
	const struct fl_spec *s = r->s;
	int npts = r->npts;
	struct fl_progress *g = &r->g;
	*g = (struct fl_progress){ .on = !s->quiet, .tty = isatty(2), .t0 = fl_now_ns(),
				   .total = fl_run_expected_cost(s, r->pts, npts), .npoints = npts };
	r->rng = s->seed;
	struct fl_cpu_sample c0, c1;
	fl_cpu_sample(&c0);
	r->pr = fl_xcalloc((size_t)npts, sizeof *r->pr);
	int *porder = fl_xcalloc((size_t)npts, sizeof *porder);
	for (int i = 0; i < npts; i++)
		fl_run_point_begin(r, i);
	int nprobed = fl_run_probed_rounds(s), nround = s->rounds + nprobed;
	for (int round = -s->warmup; round < nround && !fl_interrupted; round++) {
		if (round == 0 && s->warmup > 0 && s->min_blocking)
			stretch(r);
		/* The warm-up rounds and the first measured one (the CSV's first
		 * rows: warm-up reps are not written) take the points in their
		 * listed order, so the CSV and every table list them so. The
		 * order of points cannot bias a ratio (both sides of a ratio are
		 * in one point's round); only the order within a point could. */
		if (round <= 0)
			for (int k = 0; k < npts; k++)
				porder[k] = k;
		else
			fl_round_order(&r->rng, npts, porder);
		struct fl_round_kind rk = { round, round >= 0, round >= 0 && round_probed(s, round) };
		if (round < 0)
			snprintf(g->stage, sizeof g->stage, "warm-up %d/%d", round + s->warmup + 1,
				 s->warmup);
		else
			snprintf(g->stage, sizeof g->stage, "round %d/%d", round + 1, nround);
		bool timed = rk.measured && (!rk.probed || !nprobed);
		for (int k = 0; k < npts && !fl_interrupted; k++) {
			int i = porder[k];
			g->point = k + 1;
			fl_run_point_round(r, i, rk, timed);
			r->pr[i].next = round + 1;
		}
	}
	if (s->target_res > 0)
		buy_rounds(r);
	r->done = fl_interrupted ? 0 : npts; /* a point is done when its last round is */
	for (int i = 0; i < npts; i++) {
		fl_run_point_meta(r, i);
		for (int e = 0; e < r->pts[i].ne && !fl_interrupted; e++)
			r->n.ok += r->pr[i].live[e]; /* neither skipped nor failed */
		fl_run_csv_check(r->lat, fl_lat_rows(r->lat, &r->pts[i], r->pr[i].acc, fl_hash_column(),
						     r->timer_ns));
		free(r->pr[i].bns);
		free(r->pr[i].cns);
	}
	free(porder);
	free(r->pr);
	r->pr = NULL;
	if (g->on && g->tty)
		fprintf(stderr, "\r\033[K");
	fl_cpu_sample(&c1);
	double steal, others = fl_cpu_others(&c0, &c1, &steal);
	fl_csv_meta(r->csv, "other work: %.1f%% of a core over the run, steal %.1f%%", 100 * others,
		    100 * steal);
	if (others > 0.10 && !s->quiet)
		fprintf(stderr, "futexlab: warning: other processes used %.0f%% of a core during "
			"the run: intervals are wider than on a quiet machine\n", 100 * others);
}
