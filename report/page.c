/* report/page.c — an HTML page's shell (page.h): the file through a
 * temporary one renamed into place, the head in each page's spelling. */
#include "report/page.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/svg.h"
#include "fail/fail.h"
#include "fail/xalloc.h"

FILE *fl_page_open(struct fl_page_file *p, const char *cmd, const char *path)
{
	*p = (struct fl_page_file){ .cmd = cmd, .path = path };
	if (asprintf(&p->tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		p->tmp = NULL;
	fl_xcheck(p->tmp);
	p->f = fopen(p->tmp, "w");
	if (!p->f)
		fl_bad_input("%s: cannot write %s: %s", cmd, path, strerror(errno));
	return p->f;
}

void fl_page_close(struct fl_page_file *p)
{
	fputs("</body></html>\n", p->f);
	/* ferror before fclose (both always run: |, not ||): a write that failed
	 * earlier (a full disk) is a failure even when the close succeeds. */
	if (ferror(p->f) | fclose(p->f) || rename(p->tmp, p->path)) {
		int e = errno;
		unlink(p->tmp);
		fl_bad_input("%s: cannot write %s: %s", p->cmd, p->path, strerror(e));
	}
	free(p->tmp);
	*p = (struct fl_page_file){ 0 };
}

void fl_page_head(FILE *f, const char *title, const char *style, enum fl_page_spelling s)
{
	bool lines = s == FL_PAGE_LINES;
	fputs(lines ? "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>"
		    : "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>", f);
	fl_html_puts(f, title);
	fputs(lines ? "</title>\n<style>\n" : "</title><style>", f);
	fputs(style, f);
	fputs(lines ? "</style>\n</head>\n<body>\n" : "</style></head><body>\n", f);
}
