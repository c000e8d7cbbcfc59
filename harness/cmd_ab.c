/* harness/cmd_ab.c — `futexlab ab`: two builds compared in one run.
 *
 * The gate across revisions, made where a change is visible: inside one
 * run, on one machine in one state. Between runs a VM's contended points
 * change state (results/gate.md: intervals of x/÷2 and more from a history
 * of runs); inside a run, paired by round, they do not. So ab runs the base
 * build, the head build and a control — the base built a second time in
 * another layout — side by side (harness/ab.md):
 *
 *   - every rep runs in a fresh process of its own build (`futexlab run` of
 *     that build, one round of one point), so both sides run the same way
 *     and only the code differs; the three sides of a (round, point) get
 *     the same seed, so each runs the point's entries in the same order;
 *   - round r visits every point once, in a fresh random order, and each
 *     point's three sides in a balanced random order (the six orders dealt
 *     from a shuffled deck, so no side is systematically first);
 *   - each round gives every pair (entry, point) one sample ln(head/base),
 *     and its A/A one sample ln(control/base); report/ab.h judges them,
 *     family-wise over the gated pairs;
 *   - sequential: the pairs still undecided after the first rounds get
 *     more, as many again each time (Pinpoint's doubling), within --budget
 *     seconds and at most FL_AB_LOOKS looks; each look is judged at
 *     alpha / FL_AB_LOOKS, so the run's false-alarm rate stays alpha
 *     whichever look decides.
 * Rows go to one CSV (column `side`; each side's revision and binary in
 * the metadata), rewritten after every round: Ctrl-C keeps what finished. */
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/ab.h"
#include "harness/catalog.h"
#include "runner/cli.h"
#include "harness/commands.h"
#include "runner/runner.h"
#include "runner/spec.h"
#include "lib/clock.h"
#include "lib/wake.h"
#include "proc/helper.h"
#include "proc/interrupt.h"
#include "record/csv.h"
#include "record/run_row.h"
#include "report/ab.h"
#include "model/catalog.h"
#include "model/table.h"
#include "fail/xalloc.h"

/* The looks a run may take: the first rounds, then twice more at most. */
#define FL_AB_LOOKS 3
#define FL_AB_DEFAULT_ROUNDS 10

enum { O_BASE = 1, O_HEAD, O_CONTROL, O_THRESHOLD, O_FAIL_ON, O_ONLY, O_ALPHA, O_BUDGET,
       O_CSV, O_JSON, O_DETAIL, O_QUIET, O_DRY, O_WARMUP, O_JUDGE };

static const struct fl_option own[] = {
	{ "base", required_argument, O_BASE, "REF", "the build judged against: a build "
	  "directory, a futexlab binary, or a git revision of this repository (built once in "
	  "a cached worktree, build-ab/, with this build's meson options: scripts/ab-build)" },
	{ "head", required_argument, O_HEAD, "REF", "the build judged (default: this build)" },
	{ "control", required_argument, O_CONTROL, "REF", "the A/A side (default: the base's "
	  "revision built a second time, every function aligned otherwise: its layout moved as "
	  "an unrelated change would move it)" },
	{ "threshold", required_argument, O_THRESHOLD, "PCT", "the least change that matters, in "
	  "percent (default 10): slower needs the ratio beyond it, same needs the interval "
	  "inside it" },
	{ "fail-on", required_argument, O_FAIL_ON, "slower|any", "exit 1 when a gated pair is "
	  "slower (any: or faster) (default slower)" },
	{ "only", required_argument, O_ONLY, "WHAT", "the pairs gated: all (default), designs, "
	  "libraries, or a comma list of names (NAME also matches NAME@POLICY)" },
	{ "alpha", required_argument, O_ALPHA, "P", "the run's false-alarm rate over all its "
	  "gated pairs (default 0.05)" },
	{ "budget", required_argument, O_BUDGET, "S", "seconds the whole run may take, the "
	  "rounds added to undecided pairs included (default: twice the first rounds' time; 0: "
	  "no rounds added)" },
	{ "warmup", required_argument, O_WARMUP, "N", "unmeasured rounds in each child run "
	  "before its measured one (default 0: every side starts cold alike)" },
	{ "csv", required_argument, O_CSV, "FILE", "the run's rows, all sides (default "
	  "results/ab.csv)" },
	{ "json", no_argument, O_JSON, NULL, "the judgement as JSON on stdout (harness/json.md)" },
	{ "detail", no_argument, O_DETAIL, NULL, "every pair, not only those not same" },
	{ "quiet", no_argument, O_QUIET, NULL, "no progress on stderr" },
	{ "dry-run", no_argument, O_DRY, NULL, "the sides, points, entries and rounds; run nothing" },
	{ "judge", required_argument, O_JUDGE, "FILE", "judge an A/B CSV again (another "
	  "--threshold, --only, --alpha); run nothing" },
};
#define NOWN ((int)(sizeof own / sizeof own[0]))

