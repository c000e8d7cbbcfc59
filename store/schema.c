/* store/schema.c — the store's tables, versioned with PRAGMA user_version:
 * an ordered list of steps, step k taking a database from version k to
 * k + 1, each in its own transaction with the version it reaches, so that a
 * database is always at one version and an interrupted upgrade resumes at
 * the step it stopped before. A step is never edited once shipped (a
 * database made by it exists somewhere): a change is a new step. The
 * tables' meaning: store/README.md. */
#include <stdio.h>
#include <stdlib.h>

#include "store/db.h"

/* 0 -> 1: the first shape. */
static const char v1[] =
	"CREATE TABLE machines ("
	" id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, name TEXT NOT NULL,"
	" cpu TEXT NOT NULL, cores INTEGER, numa TEXT NOT NULL, kernel TEXT NOT NULL,"
	" libc TEXT NOT NULL, hypervisor TEXT NOT NULL);"
	"CREATE TABLE runs ("
	" id INTEGER PRIMARY KEY, machine INTEGER NOT NULL REFERENCES machines(id),"
	" revision TEXT NOT NULL, date TEXT NOT NULL, seed TEXT NOT NULL,"
	" command TEXT NOT NULL, path TEXT NOT NULL, csv_hash TEXT NOT NULL,"
	" header TEXT NOT NULL, meta TEXT NOT NULL,"
	" UNIQUE (revision, date, seed, command));"
	"CREATE TABLE rows ("
	" run INTEGER NOT NULL REFERENCES runs(id), ord INTEGER NOT NULL,"
	" workload TEXT, threads INTEGER, tokens INTEGER, wake TEXT, hash TEXT,"
	" variant TEXT, round INTEGER, status TEXT, ns_per_op REAL, cpu_ns_per_op REAL,"
	" line TEXT NOT NULL, UNIQUE (run, ord));"
	"CREATE INDEX rows_run ON rows(run);"
	"CREATE INDEX rows_variant ON rows(variant);"
	"CREATE INDEX runs_date ON runs(date);";

/* 1 -> 2: the machine's host, libc and libraries lines (their columns; a
 * v1 machine has none: empty), a run's "as" substitution (tests' mutant
 * runs; NULL normally), and two views. */
static const char v2[] =
	"ALTER TABLE machines ADD COLUMN libraries TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE machines ADD COLUMN host TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE runs ADD COLUMN as_ TEXT;"
	"CREATE VIEW run_list AS"
	" SELECT runs.id AS run, runs.date, runs.revision, machines.name AS machine,"
	"  machines.fingerprint, (SELECT count(*) FROM rows WHERE rows.run = runs.id) AS nrows,"
	"  runs.command, runs.path"
	" FROM runs JOIN machines ON machines.id = runs.machine;"
	"CREATE VIEW ok_rows AS"
	" SELECT rows.*, runs.date, runs.revision, machines.name AS machine"
	" FROM rows JOIN runs ON runs.id = rows.run JOIN machines ON machines.id = runs.machine"
	" WHERE rows.status = 'ok';";

/* 2 -> 3: what a run must read back as, and the runs kept apart. A run's
 * rows (nrows: its file's end line's count, or the rows its file had when
 * it was added without one; counted here for the runs already stored) and
 * their checksum (rows_sum: FNV-1a 64 of the rows' lines, each + '\n', as
 * the end line has it; NULL for the runs already stored), checked on every
 * read, so a damaged store is named and never read as a shorter run; the
 * file's end line as written (end_line; NULL: a file from before it). An
 * A/B run (ab: its `# ab:` line, or the side column's note) is two builds
 * in one run, not a run of its machine's history: no selection returns it
 * but the listing's. run_list gains both. */
static const char v3[] =
	"ALTER TABLE runs ADD COLUMN nrows INTEGER;"
	"ALTER TABLE runs ADD COLUMN rows_sum TEXT;"
	"ALTER TABLE runs ADD COLUMN end_line TEXT;"
	"ALTER TABLE runs ADD COLUMN ab TEXT;"
	"UPDATE runs SET nrows = (SELECT count(*) FROM rows WHERE rows.run = runs.id);"
	"DROP VIEW run_list;"
	"CREATE VIEW run_list AS"
	" SELECT runs.id AS run, runs.date, runs.revision, machines.name AS machine,"
	"  machines.fingerprint, (SELECT count(*) FROM rows WHERE rows.run = runs.id) AS nrows,"
	"  runs.command, runs.path, runs.nrows AS nrows_written, runs.ab"
	" FROM runs JOIN machines ON machines.id = runs.machine;";

static const char *const steps[] = { v1, v2, v3 };
_Static_assert(sizeof steps / sizeof steps[0] == FL_STORE_VERSION,
	       "one migration step per schema version");

static int user_version(struct fl_store *s, int *v, char *err, int errlen)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : fl_store_fail(s, rc, "reading its schema version", err, errlen);
}

/* Version 0 is a new, empty database, or another program's. */
static int foreign(struct fl_store *s, char *err, int errlen)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
	int n = 0;
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return fl_store_fail(s, rc, "reading its tables", err, errlen);
	if (n) {
		snprintf(err, (size_t)errlen, "DB: %s: not a futexlab store (tables, but no schema "
			 "version)", s->path);
		return -1;
	}
	return 0;
}

/* Step k in one transaction, ending at version k + 1; nothing when another
 * process took the database past k meanwhile (the caller reads it again). */
static int step(struct fl_store *s, int k, char *err, int errlen)
{
	int now = -1, r; /* set by user_version when it returns 0; -O3 cannot see it */
	if (fl_store_exec(s, "BEGIN IMMEDIATE", "upgrading its schema", err, errlen))
		return -1;
	/* version 0 read again inside the transaction: another process's
	 * creation committed between the first reading and this one is seen
	 * here as version 1, never as "tables but no version" */
	if ((r = user_version(s, &now, err, errlen)) || now != k ||
	    (k == 0 && (r = foreign(s, err, errlen)))) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return r;
	}
	char *sql = sqlite3_mprintf("%s PRAGMA user_version = %d; COMMIT;", steps[k], k + 1);
	if (!sql) {
		fputs("futexlab: out of memory\n", stderr);
		exit(1);
	}
	r = fl_store_exec(s, sql, "upgrading its schema", err, errlen);
	sqlite3_free(sql);
	if (r && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

int fl_store_migrate(struct fl_store *s, char *err, int errlen)
{
	for (;;) {
		int v = 0; /* the same */
		if (user_version(s, &v, err, errlen))
			return -1;
		if (v < 0) { /* no futexlab writes one: steps[v] would be read */
			snprintf(err, (size_t)errlen, "DB: %s: schema version %d is not one "
				 "futexlab writes (a damaged store, or another program's)", s->path, v);
			return -1;
		}
		if (v > FL_STORE_VERSION) {
			snprintf(err, (size_t)errlen, "DB: schema version %d is newer than this "
				 "futexlab's %d (%s)", v, FL_STORE_VERSION, s->path);
			return -1;
		}
		if (v == FL_STORE_VERSION)
			return 0;
		if (step(s, v, err, errlen))
			return -1;
	}
}
