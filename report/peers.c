/* report/peers.c — the futexlab designs against the fastest shipped
 * library, point by point (peers.h). */
#include "report/peers.h"

#include <math.h>
#include <string.h>

#include "report/catalog.h"

struct closest {
	const struct fl_cell *y;
	double time, cpu;               /* paired ratios to the library (cpu NAN: not known) */
	bool cheap;                     /* cpu <= FL_PEERS_CPU */
};

/* Whether y is closer to the library than *best: a CPU-cheap entry beats
 * any other; among equals, the lower time ratio. */
static void consider(struct closest *best, const struct fl_cell *y, const struct fl_cell *lib)
{
	struct fl_ratio t, c;
	if (!fl_cell_ratio(y, lib, &t))
		return;
	double cpu = fl_cell_cpu_ratio(y, lib, &c) ? c.median : NAN;
	bool cheap = !isnan(cpu) && cpu <= FL_PEERS_CPU;
	if (best->y && (best->cheap > cheap || (best->cheap == cheap && best->time <= t.median)))
		return;
	*best = (struct closest){ y, t.median, cpu, cheap };
}

/* The point's fastest library and the futexlab entry closest to it; false
 * when either is missing. */
static bool judge_point(const struct fl_cell *const *row, int nrow, const struct fl_cell **plib,
			struct closest *best)
{
	const struct fl_cell *lib = NULL;
	for (int i = 0; i < nrow; i++) {
		if (fl_catalog_kind(row[i]->variant) == FL_KIND_LIBRARY && fl_cell_usable(row[i]) &&
		    (!lib || row[i]->ns.median < lib->ns.median))
			lib = row[i];
	}
	*best = (struct closest){ 0 };
	for (int i = 0; lib && i < nrow; i++) {
		if (fl_catalog_kind(row[i]->variant) == FL_KIND_DESIGN && fl_cell_usable(row[i]))
			consider(best, row[i], lib);
	}
	*plib = lib;
	return best->y != NULL;
}

void fl_peers_count(const struct fl_cell *const *row, int nrow, bool regimes,
		    struct fl_peers_tally *t)
{
	const struct fl_cell *lib;
	struct closest best;
	if (regimes || !judge_point(row, nrow, &lib, &best))
		return;
	t->points++;
	t->within += best.time <= FL_PEERS_TIME && best.cheap;
}

void fl_peers_line(FILE *f, const struct fl_cell *const *row, int nrow, bool regimes,
		   struct fl_peers_tally *t)
{
	const struct fl_cell *lib;
	struct closest best;
	if (!judge_point(row, nrow, &lib, &best))
		return;
	if (regimes) {
		fprintf(f, "  vs the libraries: two regimes: not judged\n");
		return;
	}
	bool within = best.time <= FL_PEERS_TIME && best.cheap;
	t->points++;
	t->within += within;
	char v[40]; /* the value column's figure (table.h): ns, or the program's metric */
	if (lib->value == FL_VALUE_NS)
		snprintf(v, sizeof v, "%.1f ns", lib->shown);
	else
		snprintf(v, sizeof v, "metric %.6g", lib->shown);
	fprintf(f, "  vs the libraries: fastest %s (%s, %.1f cpu ns/op); closest %s: %.2fx its "
		   "%s, ", lib->variant, v, lib->cpu.median, best.y->variant, best.time,
		   lib->value == FL_VALUE_NS ? "time" : "cost");
	if (isnan(best.cpu))
		fprintf(f, "CPU not known\n");
	else
		fprintf(f, "%.2fx its CPU: %s\n", best.cpu, within ? "within" : "not within");
}

void fl_peers_summary(FILE *f, const struct fl_peers_tally *t)
{
	if (t->points)
		fprintf(f, "vs the libraries: some futexlab entry within %.0f%% of the fastest library's "
			   "time at <= %.2fx its CPU at %d of %d points\n", 100 * (FL_PEERS_TIME - 1),
			FL_PEERS_CPU, t->within, t->points);
}