/* The options of run and sweep that ab takes: they choose the points, the
 * entries and each rep; the rest (probes, control, floors, output) are
 * ab's to set. */
static const char *const passed[] = { "preset", "variant", "variants", "workload", "workloads",
				      "threads", "tokens", "sems", "wake", "policy", "spin",
				      "hash", "hold", "think", "duration", "ops", "rounds",
				      "seed", "as", "pin", "stranded-ms", "baseline", NULL };

static bool is_passed(const char *name)
{
	for (int i = 0; passed[i]; i++)
		if (!strcmp(passed[i], name))
			return true;
	return false;
}

struct ab_point {
	const struct fl_point *pt;
	char label[192];           /* the point's key (schema/point_key.h) */
	char *key;                 /* its key in the tables (model/table.h), from its
				    * first rows; NULL: none yet */
	char *args[48];            /* the child's argv after the binary, but --variant's
				    * value, --seed's, --csv's and --as */
	int nargs;
	char *owned[16];           /* the values among them made here (freed) */
	int nowned;
	char *entries[FL_MAXENTRY];
	int nentries;
	bool want[FL_MAXENTRY];    /* the entries the current batch runs */
};

struct ab_run {
	struct fl_ab_side side[3];
	struct ab_point *pts;
	int npts;
	const char *as;            /* --as, the head's only */
	struct fl_csv csv;
	char **cols;               /* the CSV's columns, this build's (and `side` last) */
	int ncol, round_col;
	const char *tmpdir;        /* scratch_dir: $TMPDIR (or /tmp)/futexlab-ab.XXXXXX */
	uint64_t rng;
	int deck[6], ndeck;
	int rounds_done;
	double t0;
	bool quiet;
	bool use_workers;          /* every side has ab-worker: a process per side per round */
	struct fl_ab_worker w[3];
};

