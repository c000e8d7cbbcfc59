/* harness/cmd_store.c — `futexlab store`: run CSVs added to the results
 * store, and its runs listed (store/README.md). The CSVs stay the record;
 * the store is what selects runs across machines, revisions and dates. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/select.h"
#include "report/model.h"
#include "store/store.h"


static const struct fl_option opts[] = {
	{ "db", required_argument, 'd', "PATH", "the store (default " FL_DEFAULT_DB "; add makes "
	  "it when missing; an SQLite URI such as 'file:PATH?mode=ro' is taken as one)" },
	{ "machine", required_argument, 'm', "M", "ls: the runs of the machine named M, or "
	  "whose fingerprint begins with M" },
	{ "rev", required_argument, 'r', "R", "ls: the runs of the revisions beginning with R" },
	{ "since", required_argument, 's', "DATE", "ls: the runs dated DATE or later "
	  "(ISO: 2026-12-06 or 2026-12-06T06:49:36Z)" },
	{ "last", required_argument, 'l', "N", "ls: the last N runs selected (by date)" },
	{ "help", no_argument, 'h', NULL, "this text (also -h)" },
};
#define NOPTS ((int)(sizeof opts / sizeof opts[0]))

static void usage(void)
{
	fl_options_usage(stdout,
		"usage: futexlab store add FILE.csv... [--db PATH]\n"
		"       futexlab store ls [--db PATH] [--machine M] [--rev R] [--since DATE] "
		"[--last N]\n"
		"  add: each file as one run, in one transaction (all of it or nothing): one\n"
		"       line each, 'added run N (machine NAME, rev R, DATE)' or 'already stored\n"
		"       as run N'; a bad file stops the command there (exit 2)\n"
		"  ls:  one line per run selected, oldest first (id, date, revision, machine,\n"
		"       rows, command), then their machines with their fingerprints\n",
		opts, NOPTS,
		"The CSVs stay the record; the schema and example queries: store/README.md\n");
}

struct store_args {
	const char *db;
	struct fl_store_sel sel;
	int nsel; /* selection options given (add takes none) */
};

/* "YYYY-MM-DD", optionally followed by a time: compared as text with the
 * runs' dates. */
static const char *iso_date(const char *s)
{
	static const char shape[] = "dddd-dd-dd";
	for (int i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
			fl_usage_error("store: --since '%s' is not an ISO date (YYYY-MM-DD...)", s);
	return s;
}

static void parse(int argc, char **argv, struct store_args *a)
{
	struct option lopts[NOPTS + 1];
	fl_options_getopt(opts, NOPTS, lopts);
	opterr = 0;
	optind = 2; /* after the subcommand */
	int o;
	while ((o = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		switch (o) {
		case 'd': a->db = optarg; break;
		case 'm': a->sel.machine = optarg, a->nsel++; break;
		case 'r': a->sel.rev = optarg, a->nsel++; break;
		case 's': a->sel.since = iso_date(optarg), a->nsel++; break;
		case 'l': a->sel.last = (int)fl_parse_int("store: --last", optarg, 1, INT_MAX),
			  a->nsel++; break;
		case 'h': usage(); exit(0);
		case ':': fl_usage_error("store: %s needs a value", argv[optind - 1]);
		default:
			fl_usage_error("store: unknown option '%s' (see futexlab store --help)",
				       argv[optind - 1]);
		}
	}
}

static struct fl_store *open_db(const char *db, bool create)
{
	struct fl_store *s;
	char err[512];
	if (fl_store_open(&s, db, create, err, sizeof err))
		fl_usage_error("store: %s", err);
	return s;
}

/* Each file one run; the first bad one ends the command, the files after it
 * not added. */
static int add(int nfiles, char **files, const char *db)
{
	if (nfiles < 1)
		fl_usage_error("store add: give one or more CSV files (see futexlab store --help)");
	struct fl_store *s = open_db(db, true);
	for (int i = 0; i < nfiles; i++) {
		char err[512];
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
			printf("added run %ld (machine %s, rev %s, %s)\n", id, m.name,
			       fl_table_meta(&t, "revision"), fl_table_meta(&t, "date"));
		else
			printf("added run %ld\n", id);
		fl_table_free(&t);
	}
	fl_store_close(s);
	return 0;
}

/* The machines of the runs listed, each once, in first-listed order. */
static void list_machines(const struct fl_store_run *r, int n)
{
	printf("machines:\n");
	for (int i = 0; i < n; i++) {
		int seen = 0, runs = 0;
		for (int j = 0; j < n; j++) {
			seen |= j < i && !strcmp(r[j].fingerprint, r[i].fingerprint);
			runs += !strcmp(r[j].fingerprint, r[i].fingerprint);
		}
		if (!seen)
			printf("  %s  %s  (%d run%s)\n", r[i].fingerprint, r[i].machine, runs,
			       runs == 1 ? "" : "s");
	}
}

static int ls(const struct store_args *a)
{
	struct fl_store *s = open_db(a->db, false);
	struct fl_store_run *r;
	int n;
	char err[512];
	if (fl_store_select(s, &a->sel, &r, &n, err, sizeof err)) {
		fl_store_close(s);
		fl_usage_error("store ls: %s", err);
	}
	printf("%-5s %-20s %-12s %-32s %6s  %s\n", "run", "date", "revision", "machine", "rows",
	       "command");
	for (int i = 0; i < n; i++)
		printf("%-5ld %-20s %-12s %-32s %6d  %s\n", r[i].id, r[i].date, r[i].revision,
		       r[i].machine, r[i].t.nrows, r[i].command);
	list_machines(r, n);
	fl_store_runs_free(r, n);
	fl_store_close(s);
	return 0;
}

int fl_cmd_store(int argc, char **argv)
{
	if (argc < 2)
		fl_usage_error("store: give add or ls (see futexlab store --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage();
		return 0;
	}
	struct store_args a = { .db = FL_DEFAULT_DB };
	bool is_add = !strcmp(argv[1], "add");
	if (!is_add && strcmp(argv[1], "ls"))
		fl_usage_error("store: unknown subcommand '%s' (add, ls)", argv[1]);
	parse(argc, argv, &a);
	if (is_add && a.nsel)
		fl_usage_error("store add: --machine, --rev, --since and --last select runs for ls");
	if (!is_add && optind < argc)
		fl_usage_error("store ls: unexpected argument '%s'", argv[optind]);
	return is_add ? add(argc - optind, argv + optind, a.db) : ls(&a);
}
