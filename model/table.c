/* model/table.c — CSV text -> table -> cells -> paired ratios (table.h).
 * Every column it looks up by name is FL_COL(name) (columns.h): a name the
 * run CSV's table (schema/result_fields.h) does not write does not
 * compile. */
#include "model/table.h"

#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schema/columns.h"
#include "schema/fnv.h"
#include "schema/point_key.h"
#include "fail/xalloc.h"
#include "model/catalog.h"

/* Older files' name of the round column: `rep` (the rep's index in files
 * from before rounds, the round since; files from before the renames have
 * both, and a round column wins). */
#define OLD_REP "rep"
/* Older files' spin bound, a configuration column of the point then; the
 * waiting policy that replaced it is the entry's (its label, NAME@POLICY),
 * not the point's. */
#define OLD_SPIN "spin"

/* ---- CSV text -> table ------------------------------------------------- */

/* Splits one CSV line into cells (quotes with "" escapes). */
static char **split_csv(const char *line, int *ncell)
{
	int cap = 16, n = 0;
	char **out = fl_xmalloc((size_t)cap * sizeof *out);
	size_t len = strlen(line);
	char *buf = fl_xmalloc(len + 1);
	const char *p = line;
	for (;;) {
		size_t j = 0;
		if (*p == '"') {
			p++;
			while (*p) {
				if (*p == '"' && p[1] == '"')
					buf[j++] = '"', p += 2;
				else if (*p == '"') {
					p++;
					break;
				} else
					buf[j++] = *p++;
			}
			while (*p && *p != ',')
				p++; /* junk after a closing quote is dropped */
		} else {
			while (*p && *p != ',' && *p != '\n' && *p != '\r')
				buf[j++] = *p++;
		}
		buf[j] = '\0';
		if (n == cap)
			out = fl_xrealloc(out, (size_t)(cap *= 2) * sizeof *out);
		out[n++] = fl_xstrdup(buf);
		if (*p != ',')
			break;
		p++;
	}
	free(buf);
	*ncell = n;
	return out;
}

static void chomp(char *s)
{
	s[strcspn(s, "\r\n")] = '\0';
}

static void add_meta(struct fl_table *t, const char *line)
{
	const char *s = line + 1;
	if ((t->nmeta & (t->nmeta - 1)) == 0) /* grow at powers of two */
		t->meta = fl_xrealloc(t->meta, (size_t)(t->nmeta ? 2 * t->nmeta : 1) * sizeof *t->meta);
	while (*s == ' ')
		s++;
	const char *colon = strstr(s, ": ");
	if (!strncmp(s, "futexlab ", 9)) {
		t->meta[t->nmeta][0] = fl_xstrdup("revision");
		t->meta[t->nmeta][1] = fl_xstrdup(s + 9);
	} else if (colon) {
		t->meta[t->nmeta][0] = strndup(s, (size_t)(colon - s));
		t->meta[t->nmeta][1] = fl_xstrdup(colon + 2);
	} else {
		return;
	}
	t->nmeta++;
}


/* The trailer, "# end: N rows[, fnv1a64 HEX][, interrupted]" (the writer's:
 * record/csv.c): its count, checksum and mark into t. */
#define END_LINE "# end: "
static int add_end(struct fl_table *t, const char *line, int lineno, char *err, int errlen)
{
	const char *v = line + strlen(END_LINE), *sum = strstr(v, "fnv1a64 ");
	char *e;
	long n = strtol(v, &e, 10);
	if (t->end_line || e == v || n < 0 || n > INT_MAX || strncmp(e, " row", 4)) {
		snprintf(err, (size_t)errlen, "line %d: %s '%s' (not the end line futexlab writes)",
			 lineno, t->end_line ? "a second end line" : "an end line", line);
		return -1;
	}
	t->end_rows = (int)n;
	t->end_line = fl_xstrdup(line + 2);
	if (strstr(v, "interrupted"))
		t->end = FL_END_INTERRUPTED;
	else
		t->end = FL_END_DONE;
	if (sum && strtoull(sum + 8, NULL, 16) != t->rows_sum) {
		snprintf(err, (size_t)errlen, "line %d: the rows' checksum is not the one the end "
			 "line says (fnv1a64 %016llx read: a damaged copy)", lineno,
			 (unsigned long long)t->rows_sum);
		return -1;
	}
	return 0;
}

/* One line (lineno: its number in the file, for the error) into t. */
enum fl_line_kind fl_line_kind(const char *line, bool after_header)
{
	if (line[0] == '#')
		return after_header ? FL_LINE_OTHER : FL_LINE_META;
	if (line[0] == '\0')
		return FL_LINE_OTHER;
	return after_header ? FL_LINE_ROW : FL_LINE_HEADER;
}

