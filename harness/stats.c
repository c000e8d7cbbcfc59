/* harness/stats.c — see stats.h. */
#include "stats.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct fl_summary fl_summarize(double *x, int n)
{
	struct fl_summary s = { .n = n };
	qsort(x, (size_t)n, sizeof *x, cmp_double);
	s.min = x[0];
	s.max = x[n - 1];
	s.median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
	return s;
}
