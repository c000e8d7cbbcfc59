/* harness/compare.c — `futexlab compare`: see compare.h.
 *
 * Noise rule. A variant differs from the baseline, or an "after" from its
 * "before", only when the two 95% confidence intervals of the median (stats.h:
 * order statistics, distribution-free) do not overlap. Non-overlap of two
 * 95% intervals is a conservative test (its false-alarm rate is well under
 * 5%); the price is that small real changes over few reps read as "within
 * the noise" — rerun with more --reps to resolve them. */
#include "compare.h"

#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run.h"
#include "xalloc.h"

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
	if (t->nmeta == 8)
		return;
	const char *s = line + 1;
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

static int add_line(struct fl_table *t, char *line, char *err, int errlen)
{
	chomp(line);
	if (line[0] == '#') {
		if (!t->cols)
			add_meta(t, line);
		return 0;
	}
	if (line[0] == '\0')
		return 0;
	int n;
	char **cells = split_csv(line, &n);
	if (!t->cols) {
		t->cols = cells;
		t->ncol = n;
		return 0;
	}
	if (n == t->ncol + 1) {
		/* Files written before the fix of run.c's empty-number cells carry
		 * one extra empty cell before the status of skipped/error rows:
		 * drop it rather than refuse the whole file. */
		int ist = -1;
		for (int j = 0; j < t->ncol; j++)
			if (!strcmp(t->cols[j], "status"))
				ist = j;
		if (ist >= 0 && cells[ist][0] == '\0' &&
		    (!strcmp(cells[ist + 1], "skipped") || !strcmp(cells[ist + 1], "error"))) {
			free(cells[ist]);
			memmove(&cells[ist], &cells[ist + 1], (size_t)(n - ist - 1) * sizeof *cells);
			n--;
		}
	}
	if (n < t->ncol) { /* pad: a short row is missing trailing cells */
		cells = fl_xrealloc(cells, (size_t)t->ncol * sizeof *cells);
		for (; n < t->ncol; n++)
			cells[n] = fl_xstrdup("");
	} else if (n > t->ncol) {
		snprintf(err, (size_t)errlen, "row %d has %d cells, header has %d", t->nrows + 1, n,
			 t->ncol);
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

static int finish(struct fl_table *t, char *err, int errlen)
{
	if (!t->cols) {
		snprintf(err, (size_t)errlen, "no header line (not a futexlab CSV)");
		return -1;
	}
	static const char *const need[] = { "variant", "workload", "rep", "ns_per_op", "status" };
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
		int found = 0;
		for (int j = 0; j < t->ncol; j++)
			found |= !strcmp(t->cols[j], need[i]);
		if (!found) {
			snprintf(err, (size_t)errlen, "no '%s' column (not a futexlab CSV)", need[i]);
			return -1;
		}
	}
	return 0;
}

int fl_table_load(struct fl_table *t, const char *path, char *err, int errlen)
{
	memset(t, 0, sizeof *t);
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, (size_t)errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	int r = 0;
	while (r == 0 && getline(&line, &cap, f) >= 0)
		r = add_line(t, line, err, errlen);
	free(line);
	fclose(f);
	if (r == 0)
		r = finish(t, err, errlen);
	if (r) {
		size_t l = strlen(err);
		snprintf(err + l, (size_t)errlen - l, " in %s", path);
	}
	return r;
}

int fl_table_from_lines(struct fl_table *t, const char *head, char *const *rows, int n,
			char *err, int errlen)
{
	memset(t, 0, sizeof *t);
	char *h = fl_xstrdup(head), *save = NULL;
	int r = 0;
	for (char *l = strtok_r(h, "\n", &save); l && !r; l = strtok_r(NULL, "\n", &save))
		r = add_line(t, l, err, errlen);
	free(h);
	for (int i = 0; i < n && !r; i++) {
		char *l = fl_xstrdup(rows[i]);
		r = add_line(t, l, err, errlen);
		free(l);
	}
	return r ? r : finish(t, err, errlen);
}

void fl_table_free(struct fl_table *t)
{
	for (int i = 0; i < t->nmeta; i++)
		free(t->meta[i][0]), free(t->meta[i][1]);
	for (int i = 0; i < t->nrows; i++) {
		for (int j = 0; j < t->ncol; j++)
			free(t->rows[i][j]);
		free(t->rows[i]);
	}
	for (int j = 0; j < t->ncol; j++)
		free(t->cols[j]);
	free(t->cols);
	free(t->rows);
	memset(t, 0, sizeof *t);
}

const char *fl_table_meta(const struct fl_table *t, const char *key)
{
	for (int i = 0; i < t->nmeta; i++)
		if (!strcmp(t->meta[i][0], key))
			return t->meta[i][1];
	return "?";
}

static int col(const struct fl_table *t, const char *name)
{
	for (int j = 0; j < t->ncol; j++)
		if (!strcmp(t->cols[j], name))
			return j;
	return -1;
}

/* ---- table -> (point, variant) cells ------------------------------------ */

/* Configuration columns appended right of `rep` by later options. */
static const char *const extra_config[] = { "hash", "spin" };

static void point_key(const struct fl_table *t, char **row, int irep, char *out, size_t n)
{
	size_t j = 0;
	out[0] = '\0';
	int iw = col(t, "workload");
	j += (size_t)snprintf(out, n, "%s", row[iw]);
	for (int c = 0; c < t->ncol && j < n; c++) {
		const char *name = t->cols[c];
		bool config = c < irep;
		for (size_t e = 0; e < sizeof extra_config / sizeof extra_config[0]; e++)
			config |= !strcmp(name, extra_config[e]);
		if (!config || c == iw || !strcmp(name, "variant"))
			continue;
		const char *v = row[c];
		/* hash=auto:N records what the kernel chose at that row (it sizes
		 * the private hash when the process first starts threads): still
		 * one mode, "auto", for grouping. */
		if (!strcmp(name, "hash") && !strncmp(v, "auto:", 5))
			v = "auto";
		const char *label = !strcmp(name, "threads") ? "T" : !strcmp(name, "tokens") ? "K"
			: !strcmp(name, "hold_ns") ? "hold" : !strcmp(name, "think_ns") ? "think"
			: name;
		/* "0" means "does not apply" for these (see the CSV schema) */
		if (!strcmp(v, "0") && (!strcmp(name, "tokens") || !strcmp(name, "hold_ns") ||
					!strcmp(name, "think_ns")))
			continue;
		j += (size_t)snprintf(out + j, n - j, " %s=%s", label, v);
	}
}

struct acc {
	double *ns, *ops;
	int n, cap;
};

int fl_cells_build(const struct fl_table *t, struct fl_cells *out, char *err, int errlen)
{
	memset(out, 0, sizeof *out);
	int iv = col(t, "variant"), iw = col(t, "workload"), irep = col(t, "rep"),
	    ins = col(t, "ns_per_op"), iops = col(t, "ops_per_s"), ist = col(t, "status"),
	    inote = col(t, "note"), ith = col(t, "threads");
	if (iv < 0 || iw < 0 || irep < 0 || ins < 0 || ist < 0) {
		snprintf(err, (size_t)errlen, "missing columns");
		return -1;
	}
	struct acc *acc = NULL;
	int cap = 0;
	for (int r = 0; r < t->nrows; r++) {
		char **row = t->rows[r];
		char key[512];
		point_key(t, row, irep, key, sizeof key);
		int i;
		for (i = 0; i < out->n; i++)
			if (!strcmp(out->c[i].point, key) && !strcmp(out->c[i].variant, row[iv]))
				break;
		if (i == out->n) {
			if (out->n == cap) {
				cap = cap ? 2 * cap : 32;
				out->c = fl_xrealloc(out->c, (size_t)cap * sizeof *out->c);
				acc = fl_xrealloc(acc, (size_t)cap * sizeof *acc);
			}
			struct fl_cell *c = &out->c[out->n];
			memset(c, 0, sizeof *c);
			memset(&acc[out->n], 0, sizeof acc[out->n]);
			c->point = fl_xstrdup(key);
			c->workload = fl_xstrdup(row[iw]);
			c->variant = fl_xstrdup(row[iv]);
			c->threads = ith >= 0 ? atoi(row[ith]) : 0;
			c->status = fl_xstrdup(row[ist]);
			c->note = fl_xstrdup(inote >= 0 ? row[inote] : "");
			out->n++;
		}
		assert(acc && i < out->n); /* grown in step with out->c above */
		struct fl_cell *c = &out->c[i];
		struct acc *a = &acc[i];
		if (!strcmp(row[ist], "ok")) {
			char *end;
			double v = strtod(row[ins], &end);
			if (end == row[ins] || !(v > 0)) {
				snprintf(err, (size_t)errlen, "row %d: ns_per_op '%s' is not a positive number",
					 r + 1, row[ins]);
				for (int k = 0; k < out->n; k++) {
					free(acc[k].ns);
					free(acc[k].ops);
				}
				free(acc);
				fl_cells_free(out);
				return -1;
			}
			if (a->n == a->cap) {
				a->cap = a->cap ? 2 * a->cap : 16;
				a->ns = fl_xrealloc(a->ns, (size_t)a->cap * sizeof *a->ns);
				a->ops = fl_xrealloc(a->ops, (size_t)a->cap * sizeof *a->ops);
			}
			a->ns[a->n] = v;
			a->ops[a->n] = iops >= 0 ? strtod(row[iops], NULL) : 1e9 / v;
			a->n++;
		} else if (strcmp(c->status, "error")) {
			/* error wins over everything; skipped/interrupted over ok-less */
			if (!strcmp(row[ist], "error") || a->n == 0) {
				free(c->status);
				free(c->note);
				c->status = fl_xstrdup(row[ist]);
				c->note = fl_xstrdup(inote >= 0 ? row[inote] : "");
			}
		}
	}
	for (int i = 0; i < out->n; i++) {
		struct fl_cell *c = &out->c[i];
		if (acc[i].n) {
			c->ns = fl_summarize(acc[i].ns, acc[i].n);
			c->ops_s = fl_median(acc[i].ops, acc[i].n);
			if (strcmp(c->status, "error")) {
				free(c->status);
				c->status = fl_xstrdup("ok");
			}
		}
		free(acc[i].ns);
		free(acc[i].ops);
	}
	free(acc);
	return 0;
}

void fl_cells_free(struct fl_cells *c)
{
	for (int i = 0; i < c->n; i++) {
		free(c->c[i].point);
		free(c->c[i].workload);
		free(c->c[i].variant);
		free(c->c[i].status);
		free(c->c[i].note);
	}
	free(c->c);
	memset(c, 0, sizeof *c);
}

static const struct fl_cell *find(const struct fl_cells *c, const char *point, const char *variant)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->c[i].point, point) && !strcmp(c->c[i].variant, variant))
			return &c->c[i];
	return NULL;
}

