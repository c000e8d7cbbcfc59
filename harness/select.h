/* harness/select.h — which runs a command reads: files, a store's
 * selection, or a store's history of a new run's machine.
 *
 * compare, report and history take `--db PATH` with a selection
 * (--machine, --rev, --since, --last N), as one block of option rows
 * (FL_SELECT_OPTIONS) and one parser, so the five options mean the same
 * in every command. The runs are loaded into one array, the history first
 * and then the new side (`--against` files), which is what the model
 * (model/model.h) and the judgement (report/judge.h) take. */
#ifndef FUTEXLAB_SELECT_H
#define FUTEXLAB_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "runner/cli.h"
#include "model/run.h"

/* The default store, and how many earlier runs of a machine a new run is
 * judged against by default (the lookback: enough runs for the moderated
 * variance to know the series, few enough that the machine's state of
 * weeks ago does not widen today's prediction). */
#define FL_DEFAULT_DB "results/futexlab.db"
#define FL_DEFAULT_LOOKBACK 10

struct fl_select {
	const char *db;       /* --db (NULL: not given) */
	const char *machine, *rev, *since;
	int last;             /* 0: not given */
	const char *cmd;      /* who names a bad store in its one line (NULL: compare) */
	const char *until;    /* against a new run: history dated no later than this
			       * (a date prefix; compare --reference DATE), NULL: none */
};

#define FL_SELECT_OPTIONS                                                                    \
	{ "db", required_argument, 0x300, "PATH", "read the runs from a results store "     \
	  "(futexlab store; results/futexlab.db is where scripts/bench adds its runs)" },    \
	{ "machine", required_argument, 0x301, "M", "with --db: the runs of machine M (its " \
	  "name, or a prefix of its fingerprint: futexlab store ls)" },                      \
	{ "rev", required_argument, 0x302, "REV", "with --db: the runs of revisions "        \
	  "beginning REV" },                                                                 \
	{ "since", required_argument, 0x303, "DATE", "with --db: the runs of DATE (ISO "     \
	  "8601, e.g. 2026-12-01) or later" },                                               \
	{ "last", required_argument, 0x304, "N", "with --db: the last N runs selected "      \
	  "(against a new run: its machine's last N earlier runs, default 10)" }

/* Takes a selection option (true), or leaves another to the caller. */
bool fl_select_option(struct fl_select *s, int code, const char *arg);
/* Whether a selection (beyond --db) was given. */
bool fl_select_given(const struct fl_select *s);
/* The selection as its options, for a message ("--machine 'vm' --last 3"). */
void fl_select_describe(const struct fl_select *s, char *out, size_t n);
/* The one refusal of a selection that matches no run: "CMD: no run in DB
 * matches the selection (...)", exit 2. */
void fl_select_nothing(const char *cmd, const struct fl_select *s) __attribute__((noreturn));
struct fl_store;
struct fl_store_run;
/* Where runs of a name meet: when the store has more than one machine
 * named name (names need not be unique; fingerprints are), one note line
 * on stderr naming each as "name [fingerprint8]" with its runs. */
void fl_select_same_name(struct fl_store *st, const char *cmd, const char *name,
			 const struct fl_store_run *runs, int n);

/* Runs loaded (model/run.h): run[0..n), files and the store's alike. */
struct fl_runs {
	struct fl_loaded_run *run;
	int n;
	char machine[180];     /* the new side's machine, "name [fingerprint8]" (fl_runs_store) */
	/* against a new run (fl_runs_store): its settings (report/judge.h) and
	 * the stored runs of its machine left out of its history for being
	 * dated (or added) at or after it, or of other settings */
	char settings[160];
	int later, other_settings;
};

/* The files, then the `against` ones. Bad input: usage error, exit 2, the
 * line opening with cmd (the command's name). */
void fl_runs_files(struct fl_runs *r, const char *cmd, char *const *files, int n,
		   char *const *against, int nagainst);
/* The store's selection (s->db), then the `against` files; with against,
 * the selection is narrowed to the first new run's machine (unless
 * --machine names one, or across), excludes test runs (`# as:`) and any
 * stored copy of a new run, keeps only runs strictly earlier than the new
 * ones (dated before the first of them and, where one is stored, added
 * before it; dated no later than s->until) and of the first new run's
 * settings, and of those the last --last (default FL_DEFAULT_LOOKBACK).
 * Returns how many runs are history. */
int fl_runs_store(struct fl_runs *r, const struct fl_select *s, char *const *against,
		  int nagainst, bool across);
void fl_runs_free(struct fl_runs *r);

#endif
