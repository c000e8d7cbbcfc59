/* report/peers.c — the futexlab designs against the fastest shipped
 * library, point by point (peers.h). */
#include "report/peers.h"

#include <math.h>
#include <string.h>

#include "model/catalog.h"

struct closest {
	const struct fl_cell *y;
	struct fl_ratio q;              /* its paired time ratio to the library */
	double time, cpu;               /* paired ratios to the library (cpu NAN: not known) */
	bool cheap;                     /* cpu <= FL_LIBS_CPU */
};

/* Whether y is closer to the library than *best: a CPU-cheap entry beats
 * any other; among equals, the lower time ratio. */
static void consider(struct closest *best, const struct fl_cell *y, const struct fl_cell *lib)
{
	struct fl_ratio t, c;
	if (!fl_cell_ratio(y, lib, &t))
		return;
	double cpu = fl_cell_cpu_ratio(y, lib, &c) ? c.median : NAN;
	bool cheap = !isnan(cpu) && cpu <= FL_LIBS_CPU;
	if (best->y && (best->cheap > cheap || (best->cheap == cheap && best->time <= t.median)))
		return;
	*best = (struct closest){ y, t, t.median, cpu, cheap };
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

/* behind (0), ahead (1) or faster (2), by peers.h's rule. */
static int verdict(const struct closest *b, double band)
{
	if (!(b->time <= FL_LIBS_TIME && b->cheap))
		return 0;
	return fl_ratio_verdict(&b->q, band) == FL_FASTER ? 2 : 1;
}

static void tally(struct fl_peers_tally *t, int v)
{
	t->points++;
	t->ahead += v >= 1;
	t->faster += v == 2;
}

void fl_peers_count(const struct fl_cell *const *row, int nrow, bool regimes, double band,
		    struct fl_peers_tally *t)
{
	const struct fl_cell *lib;
	struct closest best;
	if (regimes || !judge_point(row, nrow, &lib, &best))
		return;
	tally(t, verdict(&best, band));
}

void fl_peers_line(FILE *f, const struct fl_cell *const *row, int nrow, bool regimes, double band,
		   struct fl_peers_tally *t)
{
	static const char *const word[] = { "behind", "ahead", "faster" };
	const struct fl_cell *lib;
	struct closest best;
	if (!judge_point(row, nrow, &lib, &best))
		return;
	if (regimes) {
		fprintf(f, "  vs the libraries: two regimes: not judged\n");
		return;
	}
	int v = verdict(&best, band);
	tally(t, v);
	char val[40]; /* the value column's figure (table.h): ns, or the program's metric */
	if (lib->value == FL_VALUE_NS)
		snprintf(val, sizeof val, "%.1f ns", lib->shown);
	else
		snprintf(val, sizeof val, "metric %.6g", lib->shown);
	fprintf(f, "  vs the libraries: fastest %s (%s, %.1f cpu ns/op); closest %s: %.2fx its "
		   "%s, ", lib->variant, val, lib->cpu.median, best.y->variant, best.time,
		   lib->value == FL_VALUE_NS ? "time" : "cost");
	if (isnan(best.cpu))
		fprintf(f, "CPU not known: behind\n");
	else
		fprintf(f, "%.2fx its CPU: %s\n", best.cpu, word[v]);
}

void fl_libs_line(FILE *f, int nrun, int ahead, int points, int faster)
{
	char over[48] = "";
	if (nrun > 1)
		snprintf(over, sizeof over, ", pooled over %d runs", nrun);
	fprintf(f, "vs the libraries%s: a futexlab entry at or below the fastest library in time "
		   "and CPU at %d of %d points, faster at %d\n", over, ahead, points, faster);
}

void fl_peers_summary(FILE *f, const struct fl_peers_tally *t)
{
	if (t->points)
		fl_libs_line(f, 1, t->ahead, t->points, t->faster);
}
