/* harness/pool.c — compare --pool (pool.h). */
#include "harness/pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "harness/ratios.h"
#include "harness/stats.h"
#include "harness/table.h"
#include "harness/xalloc.h"

struct run {
	const char *path;
	struct fl_table t;
	struct fl_cells c;
};

static void load(struct run *r, const char *path, const char *baseline)
{
	char err[300];
	r->path = path;
	if (fl_table_load(&r->t, path, err, sizeof err) ||
	    fl_cells_build(&r->t, &r->c, err, sizeof err))
		fl_usage_error("compare --pool: %s", err);
	if (!fl_cell_find_variant(&r->c, baseline))
		fl_usage_error("compare --pool: baseline '%s' is not in %s (see --baseline)",
			       baseline, path);
}

/* The first point of a that b lacks, or entry of a point b lacks: one line. */
static bool first_missing(const struct run *a, const struct run *b, const char *what)
{
	for (int i = 0; i < a->c.n; i++) {
		const struct fl_cell *x = &a->c.c[i];
		bool point = false;
		for (int k = 0; k < b->c.n && !point; k++)
			point = !strcmp(b->c.c[k].point, x->point);
		if (!point)
			fl_usage_error("compare --pool: %s has no point '%s' (%s has it): %s",
				       b->path, x->point, a->path, what);
		if (!fl_cell_find(&b->c, x->point, x->variant))
			fl_usage_error("compare --pool: %s has no '%s' at '%s' (%s has it): %s",
				       b->path, x->variant, x->point, a->path, what);
	}
	return false;
}

/* The same configuration: the same points, the same entries at each, the
 * same value (ns per op, or one metric). */
static void same_config(const struct run *a, const struct run *b, const char *what)
{
	first_missing(a, b, what);
	first_missing(b, a, what);
	if (a->c.value != b->c.value || (a->c.metric && strcmp(a->c.metric, b->c.metric)))
		fl_usage_error("compare --pool: %s and %s time different figures (%s, %s): %s",
			       a->path, b->path, a->c.metric ? a->c.metric : "ns per op",
			       b->c.metric ? b->c.metric : "ns per op", what);
}

static bool is_control(const char *variant, const char *baseline)
{
	size_t l = strlen(baseline);
	return !strncmp(variant, baseline, l) && !strcmp(variant + l, "#2");
}

static const char *range(char *b, size_t n, double lo, double hi)
{
	if (isnan(lo))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "[%.3f, %.3f]", lo, hi);
	return b;
}

