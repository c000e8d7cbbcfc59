/* tests/test_predict.c — where the next run lands (stats/predict.h): the
 * special functions on values known by hand, the variance prior recovering
 * the one it was drawn from, and the prediction interval's coverage and
 * width on seeded synthetic histories of a machine.
 *
 * A synthetic history: 230 series (a quick sweep's pairs of points and
 * entries), each with its own spread sigma drawn lognormal with median 0.10
 * and 90th percentile 0.30 (the between-run SD of ln ratio measured over
 * three standard sweeps on the 2-vCPU VM), N earlier runs and one new run
 * of unchanged code. Checked over 200 histories: the moderated 95%
 * interval holds the new run for >= 94% of the series at N = 5 and its
 * median half-width is at most x/1.4; each series alone (its own s2, N - 1
 * degrees of freedom) holds it as often but is wider; a plain normal
 * interval on the series' own s2 holds it for < 92% (too few runs to know a
 * spread: the check that the t's degrees of freedom matter). The same with
 * errors of Student's t on 4 degrees of freedom (heavy tails: a VM's
 * states) is printed and must hold >= 92%. Then histories whose runs are
 * sometimes in another machine state: the interval calibrated on the
 * history itself (fl_predict_calibrate) holds >= 94% and more than the t
 * alone. Then the least history (no calibration below FL_PREDICT_MIN_RUNS)
 * and the floor of a series' spread (one step of a near-zero-spread series
 * does not set the calibrated scale). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "tests/check.h"
#include "stats/predict.h"
#include "stats/stats.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) < (eps))

static void t_special(void *arg)
{
	(void)arg;
	CHECK(NEAR(fl_digamma(1), -0.5772156649, 1e-9), "digamma(1) %.10f", fl_digamma(1));
	CHECK(NEAR(fl_digamma(0.5), -1.9635100260, 1e-9), "digamma(1/2) %.10f",
	      fl_digamma(0.5));
	CHECK(NEAR(fl_digamma(10), 2.2517525891, 1e-9), "digamma(10)");
	CHECK(NEAR(fl_trigamma(1), M_PI * M_PI / 6, 1e-9), "trigamma(1) %.10f", fl_trigamma(1));
	CHECK(NEAR(fl_trigamma(0.5), M_PI * M_PI / 2, 1e-9), "trigamma(1/2)");
	CHECK(NEAR(fl_trigamma(20), 0.0512708229, 1e-9), "trigamma(20) %.10f", fl_trigamma(20));
	for (int k = 0; k < 10; k++) {
		double x = 0.01 * pow(3.7, k);
		CHECK(NEAR(fl_trigamma_inverse(fl_trigamma(x)) / x, 1, 1e-7), "inverse at %g", x);
	}
}

static double uniform(uint64_t *s)
{
	return ((double)(fl_rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *s)
{
	return sqrt(-2 * log(uniform(s))) * cos(2 * M_PI * uniform(s));
}

static double chi2(uint64_t *s, int d)
{
	double x = 0;
	for (int i = 0; i < d; i++) {
		double z = normal(s);
		x += z * z;
	}
	return x;
}

/* Variances drawn from the model itself (scaled inverse chi-square, d0 = 8
 * around 0.01) and sampled with 4 degrees of freedom: the fit finds them. */
