/* harness/cmd_list.c — `futexlab list`: every variant with its
 * availability (a design the kernel or the build lacks is listed as skipped
 * with the reason, never dropped), the POSIX promises it does not keep and
 * the capabilities it lacks (`breaks`, from its flags: variants/variant.h),
 * the waiting policies it takes (variants/policy.h) or, for a shipped
 * library, the one it is built with (.own_policy), and every workload;
 * the performance mutants in a section of their own (variant.h, struct
 * fl_perf: not designs), and with --mutants their declarations alone, one
 * tab-separated line each, for scripts/perf-mutants. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "runner/cli.h"
#include "harness/commands.h"
#include "proc/rep.h"
#include "variants/policy.h"
#include "variants/variant.h"
#include "workloads/workload.h"

/* "eintr,getvalue", or "-": the promises broken and capabilities lacking. */
static const char *breaks_of(unsigned flags, char *buf, size_t len)
{
	static const struct { unsigned flag; const char *name; } promise[] = {
		{ FL_DESTROY_UNSAFE, "destroy" }, { FL_SIGNAL_UNSAFE, "signal" },
		{ FL_NO_EINTR, "eintr" }, { FL_CAPPED, "capped" },
		{ FL_NO_GETVALUE, "getvalue" }, { FL_NO_PSHARED, "pshared" },
		{ FL_NO_OVERFLOW, "overflow" }, { FL_LOST_WAKEUP, "lostwake" },
	};
	snprintf(buf, len, "-");
	size_t n = 0;
	for (size_t k = 0; k < sizeof promise / sizeof promise[0]; k++)
		if (flags & promise[k].flag && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", promise[k].name);
	return buf;
}

/* One option; its table is for the help, generated like every command's. */
static const struct fl_option opts[] = {
	{ "mutants", no_argument, 'm', NULL, "the performance mutants' declarations alone, "
	  "tab-separated: name, parent, count, points (';' between), delay_ns, cost, mimics" },
	{ "help", no_argument, 'h', NULL, "this text (also -h)" },
};

static void usage(void)
{
	fl_options_usage(stdout, "usage: futexlab list [--mutants]\n"
		"  lists variants with availability, the performance mutants, and workloads\n",
		opts, 2,
		"  breaks: POSIX promises a design does not keep (the shim refuses it\n"
		"  unless FUTEXLAB_ALLOW names them): destroy = unsafe to destroy as\n"
		"  soon as the last wait returns (glibc BZ 12674); signal = post is not\n"
		"  async-signal-safe; eintr = a handler never interrupts a wait;\n"
		"  capped = post absorbs releases past value_max (a lock, not a count)\n"
		"  lacks (a design on an API narrower than sem_t's, e.g. C++20's):\n"
		"  getvalue = no value to read; pshared = init refuses process-shared;\n"
		"  overflow = post never reports EOVERFLOW (past value_max is undefined)\n"
		"  lostwake = the shipped library has a published lost-wakeup bug\n"
		"  (a waiter may sleep with tokens available: futexlab hunt)\n"
		"  policy: the waiting policies a design takes (--policy; park: as\n"
		"  written), or the one a shipped library is built with (its own)\n"
		"  performance mutants: a design with one known cost added (not in\n"
		"  'all'; run by name against the parent: scripts/perf-mutants)\n"
		"  workloads: [fairness] fills the fair_* columns; [latency: on] times\n"
		"  its blocking op by default, [latency: --latency] only when asked\n");
}

int fl_cmd_list(int argc, char **argv)
{
	if (argc > 2)
		fl_usage_error("list: unexpected argument '%s'", argv[2]);
	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			usage();
			return 0;
		}
		if (strcmp(argv[1], "--mutants"))
			fl_usage_error("list: unexpected argument '%s'", argv[1]);
		for (int i = 0; i < fl_nperf_mutants; i++) {
			const struct fl_variant *v = fl_perf_mutants[i];
			const struct fl_perf *p = v->perf;
			printf("%s\t%s\t%s\t%s\t%lld\t%s\t%s\n", v->name, p->parent, p->count,
			       p->points, p->delay_ns, p->cost, p->mimics);
		}
		return 0;
	}
	char buf[96];
	int width = 13; /* the breaks column as wide as its longest entry */
	for (int i = 0; i < fl_nvariants; i++)
		if ((int)strlen(breaks_of(fl_variants[i]->flags, buf, sizeof buf)) > width)
			width = (int)strlen(buf);
	printf("%-12s %-10s %11s %5s %-*s %s\n", "variant", "status", "value_max", "bytes", width,
	       "breaks", "design");
	for (int i = 0; i < fl_nvariants; i++) {
		const struct fl_variant *v = fl_variants[i];
		const char *why = fl_rep_unavailable(v);
		printf("%-12s %-10s %11d %5zu %-*s %s\n", v->name, why ? "skipped" : "available",
		       v->value_max, v->size, width, breaks_of(v->flags, buf, sizeof buf), v->summary);
		if (why)
			printf("%-12s   reason: %s\n", "", why);
		if (fl_policy_applies(v))
			printf("%-12s   policy: %s\n", "", FL_POLICY_NAMES);
		else
			printf("%-12s   policy: its own: %s\n", "", v->own_policy);
	}
	printf("\ninline forms, NAME-inline at uncontended only (the design's post and wait called "
	       "from a loop compiled with them; beside floor-inline):");
	for (int i = 0; i < fl_nvariants; i++)
		if (fl_variants[i]->pairs && !fl_variants[i]->helper)
			printf(" %s", fl_variants[i]->name);
	printf("\n");
	printf("\nperformance mutants: not designs, each its parent with one known cost "
	       "(not in 'all'; scripts/perf-mutants)\n");
	for (int i = 0; i < fl_nperf_mutants; i++) {
		const struct fl_variant *v = fl_perf_mutants[i];
		const struct fl_perf *p = v->perf;
		printf("%-16s parent %s: %s\n", v->name, p->parent, p->cost);
		printf("%-16s   mimics: %s\n", "", p->mimics);
		if (p->points[0])
			printf("%-16s   must cost at: %s; shown by: %s\n", "", p->points, p->count);
		else /* a rung of the delay ladder: where it is detected is the measurement */
			printf("%-16s   a rung of the delay ladder (no declared point; shown by: %s)\n",
			       "", p->count);
	}
	printf("\n%-12s  %s\n", "workload", "what it measures");
	for (int i = 0; i < fl_nworkloads; i++) {
		const struct fl_workload *w = fl_workloads[i];
		printf("%-12s  %s (op = %s)", w->name, w->summary, w->op);
		if (w->fairness || w->latency) /* its extra columns (harness/csv.md) */
			printf(" [%s%s%s]", w->fairness ? "fairness" : "",
			       w->fairness && w->latency ? ", " : "",
			       !w->latency ? "" : w->latency_default ? "latency: on" :
			       "latency: --latency");
		putchar('\n');
	}
	return 0;
}

