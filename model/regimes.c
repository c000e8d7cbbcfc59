/* model/regimes.c — two states of a point's baseline (regimes.h). */
#include "model/regimes.h"
#include "model/evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fail/xalloc.h"
#include "model/stats_text.h"
#include "model/catalog.h"

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
 * verdict there, as rule.c's control_floor is over all rounds. */
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
	fl_control_name(control, sizeof control, baseline);
	double floor[2] = { state_floor(c, ref, control, &s, 0),
			    state_floor(c, ref, control, &s, 1) };
	for (int j = 0; j < nrow; j++)
		if (row[j] != ref && fl_cell_usable(row[j]))
			entry_line(f, row[j], ref, control, &s, floor);
	return true;
}
