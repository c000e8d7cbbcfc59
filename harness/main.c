/* harness/main.c — the futexlab command line. */
#include <stdio.h>
#include <string.h>

#include "harness/catalog.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/spec.h"
#include "revision.h"

static const char usage[] =
"usage: futexlab COMMAND [options]   (futexlab COMMAND --help for each)\n"
"  list      every variant (available or skipped, with the reason) and workload\n"
"  run       variants x workloads at one point per axis: rounds, CSV, ratio table\n"
"  sweep     the cartesian product of variants, workloads, threads, tokens, wake\n"
"            modes (or --preset %s), through the same runner as run\n"
"  exec      an unmodified program on every design (LD_PRELOAD shim), interleaved\n"
"            rounds, paired verdicts, the kernel's view of its process tree\n"
"  hunt      the lost-wakeup hunter: stress patterns, in-library preemption and\n"
"            the stranded-waiter detector on each design, a verdict per design\n"
"  compare   ratio table of one CSV against a baseline, or before/after of two\n"
"  report    one self-contained HTML page of CSVs: tables, plots, evidence\n"
"  store     the results store: run CSVs added to one SQLite database, runs listed\n"
"  history   a machine's runs over time: per point and entry, and the change points\n"
"  version   print the revision\n";

/* futexlab version [--help]: the revision, "futexlab REVISION". */
static int version(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: futexlab version\n"
		       "  prints the revision this binary was built from: futexlab REVISION\n"
		       "  (as a CSV's first line)\n"
		       "  --help             this text\n");
		return 0;
	}
	if (argc > 1)
		fl_usage_error("version: unexpected argument '%s' (futexlab version --help)",
			       argv[1]);
	printf("futexlab %s\n", FL_REVISION);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		fl_usage_error("no command given (list, run, sweep, exec, hunt, compare, report, store, history, version; see futexlab --help)");
	fl_catalog_install(); /* the report's names (report/catalog.h) */
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		char presets[128];
		fl_preset_names(presets, sizeof presets, "|");
		printf(usage, presets);
		return 0;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version"))
		return version(argc - 1, argv + 1);
	if (!strcmp(cmd, "list"))
		return fl_cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "run"))
		return fl_cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "sweep"))
		return fl_cmd_sweep(argc - 1, argv + 1);
	if (!strcmp(cmd, "exec"))
		return fl_cmd_exec(argc - 1, argv + 1);
	if (!strcmp(cmd, "hunt"))
		return fl_cmd_hunt(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return fl_cmd_compare(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return fl_cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "history"))
		return fl_cmd_history(argc - 1, argv + 1);
	if (!strcmp(cmd, "store"))
		return fl_cmd_store(argc - 1, argv + 1);
	fl_usage_error("unknown command '%s' (list, run, sweep, exec, hunt, compare, report, store, version)", cmd);
}
