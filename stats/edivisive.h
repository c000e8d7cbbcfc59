/* stats/edivisive.h — where a series of benchmark results changed level.
 *
 * The question. A history of runs of one (machine, point, entry) gives one
 * value per run, the caller passes ln(median time), and the history is to be
 * cut into stretches of steady performance: the first run of each new stretch
 * is a change point, the place to look for the commit that made it.
 *
 * The method is E-Divisive means (Matteson and James, "A Nonparametric
 * Approach for Multiple Change Point Analysis of Multivariate Data", JASA
 * 2014) with alpha = 1, as Hunter turned it into a regression finder
 * (Fleming et al., "Hunter: Using Change Point Detection to Hunt for
 * Performance Regressions", ICPE 2023, arXiv:2301.03034; the method of
 * Apache Otava, which was Hunter).
 *
 * Why E-Divisive. It assumes no distribution: the divergence between two
 * stretches X (n values) and Y (m values) is the energy distance, scaled by
 * the sizes so that longer stretches weigh more,
 *
 *   q(X, Y) = 2/(n+m) sum|x-y| - 2m/((n+m)(n-1)) sum_{i<k}|x_i-x_k|
 *                              - 2n/((n+m)(m-1)) sum_{j<k}|y_j-y_k|
 *
 * (the within terms vanish for a stretch of one value). It is large where
 * the values on the two sides are far apart compared with their spread
 * within each side, so a shift of the mean stands out whatever the shape of
 * the noise: timings are skewed and have outliers, and the absolute distance
 * weighs an outlier linearly, not squared. The best split of a stretch
 * [s, e) is the tau with s < tau < kappa <= e maximising q(x[s..tau),
 * x[tau..kappa)): kappa free lets a change near the start be found even
 * when a second change follows it inside the stretch. Splitting recursively
 * (take the best split over all current stretches, test it, keep it, go on)
 * finds several changes.
 *
 * Why Hunter's t-test and not the permutation test. Matteson and James judge
 * a split by shuffling the values many times and counting how often chance
 * gives a larger q. That is random: the same history can give different
 * change points on two calls, which neither a CI gate nor a unit test can
 * live with, and it costs a hundred searches per split. Hunter instead
 * judges the split by a two-sided Student's t-test (pooled variance) between
 * the two stretches it separates. It is deterministic, costs one pass, and
 * holds up on the few values a history starts with; on ln(time) the noise of
 * a steady stretch is near enough to normal for the p-value to mean what it
 * says.
 *
 * The procedure (Otava's). 1. Split: E-Divisive runs on windows of `window`
 * values, each starting half a window after the last (or at the last change
 * it found, if later), so that no search is quadratic in the whole history
 * and a change in the middle of a long history is not masked by bigger ones
 * elsewhere; a split is kept while its p-value is at most the first-pass
 * threshold, ten times `pvalue` (twice it for 0.05 <= pvalue < 0.5). The
 * union over windows is the set of weak change points. 2. Merge: every
 * change point is tested again against its neighbouring change points (the
 * stretches that now lie on each side of it, not the window's), the weakest
 * one (largest p) is dropped if its p is not below `pvalue`, and the test is
 * repeated until every one left passes. Dropping one lengthens the stretches
 * of its neighbours, so each survivor is judged on all the evidence it has.
 * Otava's further filter on the relative size of a change (min_magnitude,
 * off by default) is left to the caller, who has before and after: on
 * ln(time) it is a bound on after - before.
 *
 * Two departures from Otava, both towards claiming less, and a switch
 * (`otava`) that undoes them so the tests can hold this code to Otava's
 * published results. (a) The t-test here is Student's: the pooled variance
 * is the sum of squared deviations over n1 + n2 - 2. Otava hands numpy's
 * population deviations (over n, not n - 1) to a routine that takes sample
 * ones, which shrinks the variance of a short stretch (by half for two
 * values) and so makes small p-values too easily. (b) After a drop, Otava
 * re-tests the change point that followed the dropped one and the one after
 * it, which leaves the one before it judged on its old, shorter stretch;
 * here both neighbours of the dropped one are re-tested.
 *
 * What it cannot see. A step followed within a window by a step back past
 * the old level can hide both from a stretch's t-test: E-Divisive proposes
 * the first, but the stretch after it holds both new levels, its mean moves
 * little and its spread grows, and the pass stops there; a later window
 * that starts past the first step usually recovers the second (the tests
 * give the figures).
 *
 * The defaults and why:
 *   pvalue 0.001   Otava's. The test is applied to the split E-Divisive found
 *                  best among ~n, not to a split fixed beforehand, so a
 *                  steady history is claimed to change more often than
 *                  0.001: in 1.2% of histories of 10..50 values, 3.3% of
 *                  100, 6.2% of 200, 12.5% of 400 (normal noise; about one
 *                  false claim per 1600 values). A gate should look at the
 *                  change points of the newest stretch, not at every one of
 *                  a long history.
 *   window 50      Otava's: enough values for the t-test on both sides of
 *                  a change, small enough that the first search of a few
 *                  hundred runs is not one quadratic pass over all of them.
 *   min_size 3     Not Otava's (it allows a stretch of one value, so one
 *                  wild run as the newest of a history is a change nearly
 *                  always, 99% of the time at 20 values). A change is a new
 *                  level, which one run cannot show; with three, one wild
 *                  run must share its stretch with two ordinary ones and
 *                  then inflates that stretch's spread as much as its mean:
 *                  claimed in none of 1000 histories of 20 values, 8% at
 *                  40, 13% at 100 (50 sd; min_size 5: 0% at 40, 5% at 100,
 *                  for two more runs of delay). The price: a change at the
 *                  newest run is confirmed two runs later. min_size binds
 *                  the final stretches; at a window's edge inside the
 *                  series the values go on, so it does not bind there.
 *                  min_size 1 is Otava's.
 *
 * Input contract: no NaN or infinity (the caller drops failed runs); the
 * result for such input is unspecified, but the calls return. n values, in
 * the order of the runs. No I/O, no global state: the calls are reentrant.
 *
 * Costs: the split search over a window of w values is O(w^2) time and
 * memory (prefix sums of the distance matrix); the merge is O(k n) per
 * round for k change points. */
