/* harness/csv.h — results that are never lost.
 *
 * The file is rewritten whole after every row: rows go to PATH.tmp.PID,
 * which is flushed and renamed over PATH, so at any instant PATH holds every
 * finished row and never a torn one (a Ctrl-C or a crash keeps what was
 * done). Metadata leads the file as '#' comment lines (harness/README.md),
 * then the header line, then one row per rep. */
#ifndef FUTEXLAB_CSV_H
#define FUTEXLAB_CSV_H

struct fl_csv {
	char *path;
	char *meta;          /* '#' lines, each ending in '\n' */
	char *header;        /* without '\n' */
	char **lines;
	int n, cap;
};

/* Metadata is built from the machine and argv. Returns 0 or an errno.
 * path NULL keeps the rows in memory only. */
int fl_csv_open(struct fl_csv *c, const char *path, const char *header,
		int argc, char **argv);
/* Adds one "# KEY: VALUE" metadata line and rewrites the file. */
int fl_csv_meta(struct fl_csv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends one row (no newline) and rewrites the file. */
int fl_csv_add(struct fl_csv *c, const char *row);
void fl_csv_close(struct fl_csv *c);

#endif
