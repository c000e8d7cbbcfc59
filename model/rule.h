/* model/rule.h — the table's rule: a row judged against the baseline and
 * the control's band, a verdict's words, the rows' order; what every table,
 * the summary, the page and the pool say of a row (the before/after of two
 * runs: report/changes.h).
 *
 * Every verdict is a paired one (stats.h): a variant against the baseline
 * measured in the same rounds of the same run. */
#ifndef FUTEXLAB_RULE_H
#define FUTEXLAB_RULE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/table.h"

/* What a row says against the baseline by the table's rule: the time
 * ratio and its verdict (the interval against 1 and the control's band,
 * which the resolution then includes), and where both rows have CPU
 * figures the CPU ratio and its own verdict (FL_SLOWER: more CPU), which
 * fl_cpu_note turns into the verdict's note. The results model keeps it
 * per cell (model.h). */
struct fl_judged {
	struct fl_ratio q, cq;
	enum fl_verdict v, cv;
	bool cpu; /* cq, cv hold */
};
/* Row y against ref (both usable, y != ref); false: no pairs. */
bool fl_cell_judge(const struct fl_cells *c, const struct fl_cell *y, const struct fl_cell *ref,
		   const char *baseline, struct fl_judged *j);
/* The control's band at a point: its time ratio's resolution (the floor
 * a verdict stands on; 0 without a usable control). */
double fl_control_band(const struct fl_cells *c, const char *point, const char *baseline);
/* The verdict as every table prints it: its word, then ", 2.0x CPU" when
 * fl_cpu_note says time and CPU part ways ("~" the word a noted ~ takes). */
const char *fl_judged_text(char *b, size_t n, const struct fl_judged *j);

/* The same words for any verdict: word ("faster", "FASTER", "~ within
 * the noise"), then ", 2.0x CPU" when fl_cpu_note (stats.h, the one rule)
 * says j's time and CPU part ways (j->v, j->cpu, j->cv and the CPU factor
 * j->cq.median); short_word is the word a noted ~ takes instead of a long
 * one. */
const char *fl_judged_words(char *b, size_t n, const char *word, const char *short_word,
			    const struct fl_judged *j);

/* The table's row order of two entry labels (< 0: a first): the
 * registry's (variants/meson.build), the control after its baseline, a
 * design's policy forms beside it, then the floors and anything else. */
int fl_entry_order(const char *a, const char *b, const char *baseline);
/* For the pool (pool.h), the ratio table's own rules: the rows of the point
 * whose first cell is c->c[i] in the table's order (NULL when an earlier
 * cell has that point; free the array), and a row's verdict as the table
 * gives it (FL_UNDECIDED: no pairs, a point in two regimes), its ratio in
 * q when not NULL. */
const struct fl_cell **fl_point_rows(const struct fl_cells *c, int i, const char *baseline,
				     int *nrow);
enum fl_verdict fl_cell_verdict(const struct fl_cells *c, const struct fl_cell *y,
				const struct fl_cell *ref, struct fl_ratio *q, const char *baseline);
/* A point's rows across runs, the pool's input: the rows ent[0..nent)
 * (found by variant) at `point` in each of the runs cells[0..nrun). */
struct fl_pool_grid {
	int nrun;
	const struct fl_cells *const *cells;
	const char *point;
	const struct fl_cell *const *ent;
	int nent;
};
/* Their paired ratios (of the value, or with cpu of CPU ns per op) to the
 * row ref: r[j * nent + e], n == 0 where either is missing or unusable in
 * run j or the two share no round. Against the baseline (pool.c) or a
 * library (pool_libs.c). */
void fl_pool_ratios(const struct fl_pool_grid *g, const char *ref, bool cpu, struct fl_ratio *r);

#endif
