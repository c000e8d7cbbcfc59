/* stats/maxt.c — the family-wise critical value of many paired t's by
 * sign flips of whole rounds (maxt.h argues the method). */
#include "stats/maxt.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

static void sort_small(double *x, int n)
{
	for (int i = 1; i < n; i++) { /* insertion: n is a run's rounds */
		double v = x[i];
		int j = i - 1;
		for (; j >= 0 && x[j] > v; j--)
			x[j + 1] = x[j];
		x[j + 1] = v;
	}
}

/* The trimmed mean and Yuen's standard error of x[0..n), sorted in place. */
static void trimmed(double *x, int n, double *est, double *se)
{
	sort_small(x, n);
	int g = (int)floor(FL_MAXT_TRIM * n), k = n - 2 * g;
	double s = 0, w = 0, ww = 0;
	for (int i = g; i < n - g; i++)
		s += x[i];
	*est = s / k;
	for (int i = 0; i < n; i++) { /* the winsorized sample: tails set to the cut */
		double v = x[i < g ? g : i >= n - g ? n - g - 1 : i];
		w += v;
		ww += v * v;
	}
	double var = (ww - w * w / n) / (n - 1);
	*se = var > 0 ? sqrt(var) / ((1 - 2.0 * g / n) * sqrt(n)) : 0;
}

void fl_maxt_center(const double *d, int n, double *est, double *se)
{
	if (n < 2) {
		*est = n ? d[0] : NAN;
		*se = 0;
		return;
	}
	double *x = malloc((size_t)n * sizeof *x);
	if (!x) {
		*est = NAN, *se = 0;
		return;
	}
	memcpy(x, d, (size_t)n * sizeof *x);
	trimmed(x, n, est, se);
	free(x);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* max_j |t_j| under the flip sign[] (one per round); buf holds the
 * longest pair's samples. */
static double max_t(const struct fl_maxt_pair *p, const char *use, int npair,
		    const signed char *sign, double *buf)
{
	double best = 0;
	for (int j = 0; j < npair; j++) {
		if (!use[j])
			continue;
		for (int i = 0; i < p[j].n; i++)
			buf[i] = sign[p[j].round[i]] * p[j].d[i];
		double est, se;
		trimmed(buf, p[j].n, &est, &se);
		double t = se > 0 ? fabs(est) / se : INFINITY;
		if (t > best)
			best = t;
	}
	return best;
}

double fl_maxt_critical(const struct fl_maxt_pair *p, int npair, int nround, double alpha,
			int iters, uint64_t seed)
{
	if (npair <= 0 || nround <= 0 || iters < 1 || !(alpha > 0 && alpha < 1) ||
	    ldexp(alpha, nround > 60 ? 60 : nround) < 1)
		return INFINITY;
	int longest = 1;
	for (int j = 0; j < npair; j++)
		longest = p[j].n > longest ? p[j].n : longest;
	double *buf = malloc((size_t)longest * sizeof *buf);
	char *use = calloc((size_t)npair, 1);
	signed char *sign = malloc((size_t)nround);
	bool exact = nround < 31 && (1L << nround) <= iters;
	long b = exact ? 1L << nround : iters;
	double *maxes = malloc((size_t)b * sizeof *maxes);
	if (!buf || !use || !sign || !maxes) {
		free(buf), free(use), free(sign), free(maxes);
		return INFINITY;
	}
	/* each pair's residuals d - est: the flips are of those (maxt.h) */
	long total = 0;
	for (int j = 0; j < npair; j++)
		total += p[j].n;
	double *res = malloc((size_t)(total ? total : 1) * sizeof *res);
	struct fl_maxt_pair *q = malloc((size_t)npair * sizeof *q);
	if (!res || !q) {
		free(buf), free(use), free(sign), free(maxes), free(res), free(q);
		return INFINITY;
	}
	int nuse = 0;
	long at = 0;
	for (int j = 0; j < npair; j++) {
		double est, se;
		q[j] = p[j];
		if (p[j].n < FL_MAXT_MIN_N)
			continue;
		fl_maxt_center(p[j].d, p[j].n, &est, &se);
		if (!(se > 0))
			continue;
		for (int i = 0; i < p[j].n; i++)
			res[at + i] = p[j].d[i] - est;
		q[j].d = res + at;
		at += p[j].n;
		use[j] = 1;
		nuse++;
	}
	double c = INFINITY;
	if (nuse) {
		uint64_t rng = seed;
		for (long k = 0; k < b; k++) {
			for (int r = 0; r < nround; r++) {
				if (exact)
					sign[r] = (k >> r) & 1 ? -1 : 1;
				else /* the first flip is the identity: the observed run */
					sign[r] = k && (fl_rng_next(&rng) & 1) ? -1 : 1;
			}
			maxes[k] = max_t(q, use, npair, sign, buf);
		}
		qsort(maxes, (size_t)b, sizeof *maxes, cmp_double);
		/* the smallest c with P(max > c) <= alpha over the flips */
		long idx = (long)ceil((1 - alpha) * (double)b) - 1;
		if (idx < 0)
			idx = 0;
		c = maxes[idx];
	}
	free(buf), free(use), free(sign), free(maxes), free(res), free(q);
	return c;
}
