/* model/stats_text.c — see stats_text.h. */
#include "model/stats_text.h"

#include <math.h>
#include <stdio.h>

const char *fl_verdict_name(enum fl_verdict v)
{
	static const char *const names[] = { "~", "faster", "slower", "?" };
	return names[v];
}

const char *fl_factor_text(char *b, size_t n, double resolution)
{
	double f = exp(resolution);
	if (!isfinite(f))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "\u00d7/\u00f7%.*f", f < 9.995 ? 3 : f < 99.95 ? 1 : 0, f);
	return b;
}
