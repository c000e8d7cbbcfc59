/* model/run.c — one loaded run, its identity and machine (run.h). */
#include "model/run.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fail/fail.h"
#include "fail/xalloc.h"
#include "schema/fnv.h"

const char *const fl_machine_keys[] = { "cpu", "cores", "numa", "kernel", "hypervisor",
					"host", "libc", "libraries", NULL };

void fl_machine_of(const struct fl_table *t, struct fl_machine_id *m)
{
	uint64_t h = FL_FNV_BASIS;
	for (int i = 0; fl_machine_keys[i]; i++) {
		const char *v = fl_table_meta(t, fl_machine_keys[i]);
		if (!strcmp(v, "?"))
			continue; /* an older file: the key is not part of its identity */
		h = fl_fnv1a_str(fl_fnv1a_str(fl_fnv1a_str(h, fl_machine_keys[i]), "="), v);
		h = fl_fnv1a_str(h, "\n");
	}
	snprintf(m->fingerprint, sizeof m->fingerprint, "%016llx", (unsigned long long)h);
	const char *host = fl_table_meta(t, "host");
	if (strcmp(host, "?")) {
		snprintf(m->name, sizeof m->name, "%s", host);
	} else {
		/* "AMD EPYC/2c/6.18.44-fc-v1272": the CPU, its cores, the kernel's release */
		const char *k = fl_table_meta(t, "kernel"), *sp = strchr(k, ' ');
		const char *rel = sp ? sp + 1 : k;
		snprintf(m->name, sizeof m->name, "%s/%sc/%.*s", fl_table_meta(t, "cpu"),
			 fl_table_meta(t, "cores"), (int)strcspn(rel, " "), rel);
	}
	fl_machine_label(m->name, m->fingerprint, m->label, sizeof m->label);
}

void fl_machine_label(const char *name, const char *fingerprint, char *out, size_t n)
{
	snprintf(out, n, "%.159s [%.8s]", name, fingerprint);
}

bool fl_machine_same(const struct fl_table *a, const struct fl_table *b, const char **key)
{
	for (int i = 0; fl_machine_keys[i]; i++) {
		const char *x = fl_table_meta(a, fl_machine_keys[i]),
			   *y = fl_table_meta(b, fl_machine_keys[i]);
		if (strcmp(x, "?") && strcmp(y, "?") && strcmp(x, y)) {
			*key = fl_machine_keys[i];
			return false;
		}
	}
	return true;
}

void fl_run_settings(const char *cmd, char *buf, int len)
{
	static const char *const keys[] = { "--preset", "--rounds", "--duration" };
	char val[3][64] = { "", "", "" }, word[128] = "";
	int first = 1;
	for (const char *c = cmd; *c;) {
		while (*c == ' ')
			c++;
		size_t n = strcspn(c, " ");
		char tok[128];
		snprintf(tok, sizeof tok, "%.*s", (int)(n < sizeof tok - 1 ? n : sizeof tok - 1), c);
		c += n;
		if (!*tok)
			break;
		if (first) {
			snprintf(word, sizeof word, "%s", tok);
			first = 0;
			continue;
		}
		for (int k = 0; k < 3; k++) {
			size_t kl = strlen(keys[k]);
			if (strncmp(tok, keys[k], kl))
				continue;
			if (tok[kl] == '=') {
				snprintf(val[k], sizeof val[k], "%.63s", tok + kl + 1);
			} else if (!tok[kl]) {
				while (*c == ' ')
					c++;
				n = strcspn(c, " ");
				snprintf(val[k], sizeof val[k], "%.*s", (int)(n < 63 ? n : 63), c);
				c += n;
			}
		}
	}
	int l = snprintf(buf, (size_t)len, "%s", *word ? word : "?");
	for (int k = 0; k < 3 && l < len; k++)
		if (*val[k])
			l += snprintf(buf + l, (size_t)(len - l), " %s %s", keys[k], val[k]);
}

static void identity(struct fl_loaded_run *r, const char *path, long store_id)
{
	r->path = fl_xstrdup(path ? path : "-");
	r->store_id = store_id;
	r->revision = fl_table_meta(&r->t, "revision");
	r->date = fl_table_meta(&r->t, "date");
	r->seed = fl_table_meta(&r->t, "seed");
	r->command = fl_table_meta(&r->t, "command");
	const char *as = fl_table_meta(&r->t, "as");
	r->as = strcmp(as, "?") ? as : NULL;
	fl_run_settings(r->command, r->settings, sizeof r->settings);
	fl_machine_of(&r->t, &r->machine);
}

