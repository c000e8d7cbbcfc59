/* harness/csv.h — results that are never lost.
 *
 * The file is rewritten whole after every row: rows go to PATH.tmp.PID,
 * which is flushed and renamed over PATH, so at any instant PATH holds every
 * finished row and never a torn one (a Ctrl-C or a crash keeps what was
 * done). Metadata leads the file as '#' comment lines (see README). */
#ifndef FUTEXLAB_CSV_H
#define FUTEXLAB_CSV_H

struct fl_csv {
	char *path;
	char *meta;
	char **lines;
	int n, cap;
};

/* Metadata is built from the machine and argv. Returns 0 or an errno.
 * path NULL keeps the rows in memory only (c->meta, c->lines). */
int fl_csv_open(struct fl_csv *c, const char *path, const char *header,
		int argc, char **argv);
/* Appends one row (no newline) and rewrites the file. */
int fl_csv_add(struct fl_csv *c, const char *row);
void fl_csv_close(struct fl_csv *c);

/* The machine description used in the metadata and the table caption. */
void fl_machine(char *kernel, int klen, char *cpu, int clen, int *cores);

#endif
