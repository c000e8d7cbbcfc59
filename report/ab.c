/* report/ab.c — an A/B run judged pair by pair, family-wise (ab.h). */
#include "report/ab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/gate.h"
#include "report/json.h"
#include "fail/xalloc.h"
#include "stats/maxt.h"

const char *const fl_ab_sides[3] = { "base", "head", "control" };
enum { BASE, HEAD, CONTROL };

/* The flips the critical values are taken over: every pattern up to 2^14
 * rounds, else this many at random (the quantile's own error at 0.05 is
 * then about +-0.2%). */
#define FL_AB_FLIPS 20000
#define FL_AB_SEED 0x5eedab5eedab5eedull

const char *fl_ab_verdict_name(enum fl_ab_verdict v)
{
	static const char *const n[] = { "same", "faster", "slower", "inconclusive" };
	return n[v];
}

bool fl_ab_undecided(const struct fl_ab_pair *p)
{
	return p->gated && p->verdict == FL_AB_INCONCLUSIVE;
}

/* ln(x / base) over the rounds both have a positive value of: into d and
 * rounds, returns how many. */
static int paired_logs(const struct fl_cell *x, const struct fl_cell *base, double *d, int *rounds)
{
	int n = 0;
	if (!fl_cell_usable(x) || !fl_cell_usable(base))
		return 0;
	for (int i = 0; i < x->nr; i++)
		for (int j = 0; j < base->nr; j++)
			if (x->round[i] == base->round[j]) {
				if (x->ns_r[i] > 0 && base->ns_r[j] > 0) {
					d[n] = log(x->ns_r[i] / base->ns_r[j]);
					rounds[n++] = x->round[i];
				}
				break;
			}
	return n;
}

/* One side's rows as a table of its own (the caller's cells, shared). */
static int side_table(struct fl_table *out, const struct fl_table *t, int col, const char *side)
{
	*out = *t;
	out->rows = fl_xmalloc((size_t)(t->nrows ? t->nrows : 1) * sizeof *out->rows);
	out->nrows = 0;
	for (int i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i][col], side))
			out->rows[out->nrows++] = t->rows[i];
	return out->nrows;
}

/* The samples of every pair, kept while the pairs are judged: pair j's
 * d (head/base) and a (control/base) and their rounds, cap each. */
struct samples {
	int cap;
	double *d, *a;
	int *dr, *ar;
	struct fl_maxt_pair *pd, *pa;   /* the gated pairs' */
};

/* The sides apart and their cells; the rounds. 0, or -1 with err. */
static int split_sides(struct fl_ab *ab, const struct fl_table *t, char *err, int errlen)
{
	int col = fl_table_col(t, "side"), rcol = fl_table_col(t, "round");
	if (col < 0 || rcol < 0) {
		snprintf(err, (size_t)errlen, "not an A/B run (no %s column: futexlab ab writes one)",
			 col < 0 ? "side" : "round");
		return -1;
	}
	for (int s = 0; s < 3; s++) {
		if (!side_table(&ab->side[s], t, col, fl_ab_sides[s])) {
			snprintf(err, (size_t)errlen, "not a whole A/B run: no row of side %s",
				 fl_ab_sides[s]);
			return -1;
		}
		if (fl_cells_build(&ab->side[s], &ab->cells[s], err, errlen))
			return -1;
	}
	for (int i = 0; i < t->nrows; i++) {
		int r = atoi(t->rows[i][rcol]);
		if (r + 1 > ab->nround)
			ab->nround = r + 1;
	}
	return 0;
}

