/* stats/predict.h — where the next run lands, from a machine's earlier runs.
 *
 * The question a CI gate asks is not "does this run's interval overlap the
 * last run's" — a run's interval covers its own rounds, and on a VM the
 * largest variance is between runs (the machine's state lasts minutes) —
 * but "is this run's figure where a new run of unchanged code lands". The
 * answer is a prediction interval over earlier runs of the same machine,
 * the run as the unit of evidence (Kalibera and Jones, ISMM 2013; the same
 * idea as Conbench's lookback z-score and asv's step detection).
 *
 * ---- one series ------------------------------------------------------------
 *
 * A series is one figure of one (point, entry) on one machine over runs:
 * y_1..y_N, on the log scale (ln of a median ratio, or of a median time:
 * both are multiplicative). Unchanged code gives y_j = mu + e_j with e_j
 * the run's state plus its within-run error, variance sigma2. A new run's
 * y_{N+1} then lies in
 *     ybar +- t_{q, df} s sqrt(1 + 1/N)
 * with s2 the sample variance over the N runs (df = N - 1). At N = 5 that
 * t quantile is 2.78 at 95% and 4.60 at 99%: one series alone cannot
 * know its spread well enough to say much.
 *
 * ---- borrowing strength: the moderated variance ------------------------------
 *
 * A machine's history holds hundreds of series (points x entries), each
 * with its own spread: quiet where a design runs alone, wide where its
 * time moves with the VM's state. Their variances are neither equal nor
 * unrelated, so each is shrunk towards what the series together say, by
 * the empirical Bayes model of limma (Smyth, "Linear models and empirical
 * Bayes methods for assessing differential expression", SAGMB 2004): the
 * true variances are scaled inverse chi-square with d0 degrees of freedom
 * around s0^2, fitted from the sample variances by the moments of
 * ln s2 (fl_var_prior); each series' moderated variance is
 *     s~2 = (d0 s0^2 + d s2) / (d0 + d)
 * and its t has d0 + d degrees of freedom. When the variances really
 * differ (a wide spread of ln s2), d0 is small and each series keeps its
 * own; when they agree, d0 is large and a short series borrows the many
 * degrees of freedom of the others. That is what lets five runs give a
 * narrow interval that still holds: the moderated t is exact under the
 * model, and the model's one strong assumption — that a series' variance
 * is a draw from the fitted prior — is checked by the coverage figures
 * (tests/test_predict.c on synthetic histories with unequal spreads and
 * heavy tails; results/gate.md on the machine's own runs).
 *
 * A series whose runs agree exactly (s2 = 0: a figure that cannot vary)
 * enters the prior at the smallest positive variance seen, so ln s2 stays
 * finite; series with fewer than 2 runs give no variance and are left out
 * of the prior.
 *
 * ---- the floor of a series' spread ---------------------------------------------
 *
 * A series cannot vary between runs less than one run measures it: its
 * variance is floored at its within-run variance (the run's own interval
 * read as a standard error) and at FL_PREDICT_FLOOR (1% on the log
 * scale), before the prior is fitted and again after moderation. Without
 * it a series of near-zero spread (uncontended's ~16 ns, 0.3% between five
 * short runs) makes standardized deviations of hundreds out of one step
 * of a few percent, and the calibration below (a pooled quantile) takes
 * its scale from them: a history of 8 short CI runs calibrated to 36.57
 * where the kept quick sweeps give 2-4, and a x44 regression stayed inside
 * the interval (results/gate.md). 1%: below it a move is code layout and
 * the compiler as much as the design (report/judge.h's threshold is 10%),
 * and a VM's clock and frequency move a median op that much between runs
 * of identical code. */
#ifndef FUTEXLAB_STATS_PREDICT_H
#define FUTEXLAB_STATS_PREDICT_H

#include <stdbool.h>

/* The least between-run spread of a series, ln scale (1%: above). */
#define FL_PREDICT_FLOOR 0.00995033085 /* ln 1.01 */

/* The prior the series share: s0^2 and d0 (INFINITY: the sample variances
 * agree beyond what chance gives, every series takes s0^2). n: the series
 * it was fitted on (n < 2: no prior, d0 = 0 and every series keeps its
 * own variance). */
struct fl_var_prior {
	double s02, d0;
	int n;
};

/* Fits the prior to the sample variances s2[i] with d[i] > 0 degrees of
 * freedom each (entries with d[i] <= 0 or a non-finite s2 are skipped). */
struct fl_var_prior fl_var_prior(const double *s2, const double *d, int n);
/* The moderated variance of one series (s2 with d degrees of freedom; d
 * 0: none of its own) and its degrees of freedom in *df. */
