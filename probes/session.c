/* probes/session.c — the collector around each rep: loading it once,
 * counting one rep at a time, and the rep's probe columns of the CSV row
 * (probes.h). The state the other files of the glue read is session.h.
 *
 * A rep's columns are kept as text (last_cols) from fl_probes_rep_end to
 * the row's fl_probes_append: the row is written after the rep, and a rep
 * that was not counted (a warm-up, the collector off) appends empty
 * cells, never the previous rep's. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#ifdef FL_HAVE_PROBES
#include "probes/futexstat.h"
#include "probes/session.h"
#endif
#include "probes/probes.h"
#include "workloads/workload.h"

const char fl_probes_csv_header[] =
	",futex_syscalls,fx_wait,fx_wait_bitset,fx_wake,fx_other,f2_wait,f2_wake,f2_waitv,"
	"uring_futex,wake_calls,woken,wake_none,wait_calls,wait_ok,wait_eagain,"
	"wait_timedout,wait_eintr,wait_p50_ns,wait_p99_ns,herd_bursts,eagain_storms,"
	"futex_per_op,wakes_per_post,resleeps,wake_to_run_n,wake_to_run_p50_ns,wake_to_run_p99_ns,"
	"procs,numa_ops,numa_mpol_ops,numa_no_node,numa_nodes,wake_pairs,cross_node_wakes,"
	"cpu_nodes";

#define NCOLS 35

static char last_cols[1024]; /* the last rep's columns, or "" */
static struct fl_kcounts last_k; /* the last rep's totals, when last_k_set */
static bool last_k_set;
static char off_why[300] = "not loaded"; /* fl_probes_off_why */

#ifdef FL_HAVE_PROBES
/* Posts per workload op, for wakes_per_post (each op of these workloads is
 * a fixed number of posts: uncontended post+wait, pingpong's round trip
 * posts ping and pong, pool acquire+release). Unknown workloads leave the
 * column empty rather than guess. */
static double posts_per_op(const char *workload)
{
	static const struct {
		const char *name;
		double posts;
	} t[] = { { "uncontended", 1 }, { "pingpong", 2 }, { "pool", 1 } };
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(t[i].name, workload))
			return t[i].posts;
	return 0;
}

/* A node mask (futexstat.h) as text: "0", "0/1", "63+" for its last bit;
 * "" for none. */
static void nodes_text(char *b, size_t n, __u64 mask)
{
	size_t l = 0;
	b[0] = '\0';
	for (int i = 0; i < 64 && l < n; i++)
		if (mask >> i & 1)
			l += (size_t)snprintf(b + l, n - l, "%s%d%s", l ? "/" : "", i,
					      i == 63 ? "+" : "");
}

/* The node columns (columns.md), each preceded by a comma. */
static void node_cols(char *b, size_t n, const struct futexstat_counts *c)
{
	char numa[200], cpus[200];
	nodes_text(numa, sizeof numa, c->numa_node_mask);
	nodes_text(cpus, sizeof cpus, c->cpu_node_mask);
	snprintf(b, n, ",%llu,%llu,%llu,%s,%llu,%llu,%s", (unsigned long long)c->numa_ops,
		 (unsigned long long)c->numa_mpol_ops, (unsigned long long)c->numa_no_node, numa,
		 (unsigned long long)c->wake_pairs, (unsigned long long)c->cross_node_wakes, cpus);
}

static struct futexstat *fs;
static bool attached, follow;
/* futex calls the collector could not attribute (a thread's state slot
 * taken over by another whose tid is equal mod 4096: collector.md), over
 * the run, and the reps they fell in */
static unsigned long long missed_calls;
static int missed_reps;
static unsigned long long last_words_lost;

struct futexstat *fl_probes_collector(void)
{
	return fs;
}

/* attached: the main thread flips it around the rep while the detector's
 * watchdog may read it (a stranding is confirmed a threshold into the rep,
 * well inside the window; the flag only says whether counting was on). */
bool fl_probes_counting(void)
{
	return fs && __atomic_load_n(&attached, __ATOMIC_ACQUIRE);
}

bool fl_probes_following(void)
{
	return follow;
}

unsigned long long fl_probes_words_lost(void)
{
	return last_words_lost;
}

void fl_probes_follow_children(void)
{
	follow = true;
}

