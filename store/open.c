/* store/open.c — opening and closing the store (store.h); its errors are
 * db.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fail/xalloc.h"
#include "store/db.h"

/* A plain path opened for reading must exist (SQLite would say only
 * "unable to open database file"); a URI is SQLite's to judge. */
static int must_exist(const char *path, char *err, int errlen)
{
	struct stat sb;
	if (!strncmp(path, "file:", 5) || stat(path, &sb) == 0)
		return 0;
	snprintf(err, (size_t)errlen, "DB: %s: %s (futexlab store add makes it)", path,
		 strerror(errno));
	return -1;
}

/* A path that cannot hold a store: SQLite would open a temporary or an
 * in-memory database for it and keep nothing ("" and ":memory:"), or fail
 * with "unable to open database file" (a directory). */
static int not_a_file(const char *path, char *err, int errlen)
{
	struct stat sb;
	if (!path[0])
		snprintf(err, (size_t)errlen, "DB: an empty path is not a store (SQLite would keep "
			 "it in a temporary file, deleted at once)");
	else if (!strcmp(path, ":memory:"))
		snprintf(err, (size_t)errlen, "DB: :memory: is not a store (it keeps nothing)");
	else if (strncmp(path, "file:", 5) && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		snprintf(err, (size_t)errlen, "DB: %s is a directory, not a store", path);
	else
		return 0;
	return -1;
}

/* The same of a URI, once SQLite opened it: its file ("" for a temporary or
 * an in-memory database). */
static int keeps_nothing(const struct fl_store *s, char *err, int errlen)
{
	const char *f = sqlite3_db_filename(s->db, "main");
	if (f && f[0])
		return 0;
	snprintf(err, (size_t)errlen, "DB: %s is an in-memory or temporary database, not a "
		 "store (it keeps nothing)", s->path);
	return -1;
}

int fl_store_open(struct fl_store **out, const char *path, bool create, char *err, int errlen)
{
	*out = NULL;
	if (not_a_file(path, err, errlen) || (!create && must_exist(path, err, errlen)))
		return -1;
	struct fl_store *s = fl_xcalloc(1, sizeof *s);
	s->path = fl_xstrdup(path);
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI | (create ? SQLITE_OPEN_CREATE : 0);
	int rc = sqlite3_open_v2(path, &s->db, flags, NULL);
	if (rc != SQLITE_OK) {
		fl_store_fail(s, rc, "opening", err, errlen);
		fl_store_close(s);
		return -1;
	}
	sqlite3_busy_timeout(s->db, FL_STORE_BUSY_MS);
	if (keeps_nothing(s, err, errlen) ||
	    fl_store_exec(s, "PRAGMA foreign_keys = ON", "opening", err, errlen) ||
	    fl_store_migrate(s, err, errlen)) {
		fl_store_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

void fl_store_close(struct fl_store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}
