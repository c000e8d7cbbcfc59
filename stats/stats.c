/* stats/stats.c — see stats.h. */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double fl_median(double *x, int n)
{
	qsort(x, (size_t)n, sizeof *x, cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* P(B <= j) for B ~ Binomial(n, 1/2), summed in logs so n = 1000 (the
 * largest --rounds) neither overflows nor underflows to nonsense. */
static double binom_half_cdf(int n, int j)
{
	double sum = 0;
	for (int i = 0; i <= j; i++)
		sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * M_LN2);
	return sum;
}

int fl_median_ci_rank(int n, double *coverage)
{
	/* Largest k with 1 - 2 P(B <= k-1) >= FL_CI_LEVEL; coverage falls as k grows. */
	int k = 1;
	double cov = 1 - 2 * binom_half_cdf(n, 0);
	for (int j = 2; j <= (n + 1) / 2; j++) {
		double c = 1 - 2 * binom_half_cdf(n, j - 1);
		if (c < FL_CI_LEVEL)
			break;
		k = j;
		cov = c;
	}
	if (cov < 0)
		cov = 0; /* n = 1: the interval is one point */
	*coverage = cov;
	return k;
}

struct fl_summary fl_summarize(double *x, int n)
{
	struct fl_summary s = { .n = n };
	s.median = fl_median(x, n); /* sorts x */
	s.min = x[0];
	s.max = x[n - 1];
	int k = fl_median_ci_rank(n, &s.ci_level);
	s.ci_lo = x[k - 1];
	s.ci_hi = x[n - k];
	double *dev = malloc((size_t)n * sizeof *dev);
	if (dev) {
		for (int i = 0; i < n; i++)
			dev[i] = fabs(x[i] - s.median);
		s.mad = fl_median(dev, n);
		free(dev);
	} else {
		s.mad = NAN;
	}
	return s;
}

bool fl_noisy(const struct fl_summary *s)
{
	return !(s->median > 0) || !(s->mad / s->median <= FL_NOISY_MAD);
}

bool fl_ci_apart(const struct fl_summary *a, const struct fl_summary *b)
{
	return a->ci_hi < b->ci_lo || b->ci_hi < a->ci_lo;
}

struct fl_ratio fl_ratio_summarize(double *r, int n)
{
	struct fl_ratio q = { .n = n };
	q.median = fl_median(r, n); /* sorts r */
	int k = fl_median_ci_rank(n, &q.level);
	q.lo = r[k - 1];
	q.hi = r[n - k];
	q.resolution = q.lo > 0 && q.hi > 0 ? (log(q.hi) - log(q.lo)) / 2 : NAN;
	return q;
}

enum fl_verdict fl_ratio_verdict(const struct fl_ratio *r, double floor)
{
	if (r->n < 1 || r->level < FL_CI_LEVEL || !(r->median > 0))
		return FL_UNDECIDED;
	if (fabs(log(r->median)) <= floor) /* within the control's band, in ln r */
		return FL_SAME;
	if (r->hi < 1)
		return FL_FASTER;
	if (r->lo > 1)
		return FL_SLOWER;
	return FL_SAME;
}

bool fl_ratio_apart(const struct fl_ratio *a, const struct fl_ratio *b)
{
	return a->level >= FL_CI_LEVEL && b->level >= FL_CI_LEVEL && (a->hi < b->lo || b->hi < a->lo);
}

bool fl_cpu_note(enum fl_verdict v, enum fl_verdict cpu_v, double factor)
{
	bool more = cpu_v == FL_SLOWER && factor >= FL_CPU_NOTE,
	     less = cpu_v == FL_FASTER && factor <= 1 / FL_CPU_NOTE;
	return (v == FL_FASTER && more) || (v == FL_SLOWER && less) ||
	       (v == FL_SAME && (more || less));
}

uint64_t fl_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void fl_round_order(uint64_t *rng, int n, int *order)
{
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
		int j = (int)(fl_rng_next(rng) % (uint64_t)(i + 1));
		int t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
}

/* ---- runs as the top level (stats.h) ------------------------------------- */

double fl_z_quantile(double p)
{
	/* bisection on the normal CDF, 0.5 erfc(-x / sqrt 2): exact to 1e-12,
	 * and nothing here is in a hot loop */
	double lo = -40, hi = 40;
	for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
		double mid = (lo + hi) / 2;
		if (0.5 * erfc(-mid / M_SQRT2) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* The continued fraction of I_x(a, b) (modified Lentz), good where
 * x < (a + 1) / (a + b + 2); the caller uses the symmetry elsewhere. */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	d = 1 / (fabs(d) < tiny ? tiny : d);
	double h = d;
	for (int m = 1; m <= 500; m++) {
		double num[2] = {
			m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
			-(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
		};
		double step = 1;
		for (int k = 0; k < 2; k++) {
			d = 1 + num[k] * d;
			c = 1 + num[k] / c;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = fabs(c) < tiny ? tiny : c;
			step = d * c;
			h *= step;
		}
		if (fabs(step - 1) < 1e-15)
			break;
	}
	return h;
}

double fl_betainc(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	int sg;
	/* lgamma_r: lgamma writes the global signgam, which would make the
	 * calls non-reentrant. */
	double lbeta = lgamma_r(a, &sg) + lgamma_r(b, &sg) - lgamma_r(a + b, &sg);
	double front = exp(a * log(x) + b * log1p(-x) - lbeta);
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double fl_t_sf2(double t, double df)
{
	if (isinf(t))
		return 0;
	return fl_betainc(df / 2, 0.5, df / (df + t * t));
}

double fl_t_cdf(double t, double df)
{
	double tail = 0.5 * fl_betainc(df / 2, 0.5, df / (df + t * t));
	return t >= 0 ? 1 - tail : tail;
}

double fl_t_quantile(double p, double df)
{
	if (!(df > 0))
		return NAN;
	if (df > 1e7)
		return fl_z_quantile(p);
	if (p < 0.5)
		return -fl_t_quantile(1 - p, df);
	double lo = 0, hi = 1;
	while (fl_t_cdf(hi, df) < p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-10 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (fl_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double fl_ratio_log_se(const struct fl_ratio *r)
{
	if (r->n < 1 || !(r->level > 0) || !(r->lo > 0) || !(r->hi >= r->lo) || !(r->median > 0))
		return NAN;
	double z = fl_z_quantile((1 + r->level) / 2);
	return z > 0 ? (log(r->hi) - log(r->lo)) / (2 * z) : NAN;
}

/* Whether run j's ratio of an entry counts: a median and a within-run error. */
static bool pool_usable(const struct fl_ratio *r)
{
	return r->n > 0 && r->median > 0 && isfinite(fl_ratio_log_se(r));
}

/* A point's ratios, run by run (fl_pool_point's nrun, nent, r). */
struct ratio_grid {
	int nrun, nent;
	const struct fl_ratio *r;
};

/* Run j's ratio of entry e. */
static const struct fl_ratio *cell(const struct ratio_grid *g, int j, int e)
{
	return &g->r[j * g->nent + e];
}

/* Entry e's runs: its mean log ratio, mean within-run variance, the
 * rounds behind them (dfw) and its sample variance over runs (s2). */
static void pool_entry_runs(const struct ratio_grid *g, int e, struct fl_pool_entry *o,
			    double *s2, double *dfw)
{
	*o = (struct fl_pool_entry){ .y = NAN, .ratio = NAN, .w2 = NAN, .tau2 = NAN, .df = NAN,
				     .conf_half = NAN, .pred_half = NAN, .conf_lo = NAN,
				     .conf_hi = NAN, .pred_lo = NAN, .pred_hi = NAN };
	double sy = 0, sw = 0, ss = 0;
	for (int j = 0; j < g->nrun; j++) {
		const struct fl_ratio *q = cell(g, j, e);
		if (!pool_usable(q))
			continue;
		double w = fl_ratio_log_se(q);
		o->runs++;
		sy += log(q->median);
		sw += w * w;
		*dfw += q->n > 1 ? q->n - 1 : 1;
	}
	if (!o->runs)
		return;
	o->y = sy / o->runs;
	o->ratio = exp(o->y);
	o->w2 = sw / o->runs;
	for (int j = 0; j < g->nrun; j++) {
		const struct fl_ratio *q = cell(g, j, e);
		if (pool_usable(q))
			ss += (log(q->median) - o->y) * (log(q->median) - o->y);
	}
	*s2 = o->runs > 1 ? ss / (o->runs - 1) : NAN;
}

/* The pool: the entries in every run, split into the run effect common to
 * them (A) and their spread about it (B); tau2 NAN when there is none. */
static struct fl_pool_point pool_layout(const struct ratio_grid *g,
					const struct fl_pool_entry *out)
{
	struct fl_pool_point pool = { .tau2 = NAN, .df = NAN };
	if (g->nrun < 2)
		return pool;
	double *m = calloc((size_t)g->nrun, sizeof *m), sw2 = 0, ssr = 0, A = 0;
	if (!m)
		abort(); /* a few doubles: the harness's xalloc's answer */
	int E = 0;
	for (int e = 0; e < g->nent; e++) {
		if (out[e].runs != g->nrun)
			continue;
		E++;
		sw2 += out[e].w2;
		for (int j = 0; j < g->nrun; j++)
			m[j] += log(cell(g, j, e)->median) - out[e].y;
	}
	for (int j = 0; E > 0 && j < g->nrun; j++) {
		m[j] /= E;
		A += m[j] * m[j];
	}
	for (int e = 0; E > 0 && e < g->nent; e++)
		for (int j = 0; out[e].runs == g->nrun && j < g->nrun; j++) {
			double z = log(cell(g, j, e)->median) - out[e].y - m[j];
			ssr += z * z;
		}
	free(m);
	if (E == 0)
		return pool;
	A /= g->nrun - 1;
	double B = ssr / (E * (g->nrun - 1.0)), d = g->nrun - 1.0, dB = (E - 1.0) * d;
	double den = A * A / d + (dB > 0 ? B * B / dB : 0);
	pool.entries = E;
	pool.common = A;
	pool.spread = B;
	pool.tau2 = fmax(0, A + B - sw2 / E);
	/* Satterthwaite; all runs identical to the last digit: the most the
	 * layout has */
	pool.df = den > 0 ? (A + B) * (A + B) / den : d + dB;
	if (pool.df < d)
		pool.df = d;
	return pool;
}

/* An entry's shrunk excess, degrees of freedom and intervals. */
static void pool_entry_intervals(struct fl_pool_entry *o, const struct fl_pool_point *pool,
				 double s2, double dfw)
{
	double d = o->runs - 1.0, x = s2 - o->w2;
	if (isfinite(pool->tau2)) {
		o->tau2 = fmax(0, (pool->df * pool->tau2 + d * x) / (pool->df + d));
	} else {
		o->tau2 = fmax(0, x);
	}
	double V = o->w2 + o->tau2;
	/* Degrees of freedom: Satterthwaite's for V = w2 + tau2~, the
	 * between-run part known as well, relatively, as the pool's: tau2~
	 * with d_p degrees of freedom (variance 2 tau2~^2 / d_p: the entries'
	 * between-run variances taken as proportional, limma's model), w2
	 * with the rounds'. The entry's own spread over runs adds no degrees
	 * of freedom of its own: the entry is one of the pool's, its
	 * run-to-run moves mostly the point's common shift, already counted
	 * once in d_p (one common shift alone: d_p 1, this df 1 too); its own
	 * excess still moves tau2~ above, with its weight d. Adding d as
	 * limma does (independent entries) would count that shift twice.
	 * Taking the pool's absolute variance 2 S^2 / d_p instead (S, the
	 * pool's mean square, is as large as its noisiest entries make it)
	 * would leave a quiet entry of a noisy point one degree of freedom
	 * where the point has more, and a next-run interval as wide as
	 * t_{0.995,1} = 63.7 makes it: honest, of no use. */
	double dp = isfinite(pool->tau2) ? pool->df : d;
	double S = pool->common + pool->spread, wt = dp / (dp + d);
	double vt = isfinite(pool->tau2) ? wt * wt * 2 * S * S / dp : 2 * V * V / d;
	double vw = 2 * o->w2 * o->w2 / dfw;
	o->df = vt + vw > 0 ? 2 * V * V / (vt + vw) : 1e9;
	/* no more than the runs hold: the pool's, and the entry's own only
	 * for the share of the point's spread that is not the common shift
	 * (one common shift alone: the entry's runs are the pool's, d_p) */
	double own = S > 0 ? d * pool->spread / S : d;
	if (o->df > dp + own)
		o->df = dp + own;
	if (o->df < d)
		o->df = d;
	o->conf_half = fl_t_quantile((1 + FL_POOL_CONF) / 2, o->df) * sqrt(V / o->runs);
	o->pred_half = fl_t_quantile((1 + FL_POOL_PRED) / 2, o->df) * sqrt(V * (1 + 1.0 / o->runs));
	o->conf_lo = exp(o->y - o->conf_half);
	o->conf_hi = exp(o->y + o->conf_half);
	o->pred_lo = exp(o->y - o->pred_half);
	o->pred_hi = exp(o->y + o->pred_half);
}

void fl_pool_point(int nrun, int nent, const struct fl_ratio *r, struct fl_pool_entry *out,
		   struct fl_pool_point *pp)
{
	double *s2 = calloc((size_t)nent + 1, sizeof *s2), *dfw = calloc((size_t)nent + 1, sizeof *dfw);
	if (!s2 || !dfw)
		abort(); /* a few doubles per entry: the harness's xalloc's answer */
	struct ratio_grid g = { nrun, nent, r };
	for (int e = 0; e < nent; e++)
		pool_entry_runs(&g, e, &out[e], &s2[e], &dfw[e]);
	struct fl_pool_point pool = pool_layout(&g, out);
	for (int e = 0; e < nent; e++)
		if (out[e].runs >= 2)
			pool_entry_intervals(&out[e], &pool, s2[e], dfw[e]);
	if (pp)
		*pp = pool;
	free(s2);
	free(dfw);
}

enum fl_verdict fl_pool_verdict(const struct fl_pool_entry *e, double band)
{
	if (e->runs < 2 || !isfinite(e->conf_half))
		return FL_UNDECIDED;
	if (fabs(e->y) <= band)
		return FL_SAME;
	if (e->y + e->conf_half < 0)
		return FL_FASTER;
	if (e->y - e->conf_half > 0)
		return FL_SLOWER;
	return FL_SAME;
}
