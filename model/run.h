/* model/run.h — one loaded run, the one shape every reading command holds
 * a run in (a file's or the store's): where it came from, its table and
 * cells, its identity and its machine, each defined here once; and the
 * checks a comparison of runs starts with.
 *
 * A run's identity is its revision, date, seed and command lines (`# as:`
 * beside them marks a test run: a performance mutant run under a design's
 * name, marked in every view and never passed off as a measurement). Its
 * machine is a fingerprint of its metadata lines and a name for people
 * (fl_machine_of). The store keys runs and machines by the same two. */
#ifndef FUTEXLAB_RUN_H
#define FUTEXLAB_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/table.h"

/* A machine's identity: a 16-hex-digit FNV-1a hash of its CSV metadata
 * lines cpu, cores, numa, kernel, hypervisor, host, libc and libraries
 * (the ones a file has; older files lack the last three), and a name
 * for people: the host, else "CPU/Nc/kernel release". */
struct fl_machine_id {
	char fingerprint[17];
	char name[160];
	char label[172];  /* how every output shows the machine: "name [fingerprint8]"
			   * (names need not be unique: fl_machine_label) */
};
void fl_machine_of(const struct fl_table *t, struct fl_machine_id *m);
/* A machine as shown: "name [the fingerprint's first 8 hex digits]". */
void fl_machine_label(const char *name, const char *fingerprint, char *out, size_t n);
/* The metadata keys the fingerprint is made of, NULL-terminated. */
extern const char *const fl_machine_keys[];
/* Whether two runs ran on one machine: every key of fl_machine_keys that
 * both files have agrees (a file from before the host, libc and libraries
 * lines is not another machine for lacking them); else the first key that
 * differs in *key. */
bool fl_machine_same(const struct fl_table *a, const struct fl_table *b, const char **key);

/* A run's settings, what a history must share with the new run: from its
 * `# command:` line, the command (run, sweep, ...) and its --preset, --rounds and --duration as
 * the `# command:` line gives them ("sweep --preset quick"). Quick and
 * standard runs, or runs of other rounds or rep durations, measure with
 * other resolutions and other states of the machine: one history of both
 * predicts neither (each series' spread is the mix's). */
void fl_run_settings(const char *command, char *buf, int len);

struct fl_loaded_run {
	char *path;            /* the CSV as given, or "store:ID" */
	long store_id;         /* 0: not from a store */
	struct fl_table t;     /* its metadata lines, header and rows */
	struct fl_cells c;     /* its cells, once fl_loaded_cells built them */
	bool has_cells;
	bool borrowed;         /* t and c are a caller's (fl_loaded_wrap): left at free */
	const char *revision, *date, *seed, *command; /* "?" when the file lacks one */
	const char *as;        /* the `# as:` line (a test run), NULL: a real run */
	char settings[160];    /* what a history must share with it (fl_run_settings) */
	struct fl_machine_id machine;
};

/* A file loaded by the readers' rules (fl_table_load): 0, or -1 with one
 * line in err. */
int fl_loaded_file(struct fl_loaded_run *r, const char *path, char *err, int errlen);
/* A table loaded elsewhere (the store's, rebuilt from its lines), taken
 * over; named path ("store:ID"), store_id its id (0: none). */
void fl_loaded_take(struct fl_loaded_run *r, struct fl_table *t, const char *path,
		    long store_id);
/* A run whose table and cells the caller keeps (what run, sweep and exec
 * end with): read, not taken over; they must outlive r. */
void fl_loaded_wrap(struct fl_loaded_run *r, const struct fl_table *t, const struct fl_cells *c,
		    const char *path);
/* Its cells, built once: 0, or -1 with one line in err. */
int fl_loaded_cells(struct fl_loaded_run *r, char *err, int errlen);
/* What every view of one run needs, checked once: its cells built, rows in
 * it, and baseline among its entries (baseline NULL: not checked, for a
 * view that needs none: compare --tsv, --absolute). 0, or -1 with one line
 * in err ("no rows (a run that measured nothing) in PATH", "baseline 'B' is
 * not in PATH (see --baseline)", or the cells' own), the caller prefixing
 * its command. */
int fl_loaded_check(struct fl_loaded_run *r, const char *baseline, char *err, int errlen);
void fl_loaded_free(struct fl_loaded_run *r);
/* Each of runs[0..n), then the array. */
void fl_loaded_free_all(struct fl_loaded_run *runs, int n);
/* Whether two loaded runs are one run: their identity lines agree; a file
 * without a date and a seed (crafted, or older than them) has no identity,
 * and is the same run as another only when it is the same file. */
bool fl_same_run(const struct fl_loaded_run *a, const struct fl_loaded_run *b);

/* The runs of one comparison, checked before anything is said of them:
 * with `once`, the same run twice (a copy or the same file named twice
 * would count its runs' evidence twice) and runs of different machines
 * (unless `across`: then only same-run ratios may be compared) are usage
 * errors naming `what` ("compare --pool"); runs of more than one revision
 * get a line on `note` (NULL: none) saying which, since a change of the
 * code is not a rerun. */
struct fl_runs_check {
	const char *what;
	bool across, once;
	FILE *note;
};
void fl_runs_check(const struct fl_loaded_run *runs, int n, const struct fl_runs_check *o);

#endif