static int add_line(struct fl_table *t, char *line, int lineno, char *err, int errlen)
{
	chomp(line);
	if (t->cols && t->end_line && line[0]) {
		snprintf(err, (size_t)errlen, "line %d: a line after the run's end line ('%s')",
			 lineno, t->end_line);
		return -1;
	}
	switch (fl_line_kind(line, t->cols != NULL)) {
	case FL_LINE_META:
		add_meta(t, line);
		return 0;
	case FL_LINE_OTHER: /* after the header: the end line, or a note; blank */
		if (line[0] == '#' && !strncmp(line, END_LINE, strlen(END_LINE)))
			return add_end(t, line, lineno, err, errlen);
		return 0;
	case FL_LINE_HEADER:
	case FL_LINE_ROW:
		break;
	}
	int n;
	char **cells = split_csv(line, &n);
	if (!t->cols) {
		t->cols = cells;
		t->ncol = n;
		t->end_rows = -1;
		t->rows_sum = FL_FNV_BASIS;
		return 0;
	}
	t->rows_sum = fl_fnv1a_line(t->rows_sum, line);
	bool again = n == t->ncol; /* the header a second time: two files joined */
	for (int j = 0; again && j < n; j++)
		again = !strcmp(cells[j], t->cols[j]);
	if (again) {
		snprintf(err, (size_t)errlen, "line %d: row %d is the header again (two files "
			 "joined?)", lineno, t->nrows + 1);
		for (int i = 0; i < n; i++)
			free(cells[i]);
		free(cells);
		return -1;
	}
	if (n == t->ncol + 1) {
		/* Files from a row writer that wrote empty numbers as two cells
		 * carry one extra empty cell before the status of skipped/error
		 * rows: drop it rather than refuse the whole file. */
		int ist = -1;
		for (int j = 0; j < t->ncol; j++)
			if (!strcmp(t->cols[j], FL_COL(status)))
				ist = j;
		if (ist >= 0 && cells[ist][0] == '\0' &&
		    (!strcmp(cells[ist + 1], "skipped") || !strcmp(cells[ist + 1], "error"))) {
			free(cells[ist]);
			memmove(&cells[ist], &cells[ist + 1], (size_t)(n - ist - 1) * sizeof *cells);
			n--;
		}
	}
	if (n != t->ncol) {
		/* A row of another width is a file cut short or damaged: its
		 * cells would land under the wrong columns. */
		snprintf(err, (size_t)errlen, "line %d: row %d has %d cells, the header %d "
			 "(a damaged or truncated file)", lineno, t->nrows + 1, n, t->ncol);
		for (int i = 0; i < n; i++)
			free(cells[i]);
		free(cells);
		return -1;
	}
	if ((t->nrows & (t->nrows - 1)) == 0) /* grow at powers of two */
		t->rows = fl_xrealloc(t->rows, (size_t)(t->nrows ? 2 * t->nrows : 1) * sizeof *t->rows);
	t->rows[t->nrows++] = cells;
	return 0;
}

/* Older files name a design by a former name (`posix` for glibc, its
 * control `posix#2`): their rows read as if written today, so a compare of
 * an old file with a new one pairs glibc with glibc, and the tables label
 * it by the name every other output uses (variants/registry.c.in). */
static void rename_former(struct fl_table *t)
{
	int iv = fl_table_col(t, "variant");
	for (int r = 0; iv >= 0 && r < t->nrows; r++) {
		char *v = t->rows[r][iv], name[64];
		size_t l = strcspn(v, "#"); /* the control's "#2" stays */
		if (l >= sizeof name)
			continue;
		memcpy(name, v, l);
		name[l] = '\0';
		const char *now = fl_catalog_current(name);
		if (now == name)
			continue;
		char *nv = fl_xmalloc(strlen(now) + strlen(v + l) + 1);
		strcat(strcpy(nv, now), v + l);
		free(v);
		t->rows[r][iv] = nv;
	}
}

static int finish(struct fl_table *t, char *err, int errlen)
{
	if (!t->cols) {
		snprintf(err, (size_t)errlen, "no header line (not a futexlab CSV)");
		return -1;
	}
	rename_former(t);
	static const char *const need[] = { FL_COL(variant), FL_COL(workload), FL_COL(ops),
					     FL_COL(ns_per_op), FL_COL(status) };
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
		int found = 0;
		for (int j = 0; j < t->ncol; j++)
			found |= !strcmp(t->cols[j], need[i]);
		if (!found) {
			snprintf(err, (size_t)errlen, "no '%s' column (not a futexlab CSV)", need[i]);
			return -1;
		}
	}
	if (fl_table_col(t, FL_COL(round)) < 0 && fl_table_col(t, OLD_REP) < 0) {
		snprintf(err, (size_t)errlen, "no 'round' column (not a futexlab CSV)");
		return -1;
	}
	if (t->end_line && t->end_rows != t->nrows) {
		snprintf(err, (size_t)errlen, "%d rows, but its end line says %d (a damaged copy)",
			 t->nrows, t->end_rows);
		return -1;
	}
	if (!t->end_line && strcmp(fl_table_meta(t, "format"), "?") &&
	    atoi(fl_table_meta(t, "format")) >= 2)
		t->end = FL_END_MISSING;
	return 0;
}

