/* harness/stats.h — summaries over the reps of one point.
 *
 * Every figure futexlab reports is a median over reps, never a mean: a rep
 * that a preempted thread or a migrated timer stretched is an outlier of one
 * side only, and the median ignores it where a mean would not.
 *
 *   median   of the n values (mean of the two middle ones when n is even)
 *   min, max the extreme reps
 *   mad      median absolute deviation from the median (unscaled): the
 *            spread of a typical rep; mad/median is the relative noise
 *   ci_lo, ci_hi  a distribution-free confidence interval of the median by
 *            order statistics: with the values sorted x(1) <= ... <= x(n),
 *            [x(k), x(n+1-k)] covers the true median with probability
 *            1 - 2 P(B <= k-1), B ~ Binomial(n, 1/2), because each rep lies
 *            below the median with probability 1/2. k is the largest index
 *            whose coverage is still >= 95%. Below n = 6 no k reaches 95%:
 *            the interval is then [min, max] and ci_level says what it
 *            covers (n = 5: 93.75%; n = 1: 0).
 *   ci_level the exact coverage of [ci_lo, ci_hi] (0.95 or more for n >= 6)
 *
 * fl_noisy() is the "spread too large to trust" test: mad/median > 10%. */
#ifndef FUTEXLAB_STATS_H
#define FUTEXLAB_STATS_H

#include <stdbool.h>

struct fl_summary {
	int n;
	double median, min, max;
	double mad;            /* median absolute deviation */
	double ci_lo, ci_hi;   /* confidence interval of the median */
	double ci_level;       /* its exact coverage, e.g. 0.9785 */
};

#define FL_NOISY_MAD 0.10  /* mad/median above this: do not trust the point */

/* Sorts x in place. n >= 1. */
struct fl_summary fl_summarize(double *x, int n);
/* Median of x[0..n) (sorts x). n >= 1. */
double fl_median(double *x, int n);
/* The order-statistics index k (1-based) for a 95% interval of the median
 * over n values, and its exact coverage; k = 1 with coverage < 0.95 when n
 * is too small for 95%. */
int fl_median_ci_rank(int n, double *coverage);
/* mad/median above FL_NOISY_MAD. */
bool fl_noisy(const struct fl_summary *s);
/* Two intervals are apart (the difference is beyond the noise) when they
 * do not overlap. */
bool fl_ci_apart(const struct fl_summary *a, const struct fl_summary *b);

#endif
