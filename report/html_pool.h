/* report/html_pool.h — the HTML report's pooled part (`futexlab report
 * --pool A.csv B.csv ...`): per point the pool's table and figure, then
 * the libraries judgement, read from the pool's data (pool.h: its
 * estimator, its checks) — the numbers `compare --pool --tsv` prints. */
#ifndef FUTEXLAB_HTML_POOL_H
#define FUTEXLAB_HTML_POOL_H

#include <stdio.h>

#include "report/pool.h"

/* Writes the part; returns how many figures. */
int fl_html_pool(FILE *f, const struct fl_pool_result *r);

#endif
