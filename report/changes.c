/* report/changes.c — before/after of two runs, and the machine line every
 * table starts with (changes.h). */
#include "report/changes.h"

#include <math.h>
#include <string.h>

#include "model/evidence.h"

void fl_print_machine(FILE *f, const char *label, const struct fl_table *t)
{
	fprintf(f, "%s%s, %s cores, %s; futexlab %s, %s, seed %s\n", label,
		fl_table_meta(t, "cpu"), fl_table_meta(t, "cores"), fl_table_meta(t, "kernel"),
		fl_table_meta(t, "revision"), fl_table_meta(t, "date"), fl_table_meta(t, "seed"));
	fl_table_as_marks(f, t, label); /* a --as run is a test run, in every table */
	const char *others = fl_table_meta(t, "other work");
	if (strcmp(others, "?"))
		fprintf(f, "%*sother work during the run: %s\n", (int)strlen(label), "", others);
}

/* One before/after comparison: where it prints, the two runs' cells, what
 * was asked, and its tally. */
struct changes {
	FILE *f;
	const struct fl_cells *ca, *cb;
	const struct fl_changes_opts *o;
	int changed, same, only, status, cpu;
};

/* One pair compared: time before and after (ratios to the baseline, or ns
 * per op) and whether they are apart; CPU the same way (CPU ratios, or CPU
 * ns per op), where both files have it. */
struct pair {
	double before, after;   /* costs: the ratios, ns per op, a metric's cost (table.h) */
	double shown[2];        /* what the line prints, before and after (0 0: the same) */
	double lo[2], hi[2];    /* the intervals compared, as shown (for the sink) */
	bool apart;
	bool cpu;
	double cpu_before, cpu_after;
	bool cpu_apart;
	double own[2];          /* ratio mode: the entry's own median time (0: none) */
	bool own_apart;
};

/* After a pair that changed beyond the noise, the count that changed
 * most where both files have probed rounds (evidence.h). */
static void pair_evidence(FILE *f, const struct fl_cell *x, const struct fl_cell *y,
			  enum fl_verdict v)
{
	char b[96];
	if (v != FL_SAME && fl_evidence_change(b, sizeof b, x, y)[0])
		fprintf(f, "  (%s)", b);
}

/* Lists the pair when it changed beyond the noise, when its CPU did (the
 * verdict's note: fl_cpu_note over after/before, as in the ratio table),
 * or with `all`; counts it. decimals: of before and after. */
static void pair_line(struct changes *n, const struct fl_cell *x, const struct fl_cell *y,
		      const struct pair *p, int decimals)
{
	FILE *f = n->f;
	enum fl_verdict v = !p->apart ? FL_SAME : p->after < p->before ? FL_FASTER : FL_SLOWER;
	double factor = p->cpu ? p->cpu_after / p->cpu_before : NAN;
	enum fl_verdict cv = !p->cpu || !p->cpu_apart ? FL_SAME
			     : factor < 1		 ? FL_FASTER
							 : FL_SLOWER;
	bool noted = p->cpu && fl_cpu_note(v, cv, factor);
	n->changed += p->apart;
	n->same += !p->apart;
	n->cpu += noted;
	double b = p->shown[0] ? p->shown[0] : p->before, a = p->shown[1] ? p->shown[1] : p->after;
	if (n->o->sink)
		n->o->sink->fn(n->o->sink->arg, &(struct fl_change){ y->point, y->variant, v, b, a,
			{ p->lo[0], p->lo[1] }, { p->hi[0], p->hi[1] }, decimals,
			{ p->own[0], p->own[1] }, p->own_apart });
	if (!p->apart && !noted && !n->o->all)
		return;
	char chg[24] = "-", vt[64];
	if (p->cpu)
		snprintf(chg, sizeof chg, "%+.1f%%", 100 * (factor - 1));
	struct fl_judged j = { .v = v, .cpu = p->cpu, .cv = cv, .cq = { .median = factor } };
	fl_judged_words(vt, sizeof vt, v == FL_SAME ? "~ within the noise" : v == FL_FASTER ? "FASTER"
			: "SLOWER", "~", &j);
	char nb[24], na[24];
	if (decimals >= 0) /* decimals < 0: the program's figure, its own precision */
		snprintf(nb, sizeof nb, "%.*f", decimals, b), snprintf(na, sizeof na, "%.*f", decimals, a);
	else
		snprintf(nb, sizeof nb, "%.6g", b), snprintf(na, sizeof na, "%.6g", a);
	fprintf(f, "%-38s %-20s %8s %8s %+7.1f%% %8s  %s", y->point, y->variant, nb, na,
		100 * (a / b - 1), chg, vt);
	pair_evidence(f, x, y, v);
	fputc('\n', f);
}

/* One pair in ratio mode; false if it could not be compared. */
static bool ratio_pair(struct changes *n, const struct fl_cell *x, const struct fl_cell *y)
{
	const struct fl_cell *ba = fl_cell_find(n->ca, x->point, n->o->baseline),
			     *bb = fl_cell_find(n->cb, y->point, n->o->baseline);
	struct fl_ratio qa, qb, cpa, cpb;
	if (!fl_cell_ratio(x, ba, &qa) || !fl_cell_ratio(y, bb, &qb))
		return false;
	struct pair p = { .before = qa.median, .after = qb.median,
			  .lo = { qa.lo, qb.lo }, .hi = { qa.hi, qb.hi },
			  .apart = fl_ratio_apart(&qa, &qb),
			  .own = { x->ns.median, y->ns.median },
			  .own_apart = fl_ci_apart(&x->ns, &y->ns),
			  .cpu = fl_cell_cpu_ratio(x, ba, &cpa) && fl_cell_cpu_ratio(y, bb, &cpb) };
	if (p.cpu) {
		p.cpu_before = cpa.median;
		p.cpu_after = cpb.median;
		p.cpu_apart = fl_ratio_apart(&cpa, &cpb);
	}
	pair_line(n, x, y, &p, 3);
	return true;
}

