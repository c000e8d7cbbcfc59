/* workloads/tstat.c — per-thread counts and latency (workload.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

static void *xalloc(size_t align, size_t n)
{
	void *p = aligned_alloc(align, (n + align - 1) / align * align);
	if (!p) {
		fprintf(stderr, "futexlab: out of memory\n");
		exit(1);
	}
	memset(p, 0, n);
	return p;
}

void fl_tstats_open(struct fl_tstats *s, int n, bool lat)
{
	s->n = n;
	s->t = xalloc(64, (size_t)n * sizeof *s->t);
	for (int i = 0; lat && i < n; i++)
		s->t[i].lat = xalloc(64, sizeof *s->t[i].lat); /* zeroed: empty */
}

void fl_tstats_finish(struct fl_tstats *s, struct fl_result *r)
{
	double sum = 0, sq = 0, mn = INFINITY, mx = 0;
	for (int i = 0; i < s->n; i++) {
		double x = (double)s->t[i].ops;
		sum += x;
		sq += x * x;
		mn = x < mn ? x : mn;
		mx = x > mx ? x : mx;
	}
	r->fair_n = s->n;
	r->starve_max_ns = -1;
	if (s->n > 0 && sum > 0) {
		double mean = sum / s->n, var = sq / s->n - mean * mean;
		r->fair_jain = sum * sum / (s->n * sq);
		r->fair_cv = sqrt(var > 0 ? var : 0) / mean;
		r->fair_min_max = mn / mx;
	} else { /* nobody did anything: no shares to compare */
		r->fair_jain = r->fair_cv = r->fair_min_max = -1;
	}
	if (s->n > 0 && s->t[0].lat) {
		r->lat = s->t[0].lat;
		r->starve_max_ns = s->t[0].starve_ns;
		for (int i = 1; i < s->n; i++) {
			fl_hist_merge(r->lat, s->t[i].lat);
			if (s->t[i].starve_ns > r->starve_max_ns)
				r->starve_max_ns = s->t[i].starve_ns;
			free(s->t[i].lat);
		}
	}
	free(s->t);
	s->t = NULL;
}
