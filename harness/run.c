/* harness/run.c — `futexlab run`: variants x workloads x reps, one CSV row
 * per rep, one table line per (variant, workload) with median/min/max. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "csv.h"
#include "hashmode.h"
#include "probes_glue.h"
#include "perf.h"
#include "run.h"
#include "stats.h"
#include "wake.h"
#include "workload.h"

volatile sig_atomic_t fl_interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	fl_interrupted = 1;
}

static const char run_usage[] =
"usage: futexlab run [options]\n"
"  --variant LIST     variants to run, comma separated, or 'all' (default all)\n"
"  --workload LIST    workloads, comma separated, or 'all' (default all)\n"
"  --threads T        pool threads, 1..1024 (default 4)\n"
"  --tokens K         pool tokens, 1..1000000 (default 1)\n"
"  --hold NS          pool: busy work while holding a token, ns (default 0)\n"
"  --think NS         pool: busy work between tokens, ns (default 0)\n"
"  --duration S       seconds per rep (default 0.2)\n"
"  --ops N            operations per rep instead of a duration\n"
"  --reps R           repetitions per point, 1..1000 (default 5)\n"
"  --wake MODE        exact|one|all: how a release wakes (default exact)\n"
"  --hash LIST        auto|global|private:N futex hash, comma list: each mode\n"
"                     in a process of its own (default auto; kernel 6.16+)\n"
"  --spin N           spin up to N times before parking, 0..1000000 (default 0)\n"
"  --csv FILE         write one row per rep to FILE (atomically)\n"
"  --no-floors        omit the floor-atomic and floor-futex reference rows\n"
"  --quiet            no progress on stderr\n"
"  --probes           count futex calls in the kernel per rep (eBPF; default when\n"
"                     root and BPF works), as extra CSV columns\n"
"  --no-probes        do not load the eBPF collector\n"
"  --bpftrace SCRIPT  run a bpftrace script (probes/*.bt) on this process during\n"
"                     the whole run; its output goes beside the CSV\n"
"  --perf             perf counters per rep as CSV columns (empty: unsupported)\n";

#define MAXLIST 64

struct point {
	const struct fl_variant *v;
	const struct fl_workload *w;
	struct fl_summary ns;  /* ns per op over the reps */
	double ops_s;          /* median ops/s */
	const char *status;    /* "ok", "error", "skipped" */
	char note[200];
};

static const char csv_header[] =
	"variant,workload,threads,tokens,hold_ns,think_ns,wake,rep,ops,elapsed_ns,"
	"ns_per_op,ops_per_s,status,note,hash,spin"
	",task_clock_ns,context_switches,cpu_migrations,cycles,instructions"; /* perf.h */

static void csv_quote(char *out, size_t n, const char *s)
{
	size_t j = 0;
	if (j < n - 1)
		out[j++] = '"';
	for (; *s && j < n - 3; s++) {
		if (*s == '"')
			out[j++] = '"';
		out[j++] = *s == '\n' ? ' ' : *s;
	}
	out[j++] = '"';
	out[j] = '\0';
}

static void emit(struct fl_csv *csv, const struct point *pt, const struct fl_params *p,
		 int rep, const struct fl_result *r, const struct fl_perf_reading *perf_r,
		 const char *status, const char *note)
{
	if (!csv)
		return;
	char row[1024], q[400], perf[200];
	int threads = pt->w->fixed_threads ? pt->w->fixed_threads : p->threads;
	csv_quote(q, sizeof q, note);
	double nsop = r && r->ops ? (double)r->elapsed_ns / (double)r->ops : 0;
	double ops_s = r && r->elapsed_ns ? (double)r->ops * 1e9 / (double)r->elapsed_ns : 0;
	char nums[200] = ",,,"; /* four empty fields: ops, elapsed_ns, ns_per_op, ops_per_s */
	if (r && !strcmp(status, "ok"))
		snprintf(nums, sizeof nums, "%lld,%lld,%.3f,%.1f", (long long)r->ops,
			 (long long)r->elapsed_ns, nsop, ops_s);
	snprintf(row, sizeof row, "%s,%s,%d,%d,%lld,%lld,%s,%d,%s,%s,%s,%s,%d",
		 pt->v->name, pt->w->name, threads, pt->w->uses_tokens ? p->tokens : 0,
		 (long long)(pt->w->uses_tokens ? p->hold_ns : 0),
		 (long long)(pt->w->uses_tokens ? p->think_ns : 0),
		 fl_wake_name(fl_wake_get_strategy()), rep, nums, status, q,
		 fl_hash_column(), fl_spin_get());
	fl_perf_cells(perf_r, perf, sizeof perf);
	strncat(row, perf, sizeof row - strlen(row) - 1);
	fl_probes_append(row, sizeof row, r != NULL);
	int e = fl_csv_add(csv, row);
	if (e) {
		fprintf(stderr, "futexlab: cannot write %s: %s\n", csv->path, strerror(e));
		exit(1);
	}
}

