/* record/run_row.c — see run_row.h. The row is the table's cells in the
 * table's order (schema/result_fields.h): a FIELD's cell is its value
 * when the field's `csv` word holds for the row, else empty; a COLUMN's is
 * written by its function below, one a column. Then the perf and the probe
 * cells. */
#include "record/run_row.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/csv.h"
#include "schema/point_key.h"
#include "probes/probes.h"
#include "lib/wake.h"
#include "workloads/hist.h"

const char *fl_run_csv_header(void)
{
	static char header[2048];
	if (header[0])
		return header;
	size_t l = 0;
	for (int i = 0; i < FL_RUN_NCOLS; i++)
		l += (size_t)snprintf(header + l, sizeof header - l, "%s%s", i ? "," : "",
				      fl_run_cols[i]);
	snprintf(header + l, sizeof header - l, "%s%s,probed", fl_perf_header(),
		 fl_probes_csv_header);
	return header;
}

/* ---- the row being written ------------------------------------------------ */

struct row {
	char *s;
	size_t n, len;
	int cells;
	const struct fl_point *pt;
	const struct fl_run_rep *x;
	const struct fl_result *ok;     /* x->r on an ok row, else NULL */
	double timer_ns;
};

/* One cell: the separator, then the formatted value (nothing: empty). */
__attribute__((format(printf, 2, 3)))
static void put(struct row *b, const char *fmt, ...)
{
	if (b->cells++ && b->len + 1 < b->n)
		b->s[b->len++] = ',';
	b->s[b->len] = '\0';
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(b->s + b->len, b->n - b->len, fmt, ap);
	va_end(ap);
	if (k < 0 || b->len + (size_t)k + 1 >= b->n) {
		fprintf(stderr, "futexlab: CSV row longer than %zu bytes\n", b->n);
		exit(1);
	}
	b->len += (size_t)k;
}

static void put_empty(struct row *b)
{
	put(b, "%s", "");
}

/* A FIELD's value, by kind (no INT or BOOL field has a column today: the
 * two are kept, unused, so that one can take a column with one line). */
#define MAYBE_UNUSED __attribute__((unused))
static MAYBE_UNUSED void put_I64(struct row *b, int64_t v) { put(b, "%lld", (long long)v); }
static MAYBE_UNUSED void put_INT(struct row *b, int v) { put(b, "%d", v); }
static MAYBE_UNUSED void put_BOOL(struct row *b, bool v) { put(b, "%d", v ? 1 : 0); }
static MAYBE_UNUSED void put_DBL(struct row *b, double v) { put(b, "%.4f", v); }

/* Text in double quotes ("" for a quote; a newline becomes a space:
 * fl_csv_quote, csv.h). */
static void put_quoted(struct row *b, const char *s)
{
	char q[400];
	fl_csv_quote(q, sizeof q, s);
	put(b, "%s", q);
}

/* ---- when a FIELD's cell holds its value (result_fields.h, `csv`) ---------- */

static bool when_ok(const struct row *b, double v)
{
	(void)v;
	return b->ok;
}

static bool when_fair(const struct row *b, double v)
{
	(void)v;
	return b->ok && b->pt->w->fairness && b->ok->fair_n > 0 && b->ok->fair_jain >= 0;
}

static bool when_starve(const struct row *b, double v)
{
	return b->ok && v >= 0 && b->pt->w->fairness && b->ok->lat;
}

static bool when_cpu(const struct row *b, double v)
{
	(void)v;
	return b->ok && b->ok->cpu_set;
}

static bool when_known(const struct row *b, double v)
{
	return b->x->r && v >= 0;
}

static bool when_stranded(const struct row *b, double v)
{
	(void)v;
	return b->x->r && b->x->r->stranded >= 0;
}

const char *fl_run_row_key(const struct fl_point *pt, const char *hash, char *out, size_t n)
{
	bool tok = pt->w->uses_tokens; /* as the cells below: 0 where it takes none */
	struct fl_point_cfg c = {
		.workload = pt->w->name, .threads = pt->p.threads, .tokens = tok ? pt->p.tokens : 0,
		.hold_ns = tok ? pt->p.hold_ns : 0, .think_ns = tok ? pt->p.think_ns : 0,
		.wake = fl_wake_name((enum fl_wake_strategy)pt->wake), .hash = hash,
		.sems = pt->p.sems,
	};
	return fl_point_key(out, n, &c);
}