/* Every head cell with a base cell: a pair, its samples into S. */
static void collect_pairs(struct fl_ab *ab, struct samples *S)
{
	const struct fl_cells *hc = &ab->cells[HEAD];
	int cap = S->cap = ab->nround > 0 ? ab->nround : 1;
	size_t n = (size_t)(hc->n ? hc->n : 1);
	ab->pair = fl_xcalloc(n, sizeof *ab->pair);
	S->d = fl_xmalloc(n * cap * sizeof *S->d);
	S->a = fl_xmalloc(n * cap * sizeof *S->a);
	S->dr = fl_xmalloc(n * cap * sizeof *S->dr);
	S->ar = fl_xmalloc(n * cap * sizeof *S->ar);
	S->pd = fl_xcalloc(n, sizeof *S->pd);
	S->pa = fl_xcalloc(n, sizeof *S->pa);
	const char *only = !ab->o.only || !strcmp(ab->o.only, "all") ? NULL : ab->o.only;
	for (int i = 0; i < hc->n; i++) {
		const struct fl_cell *h = &hc->c[i];
		const struct fl_cell *b = fl_cell_find(&ab->cells[BASE], h->point, h->variant);
		const struct fl_cell *c = fl_cell_find(&ab->cells[CONTROL], h->point, h->variant);
		if (!b || !fl_cell_usable(h)) /* a skipped row, or the head's alone */
			continue;
		struct fl_ab_pair *p = &ab->pair[ab->npair];
		size_t at = (size_t)ab->npair * cap;
		p->point = h->point;
		p->entry = h->variant;
		p->gated = fl_only_match(only, h->variant);
		p->n = paired_logs(h, b, S->d + at, S->dr + at);
		p->n_aa = c ? paired_logs(c, b, S->a + at, S->ar + at) : 0;
		p->base_ns = b->ns.median;
		p->head_ns = h->ns.median;
		if (p->gated) {
			S->pd[ab->ngated] = (struct fl_maxt_pair){ p->n, S->dr + at, S->d + at };
			S->pa[ab->ngated] = (struct fl_maxt_pair){ p->n_aa, S->ar + at, S->a + at };
			ab->ngated++;
		}
		ab->npair++;
	}
}

/* One pair's interval, A/A and verdict (ab.h's rule), d and a its samples. */
static void judge_pair(struct fl_ab_pair *p, const struct fl_ab *ab, const double *d,
		       const double *a)
{
	const struct fl_ab_opts *o = &ab->o;
	double lt = log(o->threshold), m, se, ma, sea;
	fl_maxt_center(d, p->n, &m, &se);
	fl_maxt_center(a, p->n_aa, &ma, &sea);
	double c = p->gated ? ab->c : INFINITY, ca = p->gated ? ab->c_aa : INFINITY;
	p->ratio = exp(m);
	p->lo = exp(m - c * se);
	p->hi = exp(m + c * se);
	p->aa = p->n_aa ? exp(ma) : NAN;
	p->aa_lo = p->n_aa ? exp(ma - ca * sea) : NAN;
	p->aa_hi = p->n_aa ? exp(ma + ca * sea) : NAN;
	double b = p->n_aa ? fabs(ma) : 0;
	p->band = exp(b);
	p->detectable = exp(c * se + b);
	p->aa_moved = p->n_aa >= o->min_rounds && isfinite(ca) &&
		      (ma - ca * sea > lt || ma + ca * sea < -lt);
	p->why = "";
	if (p->n < o->min_rounds || p->n_aa < o->min_rounds) {
		p->verdict = FL_AB_INCONCLUSIVE;
		p->why = p->n >= o->min_rounds ? "too few control rounds" : "too few rounds";
	} else if (!isfinite(c) || !(se > 0)) {
		p->verdict = FL_AB_INCONCLUSIVE;
		p->why = "no interval";
	} else if (p->aa_moved) {
		p->verdict = FL_AB_INCONCLUSIVE;
		p->why = "A/A moved";
	} else if (m - c * se > b && m >= lt) {
		p->verdict = FL_AB_SLOWER;
	} else if (m + c * se < -b && m <= -lt) {
		p->verdict = FL_AB_FASTER;
	} else if (m + c * se < lt && m - c * se > -lt) {
		p->verdict = FL_AB_SAME;
	} else {
		p->verdict = FL_AB_INCONCLUSIVE;
		p->why = "interval wider than the threshold";
	}
}

int fl_ab_judge(struct fl_ab *ab, const struct fl_table *t, const struct fl_ab_opts *o,
		char *err, int errlen)
{
	memset(ab, 0, sizeof *ab);
	ab->o = *o;
	if (split_sides(ab, t, err, errlen))
		return -1;
	struct samples S;
	collect_pairs(ab, &S);
	ab->c = fl_maxt_critical(S.pd, ab->ngated, ab->nround, o->alpha, FL_AB_FLIPS, FL_AB_SEED);
	ab->c_aa = fl_maxt_critical(S.pa, ab->ngated, ab->nround, o->alpha, FL_AB_FLIPS,
				    FL_AB_SEED);
	for (int j = 0; j < ab->npair; j++) {
		struct fl_ab_pair *p = &ab->pair[j];
		judge_pair(p, ab, S.d + (size_t)j * S.cap, S.a + (size_t)j * S.cap);
		if (p->gated) {
			ab->count[p->verdict]++;
			ab->aa_moved += p->aa_moved;
		}
	}
	free(S.d), free(S.a), free(S.dr), free(S.ar), free(S.pd), free(S.pa);
	if (ab->count[FL_AB_SLOWER] || (o->fail_on_any && ab->count[FL_AB_FASTER]))
		ab->status = FL_AB_FAIL;
	else if (ab->count[FL_AB_INCONCLUSIVE] || ab->aa_moved || !ab->ngated)
		ab->status = FL_AB_UNDECIDED;
	else
		ab->status = FL_AB_PASS;
	return 0;
}

