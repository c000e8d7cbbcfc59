/* report/ab.h — an A/B run judged: two builds measured in one run, pair by
 * pair, family-wise (`futexlab ab`, harness/ab.md).
 *
 * THE RUN  An A/B CSV (harness/cmd_ab.c writes it) holds the rows of three
 * sides, its column `side`: `base` (the build judged against), `head` (the
 * build judged) and `control` (a second, separate build of the base: the
 * same code in another layout). Every round ran every (entry, point) once
 * on each side, the sides in a fresh random order, each rep in a fresh
 * process of its own build; its `round` column is the A/B run's round.
 *
 * A PAIR  is an entry at a point. Its samples are the rounds where both
 * base and head have an ok rep: d = ln(head / base). Its A/A is the same
 * for control against base. Both are judged by simultaneous intervals
 * over every gated pair (stats/maxt.h: sign flips of whole rounds, the
 * family-wise level alpha): the run's false-alarm rate is alpha, not
 * alpha per pair.
 *
 * THE VERDICT  with T the threshold (a factor, > 1) and the pair's band
 * b = |ln(A/A ratio)| (how far the same code built twice moved it):
 *   slower        its interval lies beyond the band (lo > e^b) and its
 *                 ratio >= T; faster the mirror image;
 *   same          its interval lies inside [1/T, T]: no change of T or more
 *                 fits what the run saw;
 *   inconclusive  neither: the interval is too wide to rule a change of T
 *                 in or out (its detectable change is above T), or its A/A
 *                 moved (the control's interval lies outside [1/T, T]: two
 *                 builds of one revision differ by more than the threshold
 *                 here, so no difference of head's can be read), or too few
 *                 rounds.
 * The smallest change a pair could have seen is e^(c se + b): a true
 * factor of that size puts its interval's near end on the band's edge.
 *
 * The run's answer, with fail_on slower (any: faster fails too): FAIL
 * when a gated pair is slower; else INCONCLUSIVE when a gated pair is
 * inconclusive or its A/A moved (never a pass); else PASS. */
#ifndef FUTEXLAB_AB_H
#define FUTEXLAB_AB_H

#include <stdbool.h>
#include <stdio.h>

#include "model/table.h"

enum fl_ab_verdict { FL_AB_SAME, FL_AB_FASTER, FL_AB_SLOWER, FL_AB_INCONCLUSIVE };
enum fl_ab_status { FL_AB_PASS = 0, FL_AB_FAIL = 1, FL_AB_UNDECIDED = 3 };

/* Which pairs are gated: every one, the futexlab designs, the shipped
 * libraries, or a list of names (an entry's label or its design's name). */
struct fl_ab_opts {
	double threshold;      /* T > 1 */
	double alpha;          /* family-wise false-alarm rate, (0, 0.5] */
	bool fail_on_any;      /* faster fails too */
	const char *only;      /* NULL or "all": every pair; "designs", "libraries", or NAMES */
	int min_rounds;        /* fewer paired rounds: inconclusive */
};

struct fl_ab_pair {
	const char *point, *entry;     /* the point's display key, the entry's label */
	bool gated;
	int n;                         /* paired rounds head/base */
	double ratio, lo, hi;          /* head/base: e^mean, its simultaneous interval */
	double base_ns, head_ns;       /* medians over those rounds, ns per op */
	int n_aa;
	double aa, aa_lo, aa_hi;       /* control/base, the same way */
	double band;                   /* e^|ln aa|: the A/A's move, as a factor (1: none) */
	double detectable;             /* the smallest change it could have seen (factor) */
	bool aa_moved;
	enum fl_ab_verdict verdict;
	const char *why;               /* a short reason when inconclusive, else "" */
};

struct fl_ab {
	struct fl_ab_opts o;
	struct fl_ab_pair *pair;
	int npair, ngated, nround;
	double c, c_aa;                /* the critical |t|'s (INFINITY: none) */
	int count[4];                  /* gated pairs per verdict */
	int aa_moved;                  /* gated pairs whose A/A moved */
	enum fl_ab_status status;
	struct fl_table side[3];       /* base, head, control: views of the caller's table */
	struct fl_cells cells[3];
};

/* The side names as the `side` column holds them. */
extern const char *const fl_ab_sides[3];

/* Judges the A/B table t (kept by the caller, read until fl_ab_free).
 * Returns 0, or -1 with one line in err: not an A/B run (no `side` column,
 * a side without rows), rows the reader refuses. */
int fl_ab_judge(struct fl_ab *ab, const struct fl_table *t, const struct fl_ab_opts *o,
		char *err, int errlen);
void fl_ab_free(struct fl_ab *ab);
/* The gated pairs still to decide (inconclusive, A/A moved), for more rounds. */
bool fl_ab_undecided(const struct fl_ab_pair *p);
const char *fl_ab_verdict_name(enum fl_ab_verdict v);

/* The judgement as text: every pair not `same` (detail: every pair), per
 * point the detectable range of its `same` pairs, the counts and the answer. */
void fl_ab_print(FILE *f, const struct fl_ab *ab, bool detail);
/* The judgement as JSON: {"status":..., "pairs":[{entry, point, ratio, lo, hi,
 * verdict, ...}], ...} (harness/json.md). */
void fl_ab_json(FILE *f, const struct fl_ab *ab, const struct fl_table *t);

#endif
