/* harness/main.c — the futexlab command line. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness/catalog.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/spec.h"
#include "revision.h"

static const char usage[] =
"usage: futexlab COMMAND [options]   (futexlab COMMAND -h or --help for each;\n"
"       futexlab -h, --help or help: this list)\n"
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

/* Whether arg asks for help: every command takes -h as --help. */
static bool is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

/* futexlab version [--help]: the revision, "futexlab REVISION". */
static int version(int argc, char **argv)
{
	if (argc > 1 && is_help(argv[1])) {
		printf("usage: futexlab version\n"
		       "  prints the revision this binary was built from: futexlab REVISION\n"
		       "  (as a CSV's first line)\n"
		       "  --help             this text (also -h)\n");
		return 0;
	}
	if (argc > 1)
		fl_usage_error("version: unexpected argument '%s' (futexlab version --help)",
			       argv[1]);
	printf("futexlab %s\n", FL_REVISION);
	return 0;
}

#define COMMANDS "list, run, sweep, exec, hunt, compare, report, store, history, version"

/* argv[0] is the command; the exit status. */
static int dispatch(int argc, char **argv)
{
	const char *cmd = argv[0];
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version"))
		return version(argc, argv);
	if (!strcmp(cmd, "list"))
		return fl_cmd_list(argc, argv);
	if (!strcmp(cmd, "run"))
		return fl_cmd_run(argc, argv);
	if (!strcmp(cmd, "sweep"))
		return fl_cmd_sweep(argc, argv);
	if (!strcmp(cmd, "exec"))
		return fl_cmd_exec(argc, argv);
	if (!strcmp(cmd, "hunt"))
		return fl_cmd_hunt(argc, argv);
	if (!strcmp(cmd, "compare"))
		return fl_cmd_compare(argc, argv);
	if (!strcmp(cmd, "report"))
		return fl_cmd_report(argc, argv);
	if (!strcmp(cmd, "history"))
		return fl_cmd_history(argc, argv);
	if (!strcmp(cmd, "store"))
		return fl_cmd_store(argc, argv);
	fl_usage_error("unknown command '%s' (" COMMANDS "; see futexlab --help)", cmd);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		fl_usage_error("no command given (" COMMANDS "; see futexlab --help)");
	fl_catalog_install(); /* the report's names (report/catalog.h) */
	const char *cmd = argv[1];
	if (is_help(cmd) && argc > 2)
		fl_usage_error("%s: unexpected argument '%s' (futexlab COMMAND --help)", cmd, argv[2]);
	if (!strcmp(cmd, "help") && argc > 3)
		fl_usage_error("help: unexpected argument '%s' (futexlab help [COMMAND])", argv[3]);
	if (!strcmp(cmd, "help") && argc == 3 && !is_help(argv[2]) && strcmp(argv[2], "help")) {
		/* futexlab help COMMAND: that command's --help */
		char opt[] = "--help", *h[] = { argv[2], opt, NULL };
		return dispatch(2, h);
	}
	if (is_help(cmd) || !strcmp(cmd, "help")) {
		char presets[128];
		fl_preset_names(presets, sizeof presets, "|");
		printf(usage, presets);
		return 0;
	}
	return dispatch(argc - 1, argv + 1);
}