/* fl_probes_count_cgroup: the run's cgroup (0: none), applied at once when
 * the collector is loaded and again at its setup */
static uint64_t cgroup;

void fl_probes_count_cgroup(uint64_t id)
{
	cgroup = id;
	if (fs && follow)
		futexstat_count_cgroup(fs, id); /* cannot fail in follow mode */
}

/* fl_probes_count_process: the process counted instead of this one (0:
 * this one), and whether the collector could switch to it */
static pid_t other;
static bool other_failed;

void fl_probes_count_process(pid_t pid)
{
	other = pid;
	other_failed = false;
	if (!fs)
		return;
	int e = futexstat_count_tgid(fs, pid);
	if (e && pid) {
		static bool said;
		other_failed = true;
		if (!said)
			fprintf(stderr, "futexlab: probes: cannot count the helper's process (%s): "
				"its rows' probe columns stay empty\n",
				e == -EXDEV ? "futexlab runs in a nested pid namespace" : strerror(-e));
		said = true;
	}
}

void fl_probes_setup(enum fl_probes_mode mode)
{
	if (mode == FL_PROBES_OFF) {
		snprintf(off_why, sizeof off_why, "--no-probes");
		return;
	}
	struct futexstat_config cfg = { .wake_to_run = 1, .follow_children = follow,
					.per_word = follow };
	fs = futexstat_open(&cfg, off_why, sizeof off_why);
	if (!fs) {
		fprintf(stderr, "futexlab: probes off: %s\n", off_why);
		return;
	}
	off_why[0] = '\0';
	fl_rep_stranded_hook(fl_probes_on_stranded);
	if (follow && cgroup)
		futexstat_count_cgroup(fs, cgroup);
}

void fl_probes_rep_begin(pid_t pid)
{
	if (pid > 0)
		fl_probes_count_process(pid);
	last_cols[0] = '\0';
	last_k_set = false;
	if (!fs)
		return;
	if (futexstat_start(fs, off_why, sizeof off_why)) {
		fprintf(stderr, "futexlab: probes off: %s\n", off_why);
		fl_rep_stranded_hook(NULL);
		futexstat_close(fs);
		fs = NULL;
		return;
	}
	attached = true;
}

static void rep_end(const char *workload, int64_t ops);

void fl_probes_rep_end(pid_t pid, const char *workload, int64_t ops)
{
	rep_end(workload, ops);
	if (pid > 0)
		fl_probes_count_process(0);
}

/* The rep's counts, kept as its columns and totals. */
static void rep_end(const char *workload, int64_t ops)
{
	if (!fs || !attached)
		return;
	attached = false;
	struct futexstat_counts c;
	futexstat_stop(fs, &c);
	if (c.missed) { /* said once, at teardown: a line per rep broke the progress */
		missed_calls += c.missed;
		missed_reps++;
	}
	unsigned long long total = c.futex_calls + c.f2_wait + c.f2_wake + c.f2_waitv +
				   c.f2_requeue;
	char uring[24] = "", per_op[32] = "", per_post[32] = "";
	if (futexstat_sees_uring(fs))
		snprintf(uring, sizeof uring, "%llu", (unsigned long long)c.uring_futex);
	if (ops > 0)
		snprintf(per_op, sizeof per_op, "%.3f", (double)total / (double)ops);
	double posts = posts_per_op(workload) * (double)ops;
	if (posts > 0)
		snprintf(per_post, sizeof per_post, "%.3f", (double)c.wake_calls / posts);
	/* wake-to-run: empty when not measured; the quantiles also when no
	 * sample (there is no quantile of nothing) */
	char wtr[80] = ",,";
	if (futexstat_sees_wake_to_run(fs) && c.wake_to_run_n)
		snprintf(wtr, sizeof wtr, "%llu,%llu,%llu", (unsigned long long)c.wake_to_run_n,
			 (unsigned long long)futexstat_wtr_quantile(&c, 0.50),
			 (unsigned long long)futexstat_wtr_quantile(&c, 0.99));
	else if (futexstat_sees_wake_to_run(fs))
		snprintf(wtr, sizeof wtr, "0,,");
	if (other_failed) /* not the helper's counts: none */
		return;
	char procs[24] = ""; /* processes followed (exec), or the helper (a helper-run design) */
	if (follow)
		snprintf(procs, sizeof procs, "%llu", (unsigned long long)c.procs);
	else if (other)
		snprintf(procs, sizeof procs, "1");
	last_words_lost = c.words_lost;
	last_k = (struct fl_kcounts){ (int64_t)total, (int64_t)c.wait_calls, (int64_t)c.wake_calls,
				      (int64_t)c.wake_none, (int64_t)c.wait_eagain,
				      (int64_t)c.resleeps, (int64_t)c.herd_bursts };
	last_k_set = true;
	snprintf(last_cols, sizeof last_cols,
		 ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%s,%llu,%llu,%llu,%llu,%llu,%llu,"
		 "%llu,%llu,%llu,%llu,%llu,%llu,%s,%s,%llu,%s,%s",
		 total, (unsigned long long)c.op_wait, (unsigned long long)c.op_wait_bitset,
		 (unsigned long long)c.op_wake, (unsigned long long)c.op_other,
		 (unsigned long long)c.f2_wait, (unsigned long long)c.f2_wake,
		 (unsigned long long)c.f2_waitv, uring, (unsigned long long)c.wake_calls,
		 (unsigned long long)c.woken, (unsigned long long)c.wake_none,
		 (unsigned long long)c.wait_calls, (unsigned long long)c.wait_ok,
		 (unsigned long long)c.wait_eagain, (unsigned long long)c.wait_timedout,
		 (unsigned long long)c.wait_eintr,
		 (unsigned long long)futexstat_wait_quantile(&c, 0.50),
		 (unsigned long long)futexstat_wait_quantile(&c, 0.99),
		 (unsigned long long)c.herd_bursts, (unsigned long long)c.eagain_storms,
		 per_op, per_post, (unsigned long long)c.resleeps, wtr, procs);
	size_t l = strlen(last_cols);
	node_cols(last_cols + l, sizeof last_cols - l, &c);
}