static void absolute_pair(struct changes *n, const struct fl_cell *x, const struct fl_cell *y)
{
	/* the verdict's direction from the costs, the line's numbers the
	 * figures (a throughput that went up is FASTER) */
	struct pair p = { .before = x->ns.median, .after = y->ns.median,
			  .shown = { x->shown, y->shown },
			  .apart = fl_ci_apart(&x->ns, &y->ns),
			  .cpu = x->cpu.n > 0 && y->cpu.n > 0 && x->cpu.median > 0,
			  .cpu_before = x->cpu.median, .cpu_after = y->cpu.median,
			  .cpu_apart = fl_ci_apart(&x->cpu, &y->cpu) };
	for (int i = 0; i < 2; i++) { /* as shown: a figure's reciprocal swaps the ends */
		const struct fl_cell *c = i ? y : x;
		double u = fl_value_shown(c->value, c->ns.ci_lo),
		       v = fl_value_shown(c->value, c->ns.ci_hi);
		p.lo[i] = fmin(u, v);
		p.hi[i] = fmax(u, v);
	}
	pair_line(n, x, y, &p, x->value == FL_VALUE_NS ? 1 : -1);
}

static void header(FILE *f, const struct fl_table *a, const struct fl_table *b,
		   const char *baseline, bool absolute)
{
	fl_print_machine(f, "before: ", a);
	fl_print_machine(f, "after:  ", b);
	if (strcmp(fl_table_meta(a, "cpu"), fl_table_meta(b, "cpu")) ||
	    strcmp(fl_table_meta(a, "cores"), fl_table_meta(b, "cores")) ||
	    strcmp(fl_table_meta(a, "kernel"), fl_table_meta(b, "kernel")))
		fprintf(f, "warning: the two files come from different machines or kernels\n");
	if (absolute)
		fprintf(f, "mode: absolute ns per op (exec --metric: the figure). warning: between two runs the machine drifts "
			   "(10-50%% on this kind of VM);\nan absolute change cannot be told from "
			   "that drift — the default (ratios) can\na change is flagged when the 95%% "
			   "intervals of the two medians do not overlap\n");
	else
		fprintf(f, "mode: ratios to %s measured in each run (drift between the runs "
			   "cancels; --absolute for ns per op)\na change is flagged when the two "
			   "ratio intervals do not overlap\n", baseline);
	fprintf(f, "cpu: the change of %s (-: a file lacks it); \", 2.0x CPU\": that change, "
		   "when\nbeyond the noise and %.0f%% or more, against the time verdict or beside a ~ "
		   "(as in the ratio table)\n", absolute ? "CPU ns per op" : "the CPU-per-op ratio",
		100 * (FL_CPU_NOTE - 1));
	fprintf(f, "\n%-38s %-20s %8s %8s %8s %8s  %s\n", "point", "variant", "before", "after",
		"change", "cpu", "verdict");
}

int fl_print_changes(FILE *f, const struct fl_loaded_run *before, const struct fl_loaded_run *after,
		     const struct fl_changes_opts *o)
{
	const struct fl_cells *ca = &before->c, *cb = &after->c;
	bool all = o->all;
	header(f, &before->t, &after->t, o->baseline, o->absolute);
	if (ca->value != cb->value || (ca->metric && strcmp(ca->metric, cb->metric)))
		fprintf(f, "warning: the two files' values differ (%s before, %s after): their "
			   "changes compare unlike figures\n", ca->metric ? ca->metric : "ns per op",
			cb->metric ? cb->metric : "ns per op");
	struct changes n = { .f = f, .ca = ca, .cb = cb, .o = o };
	for (int i = 0; i < cb->n; i++) {
		const struct fl_cell *y = &cb->c[i], *x = fl_cell_find(ca, y->point, y->variant);
		if (!x) {
			n.only++;
			continue;
		}
		if (!fl_cell_usable(x) || !fl_cell_usable(y)) {
			bool st = strcmp(x->status, y->status) != 0;
			if (st || all)
				fprintf(f, "%-38s %-20s %8s %8s %8s %8s  %s\n", y->point, y->variant,
					x->status, y->status, "", "", st ? "STATUS CHANGED" : "-");
			n.status += st;
			continue;
		}
		if (o->absolute)
			absolute_pair(&n, x, y);
		else if (strcmp(y->variant, o->baseline) && !ratio_pair(&n, x, y))
			n.only++; /* no baseline to pair with in one of the files */
	}
	for (int i = 0; i < ca->n; i++)
		n.only += !fl_cell_find(cb, ca->c[i].point, ca->c[i].variant);
	fprintf(f, "\n%d of %d pairs changed beyond the noise, %d within it; %d status changes, "
		   "%d in one file only; %d with a CPU note\n", n.changed, n.changed + n.same, n.same,
		n.status, n.only, n.cpu);
	return n.changed + n.status;
}