int fl_loaded_file(struct fl_loaded_run *r, const char *path, char *err, int errlen)
{
	memset(r, 0, sizeof *r);
	if (fl_table_load(&r->t, path, err, errlen))
		return -1;
	identity(r, path, 0);
	return 0;
}

void fl_loaded_take(struct fl_loaded_run *r, struct fl_table *t, const char *path,
		    long store_id)
{
	memset(r, 0, sizeof *r);
	r->t = *t;
	memset(t, 0, sizeof *t);
	identity(r, path, store_id);
}

void fl_loaded_wrap(struct fl_loaded_run *r, const struct fl_table *t, const struct fl_cells *c,
		    const char *path)
{
	memset(r, 0, sizeof *r);
	r->t = *t; /* a shallow copy: the caller's arrays, never freed here */
	r->c = *c;
	r->has_cells = r->borrowed = true;
	identity(r, path, 0);
}

int fl_loaded_cells(struct fl_loaded_run *r, char *err, int errlen)
{
	if (r->has_cells)
		return 0;
	if (fl_cells_build(&r->t, &r->c, err, errlen))
		return -1;
	r->has_cells = true;
	return 0;
}

void fl_loaded_free(struct fl_loaded_run *r)
{
	free(r->path);
	if (!r->borrowed) {
		if (r->has_cells)
			fl_cells_free(&r->c);
		fl_table_free(&r->t);
	}
	memset(r, 0, sizeof *r);
}

void fl_loaded_free_all(struct fl_loaded_run *runs, int n)
{
	for (int i = 0; i < n; i++)
		fl_loaded_free(&runs[i]);
	free(runs);
}

bool fl_same_run(const struct fl_loaded_run *a, const struct fl_loaded_run *b)
{
	if (!strcmp(a->date, "?") && !strcmp(a->seed, "?")) {
		char *x = realpath(a->path, NULL), *y = realpath(b->path, NULL);
		bool same = x && y && !strcmp(x, y);
		free(x);
		free(y);
		return same;
	}
	return !strcmp(a->revision, b->revision) && !strcmp(a->date, b->date) &&
	       !strcmp(a->seed, b->seed) && !strcmp(a->command, b->command);
}

void fl_runs_check(const struct fl_loaded_run *runs, int n, const struct fl_runs_check *o)
{
	int revs = 1;
	for (int j = 1; j < n; j++) {
		const struct fl_loaded_run *r = &runs[j];
		for (int i = 0; i < j; i++)
			if (o->once && fl_same_run(&runs[i], r))
				fl_bad_input("%s: %s and %s are the same run (revision, date, seed "
					       "and command): a run counts once", o->what, runs[i].path,
					       r->path);
		const char *key;
		if (!o->across && !fl_machine_same(&runs[0].t, &r->t, &key))
			fl_bad_input("%s: %s ran on %s, %s on %s (their %s differs): runs of "
				       "different machines are not reruns (--across-machines compares "
				       "their same-run ratios only)", o->what, runs[0].path,
				       runs[0].machine.label, r->path, r->machine.label, key);
		bool seen = false;
		for (int i = 0; i < j && !seen; i++)
			seen = !strcmp(runs[i].revision, r->revision);
		revs += !seen;
	}
	if (revs > 1 && o->note) {
		fprintf(o->note, "note: the runs come from %d revisions (", revs);
		for (int j = 0; j < n; j++)
			fprintf(o->note, "%s%s %s", j ? ", " : "", runs[j].path, runs[j].revision);
		fputs("): a change of the code is not a rerun\n", o->note);
	}
}

int fl_loaded_check(struct fl_loaded_run *r, const char *baseline, char *err, int errlen)
{
	if (fl_loaded_cells(r, err, errlen))
		return -1;
	/* The loader refuses a file without rows (fl_table_check_run) in the same
	 * words; a run handed over otherwise (the store's, a caller's) is checked
	 * here. */
	if (r->t.nrows == 0) {
		snprintf(err, (size_t)errlen, "no rows (a run that measured nothing) in %s", r->path);
		return -1;
	}
	if (baseline && !fl_cell_find_variant(&r->c, baseline)) {
		snprintf(err, (size_t)errlen, "baseline '%s' is not in %s (see --baseline)", baseline,
			 r->path);
		return -1;
	}
	return 0;
}
