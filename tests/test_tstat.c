/* tests/test_tstat.c — the fairness and latency columns on
 * inputs whose answers are known: the histogram's buckets (contiguous, at
 * most 1/64 wide), its quantiles against the exact order statistics of
 * random data, merging; the fairness numbers of a hand-made per-thread
 * split; starvation on a synthetic timeline; then real workloads run with
 * --ops, whose per-thread split and sample counts are known: pool's
 * workers each do exactly ops/threads (Jain's index exactly 1), pool and
 * timeouts time one sample per op, pingpong two (one per half trip),
 * prodcons one per item. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "tests/check.h"
#include "workloads/hist.h"
#include "workloads/workload.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

static void t_buckets(void *arg)
{
	(void)arg;
	for (int i = 0; i < FL_HIST_BUCKETS; i++) {
		int64_t lo = fl_hist_lo(i), w = fl_hist_width(i);
		CHECK(fl_hist_index(lo) == i && fl_hist_index(lo + w - 1) == i, "bucket %d: [%lld, +%lld)",
		      i, (long long)lo, (long long)w);
		if (i + 1 < FL_HIST_BUCKETS)
			CHECK(fl_hist_lo(i + 1) == lo + w, "bucket %d is not followed by %d", i, i + 1);
		if (lo >= FL_HIST_EXACT)
			CHECK(w * 64 <= lo, "bucket %d: width %lld of %lld is over 1/64", i,
			      (long long)w, (long long)lo);
		else
			CHECK(w == 1, "exact bucket %d has width %lld", i, (long long)w);
	}
	CHECK(fl_hist_index(-5) == 0 && fl_hist_index(INT64_MAX) == FL_HIST_BUCKETS - 1,
	      "clamping at the ends");
	struct fl_hist *h = calloc(1, sizeof *h);
	for (int v = 1; v <= 100; v++)
		fl_hist_add(h, v);
	CHECK(h->n == 100 && h->min == 1 && h->max == 100, "n %lld min %lld max %lld",
	      (long long)h->n, (long long)h->min, (long long)h->max);
	CHECK(fl_hist_quantile(h, 0.5) == 50 && fl_hist_quantile(h, 0.99) == 99 &&
	      fl_hist_quantile(h, 1) == 100, "exact below 128: p50 %g p99 %g max %g",
	      fl_hist_quantile(h, 0.5), fl_hist_quantile(h, 0.99), fl_hist_quantile(h, 1));
	fl_hist_reset(h);
	CHECK(fl_hist_quantile(h, 0.5) == -1, "empty: -1");
	free(h);
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void t_quantiles(void *arg)
{
	(void)arg;
	enum { N = 200000 };
	int64_t *v = malloc(N * sizeof *v);
	struct fl_hist *all = calloc(1, sizeof *all), *a = calloc(1, sizeof *a),
		       *b = calloc(1, sizeof *b);
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < N; i++) { /* log-uniform over 1 ns .. ~1 s */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = (int64_t)exp((double)(x >> 11) / 9007199254740992.0 * log(1e9));
		fl_hist_add(all, v[i]);
		fl_hist_add(i % 2 ? a : b, v[i]);
	}
	qsort(v, N, sizeof *v, cmp64);
	double q[] = { 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999 };
	for (size_t k = 0; k < sizeof q / sizeof q[0]; k++) {
		double exact = (double)v[(int64_t)ceil(q[k] * N) - 1], got = fl_hist_quantile(all, q[k]);
		CHECK(fabs(got - exact) <= exact / 128 + 0.5, "q %g: %g, exact %g (error %.3f %%)",
		      q[k], got, exact, 100 * fabs(got - exact) / exact);
	}
	CHECK(fl_hist_quantile(all, 1) == (double)v[N - 1], "max is exact");
	fl_hist_merge(a, b);
	CHECK(a->n == all->n && a->min == all->min && a->max == all->max, "merge: n/min/max");
	CHECK(!memcmp(a->b, all->b, sizeof a->b), "merge: the buckets add up");
	free(v), free(all), free(a), free(b);
}

static void t_fairness(void *arg)
{
	(void)arg;
	struct fl_tstats s;
	struct fl_result r = { 0 };
	fl_tstats_open(&s, 4, false);
	for (int i = 0; i < 4; i++)
		s.t[i].ops = i + 1; /* 1 2 3 4: Jain 100 / (4 * 30) */
	fl_tstats_finish(&s, &r);
	CHECK(r.fair_n == 4 && NEAR(r.fair_jain, 100.0 / 120, 1e-12), "jain %g", r.fair_jain);
	CHECK(NEAR(r.fair_cv, sqrt(1.25) / 2.5, 1e-12), "cv %g", r.fair_cv);
	CHECK(NEAR(r.fair_min_max, 0.25, 1e-12), "min/max %g", r.fair_min_max);
	CHECK(r.lat == NULL && r.starve_max_ns == -1, "not timed: no latency, no starvation");
	fl_tstats_open(&s, 3, false);
	for (int i = 0; i < 3; i++)
		s.t[i].ops = 7;
	fl_tstats_finish(&s, &r);
	CHECK(r.fair_jain == 1 && r.fair_cv == 0 && r.fair_min_max == 1, "equal shares: %g %g %g",
	      r.fair_jain, r.fair_cv, r.fair_min_max);
	fl_tstats_open(&s, 2, false); /* one thread did everything: Jain = 1/n */
	s.t[0].ops = 10;
	fl_tstats_finish(&s, &r);
	CHECK(NEAR(r.fair_jain, 0.5, 1e-12) && r.fair_min_max == 0, "one thread: %g %g",
	      r.fair_jain, r.fair_min_max);
	fl_tstats_open(&s, 2, false);
	fl_tstats_finish(&s, &r);
	CHECK(r.fair_jain == -1, "no ops: no shares (%g)", r.fair_jain);
}

