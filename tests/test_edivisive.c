/* tests/test_edivisive.c — stats/edivisive on inputs whose answers are known:
 * the q statistic by hand and against its definition, Student's t against
 * closed forms and scipy, seeded synthetic series (steps found where they
 * are, noise left alone, min_size kept), and Otava's published examples.
 *
 * Where a step is found: exactly at k for steps of 8 noise deviations
 * (and 12 for two steps); within +-1 of k at 3 deviations and within 3 at
 * 1.5 (the nearest values of the two sides trade places there, so
 * exactness would test the noise). The figures are printed; the last line
 * sums them up. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/check.h"
#include "stats/edivisive.h"
#include "stats/stats.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))
#define MAXN 512

/* ---- seeded noise: splitmix64 and Box-Muller ------------------------ */

static uint64_t rng_state;

static uint64_t splitmix64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double uniform01(void) /* in (0, 1) */
{
	return ((double)(splitmix64() >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform01())) * cos(2 * M_PI * uniform01());
}

/* x[0..n): level 0 then `step` from k on (k >= n: no step), noise sd. */
static void series(double *x, int n, int k, double step, double sd)
{
	for (int i = 0; i < n; i++)
		x[i] = (i >= k ? step : 0) + sd * gauss();
}

static int cps(const double *x, int n, const struct fl_cp_opts *o, struct fl_change_point *out)
{
	return fl_change_points(x, n, o, out, MAXN);
}

/* The figures for the summary line. */
static double fig_false_alarm, fig_detect_hi, fig_detect_lo, fig_small;

/* ---- building blocks ------------------------------------------------ */

static void t_q_hand(void *arg)
{
	(void)arg;
	/* {0,0}|{1,1}: cross 4 pairs of 1, no spread within: 2/4 * 4 = 2. */
	double a[] = { 0, 0, 1, 1 };
	CHECK(NEAR(fl_ed_q(a, 2, 4), 2, 1e-12), "q = %g, want 2", fl_ed_q(a, 2, 4));
	/* {0}|{1,3}: cross 1 + 3 = 4 -> 2/3 * 4 = 8/3; within Y |1-3| = 2
	 * weighs 2*1/(3*1) -> 4/3; q = 8/3 - 4/3 = 4/3. */
	double b[] = { 0, 1, 3 };
	CHECK(NEAR(fl_ed_q(b, 1, 3), 4.0 / 3, 1e-12), "q = %g, want 4/3", fl_ed_q(b, 1, 3));
	/* kappa < n: the values past kappa play no part. */
	double c[] = { 0, 1, 3, 100 };
	CHECK(NEAR(fl_ed_q(c, 1, 3), 4.0 / 3, 1e-12), "q ignores x[kappa..]: %g",
	      fl_ed_q(c, 1, 3));
	/* Shifting or flipping the series leaves q alone (distances only). */
	double d[] = { 5, 4, 2 };
	CHECK(NEAR(fl_ed_q(d, 1, 3), 4.0 / 3, 1e-12), "q of 5-x: %g", fl_ed_q(d, 1, 3));
}

/* The O(w^2) search against the definition, over every (tau, kappa). */
static void t_split_vs_definition(void *arg)
{
	(void)arg;
	double x[40];
	rng_state = 11;
	for (int trial = 0; trial < 60; trial++) {
		int n = 2 + trial % 38, m = 1 + trial % 4;
		series(x, n, n / 3, trial % 3, 1);
		double best = -INFINITY, q;
		int bt = 0;
		for (int tau = m; tau <= n - m; tau++)
			for (int kappa = tau + m; kappa <= n; kappa++)
				if (fl_ed_q(x, tau, kappa) > best + 1e-9)
					best = fl_ed_q(x, tau, kappa), bt = tau;
		int t = fl_ed_split(x, n, m, &q);
		if (n < 2 * m) {
			CHECK(t == 0, "n %d min %d: no split, got %d", n, m, t);
			continue;
		}
		CHECK(t == bt && NEAR(q, best, 1e-9 * (1 + fabs(best))),
		      "n %d min %d: tau %d q %.12g, definition %d %.12g", n, m, t, q, bt, best);
	}
}

