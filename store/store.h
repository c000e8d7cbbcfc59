/* store/store.h — the results store: every run CSV added to one SQLite
 * database, so that runs can be selected across machines, revisions and
 * dates (the gate and history commands build on it). The CSVs stay the
 * record: a run in the store keeps its metadata lines, its header and every
 * row as written, and is rebuilt from them through the report's own reader
 * (fl_table_from_lines), so what the store gives back is what fl_table_load
 * gives of the file. The schema and its versions: store/README.md. */
#ifndef FUTEXLAB_STORE_H
#define FUTEXLAB_STORE_H

#include <stdbool.h>
#include <string.h>
#include <stddef.h>
#include <stdio.h>

#include "model/run.h"
#include "model/table.h"

/* The schema version this code writes (PRAGMA user_version). */
#define FL_STORE_VERSION 3

struct fl_store; /* an open database */

/* Opens path (an SQLite URI, "file:...?mode=ro", is taken as one). create:
 * make it if missing (add); else it must exist (reads). An older schema is
 * migrated, one transaction a step; a newer one, a file that is not an
 * SQLite database or another program's database is refused. 0, or -1 with
 * one line in err and *s NULL. */
int fl_store_open(struct fl_store **s, const char *path, bool create, char *err, int errlen);
void fl_store_close(struct fl_store *s);

/* Adds one CSV file as one run, in ONE transaction: returns 0 added, 1
 * already stored (same identity: revision, date, seed, command, and the
 * same bytes; *run_id set), -1 error with one line in err and NOTHING of
 * that file stored (a truncated, corrupt or foreign file; a locked or
 * read-only database; the identity of a stored run with other bytes). */
int fl_store_add(struct fl_store *s, const char *csv_path, long *run_id, char *err, int errlen);
/* Whether fl_store_add would take the file, the database aside (every rule
 * of the file's: a command checks its first file before it makes a
 * store, so a refused file leaves no database behind). 0, or -1 with err. */
int fl_store_check_csv(const char *csv_path, char *err, int errlen);

/* A metadata value as the store keeps it: "" where the file has none (the
 * readers' "?", model/table.h): a file from before the seed line is stored
 * with an empty seed, a machine's absent keys as empty columns, and a run's
 * identity is matched on what is stored. */
static inline const char *fl_store_kept(const char *v)
{
	return strcmp(v, "?") ? v : "";
}

/* A stored run's identity as its row has it, before anything of it is read
 * back: what a selection's filter is shown ("" where the file had no such
 * line; as NULL: a real run). */
struct fl_store_row {
	long id;
	const char *revision, *date, *seed, *command, *as;
};

struct fl_store_sel {
	const char *machine; /* name, "name [fingerprint8]", or a fingerprint prefix */
	const char *rev;     /* revision prefix */
	const char *since;   /* ISO date */
	int last;            /* the last N runs (0: all) */
	bool ab;             /* the A/B runs too (the listing; no history has them) */
	/* Optional: shown every selected run's row, newest first, before its
	 * rows are read back; only the runs it keeps are rebuilt and count
	 * toward `last` (it is still shown the rest, so it may count what it
	 * leaves out). NULL: every run. */
	bool (*keep)(void *arg, const struct fl_store_row *row);
	void *arg;
};

struct fl_store_run {
	long id;
	char *machine;       /* its machine's row: the name and fingerprint stored */
	char *fingerprint;
	char *path;          /* the CSV's path when it was added */
	char *ab;            /* an A/B run's mark (its `# ab:` line), NULL none */
	struct fl_loaded_run run; /* the run rebuilt (model/run.h), named "store:ID":
			      * metadata lines, header, rows as fl_table_load would
			      * give, its identity and machine as a file's */
};

/* The selected runs in date order (oldest first), A/B runs left out unless
 * sel->ab, and those sel->keep leaves out. Each read back whole and checked against what was stored (its
 * row count and checksum): a damaged run is an error naming it, never a
 * shorter run. 0, or -1 with one line in err. */
int fl_store_select(struct fl_store *s, const struct fl_store_sel *sel,
		    struct fl_store_run **runs, int *n, char *err, int errlen);
void fl_store_runs_free(struct fl_store_run *runs, int n);
/* The machines of the store whose name is name, into m (up to max, in the
 * order they were first stored; runs: their runs, A/B ones aside); how
 * many there are, or -1 with err. */
struct fl_store_machine {
	char fingerprint[17];
	int runs;
};
int fl_store_machines_named(struct fl_store *s, const char *name, struct fl_store_machine *m,
			    int max, char *err, int errlen);

/* Removes runs by id, in ONE transaction: all of them, or (an id not in
 * the store, an error) none; a machine left without runs goes too. 0, or
 * -1 with err. */
int fl_store_rm(struct fl_store *s, const long *ids, int n, char *err, int errlen);
/* Re-reads the store: SQLite's integrity check, then every run (A/B ones
 * included) read back as fl_store_select reads it and checked by the
 * readers' rules; a line on out per run that fails ("run N: why") and per
 * problem the integrity check finds. The count of failures (0: all
 * good), or -1 with err when the store cannot be read at all. */
int fl_store_check(struct fl_store *s, FILE *out, char *err, int errlen);


#endif
