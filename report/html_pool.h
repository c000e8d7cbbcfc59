/* report/html_pool.h — the HTML report's pooled part (`futexlab report
 * --pool A.csv B.csv ...`): per point the pool's table and figure, from
 * `compare --pool --tsv`'s lines (pool.h: its estimator, its checks). */
#ifndef FUTEXLAB_HTML_POOL_H
#define FUTEXLAB_HTML_POOL_H

#include <stdio.h>

/* Writes the part from the pool's TSV; returns how many figures. */
int fl_html_pool(FILE *f, const char *tsv, int nruns, const char *baseline);

#endif
