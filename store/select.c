/* store/select.c — runs back out of the store (store.h): the selection in
 * SQL, each run rebuilt from its stored lines through the report's reader,
 * so that a run from the store reads exactly as its file does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/xalloc.h"
#include "store/db.h"

/* The newest `last` runs matching the selection (newest first: the caller
 * turns them around); a NULL parameter selects everything. */
static const char select_sql[] =
	"SELECT runs.id, machines.name, machines.fingerprint, runs.revision, runs.date, "
	"runs.seed, runs.command, runs.path, runs.as_, runs.meta, runs.header "
	"FROM runs JOIN machines ON machines.id = runs.machine "
	"WHERE (?1 IS NULL OR machines.name = ?1 "
	"       OR substr(machines.fingerprint, 1, length(?1)) = ?1) "
	"  AND (?2 IS NULL OR substr(runs.revision, 1, length(?2)) = ?2) "
	"  AND (?3 IS NULL OR runs.date >= ?3) "
	"ORDER BY runs.date DESC, runs.id DESC LIMIT ?4";

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *v = sqlite3_column_text(st, i);
	return v ? fl_xstrdup((const char *)v) : NULL;
}

/* The run's rows as written, in file order, through fl_table_from_lines. */
static int rebuild(struct fl_store *s, struct fl_store_run *r, const char *meta,
		   const char *header, char *err, int errlen)
{
	sqlite3_stmt *st;
	int n = 0, cap = 64, rc;
	char **lines = fl_xmalloc((size_t)cap * sizeof *lines);
	rc = sqlite3_prepare_v2(s->db, "SELECT line FROM rows WHERE run = ?1 ORDER BY ord", -1,
				&st, NULL);
	if (rc == SQLITE_OK)
		sqlite3_bind_int64(st, 1, r->id);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap)
			lines = fl_xrealloc(lines, (size_t)(cap *= 2) * sizeof *lines);
		lines[n++] = dup_col(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	int ret = rc == SQLITE_DONE ? 0 : fl_store_fail(s, rc, "reading the rows", err, errlen);
	if (ret == 0 && fl_table_from_lines(&r->t, meta, header, lines, n, err, errlen)) {
		size_t l = strlen(err);
		snprintf(err + l, (size_t)errlen - l, " (run %ld of %s)", r->id, s->path);
		ret = -1;
	}
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return ret;
}

static int take_run(struct fl_store *s, sqlite3_stmt *st, struct fl_store_run *r, char *err,
		    int errlen)
{
	memset(r, 0, sizeof *r);
	r->id = (long)sqlite3_column_int64(st, 0);
	r->machine = dup_col(st, 1), r->fingerprint = dup_col(st, 2);
	r->revision = dup_col(st, 3), r->date = dup_col(st, 4), r->seed = dup_col(st, 5);
	r->command = dup_col(st, 6), r->path = dup_col(st, 7), r->as = dup_col(st, 8);
	return rebuild(s, r, (const char *)sqlite3_column_text(st, 9),
		       (const char *)sqlite3_column_text(st, 10), err, errlen);
}

static void bind_sel(sqlite3_stmt *st, const struct fl_store_sel *sel)
{
	const char *v[] = { sel->machine, sel->rev, sel->since };
	for (int i = 0; i < 3; i++)
		if (v[i])
			sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, sel->last > 0 ? sel->last : -1); /* -1: no limit */
}

int fl_store_select(struct fl_store *s, const struct fl_store_sel *sel,
		    struct fl_store_run **runs, int *n, char *err, int errlen)
{
	sqlite3_stmt *st;
	int cap = 16, got = 0, ret = 0;
	struct fl_store_run *out = fl_xmalloc((size_t)cap * sizeof *out);
	int rc = sqlite3_prepare_v2(s->db, select_sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		bind_sel(st, sel);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (got == cap)
			out = fl_xrealloc(out, (size_t)(cap *= 2) * sizeof *out);
		ret = take_run(s, st, &out[got++], err, errlen);
		rc = ret ? SQLITE_DONE : SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (!ret && rc != SQLITE_DONE)
		ret = fl_store_fail(s, rc, "selecting runs", err, errlen);
	if (ret) {
		fl_store_runs_free(out, got);
		*runs = NULL, *n = 0;
		return -1;
	}
	for (int i = 0; i < got / 2; i++) { /* newest first -> oldest first */
		struct fl_store_run x = out[i];
		out[i] = out[got - 1 - i], out[got - 1 - i] = x;
	}
	*runs = out, *n = got;
	return 0;
}

void fl_store_runs_free(struct fl_store_run *runs, int n)
{
	for (int i = 0; i < n; i++) {
		struct fl_store_run *r = &runs[i];
		free(r->machine), free(r->fingerprint), free(r->revision), free(r->date);
		free(r->seed), free(r->command), free(r->path), free(r->as);
		fl_table_free(&r->t);
	}
	free(runs);
}
