/* stats/regimes.c — the two-state detector (regimes.h). */
#include "stats/regimes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The least within-state spread the distance is measured against (1% in
 * log terms): a rep is never timed better than that, and crafted samples
 * with identical values would otherwise divide by zero. */
#define SPREAD_FLOOR 0.01

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of the sorted y[0..n). */
static double sorted_median(const double *y, int n)
{
	return n % 2 ? y[n / 2] : (y[n / 2 - 1] + y[n / 2]) / 2;
}

/* The within-state spread of the cut at k (A: y[0..k), B: y[k..n)): the
 * root mean square of y's deviations from its side's median, over n - 2
 * degrees of freedom (two medians fitted). */
static double within_spread(const double *y, int n, int k, double ma, double mb)
{
	double ss = 0;
	for (int i = 0; i < n; i++) {
		double d = y[i] - (i < k ? ma : mb);
		ss += d * d;
	}
	double sd = sqrt(ss / (n - 2));
	return sd > SPREAD_FLOOR ? sd : SPREAD_FLOOR;
}

/* The spread of one side, y[0..m) about its median md: the root mean
 * square deviation over m - 1 degrees of freedom. */
static double side_spread(const double *y, int m, double md)
{
	double ss = 0;
	for (int i = 0; i < m; i++)
		ss += (y[i] - md) * (y[i] - md);
	double sd = sqrt(ss / (m - 1));
	return sd > SPREAD_FLOOR ? sd : SPREAD_FLOOR;
}

/* A cut's scores by the two tests (regimes.h). */
struct cut_scores {
	double tight; /* the distance over the within-state spread */
	double gap;   /* the empty stretch over the tighter side's spread */
	bool by_gap;  /* gap's test passes */
};

/* The cut at k (A: y[0..k), B: y[k..m)) by both tests, its scores in *sc;
 * whether either passes (tight's against bar). */
static bool cut_passes(const double *y, int m, int k, double bar, struct cut_scores *sc)
{
	double ma = sorted_median(y, k), mb = sorted_median(y + k, m - k);
	double sa = side_spread(y, k, ma), sb = side_spread(y + k, m - k, mb);
	double empty = y[k] - y[k - 1];
	sc->tight = (mb - ma) / within_spread(y, m, k, ma, mb);
	int mt = FL_REGIME_GAP_ROUNDS; /* the tighter side: one of >= mt rounds */
	double st = k < mt ? sb : m - k < mt ? sa : sa < sb ? sa : sb;
	sc->gap = k < mt && m - k < mt ? 0 : empty / st;
	bool by_tight = mb - ma >= log(FL_REGIME_SEP) && sc->tight >= bar;
	sc->by_gap = empty >= log(FL_REGIME_GAP) && sc->gap >= FL_REGIME_GAP_T;
	return by_tight || sc->by_gap;
}

struct fl_regime_split fl_regimes_detect(const double *x, int n)
{
	struct fl_regime_split s = { .two = false, .cut = NAN, .med_a = NAN, .med_b = NAN };
	/* Out of memory: one state, the answer that claims nothing. */
	double *y = malloc((size_t)(n > 0 ? n : 1) * sizeof *y);
	if (!y)
		return s;
	int m = 0;
	for (int i = 0; i < n; i++)
		if (x[i] > 0 && isfinite(x[i]))
			y[m++] = log(x[i]);
	qsort(y, (size_t)m, sizeof *y, cmp_d);
	int least = (int)ceil(FL_REGIME_MIN_SHARE * m - 1e-9);
	if (least < FL_REGIME_MIN_ROUNDS)
		least = FL_REGIME_MIN_ROUNDS;
	double bar = FL_REGIME_D + FL_REGIME_D_N / (m > 0 ? m : 1), best = -1;
	bool best_by_gap = false;
	for (int k = least; k <= m - least; k++) {
		struct cut_scores sc;
		if (!cut_passes(y, m, k, bar, &sc))
			continue;
		if (best_by_gap ? !sc.by_gap || sc.gap <= best : !sc.by_gap && sc.tight <= best)
			continue;
		best_by_gap = sc.by_gap;
		best = sc.by_gap ? sc.gap : sc.tight;
		s = (struct fl_regime_split){ .two = true, .cut = exp((y[k - 1] + y[k]) / 2),
					      .na = k, .nb = m - k,
					      .med_a = exp(sorted_median(y, k)),
					      .med_b = exp(sorted_median(y + k, m - k)),
					      .score = sc.tight, .gap = sc.gap };
	}
	free(y);
	return s;
}

