/* report/exec_summary.c — the per-program summary of `futexlab exec`
 * (exec_summary.h): what each design made the program do, from the run's
 * rows (medians over the timed rounds, the kernel's counts over the probed
 * ones), and the futex words it contended on, from the collector's
 * per-word counts of one probed rep per design (the one whose wall time is
 * the median of that design's probed reps: a typical run, not the worst). */
#include "report/exec_summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schema/columns.h"
#include "model/evidence.h"
#include "stats/stats.h"
#include "fail/xalloc.h"

/* Whether row r was probed (its `probed` cell is 1). */
static bool probed_row(const struct fl_table *t, char **r)
{
	int ip = fl_table_col(t, "probed");
	return ip >= 0 && !strcmp(r[ip], "1");
}

/* Whether variant has an ok row that was not probed. */
static bool has_unprobed(const struct fl_table *t, const char *variant)
{
	int iv = fl_table_col(t, FL_COL(variant)), is = fl_table_col(t, FL_COL(status));
	for (int i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i][iv], variant) && !strcmp(t->rows[i][is], "ok") &&
		    !probed_row(t, t->rows[i]))
			return true;
	return false;
}

/* The median over variant's ok rows of the sum of the named columns (a
 * comma list; an empty cell in any of them leaves that row out); NAN when
 * no row has them. timed: over its unprobed ok rows when it has any (the
 * probed ones carry the collector's tax: table.h). */
static double med(const struct fl_table *t, const char *variant, const char *cols, bool timed)
{
	int ic[8], nc = 0, iv = fl_table_col(t, FL_COL(variant));
	int is = fl_table_col(t, FL_COL(status));
	bool skip_probed = timed && has_unprobed(t, variant);
	char buf[200];
	snprintf(buf, sizeof buf, "%s", cols);
	for (char *save, *c = strtok_r(buf, ",", &save); c && nc < 8; c = strtok_r(NULL, ",", &save))
		if ((ic[nc] = fl_table_col(t, c)) < 0)
			return NAN;
		else
			nc++;
	double *x = fl_xcalloc((size_t)t->nrows + 1, sizeof *x);
	int n = 0;
	for (int i = 0; i < t->nrows; i++) {
		char **r = t->rows[i];
		if (strcmp(r[iv], variant) || strcmp(r[is], "ok") || (skip_probed && probed_row(t, r)))
			continue;
		double s = 0;
		bool all = true;
		for (int k = 0; k < nc; k++)
			if (r[ic[k]][0])
				s += strtod(r[ic[k]], NULL);
			else
				all = false;
		if (all)
			x[n++] = s;
	}
	double m = n ? fl_median(x, n) : NAN;
	free(x);
	return m;
}

static const char *cell(char *b, size_t n, double x, double scale, const char *fmt)
{
	if (isnan(x))
		snprintf(b, n, "-");
	else
		snprintf(b, n, fmt, x / scale);
	return b;
}

/* Whether two records are one word: a private one's process and address,
 * or a shared one's file and offset. */
static bool same_word(const struct fl_word *a, const struct fl_word *b)
{
	return a->uaddr == b->uaddr && a->tgid == b->tgid && a->ino == b->ino && a->dev == b->dev;
}

/* One word, one line: waits, wakes and woken together, then the processes
 * that touched it. Its name: pid:address for a private word, the file's
 * inode+offset for a shared one (anonymous shared memory too: a shmem
 * file), whichever processes map it where. */
static void word_row(FILE *f, const struct fl_exec_rep *x, const struct fl_word *w,
		     const char *mark)
{
	char id[64], t[16], pids[160] = "";
	if (w->ino)
		snprintf(id, sizeof id, "shared ino %llu+%#llx", w->ino,
			 (unsigned long long)w->uaddr);
	else
		snprintf(id, sizeof id, "%u:%#llx", w->tgid, (unsigned long long)w->uaddr);
	size_t len = 0;
	for (int i = 0; i < w->npids && len < sizeof pids; i++) {
		const char *comm = fl_exec_comm(x, w->pids[i]);
		len += (size_t)snprintf(pids + len, sizeof pids - len, "%s%u%s%s", i ? ", " : "",
					w->pids[i], comm[0] ? " " : "", comm);
	}
	if (w->more && len < sizeof pids)
		snprintf(pids + len, sizeof pids - len, ", ...");
	fprintf(f, "    %-30s %9llu %10s %9llu %9llu %8llu %8llu  %s%s\n", id,
		(unsigned long long)w->waits, fl_dur_text(t, sizeof t, (double)w->wait_ns),
		(unsigned long long)w->wakes, (unsigned long long)w->woken,
		(unsigned long long)w->eagain, (unsigned long long)w->timedout, pids, mark);
}

