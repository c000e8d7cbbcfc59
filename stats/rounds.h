/* stats/rounds.h — buying rounds where the noise is: which points of a run
 * get another round, from their controls alone (the argument: stats.h,
 * "Buying rounds where the noise is"). Pure functions: the runner calls
 * them between rounds and owns the time budget.
 *
 * After its first rounds every point has a control resolution: the
 * half-width in ln r of the 95% interval of the control's paired ratio
 * (B#2 over B, per round; stats.h, "the log scale"), the floor every
 * verdict of the point stands on (model/rule.c). fl_rounds_pick names the points still above
 * the target, worst first; the runner gives each one more round (all its
 * entries, in a random order, as any round), recomputes, and stops when
 * none is named or its time is spent. No design's ratio is looked at. */
#ifndef FUTEXLAB_ROUNDS_H
#define FUTEXLAB_ROUNDS_H

/* The control's resolution at a point: base[i] and ctl[i] are the
 * baseline's and the control's ns per op in the point's round i (i <
 * n); a round where either is not > 0 (NAN: missing, failed) is left out,
 * as model/rule.c pairs them. INFINITY ("unknown") when the pairs are fewer
 * than a 95% interval needs (6). */
double fl_control_resolution(const double *base, const double *ctl, int n);

/* The points that get another round: res[p] is point p's control
 * resolution (INFINITY or NAN: unknown), rounds[p] its rounds so far;
 * target is the resolution wanted (in ln r: log1p(0.05) for x/÷1.05,
 * what --target-res 5 asks), cap the most
 * rounds a point may have. A point at or under target, or at cap, gets
 * none. pick[0..return) holds the others' indices, worst resolution first
 * (unknown first; ties: fewer rounds, then the lower index). pick holds
 * room for np entries. */
int fl_rounds_pick(const double *res, const int *rounds, int np, double target, int cap,
		   int *pick);

#endif
