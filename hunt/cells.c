/* hunt/cells.c — see cells.h. */
#include "hunt/cells.h"

#include <string.h>

#include "workloads/point.h"

void fl_hunt_cell_init(struct fl_hunt_cell *c, const struct fl_variant *v,
		       const struct fl_workload *w, const struct fl_policy *pol)
{
	c->v = v;
	c->w = w;
	c->policy = (struct fl_policy)FL_POLICY_PARK_INIT;
	if (fl_policy_applies(v))
		c->policy = *pol;
	fl_entry_label(v, &c->policy, c->label, sizeof c->label);
}

/* The first finding of cell c, from rep r: its note, and the ops run until
 * it — the earlier reps', plus this rep's acquisitions up to it when the
 * detector confirmed it (stranded_taken: every wait and trywait that took a
 * token, i.e. this pattern's ops), else this rep's whole count. */
static void first_finding(struct fl_hunt_cell *c, const struct fl_result *r)
{
	c->found_rep = c->reps;
	c->found_ops = c->ops;
	if (r->stranded > 0 && r->stranded_taken <= r->ops)
		c->found_ops = c->ops - r->ops + r->stranded_taken;
	snprintf(c->found, sizeof c->found, "%s", r->error);
}

/* What the collector counted in a rep, into the cell's sums. */
static void add_kcounts(struct fl_hunt_cell *c, const struct fl_kcounts *k, int64_t ops)
{
	c->probed++;
	c->probed_ops += ops;
	c->k.futex += k->futex;
	c->k.waits += k->waits;
	c->k.wakes += k->wakes;
	c->k.wake_none += k->wake_none;
	c->k.eagain += k->eagain;
	c->k.resleeps += k->resleeps;
	c->k.herd += k->herd;
}

void fl_hunt_fold(struct fl_hunt_cell *c, const struct fl_result *r, const struct fl_kcounts *k,
		  const char **status_out, const char **note_out, int64_t *stranded_out)
{
	c->reps++;
	c->ops += r->ops;
	c->elapsed_ns += r->elapsed_ns;
	c->hits += r->preempt_hits;
	c->signals += r->preempt_signals;
	if (r->cpu_set) {
		c->cpu_ns += r->cpu_user_ns + r->cpu_sys_ns;
		c->cpu_ops += r->ops;
	}
	if (k)
		add_kcounts(c, k, r->ops);
	/* The detector's count; a wave the pattern itself saw stall (the
	 * detector off, or a stranding it could not confirm) counts one. */
	int64_t stranded = r->stranded > 0 ? r->stranded : 0, smax = r->stranded_max_ns;
	const char *status = "ok", *note = r->info;
	if (r->error[0] && strstr(r->error, "lost wakeup")) {
		status = "stranded";
		note = r->error;
		stranded = stranded ? stranded : 1;
	} else if (r->error[0]) {
		status = "error";
		note = r->error;
		c->errors++;
	}
	c->stranded += stranded;
	if (smax > c->stranded_max_ns)
		c->stranded_max_ns = smax;
	if (r->error[0] && !c->found_rep)
		first_finding(c, r);
	*status_out = status;
	*note_out = note;
	*stranded_out = stranded;
}

static void human_ops(char *out, size_t n, int64_t ops)
{
	if (ops >= 10000000)
		snprintf(out, n, "%.1fM", ops / 1e6);
	else if (ops >= 10000)
		snprintf(out, n, "%.1fk", ops / 1e3);
	else
		snprintf(out, n, "%lld", (long long)ops);
}

/* count per op (times scale: herd bursts per 1000 ops) as the sweep's
 * evidence block prints a count (model/evidence.c): 3 decimals under 100;
 * "-" without ops counted. */
static const char *per_op(char *b, size_t n, int64_t count, int64_t ops, double scale)
{
	double x = ops > 0 ? scale * (double)count / (double)ops : -1;
	if (x < 0)
		snprintf(b, n, "-");
	else if (x == 0)
		snprintf(b, n, "0");
	else if (x < 100)
		snprintf(b, n, "%.3f", x);
	else if (x < 1e7)
		snprintf(b, n, "%.0f", x);
	else
		snprintf(b, n, "%.3g", x);
	return b;
}

/* The columns after the cell's name, in the table's order, with their widths. */
enum { C_REPS, C_OPS, C_SECS, C_CPU, C_FUTEX, C_WAITS, C_WAKES, C_WOKE0, C_EAGAIN, C_RESLEEP,
       C_HERD, C_SIG, C_STRANDED, NCOLS };
static const char *const head[NCOLS] = { "reps", "ops", "secs", "cpu ns", "futex", "waits",
					 "wakes", "woke 0", "EAGAIN", "resleep", "herd/1k",
					 "text/sig", "stranded" };
static const int width[NCOLS] = { 4, 7, 4, 7, 6, 6, 6, 6, 6, 7, 7, 9, 8 };

