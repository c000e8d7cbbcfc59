/* schema/point_key.c — see point_key.h. */
#include "schema/point_key.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "schema/columns.h"

/* An older file's column (before --policy): the spin budget, 0 = park. */
#define OLD_SPIN "spin"

static bool is(const char *a, const char *b)
{
	return !strcmp(a, b);
}

char *fl_point_key_add(char *out, size_t n, const char *col, const char *v)
{
	/* "0" means "does not apply" for these (the CSV's schema) */
	if (is(v, "0") && (is(col, FL_COL(tokens)) || is(col, FL_COL(hold_ns)) ||
			   is(col, FL_COL(think_ns))))
		return out;
	/* one semaphore: the default, and what files without the column ran */
	if (is(col, FL_COL(sems)) && (is(v, "1") || !v[0]))
		return out;
	/* an older file's spin 0 is park, what files since run by default */
	if (is(col, OLD_SPIN) && (is(v, "0") || !v[0]))
		return out;
	/* hash=auto:N records what the kernel chose at that row (it sizes the
	 * private hash when the process first starts threads): still one mode,
	 * "auto", for grouping */
	if (is(col, FL_COL(hash)) && !strncmp(v, "auto:", 5))
		v = "auto";
	const char *label = is(col, FL_COL(threads)) ? "T"
		: is(col, FL_COL(tokens)) ? "K"
		: is(col, FL_COL(hold_ns)) ? "hold"
		: is(col, FL_COL(think_ns)) ? "think"
		: col;
	size_t j = strlen(out);
	if (j + 1 < n)
		snprintf(out + j, n - j, " %s=%s", label, v);
	return out;
}

const char *fl_point_key(char *out, size_t n, const struct fl_point_cfg *p)
{
	char v[32];
	snprintf(out, n, "%s", p->workload);
	snprintf(v, sizeof v, "%d", p->threads);
	fl_point_key_add(out, n, FL_COL(threads), v);
	snprintf(v, sizeof v, "%d", p->tokens);
	fl_point_key_add(out, n, FL_COL(tokens), v);
	snprintf(v, sizeof v, "%lld", p->hold_ns);
	fl_point_key_add(out, n, FL_COL(hold_ns), v);
	snprintf(v, sizeof v, "%lld", p->think_ns);
	fl_point_key_add(out, n, FL_COL(think_ns), v);
	fl_point_key_add(out, n, FL_COL(wake), p->wake);
	if (p->hash)
		fl_point_key_add(out, n, FL_COL(hash), p->hash);
	snprintf(v, sizeof v, "%d", p->sems);
	return fl_point_key_add(out, n, FL_COL(sems), v);
}