/* The figure columns a reader takes as numbers: empty, or finite and >= 0. */
static const char *const figure_cols[] = {
	FL_COL(ops), FL_COL(elapsed_ns), FL_COL(ns_per_op), FL_COL(ops_per_s),
	FL_COL(cpu_user_ns), FL_COL(cpu_sys_ns), FL_COL(csw_vol), FL_COL(csw_invol),
	FL_COL(metric),
};

static int bad_cell(int row, const char *col, const char *v, const char *why, char *err,
		    int errlen)
{
	snprintf(err, (size_t)errlen, "row %d: column %s: '%.40s' is not %s", row, col, v, why);
	return -1;
}

int fl_table_check_run(const struct fl_table *t, char *err, int errlen)
{
	if (!strcmp(fl_table_meta(t, "revision"), "?")) {
		snprintf(err, (size_t)errlen, "no '# futexlab REVISION' line (not a futexlab CSV)");
		return -1;
	}
	if (t->nrows == 0) {
		snprintf(err, (size_t)errlen, "no rows (a run that measured nothing)");
		return -1;
	}
	int ist = fl_table_col(t, FL_COL(status)), iround = fl_table_col(t, FL_COL(round));
	if (iround < 0)
		iround = fl_table_col(t, OLD_REP);
	bool metric = strcmp(fl_table_meta(t, "exec metric"), "?");
	const char *value = metric ? FL_COL(metric) : FL_COL(ns_per_op);
	for (int r = 0; r < t->nrows; r++) {
		char **row = t->rows[r];
		bool ok = !strcmp(row[ist], "ok");
		for (size_t k = 0; k < sizeof figure_cols / sizeof figure_cols[0]; k++) {
			int c = fl_table_col(t, figure_cols[k]);
			if (c < 0)
				continue;
			const char *v = row[c];
			char *end;
			double x = strtod(v, &end);
			bool num = end != v && !*end && isfinite(x);
			if (ok && !strcmp(figure_cols[k], value) && !(num && x > 0))
				return bad_cell(r + 1, value, v, "a finite number > 0 (an ok row's "
						"value)", err, errlen);
			if (v[0] && !(num && x >= 0))
				return bad_cell(r + 1, figure_cols[k], v, "a finite number >= 0", err,
						errlen);
		}
		char *end;
		if (ok && iround >= 0 && (strtol(row[iround], &end, 10), end == row[iround] || *end))
			return bad_cell(r + 1, t->cols[iround], row[iround], "an integer (an ok "
					"row's round)", err, errlen);
	}
	return 0;
}

int fl_table_end_note(const struct fl_table *t, char *out, size_t n)
{
	if (t->end == FL_END_MISSING)
		snprintf(out, n, "no end line: the run did not finish (killed, still running, or "
			 "the file cut at a row); read as it is");
	else if (t->end == FL_END_INTERRUPTED)
		snprintf(out, n, "an interrupted run (its end line: '%s'); read as it is",
			 t->end_line);
	else
		return 0;
	return 1;
}

int fl_table_read(struct fl_table *t, FILE *f, char *err, int errlen)
{
	memset(t, 0, sizeof *t);
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int r = 0, lineno = 0;
	while (r == 0 && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		/* Every line the writer ends is ended: one without its newline is
		 * the last, cut mid-line (a run killed while writing, a copy
		 * truncated). */
		if (len > 0 && line[len - 1] != '\n') {
			snprintf(err, (size_t)errlen, "line %d: the last line is cut (no final "
				 "newline: a truncated file)", lineno);
			r = -1;
			break;
		}
		r = add_line(t, line, lineno, err, errlen);
	}
	free(line);
	return r ? r : finish(t, err, errlen);
}

int fl_table_load(struct fl_table *t, const char *path, char *err, int errlen)
{
	memset(t, 0, sizeof *t);
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, (size_t)errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	int r = fl_table_read(t, f, err, errlen);
	fclose(f);
	if (r == 0)
		r = fl_table_check_run(t, err, errlen);
	if (r) {
		size_t l = strlen(err);
		snprintf(err + l, (size_t)errlen - l, " in %s", path);
		return r;
	}
	char note[300];
	if (fl_table_end_note(t, note, sizeof note))
		fprintf(stderr, "futexlab: warning: %s: %s\n", path, note);
	return 0;
}

