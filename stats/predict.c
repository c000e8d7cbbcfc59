/* stats/predict.c — see predict.h. */
#include "stats/predict.h"

#include <math.h>
#include <stdlib.h>

#include "stats/stats.h"

double fl_digamma(double x)
{
	double r = 0;
	while (x < 6) { /* psi(x) = psi(x + 1) - 1/x, up to where the series holds */
		r -= 1 / x;
		x += 1;
	}
	double f = 1 / (x * x);
	return r + log(x) - 0.5 / x -
	       f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double fl_trigamma(double x)
{
	double r = 0;
	while (x < 6) { /* psi'(x) = psi'(x + 1) + 1/x^2 */
		r += 1 / (x * x);
		x += 1;
	}
	double f = 1 / (x * x);
	return r + 1 / x + f / 2 +
	       f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

/* trigamma falls from +inf to 0 on (0, inf): bisection on ln x always
 * converges, and this is called once per fit. */
double fl_trigamma_inverse(double y)
{
	if (!(y > 0))
		return NAN;
	double lo = log(1e-8), hi = log(1e8);
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (fl_trigamma(exp(mid)) > y)
			lo = mid;
		else
			hi = mid;
	}
	return exp((lo + hi) / 2);
}

/* The smallest positive variance among the usable ones (the floor a zero
 * takes), or NAN when there is none. */
static double least_positive(const double *s2, const double *d, int n)
{
	double least = NAN;
	for (int i = 0; i < n; i++)
		if (d[i] > 0 && isfinite(s2[i]) && s2[i] > 0 && !(s2[i] >= least))
			least = s2[i];
	return least;
}

struct fl_var_prior fl_var_prior(const double *s2, const double *d, int n)
{
	struct fl_var_prior p = { .s02 = NAN, .d0 = 0, .n = 0 };
	double floor = least_positive(s2, d, n);
	double *e = malloc((size_t)(n > 0 ? n : 1) * sizeof *e);
	if (!e || !isfinite(floor)) {
		free(e);
		return p;
	}
	double sum = 0, tri = 0;
	for (int i = 0; i < n; i++) {
		if (!(d[i] > 0) || !isfinite(s2[i]) || s2[i] < 0)
			continue;
		double h = d[i] / 2;
		e[p.n] = log(s2[i] > 0 ? s2[i] : floor) - fl_digamma(h) + log(h);
		sum += e[p.n++];
		tri += fl_trigamma(h);
	}
	if (p.n < 2) {
		free(e);
		return (struct fl_var_prior){ .s02 = NAN, .d0 = 0, .n = p.n };
	}
	double mean = sum / p.n, ss = 0;
	for (int i = 0; i < p.n; i++)
		ss += (e[i] - mean) * (e[i] - mean);
	free(e);
	/* What the spread of ln s2 holds beyond its sampling noise is the
	 * spread of the true variances: trigamma(d0/2) of it. */
	double excess = ss / (p.n - 1) - tri / p.n;
	if (excess > 0) {
		p.d0 = 2 * fl_trigamma_inverse(excess);
		p.s02 = exp(mean + fl_digamma(p.d0 / 2) - log(p.d0 / 2));
	} else {
		p.d0 = INFINITY;
		p.s02 = exp(mean);
	}
	return p;
}

double fl_var_moderated(const struct fl_var_prior *p, double s2, double d, double *df)
{
	bool own = d > 0 && isfinite(s2);
	if (!p || p->n < 2 || !(p->d0 > 0)) {
		*df = own ? d : 0;
		return own ? s2 : NAN;
	}
	if (isinf(p->d0)) {
		*df = INFINITY;
		return p->s02;
	}
	*df = p->d0 + (own ? d : 0);
	return (p->d0 * p->s02 + (own ? d * s2 : 0)) / *df;
}

struct fl_series fl_series_of(const double *y, int n)
{
	struct fl_series s = { .mean = NAN, .s2 = NAN, .var = NAN, .df = 0, .se = NAN };
	double sum = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(y[i])) {
			sum += y[i];
			s.n++;
		}
	if (s.n == 0)
		return s;
	s.mean = sum / s.n;
	if (s.n < 2)
		return s;
	double ss = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(y[i]))
			ss += (y[i] - s.mean) * (y[i] - s.mean);
	s.s2 = ss / (s.n - 1);
	return s;
}

double fl_series_floor(double within)
{
	double f = FL_PREDICT_FLOOR * FL_PREDICT_FLOOR;
	return within > f ? within : f;
}