/* ---- the COLUMNs' cells ---------------------------------------------------- */

#define COLUMN_CELL(name) static void cell_##name(struct row *b, const struct fl_point *pt, \
						  const struct fl_run_rep *x)
#define UNUSED(a, c) (void)(a), (void)(c)

COLUMN_CELL(variant) { UNUSED(pt, 0); put(b, "%s", x->e->label); }
COLUMN_CELL(workload) { UNUSED(x, 0); put(b, "%s", pt->w->name); }
COLUMN_CELL(threads) { UNUSED(x, 0); put(b, "%d", pt->p.threads); }
/* 0 where the workload uses no tokens (nor hold, think): the point's key */
COLUMN_CELL(tokens) { UNUSED(x, 0); put(b, "%d", pt->w->uses_tokens ? pt->p.tokens : 0); }
COLUMN_CELL(hold_ns)
{
	UNUSED(x, 0);
	put(b, "%lld", (long long)(pt->w->uses_tokens ? pt->p.hold_ns : 0));
}
COLUMN_CELL(think_ns)
{
	UNUSED(x, 0);
	put(b, "%lld", (long long)(pt->w->uses_tokens ? pt->p.think_ns : 0));
}
COLUMN_CELL(wake) { UNUSED(x, 0); put(b, "%s", fl_wake_name((enum fl_wake_strategy)pt->wake)); }
COLUMN_CELL(ns_per_op)
{
	UNUSED(pt, x);
	if (b->ok)
		put(b, "%.3f", (double)b->ok->elapsed_ns / (double)b->ok->ops);
	else
		put_empty(b);
}
COLUMN_CELL(ops_per_s)
{
	UNUSED(pt, x);
	if (b->ok)
		put(b, "%.1f", (double)b->ok->ops * 1e9 / (double)b->ok->elapsed_ns);
	else
		put_empty(b);
}
COLUMN_CELL(status) { UNUSED(pt, 0); put(b, "%s", x->status); }
COLUMN_CELL(note) { UNUSED(pt, 0); put_quoted(b, x->note); }
COLUMN_CELL(hash) { UNUSED(pt, 0); put(b, "%s", x->hash ? x->hash : ""); }
COLUMN_CELL(policy)
{
	char t[FL_POLICY_TEXT_MAX];
	UNUSED(pt, 0);
	put(b, "%s", fl_entry_policy_text(x->e, t, sizeof t));
}
COLUMN_CELL(round) { UNUSED(pt, 0); put(b, "%d", x->round); }
COLUMN_CELL(slot) { UNUSED(pt, 0); put(b, "%d", x->slot); }
COLUMN_CELL(sems) { UNUSED(x, 0); put(b, "%d", pt->p.sems); }

/* The latency percentiles: the histogram's, minus a clock read (never
 * below 0); empty where no latency was recorded. */
static void lat_cell(struct row *b, double q)
{
	const struct fl_hist *h = b->ok ? b->ok->lat : NULL;
	if (!h || !h->n) {
		put_empty(b);
		return;
	}
	double v = (q < 1 ? fl_hist_quantile(h, q) : (double)h->max) - b->timer_ns;
	put(b, "%.0f", v < 0 ? 0 : v);
}
COLUMN_CELL(lat_p50_ns) { UNUSED(pt, x); lat_cell(b, 0.5); }
COLUMN_CELL(lat_p99_ns) { UNUSED(pt, x); lat_cell(b, 0.99); }
COLUMN_CELL(lat_p999_ns) { UNUSED(pt, x); lat_cell(b, 0.999); }
COLUMN_CELL(lat_max_ns) { UNUSED(pt, x); lat_cell(b, 1); }
COLUMN_CELL(lat_n)
{
	UNUSED(pt, x);
	if (b->ok && b->ok->lat && b->ok->lat->n)
		put(b, "%lld", (long long)b->ok->lat->n);
	else
		put_empty(b);
}