int fl_table_from_lines(struct fl_table *t, const struct fl_csv_lines *l, char *err, int errlen)
{
	const char *header = l->header;
	char *const *rows = l->rows;
	int n = l->n;
	memset(t, 0, sizeof *t);
	char *h = fl_xstrdup(l->meta), *save = NULL;
	int r = 0, lineno = 0; /* the lines as a file of them would number them */
	for (char *x = strtok_r(h, "\n", &save); x && !r; x = strtok_r(NULL, "\n", &save))
		r = add_line(t, x, ++lineno, err, errlen);
	free(h);
	h = fl_xstrdup(header);
	if (!r)
		r = add_line(t, h, ++lineno, err, errlen);
	free(h);
	for (int i = 0; i < n && !r; i++) {
		char *l = fl_xstrdup(rows[i]);
		r = add_line(t, l, ++lineno, err, errlen);
		free(l);
	}
	return r ? r : finish(t, err, errlen);
}

void fl_table_free(struct fl_table *t)
{
	for (int i = 0; i < t->nmeta; i++)
		free(t->meta[i][0]), free(t->meta[i][1]);
	free(t->meta);
	for (int i = 0; i < t->nrows; i++) {
		for (int j = 0; j < t->ncol; j++)
			free(t->rows[i][j]);
		free(t->rows[i]);
	}
	for (int j = 0; j < t->ncol; j++)
		free(t->cols[j]);
	free(t->cols);
	free(t->rows);
	free(t->end_line);
	memset(t, 0, sizeof *t);
}

const char *fl_table_meta(const struct fl_table *t, const char *key)
{
	for (int i = 0; i < t->nmeta; i++)
		if (!strcmp(t->meta[i][0], key))
			return t->meta[i][1];
	return "?";
}

int fl_table_as_mark(const struct fl_table *t, int k, char *out, size_t n)
{
	for (int i = 0; i < t->nmeta; i++) {
		if (strcmp(t->meta[i][0], "as") || k--)
			continue;
		const char *v = t->meta[i][1], *eq = strchr(v, '=');
		int pl = eq ? (int)(eq - v) : 0, ml = eq ? (int)strcspn(eq + 1, " ") : 0;
		if (pl && ml) /* "negcount=perf_delay_800 (test only: ...)" */
			snprintf(out, n, "TEST RUN: %.*s is %.*s's code (--as); not a measurement of %.*s",
				 pl, v, ml, eq + 1, pl, v);
		else /* a line not of our making: shown as it is */
			snprintf(out, n, "TEST RUN (--as): %s", v);
		return 0;
	}
	return -1;
}

void fl_table_as_marks(FILE *f, const struct fl_table *t, const char *prefix)
{
	char m[300];
	for (int k = 0; fl_table_as_mark(t, k, m, sizeof m) == 0; k++)
		fprintf(f, "%s%s\n", prefix, m);
}

int fl_table_col(const struct fl_table *t, const char *name)
{
	for (int j = 0; j < t->ncol; j++)
		if (!strcmp(t->cols[j], name))
			return j;
	return -1;
}

/* ---- table -> (point, variant) cells ------------------------------------ */

const char *const fl_extra_cols[FL_NEXTRA] = {
	FL_COL(fair_jain),  FL_COL(fair_cv),    FL_COL(fair_min_max), FL_COL(starve_max_ns),
	FL_COL(lat_p50_ns), FL_COL(lat_p99_ns), FL_COL(lat_p999_ns),  FL_COL(lat_max_ns),
};

/* Probe columns (probes/columns.md; written by probes/session.c, so not
 * FL_COL names) and the column that says a row was probed (older files:
 * a non-empty futex_syscalls). */
const char *const fl_kcount_cols[FL_NKCOUNT] = {
	"futex_syscalls", "wait_calls", "wake_calls", "wake_none", "wait_eagain", "wakes_per_post",
	"resleeps", "herd_bursts", "wake_to_run_p50_ns", "wake_to_run_p99_ns", "cross_node_wakes",
};
#define PROBED_COL "probed"

/* Configuration columns appended right of `ops` by later options. */
static const char *const extra_config[] = { FL_COL(hash), OLD_SPIN, FL_COL(sems) };

/* The row's point key (schema/point_key.h): the workload, then a token per
 * configuration column, in the file's order. */
static void point_key(const struct fl_table *t, char **row, int iops, char *out, size_t n)
{
	int iw = fl_table_col(t, FL_COL(workload));
	snprintf(out, n, "%s", row[iw]);
	for (int c = 0; c < t->ncol; c++) {
		const char *name = t->cols[c];
		/* the point's configuration: left of `ops` (an older file's `rep`
		 * there is the round, not configuration) */
		bool config = c < iops && strcmp(name, OLD_REP);
		for (size_t e = 0; e < sizeof extra_config / sizeof extra_config[0]; e++)
			config |= !strcmp(name, extra_config[e]);
		if (config && c != iw && strcmp(name, FL_COL(variant)))
			fl_point_key_add(out, n, name, row[c]);
	}
}

