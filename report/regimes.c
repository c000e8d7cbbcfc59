/* report/regimes.c — two states of a point's baseline (regimes.h). */
#include "report/regimes.h"
#include "report/evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/xalloc.h"

/* The least within-state spread the distance is measured against (1% in
 * log terms): a rep is never timed better than that, and crafted samples
 * with identical values would otherwise divide by zero. */
#define SPREAD_FLOOR 0.01

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of the sorted y[0..n). */
static double sorted_median(const double *y, int n)
{
	return n % 2 ? y[n / 2] : (y[n / 2 - 1] + y[n / 2]) / 2;
}

/* The within-state spread of the cut at k (A: y[0..k), B: y[k..n)): the
 * root mean square of y's deviations from its side's median, over n - 2
 * degrees of freedom (two medians fitted). */
static double within_spread(const double *y, int n, int k, double ma, double mb)
{
	double ss = 0;
	for (int i = 0; i < n; i++) {
		double d = y[i] - (i < k ? ma : mb);
		ss += d * d;
	}
	double sd = sqrt(ss / (n - 2));
	return sd > SPREAD_FLOOR ? sd : SPREAD_FLOOR;
}

/* The spread of one side, y[0..m) about its median md: the root mean
 * square deviation over m - 1 degrees of freedom. */
static double side_spread(const double *y, int m, double md)
{
	double ss = 0;
	for (int i = 0; i < m; i++)
		ss += (y[i] - md) * (y[i] - md);
	double sd = sqrt(ss / (m - 1));
	return sd > SPREAD_FLOOR ? sd : SPREAD_FLOOR;
}

/* The cut at k (A: y[0..k), B: y[k..m)) by both tests: tightness's score
 * in *tight, the empty stretch over the tighter side's spread in *gap;
 * whether either passes. */
static bool cut_passes(const double *y, int m, int k, double bar, double *tight, double *gap,
		       bool *by_gap)
{
	double ma = sorted_median(y, k), mb = sorted_median(y + k, m - k);
	double sa = side_spread(y, k, ma), sb = side_spread(y + k, m - k, mb);
	double empty = y[k] - y[k - 1];
	*tight = (mb - ma) / within_spread(y, m, k, ma, mb);
	int mt = FL_REGIME_GAP_ROUNDS; /* the tighter side: one of >= mt rounds */
	double st = k < mt ? sb : m - k < mt ? sa : sa < sb ? sa : sb;
	*gap = k < mt && m - k < mt ? 0 : empty / st;
	bool by_tight = mb - ma >= log(FL_REGIME_SEP) && *tight >= bar;
	*by_gap = empty >= log(FL_REGIME_GAP) && *gap >= FL_REGIME_GAP_T;
	return by_tight || *by_gap;
}

struct fl_regime_split fl_regimes_detect(const double *x, int n)
{
	struct fl_regime_split s = { .two = false, .cut = NAN, .med_a = NAN, .med_b = NAN };
	double *y = fl_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *y);
	int m = 0;
	for (int i = 0; i < n; i++)
		if (x[i] > 0 && isfinite(x[i]))
			y[m++] = log(x[i]);
	qsort(y, (size_t)m, sizeof *y, cmp_d);
	int least = (int)ceil(FL_REGIME_MIN_SHARE * m - 1e-9);
	if (least < FL_REGIME_MIN_ROUNDS)
		least = FL_REGIME_MIN_ROUNDS;
	double bar = FL_REGIME_D + FL_REGIME_D_N / (m > 0 ? m : 1), best = -1;
	bool best_by_gap = false;
	for (int k = least; k <= m - least; k++) {
		double tight, gap;
		bool by_gap;
		if (!cut_passes(y, m, k, bar, &tight, &gap, &by_gap))
			continue;
		if (best_by_gap ? !by_gap || gap <= best : !by_gap && tight <= best)
			continue;
		best_by_gap = by_gap;
		best = by_gap ? gap : tight;
		s = (struct fl_regime_split){ .two = true, .cut = exp((y[k - 1] + y[k]) / 2),
					      .na = k, .nb = m - k,
					      .med_a = exp(sorted_median(y, k)),
					      .med_b = exp(sorted_median(y + k, m - k)),
					      .score = tight, .gap = gap };
	}
	free(y);
	return s;
}

struct fl_regime_split fl_point_regimes(const struct fl_cell *ref)
{
	if (!fl_cell_usable(ref))
		return (struct fl_regime_split){ .two = false, .cut = NAN };
	return fl_regimes_detect(ref->ns_r, ref->nr);
}

bool fl_point_has_regimes(const struct fl_cell *ref)
{
	return fl_point_regimes(ref).two;
}

/* The state (0: A, 1: B) of ref's rep j. */
static int state_of(const struct fl_cell *ref, int j, const struct fl_regime_split *s)
{
	return ref->ns_r[j] <= s->cut ? 0 : 1;
}

