/* store/add.c — one CSV file into the store as one run, in one
 * transaction (store.h). The file is read once, into memory: the report's
 * reader checks those bytes (a truncated, corrupt or foreign file is
 * refused before the database is touched), and the same bytes give the
 * lines stored, so what is stored is what was checked. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "fail/xalloc.h"
#include "schema/fnv.h"
#include "store/db.h"

/* One CSV file: its bytes, the table read from them, and its lines. */
struct csv_file {
	const char *path;
	char *buf;       /* the bytes, NUL-terminated; cut into lines by split_lines */
	size_t len;
	char hash[17];   /* FNV-1a 64 of the bytes */
	struct fl_loaded_run run; /* the table read from them, its identity and machine */
	char *meta;      /* the '#' lines before the header, joined by '\n' */
	char *header;
	char **rows;     /* the rows' lines, as written (into buf) */
	int nrows;
};

static int read_all(struct csv_file *f, char *err, int errlen)
{
	FILE *in = fopen(f->path, "r");
	if (!in) {
		snprintf(err, (size_t)errlen, "cannot read %s: %s", f->path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16;
	f->buf = fl_xmalloc(cap);
	size_t got;
	while ((got = fread(f->buf + f->len, 1, cap - f->len - 1, in)) > 0)
		if ((f->len += got) == cap - 1)
			f->buf = fl_xrealloc(f->buf, cap *= 2);
	int bad = ferror(in);
	fclose(in);
	f->buf[f->len] = '\0';
	if (bad)
		snprintf(err, (size_t)errlen, "cannot read %s: read error", f->path);
	return bad ? -1 : 0;
}

/* The table from the bytes, through the report's reader (model/table.h). */
static int read_table(struct csv_file *f, char *err, int errlen)
{
	static const char magic[] = "# futexlab ";
	if (f->len < sizeof magic - 1 || memcmp(f->buf, magic, sizeof magic - 1)) {
		snprintf(err, (size_t)errlen, "%s: not a futexlab CSV (it does not begin '%s')",
			 f->path, magic);
		return -1;
	}
	FILE *m = fl_xcheck(fmemopen(f->buf, f->len, "r")); /* fails only out of memory */
	struct fl_table t;
	int r = fl_table_read(&t, m, err, errlen);
	fclose(m);
	fl_loaded_take(&f->run, &t, f->path, 0); /* a failed read too: csv_close frees it */
	if (r) {
		size_t l = strlen(err);
		snprintf(err + l, (size_t)errlen - l, " in %s", f->path);
	}
	return r;
}

/* The lines as the reader takes them (model/table.h, fl_line_kind): the
 * metadata joined, the header, the rows as written. */
static void split_lines(struct csv_file *f)
{
	size_t mlen = 0;
	f->meta = fl_xcalloc(1, f->len + 1);
	f->rows = fl_xmalloc((size_t)(f->run.t.nrows + 1) * sizeof *f->rows);
	for (char *l = f->buf, *nl; l < f->buf + f->len; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl)
			nl = f->buf + f->len; /* the reader refused a last line without one */
		*nl = '\0';
		if (nl > l && nl[-1] == '\r')
			nl[-1] = '\0';
		switch (fl_line_kind(l, f->header != NULL)) {
		case FL_LINE_META:
			mlen += (size_t)sprintf(f->meta + mlen, "%s%s", mlen ? "\n" : "", l);
			break;
		case FL_LINE_HEADER:
			f->header = l;
			break;
		case FL_LINE_ROW:
			if (f->nrows <= f->run.t.nrows)
				f->rows[f->nrows++] = l;
			break;
		case FL_LINE_OTHER:
			break;
		}
	}
}

/* What the store needs of a run beyond the readers' rules
 * (fl_table_check_run): its identity (the revision, date and command lines
 * every writer has written; the seed is part of it when the file has one:
 * files from before the seed line have none), and, in a file that
 * promises an end line (`# format: 2`), that line, not an interrupted
 * one: the store keeps finished runs. */
static int store_rules(const struct csv_file *f, char *err, int errlen)
{
	char note[300];
	if (fl_table_check_run(&f->run.t, err, errlen)) {
		size_t l = strlen(err);
		snprintf(err + l, (size_t)errlen - l, " in %s", f->path);
		return -1;
	}
	static const char *const id[] = { "date", "command" };
	for (int i = 0; i < 2; i++)
		if (!*fl_store_kept(fl_table_meta(&f->run.t, id[i]))) {
			snprintf(err, (size_t)errlen, "%s: no '# %s:' line (a run's identity: its "
				 "revision, date, seed and command lines)", f->path, id[i]);
			return -1;
		}
	if (fl_table_end_note(&f->run.t, note, sizeof note)) {
		snprintf(err, (size_t)errlen, "%s: %s", f->path,
			 f->run.t.end == FL_END_MISSING ? "no end line: the run did not finish (killed, "
			 "still running, or the file cut at a row)" : "an interrupted run (its end "
			 "line says so): the store keeps finished runs");
		return -1;
	}
	return 0;
}

/* An A/B run's mark: its `# ab:` line, or its side column's (two builds
 * in one run: not a run of its machine's history); "" for any other. */
static const char *ab_mark(const struct fl_table *t)
{
	const char *ab = fl_store_kept(fl_table_meta(t, "ab"));
	if (*ab)
		return ab;
	return fl_table_col(t, "side") >= 0 ? "(a side column)" : "";
}

static int csv_open(struct csv_file *f, const char *path, char *err, int errlen)
{
	memset(f, 0, sizeof *f);
	f->path = path;
	if (read_all(f, err, errlen) || read_table(f, err, errlen) || store_rules(f, err, errlen))
		return -1;
	snprintf(f->hash, sizeof f->hash, "%016llx",
		 (unsigned long long)fl_fnv1a(FL_FNV_BASIS, f->buf, f->len));
	split_lines(f);
	if (!f->header || f->nrows != f->run.t.nrows) {
		snprintf(err, (size_t)errlen, "%s: %d row lines but %d rows read", path, f->nrows,
			 f->run.t.nrows);
		return -1;
	}
	return 0;
}

static void csv_close(struct csv_file *f)
{
	fl_loaded_free(&f->run);
	free(f->buf), free(f->meta), free(f->rows);
}

/* The stored run of f's identity: 1 (the same bytes: *id), 0 none, -1 one
 * with other bytes or an error. */
static int find_run(struct fl_store *s, const struct csv_file *f, long *id, char *err,
		    int errlen)
{
	sqlite3_stmt *st;
	const char *k[] = { fl_store_kept(f->run.revision), fl_store_kept(f->run.date), fl_store_kept(f->run.seed),
			    fl_store_kept(f->run.command) };
	int rc = sqlite3_prepare_v2(s->db, "SELECT id, csv_hash FROM runs WHERE revision = ?1 "
				    "AND date = ?2 AND seed = ?3 AND command = ?4", -1, &st, NULL);
	for (int i = 0; rc == SQLITE_OK && i < 4; i++)
		sqlite3_bind_text(st, i + 1, k[i], -1, SQLITE_STATIC);
	int r = 0;
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*id = (long)sqlite3_column_int64(st, 0);
		r = strcmp((const char *)sqlite3_column_text(st, 1), f->hash) ? -1 : 1;
		if (r < 0)
			snprintf(err, (size_t)errlen, "%s: run %ld of the store has its revision, "
				 "date, seed and command but other contents", f->path, *id);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fl_store_fail(s, rc, "finding the run", err, errlen);
	return r;
}

static int insert_run(struct fl_store *s, const struct csv_file *f, long machine, long *id,
		      char *err, int errlen)
{
	sqlite3_stmt *st;
	char *abs = realpath(f->path, NULL);
	int rc = sqlite3_prepare_v2(s->db, "INSERT INTO runs (machine, revision, date, seed, "
		"command, path, csv_hash, header, meta, as_, nrows, rows_sum, end_line, ab) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)", -1, &st,
		NULL);
	if (rc == SQLITE_OK) {
		char sum[17];
		snprintf(sum, sizeof sum, "%016llx", (unsigned long long)f->run.t.rows_sum);
		sqlite3_bind_int(st, 11, f->run.t.nrows);
		sqlite3_bind_text(st, 12, sum, -1, SQLITE_TRANSIENT);
		if (f->run.t.end_line)
			sqlite3_bind_text(st, 13, f->run.t.end_line, -1, SQLITE_STATIC);
		if (*ab_mark(&f->run.t))
			sqlite3_bind_text(st, 14, ab_mark(&f->run.t), -1, SQLITE_STATIC);
		const char *v[] = { fl_store_kept(f->run.revision), fl_store_kept(f->run.date), fl_store_kept(f->run.seed),
				    fl_store_kept(f->run.command),
				    abs ? abs : f->path, f->hash, f->header, f->meta };
		sqlite3_bind_int64(st, 1, machine);
		for (int i = 0; i < 8; i++)
			sqlite3_bind_text(st, i + 2, v[i], -1, SQLITE_STATIC);
		if (f->run.as)
			sqlite3_bind_text(st, 10, f->run.as, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	free(abs);
	if (rc != SQLITE_DONE)
		return fl_store_fail(s, rc, "adding the run", err, errlen);
	*id = (long)sqlite3_last_insert_rowid(s->db);
	return 0;
}

/* The rows table's columns taken from the file's cells, by name (the ones
 * after `line` and cpu_ns_per_op); a file without one stores NULL. */
static const char *const row_cols[] = { "workload", "threads", "tokens", "wake", "hash",
					 "variant", "round", "status", "ns_per_op" };
#define NROWCOLS ((int)(sizeof row_cols / sizeof row_cols[0]))

/* CPU ns per op as table.h has it: (cpu_user_ns + cpu_sys_ns) / ops, NAN
 * when a cell is missing or not a number. */
static double cpu_per_op(char **row, const int *ic)
{
	double v[3];
	for (int k = 0; k < 3; k++) {
		char *end;
		v[k] = ic[k] >= 0 ? strtod(row[ic[k]], &end) : NAN;
		if (ic[k] < 0 || end == row[ic[k]] || !isfinite(v[k]) || v[k] < 0)
			return NAN;
	}
	return v[2] > 0 ? (v[0] + v[1]) / v[2] : NAN;
}

static int bind_row(sqlite3_stmt *st, const struct csv_file *f, long run, int r, const int *ic)
{
	char **row = f->run.t.rows[r];
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, r);
	for (int j = 0; j < NROWCOLS; j++) {
		int c = ic[j];
		if (c < 0 || !row[c][0])
			sqlite3_bind_null(st, j + 3);
		else /* the column's affinity makes a number of a number's text */
			sqlite3_bind_text(st, j + 3, row[c], -1, SQLITE_STATIC);
	}
	double cpu = cpu_per_op(row, ic + NROWCOLS);
	if (isnan(cpu))
		sqlite3_bind_null(st, NROWCOLS + 3);
	else
		sqlite3_bind_double(st, NROWCOLS + 3, cpu);
	sqlite3_bind_text(st, NROWCOLS + 4, f->rows[r], -1, SQLITE_STATIC);
	return sqlite3_step(st);
}

static int insert_rows(struct fl_store *s, const struct csv_file *f, long run, char *err,
		       int errlen)
{
	int ic[NROWCOLS + 3];
	for (int j = 0; j < NROWCOLS; j++)
		ic[j] = fl_table_col(&f->run.t, row_cols[j]);
	if (ic[6] < 0)
		ic[6] = fl_table_col(&f->run.t, "rep"); /* older files' round (table.h) */
	ic[NROWCOLS] = fl_table_col(&f->run.t, "cpu_user_ns");
	ic[NROWCOLS + 1] = fl_table_col(&f->run.t, "cpu_sys_ns");
	ic[NROWCOLS + 2] = fl_table_col(&f->run.t, "ops");
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "INSERT INTO rows (run, ord, workload, threads, "
		"tokens, wake, hash, variant, round, status, ns_per_op, cpu_ns_per_op, line) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)", -1, &st, NULL);
	for (int r = 0; rc == SQLITE_OK && r < f->run.t.nrows; r++) {
		rc = bind_row(st, f, run, r, ic);
		rc = rc == SQLITE_DONE ? sqlite3_reset(st) : rc;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : fl_store_fail(s, rc, "adding the rows", err, errlen);
}

/* The run in one transaction: all of it, or (an error, or already stored)
 * nothing. */
static int add_tx(struct fl_store *s, const struct csv_file *f, long *id, char *err, int errlen)
{
	if (fl_store_exec(s, "BEGIN IMMEDIATE", "starting the transaction", err, errlen))
		return -1;
	int r = find_run(s, f, id, err, errlen);
	long machine = 0;
	if (r == 0 && (machine = fl_store_machine_id(s, &f->run, err, errlen)) < 0)
		r = -1;
	if (r == 0)
		r = insert_run(s, f, machine, id, err, errlen);
	if (r == 0)
		r = insert_rows(s, f, *id, err, errlen);
	if (r == 0)
		r = fl_store_exec(s, "COMMIT", "committing", err, errlen);
	if (r != 0 && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

int fl_store_check_csv(const char *csv_path, char *err, int errlen)
{
	struct csv_file f;
	int r = csv_open(&f, csv_path, err, errlen);
	csv_close(&f);
	return r;
}

int fl_store_add(struct fl_store *s, const char *csv_path, long *run_id, char *err, int errlen)
{
	struct csv_file f;
	long id = 0;
	int r = csv_open(&f, csv_path, err, errlen);
	if (r == 0)
		r = add_tx(s, &f, &id, err, errlen);
	csv_close(&f);
	if (r >= 0 && run_id)
		*run_id = id;
	return r;
}
