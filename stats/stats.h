/* stats/stats.h — summaries over the reps of one point, and the paired
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
#ifndef FUTEXLAB_STATS_STATS_H
#define FUTEXLAB_STATS_STATS_H

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
/* The least coverage of the interval of a median: a run's per-row
 * interval (and a ratio's) covers at least this, its exact coverage
 * printed per row (98.7% at 14 rounds, 97.9% at 10, 95.9% at 20). */
#define FL_CI_LEVEL 0.95
/* The order-statistics index k (1-based) for a FL_CI_LEVEL interval of the
 * median over n values, and its exact coverage; k = 1 with coverage below
 * FL_CI_LEVEL when n is too small for it. */
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
 * run, every round visiting every point (runner/schedule.c, fl_run_points), so the
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
/* The pairing rule of a run's rounds, once: the ratio x[i] / y[i] of each
 * round i < n where both are > 0 (NAN: not measured, or failed), gathered
 * in scratch (room for n) and summarized. Returns how many paired (0: none,
 * *out untouched). The table's paired ratios (model/table.c) and the
 * control's resolution while a run buys rounds (rounds.h) both pair so. */
int fl_ratio_paired(const double *x, const double *y, int n, double *scratch,
		    struct fl_ratio *out);
/* A control's resolution from its paired ratio to the baseline: the
 * interval's half-width once it reaches 95% coverage, else INFINITY
 * (unknown: too few pairs). The floor every verdict of its point stands on
 * (model/rule.c) and what buying rounds aims at (rounds.h), defined once. */
double fl_control_res(const struct fl_ratio *q);
/* faster: hi < 1; slower: lo > 1; same ("~"): the interval holds 1, or
 * |ln median| <= floor (the control's resolution, a half-width in ln r; 0
 * without a control): the median lies within the control's band [1/F, F],
 * F = exp(floor); undecided ("?"): fewer rounds than a 95% interval needs,
 * or a ratio that is not > 0. */
enum fl_verdict fl_ratio_verdict(const struct fl_ratio *r, double floor);
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
 * spent (stats/rounds.h decides which points; the runner pays). A rule
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

/* ---- Runs as the top level: pooling identical runs ------------------------
 *
 * Every interval above is over the rounds of ONE run: it says where that
 * run's median ratio would lie had the run had infinitely many rounds in
 * the same machine state. On a VM the largest variance can be not there
 * but between runs: the machine's state lasts minutes (a parked handoff's
 * round trip differs between runs), so a run's interval (95% or more) holds
 * an identical later run's median ratio far less often than that
 * (results/pool.md, results/reference/standard-aa). Kalibera and Jones
 * ("Rigorous benchmarking in reasonable time", ISMM 2013): repeat at the
 * level where the variance is, and estimate with the run as the top level.
 *
 * The model, on the log scale (ratios are multiplicative), for entry e of
 * a point in run j = 1..J:
 *     y_je = ln(median per-round ratio of e in run j)
 *          = mu_e + b_je + eps_je
 * eps_je is the within-run error of the median, its standard error w_je
 * read off the run's own order-statistics interval (fl_ratio_log_se:
 * (ln hi - ln lo) / 2 z, z the normal quantile of the interval's exact
 * coverage; the rounds give it many degrees of freedom). b_je is the run's
 * state, what no number of rounds within one run can average away; its
 * variance tau2_e is what a rerun adds. Two estimates are wanted: of mu_e
 * (the long-run ratio: confidence, variance (w2_e + tau2_e) / J) and of
 * y_{J+1,e}, the next identical run's ratio (prediction, variance
 * (w2_e + tau2_e)(1 + 1/J)), each with a t quantile whose degrees of
 * freedom say how well tau2 is known.
 *
 * With J = 2 an entry's own sample variance s2_e of y over runs has one
 * degree of freedom (t_{0.995,1} = 63.7) and a bootstrap over two runs is
 * degenerate, so strength is borrowed across the point's entries, as
 * limma's moderated variance does (Smyth 2004): the point's between-run
 * excess tau2_p = max(0, mean_e (s2_e - w2_e)), over the entries present in
 * every run, is a prior with d_p degrees of freedom, and each entry's own
 * excess x_e = s2_e - w2_e (d = J - 1) is shrunk to it:
 *     tau2~_e = max(0, (d_p tau2_p + d x_e) / (d_p + d)).
 * The catch is d_p. The entries of a point are not independent across
 * runs: a baseline that moves between runs moves every ratio of its point
 * together (pingpong +0.28, pool T=2 -0.47 in ln ratio between the two
 * standard-aa runs, most entries the same way). So the pooled mean of s2_e
 * is split, exactly, into the run effect common to the point's entries and
 * the entries' spread about it (a two-way layout, runs x entries, E
 * entries): with z_je = y_je - ybar_e and m_j = mean_e z_je,
 *     mean_e s2_e = A + B,  A = sum_j m_j^2 / (J-1)  (J-1 degrees of freedom)
 *                           B = sum_je (z_je - m_j)^2 / (E (J-1))  ((E-1)(J-1))
 * and d_p is Satterthwaite's (A + B)^2 / (A^2/(J-1) + B^2/((E-1)(J-1))):
 * near (E-1)(J-1) when the entries move independently, near J-1 when one
 * common shift is all there is — then there is one observation of that
 * shift per pair of runs and no pooling over entries can pretend more.
 * The t quantile's degrees of freedom for an entry are Satterthwaite's
 * again, for V_e = w2_e + tau2~_e, Var(w2_e) = 2 w2_e^2 / sum(rounds - 1)
 * and Var(tau2~_e) the pool's share of it: (d_p / (d_p + d))^2 2 S^2 / d_p,
 * S the pool's mean_e s2_e. The entry's own estimate (sqrt(2/d) V_e) is
 * not added beside it: the entry is one of the pool's, its moves over
 * runs mostly the point's common shift, already in d_p — for two entries
 * that moved as one, limma's independent prior would claim 2 degrees of
 * freedom where there is 1. So the degrees of freedom are capped at d_p
 * plus the entry's own d for the share of the point's spread that is not
 * common, d B / (A + B): one common shift alone, d_p (1 with two runs).
 * (Adding the two estimates' standard deviations as if fully correlated
 * is safe and useless: it leaves a quiet entry of a noisy point one degree
 * of freedom where the point has several, and its next-run interval so
 * wide it says nothing (results/pool.md), for a coverage the seeded test
 * shows is not needed.)
 *
 * Levels: the prediction interval at 99% (FL_POOL_PRED: a user checks a
 * rerun against it, and a miss should mean something), the confidence
 * interval at 95% (FL_POOL_CONF), the level of a single run's verdict.
 * The verdict is the single-run table's rule on the pool (fl_pool_verdict):
 * faster or slower when the confidence interval excludes 1 and |ln ratio|
 * exceeds the control's band (the control's own confidence half-width in
 * log at the point), else ~.
 *
 * The evidence (tests/test_pooled_runs.c: seeded synthetic runs with per-round
 * noise, a per-run shift common to a point's entries, per-entry shifts of
 * unequal size and a two-state point, pooled from 2 runs and checked
 * against a third): the figures are in tests/README.md and the test's own
 * output. A run's own interval covers the next run's ratio far less often
 * than its level, and a pool that ignores the between-run excess (tau2 = 0)
 * undercovers too: the test checks both, so it can fail. */
