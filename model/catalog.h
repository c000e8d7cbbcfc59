/* model/catalog.h — what the report knows of names beyond the rows.
 *
 * The report reads result rows only and includes no run-time module
 * (report/README.md). A few facts about names are not in a row: a design's
 * current name (a file from an older revision says "posix" for "glibc"),
 * its place in the registry (the tables' row order), whether it is a
 * shipped library (the libraries line), its one line (the HTML report), and
 * what one op of a workload is. The command line hands them over once, from
 * variants/ and workloads/ (harness/catalog.c: fl_catalog_install).
 *
 * Without a catalog (a unit test, a fuzz target) the report still works:
 * names stay as written, rows sort by name after the baseline, no entry is a
 * design or a library, an op is "op", a design has no line. */
#ifndef FUTEXLAB_CATALOG_H
#define FUTEXLAB_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

enum fl_kind {
	FL_KIND_OTHER,   /* a floor, the control (BASELINE#2), anything unknown */
	FL_KIND_DESIGN,  /* a futexlab design (or a performance mutant) */
	FL_KIND_LIBRARY, /* a shipped library's semaphore (its own policy) */
};

struct fl_catalog {
	const char *(*current)(const char *name);   /* former name -> current; else name */
	int (*rank)(const char *design);            /* registry place; -1: not a design */
	int ndesigns;                               /* rank's bound */
	enum fl_kind (*kind)(const char *design);
	const char *(*summary)(const char *design); /* one line; NULL: none */
	const char *(*op)(const char *workload);    /* what one op is; NULL: unknown */
};

/* The catalog the report functions below consult (NULL: none). */
void fl_catalog_use(const struct fl_catalog *c);

/* The control: the baseline run a second time in every round, as the
 * entry BASELINE#2 — the run's own A/A, whose interval is the floor every
 * verdict stands on. Defined here once: an entry is the control of a table
 * read against `baseline` when it is that name and no other (a `#2` of
 * another entry is not this table's control). */
bool fl_is_control(const char *label, const char *baseline);
/* The control's name of `baseline` in b ("glibc#2"). */
const char *fl_control_name(char *b, size_t n, const char *baseline);

/* An entry label's design: NAME of NAME@POLICY, NULL for BASELINE#2 (the
 * control) or a name that does not fit buf. */
const char *fl_catalog_design(const char *label, char *buf, unsigned n);

const char *fl_catalog_current(const char *name);
/* The design's registry place, or -1; *n: how many places there are. */
int fl_catalog_rank(const char *design, int *n);
enum fl_kind fl_catalog_kind(const char *label);
const char *fl_catalog_summary(const char *label);
const char *fl_catalog_op(const char *workload);

#endif
