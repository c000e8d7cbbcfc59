/* harness/stats.h — summaries over the reps of one point. */
#ifndef FUTEXLAB_STATS_H
#define FUTEXLAB_STATS_H

struct fl_summary {
	int n;
	double median, min, max;
};

/* Sorts x in place. n >= 1. */
struct fl_summary fl_summarize(double *x, int n);

#endif