/* what an entry without a ratio in run r has instead */
static const char *run_status(const struct run *r, const char *point, const char *variant)
{
	const struct fl_cell *x = fl_cell_find(&r->c, point, variant);
	return x && !fl_cell_usable(x) ? x->status : "-";
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* faster against slower, either way */
static bool contradict(enum fl_verdict a, enum fl_verdict b)
{
	return (a == FL_FASTER && b == FL_SLOWER) || (a == FL_SLOWER && b == FL_FASTER);
}

static void header(FILE *f, struct run *runs, int nruns, const struct run *next,
		   const char *baseline)
{
	fprintf(f, "futexlab compare --pool:");
	for (int j = 0; j < nruns; j++)
		fprintf(f, " %s", runs[j].path);
	if (next)
		fprintf(f, " --against %s", next->path);
	fputc('\n', f);
	for (int j = 0; j < nruns; j++)
		fprintf(f, "run %d: %s, futexlab %s, %s, seed %s\n", j + 1, runs[j].path,
			fl_table_meta(&runs[j].t, "revision"), fl_table_meta(&runs[j].t, "date"),
			fl_table_meta(&runs[j].t, "seed"));
	int nall = nruns + (next != NULL);
	for (int j = 1; j < nall; j++)
		if (strcmp(fl_table_meta(&runs[j].t, "revision"), fl_table_meta(&runs[0].t, "revision")) ||
		    strcmp(fl_table_meta(&runs[j].t, "cpu"), fl_table_meta(&runs[0].t, "cpu")) ||
		    strcmp(fl_table_meta(&runs[j].t, "kernel"), fl_table_meta(&runs[0].t, "kernel"))) {
			fprintf(f, "warning: %s and %s differ in revision, cpu or kernel: not identical "
				   "runs (a change of the code or the machine is not a rerun)\n",
				runs[0].path, runs[j].path);
			break;
		}
	fprintf(f, "ratio: each run's median per-round ratio to %s (its ratio table's), pooled "
		   "over the runs on the\nlog scale (the geometric mean); the run is the top level "
		   "(harness/stats.h, \"Runs as the top level\")\n", baseline);
	fprintf(f, "long-run ratio, over runs (%.0f%%): where the ratio of infinitely many such "
		   "runs lies\nnext run's ratio (%.0f%%): where the median ratio of the next "
		   "identical run will land (check a rerun against it)\n",
		100 * FL_POOL_CONF, 100 * FL_POOL_PRED);
	fprintf(f, "(a single run's interval covers only that run's rounds: it is narrower and "
		   "misses a rerun far more often)\nverdict faster/slower when the long-run "
		   "interval excludes 1 and the ratio is beyond the control's band\n(%s#2's "
		   "long-run half-width at the point), else ~; ? with fewer than 2 runs of the entry\n",
		baseline);
	if (next)
		fprintf(f, "against %s: its median ratio inside the next run's interval (in) or "
			   "not (OUT), its own verdict;\n! where the two verdicts contradict (faster "
			   "against slower)\n", next->path);
}

int fl_pool_compare(FILE *f, int nfiles, char *const *paths, const char *against,
		    const char *baseline, bool tsv)
{
	if (nfiles < 2)
		fl_usage_error("compare --pool: give two or more CSV files of one configuration "
			       "(got %d)", nfiles);
	struct run *runs = fl_xcalloc((size_t)nfiles + 1, sizeof *runs), *next = NULL;
	for (int j = 0; j < nfiles; j++) {
		load(&runs[j], paths[j], baseline);
		if (j > 0)
			same_config(&runs[0], &runs[j], "pool only runs of one configuration");
	}
	if (against) {
		next = &runs[nfiles];
		load(next, against, baseline);
		same_config(&runs[0], next, "--against takes a run of the pooled configuration");
	}
	if (tsv) {
		fprintf(f, "point\tvariant\truns\tratio\tconf_lo\tconf_hi\tpred_lo\tpred_hi\tverdict"
			   "\tdf\tbetween_sd\trun_ratios");
		if (next)
			fprintf(f, "\tagainst_ratio\tinside\tagainst_verdict\tcontradicts");
		fputc('\n', f);
	} else {
		header(f, runs, nfiles, next, baseline);
	}
	const struct fl_cells *c0 = &runs[0].c;
	int pairs = 0, inside = 0, contra = 0, nhalf = 0;
	double *half = fl_xcalloc((size_t)c0->n + 1, sizeof *half);
	for (int i = 0; i < c0->n; i++) {
		int nrow;
		const struct fl_cell **row = fl_point_rows(c0, i, baseline, &nrow);
		if (!row)
			continue;
		const char *point = c0->c[i].point;
		int nent = 0;
		const struct fl_cell **ent = fl_xcalloc((size_t)nrow, sizeof *ent);
		for (int e = 0; e < nrow; e++)
			if (strcmp(row[e]->variant, baseline))
				ent[nent++] = row[e];
		struct fl_ratio *r = fl_xcalloc((size_t)(nfiles * nent) + 1, sizeof *r);
		for (int j = 0; j < nfiles; j++) {
			const struct fl_cell *b = fl_cell_find(&runs[j].c, point, baseline);
			for (int e = 0; e < nent; e++) {
				const struct fl_cell *x = fl_cell_find(&runs[j].c, point,
								       ent[e]->variant);
				if (!fl_cell_usable(x) || !fl_cell_usable(b) ||
				    !fl_cell_ratio(x, b, &r[j * nent + e]))
					r[j * nent + e] = (struct fl_ratio){ .n = 0 };
			}
		}
		struct fl_pool_entry *out = fl_xcalloc((size_t)nent + 1, sizeof *out);
		struct fl_pool_point pp;
		fl_pool_point(nfiles, nent, r, out, &pp);
		double band = 0;
		for (int e = 0; e < nent; e++)
			if (is_control(ent[e]->variant, baseline) && isfinite(out[e].conf_half))
				band = out[e].conf_half;
		if (!tsv) {
			fprintf(f, "\n%s  (%d runs", point, nfiles);
			if (isfinite(pp.tau2))
				fprintf(f, "; between runs: the point's excess sd %.3f in ln ratio, "
					   "%.0f%% of it common to its entries, df %.1f",
					sqrt(pp.tau2), pp.common + pp.spread > 0 ?
					100 * pp.common / (pp.common + pp.spread) : 0, pp.df);
			fprintf(f, ")\n  %-20s %7s  %-27s %-27s  %-*s  %s\n", "variant", "ratio",
				"long-run ratio, over runs", "next run's ratio", 6 * nfiles,
				"runs' own", next ? "verdict      against" : "verdict");
		}
		const struct fl_cell *nb = next ? fl_cell_find(&next->c, point, baseline) : NULL;
		for (int e = 0; e < nent; e++) {
			const struct fl_pool_entry *o = &out[e];
			const char *v = ent[e]->variant;
			enum fl_verdict pv = fl_pool_verdict(o, is_control(v, baseline) ? 0 : band);
			char cb[64], pb[64], own[256] = "";
			size_t ol = 0;
			for (int j = 0; j < nfiles && ol < sizeof own - 16; j++) {
				const char *sep = j ? (tsv ? "," : " ") : "";
				if (r[j * nent + e].n)
					ol += (size_t)snprintf(own + ol, sizeof own - ol, "%s%.3f",
							      sep, r[j * nent + e].median);
				else /* no ratio in that run: its status (skipped, error) */
					ol += (size_t)snprintf(own + ol, sizeof own - ol, "%s%s", sep,
							      run_status(&runs[j], point, v));
			}
			/* the rerun's ratio and verdict */
			struct fl_ratio nq = { .n = 0 };
			enum fl_verdict nv = FL_UNDECIDED;
			bool have = false, in = false, cx = false;
			if (next) {
				const struct fl_cell *x = fl_cell_find(&next->c, point, v);
				nv = fl_cell_verdict(&next->c, x, nb, &nq, baseline);
				have = fl_cell_usable(x) && fl_cell_usable(nb) &&
				       fl_cell_ratio(x, nb, &nq) && isfinite(o->pred_half);
				if (have) {
					in = nq.median >= o->pred_lo && nq.median <= o->pred_hi;
					cx = contradict(pv, nv);
					pairs++;
					inside += in;
					contra += cx;
					half[nhalf++] = o->pred_half;
				}
			}
			if (tsv) {
				fprintf(f, "%s\t%s\t%d\t", point, v, o->runs);
				if (o->runs > 0)
					fprintf(f, "%.4f", o->ratio);
				if (isfinite(o->pred_half))
					fprintf(f, "\t%.4f\t%.4f\t%.4f\t%.4f\t%s\t%.2f\t%.4f\t%s",
						o->conf_lo, o->conf_hi, o->pred_lo, o->pred_hi,
						fl_verdict_name(pv), o->df, sqrt(o->tau2), own);
				else
					fprintf(f, "\t\t\t\t\t%s\t\t\t%s", fl_verdict_name(pv), own);
				if (next && have)
					fprintf(f, "\t%.4f\t%s\t%s\t%s", nq.median, in ? "in" : "out",
						fl_verdict_name(nv), cx ? "yes" : "no");
				else if (next)
					fprintf(f, "\t\t\t%s\t", fl_verdict_name(nv));
				fputc('\n', f);
				continue;
			}
			char rt[16] = "      -";
			if (o->runs > 0)
				snprintf(rt, sizeof rt, "%7.3f", o->ratio);
			char cl[96], pl[96];
			snprintf(cl, sizeof cl, "%s %.0f%%", range(cb, sizeof cb, o->conf_lo, o->conf_hi),
				 100 * FL_POOL_CONF);
			snprintf(pl, sizeof pl, "%s %.0f%%", range(pb, sizeof pb, o->pred_lo, o->pred_hi),
				 100 * FL_POOL_PRED);
			if (!isfinite(o->pred_half))
				snprintf(cl, sizeof cl, "- (%d run%s)", o->runs, o->runs == 1 ? "" : "s"),
				snprintf(pl, sizeof pl, "-");
			fprintf(f, "  %-20s %s  %-27s %-27s  %-*s  %-6s", v, rt, cl, pl, 6 * nfiles,
				own, fl_verdict_name(pv));
			if (next && have)
				fprintf(f, "  %7.3f %-3s %s%s", nq.median, in ? "in" : "OUT",
					fl_verdict_name(nv), cx ? " !" : "");
			else if (next)
				fprintf(f, "  %7s     %s", "-", fl_verdict_name(nv));
			fputc('\n', f);
		}
		free(out);
		free(r);
		free(ent);
		free(row);
	}
	if (next && !tsv) {
		double mh = NAN;
		if (nhalf) {
			qsort(half, (size_t)nhalf, sizeof *half, cmp_d);
			mh = nhalf % 2 ? half[nhalf / 2] : (half[nhalf / 2 - 1] + half[nhalf / 2]) / 2;
		}
		fprintf(f, "\nprediction: %s's ratio inside for %d of %d (point, entry) pairs "
			   "(%.1f%%); median half-width ×/÷%.2f; verdicts contradicting: %d\n",
			next->path, inside, pairs, pairs ? 100.0 * inside / pairs : 0, exp(mh), contra);
	}
	free(half);
	for (int j = 0; j < nfiles + (next != NULL); j++) {
		fl_cells_free(&runs[j].c);
		fl_table_free(&runs[j].t);
	}
	free(runs);
	return 0;
}