static const int orders[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
				  { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return fl_xcheck(s);
}

static double now_s(void)
{
	return (double)fl_now_ns() / 1e9;
}

/* A value made for a's arguments, kept to be freed. */
static char *own_arg(struct ab_point *a, char *v)
{
	return a->owned[a->nowned++] = v;
}

/* The child's arguments for one point (ab_point.args). */
static void point_args(struct ab_point *a, const struct fl_spec *s)
{
	const struct fl_point *pt = a->pt;
	const struct fl_workload *w = pt->w;
	char **v = a->args;
	int n = 0;
	v[n++] = "run";
	v[n++] = "--workload";
	v[n++] = (char *)w->name;
	if (!w->fixed_threads) {
		v[n++] = "--threads";
		v[n++] = own_arg(a, xasprintf("%d", pt->p.threads));
	}
	if (w->uses_tokens) {
		v[n++] = "--tokens";
		v[n++] = own_arg(a, xasprintf("%d", pt->p.tokens));
	}
	if (pt->p.sems > 1) {
		v[n++] = "--sems";
		v[n++] = own_arg(a, xasprintf("%d", pt->p.sems));
	}
	if (w->busy_work && (pt->p.hold_ns || pt->p.think_ns)) {
		v[n++] = "--hold";
		v[n++] = own_arg(a, xasprintf("%lld", (long long)pt->p.hold_ns));
		v[n++] = "--think";
		v[n++] = own_arg(a, xasprintf("%lld", (long long)pt->p.think_ns));
	}
	v[n++] = "--wake";
	v[n++] = (char *)fl_wake_name(pt->wake);
	if (pt->p.ops) {
		v[n++] = "--ops";
		v[n++] = own_arg(a, xasprintf("%lld", (long long)pt->p.ops));
	} else {
		v[n++] = "--duration";
		v[n++] = own_arg(a, xasprintf("%.9g", (double)pt->p.duration_ns / 1e9));
	}
	v[n++] = "--hash";
	v[n++] = (char *)s->hlist;
	if (s->pin) {
		v[n++] = "--pin";
		v[n++] = (char *)s->pin;
	}
	if (pt->p.stranded_ns != 50000000) {
		v[n++] = "--stranded-ms";
		v[n++] = own_arg(a, xasprintf("%lld", (long long)(pt->p.stranded_ns / 1000000)));
	}
	v[n++] = "--rounds";
	v[n++] = "1";
	v[n++] = "--no-control";
	v[n++] = "--no-floors";
	v[n++] = "--no-probes";
	v[n++] = "--quiet";
	/* the point as the tables spell it, under the one mode ab runs (--hash) */
	fl_run_row_key(pt, s->hlist, a->label, sizeof a->label);
	a->nargs = n;
	for (int e = 0; e < pt->ne; e++) {
		const char *l = pt->e[e].label;
		if (!strncmp(l, "floor-", 6) || fl_is_control(l, s->blabel))
			continue;
		a->entries[a->nentries] = (char *)l;
		a->want[a->nentries++] = true;
	}
}

/* One child CSV's rows into the run's CSV: its columns found by name (one
 * this build lacks is left out, one the child lacks is empty), the round
 * the A/B run's, the side last. Returns the rows added, -1: unreadable. */
static int add_rows(struct ab_run *R, struct ab_point *a, const char *path, int side, int round,
		    char err[static 512])
{
	int errlen = 512;
	struct fl_table t;
	if (fl_table_load(&t, path, err, errlen)) {
		fl_table_free(&t);
		return -1;
	}
	struct fl_cells cells;
	if (!a->key && !fl_cells_build(&t, &cells, err, errlen)) {
		if (cells.n)
			a->key = fl_xstrdup(cells.c[0].point);
		fl_cells_free(&cells);
	}
	int map[512];
	for (int j = 0; j < R->ncol && j < 512; j++)
		map[j] = fl_table_col(&t, R->cols[j]);
	for (int i = 0; i < t.nrows; i++) {
		size_t cap = 4096, l = 0;
		char *row = fl_xmalloc(cap);
		row[0] = 0;
		for (int j = 0; j < R->ncol; j++) {
			char cell[1024];
			const char *v = "";
			if (j == R->round_col) {
				snprintf(cell, sizeof cell, "%d", round);
				v = cell;
			} else if (j == R->ncol - 1) {
				v = fl_ab_sides[side];
			} else if (map[j] >= 0) {
				v = t.rows[i][map[j]];
				if (strpbrk(v, ",\"\n")) {
					fl_csv_quote(cell, sizeof cell, v);
					v = cell;
				}
			}
			size_t vl = strlen(v);
			while (l + vl + 2 > cap)
				row = fl_xrealloc(row, cap *= 2);
			l += (size_t)sprintf(row + l, "%s%s", j ? "," : "", v);
		}
		fl_csv_append(&R->csv, row);
		free(row);
	}
	int n = t.nrows;
	if (R->as && side == 1) /* the head's test-run mark, once */
		for (int i = 0; i < t.nmeta; i++)
			if (!strcmp(t.meta[i][0], "as") && !strstr(R->csv.meta, t.meta[i][1]))
				fl_csv_meta(&R->csv, "as: %s", t.meta[i][1]);
	fl_table_free(&t);
	return n;
}

/* --as's pairs whose design is among the entries a wants this time (a
 * later look runs the undecided ones only, and run refuses a stand-in for
 * a design it does not run) into out; false when none is. */
static bool as_for(const char *as, const struct ab_point *a, char *out, size_t n)
{
	size_t l = 0;
	out[0] = 0;
	for (const char *s = as; *s;) {
		size_t len = strcspn(s, ","), plen = strcspn(s, "=");
		bool in = false;
		for (int e = 0; e < a->nentries && !in && plen < len; e++)
			in = a->want[e] && !strncmp(a->entries[e], s, plen) &&
			     (a->entries[e][plen] == 0 || a->entries[e][plen] == '@');
		if (in)
			l += (size_t)snprintf(out + l, l < n ? n - l : 0, "%s%.*s", l ? "," : "",
					      (int)len, s);
		s += len + (s[len] == ',');
	}
	return out[0] != 0 && l < n;
}

/* One point of one round on one side: its child run and its rows. Exit 2
 * (the child's own line) when the side refuses the run as bad input. */
static void run_slot(struct ab_run *R, struct ab_point *a, int side, int round, uint64_t seed)
{
	char list[4096] = "", first[64] = "", csv[256], errp[256], seedbuf[32];
	size_t l = 0;
	for (int e = 0; e < a->nentries; e++)
		if (a->want[e])
			l += (size_t)snprintf(list + l, sizeof list - l, "%s%s", l ? "," : "",
					      a->entries[e]);
	snprintf(csv, sizeof csv, "%s/slot.csv", R->tmpdir);
	snprintf(errp, sizeof errp, "%s/%s.err", R->tmpdir, fl_ab_sides[side]);
	snprintf(seedbuf, sizeof seedbuf, "%llu", (unsigned long long)seed);
	char *argv[64];
	int n = 0;
	for (int i = 0; i < a->nargs; i++)
		argv[n++] = a->args[i];
	argv[n++] = "--variant";
	argv[n++] = list;
	argv[n++] = "--baseline";
	snprintf(first, sizeof first, "%.*s", (int)strcspn(list, ","), list);
	argv[n++] = first;
	argv[n++] = "--seed";
	argv[n++] = seedbuf;
	argv[n++] = "--csv";
	argv[n++] = csv;
	char as[1024];
	if (R->as && side == 1 && as_for(R->as, a, as, sizeof as)) {
		argv[n++] = "--as";
		argv[n++] = as;
	}
	argv[n] = NULL;
	unlink(csv);
	int rc;
	if (R->use_workers) {
		rc = fl_ab_worker_run(&R->w[side], argv);
		if (rc < 0) /* it died: a usage error ends a worker as it ends a run */
			rc = fl_ab_worker_stop(&R->w[side]);
	} else {
		truncate(errp, 0);
		rc = fl_ab_side_run(&R->side[side], argv, errp);
	}
	char line[1024];
	if (rc == 2) {
		fl_ab_first_error(errp, line, sizeof line);
		fl_usage_error("ab: the %s side (%s, %s) refused the run: %s", fl_ab_sides[side],
			       R->side[side].ref, R->side[side].rev, line);
	}
	if (rc == 130 || rc == 128 + 2 || rc == 128 + 15)
		fl_interrupted = 1;
	if (rc != 0 && rc != 1 && !fl_interrupted) {
		fl_ab_first_error(errp, line, sizeof line);
		fprintf(stderr, "futexlab: ab: the %s side's run of %s ended with status %d: %s\n",
			fl_ab_sides[side], a->label, rc, line);
	}
	char err[512];
	if (access(csv, F_OK) == 0 && add_rows(R, a, csv, side, round, err) < 0)
		fl_usage_error("ab: the %s side (%s, %s) wrote a CSV this build cannot read: %s",
			       fl_ab_sides[side], R->side[side].ref, R->side[side].rev, err);
}

/* One round: every point with an entry wanted, in a fresh random order,
 * its sides in the next order of the deck. */
static void run_round(struct ab_run *R, int round)
{
	int order[1024];
	fl_round_order(&R->rng, R->npts, order);
	for (int i = 0; i < 3 && R->use_workers; i++) { /* a fresh process per side and round */
		char errp[256];
		snprintf(errp, sizeof errp, "%s/%s.err", R->tmpdir, fl_ab_sides[i]);
		truncate(errp, 0);
		if (fl_ab_worker_start(&R->w[i], &R->side[i], errp))
			fl_usage_error("ab: cannot start the %s side's worker (%s)", fl_ab_sides[i],
				       R->side[i].bin);
	}
	for (int k = 0; k < R->npts && !fl_interrupted; k++) {
		struct ab_point *a = &R->pts[order[k]];
		bool any = false;
		for (int e = 0; e < a->nentries; e++)
			any |= a->want[e];
		if (!any)
			continue;
		if (!R->ndeck) { /* the six orders, reshuffled each time they are used up */
			fl_round_order(&R->rng, 6, R->deck);
			R->ndeck = 6;
		}
		const int *o = orders[R->deck[--R->ndeck]];
		uint64_t seed = fl_rng_next(&R->rng) >> 1; /* --seed takes an int64 */
		for (int i = 0; i < 3 && !fl_interrupted; i++)
			run_slot(R, a, o[i], round, seed);
	}
	for (int i = 0; i < 3 && R->use_workers; i++)
		if (R->w[i].pid)
			fl_ab_worker_stop(&R->w[i]);
	fl_csv_flush(&R->csv);
}

/* The run so far as a table (the CSV's own lines: nothing parsed back from
 * disk), judged. */
static int judge_now(struct ab_run *R, struct fl_table *t, struct fl_ab *ab,
		     const struct fl_ab_opts *o)
{
	char err[512];
	struct fl_csv_lines l = { R->csv.meta, R->csv.header, R->csv.lines, R->csv.n };
	if (fl_table_from_lines(t, &l, err, sizeof err) || fl_ab_judge(ab, t, o, err, sizeof err)) {
		fprintf(stderr, "futexlab: ab: %s\n", err);
		return -1;
	}
	return 0;
}

static void progress(const struct ab_run *R, const char *what)
{
	if (!R->quiet)
		fprintf(stderr, "futexlab: progress: ab %s after %.0fs\n", what, now_s() - R->t0);
}

/* Judges an A/B CSV again: exit status the judgement's. */
static int judge_file(const char *path, const struct fl_ab_opts *o, bool json, bool detail)
{
	struct fl_table t;
	struct fl_ab ab;
	char err[512];
	if (fl_table_load(&t, path, err, sizeof err))
		fl_usage_error("ab --judge %s: %s", path, err);
	if (fl_ab_judge(&ab, &t, o, err, sizeof err))
		fl_usage_error("ab --judge %s: %s", path, err);
	if (json)
		fl_ab_json(stdout, &ab, &t);
	else {
		fl_table_as_marks(stdout, &t, "");
		fl_ab_print(stdout, &ab, detail);
	}
	int st = (int)ab.status;
	fl_ab_free(&ab);
	fl_table_free(&t);
	return st;
}

/* What the command line asked for: ab's own options, and the run/sweep
 * options passed on (sargv, for the head's spec). */
struct ab_args {
	const char *base, *head, *control, *csv_path, *judge;
	struct fl_ab_opts ao;
	double budget;               /* < 0: twice the first rounds' time */
	int warmup;
	bool json, detail, quiet, dry;
	char *sargv[256];
	int sargc;
	char *owned[128];            /* the option names made for sargv (freed) */
	int nowned;
};

static const char synopsis[] =
	"usage: futexlab ab --base REF [--head REF] [run/sweep options] [options]\n"
	"  two builds in one run: every pair (entry, point) on both sides in interleaved\n"
	"  rounds, each side's reps in a fresh process of its own build, an A/A control\n"
	"  beside them; exit 0 pass, 1 a gated pair slower (--fail-on), 3 inconclusive (a\n"
	"  pair that could not rule out a change of the threshold, or an A/A that moved),\n"
	"  2 bad input (harness/ab.md)\n";

/* ab's own option c (not a run/sweep one) into A; false: not one. */
static bool own_option(struct ab_args *A, int c, const char *arg)
{
	switch (c) {
	case O_BASE: A->base = arg; break;
	case O_HEAD: A->head = arg; break;
	case O_CONTROL: A->control = arg; break;
	case O_THRESHOLD:
		A->ao.threshold = 1 + fl_parse_double("--threshold", arg, 0.1, 1000) / 100;
		break;
	case O_FAIL_ON:
		if (strcmp(arg, "slower") && strcmp(arg, "any"))
			fl_usage_error("ab --fail-on: '%s' is not slower or any", arg);
		A->ao.fail_on_any = !strcmp(arg, "any");
		break;
	case O_ONLY: A->ao.only = arg; break;
	case O_ALPHA: A->ao.alpha = fl_parse_double("--alpha", arg, 1e-6, 0.5); break;
	case O_BUDGET: A->budget = fl_parse_double("--budget", arg, 0, 86400); break;
	case O_WARMUP: A->warmup = (int)fl_parse_int("--warmup", arg, 0, 100); break;
	case O_CSV: A->csv_path = arg; break;
	case O_JSON: A->json = true; break;
	case O_DETAIL: A->detail = true; break;
	case O_QUIET: A->quiet = true; break;
	case O_DRY: A->dry = true; break;
	case O_JUDGE: A->judge = arg; break;
	default: return false;
	}
	return true;
}

/* argv into A: 1 when --help was printed. Bad input: one line, exit 2. */
static int parse_args(struct ab_args *A, int argc, char **argv)
{
	*A = (struct ab_args){ .csv_path = "results/ab.csv", .budget = -1,
			       .ao = { .threshold = 1.10, .alpha = 0.05, .min_rounds = 6 } };
	struct fl_option o[FL_SPEC_MAXOPTS + 32], all[FL_SPEC_MAXOPTS + 32];
	int na = fl_spec_options(0, own, NOWN, all, FL_SPEC_MAXOPTS + 32), n = 0;
	for (int i = 0; i < na; i++) /* the passed rows, then ab's own, then --help */
		if (!fl_spec_option_row(all[i].code) || is_passed(all[i].name))
			o[n++] = all[i];
	struct option lopts[FL_SPEC_MAXOPTS + 33];
	fl_options_getopt(o, n, lopts);
	A->sargv[A->sargc++] = "ab";
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		const struct fl_spec_option *row = fl_spec_option_row(c);
		if (row) {
			if (A->sargc > 250 || A->nowned >= 128)
				fl_usage_error("ab: too many options");
			A->sargv[A->sargc++] = A->owned[A->nowned++] = xasprintf("--%s", row->name);
			if (row->arg)
				A->sargv[A->sargc++] = optarg;
		} else if (c == 'h') {
			fl_options_usage(stdout, synopsis, o, n, NULL);
			return 1;
		} else if (!own_option(A, c, optarg)) {
			fl_spec_bad_option("ab", c, argv);
		}
	}
	if (optind < argc)
		fl_usage_error("ab: unexpected argument '%s'", argv[optind]);
	if (A->judge && (A->base || A->head || A->control || A->sargc > 1 || A->dry))
		fl_usage_error("ab --judge: judges a CSV; no --base, --head, --control, run "
			       "options or --dry-run with it");
	if (!A->judge && !A->base)
		fl_usage_error("ab: --base REF is required (a build directory, a futexlab binary, "
			       "or a git revision)");
	return 0;
}