static void t_student(void *arg)
{
	(void)arg;
	/* Closed forms: df 1 is Cauchy, P(|T| > 1) = 1/2; df 2: 1 - t/sqrt(2+t^2). */
	CHECK(NEAR(fl_t_sf2(1, 1), 0.5, 1e-13), "df 1: %.15g", fl_t_sf2(1, 1));
	CHECK(NEAR(fl_t_sf2(2, 2), 1 - 2 / sqrt(6), 1e-13), "df 2: %.15g", fl_t_sf2(2, 2));
	CHECK(NEAR(fl_t_sf2(-2, 2), fl_t_sf2(2, 2), 0), "two-sided: symmetric");
	CHECK(NEAR(fl_t_sf2(0, 5), 1, 1e-15), "t 0: %.15g", fl_t_sf2(0, 5));
	CHECK(NEAR(fl_t_sf2(1.959963984540054, 1e7), 0.05, 1e-6), "normal limit: %.9g",
	      fl_t_sf2(1.959963984540054, 1e7));
	/* scipy.stats.t.sf(t, df) * 2 (scipy 1.10). */
	CHECK(NEAR(fl_t_sf2(2.5, 7), 0.040992218585752874, 1e-12), "%.17g", fl_t_sf2(2.5, 7));
	CHECK(NEAR(fl_t_sf2(0.3, 30), 0.7662461052843528, 1e-12), "%.17g", fl_t_sf2(0.3, 30));
	CHECK(NEAR(fl_t_sf2(8, 3), 0.004076577587785467, 1e-14), "%.17g", fl_t_sf2(8, 3));
	/* I_x(1, 1) = x, I_x(a, 1) = x^a, I_.5(a, a) = 1/2; scipy.stats.beta.cdf. */
	CHECK(NEAR(fl_betainc(1, 1, 0.37), 0.37, 1e-14), "I(1,1)");
	CHECK(NEAR(fl_betainc(3, 1, 0.6), 0.216, 1e-14), "I(3,1)");
	CHECK(NEAR(fl_betainc(4.5, 4.5, 0.5), 0.5, 1e-14), "I(a,a)");
	CHECK(NEAR(fl_betainc(2.5, 0.5, 0.3), 0.018927124071945658, 1e-14), "I(2.5,.5)");
	CHECK(NEAR(fl_betainc(0.5, 7, 0.9), 0.9999999780702157, 1e-14), "I(.5,7)");
}

static void t_ttest(void *arg)
{
	(void)arg;
	/* scipy.stats.ttest_ind(a, b).pvalue (pooled variance). */
	double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	CHECK(NEAR(fl_ttest_p(a, 3, b, 3), 0.021311641128756727, 1e-13), "%.17g",
	      fl_ttest_p(a, 3, b, 3));
	double c[] = { 1.0, 1.5, 0.7, 1.2, 0.9 }, d[] = { 2.0, 1.1, 1.9, 2.5 };
	CHECK(NEAR(fl_ttest_p(c, 5, d, 4), 0.02905298621956397, 1e-13), "%.17g",
	      fl_ttest_p(c, 5, d, 4));
	CHECK(fl_ttest_p(a, 1, b, 1) == 1, "no degree of freedom: p 1");
	double k1[] = { 2, 2 }, k2[] = { 2, 2, 2 }, k3[] = { 3, 3 };
	CHECK(fl_ttest_p(k1, 2, k2, 3) == 1, "constant, equal: p 1");
	CHECK(fl_ttest_p(k1, 2, k3, 2) == 0, "constant, apart: p 0");
	/* Otava's tests/analysis_test.py, test_significance_tester: the two
	 * halves of the first series are equal (p ~ 1), of the second apart. */
	double s1[] = { 1.00, 1.02, 1.05, 0.95, 0.98, 1.00, 1.02, 1.05, 0.95, 0.98 };
	double s2[] = { 1.00, 1.02, 1.05, 0.95, 0.98, 0.80, 0.82, 0.85, 0.79, 0.77 };
	double p1 = fl_ttest_p(s1, 5, s1 + 5, 5), p2 = fl_ttest_p(s2, 5, s2 + 5, 5);
	CHECK(p1 > 0.99 && p1 <= 1, "equal halves: p %g", p1);
	CHECK(p2 > 0 && p2 < 0.001, "apart: p %g", p2);
}

