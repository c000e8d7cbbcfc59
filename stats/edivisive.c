/* stats/edivisive.c — E-Divisive means with Hunter's t-test; the why is in
 * edivisive.h. Indices are absolute (into the caller's x) unless a name
 * says local. */
#include "stats/edivisive.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>

void fl_cp_defaults(struct fl_cp_opts *o)
{
	o->pvalue = 0.001;
	o->min_size = 3;
	o->window = 50;
	o->otava = 0;
}

/* Mean of a[0..n) and the sum of squared deviations from it. */
static double moments(const double *a, int n, double *ss)
{
	double m = 0, s = 0;
	for (int i = 0; i < n; i++)
		m += a[i];
	m /= n;
	for (int i = 0; i < n; i++)
		s += (a[i] - m) * (a[i] - m);
	*ss = s;
	return m;
}

/* The t-test; pop: Otava's variance (see struct fl_cp_opts). */
static double ttest(const double *a, int na, const double *b, int nb, int pop)
{
	int df = na + nb - 2;
	if (df < 1)
		return 1;
	double ssa, ssb;
	double ma = moments(a, na, &ssa), mb = moments(b, nb, &ssb);
	if (pop) {
		ssa *= (na - 1.0) / na;
		ssb *= (nb - 1.0) / nb;
	}
	double se = sqrt((ssa + ssb) / df * (1.0 / na + 1.0 / nb));
	if (se == 0)
		return ma == mb ? 1 : 0;
	return fl_t_sf2((ma - mb) / se, df);
}

double fl_ttest_p(const double *a, int na, const double *b, int nb)
{
	return ttest(a, na, b, nb, 0);
}

/* ---- the q statistic ------------------------------------------------ */

static double q_of(double cross, double wx, double wy, int n, int m)
{
	double q = 2 * cross / (n + m);
	if (n > 1)
		q -= 2.0 * m * wx / ((double)(n + m) * (n - 1));
	if (m > 1)
		q -= 2.0 * n * wy / ((double)(n + m) * (m - 1));
	return q;
}

double fl_ed_q(const double *x, int tau, int kappa)
{
	double cross = 0, wx = 0, wy = 0;
	for (int i = 0; i < kappa; i++)
		for (int j = i + 1; j < kappa; j++) {
			double d = fabs(x[i] - x[j]);
			if (j < tau)
				wx += d;
			else if (i >= tau)
				wy += d;
			else
				cross += d;
		}
	return q_of(cross, wx, wy, tau, kappa - tau);
}

/* Row prefix sums of the distance matrix of x[0..w): sum(j, a, b) is
 * sum_{a <= t < b} |x[t] - x[j]| in O(1). */
struct dist {
	int w;
	double *p; /* p[j * (w + 1) + i] = sum_{t < i} |x[t] - x[j]| */
};

static int dist_init(struct dist *d, const double *x, int w)
{
	d->w = w;
	d->p = malloc(sizeof *d->p * (size_t)w * (size_t)(w + 1));
	if (!d->p)
		return -1;
	for (int j = 0; j < w; j++) {
		double *row = d->p + (size_t)j * (w + 1);
		row[0] = 0;
		for (int i = 0; i < w; i++)
			row[i + 1] = row[i] + fabs(x[i] - x[j]);
	}
	return 0;
}

static double dsum(const struct dist *d, int j, int a, int b)
{
	const double *row = d->p + (size_t)j * (d->w + 1);
	return row[b] - row[a];
}

/* Edges of a stretch that are a window's edge inside the series, not an end
 * of a stretch: the values go on past them, so min_size does not bind there
 * (else a change a value or two inside a window's edge would be found
 * displaced to where min_size allows). The merge step holds the final
 * stretches to min_size. */
enum { OPEN_LO = 1, OPEN_HI = 2 };

/* The best split of the local stretch [s, e): as fl_ed_split, `open` as
 * above. Growing X one value at a time and, for each tau, Y one value at a
 * time keeps every sum O(1) to update. */