/* The head's spec from the passed options: the points and entries. */
static int head_points(struct ab_args *A, struct fl_spec *s, struct fl_point **pts)
{
	bool rounds_given = false;
	for (int i = 1; i < A->sargc; i++) {
		rounds_given |= !strcmp(A->sargv[i], "--rounds");
		if (!strcmp(A->sargv[i], "--hash") && strchr(A->sargv[i + 1], ','))
			fl_usage_error("ab --hash: one mode (a list runs one process per mode; run "
				       "ab once per mode)");
	}
	A->sargv[A->sargc++] = "--no-probes";
	A->sargv[A->sargc] = NULL;
	static const struct fl_spec_defaults d = { .threads = "1,2,4,8", .rounds = 10,
						   .warmup = 0, .duration = 0.1 };
	fl_spec_parse(s, "ab", &d, A->sargc, A->sargv);
	if (!rounds_given)
		s->rounds = FL_AB_DEFAULT_ROUNDS;
	return fl_points_build(s, pts);
}

/* The run's scratch directory (plan's mkdtemp), removed whole however ab
 * ends: at cleanup, or at exit when a refusal (exit 2) ends it first. */
static char scratch_dir[192];

static void remove_scratch(void)
{
	if (!scratch_dir[0])
		return;
	/* every file in it, whatever wrote it (a run writes its .lat.csv and
	 * .txt beside the slot's CSV): the directory is ab's own */
	DIR *dir = opendir(scratch_dir);
	struct dirent *e;
	while (dir && (e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(dir), e->d_name, 0);
	if (dir)
		closedir(dir);
	rmdir(scratch_dir);
	scratch_dir[0] = '\0';
}

/* The three sides resolved, each run's arguments made. */
static void plan(struct ab_run *R, const struct ab_args *A, const struct fl_spec *s,
		 struct fl_point *pts, int npts)
{
	/* the runs' scratch files (each slot's CSV and what a run writes beside
	 * it, the sides' stderr, the builds' logs) under $TMPDIR, as mktemp's */
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) > sizeof scratch_dir - sizeof "/futexlab-ab.XXXXXX")
		tmp = "/tmp";
	snprintf(scratch_dir, sizeof scratch_dir, "%s/futexlab-ab.XXXXXX", tmp);
	if (!mkdtemp(scratch_dir))
		fl_usage_error("ab: cannot make a temporary directory in %s", tmp);
	atexit(remove_scratch);
	R->tmpdir = scratch_dir;
	for (int i = 1; i < A->sargc; i++)
		if (!strcmp(A->sargv[i], "--as"))
			R->as = A->sargv[i + 1];
	char self[PATH_MAX];
	fl_ab_side_resolve(&R->side[0], "--base", A->base, false, R->tmpdir);
	fl_ab_side_resolve(&R->side[1], "--head", A->head ? A->head :
			   fl_ab_self_build(self, sizeof self), false, R->tmpdir);
	if (A->control) {
		fl_ab_side_resolve(&R->side[2], "--control", A->control, false, R->tmpdir);
	} else {
		const char *rev = R->side[0].built ? A->base : R->side[0].rev;
		if (strstr(rev, "dirty"))
			fl_usage_error("ab --base %s: its revision %s has uncommitted changes, so it "
				       "cannot be built again: give --control REF", A->base, rev);
		fl_ab_side_resolve(&R->side[2], "--control", rev, true, R->tmpdir);
	}
	R->use_workers = true;
	for (int i = 0; i < 3; i++)
		R->use_workers &= fl_ab_side_has_worker(&R->side[i]);
	R->npts = npts;
	R->pts = fl_xcalloc((size_t)npts, sizeof *R->pts);
	for (int p = 0; p < npts; p++) {
		struct ab_point *a = &R->pts[p];
		a->pt = &pts[p];
		point_args(a, s);
		a->args[a->nargs++] = "--warmup";
		a->args[a->nargs++] = own_arg(a, xasprintf("%d", A->warmup));
	}
}

