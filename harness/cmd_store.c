/* harness/cmd_store.c — `futexlab store`: run CSVs added to the results
 * store, and its runs listed (store/README.md). The CSVs stay the record;
 * the store is what selects runs across machines, revisions and dates. */
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cli.h"
#include "harness/commands.h"
#include "harness/select.h"
#include "model/model.h"
#include "store/store.h"


static const struct fl_option opts[] = {
	{ "db", required_argument, 0x300, "PATH", "the store (default " FL_DEFAULT_DB "; add "
	  "makes it when missing; an SQLite URI such as 'file:PATH?mode=ro' is taken as one)" },
	{ "machine", required_argument, 0x301, "M", "ls: the runs of machine M: its name, "
	  "'name [fingerprint8]' as listed, or a prefix of its fingerprint" },
	{ "rev", required_argument, 0x302, "R", "ls: the runs of the revisions beginning with R" },
	{ "since", required_argument, 0x303, "DATE", "ls: the runs dated DATE or later "
	  "(ISO: 2026-12-06 or 2026-12-06T06:49:36Z)" },
	{ "last", required_argument, 0x304, "N", "ls: the last N runs selected (by date)" },
	{ "help", no_argument, 'h', NULL, "this text (also -h)" },
};
#define NOPTS ((int)(sizeof opts / sizeof opts[0]))

static void usage(void)
{
	fl_options_usage(stdout,
		"usage: futexlab store add FILE.csv... [--db PATH]\n"
		"       futexlab store ls [--db PATH] [--machine M] [--rev R] [--since DATE] "
		"[--last N]\n"
		"       futexlab store rm RUN... [--db PATH]\n"
		"       futexlab store check [--db PATH]\n"
		"  add:   each file as one run, in one transaction (all of it or nothing): one\n"
		"         line each, 'added run N (machine NAME [FINGERPRINT8], rev R, DATE)' or\n"
		"         'already stored as run N'; a bad file stops the command there (exit 2);\n"
		"         an A/B run ('# ab:' line) is stored apart: no history selects it\n"
		"  ls:    one line per run selected, oldest first (id, date, revision, machine,\n"
		"         rows, command; A/B runs marked 'ab'), then their machines\n"
		"  rm:    the runs of those ids removed, in one transaction (all or none)\n"
		"  check: every run read back and checked; one line per problem, exit 1 if any\n",
		opts, NOPTS,
		"The CSVs stay the record; the schema and example queries: store/README.md\n");
}

struct store_args {
	struct fl_select sel;
};

