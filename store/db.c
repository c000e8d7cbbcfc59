/* store/db.c — what the store's files share (db.h): its one-line errors
 * and a statement run for its effect. Every error names the database; a
 * lock held by another process is waited on FL_STORE_BUSY_MS, then said as
 * one. Below open.c and schema.c both, so that opening (which migrates)
 * and the migrations (which report) do not call each other. */
#include <stdio.h>

#include "store/db.h"

int fl_store_fail(const struct fl_store *s, int rc, const char *what, char *err, int errlen)
{
	int base = rc & 0xff;
	if (base == SQLITE_BUSY || base == SQLITE_LOCKED)
		snprintf(err, (size_t)errlen, "DB: %s is locked by another process (%s: gave up "
			 "after %d ms)", s->path, what, FL_STORE_BUSY_MS);
	else
		snprintf(err, (size_t)errlen, "DB: %s: %s: %s", s->path, what,
			 s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
	return -1;
}

int fl_store_exec(const struct fl_store *s, const char *sql, const char *what, char *err,
		  int errlen)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : fl_store_fail(s, rc, what, err, errlen);
}