void fl_ab_free(struct fl_ab *ab)
{
	for (int s = 0; s < 3; s++) {
		fl_cells_free(&ab->cells[s]);
		free(ab->side[s].rows);
	}
	free(ab->pair);
	memset(ab, 0, sizeof *ab);
}

static const char *status_name(enum fl_ab_status s)
{
	return s == FL_AB_PASS ? "PASS" : s == FL_AB_FAIL ? "FAIL" : "INCONCLUSIVE";
}

/* ns as people read it: 15ns, 1.23us, 26.1us, 1.5ms. */
static void ns_text(char *b, size_t n, double ns)
{
	if (!isfinite(ns))
		snprintf(b, n, "?");
	else if (ns < 1000)
		snprintf(b, n, "%.3gns", ns);
	else if (ns < 1e6)
		snprintf(b, n, "%.3gus", ns / 1e3);
	else
		snprintf(b, n, "%.3gms", ns / 1e6);
}

static void pair_line(FILE *f, const struct fl_ab_pair *p)
{
	char bn[32], hn[32];
	ns_text(bn, sizeof bn, p->base_ns);
	ns_text(hn, sizeof hn, p->head_ns);
	fprintf(f, "  %-30s %-18s %6.3f [%6.3f, %6.3f]  %-8s %-8s A/A %5.3f  sees x%-6.3g %s%s%s%s\n",
		p->point, p->entry, p->ratio, p->lo, p->hi, bn, hn, p->aa, p->detectable,
		fl_ab_verdict_name(p->verdict), *p->why ? " (" : "", p->why, *p->why ? ")" : "");
}

/* The names of the gated pairs of verdict v, entries once each, into b. */
static void names_of(const struct fl_ab *ab, enum fl_ab_verdict v, char *b, size_t n)
{
	size_t l = 0;
	b[0] = 0;
	for (int j = 0; j < ab->npair && l < n; j++) {
		const struct fl_ab_pair *p = &ab->pair[j];
		if (!p->gated || p->verdict != v)
			continue;
		bool seen = false;
		for (int k = 0; k < j && !seen; k++)
			seen = ab->pair[k].gated && ab->pair[k].verdict == v &&
			       !strcmp(ab->pair[k].entry, p->entry);
		if (!seen)
			l += (size_t)snprintf(b + l, n - l, "%s%s", l ? ", " : "", p->entry);
	}
}