double fl_var_moderated(const struct fl_var_prior *p, double s2, double d, double *df);

/* One series' history summarized, and where its next value lands. */
struct fl_series {
	int n;          /* the values it was made of */
	double mean;    /* of the values */
	double s2;      /* their sample variance (NAN below 2 values) */
	double var;     /* the moderated variance */
	double df;      /* of the prediction's t */
	double se;      /* sqrt(var (1 + 1/n)): a new value's standard error */
};

/* The series y[0..n) (finite values only; others skipped). */
struct fl_series fl_series_of(const double *y, int n);
/* Moderates s by the prior (fills var, df, se), the moderated variance
 * floored at floor2 (0: none). */
void fl_series_moderate(struct fl_series *s, const struct fl_var_prior *p, double floor2);
/* A series' variance floor: the larger of FL_PREDICT_FLOOR^2 and `within`,
 * the mean within-run variance of its values (NAN: not known). */
double fl_series_floor(double within);
/* The prediction interval's half-width at two-sided level `level`
 * (NAN: too few values or no degrees of freedom). */
double fl_series_half(const struct fl_series *s, double level);
/* The two-sided p-value of x, the mean of k new values, under the series'
 * prediction with the t's scale times `scale` (1: the moderated t as is;
 * a calibration's factor otherwise): P(|T| >= |x - mean| / (scale sd)),
 * sd = sqrt(var (1/n + 1/k)), T ~ t(df); NAN where there is no prediction
 * (no degrees of freedom, or no spread at all). */
double fl_series_p(const struct fl_series *s, double x, int k, double scale);

/* ---- calibrated on the history itself ----------------------------------------
 *
 * The moderated t assumes a series' runs are independent normal draws
 * around its mean. A VM's runs are not quite: the machine's state moves
 * some entries more than its spread in quiet runs says, so the tails of a
 * new run's deviation are heavier than the t's (the moderated 95% interval
 * holds fewer new runs than 95% of them: results/gate.md, each of a
 * machine's runs against the others). The history can say how heavy:
 * leave each of its runs out in turn, predict it from the others exactly as
 * a new run is predicted, and collect every series' standardized deviation
 * u = |y - mean| / se. Pooled over all series, their `level` quantile q is
 * what a new run's standardized deviation stays below with probability
 * `level` — split-conformal prediction's argument: a new run of unchanged
 * code is one more run exchangeable with the history's, so it is as likely
 * as any of them to be the largest (Vovk, Gammerman and Shafer 2005; Lei et
 * al., JASA 2018), and pooling over the series is the borrowing of
 * strength (the standardization makes the series' deviations alike). The
 * interval is then mean +- q se, at least as wide as the moderated t's
 * would be never assumed: q is read off, not derived. */

/* ---- the least history ---------------------------------------------------------
 *
 * FL_PREDICT_MIN_RUNS earlier runs, or no prediction is calibrated (and
 * the gate judges nothing: report/judge.h). Why 5: the calibration leaves
 * each run out and predicts it from the rest, so with n runs every
 * deviation it learns from is a prediction out of n - 1; at n = 3 that is
 * two runs a series (one degree of freedom of its own, t_0.975 = 12.7),
 * and one run of another machine state is a third of the history — the
 * histories where the gate failed unchanged code (2 runs: p 1e-306) or
 * passed a x52 regression (3 short runs, a scale of 24.97). At 5, each
 * left-out prediction has 4 runs (t_0.975 = 3.18 alone, less moderated),
 * one odd run is a fifth of the calibration, and the conformal rank over
 * ~200 series x 5 runs is well inside the deviations. More would be
 * better and costs a history that long before the first judgement; the
 * kept quiet sweeps reach 95% coverage against 5 (results/gate.md). */
#define FL_PREDICT_MIN_RUNS 5

/* The calibration quantile q over the history y[s * n + i] (series s in
 * run i; NAN: none) of ns series and n runs, each series' variance
 * floored at floor2[s] (NULL: no floor): NAN when the history is too
 * short to calibrate (fewer than FL_PREDICT_MIN_RUNS runs, or fewer than
 * 20 deviations). */
double fl_predict_calibrate(const double *y, int ns, int n, const double *floor2, double level);
/* The series of row s of y moderated by a prior fitted over all rows
 * (out[0..ns)), each series' variance floored at floor2[s] (NULL: no
 * floor) before the prior and after: what fl_predict_calibrate and the
 * gate use. */
void fl_series_all(const double *y, int ns, int n, const double *floor2, struct fl_series *out);

/* The special functions the prior needs: digamma, trigamma, and the
 * inverse of trigamma on (0, inf). */
double fl_digamma(double x);
double fl_trigamma(double x);
double fl_trigamma_inverse(double y);

#endif