static int best_in(const struct dist *d, int s, int e, int m, int open, double *qbest)
{
	int best = 0;
	double wx = 0;
	*qbest = -INFINITY;
	for (int tau = s + 1; tau < e; tau++) {
		wx += dsum(d, tau - 1, s, tau - 1);
		if (tau - s < m && !(open & OPEN_LO))
			continue;
		double cross = 0, wy = 0;
		for (int y = tau; y < e; y++) {
			cross += dsum(d, y, s, tau);
			wy += dsum(d, y, tau, y);
			if (y + 1 - tau < m && !((open & OPEN_HI) && y + 1 == e))
				continue;
			double q = q_of(cross, wx, wy, tau - s, y + 1 - tau);
			if (q > *qbest) {
				*qbest = q;
				best = tau;
			}
		}
	}
	return best;
}

int fl_ed_split(const double *x, int n, int min_size, double *q)
{
	*q = 0;
	if (min_size < 1)
		min_size = 1;
	if (n < 2 * min_size)
		return 0;
	struct dist d;
	if (dist_init(&d, x, n) < 0)
		return -1;
	int tau = best_in(&d, 0, n, min_size, 0, q);
	free(d.p);
	return tau;
}

/* ---- the split step ------------------------------------------------- */

/* A sorted set of change points, capacity n. */
struct cps {
	struct fl_change_point *v;
	int k;
};

static int cps_find(const struct cps *c, int at)
{
	int i = 0;
	while (i < c->k && c->v[i].at < at)
		i++;
	return i;
}

static void cps_insert(struct cps *c, int at)
{
	int i = cps_find(c, at);
	if (i < c->k && c->v[i].at == at)
		return;
	for (int j = c->k; j > i; j--)
		c->v[j] = c->v[j - 1];
	c->v[i] = (struct fl_change_point){ .at = at, .p = 1 };
	c->k++;
}

static void cps_remove(struct cps *c, int i)
{
	for (int j = i + 1; j < c->k; j++)
		c->v[j - 1] = c->v[j];
	c->k--;
}

/* The stretch of the set around position i: [*lo, *hi) between change
 * points i - 1 and i, the ends being lo0 and hi0. */
static void stretch(const struct cps *c, int i, int lo0, int hi0, int *lo, int *hi)
{
	*lo = i > 0 ? c->v[i - 1].at : lo0;
	*hi = i < c->k ? c->v[i].at : hi0;
}

/* Tests the split at `at` of [lo, hi): fills p and the means. */
static void judge(const double *x, int lo, int at, int hi, int pop, struct fl_change_point *cp)
{
	double ss;
	cp->at = at;
	cp->p = ttest(x + lo, at - lo, x + at, hi - at, pop);
	cp->before = moments(x + lo, at - lo, &ss);
	cp->after = moments(x + at, hi - at, &ss);
}

/* The first-pass threshold: Otava's, so that a change point that will pass
 * `pvalue` against its final neighbours is not lost to a window that cut its
 * stretches short. */
static double first_pass(double p)
{
	if (p < 0.05)
		return p * 10;
	return p < 0.5 ? p * 2 : p;
}

/* The split step's state: the series and its options, the set of weak
 * change points it grows over the windows, and one window's scratch. */
struct split {
	const double *x; /* the series, x[0..n) */
	int n;
	const struct fl_cp_opts *o;
	struct cps loc;  /* one window's change points, local indices (capacity: the window) */
	struct cps *all; /* the weak change points so far, absolute indices */
};

/* E-Divisive with the t-test on the window x[ws..we): the best split over
 * its current stretches, kept while its p is at most the first-pass
 * threshold; the first that is not ends the pass. Adds what it keeps to
 * sp->all; returns the last change point it found, 0 if none, -1 on
 * allocation failure. */
static int window_pass(struct split *sp, int ws, int we)
{
	const double *x = sp->x;
	struct cps *loc = &sp->loc;
	struct dist d;
	if (dist_init(&d, x + ws, we - ws) < 0)
		return -1;
	loc->k = 0;
	for (int m = sp->o->min_size;;) {
		int tau = 0, lo = 0, hi = 0;
		double qmax = -INFINITY;
		for (int i = 0; i <= loc->k; i++) {
			int s, e;
			double q;
			stretch(loc, i, 0, we - ws, &s, &e);
			int open = (s == 0 && ws > 0 ? OPEN_LO : 0) |
				   (e == we - ws && we < sp->n ? OPEN_HI : 0);
			int t = best_in(&d, s, e, m, open, &q);
			if (t > 0 && q > qmax)
				qmax = q, tau = t, lo = s, hi = e;
		}
		if (!tau)
			break;
		struct fl_change_point cp;
		judge(x + ws, lo, tau, hi, sp->o->otava, &cp);
		if (!(cp.p <= first_pass(sp->o->pvalue)))
			break;
		cps_insert(loc, tau);
	}
	free(d.p);
	for (int i = 0; i < loc->k; i++)
		cps_insert(sp->all, ws + loc->v[i].at);
	return loc->k ? ws + loc->v[loc->k - 1].at : 0;
}