/* The cell of (key, variant), made on first sight. */
static struct fl_cell *cell_for(struct fl_cells *out, int *cap, const char *key, char **row,
				const int *ix)
{
	for (int i = 0; i < out->n; i++)
		if (!strcmp(out->c[i].point, key) && !strcmp(out->c[i].variant, row[ix[0]]))
			return &out->c[i];
	if (out->n == *cap)
		out->c = fl_xrealloc(out->c, (size_t)(*cap = *cap ? 2 * *cap : 32) * sizeof *out->c);
	struct fl_cell *c = &out->c[out->n++];
	memset(c, 0, sizeof *c);
	c->point = fl_xstrdup(key);
	for (int k = 0; k < FL_NEXTRA; k++)
		c->extra[k] = NAN;
	c->cpu.median = c->csw.median = NAN; /* no ok rep yet */
	for (int k = 0; k < FL_NKCOUNT; k++)
		c->k[k] = NAN;
	c->variant = fl_xstrdup(row[ix[0]]);
	c->workload = fl_xstrdup(row[ix[1]]);
	c->threads = ix[2] >= 0 ? atoi(row[ix[2]]) : 0;
	c->status = fl_xstrdup(row[ix[3]]);
	c->note = fl_xstrdup(ix[4] >= 0 ? row[ix[4]] : "");
	return c;
}

static void set_status(struct fl_cell *c, const char *status, const char *note)
{
	free(c->status);
	free(c->note);
	c->status = fl_xstrdup(status);
	c->note = fl_xstrdup(note);
}

/* The columns fl_cells_build reads, looked up once (-1: not in the file). */
struct build_cols {
	int irep, iround, iopsn, ins, iops, inote;
	enum fl_value value;  /* what a row's value is (table.h) */
	int ival;             /* its column: ns_per_op or metric */
	int ix[5];          /* variant, workload, threads, status, note: what cell_for copies */
	int iex[FL_NEXTRA]; /* fl_extra_cols */
	int icpu[2], icsw[2]; /* cpu_user_ns, cpu_sys_ns; csw_vol, csw_invol */
	int iprobed;          /* probed (-1: an older file) */
	int ik[FL_NKCOUNT];   /* fl_kcount_cols */
};

/* A rep's counters summed over its ops (iopsn -1: the sum itself): NAN
 * when a column is absent, a cell empty or not a number (skipped, error
 * and older rows), or ops not positive. */
static double per_op(char **row, const int *ic, int n, int iopsn)
{
	double sum = 0, ops = iopsn >= 0 ? strtod(row[iopsn], NULL) : 1;
	for (int k = 0; k < n; k++) {
		if (ic[k] < 0)
			return NAN;
		char *end;
		double x = strtod(row[ic[k]], &end);
		if (end == row[ic[k]] || !isfinite(x) || x < 0)
			return NAN;
		sum += x;
	}
	return ops > 0 ? sum / ops : NAN;
}

/* Whether a row was probed: its `probed` cell is 1, or in a file without
 * that column its futex_syscalls cell is not empty. */
static bool row_probed(char **row, const struct build_cols *k)
{
	if (k->iprobed >= 0)
		return !strcmp(row[k->iprobed], "1");
	return k->ik[FL_K_FUTEX] >= 0 && row[k->ik[FL_K_FUTEX]][0] != '\0';
}

/* A probed ok rep's kernel counts: per op, but wakes_per_post and the
 * wake-to-run quantiles as written. */
static void add_kcounts(struct fl_cell *c, char **row, const struct build_cols *k)
{
	if ((c->nprobed & (c->nprobed - 1)) == 0) /* grow at powers of two */
		for (int e = 0; e < FL_NKCOUNT; e++)
			c->k_r[e] = fl_xrealloc(c->k_r[e], (size_t)(c->nprobed ? 2 * c->nprobed : 1) *
							   sizeof *c->k_r[e]);
	for (int e = 0; e < FL_NKCOUNT; e++) {
		bool as_is = e == FL_K_WAKES_PER_POST || e == FL_K_W2R_P50 || e == FL_K_W2R_P99;
		c->k_r[e][c->nprobed] = as_is ? per_op(row, &k->ik[e], 1, -1)
					       : per_op(row, &k->ik[e], 1, k->iopsn);
	}
	c->nprobed++;
}

/* One ok rep of cell c: its round, ns per op (v), ops/s, extra and CPU
 * columns; a probed one's kernel counts. */