#ifndef FUTEXLAB_STATS_EDIVISIVE_H
#define FUTEXLAB_STATS_EDIVISIVE_H

/* One change point. */
struct fl_change_point {
	int at;        /* 0-based index of the first value after the change */
	double before; /* mean of the stretch before: from the previous change
			* point (or 0) to at */
	double after;  /* mean of the stretch after: from at to the next change
			* point (or n) */
	double p;      /* the two-sided t-test's p-value between those stretches */
};

/* Options; fl_cp_defaults() fills them (see above for why those values). */
struct fl_cp_opts {
	double pvalue; /* a change point is accepted when its p-value is below
			* this; 0 < pvalue <= 1 (default 0.001) */
	int min_size;  /* the fewest values a stretch may hold, >= 1 (default 3) */
	int window;    /* values per window of the split step; <= 0 means the
			* whole series in one window (default 50) */
	int otava;     /* nonzero: Otava's t-test variance and re-test after a
			* drop (see above), to reproduce its published results
			* (with min_size 1); default 0 */
};

void fl_cp_defaults(struct fl_cp_opts *o);

/* Change points of x[0..n) in increasing `at`, written to out[0..max);
 * returns how many were written (<= max: the first max if there are more),
 * 0 when n < 2 * min_size, -1 on allocation failure. o NULL: the defaults. */
int fl_change_points(const double *x, int n, const struct fl_cp_opts *o, struct fl_change_point *out,
		     int max);

/* Building blocks, exposed for the tests. */

/* q of the split x[0..tau) | x[tau..kappa), straight from the definition
 * above (O(kappa^2)); 0 < tau < kappa. */
double fl_ed_q(const double *x, int tau, int kappa);

/* The best split of x[0..n) with both sides at least min_size values
 * (tau - 0 >= min_size, kappa - tau >= min_size, kappa <= n): returns tau and
 * stores its q in *q; the first in (tau, kappa) order on a tie. Returns 0
 * when n < 2 * min_size (no split), -1 on allocation failure. */
int fl_ed_split(const double *x, int n, int min_size, double *q);

/* Two-sided p-value of Student's t-test, pooled variance, between a[0..na)
 * and b[0..nb); na, nb >= 1. 1 when na + nb <= 2 (no degree of freedom);
 * with no spread on either side, 0 if the means differ and 1 if not. */
double fl_ttest_p(const double *a, int na, const double *b, int nb);

#endif
