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
 * states) is printed and must hold >= 92%. */
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
		fl_series_moderate(&s, &p);
		fl_series_moderate(&t, NULL);
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
	fl_series_moderate(&s, NULL);
	CHECK(s.df == 2 && NEAR(s.se, sqrt(4.0 / 3), 1e-12), "df %g se %g", s.df, s.se);
	/* t 0.975 on 2 df = 4.302653 */
	CHECK(NEAR(fl_series_half(&s, 0.95), 4.302653 * sqrt(4.0 / 3), 1e-4), "half %g",
	      fl_series_half(&s, 0.95));
	CHECK(NEAR(fl_series_p(&s, 2 + 4.302653 * sqrt(4.0 / 3)), 0.05, 1e-4), "p at the edge");
	struct fl_series one = fl_series_of(y, 1);
	fl_series_moderate(&one, NULL);
	CHECK(isnan(fl_series_half(&one, 0.95)) && isnan(fl_series_p(&one, 1)),
	      "one value: no prediction");
}

int main(void)
{
	run_test("special", t_special, NULL, 10);
	run_test("prior", t_prior, NULL, 30);
	run_test("series", t_series, NULL, 10);
	run_test("coverage", t_coverage, NULL, 60);
	return tests_done("predict");
}
