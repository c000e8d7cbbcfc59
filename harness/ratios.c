/* harness/ratios.c — the ratio table, before/after, TSV (ratios.h). */
#include "harness/ratios.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "variants/variant.h"
#include "workloads/workload.h"
#include "harness/xalloc.h"

static void print_machine(FILE *f, const char *label, const struct fl_table *t)
{
	fprintf(f, "%s%s, %s cores, %s; futexlab %s, %s, seed %s\n", label,
		fl_table_meta(t, "cpu"), fl_table_meta(t, "cores"), fl_table_meta(t, "kernel"),
		fl_table_meta(t, "revision"), fl_table_meta(t, "date"), fl_table_meta(t, "seed"));
	const char *others = fl_table_meta(t, "other work");
	if (strcmp(others, "?"))
		fprintf(f, "%*sother work during the run: %s\n", (int)strlen(label), "", others);
}

static bool is_control(const char *variant)
{
	size_t l = strlen(variant);
	return l > 2 && !strcmp(variant + l - 2, "#2");
}

/* Control summary across points: how often ~, and the resolutions. */
struct control_sum {
	int points, same;
	double res[512];
	int nres;
};

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The run's A/A floor at a point (stats.h): the control's resolution; 0
 * without a usable control. */
static double control_floor(const struct fl_cells *c, const char *point, const char *baseline)
{
	char name[80];
	snprintf(name, sizeof name, "%s#2", baseline);
	struct fl_ratio q;
	if (!fl_cell_ratio(fl_cell_find(c, point, name), fl_cell_find(c, point, baseline), &q) ||
	    q.level < 0.95)
		return 0;
	return q.resolution;
}

/* A row's ratio, interval, resolution and verdict against the baseline; the
 * control is judged by its own interval, every other row also against the
 * control's floor, which its resolution then includes. False: no pairs. */
static bool judge(const struct fl_cells *c, const struct fl_cell *y, const struct fl_cell *ref,
		  const char *baseline, struct fl_ratio *q, enum fl_verdict *v)
{
	if (!fl_cell_ratio(y, ref, q))
		return false;
	double floor = is_control(y->variant) ? 0 : control_floor(c, y->point, baseline);
	if (floor > q->resolution)
		q->resolution = floor;
	*v = fl_ratio_verdict(q, floor);
	return true;
}

static void print_row(FILE *f, const struct fl_cells *c, const struct fl_cell *y,
		      const struct fl_cell *ref, const char *baseline, struct control_sum *cs)
{
	fprintf(f, "  %-14s %11.1f %12.0f", y->variant, y->ns.median, y->ops_s);
	struct fl_ratio q;
	enum fl_verdict v;
	if (y == ref) {
		fprintf(f, " %7.3f  baseline (%d rounds)\n", 1.0, y->ns.n);
		return;
	}
	if (!judge(c, y, ref, baseline, &q, &v)) {
		fprintf(f, " %7s  (no baseline rounds to pair with)\n", "-");
		return;
	}
	char ci[64];
	snprintf(ci, sizeof ci, "[%.3f, %.3f] %2.0f%%", q.lo, q.hi, 100 * q.level);
	fprintf(f, " %7.3f  %-22s %6.1f%%  %s\n", q.median, ci, 100 * q.resolution,
		fl_verdict_name(v));
	if (cs && is_control(y->variant)) {
		cs->points++;
		cs->same += v == FL_SAME;
		if (cs->nres < 512)
			cs->res[cs->nres++] = 100 * q.resolution;
	}
}

/* Rows of a point in a fixed order whatever order the rounds ran in: the
 * registry's (variants/meson.build), the control after its baseline, then
 * the floors and anything else. */
static int rank(const char *variant, const char *baseline)
{
	char base[64];
	snprintf(base, sizeof base, "%s", variant);
	size_t l = strlen(base);
	bool control = is_control(base);
	if (control)
		base[l - 2] = '\0';
	bool is_base = !strcmp(base, baseline);
	base[strcspn(base, "@")] = '\0'; /* NAME@POLICY: beside NAME */
	for (int i = 0; i < fl_nvariants; i++)
		if (!strcmp(fl_variants[i]->name, base))
			return 4 * i + (is_base ? control : 2);
	return 4 * fl_nvariants + (strncmp(base, "floor-", 6) != 0);
}