static void run_point(struct point *pt, const struct fl_params *p, int reps,
		      struct fl_csv *csv, bool quiet)
{
	const char *why = fl_hash_skip_reason();
	if (!why)
		why = pt->v->unavailable ? pt->v->unavailable() : NULL;
	if (why) {
		pt->status = "skipped";
		snprintf(pt->note, sizeof pt->note, "%s", why);
		emit(csv, pt, p, 0, NULL, NULL, "skipped", why);
		return;
	}
	if (pt->w->uses_tokens && p->tokens > pt->v->value_max) {
		pt->status = "skipped";
		snprintf(pt->note, sizeof pt->note, "tokens above the variant's maximum %d",
			 pt->v->value_max);
		emit(csv, pt, p, 0, NULL, NULL, "skipped", pt->note);
		return;
	}
	if ((why = fl_workload_unfit(pt->w, pt->v, p))) {
		pt->status = "skipped";
		snprintf(pt->note, sizeof pt->note, "%s", why);
		emit(csv, pt, p, 0, NULL, NULL, "skipped", why);
		return;
	}
	double nsop[1000], opss[1000];
	int done = 0;
	pt->status = "ok";
	for (int rep = 0; rep < reps && !fl_interrupted; rep++) {
		if (!quiet && isatty(2))
			fprintf(stderr, "\r%-14s %-12s rep %d/%d ", pt->v->name, pt->w->name,
				rep + 1, reps);
		struct fl_result r = { 0 };
		struct fl_perf_reading perf = { 0 };
		fl_probes_rep_begin();
		fl_perf_begin();
		pt->w->run(pt->v, p, &r);
		fl_perf_end(&perf);
		fl_probes_rep_end(pt->w->name, r.ops);
		if (fl_interrupted)
			break; /* an interrupted rep is not a measurement */
		if (r.error[0]) {
			pt->status = "error";
			snprintf(pt->note, sizeof pt->note, "%s", r.error);
			emit(csv, pt, p, rep, &r, &perf, "error", r.error);
			break;
		}
		if (r.ops == 0 || r.elapsed_ns <= 0) {
			pt->status = "error";
			snprintf(pt->note, sizeof pt->note, "no operation completed");
			emit(csv, pt, p, rep, &r, &perf, "error", pt->note);
			break;
		}
		nsop[done] = (double)r.elapsed_ns / (double)r.ops;
		opss[done] = (double)r.ops * 1e9 / (double)r.elapsed_ns;
		done++;
		emit(csv, pt, p, rep, &r, &perf, "ok", r.info);
	}
	if (!quiet && isatty(2))
		fprintf(stderr, "\r%60s\r", "");
	if (done) {
		pt->ns = fl_summarize(nsop, done);
		pt->ops_s = fl_summarize(opss, done).median;
	} else if (!strcmp(pt->status, "ok")) {
		pt->status = "interrupted";
	}
}

static const struct point *find_point(const struct point *pts, int n,
				      const struct fl_workload *w, const char *vname)
{
	for (int i = 0; i < n; i++)
		if (pts[i].w == w && !strcmp(pts[i].v->name, vname) &&
		    !strcmp(pts[i].status, "ok"))
			return &pts[i];
	return NULL;
}

static void print_ratio(const struct point *pt, const struct point *ref)
{
	if (ref && ref->ns.median > 0)
		printf(" %8.2fx", pt->ns.median / ref->ns.median);
	else
		printf(" %9s", "-");
}

static void print_table(const struct point *pts, int n, const struct fl_params *p)
{
	char kernel[256], cpu[256];
	int cores;
	fl_machine(kernel, sizeof kernel, cpu, sizeof cpu, &cores);
	printf("futexlab run — %s, %s, %d cores, wake=%s, hash=%s, spin=%d\n", kernel, cpu,
	       cores, fl_wake_name(fl_wake_get_strategy()), fl_hash_column(), fl_spin_get());
	const struct fl_workload *last = NULL;
	for (int i = 0; i < n; i++) {
		const struct point *pt = &pts[i];
		if (pt->w != last) {
			last = pt->w;
			printf("\n%s — %s; ns per %s", pt->w->name, pt->w->summary, pt->w->op);
			if (pt->w->uses_tokens)
				printf(" (threads=%d tokens=%d hold=%lldns think=%lldns)", p->threads,
				       p->tokens, (long long)p->hold_ns, (long long)p->think_ns);
			printf("\n%-14s %10s %10s %10s %12s %9s %9s\n", "variant", "median",
			       "min", "max", "ops/s", "/posix", "/futex");
		}
		if (strcmp(pt->status, "ok")) {
			printf("%-14s %s: %s\n", pt->v->name, pt->status, pt->note);
			continue;
		}
		printf("%-14s %10.1f %10.1f %10.1f %12.0f", pt->v->name, pt->ns.median,
		       pt->ns.min, pt->ns.max, pt->ops_s);
		print_ratio(pt, find_point(pts, n, pt->w, "posix"));
		print_ratio(pt, find_point(pts, n, pt->w, "floor-futex"));
		printf(fl_noisy(&pt->ns) ? "  NOISY (MAD > 10%% of the median)\n" : "\n");
	}
	printf("\n/posix: median ns/op over glibc's sem_t; /futex: over the raw-futex floor "
	       "(both measured in this run).\n");
}