/* ---- seeded synthetic series ---------------------------------------- */

/* Is there a change point within tol of k? Counts the others in *extra. */
static int found_at(const struct fl_change_point *c, int got, int k, int tol, int *extra)
{
	int hit = 0;
	for (int i = 0; i < got; i++) {
		if (!hit && abs(c[i].at - k) <= tol)
			hit = 1;
		else
			(*extra)++;
	}
	return hit;
}

/* One step of `snr` noise deviations at a random k (both sides at least
 * min_size), up or down, over sizes and noise scales; returns the share of
 * series with a change point within tol of k, the other change points
 * counted in *extra (noise claims, as in t_noise). `sizes` ends with 0. */
static double one_step(const int *sizes, double snr, int tol, int trials, int *extra)
{
	static const double sds[] = { 0.001, 0.05, 1 };
	struct fl_cp_opts o;
	fl_cp_defaults(&o);
	double x[MAXN];
	struct fl_change_point c[MAXN];
	int hit = 0, all = 0;
	*extra = 0;
	for (int t = 0; t < trials; t++)
		for (int si = 0; sizes[si]; si++) {
			int n = sizes[si];
			int k = o.min_size + (int)(splitmix64() % (uint64_t)(n - 2 * o.min_size + 1));
			double sd = sds[(t + si) % 3];
			series(x, n, k, snr * sd * (t % 2 ? 1 : -1), sd);
			int got = cps(x, n, &o, c);
			hit += found_at(c, got, k, tol, extra);
			all++;
		}
	return (double)hit / all;
}

static void t_step_high_snr(void *arg)
{
	(void)arg;
	static const int sizes[] = { 12, 20, 40, 100, 200, 400, 0 };
	rng_state = 1;
	int extra;
	fig_detect_hi = one_step(sizes, 8, 0, 200, &extra);
	printf("  step of 8 sd, n 12..400: %.2f%% found exactly at k, %d other claims in 1200 "
	       "series\n", 100 * fig_detect_hi, extra);
	/* Misses are a value next to k 4 sd out, which moves the best split. */
	CHECK(fig_detect_hi >= 0.99, "found exactly at k in %.4f", fig_detect_hi);
	/* The other claims are the noise claims of long series (t_noise: 0.05
	 * per steady series of 100 values, 0.25 of 400), 0.06 a series here. */
	CHECK(extra <= 120, "other claims: %d", extra);
	/* The shortest series that can hold a change: 3 | 3 at 20 sd. */
	double x[6];
	struct fl_change_point c[MAXN];
	for (int t = 0; t < 50; t++) {
		series(x, 6, 3, 20, 1);
		int got = cps(x, 6, NULL, c);
		CHECK(got == 1 && c[0].at == 3, "3 | 3: %d change points at %d", got,
		      got ? c[0].at : -1);
	}
}

/* A step of snr sd at k in the middle half of 40..200 values: the share
 * found within tol of k. */
static double mid_step(double snr, int tol, int trials, int *extra)
{
	double x[MAXN];
	struct fl_change_point c[MAXN];
	int hit = 0;
	for (int t = 0; t < trials; t++) {
		int n = 40 + (int)(splitmix64() % 161), k = n / 4 + (int)(splitmix64() % (n / 2));
		series(x, n, k, t % 2 ? snr : -snr, 1);
		hit += found_at(c, cps(x, n, NULL, c), k, tol, extra);
	}
	return (double)hit / trials;
}

/* Lower steps: at 3 sd the nearest values of the two sides overlap often
 * enough that the split can land one off (96% within 1, 84% exact, over
 * 1000); at 1.5 sd it is found (p < 0.001 on 20+ values a side) but placed
 * only roughly: 83% within 3, 62% within 1. */
