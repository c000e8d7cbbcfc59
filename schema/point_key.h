/* schema/point_key.h — a point's one spelling: its key, as the tables,
 * the summary, the page, the store, the progress lines and the CSV's
 * `# point N (KEY)` lines all write it, e.g.
 *   "pool T=4 K=1 hold=200 think=500 wake=exact hash=auto sems=2".
 *
 * The key is the workload, then one token " NAME=VALUE" per configuration
 * column of the run CSV, in the columns' order (result_fields.h: threads,
 * tokens, hold_ns, think_ns, wake, then hash and sems). A value that says
 * "does not apply" has no token — tokens, hold and think 0 (a workload
 * that takes none), one semaphore, an older file's spin 0 (park) — so a
 * point reads the same in every file that ran it. The three names users
 * type are short (T, K, hold, think); `hash=auto:N` is keyed `hash=auto`:
 * the N is what the kernel chose at that row, not another mode.
 *
 * The reader builds a key from a row's cells (model/table.c: an older
 * file's extra configuration columns too), the runner from its point
 * (runner/progress.c): both through fl_point_key_add, so they cannot
 * drift apart. */
#ifndef FUTEXLAB_POINT_KEY_H
#define FUTEXLAB_POINT_KEY_H

#include <stddef.h>

/* Appends column col's token for the cell text v to the key in out (n
 * bytes, NUL-terminated; cut to fit), or nothing when v does not apply;
 * returns out. */
char *fl_point_key_add(char *out, size_t n, const char *col, const char *v);

/* A point's configuration as the run CSV's cells hold it. */
struct fl_point_cfg {
	const char *workload;
	int threads, tokens;       /* tokens 0: the workload takes none */
	long long hold_ns, think_ns;
	const char *wake;          /* lib/wake.h's name */
	const char *hash;          /* the hash column's text (NULL: no such column) */
	int sems;
};

/* The whole key of p into out; returns out. */
const char *fl_point_key(char *out, size_t n, const struct fl_point_cfg *p);

#endif
