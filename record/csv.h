/* record/csv.h — results that are never lost.
 *
 * The file is rewritten whole, never appended to: rows go to PATH.tmp.PID,
 * which is flushed and renamed over PATH, so at any instant PATH holds every
 * row written so far and never a torn one. Metadata leads the file as '#' comment lines (harness/csv.md),
 * then the header line, then one row per rep; when the run ends (its
 * fl_csv_close), one last line, "# end: N rows, fnv1a64 HEX" (", interrupted"
 * after a Ctrl-C), says the run finished and how many rows it wrote, so a
 * reader tells a finished file from one killed or cut at a row boundary
 * (the `# format: 2` line at the top promises it: model/table.h). */
#ifndef FUTEXLAB_CSV_H
#define FUTEXLAB_CSV_H

#include <stdbool.h>
#include <stddef.h>

struct fl_csv {
	char *path;
	char *meta;          /* '#' lines, each ending in '\n' */
	char *header;        /* without '\n' */
	char **lines;
	int n, cap;
	char *end;           /* the end line (fl_csv_end; NULL: the run goes on) */
};

/* Metadata is built from the machine and argv. Returns 0 or an errno.
 * path NULL keeps the rows in memory only. */
int fl_csv_open(struct fl_csv *c, const char *path, const char *header,
		int argc, char **argv);
/* Adds one "# KEY: VALUE" metadata line and rewrites the file. */
int fl_csv_meta(struct fl_csv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends one row (no newline) and rewrites the file. */
int fl_csv_add(struct fl_csv *c, const char *row);
/* Appends one row in memory only; fl_csv_flush writes (the runner flushes
 * once per round and before it exits, Ctrl-C included: a rewrite and an
 * fsync per rep cost seconds per sweep and disturbed the next rep). */
int fl_csv_append(struct fl_csv *c, const char *row);
/* Rewrites the file with every row so far (no-op without a path): to a
 * temporary file, fsync'ed while fl_csv_durable (the default), renamed
 * over the path. Only a process whose CSVs are scratch, read back at once
 * by its parent (`futexlab ab-worker`: 16 fsyncs a run, 13 ms each time),
 * turns fsync off; the rename still keeps every rewrite whole. */
extern bool fl_csv_durable;
int fl_csv_flush(struct fl_csv *c);
/* Ends the file: its end line (above), ", interrupted" when fl_interrupted
 * (proc/interrupt.h) is set, and the file rewritten; 0 or an errno. Once. */
int fl_csv_end(struct fl_csv *c);
/* fl_csv_end when not ended yet (an error there is said on stderr), then
 * the memory freed. */
void fl_csv_close(struct fl_csv *c);

/* s as one quoted CSV cell into out (n >= 3): '"' doubled, a newline as
 * a space, cut to fit (the quotes always closed). */
void fl_csv_quote(char *out, size_t n, const char *s);

/* The latency side file (harness/csv.md): beside CSV x.csv, x.lat.csv
 * (else CSV.lat.csv), with this header. */
extern const char fl_lat_csv_header[];
void fl_lat_path(const char *csv_path, char *out, size_t n);
/* The full tables' file beside it (report/summary.h writes it): X.csv ->
 * X.txt (any other name: NAME.txt); out. */
const char *fl_detail_path(const char *csv_path, char *out, size_t n);

#endif