static void t_step_low_snr(void *arg)
{
	(void)arg;
	int extra = 0;
	rng_state = 2;
	fig_detect_lo = mid_step(3, 1, 500, &extra);
	double rough = mid_step(1.5, 3, 500, &extra);
	printf("  step of 3 sd, n 40..200: %.1f%% found within 1 of k; 1.5 sd: %.1f%% within 3; "
	       "%d other claims\n", 100 * fig_detect_lo, 100 * rough, extra);
	CHECK(fig_detect_lo >= 0.93, "3 sd: found within 1 of k in %.3f", fig_detect_lo);
	CHECK(rough >= 0.75, "1.5 sd: found within 3 of k in %.3f", rough);
	/* noise claims, and the rough placements at 1.5 sd counted again */
	CHECK(extra <= 200, "other claims: %d", extra);
}

/* Two steps of 12 sd at k1 < k2 in n values, both sides of each at least
 * 3; `back`: the second step goes back past the first level. Returns 1 when
 * they are found exactly and nothing else, 0 when found with more, -1 when
 * either is missed. */
static int two_steps(int n, int k1, int k2, double l1, int back)
{
	double x[MAXN], l2 = back ? -l1 : 2 * l1;
	struct fl_change_point c[MAXN];
	for (int i = 0; i < n; i++)
		x[i] = (i < k1 ? 0 : i < k2 ? l1 : l2) + gauss() * 0.5;
	int got = cps(x, n, NULL, c), extra = 0;
	if (found_at(c, got, k1, 0, &extra) + found_at(c, got, k2, 0, &extra) < 2)
		return -1;
	if (got > 2)
		return 0;
	/* the means of 3 values of sd 0.5 are within 1.5 of the level */
	CHECK(NEAR(c[0].before, 0, 1.5) && NEAR(c[0].after, l1, 1.5) &&
		      NEAR(c[1].before, l1, 1.5) && NEAR(c[1].after, l2, 1.5) && c[0].p < 0.001 &&
		      c[1].p < 0.001,
	      "means %g %g %g p %g %g", c[0].before, c[0].after, c[1].after, c[0].p, c[1].p);
	return 1;
}

/* A staircase (up-up, down-down) is found exactly. A step followed by one
 * back past the old level can hide both from a stretch's t-test: E-Divisive
 * proposes the first, but the stretch after it holds both levels, so its
 * mean moves little and its spread grows, the pass stops there, and only a
 * later window that starts past the first step recovers the second. The
 * figure is printed; the bound holds it to what the design gives. */
static void t_two_steps(void *arg)
{
	(void)arg;
	rng_state = 3;
	int exact[2] = { 0, 0 }, missed[2] = { 0, 0 };
	for (int t = 0; t < 400; t++) {
		int n = 10 + (int)(splitmix64() % 300);
		int k1 = 3 + (int)(splitmix64() % (uint64_t)(n - 9));
		int k2 = k1 + 3 + (int)(splitmix64() % (uint64_t)(n - k1 - 5));
		int back = t % 2, r = two_steps(n, k1, k2, t % 4 < 2 ? 6 : -6, back);
		exact[back] += r == 1;
		missed[back] += r < 0;
		CHECK(back || r >= 0, "staircase n %d steps at %d %d missed", n, k1, k2);
	}
	printf("  two steps of 12 sd: staircase %d of 200 exactly and nothing else; "
	       "there and back %d of 200 (%d missed)\n", exact[0], exact[1], missed[1]);
	/* what is not exact holds a noise claim besides (n is up to 310) */
	CHECK(exact[0] >= 180, "staircase exactly in %d of 200", exact[0]);
	CHECK(exact[1] >= 170, "there and back exactly in %d of 200", exact[1]);
}

/* Steady series: constant, and 500 of seeded normal noise, 10..50 values.
 * The p threshold applies to the one split E-Divisive found best in a
 * stretch, chosen among ~n, so the rate of series with a claim is a dozen
 * times 0.001: 1.24% over 20000 such series (3.3% at 100 values, 6.2% at
 * 200, 12.5% at 400). Bound: 3% (15 of 500), which a rate of 1.24% passes
 * by chance with probability ~0.1%. */