static void dry_run(const struct ab_run *R, int rounds)
{
	int nent = 0;
	for (int p = 0; p < R->npts; p++)
		nent += R->pts[p].nentries;
	printf("ab: %d points, %d pairs, %d rounds first, each side's reps in a fresh process "
	       "of its build per round\n", R->npts, nent, rounds);
	for (int i = 0; i < 3; i++)
		printf("  %-7s %s: %s (%s)%s\n", fl_ab_sides[i], R->side[i].ref, R->side[i].bin,
		       R->side[i].rev, R->side[i].layout ? ", another layout" : "");
	for (int p = 0; p < R->npts; p++) {
		printf("  point %d: %s:", p + 1, R->pts[p].label);
		for (int e = 0; e < R->pts[p].nentries; e++)
			printf(" %s", R->pts[p].entries[e]);
		printf("\n");
	}
}

/* The run's CSV: this build's columns and `side`, the sides' metadata. */
static void open_csv(struct ab_run *R, const char *path, uint64_t seed, int argc, char **argv)
{
	char *header = xasprintf("%s,side", fl_run_csv_header()), *h = fl_xstrdup(header), *save;
	R->cols = fl_xmalloc(512 * sizeof *R->cols);
	for (char *t = strtok_r(h, ",", &save); t && R->ncol < 512; t = strtok_r(NULL, ",", &save))
		R->cols[R->ncol++] = t;
	R->round_col = -1;
	for (int j = 0; j < R->ncol; j++)
		if (!strcmp(R->cols[j], "round"))
			R->round_col = j;
	if (fl_csv_open(&R->csv, path, header, argc, argv))
		fl_usage_error("ab --csv %s: cannot write it", path);
	free(header);
	R->rng = seed;
	fl_csv_meta(&R->csv, "seed: %llu", (unsigned long long)seed);
	fl_csv_meta(&R->csv, "ab: head against base, control the base again; each side's reps "
		    "in a fresh process of its build per round, the sides of a point in a balanced "
		    "random order (harness/ab.md)");
	for (int i = 0; i < 3; i++)
		fl_csv_meta(&R->csv, "side %s: %s %s (%s%s)", fl_ab_sides[i], R->side[i].rev,
			    R->side[i].bin, R->side[i].ref, R->side[i].layout ? ", another layout" : "");
}

