/* model/stats_text.h — the statistics' words as the tables print them: a
 * verdict's name and an interval's half-width as a factor. The statistics
 * themselves (stats/stats.h) neither print nor format. */
#ifndef FUTEXLAB_STATS_TEXT_H
#define FUTEXLAB_STATS_TEXT_H

#include <stddef.h>

#include "stats/stats.h"

const char *fl_verdict_name(enum fl_verdict v); /* "faster" "slower" "~" "?" */
/* A resolution (a half-width in ln r) as the tables print it: "×/÷1.051"
 * (3 decimals below 10, 1 below 100, then none); "-" when not finite. The
 * text is UTF-8: 2 bytes more than the columns it takes (× and ÷). */
const char *fl_factor_text(char *b, size_t n, double resolution);
#define FL_FACTOR_EXTRA 2 /* bytes of fl_factor_text's UTF-8 beyond its columns */

#endif