/* The top words by total wait time, then those of the top by wait count
 * not already listed (marked): one list, both rankings. */
static void words(FILE *f, const char *label, const struct fl_exec_rep *x)
{
	fprintf(f, "  %s, round %d: top futex words of %d, by total wait time (+: also, or "
		   "only, in the top %d by waits)\n", label, x->round + 1, x->nwords, FL_EXEC_TOP);
	fprintf(f, "    %-30s %9s %10s %9s %9s %8s %8s  %s\n", "word (pid:address | shared)",
		"waits", "wait time", "wakes", "woken", "EAGAIN", "timeouts", "processes");
	for (int i = 0; i < x->ntop[1]; i++) {
		bool also = false;
		for (int k = 0; k < x->ntop[0] && !also; k++)
			also = same_word(&x->top[0][k], &x->top[1][i]);
		word_row(f, x, &x->top[1][i], also ? " +" : "");
	}
	for (int k = 0; k < x->ntop[0]; k++) {
		bool shown = false;
		for (int i = 0; i < x->ntop[1] && !shown; i++)
			shown = same_word(&x->top[0][k], &x->top[1][i]);
		if (!shown)
			word_row(f, x, &x->top[0][k], " +");
	}
}

const char *fl_exec_comm(const struct fl_exec_rep *x, unsigned tgid)
{
	for (int i = 0; i < x->nprocs; i++)
		if (x->procs[i].pid == tgid)
			return x->procs[i].comm;
	return "";
}

/* The per-program block: wall, CPU, context switches, semaphores on the
 * design, processes, per design. */
static void per_program(FILE *f, const struct fl_table *t, const char *const *labels,
			int nlabels)
{
	bool cg = false; /* a run in a cgroup has its processes-seen figure */
	for (int i = 0; i < nlabels && !cg; i++)
		cg = !isnan(med(t, labels[i], FL_COL(cgroup_procs), true));
	bool taxed = false; /* a design timed in probed rounds only (--probes) */
	for (int i = 0; i < nlabels && !taxed; i++)
		taxed = !isnan(med(t, labels[i], FL_COL(ns_per_op), true)) &&
			!has_unprobed(t, labels[i]);
	fprintf(f, "\nper program: medians over the %s rounds of each design (wall: fork to "
		   "reaped; CPU: %s; context switches: wait4's, the processes exec reaped; "
		   "procs: %s)\n", taxed ? "probed" : "timed (unprobed)",
		   cg ? "the run's cgroup's cpu.stat, every process of the run" :
		   "wait4's, the processes exec reaped (no cgroup)",
		   cg ? "seen in the cgroup" : "the collector's");
	if (taxed)
		fprintf(f, "  (every round probed: wall and CPU carry the collector's tax, "
			   "probes/overhead.md)\n");
	fprintf(f, "  %-12s %9s %9s %9s %8s %8s %7s %6s\n", "variant", "wall", "user",
		"sys", "vol csw", "inv csw", "sems", "procs");
	for (int i = 0; i < nlabels; i++) {
		const char *v = labels[i];
		if (isnan(med(t, v, FL_COL(ns_per_op), true)))
			continue;
		char a[16], b[16], c[16], d[16], e[16], g[16], h[16];
		fprintf(f, "  %-12s %9s %9s %9s %8s %8s %7s %6s\n", v,
			fl_dur_text(a, sizeof a, med(t, v, FL_COL(ns_per_op), true)),
			fl_dur_text(b, sizeof b, med(t, v, FL_COL(cpu_user_ns), true)),
			fl_dur_text(c, sizeof c, med(t, v, FL_COL(cpu_sys_ns), true)),
			cell(d, sizeof d, med(t, v, FL_COL(csw_vol), true), 1, "%.0f"),
			cell(e, sizeof e, med(t, v, FL_COL(csw_invol), true), 1, "%.0f"),
			cell(g, sizeof g, med(t, v, FL_COL(shim_sems), true), 1, "%.0f"),
			cell(h, sizeof h, med(t, v, cg ? FL_COL(cgroup_procs) : "procs", cg), 1,
			     "%.0f"));
	}
}

