/* fail/xalloc.h — allocation for the CLI's table code: out of memory in
 * a command-line tool ends it with one line, never a NULL dereference. */
#ifndef FUTEXLAB_XALLOC_H
#define FUTEXLAB_XALLOC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void *fl_xcheck(void *p)
{
	if (!p) {
		fputs("futexlab: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static inline void *fl_xmalloc(size_t n) { return fl_xcheck(malloc(n ? n : 1)); }
static inline void *fl_xcalloc(size_t n, size_t m) { return fl_xcheck(calloc(n ? n : 1, m ? m : 1)); }
static inline void *fl_xrealloc(void *p, size_t n) { return fl_xcheck(realloc(p, n ? n : 1)); }
static inline char *fl_xstrdup(const char *s) { return fl_xcheck(strdup(s)); }

#endif