static const char *sort_baseline;
static int by_rank(const void *a, const void *b)
{
	const struct fl_cell *x = *(const struct fl_cell *const *)a,
			     *y = *(const struct fl_cell *const *)b;
	int d = rank(x->variant, sort_baseline) - rank(y->variant, sort_baseline);
	return d ? d : strcmp(x->variant, y->variant);
}

/* The cells of the point whose first cell is c->c[i], in rank order, or
 * NULL when an earlier cell has that point (it was listed there). */
static const struct fl_cell **point_rows(const struct fl_cells *c, int i, const char *baseline,
					 int *nrow)
{
	for (int j = 0; j < i; j++)
		if (!strcmp(c->c[j].point, c->c[i].point))
			return NULL;
	const struct fl_cell **row = fl_xcalloc((size_t)(c->n - i), sizeof(void *));
	*nrow = 0;
	for (int j = i; j < c->n; j++)
		if (!strcmp(c->c[j].point, c->c[i].point))
			row[(*nrow)++] = &c->c[j];
	sort_baseline = baseline;
	qsort(row, (size_t)*nrow, sizeof(void *), by_rank); /* an array of pointers */
	return row;
}

const char *fl_dur_text(char *b, size_t n, double ns)
{
	if (isnan(ns))
		snprintf(b, n, "-");
	else if (ns < 1e3)
		snprintf(b, n, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(b, n, "%.3gus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(b, n, "%.3gms", ns / 1e6);
	else
		snprintf(b, n, "%.3gs", ns / 1e9);
	return b;
}

static const char *num(char *b, size_t n, double x)
{
	if (isnan(x))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.3f", x);
	return b;
}

/* Under a point's ratios: the medians over its rounds of the fairness and
 * latency columns, where the file has them (workloads/README.md). */
static void print_extras(FILE *f, const struct fl_cell **row, int nrow)
{
	bool any = false;
	for (int j = 0; j < nrow; j++)
		for (int k = 0; k < FL_NEXTRA; k++)
			any |= fl_cell_usable(row[j]) && !isnan(row[j]->extra[k]);
	if (!any)
		return;
	fprintf(f, "  %-14s %6s %6s %7s %8s %8s %8s %8s %8s  (medians over rounds)\n", "",
		"jain", "cv", "min/max", "starve", "lat p50", "p99", "p99.9", "max");
	for (int j = 0; j < nrow; j++) {
		const struct fl_cell *y = row[j];
		if (!fl_cell_usable(y))
			continue;
		char a[16], b[16], c2[16], d[16], e[16], g[16], h[16], i[16];
		fprintf(f, "  %-14s %6s %6s %7s %8s %8s %8s %8s %8s\n", y->variant,
			num(a, sizeof a, y->extra[0]), num(b, sizeof b, y->extra[1]),
			num(c2, sizeof c2, y->extra[2]), fl_dur_text(d, sizeof d, y->extra[3]),
			fl_dur_text(e, sizeof e, y->extra[4]), fl_dur_text(g, sizeof g, y->extra[5]),
			fl_dur_text(h, sizeof h, y->extra[6]), fl_dur_text(i, sizeof i, y->extra[7]));
	}
}

int fl_print_ratios(FILE *f, const struct fl_table *t, const struct fl_cells *c,
		    const char *baseline)
{
	print_machine(f, "machine: ", t);
	fprintf(f, "ratio: ns per op / %s's, round by round, median over the rounds; interval: "
		   "of that median\n(order statistics, coverage shown); verdict faster/slower "
		   "when it excludes 1 and the ratio is beyond\nthe control's resolution "
		   "(%s#2: the run's A/A), else ~ (no difference beyond about +-res);\n? when "
		   "too few rounds for 95%%\n", baseline, baseline);
	if (!c->paired)
		fprintf(f, "warning: this file predates rounds (no round column): reps are paired "
			   "by index, not in time\n");
	struct control_sum cs = { 0 };
	int errors = 0;
	for (int i = 0; i < c->n; i++) {
		const struct fl_cell *x = &c->c[i], **row;
		int nrow;
		if (!(row = point_rows(c, i, baseline, &nrow)))
			continue; /* each point once, at its first cell */
		fprintf(f, "\n%s\n  %-14s %11s %12s %7s  %-22s %7s  %s\n", x->point, "variant",
			"median ns", "ops/s", "ratio", "interval, coverage", "+-res", "verdict");
		const struct fl_cell *ref = fl_cell_find(c, x->point, baseline);
		for (int j = 0; j < nrow; j++) {
			const struct fl_cell *y = row[j];
			if (!fl_cell_usable(y)) {
				fprintf(f, "  %-14s %s%s%s\n", y->variant, y->status,
					y->note[0] ? ": " : "", y->note);
				errors += !strcmp(y->status, "error");
			} else if (!fl_cell_usable(ref)) {
				fprintf(f, "  %-14s %11.1f %12.0f %7s  (baseline %s did not run)\n",
					y->variant, y->ns.median, y->ops_s, "-", baseline);
			} else {
				print_row(f, c, y, ref, baseline, &cs);
			}
		}
		print_extras(f, row, nrow);
		free(row);
	}
	if (cs.points) {
		qsort(cs.res, (size_t)cs.nres, sizeof *cs.res, cmp_d);
		fprintf(f, "\ncontrol (%s#2, the baseline run twice per round): ~ at %d of %d points; "
			   "resolution +-%.1f%% median, +-%.1f%% to +-%.1f%%\n", baseline, cs.same,
			cs.points, cs.res[cs.nres / 2], cs.res[0], cs.res[cs.nres - 1]);
	}
	if (errors)
		fprintf(f, "%d row(s) broke an invariant (error above)\n", errors);
	return errors;
}

/* ---- before / after ------------------------------------------------------ */

struct tally {
	int changed, same, only, status;
};

/* One pair in ratio mode; false if it could not be compared. */
static bool ratio_pair(FILE *f, const struct fl_cell *x, const struct fl_cell *y,
		       const struct fl_cells *ca, const struct fl_cells *cb, const char *baseline,
		       bool all, struct tally *n)
{
	struct fl_ratio qa, qb;
	if (!fl_cell_ratio(x, fl_cell_find(ca, x->point, baseline), &qa) ||
	    !fl_cell_ratio(y, fl_cell_find(cb, y->point, baseline), &qb))
		return false;
	bool apart = fl_ratio_apart(&qa, &qb);
	n->changed += apart;
	n->same += !apart;
	if (apart || all)
		fprintf(f, "%-44s %-14s %9.3f %9.3f %+7.1f%%  %s\n", y->point, y->variant, qa.median,
			qb.median, 100 * (qb.median / qa.median - 1),
			!apart ? "~ within the noise" : qb.median < qa.median ? "FASTER" : "SLOWER");
	return true;
}

static void absolute_pair(FILE *f, const struct fl_cell *x, const struct fl_cell *y, bool all,
			  struct tally *n)
{
	bool apart = fl_ci_apart(&x->ns, &y->ns);
	n->changed += apart;
	n->same += !apart;
	if (apart || all)
		fprintf(f, "%-44s %-14s %9.1f %9.1f %+7.1f%%  %s\n", y->point, y->variant,
			x->ns.median, y->ns.median, 100 * (y->ns.median / x->ns.median - 1),
			!apart ? "~ within the noise" : y->ns.median < x->ns.median ? "FASTER" : "SLOWER");
}

static void header(FILE *f, const struct fl_table *a, const struct fl_table *b,
		   const char *baseline, bool absolute)
{
	print_machine(f, "before: ", a);
	print_machine(f, "after:  ", b);
	if (strcmp(fl_table_meta(a, "cpu"), fl_table_meta(b, "cpu")) ||
	    strcmp(fl_table_meta(a, "cores"), fl_table_meta(b, "cores")) ||
	    strcmp(fl_table_meta(a, "kernel"), fl_table_meta(b, "kernel")))
		fprintf(f, "warning: the two files come from different machines or kernels\n");
	if (absolute)
		fprintf(f, "mode: absolute ns per op. warning: between two runs the machine drifts "
			   "(10-50%% on this kind of VM);\nan absolute change cannot be told from "
			   "that drift — the default (ratios) can\na change is flagged when the 95%% "
			   "intervals of the two medians do not overlap\n");
	else
		fprintf(f, "mode: ratios to %s measured in each run (drift between the runs "
			   "cancels; --absolute for ns per op)\na change is flagged when the two "
			   "ratio intervals do not overlap\n", baseline);
	fprintf(f, "\n%-44s %-14s %9s %9s %8s  %s\n", "point", "variant", "before", "after",
		"change", "verdict");
}

int fl_print_changes(FILE *f, const struct fl_table *a, const struct fl_cells *ca,
		     const struct fl_table *b, const struct fl_cells *cb, const char *baseline,
		     bool all, bool absolute)
{
	header(f, a, b, baseline, absolute);
	struct tally n = { 0 };
	for (int i = 0; i < cb->n; i++) {
		const struct fl_cell *y = &cb->c[i], *x = fl_cell_find(ca, y->point, y->variant);
		if (!x) {
			n.only++;
			continue;
		}
		if (!fl_cell_usable(x) || !fl_cell_usable(y)) {
			bool st = strcmp(x->status, y->status) != 0;
			if (st || all)
				fprintf(f, "%-44s %-14s %9s %9s %8s  %s\n", y->point, y->variant,
					x->status, y->status, "", st ? "STATUS CHANGED" : "-");
			n.status += st;
			continue;
		}
		if (absolute)
			absolute_pair(f, x, y, all, &n);
		else if (strcmp(y->variant, baseline) &&
			 !ratio_pair(f, x, y, ca, cb, baseline, all, &n))
			n.only++; /* no baseline to pair with in one of the files */
	}
	for (int i = 0; i < ca->n; i++)
		n.only += !fl_cell_find(cb, ca->c[i].point, ca->c[i].variant);
	fprintf(f, "\n%d of %d pairs changed beyond the noise, %d within it; %d status changes, "
		   "%d in one file only\n", n.changed, n.changed + n.same, n.same, n.status, n.only);
	return n.changed + n.status;
}

/* ---- TSV for the plots ----------------------------------------------------- */

static void tsv_line(FILE *f, const struct fl_cells *c, const struct fl_cell *x,
		     const char *baseline)
{
	const struct fl_workload *w = fl_workload_find(x->workload);
	const char *op = w ? w->op : "op"; /* what one op is, for plot titles */
	if (!fl_cell_usable(x)) {
		fprintf(f, "%s\t%s\t%s\t%d\t%s\t0\t\t\t\t\t\t\t\t%s\t\t\t\t", x->workload,
			x->point, x->variant, x->threads, x->status, op);
		for (int k = 0; k < FL_NEXTRA; k++)
			fputc('\t', f);
		fputc('\n', f);
		return;
	}
	fprintf(f, "%s\t%s\t%s\t%d\tok\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f\t%s",
		x->workload, x->point, x->variant, x->threads, x->ns.n, x->ns.median, x->ns.mad,
		x->ns.ci_lo, x->ns.ci_hi, x->ns.min, x->ns.max, x->ops_s, op);
	struct fl_ratio q;
	enum fl_verdict v;
	const struct fl_cell *ref = fl_cell_find(c, x->point, baseline);
	if (ref == x)
		fprintf(f, "\t1\t1\t1\tbaseline");
	else if (judge(c, x, ref, baseline, &q, &v))
		fprintf(f, "\t%.4f\t%.4f\t%.4f\t%s", q.median, q.lo, q.hi, fl_verdict_name(v));
	else
		fprintf(f, "\t\t\t\t");
	for (int k = 0; k < FL_NEXTRA; k++) /* the fairness and latency medians */
		if (isnan(x->extra[k]))
			fputc('\t', f);
		else
			fprintf(f, "\t%.6g", x->extra[k]);
	fputc('\n', f);
}

void fl_print_tsv(FILE *f, const struct fl_cells *c, const char *baseline)
{
	fprintf(f, "workload\tpoint\tvariant\tthreads\tstatus\tn\tmedian_ns\tmad_ns\tci_lo\tci_hi\t"
		   "min_ns\tmax_ns\tops_s\top\tratio\tratio_lo\tratio_hi\tverdict");
	for (int k = 0; k < FL_NEXTRA; k++)
		fprintf(f, "\t%s", fl_extra_cols[k]);
	fputc('\n', f);
	for (int i = 0; i < c->n; i++) {
		const struct fl_cell **row;
		int nrow;
		if (!(row = point_rows(c, i, baseline, &nrow)))
			continue;
		for (int j = 0; j < nrow; j++)
			tsv_line(f, c, row[j], baseline);
		free(row);
	}
}