/* exec --metric: the program's figure on an ok row, %.10g (the figure's own
 * precision, 0.00001 and 1e12 alike); empty otherwise (NAN: no --metric). */
COLUMN_CELL(metric)
{
	UNUSED(pt, x);
	if (b->ok && !isnan(b->ok->metric))
		put(b, "%.10g", b->ok->metric);
	else
		put_empty(b);
}

/* ---- the row ----------------------------------------------------------------- */

#define ROW_FIELD(kind, name, arg, csv)                                        \
	FL_RESULT_CSV_##csv(if (x->r && when_##csv(&b, (double)x->r->name))   \
				    put_##kind(&b, x->r->name);               \
			    else                                              \
				    put_empty(&b);)
#define ROW_COLUMN(name) cell_##name(&b, pt, x);

void fl_run_row(char *out, size_t n, const struct fl_point *pt, const struct fl_run_rep *x,
		double timer_ns)
{
	bool ok = x->r && !strcmp(x->status, "ok");
	struct row b = { out, n, 0, 0, pt, x, ok ? x->r : NULL, timer_ns };
	out[0] = '\0';
	FL_RESULT_TABLE(ROW_FIELD, ROW_COLUMN)
	bool counted = x->r && x->round >= 0; /* warm-up rounds count nothing */
	char perf[200];
	fl_perf_cells(counted ? x->perf : NULL, perf, sizeof perf);
	if (b.len + strlen(perf) + 1 > n) {
		fprintf(stderr, "futexlab: CSV row longer than %zu bytes\n", n);
		exit(1);
	}
	memcpy(out + b.len, perf, strlen(perf) + 1);
	fl_probes_append(out, n, counted && x->probed);
	size_t l = strlen(out);
	if (l + 3 > n) {
		fprintf(stderr, "futexlab: CSV row longer than %zu bytes\n", n);
		exit(1);
	}
	/* probed: whether the collector counted this rep (harness/csv.md) */
	snprintf(out + l, n - l, ",%s", !x->r ? "" : counted && x->probed ? "1" : "0");
}

/* Nonzero buckets, 8 of the histogram's merged into one (1/8 of a power of
 * two wide: ~12 %, plenty for a plot, and a file 8 times smaller). */
enum { COARSE = 8 };

int fl_lat_rows(struct fl_csv *lat, const struct fl_point *pt, struct fl_hist **acc,
		const char *hash, double timer_ns)
{
	int e = 0;
	for (int i = 0; i < pt->ne; i++) {
		if (!acc[i])
			continue;
		char pol[FL_POLICY_TEXT_MAX];
		fl_entry_policy_text(&pt->e[i], pol, sizeof pol);
		for (int g = 0; lat && g < FL_HIST_BUCKETS / COARSE; g++) {
			uint64_t c = 0;
			for (int b = g * COARSE; b < (g + 1) * COARSE; b++)
				c += acc[i]->b[b];
			if (!c)
				continue;
			int last = (g + 1) * COARSE - 1;
			int64_t lo = fl_hist_lo(g * COARSE);
			int64_t width = fl_hist_lo(last) + fl_hist_width(last) - lo;
			char row[300];
			snprintf(row, sizeof row, "%s,%s,%d,%d,%lld,%lld,%s,%s,%s,%lld,%lld,%llu,%.0f",
				 pt->e[i].label, pt->w->name, pt->p.threads,
				 pt->w->uses_tokens ? pt->p.tokens : 0,
				 (long long)(pt->w->uses_tokens ? pt->p.hold_ns : 0),
				 (long long)(pt->w->uses_tokens ? pt->p.think_ns : 0),
				 fl_wake_name((enum fl_wake_strategy)pt->wake), pol,
				 hash, (long long)lo, (long long)width,
				 (unsigned long long)c, timer_ns);
			if (!e)
				e = fl_csv_append(lat, row);
		}
		free(acc[i]);
		acc[i] = NULL;
	}
	if (lat && !e)
		e = fl_csv_flush(lat);
	return e;
}
