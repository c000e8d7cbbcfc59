/* harness/main.c — the futexlab command line. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "revision.h"
#include "run.h"
#include "variant.h"
#include "workload.h"

static const char usage[] =
"usage: futexlab COMMAND [options]   (futexlab COMMAND --help for each)\n"
"  list      every variant (available or skipped, with the reason) and workload\n"
"  run       run variants x workloads, print a table, optionally write CSV\n"
"  sweep     the cartesian product of variants, workloads, threads, tokens, wake\n"
"            modes (or --preset quick|full), with statistics and a ratio table\n"
"  compare   ratio table of one CSV against a baseline, or before/after of two\n"
"  version   print the revision\n";

int fl_cmd_list(int argc, char **argv)
{
	if (argc > 1) {
		if (!strcmp(argv[1], "--help")) {
			puts("usage: futexlab list\n  lists variants with availability, and workloads");
			return 0;
		}
		fl_usage_error("list: unexpected argument '%s'", argv[1]);
	}
	printf("%-12s %-10s %11s %5s  %s\n", "variant", "status", "value_max", "bytes", "design");
	for (int i = 0; i < fl_nvariants; i++) {
		const struct fl_variant *v = fl_variants[i];
		const char *why = v->unavailable ? v->unavailable() : NULL;
		printf("%-12s %-10s %11d %5zu  %s\n", v->name, why ? "skipped" : "available",
		       v->value_max, v->size, v->summary);
		if (why)
			printf("%-12s   reason: %s\n", "", why);
	}
	printf("\n%-12s  %s\n", "workload", "what it measures");
	for (int i = 0; i < fl_nworkloads; i++)
		printf("%-12s  %s (op = %s)\n", fl_workloads[i].name, fl_workloads[i].summary,
		       fl_workloads[i].op);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		fl_usage_error("no command given (list, run, sweep, compare, version; see futexlab --help)");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("futexlab %s\n", FL_REVISION);
		return 0;
	}
	if (!strcmp(cmd, "list"))
		return fl_cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "run"))
		return fl_cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "sweep"))
		return fl_cmd_sweep(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return fl_cmd_compare(argc - 1, argv + 1);
	fl_usage_error("unknown command '%s' (list, run, sweep, compare, version)", cmd);
}