static void t_noise(void *arg)
{
	(void)arg;
	struct fl_cp_opts o;
	fl_cp_defaults(&o);
	double x[MAXN];
	struct fl_change_point c[MAXN];
	for (int n = 0; n <= 300; n += 7) {
		for (int i = 0; i < n; i++)
			x[i] = 3.25;
		int got = cps(x, n, &o, c);
		CHECK(got == 0, "constant, n %d: %d change points", n, got);
	}
	rng_state = 4;
	int claimed = 0;
	for (int t = 0; t < 500; t++) {
		int n = 10 + (int)(splitmix64() % 41);
		series(x, n, n, 0, t % 2 ? 1 : 0.01);
		claimed += cps(x, n, &o, c) > 0;
	}
	fig_false_alarm = claimed / 500.0;
	printf("  noise, n 10..50: %d of 500 series with a claim\n", claimed);
	CHECK(claimed <= 15, "false alarms: %d of 500", claimed);
}

/* A step of 0.25 sd over 40 values is below what 20 values a side can
 * tell from noise at p 0.001: claimed no more often than noise is. */
static void t_small_step(void *arg)
{
	(void)arg;
	struct fl_cp_opts o;
	fl_cp_defaults(&o);
	double x[MAXN];
	struct fl_change_point c[MAXN];
	rng_state = 5;
	int claimed = 0;
	for (int t = 0; t < 500; t++) {
		series(x, 40, 20, 0.25, 1);
		claimed += cps(x, 40, &o, c) > 0;
	}
	fig_small = claimed / 500.0;
	printf("  step of 0.25 sd at 20 of 40: %d of 500 series with a claim\n", claimed);
	CHECK(claimed <= 15, "small step claimed in %d of 500", claimed);
}
/* ---- contract -------------------------------------------------------- */

/* No stretch shorter than min_size, whatever the data: many steps of all
 * sizes, spikes, and the windows' overlaps. */
static void t_min_size(void *arg)
{
	(void)arg;
	struct fl_cp_opts o;
	fl_cp_defaults(&o);
	o.pvalue = 0.05; /* many claims, many chances to break it */
	double x[MAXN];
	struct fl_change_point c[MAXN];
	rng_state = 6;
	int claims = 0;
	for (int t = 0; t < 300; t++) {
		int n = 2 + (int)(splitmix64() % 200);
		double level = 0;
		for (int i = 0; i < n; i++) {
			if (splitmix64() % 6 == 0)
				level = 10 * gauss();
			x[i] = level + gauss();
		}
		o.min_size = 1 + t % 6;
		o.window = t % 3 ? 50 : 9 + t % 20;
		int got = cps(x, n, &o, c), prev = 0;
		claims += got;
		for (int i = 0; got && i <= got; i++) {
			int at = i < got ? c[i].at : n;
			CHECK(at - prev >= o.min_size, "n %d min %d window %d: stretch [%d, %d)", n,
			      o.min_size, o.window, prev, at);
			prev = at;
		}
		CHECK(got == 0 || n >= 2 * o.min_size, "n %d < 2 * %d: %d change points", n,
		      o.min_size, got);
	}
	CHECK(claims > 300, "the series did have change points: %d", claims);
}

/* One wild run (50 sd) as the newest of 20: at min_size 1 it is a stretch
 * of its own, a change nearly always (as in Otava); at min_size 3 it must
 * take two ordinary runs into its stretch, whose spread it then inflates:
 * never claimed at 20 values (0 of 1000; at 100 values, 13%). */
static void t_outlier(void *arg)
{
	(void)arg;
	struct fl_cp_opts o;
	fl_cp_defaults(&o);
	double x[20];
	struct fl_change_point c[MAXN];
	rng_state = 7;
	int claimed[2] = { 0, 0 };
	for (int t = 0; t < 200; t++) {
		series(x, 20, 20, 0, 1);
		x[19] += 50;
		o.min_size = 3;
		claimed[0] += cps(x, 20, &o, c) > 0;
		o.min_size = 1;
		int got = cps(x, 20, &o, c);
		claimed[1] += got > 0 && c[got - 1].at == 19;
	}
	printf("  a wild newest run of 20: claimed in %d of 200 at min_size 3, %d at 1\n",
	       claimed[0], claimed[1]);
	CHECK(claimed[0] == 0, "min_size 3: claimed in %d of 200", claimed[0]);
	CHECK(claimed[1] >= 190, "min_size 1: claimed at 19 in %d of 200", claimed[1]);
}