static bool usable(const struct fl_cell *c)
{
	return c && !strcmp(c->status, "ok") && c->ns.n > 0;
}

/* ---- output -------------------------------------------------------------- */

static void print_machine(FILE *f, const char *label, const struct fl_table *t)
{
	fprintf(f, "%s%s, %s cores, %s; futexlab %s, %s\n", label, fl_table_meta(t, "cpu"),
		fl_table_meta(t, "cores"), fl_table_meta(t, "kernel"),
		fl_table_meta(t, "revision"), fl_table_meta(t, "date"));
}

void fl_print_ratios(FILE *f, const struct fl_table *t, const struct fl_cells *c,
		     const char *baseline)
{
	print_machine(f, "machine: ", t);
	fprintf(f, "ns per op: median over reps; MAD relative to the median; CI of the median "
		   "by order statistics, with its coverage\nratio: median / %s's median; "
		   "faster/slower only when the two CIs do not overlap, else ~ (within the noise)\n",
		baseline);
	int noisy = 0, errors = 0;
	for (int i = 0; i < c->n; i++) {
		const struct fl_cell *x = &c->c[i];
		bool seen = false; /* print each point once, at its first cell */
		for (int j = 0; j < i; j++)
			seen |= !strcmp(c->c[j].point, x->point);
		if (seen)
			continue;
		fprintf(f, "\n%s\n  %-14s %11s %6s  %-30s %12s %8s\n", x->point, "variant",
			"median ns", "MAD", "CI of the median, coverage", "ops/s", "ratio");
		const struct fl_cell *ref = find(c, x->point, baseline);
		for (int j = i; j < c->n; j++) {
			const struct fl_cell *y = &c->c[j];
			if (strcmp(y->point, x->point))
				continue;
			if (!usable(y)) {
				fprintf(f, "  %-14s %s%s%s\n", y->variant, y->status, y->note[0] ? ": " : "",
					y->note);
				errors += !strcmp(y->status, "error");
				continue;
			}
			char ci[64];
			snprintf(ci, sizeof ci, "[%.1f, %.1f] %2.0f%%", y->ns.ci_lo, y->ns.ci_hi,
				 100 * y->ns.ci_level);
			fprintf(f, "  %-14s %11.1f %5.1f%%  %-30s %12.0f", y->variant, y->ns.median,
				100 * y->ns.mad / y->ns.median, ci, y->ops_s);
			if (usable(ref) && y == ref)
				fprintf(f, " %7.2fx  baseline", 1.0);
			else if (usable(ref))
				fprintf(f, " %7.2fx  %s", y->ns.median / ref->ns.median,
					!fl_ci_apart(&y->ns, &ref->ns) ? "~"
					: y->ns.median < ref->ns.median ? "faster" : "slower");
			else
				fprintf(f, " %8s", "-");
			if (fl_noisy(&y->ns)) {
				fprintf(f, "  NOISY");
				noisy++;
			}
			fputc('\n', f);
		}
	}
	if (noisy)
		fprintf(f, "\nwarning: %d row(s) marked NOISY: MAD above %.0f%% of the median; "
			   "do not trust their differences (more --reps, a quieter machine)\n",
			noisy, 100 * FL_NOISY_MAD);
	if (errors)
		fprintf(f, "%d row(s) broke an invariant (error above)\n", errors);
}