static void add_rep(struct fl_cell *c, char **row, const struct build_cols *k, double v)
{
	bool probed = row_probed(row, k);
	if (probed)
		add_kcounts(c, row, k);
	if ((c->nr & (c->nr - 1)) == 0) { /* grow at powers of two */
		size_t m = (size_t)(c->nr ? 2 * c->nr : 1);
		c->round = fl_xrealloc(c->round, m * sizeof *c->round);
		c->ns_r = fl_xrealloc(c->ns_r, m * sizeof *c->ns_r);
		c->ops_r = fl_xrealloc(c->ops_r, m * sizeof *c->ops_r);
		c->cpu_r = fl_xrealloc(c->cpu_r, m * sizeof *c->cpu_r);
		c->csw_r = fl_xrealloc(c->csw_r, m * sizeof *c->csw_r);
		c->probed_r = fl_xrealloc(c->probed_r, m * sizeof *c->probed_r);
		for (int e = 0; e < FL_NEXTRA; e++)
			c->ex_r[e] = fl_xrealloc(c->ex_r[e], m * sizeof *c->ex_r[e]);
	}
	for (int e = 0; e < FL_NEXTRA; e++) {
		const char *cell = k->iex[e] >= 0 ? row[k->iex[e]] : "";
		char *end;
		double x = strtod(cell, &end);
		c->ex_r[e][c->nr] = end == cell || !isfinite(x) ? NAN : x;
	}
	c->round[c->nr] = atoi(row[k->iround >= 0 ? k->iround : k->irep]);
	c->ns_r[c->nr] = v;
	c->ops_r[c->nr] = k->iops >= 0 ? strtod(row[k->iops], NULL) : 1e9 / v;
	c->cpu_r[c->nr] = per_op(row, k->icpu, 2, k->iopsn);
	c->csw_r[c->nr] = per_op(row, k->icsw, 2, k->iopsn);
	c->probed_r[c->nr] = probed;
	c->nr++;
}

double fl_value_shown(enum fl_value kind, double v)
{
	return kind == FL_VALUE_HIGHER ? 1 / v : v;
}

/* The metadata line that makes a row's value the program's figure: what it
 * says the figure is (table.h). A file with the line but no metric column
 * (one written by hand) is refused rather than read as wall time. */
#define METRIC_META "exec metric"
static int value_kind(const struct fl_table *t, struct build_cols *k, char *err, int errlen)
{
	const char *m = fl_table_meta(t, METRIC_META), *hi = "(higher is better)";
	k->value = FL_VALUE_NS;
	k->ival = k->ins;
	if (!strcmp(m, "?"))
		return 0; /* fl_table_meta's "?": no such line, wall time as before */
	size_t l = strlen(m), lh = strlen(hi);
	k->value = l >= lh && !strcmp(m + l - lh, hi) ? FL_VALUE_HIGHER : FL_VALUE_LOWER;
	k->ival = fl_table_col(t, FL_COL(metric));
	if (k->ival < 0) {
		snprintf(err, (size_t)errlen, "a '# %s:' line but no '%s' column", METRIC_META,
			 FL_COL(metric));
		return -1;
	}
	return 0;
}

/* An ok row's value (table.h): > 0, or NAN when its cell is not a positive
 * number (the file is refused: an ok row always has one). */
static double row_value(char **row, const struct build_cols *k)
{
	char *end;
	double v = strtod(row[k->ival], &end);
	if (end == row[k->ival] || !(v > 0) || !isfinite(v)) /* fl_table_check_run's rule */
		return NAN;
	return k->value == FL_VALUE_HIGHER ? 1 / v : v;
}

/* The summary of the values of x[0..n) that are not NAN (tmp: n doubles of
 * scratch); n == 0 and median NAN when there are none. */
static struct fl_summary summarize_known(const double *x, int n, double *tmp)
{
	int m = 0;
	for (int r = 0; r < n; r++)
		if (!isnan(x[r]))
			tmp[m++] = x[r];
	if (m)
		return fl_summarize(tmp, m);
	return (struct fl_summary){ .median = NAN, .min = NAN, .max = NAN, .mad = NAN,
				    .ci_lo = NAN, .ci_hi = NAN };
}

/* Keeps only the unprobed reps in the timed arrays when the cell has both
 * kinds (table.h: time, CPU and csw come from unprobed rounds). */
static void drop_probed(struct fl_cell *c)
{
	int m = 0;
	for (int r = 0; r < c->nr; r++)
		m += !c->probed_r[r];
	if (m == 0 || m == c->nr)
		return;
	m = 0;
	for (int r = 0; r < c->nr; r++) {
		if (c->probed_r[r])
			continue;
		c->round[m] = c->round[r], c->ns_r[m] = c->ns_r[r], c->ops_r[m] = c->ops_r[r];
		c->cpu_r[m] = c->cpu_r[r], c->csw_r[m] = c->csw_r[r], c->probed_r[m] = false;
		for (int e = 0; e < FL_NEXTRA; e++)
			c->ex_r[e][m] = c->ex_r[e][r];
		m++;
	}
	c->nr = m;
}