static void t_short_and_limits(void *arg)
{
	(void)arg;
	double x[] = { 0, 0, 0, 0, 0, 9, 9, 9, 9, 9 };
	struct fl_change_point c[4];
	struct fl_cp_opts o;
	fl_cp_defaults(&o);
	/* n < 2 * min_size: nothing, even across a step */
	CHECK(fl_change_points(x + 2, 5, &o, c, 4) == 0, "n 5");
	CHECK(fl_change_points(x, 0, &o, c, 4) == 0, "n 0");
	CHECK(fl_change_points(x, 1, &o, c, 4) == 0, "n 1");
	o.min_size = 5;
	CHECK(fl_change_points(x + 1, 9, &o, c, 4) == 0, "n 9 min 5");
	int got = fl_change_points(x, 10, &o, c, 4);
	CHECK(got == 1 && c[0].at == 5 && c[0].p == 0 && c[0].before == 0 && c[0].after == 9,
	      "n 10 min 5: %d at %d p %g", got, c[0].at, c[0].p);
	/* max bounds what is written; NULL options are the defaults */
	double y[] = { 0, 0, 0, 5, 5, 5, 10, 10, 10 };
	CHECK(fl_change_points(y, 9, NULL, c, 4) == 2, "two steps");
	got = fl_change_points(y, 9, NULL, c, 1);
	CHECK(got == 1 && c[0].at == 3, "max 1: %d, at %d", got, c[0].at);
	CHECK(fl_change_points(y, 9, NULL, c, 0) == 0, "max 0");
	/* The input contract is no NaN; with one the call still returns and
	 * writes no more than max. */
	y[4] = NAN;
	got = fl_change_points(y, 9, NULL, c, 4);
	CHECK(got >= 0 && got <= 4, "NaN: %d", got);
}

/* ---- published examples --------------------------------------------- */

/* apache/otava tests/analysis_test.py, test_single_series: window 10,
 * pvalue 0.0001, change point [10]; and tests/change_point_divisive_test.py,
 * SEQUENCE with change points [5, 8] at pvalue 0.01 (there E-Divisive on
 * the whole series, here the same with the merge after it). */
static void t_otava_small(void *arg)
{
	(void)arg;
	static const double single[] = { 1.02, 0.95, 0.99, 1.00, 1.12, 1.00, 1.01,
					 0.98, 1.01, 0.96, 0.50, 0.51, 0.48, 0.48,
					 0.55, 0.50, 0.49, 0.51, 0.50, 0.49 };
	static const double seq[] = { 0.3,   2.4,   1.5,   -0.9,  -0.5,  99.7,  98.3,
				      99.1,  149.0, 149.7, 149.5, 149.1, 148.8, 150.0 };
	struct fl_change_point c[MAXN];
	for (int mode = 0; mode < 2; mode++) {
		struct fl_cp_opts o = { .pvalue = 0.0001, .min_size = mode ? 1 : 3, .window = 10,
					.otava = mode };
		int got = cps(single, 20, &o, c);
		CHECK(got == 1 && c[0].at == 10, "single_series, otava %d: %d, first at %d", mode,
		      got, got ? c[0].at : -1);
		o.pvalue = 0.01;
		o.window = 0;
		got = cps(seq, 14, &o, c);
		CHECK(got == 2 && c[0].at == 5 && c[1].at == 8, "SEQUENCE, otava %d: %d: %d %d",
		      mode, got, got ? c[0].at : -1, got > 1 ? c[1].at : -1);
	}
}

/* apache/otava tests/tigerbeetle_test.py, _get_series(): TigerBeetle
 * throughput, "a couple distinctive ups and down, anomalous drop, then an
 * upward slope and the rest is just normal variance". */
