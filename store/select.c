/* store/select.c — runs back out of the store (store.h): the selection in
 * SQL, each run rebuilt from its stored lines through the model's reader,
 * so that a run from the store reads exactly as its file does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail/xalloc.h"
#include "store/db.h"

/* A run's columns, as take_run reads them. */
#define RUN_COLS                                                                             \
	"SELECT runs.id, machines.name, machines.fingerprint, runs.revision, runs.date, "    \
	"runs.seed, runs.command, runs.path, runs.as_, runs.meta, runs.header, runs.ab, "    \
	"runs.nrows, runs.rows_sum, runs.end_line "                                          \
	"FROM runs JOIN machines ON machines.id = runs.machine "

/* The newest `last` runs matching the selection (newest first: the caller
 * turns them around); a NULL parameter selects everything. A machine is
 * named by its name, its label ("name [fingerprint8]") or a prefix of its
 * fingerprint. */
static const char select_sql[] =
	RUN_COLS
	"WHERE (?1 IS NULL OR machines.name = ?1 "
	"       OR machines.name || ' [' || substr(machines.fingerprint, 1, 8) || ']' = ?1 "
	"       OR substr(machines.fingerprint, 1, length(?1)) = ?1) "
	"  AND (?2 IS NULL OR substr(runs.revision, 1, length(?2)) = ?2) "
	"  AND (?3 IS NULL OR runs.date >= ?3) "
	"  AND (?5 OR runs.ab IS NULL) "
	"ORDER BY runs.date DESC, runs.id DESC LIMIT ?4";

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *v = sqlite3_column_text(st, i);
	return v ? fl_xstrdup((const char *)v) : NULL;
}

/* Whether the rows read back are the rows stored: their count and
 * checksum against what the add recorded (runs added before those were
 * recorded: their count, taken when the store was upgraded). A damaged
 * database gives fewer rows, or other bytes, never silently. */
static int intact(struct fl_store *s, sqlite3_stmt *st, const struct fl_loaded_run *r, int n,
		  char *err, int errlen)
{
	const char *sum = (const char *)sqlite3_column_text(st, 13);
	char got[17];
	snprintf(got, sizeof got, "%016llx", (unsigned long long)r->t.rows_sum);
	if (sqlite3_column_type(st, 12) != SQLITE_NULL && sqlite3_column_int(st, 12) != n)
		snprintf(err, (size_t)errlen, "DB: %s: run %ld is damaged: %d of its %d rows read "
			 "back (futexlab store check; store rm %ld)", s->path, r->store_id, n,
			 sqlite3_column_int(st, 12), r->store_id);
	else if (sum && strcmp(sum, got))
		snprintf(err, (size_t)errlen, "DB: %s: run %ld is damaged: its rows read back are "
			 "not the rows stored (checksum %s, stored %s; futexlab store check; store "
			 "rm %ld)", s->path, r->store_id, got, sum, r->store_id);
	else
		return 0;
	return -1;
}

/* The run's rows as written, in file order, through fl_table_from_lines;
 * its end line as stored. */
static int rebuild(struct fl_store *s, sqlite3_stmt *run, struct fl_store_run *r, char *err,
		   int errlen)
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
	const char *meta = (const char *)sqlite3_column_text(run, 9),
		   *header = (const char *)sqlite3_column_text(run, 10),
		   *end = (const char *)sqlite3_column_text(run, 14);
	struct fl_table t = { 0 };
	struct fl_csv_lines ls = { meta ? meta : "", header ? header : "", lines, n };
	if (ret == 0 && fl_table_from_lines(&t, &ls, err, errlen)) {
		size_t l = strlen(err);
		snprintf(err + l, (size_t)errlen - l, " (run %ld of %s)", r->id, s->path);
		ret = -1;
	}
	char name[64];
	snprintf(name, sizeof name, "store:%ld", r->id);
	fl_loaded_take(&r->run, &t, name, r->id); /* on failure too: freed with r */
	if (ret == 0)
		ret = intact(s, run, &r->run, n, err, errlen);
	if (ret == 0 && fl_table_check_run(&r->run.t, err, errlen)) { /* stored before the rules */
		size_t l = strlen(err);
		snprintf(err + l, (size_t)errlen - l, " (run %ld of %s: futexlab store rm %ld)",
			 r->id, s->path, r->id);
		ret = -1;
	}
	if (ret == 0 && end) {
		r->run.t.end_line = fl_xstrdup(end);
		r->run.t.end_rows = n;
		r->run.t.end = strstr(end, "interrupted") ? FL_END_INTERRUPTED : FL_END_DONE;
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
	r->path = dup_col(st, 7), r->ab = dup_col(st, 11);
	return rebuild(s, st, r, err, errlen);
}

static void bind_sel(sqlite3_stmt *st, const struct fl_store_sel *sel)
{
	const char *v[] = { sel->machine, sel->rev, sel->since };
	for (int i = 0; i < 3; i++)
		if (v[i])
			sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_STATIC);
	/* -1: no limit; with a filter, the last N it keeps (fl_store_select) */
	sqlite3_bind_int(st, 4, sel->last > 0 && !sel->keep ? sel->last : -1);
	sqlite3_bind_int(st, 5, sel->ab);
}

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *v = sqlite3_column_text(st, i);
	return v ? (const char *)v : "";
}