#define FL_POOL_CONF 0.95
#define FL_POOL_PRED 0.99

/* What the pool says of one entry at one point. */
struct fl_pool_entry {
	int runs;                  /* runs with a ratio (2 or more for a figure) */
	double y;                  /* mean over the runs of ln(median ratio) */
	double ratio;              /* exp(y): the pooled ratio */
	double w2;                 /* mean within-run variance of ln ratio */
	double tau2;               /* the between-run excess, shrunk (tau2~_e) */
	double df;                 /* of the t quantiles */
	double conf_half, pred_half; /* log half-widths (NAN: fewer than 2 runs) */
	double conf_lo, conf_hi;   /* where the long-run ratio lies (FL_POOL_CONF) */
	double pred_lo, pred_hi;   /* where the next run's ratio lands (FL_POOL_PRED) */
};

/* The point's pool (what the entries borrowed). */
struct fl_pool_point {
	int entries;               /* present in every run: the pool's */
	double common, spread;     /* A and B above */
	double tau2, df;           /* tau2_p and d_p (tau2 NAN: no pool) */
};

/* The within-run standard error of ln(median) from a run's interval:
 * (ln hi - ln lo) / (2 z((1 + level) / 2)); NAN when the interval cannot
 * give one (no coverage, a non-positive bound). */
double fl_ratio_log_se(const struct fl_ratio *r);
/* Quantiles: standard normal, and Student's t with df > 0 (not an integer
 * necessarily). 0 < p < 1. */
double fl_z_quantile(double p);
double fl_t_quantile(double p, double df);
/* P(T <= t), T ~ Student's t with df > 0 degrees of freedom. */
double fl_t_cdf(double t, double df);
/* P(|T| > |t|): the two-sided tail, without the cancellation of 1 - cdf. */
double fl_t_sf2(double t, double df);
/* The regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1. */
double fl_betainc(double a, double b, double x);
/* Pools a point: r[j * nent + e] is entry e's ratio in run j (n == 0:
 * missing in that run); fills out[0..nent) and, if pp, the pool. */
void fl_pool_point(int nrun, int nent, const struct fl_ratio *r, struct fl_pool_entry *out,
		   struct fl_pool_point *pp);
/* The pool's verdict: FL_UNDECIDED with fewer than 2 runs; FL_FASTER or
 * FL_SLOWER when the confidence interval excludes 1 and |ln ratio| > band
 * (the control's conf_half at the point; 0 for the control itself); else
 * FL_SAME. */
enum fl_verdict fl_pool_verdict(const struct fl_pool_entry *e, double band);

#endif
