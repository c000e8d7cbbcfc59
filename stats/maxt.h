/* stats/maxt.h — many paired comparisons judged at once: the simultaneous
 * intervals of an A/B run (report/ab.h), family-wise.
 *
 * THE DESIGN  An A/B run measures two builds (base, head) in one run, in
 * rounds: each round runs every pair (an entry at a point) once on each
 * side, the sides in a fresh random order, so round r gives pair j one
 * paired sample d[j][r] = ln(head / base). Under "the code did not change
 * this pair" head and base are exchangeable inside a round: which side ran
 * first, on which state of the machine, was a coin the run tossed. So
 * flipping the sign of a whole round — every pair's d of that round at
 * once — gives another outcome exactly as likely under that hypothesis
 * (a randomization test; Westfall and Young 1993, the max-T step).
 *
 * THE STATISTIC  Each pair's t of its d's, t_j = est_j / se_j, est_j the
 * 10% trimmed mean and se_j Yuen's standard error of it (the winsorized
 * spread): a round in which one side alone hit a stall (a preemption, a
 * cold start: x4 at 15 ns, seen in every A/B run on this VM) is trimmed,
 * where it would set a plain mean's t by itself.
 * The run's false-alarm rate is the chance that *any* gated pair is
 * called, so the critical value c is the (1 - alpha) quantile of
 * max_j |t_j| over the sign flips of the rounds — not a per-pair level
 * divided by the number of pairs (Bonferroni), which at 290 pairs asks
 * alpha / 290 of each and is out of reach of 14 rounds (the smallest
 * two-sided p a sign test of 14 can give is 1.2e-4 > 0.05 / 290 = 1.7e-4
 * only just: every interval would be [min, max]). The max over flips keeps
 * what the pairs share: a round in which the machine stalled moves every
 * pair's d together, and flipping it moves every t together, so c is as
 * large as the run's shared noise makes it and no larger. Pair j's
 * simultaneous interval is mean_j +- c se_j: all of them hold together with
 * probability >= 1 - alpha when nothing changed.
 *
 * WHY STUDENTIZED  The test's validity comes from the flips, not from a
 * normal model: any statistic gives an exact family-wise level. A t,
 * studentized per pair, puts pairs of very different spreads (16 ns
 * uncontended, 26 us timeouts) on one scale, so the max is not one noisy
 * pair's; what trimming leaves of an outlying round widens its pair's se
 * (an inconclusive pair, never a false alarm). The interval est +- c se
 * inverts the test at 0 (exact there) by the t's own scale.
 *
 * FLIPS OF RESIDUALS  The flips act on each pair's residuals d - est, not
 * on its d: a pair that really moved (x48: a mutant) would otherwise set
 * max|t| under every flip that leaves most of its rounds' signs alone —
 * with 10 rounds and one trimmed at each end, 22 of the 1024 flips, 2.1% —
 * and its own huge t would widen every pair's interval, its own included
 * (seen: a critical value of 91 and the mutant inconclusive). Flipping
 * residuals is the wild bootstrap with Rademacher signs, whole rounds at
 * once: under no change (est near 0) it is the randomization test above;
 * under a change it estimates the spread of est about the truth, which is
 * what an interval needs. Exact no longer; valid as rounds grow, and what
 * the A/A runs of results/ab.md measure.
 *
 * ROUNDS PAIRS DO NOT SHARE  A sequential run adds rounds only to the pairs
 * still undecided: pair j holds the rounds round[j][0..n_j). A flip is a
 * sign per round index, applied to every pair that holds that round.
 *
 * Deterministic: the flips come from a seeded generator (stats.h's
 * splitmix64); below 2^nr <= iters every flip pattern is enumerated. */
#ifndef FUTEXLAB_MAXT_H
#define FUTEXLAB_MAXT_H

#include <stdint.h>

/* One pair's samples: n values d[0..n) of rounds round[0..n) (each in
 * [0, nround), distinct). */
struct fl_maxt_pair {
	int n;
	const int *round;
	const double *d;
};

/* The share trimmed from each end, and the fewest samples a pair is judged on. */
#define FL_MAXT_TRIM 0.1
#define FL_MAXT_MIN_N 5
/* The trimmed mean of d[0..n) and its standard error (Yuen's); se 0 when
 * n < 2 or no spread. */
void fl_maxt_center(const double *d, int n, double *est, double *se);

/* The critical value c: the (1 - alpha) quantile of max_j |t_j| over sign
 * flips of the nround rounds (the identity among them), pairs with n < FL_MAXT_MIN_N or
 * zero spread left out. iters random flips (or every flip, 2^nround <=
 * iters); seed fixes them. Returns INFINITY when no pair can be judged or
 * the flips cannot reach alpha (2^nround * alpha < 1: too few rounds). */
double fl_maxt_critical(const struct fl_maxt_pair *p, int npair, int nround, double alpha,
			int iters, uint64_t seed);

#endif
