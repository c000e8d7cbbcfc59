/* tests/test_stats.c — harness/stats on inputs whose answers are known by
 * hand: median (odd, even, unsorted), MAD, the order-statistics confidence
 * interval of the median and its exact binomial coverage, the noise test and
 * the "apart" test compare uses to flag a change; then the paired-ratio
 * verdicts on synthetic runs with a known answer under injected drift, and
 * when a verdict carries its CPU note. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "tests/check.h"
#include "model/stats_text.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void t_median(void *arg)
{
	(void)arg;
	double a[] = { 5, 1, 4, 2, 3 };
	struct fl_summary s = fl_summarize(a, 5);
	CHECK(NEAR(s.median, 3) && NEAR(s.min, 1) && NEAR(s.max, 5), "odd: %g %g %g",
	      s.median, s.min, s.max);
	double b[] = { 10, 40, 20, 30 };
	s = fl_summarize(b, 4);
	CHECK(NEAR(s.median, 25), "even: mean of the middle two, got %g", s.median);
	double c[] = { 7 };
	s = fl_summarize(c, 1);
	CHECK(NEAR(s.median, 7) && NEAR(s.mad, 0) && NEAR(s.ci_lo, 7) && NEAR(s.ci_hi, 7),
	      "one value");
	CHECK(s.ci_level == 0, "one value covers nothing: %g", s.ci_level);
}

static void t_mad(void *arg)
{
	(void)arg;
	/* median 3; |x-3| = 2 1 0 1 97 -> sorted 0 1 1 2 97 -> MAD 1: the
	 * outlier moves neither. */
	double a[] = { 1, 2, 3, 4, 100 };
	struct fl_summary s = fl_summarize(a, 5);
	CHECK(NEAR(s.median, 3) && NEAR(s.mad, 1), "median %g mad %g", s.median, s.mad);
	double b[] = { 100, 100, 100, 100 };
	s = fl_summarize(b, 4);
	CHECK(NEAR(s.mad, 0) && !fl_noisy(&s), "constant input: mad 0, not noisy");
	double c[] = { 80, 100, 120 }; /* mad 20 / median 100 = 20% */
	s = fl_summarize(c, 3);
	CHECK(NEAR(s.mad, 20) && fl_noisy(&s), "20%% spread is noisy");
	double d[] = { 95, 100, 105 }; /* 5% */
	s = fl_summarize(d, 3);
	CHECK(!fl_noisy(&s), "5%% spread is not noisy");
}