static void t_starvation(void *arg)
{
	(void)arg;
	struct fl_tstats s;
	struct fl_result r = { 0 };
	fl_tstats_open(&s, 2, true);
	s.t[0].last_ns = 1000; /* started at 1000; ops done at 1500, 4000, 4100 */
	fl_tstat_record(&s.t[0], 1500, 10);
	fl_tstat_record(&s.t[0], 4000, 20);
	fl_tstat_record(&s.t[0], 4100, 30);
	s.t[0].ops = 3;
	s.t[1].last_ns = 0; /* ops done at 700 and 1400 */
	fl_tstat_record(&s.t[1], 700, 40);
	fl_tstat_done(&s.t[1], 1400);
	s.t[1].ops = 2;
	fl_tstats_finish(&s, &r);
	CHECK(r.starve_max_ns == 2500, "the longest gap is 1500 -> 4000: %lld",
	      (long long)r.starve_max_ns);
	CHECK(r.lat && r.lat->n == 4 && r.lat->max == 40 && r.lat->min == 10,
	      "four samples merged, 10..40");
	free(r.lat);
}

/* Runs workload w on variant v with ops and 4 threads (1 token), latency on. */
static struct fl_result run(const char *w, const char *v, int threads, int64_t ops)
{
	struct fl_params p = { .threads = threads, .tokens = 1, .sems = 1, .ops = ops, .latency = true };
	struct fl_result r = { 0 };
	fl_workload_find(w)->run(fl_variant_find(v), &p, &r);
	CHECK(!r.error[0], "%s on %s: %s", w, v, r.error);
	return r;
}

static void t_workloads(void *arg)
{
	(void)arg;
	const char *vs[] = { "negcount", "glibc", "textbook" };
	for (int i = 0; i < 3; i++) {
		struct fl_result r = run("pool", vs[i], 4, 4000);
		CHECK(r.ops == 4000 && r.fair_n == 4 && r.fair_jain == 1 && r.fair_min_max == 1,
		      "pool %s: every worker does ops/threads exactly: ops %lld, n %d, jain %g, "
		      "min/max %g", vs[i], (long long)r.ops, r.fair_n, r.fair_jain, r.fair_min_max);
		CHECK(r.lat && r.lat->n == 4000 && r.starve_max_ns >= 0,
		      "pool %s: one acquire timed per op (%lld), starvation %lld", vs[i],
		      r.lat ? (long long)r.lat->n : -1LL, (long long)r.starve_max_ns);
		free(r.lat);
		r = run("pingpong", vs[i], 2, 500);
		CHECK(r.lat && r.lat->n == 1000, "pingpong %s: two half trips per op: %lld", vs[i],
		      r.lat ? (long long)r.lat->n : -1LL);
		free(r.lat);
		r = run("prodcons", vs[i], 4, 1000);
		CHECK(r.lat && r.lat->n == r.ops && r.fair_n == 4, "prodcons %s: one sample per "
		      "item: %lld of %lld, %d shares", vs[i], r.lat ? (long long)r.lat->n : -1LL,
		      (long long)r.ops, r.fair_n);
		free(r.lat);
		r = run("timeouts", vs[i], 3, 300);
		CHECK(r.lat && r.lat->n == r.ops && r.fair_n == 3, "timeouts %s: one sample per "
		      "call: %lld of %lld", vs[i], r.lat ? (long long)r.lat->n : -1LL,
		      (long long)r.ops);
		free(r.lat);
	}
	struct fl_params p = { .threads = 4, .tokens = 1, .sems = 1, .ops = 1000, .latency = false };
	struct fl_result r = { 0 };
	fl_workload_find("pool")->run(fl_variant_find("negcount"), &p, &r);
	CHECK(!r.lat && r.starve_max_ns == -1 && r.fair_jain == 1, "latency off: counts only");
}

int main(void)
{
	run_test("buckets", t_buckets, NULL, 10);
	run_test("quantiles", t_quantiles, NULL, 30);
	run_test("fairness", t_fairness, NULL, 10);
	run_test("starvation", t_starvation, NULL, 10);
	run_test("workloads", t_workloads, NULL, 60);
	return tests_done("tstat");
}