struct fl_regime_ratio fl_regime_ratio(const struct fl_cell *y, const struct fl_cell *ref,
				       const struct fl_regime_split *s, int state, double floor)
{
	struct fl_regime_ratio out = { .n = 0, .v = FL_UNDECIDED };
	if (!fl_cell_usable(y) || !fl_cell_usable(ref) || !s->two)
		return out;
	double *r = fl_xmalloc((size_t)y->nr * sizeof *r);
	for (int i = 0; i < y->nr; i++)
		for (int j = 0; j < ref->nr; j++)
			if (y->round[i] == ref->round[j]) { /* paired as table.c pairs */
				if (y->ns_r[i] > 0 && ref->ns_r[j] > 0 && state_of(ref, j, s) == state)
					r[out.n++] = y->ns_r[i] / ref->ns_r[j];
				break;
			}
	if (out.n) {
		out.q = fl_ratio_summarize(r, out.n);
		if (floor > out.q.resolution)
			out.q.resolution = floor;
		out.v = fl_ratio_verdict(&out.q, floor);
	}
	free(r);
	return out;
}

/* The control's resolution within a state: the floor of every other row's
 * verdict there, as ratios.c's control_floor is over all rounds. */
static double state_floor(const struct fl_cells *c, const struct fl_cell *ref,
			  const char *control, const struct fl_regime_split *s, int state)
{
	struct fl_regime_ratio q = fl_regime_ratio(fl_cell_find(c, ref->point, control), ref, s,
						   state, 0);
	return q.n && q.q.level >= 0.95 ? q.q.resolution : 0;
}

/* The baseline's median within a state of its shown value (ns/op, or the
 * program's figure: table.h) or (csw) of context switches per op; NAN when
 * none. */
static double state_median(const struct fl_cell *ref, const struct fl_regime_split *s, int state,
			   bool csw)
{
	double *v = fl_xmalloc((size_t)ref->nr * sizeof *v);
	int n = 0;
	for (int j = 0; j < ref->nr; j++) {
		double x = csw ? ref->csw_r[j] : fl_value_shown(ref->value, ref->ns_r[j]);
		if (ref->ns_r[j] > 0 && state_of(ref, j, s) == state && !isnan(x))
			v[n++] = x;
	}
	double m = n ? fl_median(v, n) : NAN;
	free(v);
	return m;
}

/* One state of one entry: "A 9/16 0.812 [0.790, 0.840] faster"; pad: to
 * the width of the longest, for the state after it. */
static void state_text(FILE *f, const char *label, const struct fl_regime_ratio *q, int total,
		       bool pad)
{
	char ci[40] = "-", v[48] = "", r[8] = "-";
	if (q->n) {
		snprintf(r, sizeof r, "%.3f", q->q.median);
		snprintf(ci, sizeof ci, "[%.3f, %.3f]", q->q.lo, q->q.hi);
		if (q->v == FL_UNDECIDED)
			snprintf(v, sizeof v, "? (%d rounds: too few)", q->n);
		else
			snprintf(v, sizeof v, "%s", fl_verdict_name(q->v));
	}
	fprintf(f, "  %s %2d/%-2d %6s %-16s %-*s", label, q->n, total, r, ci, pad ? 23 : 0, v);
}

/* One entry's line; the control is judged by its own intervals (floor 0). */
static void entry_line(FILE *f, const struct fl_cell *y, const struct fl_cell *ref,
		       const char *control, const struct fl_regime_split *s, const double floor[2])
{
	bool is_control = !strcmp(y->variant, control);
	struct fl_regime_ratio q[2];
	for (int k = 0; k < 2; k++)
		q[k] = fl_regime_ratio(y, ref, s, k, is_control ? 0 : floor[k]);
	fprintf(f, "  %-20s", y->variant);
	state_text(f, "A", &q[0], q[0].n + q[1].n, true);
	state_text(f, "B", &q[1], q[0].n + q[1].n, false);
	fputc('\n', f);
}

static void state_desc(FILE *f, const char *label, const struct fl_cell *ref,
		       const struct fl_regime_split *s, int state, int rounds)
{
	char ns[40], csw[24] = "-";
	double v = state_median(ref, s, state, false);
	if (ref->value == FL_VALUE_NS)
		fl_dur_text(ns, sizeof ns, v);
	else /* the program's figure (table.h) */
		snprintf(ns, sizeof ns, "metric %.6g", v);
	double w = state_median(ref, s, state, true);
	if (!isnan(w))
		snprintf(csw, sizeof csw, "%.2f", w);
	fprintf(f, "%s %d of %d rounds (%s%s, %s csw/op)", label, state ? s->nb : s->na, rounds,
		ns, ref->value == FL_VALUE_NS ? "/op" : "", csw);
}

bool fl_print_regimes(FILE *f, const struct fl_cells *c, const struct fl_cell **row, int nrow,
		      const struct fl_cell *ref, const char *baseline)
{
	struct fl_regime_split s = fl_point_regimes(ref);
	if (!s.two)
		return false;
	int rounds = s.na + s.nb;
	fprintf(f, "  regimes: %s runs in 2 states: ", baseline);
	state_desc(f, "A", ref, &s, 0, rounds);
	fprintf(f, ", ");
	state_desc(f, "B", ref, &s, 1, rounds);
	fprintf(f, "\n  %-20s  per state: its paired rounds there, its ratio to %s there, "
		   "interval, verdict\n", "", baseline);
	char control[80];
	snprintf(control, sizeof control, "%s#2", baseline);
	double floor[2] = { state_floor(c, ref, control, &s, 0),
			    state_floor(c, ref, control, &s, 1) };
	for (int j = 0; j < nrow; j++)
		if (row[j] != ref && fl_cell_usable(row[j]))
			entry_line(f, row[j], ref, control, &s, floor);
	return true;
}