static void t_ci_ranks(void *arg)
{
	(void)arg;
	/* Known ranks of the distribution-free 95% interval of the median
	 * (binomial tables): n=6..8 -> 1, n=9..11 -> 2, n=20 -> 6, n=100 -> 40. */
	static const struct { int n, k; double cov; } t[] = {
		{ 5, 1, 0.9375 },  { 6, 1, 0.96875 }, { 8, 1, 0.9921875 },
		{ 9, 2, 0.9609375 }, { 10, 2, 0.978515625 }, { 11, 2, 0.98828125 },
		{ 12, 3, 0.9614258 }, { 20, 6, 0.9586105 }, { 100, 40, 0.9648 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		double cov;
		int k = fl_median_ci_rank(t[i].n, &cov);
		CHECK(k == t[i].k, "n=%d: rank %d, expected %d", t[i].n, k, t[i].k);
		CHECK(fabs(cov - t[i].cov) < 1e-4, "n=%d: coverage %g, expected %g", t[i].n, cov,
		      t[i].cov);
	}
	double cov;
	int k = fl_median_ci_rank(1000, &cov);
	CHECK(k > 400 && k < 500 && cov >= 0.95 && cov < 0.96, "n=1000: k=%d cov=%g", k, cov);
}

static void t_ci_values(void *arg)
{
	(void)arg;
	/* n = 10, shuffled 1..10: k = 2 -> [x(2), x(9)] = [2, 9]. */
	double a[] = { 7, 3, 10, 1, 9, 2, 8, 5, 4, 6 };
	struct fl_summary s = fl_summarize(a, 10);
	CHECK(NEAR(s.ci_lo, 2) && NEAR(s.ci_hi, 9), "n=10: [%g, %g]", s.ci_lo, s.ci_hi);
	CHECK(NEAR(s.median, 5.5) && NEAR(s.mad, 2.5), "median %g mad %g", s.median, s.mad);
	/* n = 5: [min, max] at 93.75%. */
	double b[] = { 3, 1, 2, 5, 4 };
	s = fl_summarize(b, 5);
	CHECK(NEAR(s.ci_lo, 1) && NEAR(s.ci_hi, 5) && NEAR(s.ci_level, 0.9375), "n=5");
}

static void t_apart(void *arg)
{
	(void)arg;
	double a[] = { 100, 101, 102, 103, 104 }, b[] = { 150, 151, 152, 153, 154 },
	       c[] = { 103, 104, 105, 106, 107 };
	struct fl_summary sa = fl_summarize(a, 5), sb = fl_summarize(b, 5),
			  sc = fl_summarize(c, 5);
	CHECK(fl_ci_apart(&sa, &sb) && fl_ci_apart(&sb, &sa), "disjoint intervals are apart");
	CHECK(!fl_ci_apart(&sa, &sc), "overlapping intervals are within the noise");
}

static void t_ratio_verdicts(void *arg)
{
	(void)arg;
	double a[] = { 0.9, 0.92, 0.95, 0.91, 0.93, 0.94, 0.96, 0.9, 0.92, 0.97 };
	struct fl_ratio r = fl_ratio_summarize(a, 10);
	CHECK(NEAR(r.lo, 0.9) && NEAR(r.hi, 0.96) && fl_ratio_verdict(&r, 0) == FL_FASTER,
	      "all rounds below 1: faster, [%g, %g]", r.lo, r.hi);
	CHECK(NEAR(r.resolution, (log(0.96) - log(0.9)) / 2),
	      "resolution is the half-width in ln r: %g", r.resolution);
	double b[] = { 0.98, 1.01, 1.02, 0.99, 1.0, 1.03, 0.97, 1.01, 0.99, 1.0 };
	r = fl_ratio_summarize(b, 10);
	CHECK(fl_ratio_verdict(&r, 0) == FL_SAME, "straddling 1: ~");
	double c[] = { 1.2, 1.3, 1.25, 1.22, 1.21 };
	r = fl_ratio_summarize(c, 5);
	CHECK(fl_ratio_verdict(&r, 0) == FL_UNDECIDED && !strcmp(fl_verdict_name(FL_UNDECIDED), "?"),
	      "5 rounds cannot carry a 95%% verdict, however clear they look");
	double d[] = { 1.2, 1.3, 1.25, 1.22, 1.21, 1.24 };
	r = fl_ratio_summarize(d, 6);
	CHECK(fl_ratio_verdict(&r, 0) == FL_SLOWER, "6 rounds can");
	/* The control's floor: a clear 6% difference is "~" in a run whose own
	 * A/A resolved only x/1.08, and still "faster" when it resolved x/1.03. */
	double e[] = { 0.93, 0.94, 0.95, 0.94, 0.93, 0.94, 0.945, 0.935, 0.94, 0.95 };
	r = fl_ratio_summarize(e, 10);
	CHECK(fl_ratio_verdict(&r, log(1.08)) == FL_SAME &&
	      fl_ratio_verdict(&r, log(1.03)) == FL_FASTER,
	      "a difference within the control's band is ~, beyond it a verdict");
}

/* The log scale (stats.h): a speedup and a slowdown of the same factor are
 * judged alike under the same control, and a noisy control (the bench's
 * pingpong: glibc#2 over [0.45, 2.61], the linear rule's +-124%) does not
 * hide a 32x speedup. Under the linear rule |0.031 - 1| = 0.97 < 1.24: ~. */
static void t_log_scale(void *arg)
{
	(void)arg;
	double ctl[] = { 0.45, 0.6, 0.7, 0.8, 0.87, 0.9, 1.1, 1.3, 1.6, 2.0, 2.3, 2.61 };
	struct fl_ratio c = fl_ratio_summarize(ctl, 12);
	CHECK(c.level >= 0.95 && c.resolution > 0.5, "the noisy control: x/÷%.2f",
	      exp(c.resolution));
	double fast[12], slow[12];
	for (int i = 0; i < 12; i++) {
		fast[i] = 0.031 * (0.8 + 0.05 * i);
		slow[i] = 1 / fast[i];
	}
	struct fl_ratio f = fl_ratio_summarize(fast, 12), s = fl_ratio_summarize(slow, 12);
	CHECK(fl_ratio_verdict(&f, c.resolution) == FL_FASTER,
	      "32x faster under a control of x/÷%.2f: faster (median %g)", exp(c.resolution),
	      f.median);
	CHECK(fl_ratio_verdict(&s, c.resolution) == FL_SLOWER, "32x slower: slower");
	CHECK(NEAR(f.resolution, s.resolution), "1/r has the same resolution as r: %g %g",
	      f.resolution, s.resolution);
	/* mirrored: for every factor the verdicts of r and 1/r are mirrored
	 * under the same floor, on the band's edges too */
	int mirrored = 0, tried = 0;
	for (int step = 0; step < 21; step++) { /* 1.01 .. 3.9 */
		double k = 1.01 * pow(1.07, step);
		double a[11], b[11]; /* odd: the median of 1/a is 1 / a's median */
		for (int i = 0; i < 11; i++) {
			a[i] = k * (0.97 + 0.006 * i);
			b[i] = 1 / a[i];
		}
		struct fl_ratio qa = fl_ratio_summarize(a, 11), qb = fl_ratio_summarize(b, 11);
		enum fl_verdict va = fl_ratio_verdict(&qa, log(1.5)), vb = fl_ratio_verdict(&qb, log(1.5));
		tried++;
		mirrored += (va == FL_SLOWER && vb == FL_FASTER) || (va == FL_SAME && vb == FL_SAME);
	}
	CHECK(mirrored == tried, "r and 1/r mirrored at %d of %d factors", mirrored, tried);
	char b[32];
	CHECK(!strcmp(fl_factor_text(b, sizeof b, log(1.32)), "\u00d7/\u00f71.320") &&
	      !strcmp(fl_factor_text(b, sizeof b, log(12.34)), "\u00d7/\u00f712.3") &&
	      !strcmp(fl_factor_text(b, sizeof b, NAN), "-"), "the factor's text: %s", b);
}

/* The CPU note (stats.h, fl_cpu_note): only where time and CPU part ways,
 * or time says ~, and only from FL_CPU_NOTE (10%) either way. */
static void t_cpu_note(void *arg)
{
	(void)arg;
	CHECK(fl_cpu_note(FL_FASTER, FL_SLOWER, 2.0), "faster with 2x the CPU: noted");
	CHECK(fl_cpu_note(FL_FASTER, FL_SLOWER, 1.10), "faster with 1.10x: noted (the threshold)");
	CHECK(!fl_cpu_note(FL_FASTER, FL_SLOWER, 1.09), "faster with 1.09x: not (below 10%%)");
	CHECK(!fl_cpu_note(FL_FASTER, FL_SAME, 2.0), "a CPU ratio within its noise: never");
	CHECK(!fl_cpu_note(FL_FASTER, FL_UNDECIDED, 2.0), "nor one without a verdict");
	CHECK(!fl_cpu_note(FL_FASTER, FL_FASTER, 0.5), "faster and cheaper: one story, no note");
	CHECK(fl_cpu_note(FL_SLOWER, FL_FASTER, 0.5), "slower with half the CPU: noted");
	CHECK(fl_cpu_note(FL_SLOWER, FL_FASTER, 1 / 1.10), "slower with 1/1.10: noted");
	CHECK(!fl_cpu_note(FL_SLOWER, FL_FASTER, 0.92), "slower with 0.92x: not");
	CHECK(!fl_cpu_note(FL_SLOWER, FL_SLOWER, 2.0), "slower and dearer: no note");
	CHECK(fl_cpu_note(FL_SAME, FL_SLOWER, 1.8) && fl_cpu_note(FL_SAME, FL_FASTER, 0.5),
	      "~ with a clear CPU difference either way: noted");
	CHECK(!fl_cpu_note(FL_SAME, FL_SLOWER, 1.05), "~ with 5%% more: not");
	CHECK(!fl_cpu_note(FL_UNDECIDED, FL_SLOWER, 3.0), "? (too few rounds): never");
}

static void t_round_order(void *arg)
{
	(void)arg;
	uint64_t s1 = 42, s2 = 42;
	int a[7], b[7], seen[7][7] = { { 0 } };
	fl_round_order(&s1, 7, a);
	fl_round_order(&s2, 7, b);
	CHECK(!memcmp(a, b, sizeof a), "the same seed gives the same order");
	for (int t = 0; t < 70000; t++) {
		fl_round_order(&s1, 7, a);
		int mask = 0;
		for (int i = 0; i < 7; i++)
			seen[a[i]][i]++, mask |= 1 << a[i];
		if (mask != 127) {
			CHECK(mask == 127, "not a permutation");
			return;
		}
	}
	for (int e = 0; e < 7; e++)
		for (int i = 0; i < 7; i++)
			CHECK(seen[e][i] > 9000 && seen[e][i] < 11000,
			      "entry %d at slot %d %d times of 70000 (uniform: 10000)", e, i, seen[e][i]);
}

/* A synthetic run: `entries` designs (0 is the baseline, 1 the one judged,
 * the rest bystanders), `rounds` rounds, each rep's time = true cost x the
 * machine's slowness at that moment x lognormal noise. The machine drifts:
 * it slows down linearly by `ramp` (0.8 = 80% slower at the end) over the
 * run, so within a round whoever runs later is slower. Returns how many of
 * `trials` runs got a verdict other than "~". */
static double gauss(uint64_t *rng)
{
	double u = ((double)(fl_rng_next(rng) >> 11) + 0.5) / 9007199254740992.0;
	double v = ((double)(fl_rng_next(rng) >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static int flagged(int trials, int rounds, int entries, double diff, double noise, double ramp,
		   bool fixed_order, uint64_t seed)
{
	uint64_t rng = seed;
	int n = 0;
	for (int t = 0; t < trials; t++) {
		double ratio[64], ns[8];
		int order[8], slot = 0, total = rounds * entries;
		for (int r = 0; r < rounds; r++) {
			fl_round_order(&rng, entries, order);
			for (int i = 0; i < entries; i++) {
				int e = fixed_order ? i : order[i];
				double machine = 1 + ramp * slot++ / total;
				ns[e] = 100 * (e == 1 ? 1 + diff : 1) * machine * exp(noise * gauss(&rng));
			}
			ratio[r] = ns[1] / ns[0];
		}
		struct fl_ratio q = fl_ratio_summarize(ratio, rounds);
		n += fl_ratio_verdict(&q, 0) != FL_SAME;
	}
	return n;
}

static void t_paired_drift(void *arg)
{
	(void)arg;
	/* 10 rounds, 4 designs, 1% noise, the machine 120% slower by the end:
	 * one rep later in a round is ~3% slower, three times the noise. */
	int a = flagged(1000, 10, 4, 0.0, 0.01, 1.2, false, 1);
	CHECK(a <= 50, "a known 0%% difference flagged in %d of 1000 runs (<= 5%% expected)", a);
	int b = flagged(1000, 10, 4, 0.10, 0.01, 1.2, false, 2);
	CHECK(b >= 950, "a known 10%% difference flagged in %d of 1000 runs (>= 95%% expected)", b);
	int c = flagged(1000, 10, 4, -0.10, 0.01, 1.2, false, 3);
	CHECK(c >= 950, "and a 10%% improvement in %d", c);
	/* The same runs with the rounds in a fixed order (baseline first, the
	 * judged design right after): the drift now always lands on one side,
	 * and the A/A verdict is wrong most of the time. This is what the
	 * random order buys; if it fails, the test above relies on nothing. */
	int d = flagged(1000, 10, 4, 0.0, 0.01, 1.2, true, 1);
	CHECK(d >= 500, "fixed order under drift: a 0%% difference flagged in %d of 1000 "
	      "(expected most: the interleaving is what makes the A/A clean)", d);
	printf("  A/A flagged %d/1000, 10%% flagged %d and %d/1000, fixed order A/A %d/1000\n",
	       a, b, c, d);
}

int main(void)
{
	run_test("median", t_median, NULL, 10);
	run_test("mad", t_mad, NULL, 10);
	run_test("ci_ranks", t_ci_ranks, NULL, 10);
	run_test("ci_values", t_ci_values, NULL, 10);
	run_test("apart", t_apart, NULL, 10);
	run_test("ratio_verdicts", t_ratio_verdicts, NULL, 10);
	run_test("log_scale", t_log_scale, NULL, 10);
	run_test("cpu_note", t_cpu_note, NULL, 10);
	run_test("round_order", t_round_order, NULL, 10);
	run_test("paired_drift", t_paired_drift, NULL, 30);
	return tests_done("stats");
}
