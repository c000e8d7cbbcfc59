/* model/evidence.c — the evidence block and the why line (evidence.h). */
#include "model/evidence.h"

#include <math.h>
#include <string.h>

#include "model/catalog.h"

enum ev_kind { CPU, PER_OP, PER_POST, HERD, DUR };

/* Each value of fl_evidence_values: its column in the block, its name in
 * compare's change ("csw/op"), its noun in the why line; why: a candidate
 * of the why line. */
static const struct ev_desc {
	const char *col, *label, *noun;
	enum ev_kind kind;
	bool why;
} ev[FL_NEV] = {
	{ "cpu ns", "cpu ns/op", "CPU", CPU, true },
	{ "csw", "csw/op", "context switches", PER_OP, true },
	{ "futex", "futex/op", "futex syscalls", PER_OP, false },
	{ "waits", "waits/op", "futex waits", PER_OP, true },
	{ "wakes", "wakes/op", "futex wakes", PER_OP, true },
	{ "woke 0", "woke-0/op", "wakes that woke nobody", PER_OP, true },
	{ "EAGAIN", "EAGAIN/op", "EAGAINs", PER_OP, true },
	{ "wk/post", "wakes/post", "wakes per post", PER_POST, true },
	{ "resleep", "resleeps/op", "resleeps", PER_OP, true },
	{ "herd/1k", "herd/1k", "herd bursts", HERD, true },
	{ "w2r p50", "w2r p50", "wake-to-run p50", DUR, true },
	{ "w2r p99", "w2r p99", "wake-to-run p99", DUR, true },
	/* shown only for a machine of more than one node (has_nodes); no why */
	{ "x-node wk/op", "x-node wk/op", "cross-node wakes", PER_OP, false },
};
#define XNODE (FL_EV_K + FL_K_XNODE)

/* The width of column k in the block. */
static int width(int k)
{
	return k == XNODE ? 12 : ev[k].kind == DUR ? 8 : 7;
}

/* Whether the point's rows ran on a machine of more than one NUMA node
 * (the file's `# numa:` line): only then is the x-node column shown — on
 * one node, or without the line, it is absent, not a 0. */