int fl_print_changes(FILE *f, const struct fl_table *a, const struct fl_cells *ca,
		     const struct fl_table *b, const struct fl_cells *cb, bool all)
{
	print_machine(f, "before: ", a);
	print_machine(f, "after:  ", b);
	if (strcmp(fl_table_meta(a, "cpu"), fl_table_meta(b, "cpu")) ||
	    strcmp(fl_table_meta(a, "cores"), fl_table_meta(b, "cores")) ||
	    strcmp(fl_table_meta(a, "kernel"), fl_table_meta(b, "kernel")))
		fprintf(f, "warning: the two files come from different machines or kernels\n");
	fprintf(f, "a change is reported only when the 95%% CIs of the two medians do not "
		   "overlap\n\n%-44s %-14s %10s %10s %8s  %s\n", "point", "variant", "before",
		"after", "change", "verdict");
	int changed = 0, same = 0, only = 0;
	for (int i = 0; i < cb->n; i++) {
		const struct fl_cell *y = &cb->c[i], *x = find(ca, y->point, y->variant);
		if (!x) {
			only++;
			if (all)
				fprintf(f, "%-44s %-14s %10s %10s %8s  only after\n", y->point, y->variant,
					"-", "-", "");
			continue;
		}
		if (!usable(x) || !usable(y)) {
			bool status_changed = strcmp(x->status, y->status) != 0;
			if (status_changed || all)
				fprintf(f, "%-44s %-14s %10s %10s %8s  %s\n", y->point, y->variant,
					x->status, y->status, "", status_changed ? "STATUS CHANGED" : "-");
			changed += status_changed;
			continue;
		}
		bool apart = fl_ci_apart(&x->ns, &y->ns);
		if (apart)
			changed++;
		else
			same++;
		if (!apart && !all)
			continue;
		fprintf(f, "%-44s %-14s %10.1f %10.1f %+7.1f%%  %s%s\n", y->point, y->variant,
			x->ns.median, y->ns.median, 100 * (y->ns.median / x->ns.median - 1),
			!apart ? "~ within the noise" : y->ns.median < x->ns.median ? "FASTER" : "SLOWER",
			fl_noisy(&x->ns) || fl_noisy(&y->ns) ? " (noisy)" : "");
	}
	for (int i = 0; i < ca->n; i++)
		if (!find(cb, ca->c[i].point, ca->c[i].variant)) {
			only++;
			if (all)
				fprintf(f, "%-44s %-14s %10s %10s %8s  only before\n", ca->c[i].point,
					ca->c[i].variant, "-", "-", "");
		}
	fprintf(f, "\n%d changed beyond the noise, %d within it, %d in one file only\n", changed,
		same, only);
	return changed;
}

