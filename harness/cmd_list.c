/* harness/cmd_list.c — `futexlab list`: every variant with its
 * availability (a design the kernel or the build lacks is listed as skipped
 * with the reason, never dropped), and every workload. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "variant.h"
#include "workload.h"

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
		printf("%-12s  %s (op = %s)\n", fl_workloads[i]->name, fl_workloads[i]->summary,
		       fl_workloads[i]->op);
	return 0;
}

