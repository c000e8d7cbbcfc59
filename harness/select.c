/* harness/select.c — which runs a command reads (select.h). */
#include "harness/select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/judge.h"
#include "report/model.h"
#include "report/xalloc.h"
#include "store/store.h"

bool fl_select_option(struct fl_select *s, int code, const char *arg)
{
	switch (code) {
	case 0x300: s->db = arg; return true;
	case 0x301: s->machine = arg; return true;
	case 0x302: s->rev = arg; return true;
	case 0x303: s->since = arg; return true;
	case 0x304: s->last = (int)fl_parse_int("--last", arg, 1, 100000); return true;
	default: return false;
	}
}

bool fl_select_given(const struct fl_select *s)
{
	return s->machine || s->rev || s->since || s->last;
}

static void grow(struct fl_runs *r, int n)
{
	r->t = fl_xrealloc(r->t, (size_t)n * sizeof *r->t);
	r->path = fl_xrealloc(r->path, (size_t)n * sizeof *r->path);
	r->store_id = fl_xrealloc(r->store_id, (size_t)n * sizeof *r->store_id);
}

static void add_file(struct fl_runs *r, const char *cmd, const char *path)
{
	char err[300];
	grow(r, r->n + 1);
	if (fl_table_load(&r->t[r->n], path, err, sizeof err))
		fl_usage_error("%s: %s", cmd, err);
	if (r->t[r->n].nrows == 0)
		fl_usage_error("%s: %s has no rows (a run that measured nothing)", cmd, path);
	r->path[r->n] = fl_xstrdup(path);
	r->store_id[r->n++] = 0;
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

/* Whether stored run x is one of the new side's files (the same run). */
static bool is_new(const struct fl_store_run *x, const struct fl_runs *news)
{
	for (int i = 0; i < news->n; i++)
		if (!strcmp(x->revision, fl_table_meta(&news->t[i], "revision")) &&
		    !strcmp(x->date, fl_table_meta(&news->t[i], "date")) &&
		    !strcmp(x->seed, fl_table_meta(&news->t[i], "seed")) &&
		    !strcmp(x->command, fl_table_meta(&news->t[i], "command")))
			return true;
	return false;
}

static void take_stored(struct fl_runs *r, struct fl_store_run *x)
{
	char name[64];
	grow(r, r->n + 1);
	r->t[r->n] = x->t;
	memset(&x->t, 0, sizeof x->t);
	snprintf(name, sizeof name, "store:%ld", x->id);
	r->path[r->n] = fl_xstrdup(name);
	r->store_id[r->n++] = x->id;
}

/* What a new run's history may hold (select.h): what is left out is
 * counted in r (later, other_settings). */
struct earlier {
	const char *date;  /* the first new run's date ("": not known) */
	long id;           /* the first stored copy of a new run's id (0: none) */
	const char *until; /* --reference DATE */
};

static bool history_ok(const struct fl_store_run *x, const struct fl_runs *news,
		       const struct earlier *e, struct fl_runs *r)
{
	if (x->as || is_new(x, news))
		return false;
	if ((*e->date && strcmp(x->date, e->date) >= 0) || (e->id && x->id >= e->id)) {
		r->later++;
		return false;
	}
	if (e->until && strncmp(x->date, e->until, strlen(e->until)) > 0)
		return false;
	char set[sizeof r->settings];
	fl_judge_settings(&x->t, set, sizeof set);
	if (strcmp(set, r->settings)) {
		r->other_settings++;
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
	if (nagainst)
		fl_machine_of(&news.t[0], &id);
	struct fl_store *st;
	char err[300];
	if (fl_store_open(&st, s->db, false, err, sizeof err))
		fl_usage_error("%s: %s", cmd, err);
	struct fl_store_sel sel = { .machine = s->machine ? s->machine
						: nagainst && !across ? id.fingerprint : NULL,
				    .rev = s->rev, .since = s->since,
				    .last = nagainst ? 0 : s->last };
	struct fl_store_run *runs;
	int n;
	if (fl_store_select(st, &sel, &runs, &n, err, sizeof err))
		fl_usage_error("%s: %s", cmd, err);
	fl_store_close(st);
	memset(r, 0, sizeof *r);
	snprintf(r->machine, sizeof r->machine, "%s", nagainst ? id.name : "");
	/* against a new run: real runs strictly earlier than it, of its
	 * settings, the last N of them */
	struct earlier e = { .date = "", .until = s->until };
	for (int i = 0; i < news.n; i++) {
		const char *d = fl_table_meta(&news.t[i], "date");
		if (strcmp(d, "?") && (!*e.date || strcmp(d, e.date) < 0))
			e.date = d;
	}
	for (int i = 0; i < n; i++)
		if (is_new(&runs[i], &news) && (!e.id || runs[i].id < e.id))
			e.id = runs[i].id;
	if (nagainst)
		fl_judge_settings(&news.t[0], r->settings, sizeof r->settings);
	bool *ok = fl_xcalloc((size_t)(n ? n : 1), sizeof *ok);
	for (int i = 0; i < n; i++)
		ok[i] = !nagainst || history_ok(&runs[i], &news, &e, r);
	int keep = nagainst ? (s->last ? s->last : FL_DEFAULT_LOOKBACK) : n, first = n;
	for (int i = n - 1, kept = 0; i >= 0 && kept < keep; i--)
		if (ok[i])
			first = i, kept++;
	for (int i = first; i < n; i++)
		if (ok[i])
			take_stored(r, &runs[i]);
	free(ok);
	fl_store_runs_free(runs, n);
	int nhist = r->n;
	for (int i = 0; i < news.n; i++) {
		grow(r, r->n + 1);
		r->t[r->n] = news.t[i];
		r->path[r->n] = news.path[i];
		r->store_id[r->n++] = 0;
	}
	free(news.t);
	free(news.path);
	free(news.store_id);
	return nhist;
}

void fl_runs_free(struct fl_runs *r)
{
	for (int i = 0; i < r->n; i++) {
		if (r->t)
			fl_table_free(&r->t[i]);
		free(r->path[i]);
	}
	free(r->t);
	free(r->path);
	free(r->store_id);
	memset(r, 0, sizeof *r);
}