static void line(FILE *f, const char *label, const char *pattern, char col[NCOLS][32],
		 const char *tail)
{
	fprintf(f, "%-12s %-7s", label, pattern);
	for (int k = 0; k < NCOLS; k++)
		fprintf(f, " %*s", width[k], col[k]);
	fprintf(f, "%s%s\n", *tail ? "  " : "", tail);
}

/* A cell's columns (not the evidence). */
static void cell_cols(const struct fl_hunt_cell *c, char col[NCOLS][32])
{
	const int64_t kc[] = { c->k.futex, c->k.waits, c->k.wakes, c->k.wake_none, c->k.eagain,
			       c->k.resleeps };
	snprintf(col[C_REPS], 32, "%d", c->reps);
	human_ops(col[C_OPS], 32, c->ops);
	snprintf(col[C_SECS], 32, "%.1f", c->elapsed_ns / 1e9);
	double cpu = c->cpu_ops > 0 ? (double)c->cpu_ns / (double)c->cpu_ops : -1;
	snprintf(col[C_CPU], 32, cpu < 0 ? "-" : cpu < 1000 ? "%.1f" : cpu < 1e7 ? "%.0f" : "%.3g",
		 cpu);
	for (int k = C_FUTEX; k <= C_RESLEEP; k++)
		per_op(col[k], 32, kc[k - C_FUTEX], c->probed ? c->probed_ops : 0, 1);
	per_op(col[C_HERD], 32, c->k.herd, c->probed ? c->probed_ops : 0, 1000);
	snprintf(col[C_SIG], 32, "-");
	if (c->signals || !strcmp(c->w->name, "preempt"))
		snprintf(col[C_SIG], 32, "%lld/%lld", (long long)c->hits, (long long)c->signals);
	snprintf(col[C_STRANDED], 32, "%lld", (long long)c->stranded);
}

void fl_hunt_table(FILE *f, const struct fl_hunt_cell *cells, int nc, const char *off)
{
	char col[NCOLS][32];
	fprintf(f, "\nper op (an op: a token taken): cpu ns, user + system CPU; the kernel's futex syscalls, "
		"waits, wakes, wakes that\nwoke nobody (woke 0), EAGAIN returns, resleeps; herd bursts "
		"per 1000 ops (herd/1k): ");
	if (off && *off) /* the reason may be long: text/sig on a line of its own */
		fprintf(f, "'-', the eBPF collector is\noff (%s)\n", off);
	else
		fprintf(f, "counted by the eBPF collector\nin every rep (its cost is in cpu ns); ");
	fprintf(f, "text/sig: preemption signals that landed in library text / signals taken\n");
	for (int k = 0; k < NCOLS; k++)
		snprintf(col[k], 32, "%s", head[k]);
	line(f, "variant", "pattern", col, "first evidence");
	for (int i = 0; i < nc; i++) {
		const struct fl_hunt_cell *c = &cells[i];
		char ev[400] = "";
		if (c->unavailable) {
			for (int k = 0; k < NCOLS; k++)
				snprintf(col[k], 32, "-");
			snprintf(ev, sizeof ev, "skipped: %s", c->unavailable);
			line(f, c->label, c->w->name, col, ev);
			continue;
		}
		cell_cols(c, col);
		if (c->found_rep)
			snprintf(ev, sizeof ev, "rep %d, after %lld ops: %s", c->found_rep,
				 (long long)c->found_ops, c->found);
		else if (!strcmp(c->w->name, "preempt") && c->reps && !c->hits)
			snprintf(ev, sizeof ev, "(no signal landed in library text: proves nothing)");
		line(f, c->label, c->w->name, col, ev);
	}
}

void fl_hunt_verdicts(FILE *f, const struct fl_hunt_cell *cells, int nc, int np)
{
	for (int i = 0; i < nc; i += np) {
		int64_t ops = 0, stranded = 0, hits = 0;
		int errors = 0, ran = 0, first = -1;
		for (int k = i; k < i + np; k++) {
			ops += cells[k].ops;
			stranded += cells[k].stranded;
			hits += cells[k].hits;
			errors += cells[k].errors;
			ran += cells[k].reps > 0;
			if (first < 0 && cells[k].found_rep)
				first = k;
		}
		const char *name = cells[i].label;
		if (!ran) {
			fprintf(f, "%s: not run\n", name);
		} else if (stranded) {
			fprintf(f, "%s: LOST WAKEUP — %lld stranded waiter%s in %lld ops; first in %s "
			       "after %lld ops\n", name, (long long)stranded, stranded == 1 ? "" : "s",
			       (long long)ops, cells[first].w->name, (long long)cells[first].found_ops);
		} else if (errors) {
			fprintf(f, "%s: BROKEN — %d rep%s broke another invariant (first in %s: %s)\n",
			       name, errors, errors == 1 ? "" : "s", cells[first].w->name,
			       cells[first].found);
		} else {
			fprintf(f, "%s: clean — no stranded waiter in %lld ops over %d pattern%s "
			       "(%lld preemptions in library text)\n", name, (long long)ops, ran,
			       ran == 1 ? "" : "s", (long long)hits);
		}
	}
}

