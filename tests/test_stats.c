/* tests/test_stats.c — harness/stats on inputs whose answers are known by
 * hand: median (odd, even, unsorted), MAD, the order-statistics confidence
 * interval of the median and its exact binomial coverage, the noise test and
 * the "apart" test compare uses to flag a change. */
#include <math.h>

#include "check.h"
#include "stats.h"

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

int main(void)
{
	run_test("median", t_median, NULL, 10);
	run_test("mad", t_mad, NULL, 10);
	run_test("ci_ranks", t_ci_ranks, NULL, 10);
	run_test("ci_values", t_ci_values, NULL, 10);
	run_test("apart", t_apart, NULL, 10);
	return tests_done("stats");
}
