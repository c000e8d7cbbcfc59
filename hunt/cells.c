/* hunt/cells.c — see cells.h. */
#include "hunt/cells.h"

#include <string.h>

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

void fl_hunt_fold(struct fl_hunt_cell *c, const struct fl_result *r, const char **status_out,
		  const char **note_out, int64_t *stranded_out)
{
	c->reps++;
	c->ops += r->ops;
	c->elapsed_ns += r->elapsed_ns;
	c->hits += r->preempt_hits;
	c->signals += r->preempt_signals;
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

void fl_hunt_table(FILE *f, const struct fl_hunt_cell *cells, int nc)
{
	fprintf(f, "\n%-12s %-8s %5s %9s %7s %17s %8s  %s\n", "variant", "pattern", "reps", "ops",
	       "seconds", "in-text/signals", "stranded", "first evidence");
	for (int i = 0; i < nc; i++) {
		const struct fl_hunt_cell *c = &cells[i];
		char ops[32], sig[40] = "-";
		if (c->unavailable) {
			fprintf(f, "%-12s %-8s %5s %9s %7s %17s %8s  skipped: %s\n", c->label,
			       c->w->name, "-", "-", "-", "-", "-", c->unavailable);
			continue;
		}
		human_ops(ops, sizeof ops, c->ops);
		if (c->signals || !strcmp(c->w->name, "preempt"))
			snprintf(sig, sizeof sig, "%lld/%lld", (long long)c->hits,
				 (long long)c->signals);
		char ev[400] = "";
		if (c->found_rep)
			snprintf(ev, sizeof ev, "rep %d, after %lld ops: %s", c->found_rep,
				 (long long)c->found_ops, c->found);
		else if (!strcmp(c->w->name, "preempt") && c->reps && !c->hits)
			snprintf(ev, sizeof ev, "(no signal landed in library text: proves nothing)");
		fprintf(f, "%-12s %-8s %5d %9s %7.1f %17s %8lld  %s\n", c->label, c->w->name, c->reps,
		       ops, c->elapsed_ns / 1e9, sig, (long long)c->stranded, ev);
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

