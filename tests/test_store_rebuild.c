/* tests/test_store_rebuild.c — a run from the store reads exactly as its
 * file does (store/store.h): a CSV added to a fresh store, selected back,
 * and its metadata, header and every row compared cell by cell with
 * fl_table_load of the file; adding it again is "already stored" with the
 * same id; the run's fields and machine are the file's; a selection that
 * matches nothing is empty. Usage: test_store_rebuild FILE.csv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "store/store.h"

static int fails;
#define CHECK(c, ...)                                                                  \
	do {                                                                           \
		if (!(c)) {                                                            \
			fails++;                                                       \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                    \
			printf(__VA_ARGS__);                                           \
			putchar('\n');                                                 \
		}                                                                      \
	} while (0)

static void same_table(const struct fl_table *a, const struct fl_table *b)
{
	CHECK(a->nmeta == b->nmeta, "nmeta %d vs %d", a->nmeta, b->nmeta);
	for (int i = 0; i < a->nmeta && i < b->nmeta; i++)
		CHECK(!strcmp(a->meta[i][0], b->meta[i][0]) && !strcmp(a->meta[i][1], b->meta[i][1]),
		      "meta %d: %s: %s vs %s: %s", i, a->meta[i][0], a->meta[i][1], b->meta[i][0],
		      b->meta[i][1]);
	CHECK(a->ncol == b->ncol, "ncol %d vs %d", a->ncol, b->ncol);
	for (int j = 0; j < a->ncol && j < b->ncol; j++)
		CHECK(!strcmp(a->cols[j], b->cols[j]), "column %d", j);
	CHECK(a->nrows == b->nrows, "nrows %d vs %d", a->nrows, b->nrows);
	int bad = 0;
	for (int i = 0; i < a->nrows && i < b->nrows; i++)
		for (int j = 0; j < a->ncol && j < b->ncol; j++)
			bad += strcmp(a->rows[i][j], b->rows[i][j]) != 0;
	CHECK(bad == 0, "%d cells differ", bad);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_store_rebuild FILE.csv\n");
		return 2;
	}
	char db[] = "/tmp/futexlab-store-rebuild.XXXXXX", err[512];
	int fd = mkstemp(db);
	close(fd); /* an empty file: a new database to SQLite */
	struct fl_store *s;
	struct fl_table file;
	long id = 0, id2 = 0;
	CHECK(fl_table_load(&file, argv[1], err, sizeof err) == 0, "load: %s", err);
	CHECK(fl_store_open(&s, db, true, err, sizeof err) == 0, "open: %s", err);
	CHECK(fl_store_add(s, argv[1], &id, err, sizeof err) == 0, "add: %s", err);
	CHECK(fl_store_add(s, argv[1], &id2, err, sizeof err) == 1 && id2 == id,
	      "add again: not already stored as run %ld (%ld)", id, id2);
	struct fl_store_run *r;
	int n;
	struct fl_store_sel all = { 0 }, none = { .rev = "no-such-revision" };
	CHECK(fl_store_select(s, &all, &r, &n, err, sizeof err) == 0 && n == 1, "select: %s", err);
	if (n == 1) {
		same_table(&file, &r[0].run.t);
		struct fl_machine_id m;
		fl_machine_of(&file, &m);
		CHECK(!strcmp(r[0].fingerprint, m.fingerprint) && !strcmp(r[0].machine, m.name),
		      "machine");
		CHECK(!strcmp(r[0].run.revision, fl_table_meta(&file, "revision")) &&
		      !strcmp(r[0].run.date, fl_table_meta(&file, "date")) &&
		      !strcmp(r[0].run.seed, fl_table_meta(&file, "seed")) &&
		      !strcmp(r[0].run.command, fl_table_meta(&file, "command")) && r[0].run.as == NULL,
		      "the run's fields");
	}
	fl_store_runs_free(r, n);
	CHECK(fl_store_select(s, &none, &r, &n, err, sizeof err) == 0 && n == 0, "empty selection");
	fl_store_runs_free(r, n);
	fl_store_close(s);
	fl_table_free(&file);
	unlink(db);
	printf("store-rebuild: %s\n", fails ? "FAILED" : "ok");
	return fails != 0;
}