/* The next batch: the undecided gated pairs' entries at their points.
 * Returns how many pairs are undecided. */
static int want_undecided(struct ab_run *R, const struct fl_ab *ab)
{
	int undecided = 0;
	for (int p = 0; p < R->npts; p++)
		for (int e = 0; e < R->pts[p].nentries; e++)
			R->pts[p].want[e] = false;
	for (int j = 0; j < ab->npair; j++) {
		if (!fl_ab_undecided(&ab->pair[j]))
			continue;
		undecided++;
		for (int p = 0; p < R->npts; p++)
			if (R->pts[p].key && !strcmp(R->pts[p].key, ab->pair[j].point))
				for (int e = 0; e < R->pts[p].nentries; e++)
					if (!strcmp(R->pts[p].entries[e], ab->pair[j].entry))
						R->pts[p].want[e] = true;
	}
	return undecided;
}

/* The looks: the first rounds on every pair, then as many again on the
 * undecided ones, at most FL_AB_LOOKS looks within the budget. t and ab
 * hold the last judgement. Returns the looks taken, -1: cannot judge. */
static int run_looks(struct ab_run *R, struct ab_args *A, int rounds, struct fl_table *t,
		     struct fl_ab *ab)
{
	int total = rounds, batch = rounds, looks = 0;
	double first = 0;
	while (!fl_interrupted) {
		for (int r = 0; r < batch && !fl_interrupted; r++) {
			if (looks && now_s() - R->t0 > A->budget)
				break;
			run_round(R, R->rounds_done++);
			char w[64];
			snprintf(w, sizeof w, "round %d of %d", r + 1, batch);
			progress(R, w);
		}
		if (!looks)
			first = now_s() - R->t0;
		if (A->budget < 0)
			A->budget = 2 * first;
		looks++;
		fl_ab_free(ab);
		fl_table_free(t);
		if (judge_now(R, t, ab, &A->ao))
			return -1;
		int undecided = want_undecided(R, ab);
		if (!undecided || looks >= FL_AB_LOOKS || now_s() - R->t0 + first / 4 > A->budget)
			break;
		batch = total;
		total += batch;
		char w[96];
		snprintf(w, sizeof w, "look %d: %d pairs undecided, %d rounds more for them", looks,
			 undecided, batch);
		progress(R, w);
	}
	return looks;
}