static void parse(int argc, char **argv, struct store_args *a)
{
	struct option lopts[NOPTS + 1];
	fl_options_getopt(opts, NOPTS, lopts);
	opterr = 0;
	optind = 2; /* after the subcommand */
	int o;
	while ((o = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		if (fl_select_option(&a->sel, o, optarg))
			continue;
		switch (o) {
		case 'h': usage(); exit(0);
		case ':': fl_usage_error("store: %s needs a value", argv[optind - 1]);
		default:
			fl_usage_error("store: unknown option '%s' (see futexlab store --help)",
				       argv[optind - 1]);
		}
	}
}

static struct fl_store *open_db(const char *cmd, const char *db, bool create)
{
	struct fl_store *s;
	char err[512];
	if (fl_store_open(&s, db, create, err, sizeof err))
		fl_usage_error("%s: %s", cmd, err);
	return s;
}

/* Each file one run; the first bad one ends the command, the files after it
 * not added. The first file is checked before the store is opened, so a
 * refused file never leaves a new, empty database behind. */
static int add(int nfiles, char **files, const char *db)
{
	if (nfiles < 1)
		fl_usage_error("store add: give one or more CSV files (see futexlab store --help)");
	char err[600];
	if (fl_store_check_csv(files[0], err, sizeof err))
		fl_usage_error("store add: %s: nothing of %s stored%s", err, files[0],
			       nfiles > 1 ? "; the files after it not added" : "");
	struct fl_store *s = open_db("store add", db, true);
	for (int i = 0; i < nfiles; i++) {
		long id;
		int r = fl_store_add(s, files[i], &id, err, sizeof err);
		if (r < 0) {
			fl_store_close(s);
			fl_usage_error("store add: %s: nothing of %s stored%s", err, files[i],
				       i + 1 < nfiles ? "; the files after it not added" : "");
		}
		if (r == 1) {
			printf("already stored as run %ld\n", id);
			continue;
		}
		struct fl_table t;
		struct fl_machine_id m;
		if (fl_table_load(&t, files[i], err, sizeof err) == 0 && (fl_machine_of(&t, &m), 1))
			printf("added run %ld (machine %s, rev %s, %s)%s\n", id, m.label,
			       fl_table_meta(&t, "revision"), fl_table_meta(&t, "date"),
			       strcmp(fl_table_meta(&t, "ab"), "?") || fl_table_col(&t, "side") >= 0
			       ? ": an A/B run, kept apart from the history" : "");
		else
			printf("added run %ld\n", id);
		fl_table_free(&t);
	}
	fl_store_close(s);
	return 0;
}

/* The machines of the runs listed, each once, in first-listed order; a
 * name two of them share is flagged. */
static void list_machines(const struct fl_store_run *r, int n)
{
	printf("machines:\n");
	for (int i = 0; i < n; i++) {
		int seen = 0, runs = 0, named = 0;
		for (int j = 0; j < n; j++) {
			seen |= j < i && !strcmp(r[j].fingerprint, r[i].fingerprint);
			runs += !strcmp(r[j].fingerprint, r[i].fingerprint);
			/* another fingerprint of this name, first seen before j */
			bool first = true;
			for (int k = 0; k < j && first; k++)
				first = strcmp(r[k].fingerprint, r[j].fingerprint);
			named += first && strcmp(r[j].fingerprint, r[i].fingerprint) &&
				 !strcmp(r[j].machine, r[i].machine);
		}
		char label[200];
		fl_machine_label(r[i].machine, r[i].fingerprint, label, sizeof label);
		if (!seen)
			printf("  %s  %s  (%d run%s)%s\n", r[i].fingerprint, label, runs,
			       runs == 1 ? "" : "s", named ? "  ! another machine has this name" : "");
	}
}

static int ls(const struct store_args *a)
{
	struct fl_store *s = open_db("store ls", a->sel.db, false);
	struct fl_store_run *r;
	int n;
	char err[600];
	struct fl_store_sel sel = { .machine = a->sel.machine, .rev = a->sel.rev,
				    .since = a->sel.since, .last = a->sel.last, .ab = true };
	if (fl_store_select(s, &sel, &r, &n, err, sizeof err)) {
		fl_store_close(s);
		fl_usage_error("store ls: %s", err);
	}
	if (!n)
		fl_select_nothing("store ls", &a->sel);
	fl_select_same_name(s, "store ls", a->sel.machine, r, n);
	printf("%-5s %-20s %-12s %-43s %6s  %s\n", "run", "date", "revision", "machine", "rows",
	       "command");
	for (int i = 0; i < n; i++) {
		char label[200];
		fl_machine_label(r[i].machine, r[i].fingerprint, label, sizeof label);
		printf("%-5ld %-20s %-12s %-43s %6d  %s%s\n", r[i].id, r[i].run.date, r[i].run.revision,
		       label, r[i].run.t.nrows, r[i].ab ? "ab: " : "", r[i].run.command);
	}
	list_machines(r, n);
	fl_store_runs_free(r, n);
	fl_store_close(s);
	return 0;
}

static int rm(int nids, char **args, const char *db)
{
	if (nids < 1)
		fl_usage_error("store rm: give the ids of the runs to remove (futexlab store ls)");
	long *ids = calloc((size_t)nids, sizeof *ids);
	if (!ids)
		fl_usage_error("store rm: out of memory");
	for (int i = 0; i < nids; i++)
		ids[i] = (long)fl_parse_int("store rm: a run id", args[i], 1, INT64_MAX);
	struct fl_store *s = open_db("store rm", db, false);
	char err[600];
	if (fl_store_rm(s, ids, nids, err, sizeof err)) {
		fl_store_close(s);
		fl_usage_error("store rm: %s: nothing removed", err);
	}
	for (int i = 0; i < nids; i++)
		printf("removed run %ld\n", ids[i]);
	free(ids);
	fl_store_close(s);
	return 0;
}

static int check(const char *db)
{
	struct fl_store *s = open_db("store check", db, false);
	char err[600];
	int bad = fl_store_check(s, stdout, err, sizeof err);
	fl_store_close(s);
	if (bad < 0)
		fl_usage_error("store check: %s", err);
	return bad ? 1 : 0;
}

int fl_cmd_store(int argc, char **argv)
{
	if (argc < 2)
		fl_usage_error("store: give add, ls, rm or check (see futexlab store --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage();
		return 0;
	}
	struct store_args a = { .sel = { .db = FL_DEFAULT_DB, .cmd = "store" } };
	const char *sub = argv[1];
	if (strcmp(sub, "add") && strcmp(sub, "ls") && strcmp(sub, "rm") && strcmp(sub, "check"))
		fl_usage_error("store: unknown subcommand '%s' (add, ls, rm, check)", sub);
	parse(argc, argv, &a);
	if (strcmp(sub, "ls") && fl_select_given(&a.sel))
		fl_usage_error("store %s: --machine, --rev, --since and --last select runs for ls",
			       sub);
	if (!strcmp(sub, "add"))
		return add(argc - optind, argv + optind, a.sel.db);
	if (!strcmp(sub, "rm"))
		return rm(argc - optind, argv + optind, a.sel.db);
	if (optind < argc)
		fl_usage_error("store %s: unexpected argument '%s'", sub, argv[optind]);
	return !strcmp(sub, "ls") ? ls(&a) : check(a.sel.db);
}
