/* tests/test_maxt.c — many paired comparisons at once (stats/maxt.h) on
 * seeded synthetic A/B runs whose truth is known.
 *
 * A synthetic run: 50 pairs x 14 rounds of d = ln(head/base), each pair's
 * own spread drawn lognormal (median 0.05), errors of Student's t on 3
 * degrees of freedom (a VM's heavy tails), and in one round in ten a stall
 * on one side that moves every pair of that round alike (x1.5, either way).
 *   - family-wise: with nothing changed, the share of runs in which any
 *     pair's simultaneous interval excludes 0 is at most alpha (0.05) plus
 *     the Monte Carlo's own error (300 runs: <= 0.08);
 *   - power: a pair moved x1.5 at a spread of 0.05 is outside its interval
 *     (lo > 0) in >= 95% of runs;
 *   - a pair that moved x48 does not widen the others' intervals: at 10
 *     rounds and alpha 0.02 the critical value with it is within 1.25x of
 *     the one without. Flipping the raw d instead of the residuals fails
 *     this: 2.1% of the flips change at most one of its signs, which the
 *     trimming then drops, so its |t| stays huge above the 98th percentile.
 *   - degenerate inputs: no pair, too few rounds to reach alpha: INFINITY;
 *     the trimmed mean and its error on values known by hand. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "tests/check.h"
#include "stats/maxt.h"
#include "stats/stats.h"

#define NP 50
#define NR 14
#define FLIPS 2000

static double unif(uint64_t *s)
{
	return ((double)(fl_rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *s)
{
	return sqrt(-2 * log(unif(s))) * cos(2 * M_PI * unif(s));
}

static double student3(uint64_t *s)
{
	double z = normal(s), c = 0;
	for (int i = 0; i < 3; i++) {
		double x = normal(s);
		c += x * x;
	}
	return z / sqrt(c / 3);
}

struct run {
	double d[NP][NR];
	int round[NR];
	struct fl_maxt_pair p[NP];
};

/* One synthetic run; shift[j] the true ln ratio of pair j. */
static void make_run(struct run *r, uint64_t *s, const double *shift)
{
	double stall[NR];
	for (int k = 0; k < NR; k++) {
		r->round[k] = k;
		stall[k] = unif(s) < 0.1 ? (unif(s) < 0.5 ? -1 : 1) * log(1.5) : 0;
	}
	for (int j = 0; j < NP; j++) {
		double sigma = 0.05 * exp(0.6 * normal(s));
		for (int k = 0; k < NR; k++)
			r->d[j][k] = shift[j] + sigma * student3(s) + stall[k];
		r->p[j] = (struct fl_maxt_pair){ NR, r->round, r->d[j] };
	}
}

static bool excludes_zero(const struct fl_maxt_pair *p, double c, double *lo)
{
	double est, se;
	fl_maxt_center(p->d, p->n, &est, &se);
	*lo = est - c * se;
	return est - c * se > 0 || est + c * se < 0;
}

static void t_familywise(void *arg)
{
	(void)arg;
	static struct run r;
	double shift[NP] = { 0 };
	uint64_t s = 12345;
	int any = 0, runs = 300;
	for (int i = 0; i < runs; i++) {
		make_run(&r, &s, shift);
		double c = fl_maxt_critical(r.p, NP, NR, 0.05, FLIPS, 99 + (uint64_t)i), lo;
		bool hit = false;
		for (int j = 0; j < NP; j++)
			hit |= excludes_zero(&r.p[j], c, &lo);
		any += hit;
	}
	printf("  no change: %d of %d runs with a pair outside (alpha 0.05)\n", any, runs);
	CHECK(any <= 0.08 * runs, "family-wise rate %.3f", (double)any / runs);
}

