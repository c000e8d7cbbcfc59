/* workloads/hist.c — see hist.h. */
#include "workloads/hist.h"

#include <math.h>
#include <string.h>

void fl_hist_reset(struct fl_hist *h)
{
	memset(h, 0, sizeof *h);
}

void fl_hist_merge(struct fl_hist *a, const struct fl_hist *b)
{
	if (!b->n)
		return;
	for (int i = 0; i < FL_HIST_BUCKETS; i++)
		a->b[i] += b->b[i];
	if (!a->n || b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
	a->n += b->n;
}

int64_t fl_hist_lo(int i)
{
	if (i < FL_HIST_EXACT)
		return i;
	int k = i - FL_HIST_EXACT, sub = 1 << FL_HIST_SUB_BITS;
	int m = k / sub + FL_HIST_SUB_BITS + 1;
	return (int64_t)(sub + k % sub) << (m - FL_HIST_SUB_BITS);
}

int64_t fl_hist_width(int i)
{
	if (i < FL_HIST_EXACT)
		return 1;
	int m = (i - FL_HIST_EXACT) / (1 << FL_HIST_SUB_BITS) + FL_HIST_SUB_BITS + 1;
	return (int64_t)1 << (m - FL_HIST_SUB_BITS);
}

double fl_hist_quantile(const struct fl_hist *h, double q)
{
	if (!h->n)
		return -1;
	int64_t rank = (int64_t)ceil(q * (double)h->n);
	if (rank < 1)
		rank = 1;
	if (rank >= h->n)
		return (double)h->max;
	uint64_t seen = 0;
	for (int i = 0; i < FL_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= (uint64_t)rank) {
			double v = (double)fl_hist_lo(i) + (double)(fl_hist_width(i) - 1) / 2.0;
			if (v < (double)h->min)
				v = (double)h->min;
			if (v > (double)h->max)
				v = (double)h->max;
			return v;
		}
	}
	return (double)h->max;
}
