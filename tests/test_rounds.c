/* tests/test_rounds.c — the stop rule of extra rounds (stats/rounds.h):
 * the control's resolution and the pick on inputs known by hand, then
 * synthetic runs with a known answer. Four points of different noise
 * (per-rep lognormal 3%, 10%, 25%, and a two-state mixture), each with the
 * baseline, its control, three null designs (true ratio 1.0) and designs at
 * 0.9 and 1.1, every rep also scaled by a per-round factor the pairing
 * cancels; 10 rounds, then the rule until 5% or a budget of extra rounds;
 * verdicts as model/rule.c makes them (the control's resolution the floor).
 * Checked: nulls flagged <= 5%, +-10% found where the target was reached,
 * the rounds spent at the noisy points; and a peeking rule on the same
 * runs (buy rounds until every design has a verdict) flagging more than
 * 5% of the nulls: the test can tell a biased rule from a fair one. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "tests/check.h"
#include "stats/rounds.h"
#include "stats/stats.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void t_resolution(void *arg)
{
	(void)arg;
	/* ratios 1.00 .. 1.09 (ten rounds): k = 2, interval [1.01, 1.08],
	 * median 1.045, resolution (ln 1.08 - ln 1.01) / 2 */
	double b[10], c[10];
	for (int i = 0; i < 10; i++) {
		b[i] = 100 * (i + 1);
		c[i] = b[i] * (1 + (double)((7 * i) % 10) / 100); /* any order */
	}
	double r = fl_control_resolution(b, c, 10);
	double want10 = (log(1.08) - log(1.01)) / 2;
	CHECK(NEAR(r, want10), "ten rounds: %g, expected %g", r, want10);
	CHECK(isinf(fl_control_resolution(b, c, 5)), "five rounds: no 95%% interval, unknown");
	b[0] = NAN;
	c[1] = 0;
	b[2] = -1;
	CHECK(isinf(fl_control_resolution(b, c, 8)), "eight rounds, three unpaired: unknown");
	CHECK(isinf(fl_control_resolution(b, c, 0)), "no rounds: unknown");
	/* the unpaired rounds are left out: the other seven of 1.00 .. 1.09 */
	double want[] = { 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 1.08, 1.09 };
	double x[10], y[10];
	for (int i = 0; i < 9; i++) {
		x[i] = 10;
		y[i] = 10 * want[i];
	}
	x[9] = NAN;
	y[9] = 1;
	struct fl_ratio q = fl_ratio_summarize(want, 9);
	r = fl_control_resolution(x, y, 10);
	CHECK(NEAR(r, q.resolution), "a NAN round left out: %g, expected %g", r, q.resolution);
}

static void t_pick(void *arg)
{
	(void)arg;
	double res[] = { 0.10, 0.04, INFINITY, 0.30, 0.05, NAN, 0.30, 0.20 };
	int rounds[] = { 10, 10, 10, 12, 10, 10, 10, 40 };
	int pick[8];
	/* 1 (4%) and 4 (exactly 5%) are at target, 7 at the cap (40); then
	 * unknown (2, 5: index order), 6 before 3 (same 30%, fewer rounds), 0 */
	int n = fl_rounds_pick(res, rounds, 8, 0.05, 40, pick);
	int want[] = { 2, 5, 6, 3, 0 };
	CHECK(n == 5, "5 points picked, got %d", n);
	for (int i = 0; i < 5 && i < n; i++)
		CHECK(pick[i] == want[i], "pick[%d] = %d, expected %d (worst first)", i, pick[i],
		      want[i]);
	double done[] = { 0.01, 0.05 };
	int r2[] = { 10, 10 };
	CHECK(fl_rounds_pick(done, r2, 2, 0.05, 100, pick) == 0, "all at target: none");
	CHECK(fl_rounds_pick(res, rounds, 8, 0.05, 10, pick) == 0, "all at the cap (10): none");
}

/* ---- synthetic runs ------------------------------------------------------ */

#define NPT 4
#define NENT 7    /* B, B#2, three nulls, 0.9, 1.1 */
#define FIRST 10  /* rounds before the rule */
#define CAP 400   /* rounds a point may have */
#define EXTRA 700 /* the budget: extra point-rounds in a run */
#define TARGET 0.0488 /* log1p(0.05): --target-res 5, a band of x/÷1.05 */
#define RUNS 300     /* simulated runs of the control rule */
#define PEEK_RUNS 50  /* of the peeking rule (a negative control: 50 runs, 600 nulls, show it) */

