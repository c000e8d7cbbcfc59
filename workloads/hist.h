/* workloads/hist.h — a log-linear latency histogram (HDR-style).
 *
 * Values are nanoseconds. Below 128 every value has its own bucket (exact);
 * from 128 up, each power of two [2^m, 2^(m+1)) is cut into 64 equal
 * sub-buckets, so a bucket is at most 1/64 of its lower bound wide: a value
 * reported as its bucket's midpoint is within 1/128 (0.8 %) of the truth,
 * within the 3 %. Values from 2^FL_HIST_TOP_BITS ns (~4.9 h) up
 * land in the last bucket (counted, reported as that bucket). 2496 buckets,
 * 20 KB: one per worker thread, merged per rep by the workload, then per
 * point by the harness. Not thread-safe: one writer. */
#ifndef FUTEXLAB_HIST_H
#define FUTEXLAB_HIST_H

#include <stdint.h>

#define FL_HIST_SUB_BITS 6                        /* 64 sub-buckets */
#define FL_HIST_EXACT    (2 << FL_HIST_SUB_BITS)  /* 0..127: exact */
#define FL_HIST_TOP_BITS 44
#define FL_HIST_BUCKETS  (FL_HIST_EXACT + (FL_HIST_TOP_BITS - FL_HIST_SUB_BITS - 1) * \
			  (1 << FL_HIST_SUB_BITS))

struct fl_hist {
	int64_t n, min, max;
	uint64_t b[FL_HIST_BUCKETS];
};

static inline int fl_hist_index(int64_t v)
{
	if (v < FL_HIST_EXACT)
		return v < 0 ? 0 : (int)v;
	int m = 63 - __builtin_clzll((unsigned long long)v); /* >= 7 */
	if (m >= FL_HIST_TOP_BITS)
		return FL_HIST_BUCKETS - 1;
	int shift = m - FL_HIST_SUB_BITS;
	return FL_HIST_EXACT + (m - FL_HIST_SUB_BITS - 1) * (1 << FL_HIST_SUB_BITS) +
	       (int)((v >> shift) - (1 << FL_HIST_SUB_BITS));
}

static inline void fl_hist_add(struct fl_hist *h, int64_t v)
{
	if (v < 0)
		v = 0;
	h->b[fl_hist_index(v)]++;
	if (v > h->max)
		h->max = v;
	if (!h->n || v < h->min)
		h->min = v;
	h->n++;
}

void fl_hist_reset(struct fl_hist *h);
/* a += b */
void fl_hist_merge(struct fl_hist *a, const struct fl_hist *b);
/* The lowest value of bucket i, and its width (1 below 128). */
int64_t fl_hist_lo(int i);
int64_t fl_hist_width(int i);
/* The q-quantile (0 < q <= 1): the midpoint of the bucket holding the
 * ceil(q*n)-th smallest value, clamped to [min, max] (so q = 1 is the
 * exact max); -1 when empty. */
double fl_hist_quantile(const struct fl_hist *h, double q);

#endif
