/* stats/rounds.c — see rounds.h. */
#include "stats/rounds.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>

double fl_control_resolution(const double *base, const double *ctl, int n)
{
	/* stats/ includes nothing of ours (fail/'s fl_xmalloc): out of memory
	 * is "unknown", which gives the point another round, never a verdict */
	double *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
	if (!r)
		return INFINITY;
	struct fl_ratio q;
	double res = fl_ratio_paired(ctl, base, n, r, &q) ? fl_control_res(&q) : INFINITY;
	free(r);
	return res;
}

static double known(double r)
{
	return isnan(r) ? INFINITY : r;
}

/* Point x goes before point y: worse resolution, then fewer rounds, then
 * the lower index. */
static int worse(const double *res, const int *rounds, int x, int y)
{
	double rx = known(res[x]), ry = known(res[y]);
	if (rx != ry)
		return rx > ry;
	if (rounds[x] != rounds[y])
		return rounds[x] < rounds[y];
	return x < y;
}

int fl_rounds_pick(const double *res, const int *rounds, int np, double target, int cap,
		   int *pick)
{
	int n = 0;
	for (int p = 0; p < np; p++) {
		if (rounds[p] >= cap || known(res[p]) <= target)
			continue;
		int i = n++; /* insertion: a run has tens of points, not thousands */
		for (; i > 0 && worse(res, rounds, p, pick[i - 1]); i--)
			pick[i] = pick[i - 1];
		pick[i] = p;
	}
	return n;
}
