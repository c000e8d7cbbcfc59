/* store/db.h — what the store's files share, and nothing outside store/
 * uses: the open database, its one-line errors, the migrations, the
 * machine's row. */
#ifndef FUTEXLAB_STORE_DB_H
#define FUTEXLAB_STORE_DB_H

#include <sqlite3.h>
#include <stdint.h>

#include "store/store.h"

/* How long a statement waits for another process's lock before it fails:
 * a store is written by one command at a time, so a lock held longer is a
 * stuck or concurrent writer, to be said at once rather than waited on. */
#define FL_STORE_BUSY_MS 300

struct fl_store {
	sqlite3 *db;
	char *path;
};

/* err = "DB: PATH: what: SQLite's message" (a lock: said as one); returns -1. */
int fl_store_fail(const struct fl_store *s, int rc, const char *what, char *err, int errlen);
/* Runs SQL text (one or more statements); 0, or -1 with err saying what
 * it was doing. */
int fl_store_exec(const struct fl_store *s, const char *sql, const char *what, char *err,
		  int errlen);
/* Brings the schema to FL_STORE_VERSION, each step one transaction
 * (schema.c); 0, or -1 with err. */
int fl_store_migrate(struct fl_store *s, char *err, int errlen);
/* The id of r's machine (model/run.h: its fingerprint and name), its row
 * inserted if new (machine.c), inside the caller's transaction; -1 with
 * err. */
long fl_store_machine_id(struct fl_store *s, const struct fl_loaded_run *r, char *err,
			 int errlen);
#endif