static bool has_nodes(const struct fl_cell *const *row, int nrow)
{
	for (int j = 0; j < nrow; j++)
		if (fl_cell_usable(row[j]) && row[j]->nodes > 1)
			return true;
	return false;
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

void fl_evidence_values(const struct fl_cell *c, double v[FL_NEV])
{
	v[FL_EV_CPU] = c->cpu.median;
	v[FL_EV_CSW] = c->csw.median;
	for (int k = 0; k < FL_NKCOUNT; k++)
		v[FL_EV_K + k] = c->k[k];
}

/* How far apart x and b are (|log x/b|, INFINITY when one is 0), or -1
 * when count k is no candidate (evidence.h). */
static double apart(int k, double x, double b)
{
	if (isnan(x) || isnan(b) || x < 0 || b < 0 || (x == 0 && b == 0))
		return -1;
	bool count = ev[k].kind != DUR && ev[k].kind != CPU;
	if (count && x < FL_WHY_MIN && b < FL_WHY_MIN)
		return -1;
	/* a count under FL_WHY_MIN per op beside one over it is as good as
	 * none: one stray resleep in a baseline's probed rounds (0.001 per
	 * phase) must not rank 5.9 resleeps per phase below a count that
	 * came from none (seen: perf_resleep at barrier, herd bursts named
	 * first in one standard run of three) */
	bool none = x == 0 || b == 0 || (count && (x < FL_WHY_MIN || b < FL_WHY_MIN));
	double d = none ? INFINITY : fabs(log(x / b));
	return d >= log(FL_WHY_FACTOR) - 1e-12 ? d : -1;
}

/* How far the control's count k lies from the baseline's, |log ratio|:
 * 0 without a control or where either is unknown; INFINITY where one of
 * the two is zero and the other not. */
static double control_spread(int k, const double *ctrl, const double *base)
{
	if (!ctrl || isnan(ctrl[k]) || isnan(base[k]))
		return 0;
	/* both under FL_WHY_MIN per op: the control moved within what no
	 * count is named for (0.001 resleeps per phase against none is no
	 * spread that hides 5.9 of them) */
	if (ev[k].kind != DUR && ev[k].kind != CPU && ctrl[k] < FL_WHY_MIN && base[k] < FL_WHY_MIN)
		return 0;
	if (ctrl[k] == 0 || base[k] == 0)
		return ctrl[k] == base[k] ? 0 : INFINITY;
	return fabs(log(ctrl[k] / base[k]));
}

/* Whether candidate a is further apart than b: the larger |log ratio|; of
 * two apart without bound (one side zero: "against none", "no ... against
 * 0.029"), the one with more per op on its nonzero side — 6 resleeps per
 * phase from none account for more of the ops than 0.029 EAGAINs gone;
 * still tied, the earlier count (a stays second). */
static bool further(const struct fl_why *a, double da, const struct fl_why *b, double db)
{
	if (da != db)
		return da > db;
	return isinf(da) && fmax(a->x, a->base) > fmax(b->x, b->base);
}

/* A why line being picked: the counts of x, its baseline's and the
 * control's (NULL: none), and the two candidates furthest apart so far
 * (out[0..n), furthest first, best[] their distances). */
struct pick {
	const double *x, *base, *ctrl;
	struct fl_why *out;
	double best[2];
	int n;
};

/* Count k as a candidate. */
static void consider(struct pick *p, int k)
{
	double d = ev[k].why ? apart(k, p->x[k], p->base[k]) : -1;
	if (d < 0 || d <= FL_WHY_CONTROL * control_spread(k, p->ctrl, p->base))
		return;
	struct fl_why w = { k, p->x[k], p->base[k] };
	if (p->n == 0 || further(&w, d, &p->out[0], p->best[0])) {
		p->out[1] = p->out[0], p->best[1] = p->best[0];
		p->out[0] = w, p->best[0] = d;
	} else if (p->n == 1 || further(&w, d, &p->out[1], p->best[1])) {
		p->out[1] = w, p->best[1] = d;
	}
	p->n += p->n < 2;
}

int fl_why_pick(const double x[FL_NEV], const double base[FL_NEV], const double *ctrl,
		struct fl_why out[2])
{
	struct pick p = { x, base, ctrl, out, { -1, -1 }, 0 };
	for (int k = FL_EV_CSW; k < FL_NEV; k++)
		consider(&p, k);
	/* CPU per op, a total, only where no count differs (evidence.h) */
	if (!p.n)
		consider(&p, FL_EV_CPU);
	return p.n;
}

static const char *cpu_text(char *b, size_t n, double x);

/* A count in a column of the block or compare's change: "-" for none. */
static const char *cnt_text(char *b, size_t n, int k, double x)
{
	if (ev[k].kind == CPU)
		return cpu_text(b, n, x);
	if (ev[k].kind == DUR)
		return fl_dur_text(b, n, x);
	if (ev[k].kind == HERD)
		x *= 1000;
	if (isnan(x))
		snprintf(b, n, "-");
	else if (x == 0)
		snprintf(b, n, "0");
	else if (x < 0.0005) /* not "0.000": that reads as none */
		snprintf(b, n, "%.0e", x);
	else if (x < 100)
		snprintf(b, n, "%.3f", x);
	else if (x < 1e7)
		snprintf(b, n, "%.0f", x);
	else
		snprintf(b, n, "%.3g", x);
	return b;
}

static const char *cpu_text(char *b, size_t n, double x)
{
	if (isnan(x))
		snprintf(b, n, "-");
	else if (x < 1e6)
		snprintf(b, n, "%.1f", x);
	else if (x < 1e9)
		snprintf(b, n, "%.0f", x);
	else
		snprintf(b, n, "%.3g", x);
	return b;
}

static void block_row(FILE *f, const struct fl_cell *y, bool nodes)
{
	double v[FL_NEV];
	char b[24];
	fl_evidence_values(y, v);
	fprintf(f, "  %-20s %10s", y->variant, cpu_text(b, sizeof b, y->cpu.median));
	for (int k = FL_EV_CSW; k < FL_NEV; k++) /* CPU: printed above */
		if (k != XNODE || nodes)
			fprintf(f, " %*s", width(k), cnt_text(b, sizeof b, k, v[k]));
	fputc('\n', f);
}

/* The probed rounds of the point's usable rows: "4", "3-5", or "" (none). */
static void probed_rounds(const struct fl_cell *const *row, int nrow, char *b, size_t n)
{
	int lo = 0, hi = 0;
	for (int j = 0; j < nrow; j++) {
		int p = fl_cell_usable(row[j]) ? row[j]->nprobed : 0;
		if (p && (!lo || p < lo))
			lo = p;
		if (p > hi)
			hi = p;
	}
	if (!hi)
		snprintf(b, n, "%s", "");
	else if (lo == hi)
		snprintf(b, n, "%d", hi);
	else
		snprintf(b, n, "%d-%d", lo, hi);
}

const char *fl_evidence_head(int k)
{
	return ev[k].col;
}

const char *fl_evidence_text(char *b, size_t n, int k, double x)
{
	return cnt_text(b, n, k, x);
}

bool fl_evidence_shown(int k, const struct fl_cell *const *row, int nrow)
{
	return k != XNODE || has_nodes(row, nrow);
}

void fl_evidence_title(char *b, size_t n, const struct fl_cell *const *row, int nrow,
		       const char *op)
{
	char pr[32];
	probed_rounds(row, nrow, pr, sizeof pr);
	if (pr[0])
		snprintf(b, n, "evidence, per %s (medians over the timed rounds; kernel counts: over "
			 "%s probed round%s)", op, pr, strcmp(pr, "1") ? "s" : "");
	else
		snprintf(b, n, "evidence, per %s (medians over the timed rounds)", op);
}

/* The point's block: a line of units, the columns, a row per usable entry
 * (the note on the kernel counts when the file has none). */
static void block(FILE *f, const struct fl_cell *const *row, int nrow, const char *op,
		  bool probed_file)
{
	char t[200];
	bool nodes = has_nodes(row, nrow);
	fl_evidence_title(t, sizeof t, row, nrow, op);
	fprintf(f, "  %s\n", t);
	fprintf(f, "  %-20s %10s", "", "cpu ns");
	for (int k = FL_EV_CSW; k < FL_NEV; k++)
		if (k != XNODE || nodes)
			fprintf(f, " %*s", width(k), ev[k].col);
	fputc('\n', f);
	for (int j = 0; j < nrow; j++)
		if (fl_cell_usable(row[j]))
			block_row(f, row[j], nodes);
	if (!probed_file)
		fprintf(f, "  (no kernel counts in this file: run with --probe-rounds N, or --probes, "
			   "as root)\n");
}

/* A factor as the why line prints it: 4.0x, 12x, 0.5x, and under 0.095
 * as a fraction to two figures, 1/1600 (not 0.00062x). */
static void factor_text(char *b, size_t n, double r)
{
	if (r >= 9.95) {
		snprintf(b, n, "%.0fx", r);
	} else if (r >= 0.095) {
		snprintf(b, n, "%.1fx", r);
	} else {
		double d = 1 / r, mag = pow(10, floor(log10(d)) - 1);
		snprintf(b, n, "1/%.0f", round(d / mag) * mag);
	}
}

/* One count of the why line: "4.0x the context switches per item",
 * "0.87 futex waits per item against none"; per: whether to say "per
 * OP" (the design's first per-op count). */
static int why_item(char *b, size_t n, const struct fl_why *w, const char *op, bool per)
{
	const struct ev_desc *e = &ev[w->k];
	char x[24], u[48] = "", z[48]; /* z: the unit of a count beside none */
	if (per && e->kind != DUR && e->kind != PER_POST)
		snprintf(u, sizeof u, " per %s", op);
	snprintf(z, sizeof z, "%s", u);
	if (e->kind == HERD)
		snprintf(z, sizeof z, " per 1000 ops");
	if (w->base == 0)
		return snprintf(b, n, "%s %s%s against none", cnt_text(x, sizeof x, w->k, w->x),
				 e->noun, z);
	if (w->x == 0)
		return snprintf(b, n, "no %s against %s%s", e->noun,
				cnt_text(x, sizeof x, w->k, w->base), z);
	factor_text(x, sizeof x, w->x / w->base);
	return snprintf(b, n, "%s %sthe %s%s", x, x[0] == '1' && x[1] == '/' ? "of " : "", e->noun, u);
}

/* One design's part of the why line ("negcount 4.0x ..., 3.1x ..."), or 0
 * when no count differs. */
static int why_part(char *b, size_t n, const struct fl_cell *y, const struct fl_cell *ref,
		    const struct fl_cell *ctrl, const char *op)
{
	double x[FL_NEV], base[FL_NEV], c[FL_NEV];
	struct fl_why w[2];
	fl_evidence_values(y, x);
	fl_evidence_values(ref, base);
	if (ctrl)
		fl_evidence_values(ctrl, c);
	int m = fl_why_pick(x, base, ctrl ? c : NULL, w);
	if (!m)
		return 0;
	size_t l = (size_t)snprintf(b, n, "%s ", y->variant);
	bool per = true;
	for (int i = 0; i < m && l < n; i++) {
		if (i)
			l += (size_t)snprintf(b + l, n - l, ", ");
		if (l < n)
			l += (size_t)why_item(b + l, n - l, &w[i], op, per);
		per &= ev[w[i].k].kind == DUR || ev[w[i].k].kind == PER_POST;
	}
	return (int)l;
}

#define WHY_WIDTH 128

/* (evidence.h) "  why: A ...; B ..." wrapped at WHY_WIDTH with an indent; nothing when
 * no design faster or slower differs in a count. */
void fl_print_why(FILE *f, const struct fl_cell *const *row, int nrow,
		  const struct fl_cell *ref, const enum fl_verdict *v, const char *op)
{
	int col = 0;
	const struct fl_cell *ctrl = NULL; /* the baseline again: BASELINE#2 */
	for (int j = 0; ref && j < nrow; j++) {
		if (fl_is_control(row[j]->variant, ref->variant) && fl_cell_usable(row[j]))
			ctrl = row[j];
	}
	for (int j = 0; j < nrow; j++) {
		const struct fl_cell *y = row[j];
		bool design = !(ref && fl_is_control(y->variant, ref->variant)) &&
			      strncmp(y->variant, "floor-", 6) != 0;
		char part[320];
		if (y == ref || !design || !fl_cell_usable(y) || (v[j] != FL_FASTER && v[j] != FL_SLOWER)
		    || !why_part(part, sizeof part, y, ref, ctrl, op))
			continue;
		if (!col)
			col = fprintf(f, "  why: %s", part);
		else if (col + 2 + (int)strlen(part) > WHY_WIDTH)
			col = fprintf(f, ";\n       %s", part) - 2;
		else
			col += fprintf(f, "; %s", part);
	}
	if (col)
		fputc('\n', f);
}

void fl_print_evidence(FILE *f, const struct fl_cell *const *row, int nrow,
		       const struct fl_cell *ref, const enum fl_verdict *v, bool probed_file)
{
	bool any = false;
	for (int j = 0; j < nrow; j++)
		any |= fl_cell_usable(row[j]);
	if (!any)
		return;
	const char *op = fl_catalog_op(row[0]->workload);
	block(f, row, nrow, op, probed_file);
	if (fl_cell_usable(ref))
		fl_print_why(f, row, nrow, ref, v, op);
}

const char *fl_why_toward(char *b, size_t n, const struct fl_cell *y, const struct fl_cell *ref,
			  const struct fl_cell *ctrl, int dir)
{
	double x[FL_NEV], base[FL_NEV], c[FL_NEV] = { 0 }; /* cppcheck: read only with ctrl */
	struct fl_why w[2];
	b[0] = '\0';
	fl_evidence_values(y, x);
	fl_evidence_values(ref, base);
	if (ctrl)
		fl_evidence_values(ctrl, c);
	/* a count that moved against the result explains none of it: out */
	for (int k = 0; k < FL_NEV; k++)
		if (dir && dir * (x[k] - base[k]) <= 0)
			x[k] = NAN;
	if (fl_why_pick(x, base, ctrl ? c : NULL, w)) {
		char p[24], q[24];
		snprintf(b, n, "%s %s -> %s", ev[w[0].k].label, cnt_text(p, sizeof p, w[0].k, w[0].base),
			 cnt_text(q, sizeof q, w[0].k, w[0].x));
	}
	return b;
}

const char *fl_why_short(char *b, size_t n, const struct fl_cell *y, const struct fl_cell *ref,
			 const struct fl_cell *ctrl)
{
	return fl_why_toward(b, n, y, ref, ctrl, 0);
}

const char *fl_evidence_change(char *b, size_t n, const struct fl_cell *before,
			       const struct fl_cell *after)
{
	b[0] = '\0';
	if (!before->nprobed || !after->nprobed)
		return b;
	return fl_why_short(b, n, after, before, NULL);
}
