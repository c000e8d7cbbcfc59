/* report/gate.h — `compare A B --fail-on slower|faster|any`: the CI gate.
 *
 * Every pair before/after compares (changes.h, fl_print_changes) comes
 * through the gate's sink; a pair whose verdict is one the gate fails on is
 * kept as one line, naming the point, the entry and both intervals. At the
 * end the lines are printed after the table, then the count: "fail-on
 * slower: N of M pairs slower beyond the noise: FAIL (exit 1)" or "pass".
 * The verdict is the before/after one (harness/verdicts.md, "Across
 * runs"): a status change, a CPU-only note or a pair in one file only does
 * not trip it. Nor does a change smaller than the threshold (judge.h's
 * argument), an entry outside --only, or a ratio that moved while the
 * entry's own time did not move the same way beyond its intervals: that is
 * the baseline moving (a regime of glibc's own), not the entry; such pairs
 * are named on lines of their own ("not counted: ... the baseline moved").
 * Two single runs cannot know the between-run spread: the gate that can is
 * `compare --db DB --against NEW.csv` or `--pool ... --against` (judge.h). */
#ifndef FUTEXLAB_GATE_H
#define FUTEXLAB_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/changes.h"

enum { FL_GATE_SLOWER = 1, FL_GATE_FASTER = 2 };

/* The gate's rule, what --fail-on, --threshold and --only say: defined
 * once, held by the gate between two runs (struct fl_gate) and by the gate
 * across runs (judge.h's struct fl_judge_opts) alike. */
struct fl_gate_rule {
	unsigned fail_on;  /* FL_GATE_* bits; 0: no gate */
	const char *name;  /* --fail-on's value: slower, faster, any */
	double threshold;  /* least change that fails, a fraction */
	const char *only;  /* entries that may fail (fl_only_match); NULL: every entry */
};

struct fl_gate {
	struct fl_gate_rule rule;
	FILE *lines;       /* the failing pairs' lines */
	char *buf;
	size_t len;
	int failed, compared, excused;
};

/* Whether `label` is one of `only`: "designs" (futexlab designs and their
 * policy forms), "libraries" (the shipped libraries), or a comma list of
 * names (NAME also matches NAME@POLICY). NULL: every entry. */
bool fl_only_match(const char *only, const char *label);
/* --only's value checked (usage error, exit 2, for an empty one). */
void fl_only_check(const char *only);

/* --fail-on's value into r->fail_on and r->name (usage error, exit 2, for
 * another). */
void fl_gate_parse(struct fl_gate_rule *r, const char *value);
/* The sink to hand fl_print_changes (call only when g->rule.fail_on). */
struct fl_change_sink fl_gate_sink(struct fl_gate *g);
/* Prints the failing pairs' lines and the count line on f; returns the
 * exit status: 1 when some pair failed, 0 else; a usage error (exit 2)
 * when no pair was compared (a gate that compared nothing does not pass). */
int fl_gate_end(struct fl_gate *g, FILE *f);

#endif