static const double truth[NENT] = { 1, 1, 1, 1, 1, 0.9, 1.1 };
static const struct model {
	const char *name;
	double sigma;       /* per-rep lognormal noise */
	double share, step; /* two states: a rep in the slow one (share) is step x slower */
	int found;          /* +-10% found the right way, % at least, where 5% was reached */
} models[NPT] = {
	{ "3%", 0.03, 0, 1, 85 },
	{ "10%", 0.10, 0, 1, 85 },
	{ "25%", 0.25, 0, 1, 85 },
	/* the interval's order statistics land in either state: the design's
	 * interval is wider than the control's more often (stats.h) */
	{ "two-state", 0.03, 0.3, 1.5, 70 },
};

static double uniform(uint64_t *rng)
{
	return ((double)(fl_rng_next(rng) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(uint64_t *rng)
{
	double u = uniform(rng), v = uniform(rng);
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

struct sim {
	int n[NPT];
	double ns[NPT][NENT][CAP];
};

static void one_round(struct sim *s, int p, uint64_t *rng)
{
	const struct model *m = &models[p];
	double common = exp(0.3 * gauss(rng)); /* the machine that round: cancels */
	for (int e = 0; e < NENT; e++) {
		double state = uniform(rng) < m->share ? m->step : 1;
		s->ns[p][e][s->n[p]] = 100 * truth[e] * common * state * exp(m->sigma * gauss(rng));
	}
	s->n[p]++;
}

/* Design e's verdict at point p, as model/rule.c's judge makes it. */
static enum fl_verdict verdict(const struct sim *s, int p, int e, double floor)
{
	double r[CAP];
	for (int i = 0; i < s->n[p]; i++)
		r[i] = s->ns[p][e][i] / s->ns[p][0][i];
	struct fl_ratio q = fl_ratio_summarize(r, s->n[p]);
	return fl_ratio_verdict(&q, floor);
}

static double floor_at(const struct sim *s, int p)
{
	double f = fl_control_resolution(s->ns[p][0], s->ns[p][1], s->n[p]);
	return isinf(f) ? 0 : f; /* model/rule.c: 0 without a usable control */
}

/* The peeking rule: a design leaves its point as soon as its verdict is
 * decided (faster or slower), that verdict kept; the point gets another
 * round while one of its designs is still undecided, up to the cap. */
struct peek {
	enum fl_verdict kept[NPT][NENT]; /* FL_UNDECIDED: still running */
};

static bool peek_wants(const struct sim *s, struct peek *pk, int p)
{
	double f = floor_at(s, p);
	bool open = false;
	for (int e = 2; e < NENT; e++) {
		if (pk->kept[p][e] != FL_UNDECIDED)
			continue;
		enum fl_verdict v = verdict(s, p, e, f);
		if (v == FL_FASTER || v == FL_SLOWER)
			pk->kept[p][e] = v;
		else
			open = true;
	}
	return open;
}

/* One simulated run: the first rounds, then passes over the picked
 * points, each a round, worst first, until none is picked or the budget
 * is spent (the runner's loop). pk: the peeking rule instead. */
static void run(struct sim *s, struct peek *pk, uint64_t *rng)
{
	for (int p = 0; p < NPT; p++) {
		s->n[p] = 0;
		for (int r = 0; r < FIRST; r++)
			one_round(s, p, rng);
		for (int e = 0; pk && e < NENT; e++)
			pk->kept[p][e] = FL_UNDECIDED;
	}
	int budget = EXTRA, pick[NPT], k;
	while (budget > 0) {
		double res[NPT];
		for (int p = 0; p < NPT; p++)
			res[p] = fl_control_resolution(s->ns[p][0], s->ns[p][1], s->n[p]);
		k = 0;
		if (pk) {
			for (int p = 0; p < NPT; p++)
				if (peek_wants(s, pk, p) && s->n[p] < CAP)
					pick[k++] = p;
		} else {
			k = fl_rounds_pick(res, s->n, NPT, TARGET, CAP, pick);
		}
		if (k == 0)
			break;
		for (int i = 0; i < k && budget > 0; i++, budget--)
			one_round(s, pick[i], rng);
	}
	if (pk) /* the budget's end: the open designs' last verdicts */
		for (int p = 0; p < NPT; p++)
			peek_wants(s, pk, p);
}

struct tally {
	int nulls[NPT], null_flagged[NPT];
	int reached[NPT], found[NPT], wrong[NPT], diffs[NPT];
	long rounds[NPT];
};

static void judge_run(const struct sim *s, const struct peek *pk, struct tally *t)
{
	for (int p = 0; p < NPT; p++) {
		double f = floor_at(s, p);
		bool reached = f > 0 && f <= TARGET;
		t->rounds[p] += s->n[p];
		t->reached[p] += reached;
		for (int e = 2; e < NENT; e++) {
			enum fl_verdict v = pk ? pk->kept[p][e] : verdict(s, p, e, f);
			if (truth[e] == 1) {
				t->nulls[p]++;
				t->null_flagged[p] += v == FL_FASTER || v == FL_SLOWER;
				continue;
			}
			enum fl_verdict right = truth[e] < 1 ? FL_FASTER : FL_SLOWER;
			t->diffs[p]++;
			t->wrong[p] += v != right && (v == FL_FASTER || v == FL_SLOWER);
			t->found[p] += reached && v == right;
		}
	}
}

static struct sim sim;
static struct peek peeking;

static int runs, peek_runs; /* RUNS, PEEK_RUNS: less in a sanitizer build (FL_TEST_SCALE) */

static void simulate(bool peek, uint64_t seed, struct tally *t)
{
	uint64_t rng = seed;
	memset(t, 0, sizeof *t);
	for (int i = 0; i < (peek ? peek_runs : runs); i++) {
		run(&sim, peek ? &peeking : NULL, &rng);
		judge_run(&sim, peek ? &peeking : NULL, t);
	}
}

static double pct(long a, long b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

static void t_synthetic(void *arg)
{
	(void)arg;
	struct tally t, pk;
	simulate(false, 1, &t);
	simulate(true, 1, &pk);
	int nulls = 0, flagged = 0, pnulls = 0, pflagged = 0, wrong = 0, diffs = 0;
	for (int p = 0; p < NPT; p++) {
		printf("  %-9s control rule: %5.1f rounds, target reached %5.1f%%, nulls flagged "
		       "%4.1f%%, +-10%% found %5.1f%% of reached, wrong way %4.1f%%; peeking: "
		       "%5.1f rounds, nulls flagged %4.1f%%\n",
		       models[p].name, (double)t.rounds[p] / runs, pct(t.reached[p], runs),
		       pct(t.null_flagged[p], t.nulls[p]), pct(t.found[p], 2L * t.reached[p]),
		       pct(t.wrong[p], t.diffs[p]), (double)pk.rounds[p] / peek_runs,
		       pct(pk.null_flagged[p], pk.nulls[p]));
		CHECK(t.null_flagged[p] * 100 <= 5 * t.nulls[p],
		      "%s: nulls flagged %d of %d (<= 5%% expected)", models[p].name,
		      t.null_flagged[p], t.nulls[p]);
		CHECK(t.reached[p] * 10 >= runs * 8, "%s: the target reached in %d of %d runs",
		      models[p].name, t.reached[p], runs);
		CHECK(t.found[p] * 100 >= models[p].found * 2 * t.reached[p],
		      "%s: +-10%% found the right way %d of %d where the target was reached "
		      "(>= %d%% expected)", models[p].name, t.found[p], 2 * t.reached[p],
		      models[p].found);
		nulls += t.nulls[p], flagged += t.null_flagged[p];
		pnulls += pk.nulls[p], pflagged += pk.null_flagged[p];
		wrong += t.wrong[p], diffs += t.diffs[p];
	}
	printf("  all: control rule nulls flagged %d of %d (%.1f%%), +-10%% the wrong way %d of "
	       "%d; peeking nulls flagged %d of %d (%.1f%%)\n", flagged, nulls,
	       pct(flagged, nulls), wrong, diffs, pflagged, pnulls, pct(pflagged, pnulls));
	CHECK(wrong * 100 <= diffs, "+-10%% found the wrong way %d of %d (<= 1%% expected)",
	      wrong, diffs);
	CHECK(t.rounds[2] > 3 * t.rounds[0], "rounds at 25%% (%ld) well above 3%%'s (%ld)",
	      t.rounds[2], t.rounds[0]);
	CHECK(t.rounds[1] > t.rounds[0] && t.rounds[2] > t.rounds[1],
	      "rounds grow with the noise: %ld %ld %ld", t.rounds[0], t.rounds[1], t.rounds[2]);
	/* the negative control: a rule that looks at the verdicts */
	CHECK(pflagged * 100 > 5 * pnulls, "peeking flagged %d of %d nulls: the test cannot "
	      "tell a peeking rule (> 5%% expected)", pflagged, pnulls);
}

int main(void)
{
	int scale = getenv("FL_TEST_SCALE") ? atoi(getenv("FL_TEST_SCALE")) : 1;
	runs = RUNS / (scale > 1 ? scale : 1);
	peek_runs = PEEK_RUNS / (scale > 1 ? scale : 1);
	run_test("resolution", t_resolution, NULL, 10);
	run_test("pick", t_pick, NULL, 10);
	run_test("synthetic", t_synthetic, NULL, 120);
	return tests_done("rounds");
}
