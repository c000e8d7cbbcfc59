/* harness/select.c — which runs a command reads (select.h). */
#include "harness/select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/judge.h"
#include "model/model.h"
#include "fail/xalloc.h"
#include "store/store.h"

/* "YYYY-MM-DD", optionally "THH:MM", ":SS" and "Z" after it: a real day
 * and time (runs' dates are compared with it as text, so "2026-13-45" or
 * "yesterday" would select silently by the characters' order). */
static bool iso_date(const char *s)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, n = 0;
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10 || mo < 1 || mo > 12 ||
	    d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))))
		return false;
	for (int i = 0; i < 10; i++)
		if ((i == 4 || i == 7) != (s[i] == '-') || (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9')))
			return false;
	s += 10;
	if (!*s)
		return true;
	int m = 0;
	if (sscanf(s, "T%2d:%2d%n", &h, &mi, &m) != 2 || m != 6 || h > 23 || mi > 59 || h < 0 ||
	    mi < 0)
		return false;
	s += 6;
	if (*s == ':') {
		if (sscanf(s, ":%2d%n", &sec, &m) != 1 || m != 3 || sec < 0 || sec > 60)
			return false;
		s += 3;
	}
	return !strcmp(s, "") || !strcmp(s, "Z");
}

bool fl_select_option(struct fl_select *s, int code, const char *arg)
{
	switch (code) {
	case 0x300:
		if (!arg[0])
			fl_usage_error("--db: an empty path is not a store");
		s->db = arg;
		return true;
	case 0x301:
		if (!arg[0])
			fl_usage_error("--machine: give a machine's name, 'name [fingerprint]' or a "
				       "prefix of its fingerprint (futexlab store ls)");
		s->machine = arg;
		return true;
	case 0x302:
		if (!arg[0])
			fl_usage_error("--rev: give a revision or a prefix of one");
		s->rev = arg;
		return true;
	case 0x303:
		if (!iso_date(arg))
			fl_usage_error("--since: '%s' is not an ISO date (YYYY-MM-DD, or "
				       "YYYY-MM-DDTHH:MM:SSZ)", arg);
		s->since = arg;
		return true;
	case 0x304: s->last = (int)fl_parse_int("--last", arg, 1, 100000); return true;
	default: return false;
	}
}

bool fl_select_given(const struct fl_select *s)
{
	return s->machine || s->rev || s->since || s->last;
}

void fl_select_describe(const struct fl_select *s, char *out, size_t n)
{
	size_t l = 0;
	out[0] = '\0';
	const char *k[] = { "--machine", "--rev", "--since" }, *v[] = { s->machine, s->rev, s->since };
	for (int i = 0; i < 3; i++)
		if (v[i] && l < n)
			l += (size_t)snprintf(out + l, n - l, "%s%s '%s'", l ? " " : "", k[i], v[i]);
	if (s->last && l < n)
		l += (size_t)snprintf(out + l, n - l, "%s--last %d", l ? " " : "", s->last);
	if (!l)
		snprintf(out, n, "no selection: the store is empty");
}

void fl_select_nothing(const char *cmd, const struct fl_select *s)
{
	char what[600];
	fl_select_describe(s, what, sizeof what);
	fl_usage_error("%s: no run in %s matches the selection (%s)", cmd, s->db, what);
}

static struct fl_loaded_run *grow(struct fl_runs *r)
{
	r->run = fl_xrealloc(r->run, (size_t)(r->n + 1) * sizeof *r->run);
	return &r->run[r->n++];
}

static void add_file(struct fl_runs *r, const char *cmd, const char *path)
{
	char err[600];
	if (fl_loaded_file(grow(r), path, err, sizeof err)) /* the rules store add reads by */
		fl_usage_error("%s: %s", cmd, err);
}

void fl_runs_files(struct fl_runs *r, const char *cmd, char *const *files, int n,
		   char *const *against, int nagainst)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < n; i++)
		add_file(r, cmd, files[i]);
	for (int i = 0; i < nagainst; i++)
		add_file(r, cmd, against[i]);
}

void fl_select_same_name(struct fl_store *st, const char *cmd, const char *name,
			 const struct fl_store_run *runs, int n)
{
	struct fl_store_machine m[8];
	char err[300], label[200];
	int k = name ? fl_store_machines_named(st, name, m, 8, err, sizeof err) : 0;
	if (k < 2)
		return; /* one machine of that name (or none: a fingerprint given) */
	char list[1200];
	size_t l = 0;
	for (int i = 0; i < k && i < 8 && l < sizeof list; i++) {
		fl_machine_label(name, m[i].fingerprint, label, sizeof label);
		l += (size_t)snprintf(list + l, sizeof list - l, "%s%s, %d run%s", i ? "; " : "",
				      label, m[i].runs, m[i].runs == 1 ? "" : "s");
	}
	int sel = 0; /* the selected runs' machines of that name */
	for (int i = 0; i < k && i < 8; i++)
		for (int j = 0; j < n; j++)
			if (!strcmp(runs[j].fingerprint, m[i].fingerprint)) {
				sel++;
				break;
			}
	fprintf(stderr, "%s: note: %d machines are named '%s' (%s)%s\n", cmd, k, name, list,
		sel > 1 ? ": the selection has runs of more than one; name one by its "
		"fingerprint" : "");
}