static void cleanup(struct ab_run *R, struct ab_args *A, struct fl_point *pts)
{
	for (int p = 0; p < R->npts; p++) {
		for (int i = 0; i < R->pts[p].nowned; i++)
			free(R->pts[p].owned[i]);
		free(R->pts[p].key);
	}
	free(R->pts);
	if (R->cols)
		free(R->cols[0]); /* the header's copy the names point into */
	free(R->cols);
	free(pts);
	for (int i = 0; i < A->nowned; i++)
		free(A->owned[i]);
	remove_scratch();
}

int fl_cmd_ab(int argc, char **argv)
{
	struct ab_args A;
	if (parse_args(&A, argc, argv))
		return 0;
	fl_catalog_install();
	if (A.judge) {
		int st = judge_file(A.judge, &A.ao, A.json, A.detail);
		for (int i = 0; i < A.nowned; i++)
			free(A.owned[i]);
		return st;
	}
	struct fl_spec s;
	struct fl_point *pts;
	int npts = head_points(&A, &s, &pts);
	struct ab_run R = { .quiet = A.quiet };
	plan(&R, &A, &s, pts, npts);
	if (A.dry) {
		dry_run(&R, s.rounds);
		cleanup(&R, &A, pts);
		return 0;
	}
	open_csv(&R, A.csv_path, s.seed, argc, argv);
	fl_interrupt_catch();
	R.t0 = now_s();
	A.ao.alpha /= A.budget == 0 ? 1 : FL_AB_LOOKS;
	struct fl_table t = { 0 };
	struct fl_ab ab = { 0 };
	int looks = run_looks(&R, &A, s.rounds, &t, &ab);
	fl_csv_flush(&R.csv);
	if (looks < 0 || (fl_interrupted && !ab.pair)) {
		cleanup(&R, &A, pts);
		return fl_interrupted ? 130 : 2;
	}
	if (A.json) {
		fl_ab_json(stdout, &ab, &t);
	} else {
		for (int i = 0; i < 3; i++)
			printf("ab: %-7s %s (%s)%s\n", fl_ab_sides[i], R.side[i].rev, R.side[i].ref,
			       R.side[i].layout ? ", another layout" : "");
		fl_table_as_marks(stdout, &t, "ab: ");
		printf("ab: %d rounds (the first %d on every pair), %d look%s, each at alpha %g, "
		       "%.0f s; rows: %s\n", R.rounds_done, s.rounds, looks, looks > 1 ? "s" : "",
		       A.ao.alpha, now_s() - R.t0, A.csv_path);
		fl_ab_print(stdout, &ab, A.detail);
	}
	int st = fl_interrupted ? 130 : (int)ab.status;
	fl_ab_free(&ab);
	fl_table_free(&t);
	fl_csv_close(&R.csv);
	cleanup(&R, &A, pts);
	return st;
}