static void t_power(void *arg)
{
	(void)arg;
	static struct run r;
	double shift[NP] = { 0 };
	shift[7] = log(1.5);
	uint64_t s = 777;
	int seen = 0, runs = 100;
	for (int i = 0; i < runs; i++) {
		make_run(&r, &s, shift);
		double c = fl_maxt_critical(r.p, NP, NR, 0.05, FLIPS, 5 + (uint64_t)i), lo;
		/* the pair's own spread: 0.05 */
		for (int k = 0; k < NR; k++)
			r.d[7][k] = shift[7] + 0.05 * normal(&s);
		seen += excludes_zero(&r.p[7], c, &lo) && lo > 0;
	}
	printf("  x1.5 at a spread of 0.05: seen in %d of %d runs\n", seen, runs);
	CHECK(seen >= 0.95 * runs, "power %.2f", (double)seen / runs);
}

static void t_big_shift(void *arg)
{
	(void)arg;
	/* 10 rounds: with one trimmed at each end, the 2 x 11 of the 1024
	 * flips that change at most one of a x48 pair's signs leave its |t|
	 * huge, 2.1% of them, above alpha 0.02: flips of the raw d then put
	 * the critical value there */
	enum { R = 10 };
	static double d[NP][R];
	static int rounds[R];
	static struct fl_maxt_pair p[NP];
	uint64_t s = 4242;
	for (int k = 0; k < R; k++)
		rounds[k] = k;
	for (int j = 0; j < NP; j++) {
		double sigma = 0.05 * exp(0.6 * normal(&s));
		for (int k = 0; k < R; k++)
			d[j][k] = sigma * student3(&s);
		p[j] = (struct fl_maxt_pair){ R, rounds, d[j] };
	}
	double c0 = fl_maxt_critical(p, NP, R, 0.02, FLIPS, 1);
	for (int k = 0; k < R; k++)
		d[3][k] = log(48) + 0.02 * normal(&s);
	double c1 = fl_maxt_critical(p, NP, R, 0.02, FLIPS, 1), lo;
	printf("  critical |t| %.2f, with a pair moved x48 %.2f\n", c0, c1);
	CHECK(isfinite(c0) && c1 < 1.25 * c0, "a x48 pair widened every interval: %.2f -> %.2f",
	      c0, c1);
	CHECK(excludes_zero(&p[3], c1, &lo) && lo > log(40), "the x48 pair seen (lo %.2f)", lo);
}

static void t_degenerate(void *arg)
{
	(void)arg;
	double d[] = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 10.0 }, est, se;
	int rounds[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	fl_maxt_center(d, 10, &est, &se);
	/* 10% of 10: one trimmed at each end, the mean of 0.2 ... 0.9 */
	CHECK(fabs(est - 0.55) < 1e-12, "trimmed mean %.6f", est);
	/* winsorized: 0.2 0.2 0.3 ... 0.8 0.9 0.9, its sd / ((1 - 2/10) sqrt 10) */
	double w[] = { 0.2, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.9 }, wm = 0, wv = 0;
	for (int i = 0; i < 10; i++)
		wm += w[i] / 10;
	for (int i = 0; i < 10; i++)
		wv += (w[i] - wm) * (w[i] - wm) / 9;
	CHECK(fabs(se - sqrt(wv) / (0.8 * sqrt(10))) < 1e-12, "Yuen's se %.6f", se);
	struct fl_maxt_pair p = { 10, rounds, d };
	CHECK(isinf(fl_maxt_critical(&p, 0, 5, 0.05, 100, 1)), "no pair");
	CHECK(isinf(fl_maxt_critical(&p, 1, 3, 0.05, 100, 1)), "3 rounds cannot reach 0.05");
	CHECK(isfinite(fl_maxt_critical(&p, 1, 5, 0.05, 100, 1)), "5 rounds can");
}

int main(void)
{
	run_test("familywise", t_familywise, NULL, 120);
	run_test("power", t_power, NULL, 60);
	run_test("big-shift", t_big_shift, NULL, 30);
	run_test("degenerate", t_degenerate, NULL, 10);
	return tests_done("maxt");
}