int fl_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "variant", required_argument, 0, 'v' }, { "workload", required_argument, 0, 'w' },
		{ "threads", required_argument, 0, 't' }, { "tokens", required_argument, 0, 'k' },
		{ "hold", required_argument, 0, 'H' },    { "think", required_argument, 0, 'T' },
		{ "duration", required_argument, 0, 'd' }, { "ops", required_argument, 0, 'o' },
		{ "reps", required_argument, 0, 'r' },    { "wake", required_argument, 0, 'W' },
		{ "csv", required_argument, 0, 'c' },     { "no-floors", no_argument, 0, 'F' },
		{ "quiet", no_argument, 0, 'q' },         { "help", no_argument, 0, 'h' },
		{ "hash", required_argument, 0, 'X' },    { "spin", required_argument, 0, 'S' },
		{ "probes", no_argument, 0, 0x100 },     { "no-probes", no_argument, 0, 0x101 },
		{ "bpftrace", required_argument, 0, 0x102 },
		{ "perf", no_argument, 0, 'P' },
		{ 0, 0, 0, 0 },
	};
	struct fl_params p = { .threads = 4, .tokens = 1, .duration_ns = 200000000 };
	int reps = 5;
	char vlist[1024] = "all", wlist[1024] = "all", hlist[1024] = "auto";
	const char *csv_path = NULL;
	bool floors = true, quiet = false, have_duration = false;
	enum fl_probes_mode probes = FL_PROBES_DEFAULT;
	const char *bt_script = NULL;
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'v': snprintf(vlist, sizeof vlist, "%s", optarg); break;
		case 'w': snprintf(wlist, sizeof wlist, "%s", optarg); break;
		case 't': p.threads = (int)fl_parse_int("--threads", optarg, 1, 1024); break;
		case 'k': p.tokens = (int)fl_parse_int("--tokens", optarg, 1, 1000000); break;
		case 'H': p.hold_ns = fl_parse_int("--hold", optarg, 0, 1000000000); break;
		case 'T': p.think_ns = fl_parse_int("--think", optarg, 0, 1000000000); break;
		case 'd': p.duration_ns = fl_parse_seconds("--duration", optarg, 3600);
			  have_duration = true; break;
		case 'o': p.ops = fl_parse_int("--ops", optarg, 1, INT64_MAX / 2); break;
		case 'r': reps = (int)fl_parse_int("--reps", optarg, 1, 1000); break;
		case 'W': {
			int s = fl_wake_parse(optarg);
			if (s < 0)
				fl_usage_error("--wake: unknown mode '%s' (exact, one, all)", optarg);
			fl_wake_set_strategy((enum fl_wake_strategy)s);
			break;
		}
		case 'X': snprintf(hlist, sizeof hlist, "%s", optarg); break;
		case 'S': fl_spin_set((int)fl_parse_int("--spin", optarg, 0, FL_SPIN_MAX)); break;
		case 'c': csv_path = optarg; break;
		case 'F': floors = false; break;
		case 'q': quiet = true; break;
		case 0x100: probes = FL_PROBES_ON; break;
		case 0x101: probes = FL_PROBES_OFF; break;
		case 0x102: bt_script = optarg; fl_bpftrace_check(optarg); break;
		case 'P': fl_perf_enabled = true; break;
		case 'h': fputs(run_usage, stdout); return 0;
		case ':':
			fl_usage_error("run: %s needs a value", argv[optind - 1]);
		default:
			fl_usage_error("run: unknown option '%s' (see futexlab run --help)",
				       argv[optind - 1]);
		}
	}
	if (optind < argc)
		fl_usage_error("run: unexpected argument '%s'", argv[optind]);
	if (have_duration && p.ops)
		fl_usage_error("run: give --duration or --ops, not both");

	const struct fl_variant *vs[MAXLIST];
	const struct fl_workload *ws[MAXLIST];
	int nv = 0, nw = 0;
	char *items[MAXLIST];
	if (!strcmp(vlist, "all")) {
		for (int i = 0; i < fl_nvariants; i++)
			vs[nv++] = fl_variants[i];
	} else {
		int n = fl_split_list("--variant", vlist, items, MAXLIST);
		for (int i = 0; i < n; i++) {
			if (!(vs[nv++] = fl_variant_find(items[i])))
				fl_usage_error("--variant: unknown variant '%s' (see futexlab list)", items[i]);
		}
	}
	if (!strcmp(wlist, "all")) {
		for (int i = 0; i < fl_nworkloads; i++)
			ws[nw++] = &fl_workloads[i];
	} else {
		int n = fl_split_list("--workload", wlist, items, MAXLIST);
		for (int i = 0; i < n; i++)
			if (!(ws[nw++] = fl_workload_find(items[i])))
				fl_usage_error("--workload: unknown workload '%s' (see futexlab list)", items[i]);
	}

	/* --hash: a list runs each mode in a process of its own (hashmode.h);
	 * a single mode is applied here, before any worker thread exists. */
	const char *header = fl_run_csv_header();
	char *hitems[MAXLIST];
	int nh = fl_hash_list(hlist, hitems, MAXLIST);
	if (nh > 1) {
		struct sigaction hsa = { .sa_handler = on_sigint, .sa_flags = SA_RESETHAND };
		sigemptyset(&hsa.sa_mask);
		sigaction(SIGINT, &hsa, NULL);
		sigaction(SIGTERM, &hsa, NULL);
		return fl_hash_run_each(argc, argv, hitems, nh, csv_path, header);
	}
	fl_hash_setup(hitems[0]);

	struct fl_csv csv, *cp = NULL;
	if (csv_path) {
		int e = fl_csv_open(&csv, csv_path, header, argc, argv);
		if (e) {
			fprintf(stderr, "futexlab: cannot write %s: %s\n", csv_path, strerror(e));
			return 1;
		}
		cp = &csv;
	}
	struct sigaction sa = { .sa_handler = on_sigint, .sa_flags = SA_RESETHAND };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	fl_probes_setup(probes);
	if (bt_script)
		fl_bpftrace_start(bt_script, csv_path);
	struct point *pts = calloc((size_t)nw * (size_t)(nv + 2), sizeof *pts);
	int np = 0, errors = 0;
	for (int wi = 0; wi < nw && !fl_interrupted; wi++) {
		const struct fl_variant *row[MAXLIST + 2];
		int nr = 0;
		for (int vi = 0; vi < nv; vi++)
			row[nr++] = vs[vi];
		if (floors && ws[wi]->has_floors) {
			row[nr++] = &fl_floor_atomic;
			row[nr++] = &fl_floor_futex;
		}
		for (int ri = 0; ri < nr && !fl_interrupted; ri++) {
			struct point *pt = &pts[np++];
			pt->v = row[ri];
			pt->w = ws[wi];
			run_point(pt, &p, reps, cp, quiet);
			if (!strcmp(pt->status, "error"))
				errors++;
		}
	}
	fl_bpftrace_stop();
	fl_probes_teardown();
	print_table(pts, np, &p);
	if (cp) {
		printf("CSV: %s (%d rows)\n", csv_path, cp->n);
		fl_csv_close(cp);
	}
	free(pts);
	if (fl_interrupted) {
		printf("interrupted: the table and CSV hold the points finished before Ctrl-C\n");
		return 130;
	}
	if (errors) {
		fprintf(stderr, "futexlab: %d point(s) broke an invariant (status=error above)\n", errors);
		return 1;
	}
	return 0;
}

/* One point for `futexlab sweep` (harness/sweep.c): the same reps, skips,
 * error rows and CSV rows as `run`, without run's progress line. */
void fl_run_one(const struct fl_variant *v, const struct fl_workload *w,
		const struct fl_params *p, int reps, struct fl_csv *csv,
		struct fl_point_result *out)
{
	struct point pt = { .v = v, .w = w };
	run_point(&pt, p, reps, csv, true);
	out->status = pt.status;
	snprintf(out->note, sizeof out->note, "%s", pt.note);
	out->ns = pt.ns;
	out->ops_s = pt.ops_s;
}

/* The whole header: run's columns, then the probe columns (probes_glue.h),
 * which every row carries (empty when the probes are off). */
const char *fl_run_csv_header(void)
{
	static char header[2048];
	if (!header[0])
		snprintf(header, sizeof header, "%s%s", csv_header, fl_probes_csv_header);
	return header;
}