static void t_prior(void *arg)
{
	(void)arg;
	uint64_t rng = 7;
	enum { G = 4000 };
	static double s2[G], d[G];
	for (int g = 0; g < G; g++) {
		double var = 0.01 * 8 / chi2(&rng, 8);
		s2[g] = var * chi2(&rng, 4) / 4;
		d[g] = 4;
	}
	struct fl_var_prior p = fl_var_prior(s2, d, G);
	printf("# prior fitted: d0 %.2f (drawn 8), s0^2 %.4f (drawn 0.0100)\n", p.d0, p.s02);
	CHECK(p.d0 > 6 && p.d0 < 11, "d0 %g", p.d0);
	CHECK(NEAR(p.s02, 0.01, 0.0015), "s0^2 %g", p.s02);
	for (int g = 0; g < G; g++)
		s2[g] = 0.02 * chi2(&rng, 4) / 4; /* one variance for all */
	p = fl_var_prior(s2, d, G);
	CHECK(p.d0 > 100, "equal variances: d0 %g", p.d0);
	double df, v = fl_var_moderated(&p, 0.5, 4, &df);
	CHECK(v < 0.05 && df > 100, "a wild s2 pulled in: %g on %g df", v, df);
	struct fl_var_prior none = fl_var_prior(s2, d, 1);
	v = fl_var_moderated(&none, 0.5, 4, &df);
	CHECK(v == 0.5 && df == 4, "no prior: the series' own (%g, %g)", v, df);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct cover {
	int held, held_own, held_z, n;
	double half[200], half_own[200];
};

/* One history of G series with N earlier runs: how many of the new runs
 * each interval holds, and its median half-width. */
static void history(uint64_t *rng, int N, bool heavy, struct cover *c, int h)
{
	enum { G = 230 };
	static double y[G][12], s2[G], d[G], sig[G];
	double halves[G], own[G];
	for (int g = 0; g < G; g++) {
		sig[g] = 0.10 * exp(0.857 * normal(rng));
		for (int j = 0; j <= N; j++) {
			double e = normal(rng);
			if (heavy) /* t on 4 df, scaled to unit variance */
				e = e / sqrt(chi2(rng, 4) / 4) / sqrt(2);
			y[g][j] = sig[g] * e;
		}
		struct fl_series s = fl_series_of(y[g], N);
		s2[g] = s.s2;
		d[g] = N - 1;
	}
	struct fl_var_prior p = fl_var_prior(s2, d, G);
	for (int g = 0; g < G; g++) {
		struct fl_series s = fl_series_of(y[g], N), t = s;
		fl_series_moderate(&s, &p, 0);
		fl_series_moderate(&t, NULL, 0);
		halves[g] = fl_series_half(&s, 0.95);
		own[g] = fl_series_half(&t, 0.95);
		double dev = fabs(y[g][N] - s.mean);
		c->held += dev <= halves[g];
		c->held_own += dev <= own[g];
		c->held_z += dev <= 1.959964 * t.se;
		c->n++;
	}
	qsort(halves, G, sizeof *halves, cmp_d);
	qsort(own, G, sizeof *own, cmp_d);
	c->half[h] = halves[G / 2];
	c->half_own[h] = own[G / 2];
}

static void t_coverage(void *arg)
{
	(void)arg;
	for (int heavy = 0; heavy <= 1; heavy++) {
		uint64_t rng = 42 + (uint64_t)heavy;
		struct cover c = { 0 };
		for (int h = 0; h < 200; h++)
			history(&rng, 5, heavy, &c, h);
		qsort(c.half, 200, sizeof *c.half, cmp_d);
		qsort(c.half_own, 200, sizeof *c.half_own, cmp_d);
		double held = (double)c.held / c.n, own = (double)c.held_own / c.n,
		       z = (double)c.held_z / c.n, w = exp(c.half[100]), wo = exp(c.half_own[100]);
		printf("# %s errors, 5 runs: moderated 95%% held %.1f%% at median x/%.3f; "
		       "own s2 (t, 4 df) %.1f%% at x/%.3f; own s2 (normal) %.1f%%\n",
		       heavy ? "t4" : "normal", 100 * held, w, 100 * own, wo, 100 * z);
		if (!heavy) {
			CHECK(held >= 0.94, "moderated coverage %.3f", held);
			CHECK(w <= 1.40, "moderated median half-width x/%.3f", w);
			CHECK(wo > w, "own s2 wider (x/%.3f) than moderated (x/%.3f)", wo, w);
			CHECK(z < 0.92, "normal on own s2 held %.3f: the test cannot tell", z);
		} else {
			CHECK(held >= 0.92, "heavy tails: moderated coverage %.3f", held);
		}
	}
}

static void t_series(void *arg)
{
	(void)arg;
	double y[] = { 1, 2, NAN, 3 };
	struct fl_series s = fl_series_of(y, 4);
	CHECK(s.n == 3 && NEAR(s.mean, 2, 1e-12) && NEAR(s.s2, 1, 1e-12), "n %d mean %g s2 %g",
	      s.n, s.mean, s.s2);
	fl_series_moderate(&s, NULL, 0);
	CHECK(s.df == 2 && NEAR(s.se, sqrt(4.0 / 3), 1e-12), "df %g se %g", s.df, s.se);
	/* t 0.975 on 2 df = 4.302653 */
	CHECK(NEAR(fl_series_half(&s, 0.95), 4.302653 * sqrt(4.0 / 3), 1e-4), "half %g",
	      fl_series_half(&s, 0.95));
	CHECK(NEAR(fl_series_p(&s, 2 + 4.302653 * sqrt(4.0 / 3), 1, 1), 0.05, 1e-4), "p at the edge");
	struct fl_series one = fl_series_of(y, 1);
	fl_series_moderate(&one, NULL, 0);
	CHECK(isnan(fl_series_half(&one, 0.95)) && isnan(fl_series_p(&one, 1, 1, 1)),
	      "one value: no prediction");
}

/* A history whose runs are not all alike: each run is, with probability
 * 0.15, in another machine state that moves a third of the series by 3
 * of their own sd (a VM's run after a neighbour's job). The moderated t
 * assumes normal runs and holds the new run for fewer than 95%; calibrated
 * on the history itself (fl_predict_calibrate: each run left out in turn)
 * it holds >= 94%. */
static void t_calibrated(void *arg)
{
	(void)arg;
	enum { G = 230, N = 7, H = 150 };
	static double y[G * N], ynew[G];
	uint64_t rng = 99;
	int held_t = 0, held_c = 0, total = 0;
	double widths[H];
	for (int h = 0; h < H; h++) {
		double sig[G];
		for (int g = 0; g < G; g++)
			sig[g] = 0.10 * exp(0.857 * normal(&rng));
		for (int j = 0; j <= N; j++) {
			bool state = uniform(&rng) < 0.15;
			for (int g = 0; g < G; g++) {
				double e = normal(&rng) + (state && g % 3 == 0 ? 3 : 0);
				if (j < N)
					y[g * N + j] = sig[g] * e;
				else
					ynew[g] = sig[g] * e;
			}
		}
		static struct fl_series s[G];
		fl_series_all(y, G, N, NULL, s);
		double q = fl_predict_calibrate(y, G, N, NULL, 0.95), half[G];
		CHECK(isfinite(q) && q > 0, "a calibration (%g)", q);
		for (int g = 0; g < G; g++) {
			double dev = fabs(ynew[g] - s[g].mean);
			half[g] = q * s[g].se;
			held_t += dev <= fl_series_half(&s[g], 0.95);
			held_c += dev <= half[g];
			total++;
		}
		qsort(half, G, sizeof *half, cmp_d);
		widths[h] = exp(half[G / 2]);
	}
	qsort(widths, H, sizeof *widths, cmp_d);
	double ht = (double)held_t / total, hc = (double)held_c / total;
	printf("# runs in another state 15%% of the time, 7 runs: the moderated t held %.1f%%, "
	       "calibrated %.1f%% at median x/%.3f\n", 100 * ht, 100 * hc, widths[H / 2]);
	CHECK(hc >= 0.94, "calibrated coverage %.3f", hc);
	CHECK(ht < hc, "the t alone (%.3f) no better than calibrated (%.3f)", ht, hc);
	CHECK(isnan(fl_predict_calibrate(y, G, 2, NULL, 0.95)), "two runs: no calibration");
}

/* The least history (FL_PREDICT_MIN_RUNS = 5): a history of 4 runs is
 * not calibrated, whatever its series say, and one of 5 is. */
static void t_min_history(void *arg)
{
	(void)arg;
	enum { G = 40, N = FL_PREDICT_MIN_RUNS };
	static double y4[G * (N - 1)], y5[G * N];
	uint64_t rng = 7;
	for (int g = 0; g < G; g++)
		for (int j = 0; j < N; j++) {
			double x = 0.05 * normal(&rng);
			y5[g * N + j] = x;
			if (j < N - 1)
				y4[g * (N - 1) + j] = x;
		}
	CHECK(FL_PREDICT_MIN_RUNS == 5, "the least history is 5 runs (%d)", FL_PREDICT_MIN_RUNS);
	CHECK(isnan(fl_predict_calibrate(y4, G, N - 1, NULL, 0.95)), "4 runs: no calibration");
	double q = fl_predict_calibrate(y5, G, N, NULL, 0.95);
	CHECK(isfinite(q) && q > 1 && q < 6, "5 runs: a calibration (%g)", q);
}

/* The floor (predict.h): a series cannot spread less than 1% (or its
 * within-run error). The history of the CI failure, in small: 8 series
 * over 8 short runs (uncontended and pool T=1, 4 entries), five with a
 * between-run sd of 5%, three of near-zero spread (0.1%: uncontended's
 * ~16 ns) each stepping by 4% in one run. Unfloored, the step's left-out
 * deviations are tens of their series' standard errors and the pooled
 * 95% quantile (the calibration's scale) is taken from them; floored, it
 * stays where the 5% series put it, and a x44 move of a quiet series is
 * far outside its interval. A series with no spread at all (identical
 * runs) has the floor for its variance. */
static void t_floor(void *arg)
{
	(void)arg;
	enum { G = 8, N = 8 };
	double y[G * N], floor2[G];
	uint64_t rng = 3;
	for (int g = 0; g < G; g++) {
		floor2[g] = fl_series_floor(NAN);
		for (int j = 0; j < N; j++)
			y[g * N + j] = g < 5 ? 0.05 * normal(&rng)
				     : 0.0005 * normal(&rng) + (j == 2 + g % 3 ? 0.04 : 0);
	}
	CHECK(NEAR(fl_series_floor(NAN), FL_PREDICT_FLOOR * FL_PREDICT_FLOOR, 1e-15) &&
	      NEAR(fl_series_floor(0.0004), 0.0004, 1e-15), "the floor: 1%%, or the within-run variance");
	double bare = fl_predict_calibrate(y, G, N, NULL, 0.95);
	double floored = fl_predict_calibrate(y, G, N, floor2, 0.95);
	printf("# 8 series, 3 of near-zero spread with one step each: the calibration's quantile "
	       "%.2f unfloored, %.2f floored\n", bare, floored);
	CHECK(bare > 10, "unfloored, one step blows the scale (%g)", bare);
	CHECK(floored < 6, "floored, it does not (%g)", floored);
	struct fl_series s[G];
	fl_series_all(y, G, N, floor2, s);
	double q = floored / fl_t_quantile(0.975, s[6].df);
	q = q > 1 ? q : 1;
	CHECK(fl_series_p(&s[6], s[6].mean + log(44), 1, q) < 1e-6, "a x44 move of a quiet "
	      "series is outside (p %g)", fl_series_p(&s[6], s[6].mean + log(44), 1, q));
	double flat[N] = { 0 };
	struct fl_series z;
	fl_series_all(flat, 1, N, floor2, &z);
	CHECK(NEAR(z.var, floor2[0], 1e-15), "identical runs: the floor's variance (%g)", z.var);
}

int main(void)
{
	run_test("special", t_special, NULL, 10);
	run_test("prior", t_prior, NULL, 30);
	run_test("series", t_series, NULL, 10);
	run_test("coverage", t_coverage, NULL, 60);
	run_test("calibrated", t_calibrated, NULL, 60);
	run_test("min history", t_min_history, NULL, 10);
	run_test("floor", t_floor, NULL, 10);
	return tests_done("predict");
}