/* ---- the command --------------------------------------------------------- */

static const char compare_usage[] =
"usage: futexlab compare FILE.csv [OTHER.csv] [options]\n"
"  one file:   the ratio table of every variant against the baseline per point\n"
"  two files:  before (FILE) / after (OTHER) per point and variant; only the\n"
"              changes beyond the noise (non-overlapping 95% CIs) are listed\n"
"  --baseline NAME  the variant ratios are taken against (default posix)\n"
"  --all            two files: list every pair, not only the changes\n"
"  --tsv            one file: one tab-separated line per point and variant\n"
"                   (what scripts/plot reads)\n";

static void print_tsv(const struct fl_cells *c)
{
	printf("workload\tpoint\tvariant\tthreads\tstatus\tn\tmedian_ns\tmad_ns\tci_lo\tci_hi\t"
	       "min_ns\tmax_ns\tops_s\top\n");
	for (int i = 0; i < c->n; i++) {
		const struct fl_cell *x = &c->c[i];
		const struct fl_workload *w = fl_workload_find(x->workload);
		const char *op = w ? w->op : "op"; /* what one op is, for plot titles */
		if (!usable(x)) {
			printf("%s\t%s\t%s\t%d\t%s\t0\t\t\t\t\t\t\t\t%s\n", x->workload, x->point,
			       x->variant, x->threads, x->status, op);
			continue;
		}
		printf("%s\t%s\t%s\t%d\tok\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f\t%s\n",
		       x->workload, x->point, x->variant, x->threads, x->ns.n, x->ns.median,
		       x->ns.mad, x->ns.ci_lo, x->ns.ci_hi, x->ns.min, x->ns.max, x->ops_s, op);
	}
}