static void summarize_cell(struct fl_cell *c)
{
	drop_probed(c);
	double *tmp = fl_xmalloc((size_t)c->nr * sizeof *tmp);
	memcpy(tmp, c->ns_r, (size_t)c->nr * sizeof *tmp);
	c->ns = fl_summarize(tmp, c->nr);
	/* the figure's own median (of an even count: the mean of the two
	 * middle figures, not the reciprocal of the costs' mean) */
	for (int r = 0; r < c->nr; r++)
		tmp[r] = fl_value_shown(c->value, c->ns_r[r]);
	c->shown = fl_median(tmp, c->nr);
	memcpy(tmp, c->ops_r, (size_t)c->nr * sizeof *tmp);
	c->ops_s = fl_median(tmp, c->nr);
	for (int k = 0; k < FL_NEXTRA; k++)
		c->extra[k] = summarize_known(c->ex_r[k], c->nr, tmp).median;
	c->cpu = summarize_known(c->cpu_r, c->nr, tmp);
	c->csw = summarize_known(c->csw_r, c->nr, tmp);
	free(tmp);
	tmp = fl_xmalloc((size_t)(c->nprobed ? c->nprobed : 1) * sizeof *tmp);
	for (int e = 0; e < FL_NKCOUNT; e++)
		c->k[e] = summarize_known(c->k_r[e], c->nprobed, tmp).median;
	free(tmp);
}

/* Whether a `# point N (LABEL)` line's LABEL names the point of cell c:
 * the point's key itself (what the runner writes: schema/point_key.h),
 * or (an older file's short form) its workload, T= and K= — K only where
 * the key has one — and, in a file whose label has it, the wake mode. */
static bool label_is(const char *label, size_t l, const struct fl_cell *c)
{
	if (strlen(c->point) == l && !strncmp(c->point, label, l))
		return true;
	char w[64], wake[40] = "", lb[512];
	int th, k = -1;
	snprintf(lb, sizeof lb, "%.*s", (int)l, label);
	if (sscanf(lb, "%63s T=%d K=%d %31s", w, &th, &k, wake) < 2 || strcmp(w, c->workload) ||
	    th != c->threads)
		return false;
	const char *K = strstr(c->point, " K=");
	if (K && atoi(K + 3) != k)
		return false;
	if (!wake[0]) /* an older file's label: no wake mode */
		return true;
	char want[48];
	snprintf(want, sizeof want, " wake=%s", wake);
	const char *at = strstr(c->point, want);
	return at && (at[strlen(want)] == ' ' || at[strlen(want)] == '\0');
}

/* The points in the order of the file's point numbers (`# point N
 * (LABEL): ...`, the runner's, which every view then keeps: one numbering
 * for the CSV, the tables, the summary and the page); of two points one
 * label fits, the one seen first takes the lower number; a file without
 * those lines keeps the rows' order. Cells of one point stay in order. */
static void by_point_number(const struct fl_table *t, struct fl_cells *out)
{
	int *rank = fl_xcalloc((size_t)out->n + 1, sizeof *rank);
	for (int i = 0; i < out->n; i++)
		rank[i] = INT_MAX;
	for (int m = 0; m < t->nmeta; m++) {
		const char *key = t->meta[m][0], *open = strchr(key, '('), *close = strrchr(key, ')');
		int n;
		if (strncmp(key, "point ", 6) || !open || !close || sscanf(key + 6, "%d", &n) != 1)
			continue;
		int first = -1; /* the first point seen that fits and has no number yet */
		for (int i = 0; i < out->n && first < 0; i++)
			if (rank[i] == INT_MAX && label_is(open + 1, (size_t)(close - open - 1), &out->c[i]))
				first = i;
		for (int i = 0; first >= 0 && i < out->n; i++)
			if (!strcmp(out->c[i].point, out->c[first].point))
				rank[i] = n;
	}
	/* a stable insertion sort by rank (cells are few: points x entries) */
	for (int i = 1; i < out->n; i++) {
		struct fl_cell x = out->c[i];
		int r = rank[i], j = i;
		for (; j > 0 && rank[j - 1] > r; j--)
			out->c[j] = out->c[j - 1], rank[j] = rank[j - 1];
		out->c[j] = x, rank[j] = r;
	}
	free(rank);
}