void fl_ab_print(FILE *f, const struct fl_ab *ab, bool detail)
{
	const struct fl_ab_opts *o = &ab->o;
	fprintf(f, "ab: head/base time per op, paired by round; intervals simultaneous over the %d "
		"gated pairs at a family-wise %g (critical |t| %.2f, A/A %.2f); threshold x%.3g\n",
		ab->ngated, o->alpha, ab->c, ab->c_aa, o->threshold);
	fprintf(f, "  %-30s %-18s %6s %-16s  %-8s %-8s %-9s  %-9s verdict\n", "point", "entry", "ratio",
		"interval", "base", "head", "A/A", "could see");
	for (int j = 0; j < ab->npair; j++) {
		const struct fl_ab_pair *p = &ab->pair[j];
		if (!detail && (!p->gated || p->verdict == FL_AB_SAME))
			continue;
		pair_line(f, p);
	}
	/* per point: what its `same` pairs could have seen */
	fprintf(f, "per point, the gated pairs judged same and the largest change one of them could "
		"have missed:\n");
	for (int j = 0; j < ab->npair; j++) {
		const struct fl_ab_pair *p = &ab->pair[j];
		bool first = true;
		for (int k = 0; k < j && first; k++)
			first = strcmp(ab->pair[k].point, p->point) != 0;
		if (!first)
			continue;
		int ns = 0, ng = 0;
		double worst = 1;
		for (int k = j; k < ab->npair; k++) {
			const struct fl_ab_pair *q = &ab->pair[k];
			if (strcmp(q->point, p->point) || !q->gated)
				continue;
			ng++;
			if (q->verdict == FL_AB_SAME) {
				ns++;
				if (q->detectable > worst)
					worst = q->detectable;
			}
		}
		fprintf(f, "  %-30s %3d of %3d same, each would have seen x%.3g or more\n", p->point,
			ns, ng, worst);
	}
	char names[1024];
	fprintf(f, "ab: %d gated pairs over %d rounds: %d slower, %d faster, %d same, %d inconclusive "
		"(A/A moved at %d)\n", ab->ngated, ab->nround, ab->count[FL_AB_SLOWER],
		ab->count[FL_AB_FASTER], ab->count[FL_AB_SAME], ab->count[FL_AB_INCONCLUSIVE],
		ab->aa_moved);
	if (ab->count[FL_AB_SLOWER]) {
		names_of(ab, FL_AB_SLOWER, names, sizeof names);
		fprintf(f, "ab: slower: %s\n", names);
	}
	if (ab->count[FL_AB_FASTER]) {
		names_of(ab, FL_AB_FASTER, names, sizeof names);
		fprintf(f, "ab: faster: %s\n", names);
	}
	fprintf(f, "ab: %s", status_name(ab->status));
	if (ab->status == FL_AB_UNDECIDED)
		fprintf(f, " (%s: rerun, or more rounds with --budget)",
			ab->aa_moved ? "the A/A moved" : !ab->ngated ? "no pair gated" :
			"a pair could not rule out a change of the threshold");
	fputc('\n', f);
}

void fl_ab_json(FILE *f, const struct fl_ab *ab, const struct fl_table *t)
{
	fputs("{\"schema\": \"futexlab-ab/1\", \"status\": ", f);
	fl_json_str(f, ab->status == FL_AB_PASS ? "pass" : ab->status == FL_AB_FAIL ? "fail" :
		    "inconclusive");
	fprintf(f, ", \"exit\": %d, \"threshold\": ", (int)ab->status);
	fl_json_num(f, ab->o.threshold);
	fputs(", \"alpha\": ", f);
	fl_json_num(f, ab->o.alpha);
	fprintf(f, ", \"fail_on\": \"%s\", \"rounds\": %d, \"gated\": %d, \"critical\": ",
		ab->o.fail_on_any ? "any" : "slower", ab->nround, ab->ngated);
	fl_json_num(f, ab->c);
	fputs(", \"critical_aa\": ", f);
	fl_json_num(f, ab->c_aa);
	fputs(", \"sides\": {", f);
	for (int s = 0; s < 3; s++) {
		char key[32];
		snprintf(key, sizeof key, "side %s", fl_ab_sides[s]);
		fprintf(f, "%s\"%s\": ", s ? ", " : "", fl_ab_sides[s]);
		fl_json_str(f, fl_table_meta(t, key));
	}
	fputs("}, \"pairs\": [", f);
	for (int j = 0; j < ab->npair; j++) {
		const struct fl_ab_pair *p = &ab->pair[j];
		fputs(j ? ",\n  {\"entry\": " : "\n  {\"entry\": ", f);
		fl_json_str(f, p->entry);
		fputs(", \"point\": ", f);
		fl_json_str(f, p->point);
		fprintf(f, ", \"gated\": %s, \"rounds\": %d, \"ratio\": ", p->gated ? "true" : "false",
			p->n);
		const double v[] = { p->ratio, p->lo, p->hi, p->base_ns, p->head_ns, p->aa, p->aa_lo,
				     p->aa_hi, p->band, p->detectable };
		const char *k[] = { NULL, "lo", "hi", "base_ns", "head_ns", "aa", "aa_lo", "aa_hi",
				    "band", "detectable" };
		for (int i = 0; i < 10; i++) {
			if (k[i])
				fprintf(f, ", \"%s\": ", k[i]);
			fl_json_num(f, v[i]);
		}
		fputs(", \"verdict\": ", f);
		fl_json_str(f, fl_ab_verdict_name(p->verdict));
		fputs(", \"why\": ", f);
		fl_json_str(f, p->why);
		fputc('}', f);
	}
	fputs("\n]}\n", f);
}
