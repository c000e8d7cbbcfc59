/* harness/stats.c — see stats.h. */
#include "harness/stats.h"

#include <math.h>
#include <stdio.h>
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
	/* Largest k with 1 - 2 P(B <= k-1) >= 0.95; coverage falls as k grows. */
	int k = 1;
	double cov = 1 - 2 * binom_half_cdf(n, 0);
	for (int j = 2; j <= (n + 1) / 2; j++) {
		double c = 1 - 2 * binom_half_cdf(n, j - 1);
		if (c < 0.95)
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
	if (r->n < 1 || r->level < 0.95 || !(r->median > 0))
		return FL_UNDECIDED;
	if (fabs(log(r->median)) <= floor) /* within the control's band, in ln r */
		return FL_SAME;
	if (r->hi < 1)
		return FL_FASTER;
	if (r->lo > 1)
		return FL_SLOWER;
	return FL_SAME;
}

const char *fl_verdict_name(enum fl_verdict v)
{
	static const char *const names[] = { "~", "faster", "slower", "?" };
	return names[v];
}

const char *fl_factor_text(char *b, size_t n, double resolution)
{
	double f = exp(resolution);
	if (!isfinite(f))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "\u00d7/\u00f7%.*f", f < 9.995 ? 3 : f < 99.95 ? 1 : 0, f);
	return b;
}

bool fl_ratio_apart(const struct fl_ratio *a, const struct fl_ratio *b)
{
	return a->level >= 0.95 && b->level >= 0.95 && (a->hi < b->lo || b->hi < a->lo);
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