/* Whether the filter keeps the run of this row, and it is still among the
 * last N (got kept before it, newest first): only then is it read back. */
static bool kept(sqlite3_stmt *st, const struct fl_store_sel *sel, int got)
{
	const unsigned char *as = sqlite3_column_text(st, 8);
	struct fl_store_row row = { (long)sqlite3_column_int64(st, 0), col(st, 3), col(st, 4),
				    col(st, 5), col(st, 6), as ? (const char *)as : NULL };
	return sel->keep(sel->arg, &row) && (sel->last <= 0 || got < sel->last);
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
		if (sel->keep && !kept(st, sel, got)) {
			rc = SQLITE_OK;
			continue;
		}
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

static void run_free(struct fl_store_run *r)
{
	free(r->machine), free(r->fingerprint), free(r->path), free(r->ab);
	fl_loaded_free(&r->run);
}

void fl_store_runs_free(struct fl_store_run *runs, int n)
{
	for (int i = 0; i < n; i++)
		run_free(&runs[i]);
	free(runs);
}

int fl_store_machines_named(struct fl_store *s, const char *name, struct fl_store_machine *m,
			    int max, char *err, int errlen)
{
	sqlite3_stmt *st;
	int n = 0;
	int rc = sqlite3_prepare_v2(s->db, "SELECT machines.fingerprint, (SELECT count(*) FROM runs "
		"WHERE runs.machine = machines.id AND runs.ab IS NULL) FROM machines WHERE name = ?1 "
		"ORDER BY machines.id", -1, &st, NULL);
	if (rc == SQLITE_OK)
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n < max) {
			snprintf(m[n].fingerprint, sizeof m[n].fingerprint, "%s",
				 (const char *)sqlite3_column_text(st, 0));
			m[n].runs = sqlite3_column_int(st, 1);
		}
		n++;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? n : fl_store_fail(s, rc, "reading the machines", err, errlen);
}

int fl_store_check(struct fl_store *s, FILE *out, char *err, int errlen)
{
	sqlite3_stmt *st;
	int bad = 0;
	int rc = sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *m = (const char *)sqlite3_column_text(st, 0);
		if (m && strcmp(m, "ok"))
			fprintf(out, "database: %s\n", m), bad++;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) { /* SQLITE_CORRUPT and the like: said, then the runs */
		fprintf(out, "database: %s\n", sqlite3_errmsg(s->db));
		bad++;
	}
	rc = sqlite3_prepare_v2(s->db, RUN_COLS "ORDER BY runs.id", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fl_store_fail(s, rc, "listing the runs", err, errlen);
	int nrun = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct fl_store_run r;
		char why[512];
		nrun++;
		if (take_run(s, st, &r, why, sizeof why) || fl_table_check_run(&r.run.t, why, sizeof why)) {
			fprintf(out, "run %ld: %s\n", r.id, why);
			bad++;
		}
		run_free(&r);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fprintf(out, "database: listing the runs: %s\n", sqlite3_errmsg(s->db));
		bad++;
	}
	fprintf(out, "%d run%s read back, %d problem%s\n", nrun, nrun == 1 ? "" : "s", bad,
		bad == 1 ? "" : "s");
	return bad;
}

int fl_store_rm(struct fl_store *s, const long *ids, int n, char *err, int errlen)
{
	if (fl_store_exec(s, "BEGIN IMMEDIATE", "starting the transaction", err, errlen))
		return -1;
	sqlite3_stmt *find = NULL, *del_rows = NULL, *del_run = NULL;
	int rc = sqlite3_prepare_v2(s->db, "SELECT 1 FROM runs WHERE id = ?1", -1, &find, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(s->db, "DELETE FROM rows WHERE run = ?1", -1, &del_rows, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(s->db, "DELETE FROM runs WHERE id = ?1", -1, &del_run, NULL);
	int r = rc == SQLITE_OK ? 0 : fl_store_fail(s, rc, "removing runs", err, errlen);
	for (int i = 0; r == 0 && i < n; i++) {
		sqlite3_bind_int64(find, 1, ids[i]);
		rc = sqlite3_step(find);
		sqlite3_reset(find);
		if (rc == SQLITE_DONE) {
			snprintf(err, (size_t)errlen, "DB: %s: no run %ld (futexlab store ls)", s->path,
				 ids[i]);
			r = -1;
			break;
		}
		if (rc != SQLITE_ROW) {
			r = fl_store_fail(s, rc, "finding the run", err, errlen);
			break;
		}
		sqlite3_bind_int64(del_rows, 1, ids[i]);
		sqlite3_bind_int64(del_run, 1, ids[i]);
		if ((rc = sqlite3_step(del_rows)) != SQLITE_DONE ||
		    (rc = sqlite3_step(del_run)) != SQLITE_DONE)
			r = fl_store_fail(s, rc, "removing the run", err, errlen);
		sqlite3_reset(del_rows);
		sqlite3_reset(del_run);
	}
	sqlite3_finalize(find), sqlite3_finalize(del_rows), sqlite3_finalize(del_run);
	if (r == 0)
		r = fl_store_exec(s, "DELETE FROM machines WHERE id NOT IN (SELECT machine FROM "
				  "runs); COMMIT", "removing runs", err, errlen);
	if (r != 0 && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}