static void take_stored(struct fl_runs *r, struct fl_store_run *x)
{
	*grow(r) = x->run; /* taken over: named store:ID */
	memset(&x->run, 0, sizeof x->run);
}

/* What a new run's history may hold (select.h), decided on each stored
 * run's row before it is read back (fl_store_sel.keep), newest first; what
 * is left out is counted in r (later, other_settings). */
struct history {
	const struct fl_runs *news;
	const char *date;  /* the first new run's date ("": not known) */
	long id;           /* the first stored copy of a new run's id (0: none) */
	const char *until; /* --reference DATE */
	struct fl_runs *r;
};

/* Whether stored run x is one of the new side's files (the same run: its
 * identity as the store keeps it, fl_store_kept). */
static bool is_new(const struct fl_store_row *x, const struct fl_runs *news)
{
	for (int i = 0; i < news->n; i++) {
		const struct fl_loaded_run *y = &news->run[i];
		if (!strcmp(x->revision, fl_store_kept(y->revision)) &&
		    !strcmp(x->date, fl_store_kept(y->date)) && !strcmp(x->seed, fl_store_kept(y->seed)) &&
		    !strcmp(x->command, fl_store_kept(y->command)))
			return true;
	}
	return false;
}

/* A stored copy of a new run is dated as it is, so newest first every copy
 * is shown before any run dated earlier than the first new run: e->id is
 * final by the time it decides one. */
static bool history_keep(void *arg, const struct fl_store_row *x)
{
	struct history *e = arg;
	if (is_new(x, e->news)) {
		if (!e->id || x->id < e->id)
			e->id = x->id;
		return false;
	}
	if (x->as)
		return false;
	if ((*e->date && strcmp(x->date, e->date) >= 0) || (e->id && x->id >= e->id)) {
		e->r->later++;
		return false;
	}
	if (e->until && strncmp(x->date, e->until, strlen(e->until)) > 0)
		return false;
	char set[sizeof e->r->settings];
	fl_run_settings(x->command, set, sizeof set);
	if (strcmp(set, e->r->settings)) {
		e->r->other_settings++;
		return false;
	}
	return true;
}

int fl_runs_store(struct fl_runs *r, const struct fl_select *s, char *const *against,
		  int nagainst, bool across)
{
	const char *cmd = s->cmd ? s->cmd : "compare"; /* who names a bad store or file */
	struct fl_runs news;
	fl_runs_files(&news, cmd, NULL, 0, against, nagainst);
	struct fl_machine_id id = { .name = "" };
	memset(r, 0, sizeof *r);
	/* against a new run: real runs strictly earlier than it, of its
	 * settings, the last N of them */
	struct history e = { .news = &news, .date = "", .until = s->until, .r = r };
	if (nagainst) {
		id = news.run[0].machine;
		snprintf(r->machine, sizeof r->machine, "%s", id.label);
		snprintf(r->settings, sizeof r->settings, "%s", news.run[0].settings);
	}
	for (int i = 0; i < news.n; i++) {
		const char *d = news.run[i].date;
		if (strcmp(d, "?") && (!*e.date || strcmp(d, e.date) < 0))
			e.date = d;
	}
	struct fl_store *st;
	char err[300];
	if (fl_store_open(&st, s->db, false, err, sizeof err))
		fl_usage_error("%s: %s", cmd, err);
	struct fl_store_sel sel = { .machine = s->machine ? s->machine
						: nagainst && !across ? id.fingerprint : NULL,
				    .rev = s->rev, .since = s->since, .last = s->last };
	if (nagainst) {
		sel.last = s->last ? s->last : FL_DEFAULT_LOOKBACK;
		sel.keep = history_keep, sel.arg = &e;
	}
	struct fl_store_run *runs;
	int n;
	if (fl_store_select(st, &sel, &runs, &n, err, sizeof err))
		fl_usage_error("%s: %s", cmd, err);
	if (!n && !nagainst)
		fl_select_nothing(cmd, s);
	fl_select_same_name(st, cmd, s->machine ? s->machine : nagainst ? id.name : NULL, runs, n);
	fl_store_close(st);
	for (int i = 0; i < n; i++)
		take_stored(r, &runs[i]);
	fl_store_runs_free(runs, n);
	int nhist = r->n;
	for (int i = 0; i < news.n; i++)
		*grow(r) = news.run[i];
	free(news.run);
	return nhist;
}

void fl_runs_free(struct fl_runs *r)
{
	fl_loaded_free_all(r->run, r->n);
	memset(r, 0, sizeof *r);
}
