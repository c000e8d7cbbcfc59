/* harness/main.c — the futexlab command line. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness/catalog.h"
#include "runner/cli.h"
#include "harness/commands.h"
#include "runner/spec.h"
#include "revision.h"

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

/* The commands: their --help lines (PRESETS: the presets' names) and the
 * function each runs (argv[0] is the command; the exit status). */
static const struct command {
	const char *name, *help;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "list", "every variant (available or skipped, with the reason) and workload",
	  fl_cmd_list },
	{ "run", "variants x workloads at one point per axis: rounds, CSV, ratio table",
	  fl_cmd_run },
	{ "sweep", "the cartesian product of variants, workloads, threads, tokens, wake\n"
	  "            modes (or --preset PRESETS), through the same runner as run", fl_cmd_sweep },
	{ "exec", "an unmodified program on every design (LD_PRELOAD shim), interleaved\n"
	  "            rounds, paired verdicts, the kernel's view of its process tree", fl_cmd_exec },
	{ "hunt", "the lost-wakeup hunter: stress patterns, in-library preemption and\n"
	  "            the stranded-waiter detector on each design, a verdict per design",
	  fl_cmd_hunt },
	{ "compare", "ratio table of one CSV against a baseline, or before/after of two",
	  fl_cmd_compare },
	{ "report", "one self-contained HTML page of CSVs: tables, plots, evidence", fl_cmd_report },
	{ "store", "the results store: run CSVs added to one SQLite database, runs listed",
	  fl_cmd_store },
	{ "history", "a machine's runs over time: per point and entry, and the change points",
	  fl_cmd_history },
	{ "ab", "two builds compared in one run: interleaved rounds, each side in a fresh\n"
	  "            process of its build per round, an A/A control, a family-wise verdict",
	  fl_cmd_ab },
	{ "ab-worker", "one side's process of an A/B run: the runs ab sends it (ab drives it)",
	  fl_cmd_ab_worker },
	{ "version", "print the revision", version },
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

/* futexlab --help: the commands, one entry each. */
static void usage(void)
{
	char presets[128];
	fl_preset_names(presets, sizeof presets, "|");
	printf("usage: futexlab COMMAND [options]   (futexlab COMMAND -h or --help for each;\n"
	       "       futexlab -h, --help or help: this list)\n");
	for (int i = 0; i < NCOMMANDS; i++) {
		const char *h = commands[i].help, *p = strstr(h, "PRESETS");
		printf("  %-9s ", commands[i].name);
		if (p)
			printf("%.*s%s%s\n", (int)(p - h), h, presets, p + strlen("PRESETS"));
		else
			printf("%s\n", h);
	}
}

/* "list, run, ...": the commands' names, for the errors. */
static const char *names(void)
{
	static char buf[256];
	size_t l = 0;
	for (int i = 0; i < NCOMMANDS; i++)
		l += (size_t)snprintf(buf + l, sizeof buf - l, "%s%s", i ? ", " : "",
				      commands[i].name);
	return buf;
}

/* argv[0] is the command; the exit status. */
static int dispatch(int argc, char **argv)
{
	const char *cmd = argv[0];
	for (int i = 0; i < NCOMMANDS; i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc, argv);
	if (!strcmp(cmd, "--version"))
		return version(argc, argv);
	fl_usage_error("unknown command '%s' (%s; see futexlab --help)", cmd, names());
}

int main(int argc, char **argv)
{
	if (argc < 2)
		fl_usage_error("no command given (%s; see futexlab --help)", names());
	fl_catalog_install(); /* the report's names (model/catalog.h) */
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
		usage();
		return 0;
	}
	return dispatch(argc - 1, argv + 1);
}