int fl_cells_build(const struct fl_table *t, struct fl_cells *out, char *err, int errlen)
{
	memset(out, 0, sizeof *out);
	struct build_cols k = {
		.irep = fl_table_col(t, OLD_REP), .iround = fl_table_col(t, FL_COL(round)),
		.iopsn = fl_table_col(t, FL_COL(ops)), .ins = fl_table_col(t, FL_COL(ns_per_op)),
		.iops = fl_table_col(t, FL_COL(ops_per_s)), .inote = fl_table_col(t, FL_COL(note)),
		.ix = { fl_table_col(t, FL_COL(variant)), fl_table_col(t, FL_COL(workload)),
			fl_table_col(t, FL_COL(threads)), fl_table_col(t, FL_COL(status)),
			fl_table_col(t, FL_COL(note)) },
		.icpu = { fl_table_col(t, FL_COL(cpu_user_ns)), fl_table_col(t, FL_COL(cpu_sys_ns)) },
		.icsw = { fl_table_col(t, FL_COL(csw_vol)), fl_table_col(t, FL_COL(csw_invol)) },
		.iprobed = fl_table_col(t, PROBED_COL),
	};
	for (int e = 0; e < FL_NKCOUNT; e++)
		k.ik[e] = fl_table_col(t, fl_kcount_cols[e]);
	if (k.ix[0] < 0 || k.ix[1] < 0 || (k.irep < 0 && k.iround < 0) || k.iopsn < 0 ||
	    k.ins < 0 || k.ix[3] < 0) {
		snprintf(err, (size_t)errlen, "missing columns");
		return -1;
	}
	out->paired = k.iround >= 0;
	if (value_kind(t, &k, err, errlen))
		return -1;
	out->value = k.value;
	if (k.value != FL_VALUE_NS)
		out->metric = fl_xstrdup(fl_table_meta(t, METRIC_META));
	for (int e = 0; e < FL_NEXTRA; e++)
		k.iex[e] = fl_table_col(t, fl_extra_cols[e]);
	int cap = 0;
	for (int r = 0; r < t->nrows; r++) {
		char **row = t->rows[r];
		char key[512];
		point_key(t, row, k.iopsn, key, sizeof key);
		struct fl_cell *c = cell_for(out, &cap, key, row, k.ix);
		c->value = k.value; /* every cell, skipped ones too: a point's header reads its first */
		const char *st = row[k.ix[3]], *note = k.inote >= 0 ? row[k.inote] : "";
		if (strcmp(st, "ok")) {
			/* error wins over everything; skipped/interrupted over ok-less */
			if (strcmp(c->status, "error") && (!strcmp(st, "error") || c->nr == 0))
				set_status(c, st, note);
			continue;
		}
		double v = row_value(row, &k);
		if (isnan(v)) {
			snprintf(err, (size_t)errlen, "row %d: %s '%s' is not a positive number", r + 1,
				 t->cols[k.ival], row[k.ival]);
			fl_cells_free(out);
			return -1;
		}
		add_rep(c, row, &k, v);
	}
	int nodes = atoi(fl_table_meta(t, "numa")); /* "2 nodes ..."; no line: "?", 0 */
	for (int i = 0; i < out->n; i++) {
		struct fl_cell *c = &out->c[i];
		c->nodes = nodes;
		if (!c->nr)
			continue;
		summarize_cell(c);
		if (strcmp(c->status, "error"))
			set_status(c, "ok", "");
	}
	by_point_number(t, out);
	return 0;
}

void fl_cells_free(struct fl_cells *c)
{
	for (int i = 0; i < c->n; i++) {
		struct fl_cell *x = &c->c[i];
		free(x->point), free(x->workload), free(x->variant), free(x->status), free(x->note);
		free(x->round), free(x->ns_r), free(x->ops_r), free(x->cpu_r), free(x->csw_r);
		free(x->probed_r);
		for (int k = 0; k < FL_NEXTRA; k++)
			free(x->ex_r[k]);
		for (int k = 0; k < FL_NKCOUNT; k++)
			free(x->k_r[k]);
	}
	free(c->c);
	free(c->metric);
	memset(c, 0, sizeof *c);
}

const struct fl_cell *fl_cell_find(const struct fl_cells *c, const char *point,
				   const char *variant)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->c[i].point, point) && !strcmp(c->c[i].variant, variant))
			return &c->c[i];
	return NULL;
}

const struct fl_cell *fl_cell_find_variant(const struct fl_cells *c, const char *variant)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->c[i].variant, variant))
			return &c->c[i];
	return NULL;
}

bool fl_cell_usable(const struct fl_cell *c)
{
	return c && !strcmp(c->status, "ok") && c->ns.n > 0;
}

/* Paired per round: x's value over base's, of ns per op or (cpu) CPU ns
 * per op, over the rounds where both have a positive one. */
static bool paired(const struct fl_cell *x, const struct fl_cell *base, bool cpu,
		   struct fl_ratio *out)
{
	if (!fl_cell_usable(x) || !fl_cell_usable(base))
		return false;
	const double *xv = cpu ? x->cpu_r : x->ns_r, *bv = cpu ? base->cpu_r : base->ns_r;
	/* x's rounds beside base's same rounds, then the one pairing rule */
	size_t sz = (size_t)(x->nr ? x->nr : 1) * sizeof(double);
	double *a = fl_xmalloc(sz), *b = fl_xmalloc(sz), *r = fl_xmalloc(sz);
	int k = 0;
	for (int i = 0; i < x->nr; i++)
		for (int j = 0; j < base->nr; j++)
			if (x->round[i] == base->round[j]) {
				a[k] = xv[i], b[k++] = bv[j];
				break;
			}
	int n = fl_ratio_paired(a, b, k, r, out);
	free(a), free(b), free(r);
	return n > 0;
}

bool fl_cell_ratio(const struct fl_cell *x, const struct fl_cell *base, struct fl_ratio *out)
{
	return paired(x, base, false, out);
}

bool fl_cell_cpu_ratio(const struct fl_cell *x, const struct fl_cell *base, struct fl_ratio *out)
{
	return paired(x, base, true, out);
}