static const double tigerbeetle[] = {
	26705, 26475, 26641, 26806, 26835, 26911, 26564, 26812, 26874, 26682, 15672, 26745,
	26460, 26977, 26851, 23412, 23547, 23674, 23519, 23670, 23662, 23462, 23750, 23717,
	23524, 23588, 23687, 23793, 23937, 23715, 23570, 23730, 23690, 23699, 23670, 23860,
	23988, 23652, 23681, 23798, 23728, 23604, 23523, 23412, 23685, 23773, 23771, 23718,
	23409, 23739, 23674, 23597, 23682, 23680, 23711, 23660, 23990, 23938, 23742, 23703,
	23536, 24363, 24414, 24483, 24509, 24944, 24235, 24560, 24236, 24667, 24730, 28346,
	28437, 28436, 28057, 28217, 28456, 28427, 28398, 28250, 28331, 28222, 28726, 28578,
	28345, 28274, 28514, 28590, 28449, 28305, 28411, 28788, 28404, 28821, 28580, 27483,
	26805, 27487, 27124, 26898, 27295, 26951, 27312, 27660, 27154, 27050, 26989, 27193,
	27503, 27326, 27375, 27513, 27057, 27421, 27574, 27609, 27123, 27824, 27644, 27394,
	27836, 27949, 27702, 27457, 27272, 28207, 27802, 27516, 27586, 28005, 27768, 28543,
	28237, 27915, 28437, 28342, 27733, 28296, 28524, 28687, 28258, 28611, 29360, 28590,
	29641, 28965, 29474, 29256, 28611, 28205, 28539, 27962, 28398, 28509, 28240, 28592,
	28102, 28461, 28578, 28669, 28507, 28535, 28226, 28536, 28561, 28087, 27953, 28398,
	28007, 28518, 28337, 28242, 28607, 28545, 28514, 28377, 28010, 28412, 28633, 28576,
	28195, 28637, 28724, 28466, 28287, 28719, 28425, 28860, 28842, 28604, 28327, 28216,
	28946, 28918, 29287, 28725, 29148, 29541, 29137, 29628, 29087, 28612, 29154, 29108,
	28884, 29234, 28695, 28969, 28809, 28695, 28634, 28916, 29852, 29389, 29757, 29531,
	29363, 29251, 29552, 29561, 29046, 29795, 29022, 29395, 28921, 29739, 29257, 29455,
	29376, 29528, 28909, 29492, 28984, 29621, 29026, 29457, 29102, 29114, 28924, 29162,
	29259, 29554, 29616, 29211, 29367, 29460, 28836, 29645, 29586, 28848, 29324, 28969,
	29150, 29243, 29081, 29312, 28923, 29272, 29117, 29072, 29529, 29737, 29652, 29612,
	29856, 29012, 30402, 29969, 29309, 29439, 29285, 29421, 29023, 28772, 29692, 29416,
	29267, 29542, 29904, 30045, 29739, 29945, 29141, 29163, 29765, 29197, 29441, 28910,
	29504, 29614, 29643, 29506, 29420, 29672, 29432, 29784, 29888, 29309, 29247, 29816,
	29254, 29813, 29451, 29382, 29618, 28558, 29845, 29499, 29283, 29184, 29246, 28790,
	29952, 29145, 29415, 30437, 29227, 29605, 29859, 29156, 29807, 29406, 29734, 29861,
	29140, 29983, 29832, 29919, 29896, 29991, 29266, 29001, 29459, 29548, 29310, 29042,
	29303, 29894, 29091, 29018, 29537, 29614, 29180, 29736, 29500, 29218, 29581, 28906,
	28542, 29306, 28987, 29878, 28865, 30272, 29707, 29662, 29815, 30492, 29347, 30096,
	29054, 30238, 28813, 31895, 28915,
};

/* The test_tb_magnitude0_* lists of the same file: window 30,
 * min_magnitude 0, pvalue as named. */
static const struct {
	double p;
	int at[80];
} tb_expected[] = {
	{ 0.2, { 3, 6, 7, 10, 11, 13, 15, 16, 28, 29, 35, 37, 39, 41, 44, 48, 49, 56, 58, 61,
		 65, 66, 69, 71, 74, 76, 82, 95, 108, 117, 125, 126, 129, 131, 136, 137, 142, 148,
		 165, 169, 187, 190, 192, 197, 200, 212, 220, 241, 243, 246, 247, 249, 250, 260,
		 265, 266, 268, 278, 282, 288, 305, 306, 325, 330, 337, 338, 340, 347, 349,
		 363 } },
	{ 0.1, { 3, 6, 10, 11, 15, 16, 28, 29, 35, 37, 39, 41, 44, 48, 49, 61, 71, 95, 117, 131,
		 142, 148, 165, 169, 192, 206, 212, 260, 265, 268, 278, 282, 288, 305, 363 } },
	{ 0.01, { 15, 26, 61, 71, 95, 117, 131, 142, 148, 165, 169, 192, 212, 260 } },
	{ 0.001, { 15, 61, 71, 95, 117, 131, 142, 148, 192, 212, 260 } },
	{ 0.0001, { 71, 95, 117, 131, 142, 148, 192, 212 } },
	{ 0.00001, { 71, 95, 131, 192, 212 } },
};

