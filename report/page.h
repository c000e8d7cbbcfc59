/* report/page.h — an HTML page's shell, written once for the three pages
 * (report's, html.c; history's, history.c; across's, across.c): the file
 * written through a temporary one renamed into place, and the head.
 *
 * The file: a reader of PATH sees the old page or the whole new one, never
 * half a page (the same argument as record/csv.c's rename). The temporary
 * file is PATH.tmp.PID beside PATH (one directory, so the rename is atomic;
 * the pid so that two commands writing one page do not share it). Failing
 * to open it, to write it, or to rename it is bad input: one line,
 * "CMD: cannot write PATH: why", exit 2 (fail/fail.h), the temporary file
 * removed first.
 *
 * The head differs between the pages, and stays so: each page's bytes are
 * what scripts/same-output records and what readers (tests/test_report.sh's
 * browser test, people's bookmarks and diffs) hold, so the shell takes what
 * differs as parameters rather than making the three alike:
 *   - the title and the style (CSS) are each page's own;
 *   - the spelling: the report page's head is "<!DOCTYPE html>", lang="en",
 *     one element a line (FL_PAGE_LINES); history's and across's, written
 *     after it as smaller pages, are "<!doctype html>", no lang, the head on
 *     one line (FL_PAGE_PACKED). A browser reads both alike. */
#ifndef FUTEXLAB_PAGE_H
#define FUTEXLAB_PAGE_H

#include <stdio.h>

struct fl_page_file {
	FILE *f;          /* the temporary file: write the page here */
	const char *cmd;  /* the error lines' prefix: "report", "history" */
	const char *path; /* where the page goes (not copied: the caller's) */
	char *tmp;        /* the temporary file's name */
};

/* Opens p->f on a temporary file beside path. Failure: fl_bad_input. */
FILE *fl_page_open(struct fl_page_file *p, const char *cmd, const char *path);

/* Writes the page's end ("</body></html>\n"), closes the temporary file and
 * renames it to the page's path. Failure: the temporary file removed,
 * fl_bad_input. */
void fl_page_close(struct fl_page_file *p);

enum fl_page_spelling { FL_PAGE_LINES, FL_PAGE_PACKED };

/* The head, from the doctype to "<body>\n" included: title HTML-escaped,
 * style written as is, in the page's spelling (above). */
void fl_page_head(FILE *f, const char *title, const char *style, enum fl_page_spelling s);

#endif