static int split_step(const double *x, int n, const struct fl_cp_opts *o, struct cps *all)
{
	int w = o->window > 0 && o->window < n ? o->window : n;
	int step = w / 2 > 0 ? w / 2 : 1;
	struct split sp = { x, n, o, { malloc(sizeof *sp.loc.v * (size_t)w), 0 }, all };
	if (!sp.loc.v)
		return -1;
	for (int start = 0; start < n;) {
		int end = start + w < n ? start + w : n;
		int last = window_pass(&sp, start, end);
		if (last < 0) {
			free(sp.loc.v);
			return -1;
		}
		start = last > start + step ? last : start + step;
	}
	free(sp.loc.v);
	return 0;
}

/* ---- the merge step ------------------------------------------------- */

/* Re-tests change point i against its neighbours. */
static void rejudge(const double *x, int n, int pop, struct cps *c, int i)
{
	if (i < 0 || i >= c->k)
		return;
	int lo = i > 0 ? c->v[i - 1].at : 0;
	int hi = i + 1 < c->k ? c->v[i + 1].at : n;
	judge(x, lo, c->v[i].at, hi, pop, &c->v[i]);
}

/* Next to a stretch shorter than m: overlapping windows can put two change
 * points closer than that. */
static int too_close(const struct cps *c, int n, int m, int i)
{
	int lo = i > 0 ? c->v[i - 1].at : 0;
	int hi = i + 1 < c->k ? c->v[i + 1].at : n;
	return c->v[i].at - lo < m || hi - c->v[i].at < m;
}

/* The weakest change point: one too close before any other, the largest p
 * among equals, the first on a tie; -1 if none is left. *drop: it fails. */
static int weakest(const struct cps *c, int n, const struct fl_cp_opts *o, int *drop)
{
	int w = -1, w_close = 0;
	for (int i = 0; i < c->k; i++) {
		int cl = too_close(c, n, o->min_size, i);
		if (w < 0 || cl > w_close || (cl == w_close && c->v[i].p > c->v[w].p))
			w = i, w_close = cl;
	}
	*drop = w >= 0 && (w_close || !(c->v[w].p < o->pvalue));
	return w;
}

static void merge_step(const double *x, int n, const struct fl_cp_opts *o, struct cps *c)
{
	for (int i = 0; i < c->k; i++)
		rejudge(x, n, o->otava, c, i);
	for (;;) {
		int drop, w = weakest(c, n, o, &drop);
		if (!drop)
			return;
		cps_remove(c, w);
		if (o->otava) {
			rejudge(x, n, 1, c, w);
			rejudge(x, n, 1, c, w + 1);
			continue;
		}
		rejudge(x, n, 0, c, w - 1);
		rejudge(x, n, 0, c, w);
	}
}

int fl_change_points(const double *x, int n, const struct fl_cp_opts *o, struct fl_change_point *out,
		     int max)
{
	struct fl_cp_opts opt;
	if (o)
		opt = *o;
	else
		fl_cp_defaults(&opt);
	if (opt.min_size < 1)
		opt.min_size = 1;
	if (n < 2 * opt.min_size)
		return 0;
	struct cps all = { malloc(sizeof *all.v * (size_t)n), 0 };
	if (!all.v)
		return -1;
	if (split_step(x, n, &opt, &all) < 0) {
		free(all.v);
		return -1;
	}
	merge_step(x, n, &opt, &all);
	int k = all.k < max ? all.k : max;
	for (int i = 0; i < k; i++)
		out[i] = all.v[i];
	free(all.v);
	return k;
}