int fl_cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "baseline", required_argument, 0, 'b' }, { "all", no_argument, 0, 'a' },
		{ "tsv", no_argument, 0, 't' },            { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *baseline = "posix";
	bool all = false, tsv = false;
	opterr = 0;
	optind = 1;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'b': baseline = optarg; break;
		case 'a': all = true; break;
		case 't': tsv = true; break;
		case 'h': fputs(compare_usage, stdout); return 0;
		case ':': fl_usage_error("compare: %s needs a value", argv[optind - 1]);
		default:
			fl_usage_error("compare: unknown option '%s' (see futexlab compare --help)",
				       argv[optind - 1]);
		}
	}
	int nfiles = argc - optind;
	if (nfiles < 1 || nfiles > 2)
		fl_usage_error("compare: give one or two CSV files (see futexlab compare --help)");
	if (tsv && nfiles != 1)
		fl_usage_error("compare: --tsv takes one file");
	struct fl_table t[2];
	struct fl_cells c[2];
	char err[300];
	for (int i = 0; i < nfiles; i++) {
		if (fl_table_load(&t[i], argv[optind + i], err, sizeof err) ||
		    fl_cells_build(&t[i], &c[i], err, sizeof err))
			fl_usage_error("compare: %s", err);
	}
	if (tsv) {
		print_tsv(&c[0]);
	} else if (nfiles == 1) {
		bool have = false;
		for (int i = 0; i < c[0].n; i++)
			have |= !strcmp(c[0].c[i].variant, baseline);
		if (!have)
			fl_usage_error("compare: baseline '%s' is not in %s (see --baseline)", baseline,
				       argv[optind]);
		printf("futexlab compare %s\n", argv[optind]);
		fl_print_ratios(stdout, &t[0], &c[0], baseline);
	} else {
		printf("futexlab compare %s %s\n", argv[optind], argv[optind + 1]);
		fl_print_changes(stdout, &t[0], &c[0], &t[1], &c[1], all);
	}
	for (int i = 0; i < nfiles; i++) {
		fl_cells_free(&c[i]);
		fl_table_free(&t[i]);
	}
	return 0;
}
