/* harness/stats.h — summaries over the reps of one point, and the paired
 * ratios that every verdict comes from.
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
#include <stddef.h>
#include <stdint.h>

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

/* ---- paired ratios: what a verdict is made of ---------------------------
 *
 * A verdict compares two designs measured in the same run. The harness runs
 * every design of a point once per *round*, in a fresh random order each
 * round (fl_round_order), so within a round the two reps ran seconds apart
 * on the same machine state. The per-round ratio x_r = ns(V, r) / ns(B, r)
 * cancels what the machine did to both (frequency, a neighbour's load, the
 * VM's steal time): drift over the run moves every design of a round
 * together. What it cannot cancel is drift *within* a round, which favours
 * whoever runs first when the machine is speeding up — the random order
 * turns that bias into symmetric noise (tests/test_stats.c shows the A/A
 * verdict failing under a ramp when the order is fixed). Nor can it cancel
 * a machine state that changes designs unequally (the fast path's steps:
 * results/trust.md): the runner spreads a point's rounds over the whole
 * run, every round visiting every point (runner.c, run_points), so the
 * rounds sample the run's states and the interval shows their spread.
 *
 * The interval is the same order-statistics interval as fl_summarize's,
 * taken over the per-round ratios: the sign-test inversion, exact for any
 * continuous distribution of independent rounds, with no resampling and
 * insensitive to the one round a preempted thread stretched. A bootstrap
 * was the alternative; at the 8-12 rounds a quick sweep affords, percentile
 * bootstrap intervals of a median cover noticeably less than their nominal
 * 95% (they cannot be wider than the sample's spread and are lumpy at
 * small n), which is exactly the false "faster" this module exists to
 * prevent. The price of exactness is width at small n, and below 6 rounds
 * no interval reaches 95%: then there is no verdict ("?"), never a guess.
 *
 * ---- the log scale -------------------------------------------------------
 *
 * Ratios are judged on the log scale. A ratio is multiplicative: 0.5x is
 * as far from 1 as 2x, and the noise of a rep is a percentage of its time,
 * so the interval of a median ratio is (near enough) symmetric in ln r,
 * not in r: [0.022, 0.079] around 0.031 is x/0.7 .. x2.5. The resolution
 * is the interval's half-width in ln r, (ln hi - ln lo) / 2, printed as
 * the factor exp(resolution) with x/÷ before it ("×/÷1.32": the interval
 * spans about a factor 1.32 either side of the median). The control's
 * floor is that same half-width of the control's (B#2 / B) interval: the
 * ~ band is [1/F, F] with F = exp(floor), symmetric in ln r.
 *
 * The linear rule it replaces called a ratio ~ when |r - 1| was within the
 * control's relative half-width (hi - lo) / 2 / median. That half-width is
 * not bounded by 1 — a control that spread over [0.69, 3.2] reads +-124% —
 * and r can never be more than 1 below 1, so under a noisy control no row
 * could read faster, however fast: negcount@adaptive at 0.031 of glibc's
 * time read ~ beside a control of +-124% (../shared/data/
 * bench-pingpong-noisy-control.csv, tests/test_evidence.sh). On the log
 * scale a speedup and a slowdown of the same factor are the same distance
 * from 1, and the same ratio means the same whether the control was
 * measured at 200 ns or 20 us. Between two runs (compare A B) the rule is
 * the intervals' overlap, which no monotone transform changes: the same
 * on either scale.
 *
 * A "~" verdict reads "no difference larger than about ×/÷res", not
 * "equal"; and the interval covers where this run's median lies over its
 * rounds — not where the next identical run's will land: the machine's
 * state between runs moves ratios more than its rounds do (results/
 * trust.md); `futexlab compare --pool` gives that interval from runs. */
struct fl_ratio {
	int n;               /* rounds paired */
	double median;       /* median per-round ratio (ns/ns: < 1 is faster) */
	double lo, hi;       /* interval of that median */
	double level;        /* its exact coverage */
	double resolution;   /* (ln hi - ln lo) / 2: the half-width in ln r (NAN: a ratio <= 0) */
};

enum fl_verdict { FL_SAME, FL_FASTER, FL_SLOWER, FL_UNDECIDED };

/* Sorts r in place; n >= 1. */
struct fl_ratio fl_ratio_summarize(double *r, int n);
/* faster: hi < 1; slower: lo > 1; same ("~"): the interval holds 1, or
 * |ln median| <= floor (the control's resolution, a half-width in ln r; 0
 * without a control): the median lies within the control's band [1/F, F],
 * F = exp(floor); undecided ("?"): fewer rounds than a 95% interval needs,
 * or a ratio that is not > 0. */
enum fl_verdict fl_ratio_verdict(const struct fl_ratio *r, double floor);
const char *fl_verdict_name(enum fl_verdict v); /* "faster" "slower" "~" "?" */
/* A resolution (a half-width in ln r) as the tables print it: "×/÷1.051"
 * (3 decimals below 10, 1 below 100, then none); "-" when not finite. The
 * text is UTF-8: 2 bytes more than the columns it takes (× and ÷). */
const char *fl_factor_text(char *b, size_t n, double resolution);
#define FL_FACTOR_EXTRA 2 /* bytes of fl_factor_text's UTF-8 beyond its columns */
/* Two ratio intervals apart (compare across runs): both have a verdict's
 * coverage and do not overlap. */