bool fl_probes_loaded(void)
{
	return fs != NULL;
}

void fl_probes_teardown(void)
{
	if (missed_calls)
		fprintf(stderr, "futexlab: probes: %llu futex calls in %d reps not counted (two "
			"threads whose ids are equal mod 4096 shared the collector's slot); those "
			"reps' kernel columns are short by as many calls\n", missed_calls, missed_reps);
	missed_calls = 0;
	missed_reps = 0;
	fl_rep_stranded_hook(NULL);
	futexstat_close(fs);
	fs = NULL;
	snprintf(off_why, sizeof off_why, "not loaded");
}

#else
void fl_probes_setup(enum fl_probes_mode mode)
{
	snprintf(off_why, sizeof off_why, "%s", mode == FL_PROBES_OFF ? "--no-probes" :
		 "this build has no eBPF collector (-Dprobes=disabled, or clang/bpftool/libbpf/BTF "
		 "missing)");
	if (mode == FL_PROBES_ON)
		fprintf(stderr, "futexlab: probes off: this build has no eBPF collector "
			"(configured with -Dprobes=disabled, or clang/bpftool/libbpf/BTF missing)\n");
}
void fl_probes_rep_begin(pid_t pid) { (void)pid, last_cols[0] = '\0'; }
/* (last_k is never set here: no rep is counted) */
void fl_probes_follow_children(void) {}
void fl_probes_count_cgroup(uint64_t id) { (void)id; }
void fl_probes_count_process(pid_t pid) { (void)pid; }
void fl_probes_rep_end(pid_t pid, const char *workload, int64_t ops)
{
	(void)pid, (void)workload, (void)ops;
}
void fl_probes_teardown(void) {}
bool fl_probes_loaded(void) { return false; }
#endif

bool fl_probes_rep_kcounts(struct fl_kcounts *out)
{
	if (!last_k_set)
		return false;
	*out = last_k;
	return true;
}

const char *fl_probes_off_why(void)
{
	return off_why;
}

void fl_probes_append(char *row, size_t n, bool have_rep)
{
	char empty[NCOLS + 1];
	memset(empty, ',', NCOLS);
	empty[NCOLS] = '\0';
	const char *cols = have_rep && last_cols[0] ? last_cols : empty;
	size_t len = strlen(row);
	if (len + strlen(cols) + 1 > n) {
		fprintf(stderr, "futexlab: CSV row too long for the probe columns\n");
		exit(1);
	}
	memcpy(row + len, cols, strlen(cols) + 1);
}