void fl_series_moderate(struct fl_series *s, const struct fl_var_prior *p, double floor2)
{
	s->var = fl_var_moderated(p, s->s2, s->n - 1, &s->df);
	if (floor2 > 0 && s->var < floor2)
		s->var = floor2;
	s->se = s->n > 0 && s->var >= 0 ? sqrt(s->var * (1 + 1.0 / s->n)) : NAN;
}

double fl_series_half(const struct fl_series *s, double level)
{
	if (!(s->df > 0) || !isfinite(s->se))
		return NAN;
	return fl_t_quantile((1 + level) / 2, s->df) * s->se;
}

void fl_series_all(const double *y, int ns, int n, const double *floor2, struct fl_series *out)
{
	double *s2 = calloc((size_t)(ns ? ns : 1), sizeof *s2), *d = calloc((size_t)(ns ? ns : 1), sizeof *d);
	for (int k = 0; k < ns; k++) {
		out[k] = fl_series_of(y + (size_t)k * n, n);
		/* no series spreads less than one run measures it (predict.h) */
		if (floor2 && out[k].s2 < floor2[k])
			out[k].s2 = floor2[k];
		if (s2 && d) {
			s2[k] = out[k].s2;
			d[k] = out[k].n - 1;
		}
	}
	struct fl_var_prior p = s2 && d ? fl_var_prior(s2, d, ns)
				      : (struct fl_var_prior){ .s02 = NAN, .d0 = 0, .n = 0 };
	for (int k = 0; k < ns; k++)
		fl_series_moderate(&out[k], &p, floor2 ? floor2[k] : 0);
	free(s2);
	free(d);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The calibration's leave-one-out: the history (fl_predict_calibrate's
 * y, ns, n, floor2), the scratch one left-out run needs, and the
 * standardized deviations gathered so far. */
struct loo {
	const double *y;       /* ns series of n runs, series after series */
	int ns, n;
	const double *floor2;  /* each series' floor, or NULL */
	double *rest;          /* scratch: the series without the left-out run, ns x (n - 1) */
	struct fl_series *sr;  /* scratch: their fits, ns */
	double *u;             /* the deviations, nu of them (capacity ns x n) */
	int nu;
};

/* The standardized deviations of run i from the series made of the other
 * runs, appended to c->u. */
static void left_out(struct loo *c, int i)
{
	int ns = c->ns, n = c->n;
	for (int k = 0; k < ns; k++)
		for (int j = 0, m = 0; j < n; j++)
			if (j != i)
				c->rest[(size_t)k * (n - 1) + m++] = c->y[(size_t)k * n + j];
	fl_series_all(c->rest, ns, n - 1, c->floor2, c->sr);
	for (int k = 0; k < ns; k++) {
		double x = c->y[(size_t)k * n + i];
		if (isfinite(x) && c->sr[k].n >= 2 && c->sr[k].se > 0)
			c->u[c->nu++] = fabs(x - c->sr[k].mean) / c->sr[k].se;
	}
}

double fl_predict_calibrate(const double *y, int ns, int n, const double *floor2, double level)
{
	if (n < FL_PREDICT_MIN_RUNS || ns < 1)
		return NAN;
	struct loo c = { .y = y, .ns = ns, .n = n, .floor2 = floor2,
			 .rest = malloc((size_t)ns * (size_t)(n - 1) * sizeof *c.rest),
			 .sr = malloc((size_t)ns * sizeof *c.sr),
			 .u = malloc((size_t)ns * (size_t)n * sizeof *c.u) };
	if (c.rest && c.u && c.sr)
		for (int i = 0; i < n; i++)
			left_out(&c, i);
	double q = NAN;
	if (c.nu >= 20) {
		qsort(c.u, (size_t)c.nu, sizeof *c.u, cmp_double);
		/* the conformal rank: ceil((N + 1) level), the largest past it */
		int r = (int)ceil((c.nu + 1) * level);
		q = c.u[(r < c.nu ? r : c.nu) - 1];
	}
	free(c.rest);
	free(c.u);
	free(c.sr);
	return q;
}

double fl_series_p(const struct fl_series *s, double x, int k, double scale)
{
	if (!(s->df > 0) || !(s->var > 0) || k < 1 || !isfinite(x))
		return NAN;
	double t = fabs(x - s->mean) / (scale * sqrt(s->var * (1.0 / s->n + 1.0 / k)));
	return isinf(s->df) ? erfc(t / sqrt(2)) : fl_t_sf2(t, s->df);
}