#define TB_N ((int)(sizeof tigerbeetle / sizeof tigerbeetle[0]))

/* With Otava's switch and min_size 1, each list exactly. */
static void t_otava_tigerbeetle(void *arg)
{
	(void)arg;
	struct fl_change_point c[MAXN];
	CHECK(TB_N == 365, "the series has %d values", TB_N);
	for (int e = 0; e < (int)(sizeof tb_expected / sizeof tb_expected[0]); e++) {
		struct fl_cp_opts o = { .pvalue = tb_expected[e].p, .min_size = 1, .window = 30,
					.otava = 1 };
		int want = 0;
		while (want < 80 && tb_expected[e].at[want])
			want++;
		int got = cps(tigerbeetle, TB_N, &o, c), same = got == want;
		for (int i = 0; same && i < got; i++)
			same = c[i].at == tb_expected[e].at[i];
		CHECK(same, "p %g: %d change points, want %d", tb_expected[e].p, got, want);
	}
}

/* The defaults on ln(throughput), as the caller passes ln(time): the two
 * departures and min_size 3 only claim less, so every change point is one
 * Otava's p 0.001 list has, and the two it keeps at min_magnitude 0.05
 * (test_tb_old_defaults: [15, 71]) are there. */
static void t_defaults_tigerbeetle(void *arg)
{
	(void)arg;
	double x[TB_N];
	struct fl_change_point c[MAXN];
	for (int i = 0; i < TB_N; i++)
		x[i] = log(tigerbeetle[i]);
	int got = cps(x, TB_N, NULL, c), has15 = 0, has71 = 0;
	for (int i = 0; i < got; i++) {
		int in = 0;
		for (int j = 0; tb_expected[3].at[j]; j++)
			in |= tb_expected[3].at[j] == c[i].at;
		CHECK(in, "%d is not in Otava's list", c[i].at);
		has15 |= c[i].at == 15;
		has71 |= c[i].at == 71;
	}
	CHECK(has15 && has71 && got >= 6, "%d change points, 15: %d, 71: %d", got, has15, has71);
	printf("  TigerBeetle, defaults: %d change points (Otava's list at p 0.001: 11)\n", got);
}

int main(void)
{
	run_test("q_hand", t_q_hand, NULL, 10);
	run_test("split_vs_definition", t_split_vs_definition, NULL, 10);
	run_test("student", t_student, NULL, 10);
	run_test("ttest", t_ttest, NULL, 10);
	run_test("step_high_snr", t_step_high_snr, NULL, 30);
	run_test("step_low_snr", t_step_low_snr, NULL, 30);
	run_test("two_steps", t_two_steps, NULL, 30);
	run_test("noise", t_noise, NULL, 30);
	run_test("small_step", t_small_step, NULL, 30);
	run_test("min_size", t_min_size, NULL, 30);
	run_test("outlier", t_outlier, NULL, 10);
	run_test("short_and_limits", t_short_and_limits, NULL, 10);
	run_test("otava_small", t_otava_small, NULL, 10);
	run_test("otava_tigerbeetle", t_otava_tigerbeetle, NULL, 30);
	run_test("defaults_tigerbeetle", t_defaults_tigerbeetle, NULL, 30);
	printf("edivisive: false alarms in %.1f%% of noise series (n 10..50); steps found "
	       "%.2f%% (8 sd, exactly), %.1f%% (3 sd, +-1); 0.25 sd steps claimed %.1f%%\n",
	       100 * fig_false_alarm, 100 * fig_detect_hi, 100 * fig_detect_lo, 100 * fig_small);
	return tests_done("edivisive");
}