void fl_exec_summary(FILE *f, const struct fl_table *t, const struct fl_exec_in *in)
{
	const char *const *labels = in->labels;
	const struct fl_exec_rep *reps = in->reps;
	int nlabels = in->nlabels, nreps = in->nreps;
	bool probes = in->probes;
	per_program(f, t, labels, nlabels);
	if (!probes || fl_table_col(t, "procs") < 0 || isnan(med(t, labels[0], "futex_syscalls", false))) {
		fprintf(f, "\n(no kernel view: the collector was off; --probes as root)\n");
		return;
	}
	fprintf(f, "\nkernel view (the collector, the run's processes only: its cgroup, or its process tree): medians "
		   "over the probed rounds\n");
	fprintf(f, "  %-12s %9s %8s %8s %8s %8s %8s %8s %8s %6s %6s %9s %9s\n", "variant",
		"futex", "wait", "wait_bs", "wake", "other", "futex2", "uring", "woke 0", "herds",
		"storms", "wait p50", "wait p99");
	for (int i = 0; i < nlabels; i++) {
		const char *v = labels[i];
		if (isnan(med(t, v, "futex_syscalls", false)))
			continue;
		char a[16], b[16], c[16], d[16], e[16], g[16], u[16], h[16], k[16], l[16], m[16],
			n[16];
		fprintf(f, "  %-12s %9s %8s %8s %8s %8s %8s %8s %8s %6s %6s %9s %9s\n", v,
			cell(a, sizeof a, med(t, v, "futex_syscalls", false), 1, "%.0f"),
			cell(b, sizeof b, med(t, v, "fx_wait", false), 1, "%.0f"),
			cell(c, sizeof c, med(t, v, "fx_wait_bitset", false), 1, "%.0f"),
			cell(d, sizeof d, med(t, v, "fx_wake", false), 1, "%.0f"),
			cell(e, sizeof e, med(t, v, "fx_other", false), 1, "%.0f"),
			cell(g, sizeof g, med(t, v, "f2_wait,f2_wake,f2_waitv", false), 1, "%.0f"),
			cell(u, sizeof u, med(t, v, "uring_futex", false), 1, "%.0f"),
			cell(h, sizeof h, med(t, v, "wake_none", false), 1, "%.0f"),
			cell(k, sizeof k, med(t, v, "herd_bursts", false), 1, "%.0f"),
			cell(l, sizeof l, med(t, v, "eagain_storms", false), 1, "%.0f"),
			fl_dur_text(m, sizeof m, med(t, v, "wait_p50_ns", false)),
			fl_dur_text(n, sizeof n, med(t, v, "wait_p99_ns", false)));
	}
	fprintf(f, "  (futex: every futex-family syscall; wait/wait_bs/wake/other: futex(2) by "
		   "op, wait_bs = WAIT_BITSET, glibc's;\n   futex2: futex_wait/wake/waitv(2); "
		   "uring: io_uring futex submissions, no syscall of their own; woke 0: wakes\n"
		   "   that woke nobody; wait p50/p99: time in the kernel of futex(2)/futex2 waits, "
		   "within 2x)\n");
	/* per design, its probed rep of median wall time (among its probed) */
	for (int i = 0; i < nlabels; i++) {
		double *w = fl_xcalloc((size_t)nreps + 1, sizeof *w);
		int n = 0;
		for (int k = 0; k < nreps; k++)
			if (!strcmp(reps[k].label, labels[i]) && reps[k].probed)
				w[n++] = reps[k].wall_ns;
		if (!n) {
			free(w);
			continue;
		}
		double m = fl_median(w, n);
		free(w);
		const struct fl_exec_rep *best = NULL;
		for (int k = 0; k < nreps; k++)
			if (!strcmp(reps[k].label, labels[i]) && reps[k].probed &&
			    (!best || fabs(reps[k].wall_ns - m) < fabs(best->wall_ns - m)))
				best = &reps[k];
		if (!best || !best->nwords)
			continue;
		fprintf(f, "\n");
		words(f, labels[i], best);
		if (best->lost)
			fprintf(f, "    (%llu words not recorded: the per-word map was full)\n",
				(unsigned long long)best->lost);
	}
}