bool fl_ratio_apart(const struct fl_ratio *a, const struct fl_ratio *b);

/* ---- CPU beside time ------------------------------------------------------
 *
 * A design can win on time by keeping a core busy: a waiter that spins or
 * yields instead of sleeping hands a token over sooner and burns CPU that
 * a sleeping one would leave to other work. So the tables put CPU per op
 * beside ns per op, and a verdict says when the two part ways: "faster,
 * 2.0x CPU" (faster than the baseline, spending twice its CPU per op),
 * "slower, 0.5x CPU" (slower, spending half), "~, 1.8x CPU" (no difference
 * in time, a clear one in CPU). The CPU ratio is paired like the time ratio
 * (per round, the median over the rounds, the same interval: table.h) and
 * judged like it, by fl_ratio_verdict against the control's CPU resolution
 * (FL_SLOWER: more CPU beyond the noise). A faster row that also spends
 * less, or a slower one that also spends more, carries no note: time and
 * CPU tell one story, and the evidence block's cpu ns column shows it.
 *
 * FL_CPU_NOTE is the least factor worth a note, either way (>= 1.10 or <=
 * 1/1.10). Below it: the harness's CPU per op is the whole process's over
 * the whole rep (thread start and join, the stranded-waiter detector's
 * thread), which dilutes a design's own difference, so 10% of that total is
 * already a real difference in what the design spends; a spinning or
 * yielding waiter, what the note is for, keeps a core busy for as long as
 * it waits, a multiple rather than a few percent; and "1.0x CPU", what a
 * smaller factor prints as, would read as no difference. On a noisy run
 * the control's CPU resolution raises the bar further (cpu_v). */
#define FL_CPU_NOTE 1.10
/* Whether time verdict v carries the note "<factor>x CPU": cpu_v, the CPU
 * ratio's own verdict, is decided (FL_FASTER: less CPU, FL_SLOWER: more),
 * factor (the CPU ratio) is FL_CPU_NOTE or more away from 1, and v is
 * faster with more CPU, slower with less, or ~. */
bool fl_cpu_note(enum fl_verdict v, enum fl_verdict cpu_v, double factor);

/* ---- the order of a round ----------------------------------------------- */
/* A small seeded generator (splitmix64): the same --seed gives the same
 * orders, so a run can be repeated exactly. */
uint64_t fl_rng_next(uint64_t *state);
/* order[0..n) becomes a uniformly random permutation of 0..n-1. */
void fl_round_order(uint64_t *rng, int n, int *order);

/* ---- Buying rounds where the noise is -----------------------------------
 *
 * A run can give a point more rounds than its first ones until the point's
 * control (B#2 against B) resolves to a target, say 5%, or the time is
 * spent (harness/rounds.h decides which points; the runner pays). A rule
 * that stops adding rounds must not choose its stop by what the verdicts
 * say. Stopping when a verdict is reached ("run until it is faster or
 * slower") is the classic way to manufacture findings: the sign-test
 * interval excludes 1 by chance in up to 5% of looks, and a run that looks
 * after every round and stops on the first exclusion keeps the lucky one —
 * over enough looks a null design is flagged with probability near 1.
 *
 * The rule here looks at the control only: the stop at a point is a
 * function of the (B, B#2) pairs of its rounds, never of a design's ratio
 * or its sign. A design V's rep of a round is independent of B#2's given
 * the round's common state (which the pairing cancels). What V shares with
 * the stop is B's rep, the denominator of both ratios: stopping when B#2/B
 * is tightly spread selects a little on B's reps. That dependence is on
 * the spread of B's deviations, not on their sign: the stop is unchanged
 * when every rep's deviation flips (for a symmetric noise), which flips
 * the sign of V's deviation from 1 — so "faster" and "slower" stay equally
 * likely for a null design, and the median of V/B stays centred on V's
 * true ratio. What remains is that V's interval is computed at a stop
 * chosen for the control's luck, not V's: V's own interval may be wider
 * than the target (its resolution is its own, floored by the control's).
 * That costs power, not false alarms.
 *
 * The evidence (tests/test_rounds.c, seeded synthetic runs: points of 3%,
 * 10%, 25% per-rep noise and a two-state mixture, each with three null
 * designs and two at 0.9 and 1.1, a per-round factor the pairing cancels;
 * 10 rounds, then the rule to x/÷1.05 within a budget of 700 extra
 * point-rounds, each point at most 400; verdicts on the log scale): null
 * designs flagged 1.5% overall (0.1% at the 3% point, 2.4% at 10%, 2.2% at
 * 25%); the +-10% designs never the wrong way; found the right way in
 * 89-100% of the runs where the target was reached, 81% at the two-state
 * point, whose interval's order statistics land in either state (a control
 * resolved there says less about a design: the regimes are named
 * elsewhere). The rounds went where the noise is: 11 at the 3% point, 50
 * at 10%, 294 at 25% (the target reached in 83% of runs there). The same
 * runs under a peeking rule (a design leaves its point once its verdict is
 * faster or slower, that verdict kept) flag 15% of the null designs: the
 * test tells the two apart. */

#endif