/* `futexlab ab-worker`: one side's process of an A/B run (ab.h's worker):
 * each line of stdin a `run` argv, tab-separated, run here, its exit
 * status written to fd 3; `--check`: exit 0 (ab asks whether a build has
 * workers). Not for people: ab drives it. */
int fl_cmd_ab_worker(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--check"))
		return 0;
	if (argc > 1)
		fl_usage_error("ab-worker: no options (futexlab ab runs it)");
	FILE *reply = fdopen(3, "w");
	if (!reply)
		fl_usage_error("ab-worker: no reply channel on fd 3 (futexlab ab runs it)");
	fl_run_scratch = true;   /* its CSVs are scratch: runner.h, record/csv.h */
	fl_csv_durable = false;
	char *line = NULL;
	size_t cap = 0;
	while (!fl_interrupted && getline(&line, &cap, stdin) > 0) {
		line[strcspn(line, "\n")] = 0;
		char *args[160], *save = NULL;
		int n = 0;
		for (char *t = strtok_r(line, "\t", &save); t && n < 159; t = strtok_r(NULL, "\t", &save))
			args[n++] = t;
		args[n] = NULL;
		if (!n || strcmp(args[0], "run"))
			fl_usage_error("ab-worker: '%s' is not a run", n ? args[0] : "");
		int rc = fl_cmd_run(n, args);
		fflush(stdout);
		fprintf(reply, "%d\n", rc);
		fflush(reply);
	}
	free(line);
	fl_helper_shutdown();
	return 0;
}
