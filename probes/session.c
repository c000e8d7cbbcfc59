/* harness/probes_glue.c — see probes_glue.h. */
#include "harness/probes_glue.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/cli.h"
#ifdef FL_HAVE_PROBES
#include "probes/futexstat.h"
#endif
#include "probes/tracefs.h"
#include "workloads/workload.h"

const char fl_probes_csv_header[] =
	",futex_syscalls,fx_wait,fx_wait_bitset,fx_wake,fx_other,f2_wait,f2_wake,f2_waitv,"
	"uring_futex,wake_calls,woken,wake_none,wait_calls,wait_ok,wait_eagain,"
	"wait_timedout,wait_eintr,wait_p50_ns,wait_p99_ns,herd_bursts,eagain_storms,"
	"futex_per_op,wakes_per_post,resleeps,wake_to_run_n,wake_to_run_p50_ns,wake_to_run_p99_ns,"
	"procs";

#define NCOLS 28

static char last_cols[512]; /* the last rep's columns, or "" */

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

static struct futexstat *fs;
static bool attached, follow;
static unsigned long long last_words_lost;

/* The stranded threads' kernel view, snapshot by the watchdog thread at
 * detection (fl_rep_stranded_hook), read by the runner after the rep (the
 * watchdog is joined in between: no lock needed). */
#define KSNAPS 8
static struct ksnap {
	int tid;
	int have;                   /* 1: in a futex wait (w); 0: not seen in one */
	struct futexstat_wait_now w;
	__u64 at_ns;                /* the snapshot's CLOCK_MONOTONIC time */
} ksnap[KSNAPS];
static int nksnap;

static __u64 mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static void on_stranded(int tid)
{
	if (nksnap >= KSNAPS)
		return; /* the note shows the first */
	struct ksnap *k = &ksnap[nksnap];
	k->tid = tid;
	k->at_ns = mono_ns();
	/* attached: the main thread flips it around the rep while this runs on
	 * the watchdog (a stranding is confirmed a threshold into the rep, well
	 * inside the window; the flag only says whether counting was on). */
	k->have = fs && __atomic_load_n(&attached, __ATOMIC_ACQUIRE) &&
		  futexstat_thread_wait(fs, tid, &k->w);
	nksnap++;
}

void fl_probes_stranded_clear(void)
{
	nksnap = 0;
}

void fl_probes_stranded_note(int tid, bool measured, char *out, size_t n)
{
	for (int i = 0; i < nksnap; i++) {
		const struct ksnap *k = &ksnap[i];
		if (k->tid != tid || !k->have)
			continue;
		char woken[80] = "";
		if (k->w.woken_ns)
			snprintf(woken, sizeof woken, " (woken %.1f ms before, not yet run)",
				 (double)(k->at_ns - k->w.woken_ns) / 1e6);
		if (k->w.kind == FUTEXSTAT_KIND_WAIT)
			snprintf(out, n, "kernel: tid %d slept in FUTEX_WAIT on 0x%llx for %.1f ms%s",
				 tid, (unsigned long long)k->w.uaddr,
				 (double)(k->at_ns - k->w.since_ns) / 1e6, woken);
		else
			snprintf(out, n, "kernel: tid %d slept in futex_waitv for %.1f ms%s", tid,
				 (double)(k->at_ns - k->w.since_ns) / 1e6, woken);
		return;
	}
	if (!fs)
		snprintf(out, n, "kernel side not recorded (probes off)");
	else if (!measured)
		snprintf(out, n, "kernel side not recorded (a warm-up rep: the probes count "
			 "measured reps only)");
	else
		snprintf(out, n, "kernel side: tid %d was in no futex wait the probes saw begin "
			 "(or its slot was taken: tids equal mod 4096)", tid);
}

void fl_probes_follow_children(void)
{
	follow = true;
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
	char why[300];
	if (mode == FL_PROBES_OFF)
		return;
	struct futexstat_config cfg = { .wake_to_run = 1, .follow_children = follow,
					.per_word = follow };
	fs = futexstat_open(&cfg, why, sizeof why);
	if (!fs)
		fprintf(stderr, "futexlab: probes off: %s\n", why);
	else
		fl_rep_stranded_hook(on_stranded);
}

void fl_probes_rep_begin(void)
{
	char why[300];
	last_cols[0] = '\0';
	if (!fs)
		return;
	if (futexstat_start(fs, why, sizeof why)) {
		fprintf(stderr, "futexlab: probes off: %s\n", why);
		fl_rep_stranded_hook(NULL);
		futexstat_close(fs);
		fs = NULL;
		return;
	}
	attached = true;
}

void fl_probes_rep_end(const char *workload, int64_t ops)
{
	if (!fs || !attached)
		return;
	attached = false;
	struct futexstat_counts c;
	futexstat_stop(fs, &c);
	if (c.missed)
		fprintf(stderr, "futexlab: probes: %llu futex calls not tracked (a thread's "
			"state slot taken over by another: tids equal mod 4096)\n",
			(unsigned long long)c.missed);
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
	char procs[24] = ""; /* processes followed (exec), or the helper (remote) */
	if (follow)
		snprintf(procs, sizeof procs, "%llu", (unsigned long long)c.procs);
	else if (other)
		snprintf(procs, sizeof procs, "1");
	last_words_lost = c.words_lost;
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
}

int fl_probes_words(int by, struct fl_word *out, int n, int *nwords, unsigned long long *lost)
{
	*nwords = 0;
	*lost = 0;
	if (!fs || !follow)
		return 0;
	struct futexstat_word w[64];
	int k = futexstat_words(fs, by, w, n < 64 ? n : 64, nwords);
	for (int i = 0; i < k; i++)
		out[i] = (struct fl_word){ w[i].tgid, w[i].uaddr, w[i].waits, w[i].wait_ns,
					   w[i].wakes, w[i].woken, w[i].eagain, w[i].timedout };
	*lost = last_words_lost;
	return k < 0 ? 0 : k;
}

void fl_probes_teardown(void)
{
	fl_rep_stranded_hook(NULL);
	futexstat_close(fs);
	fs = NULL;
}

/* ---- the collector's own cost ------------------------------------------ */

#define OVH_BLOCKS 9
#define OVH_CALLS 5000

static double ovh_total = NAN, ovh_tp = NAN, ovh_body = NAN;
static bool ovh_done;

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* ns per FUTEX_WAKE on a private word nobody waits on: the cheapest futex
 * syscall, the one the probes add the most to in relative terms. */
static double wake_block(void)
{
	static _Alignas(64) uint32_t word;
	int64_t t0 = now_ns();
	for (int i = 0; i < OVH_CALLS; i++)
		syscall(SYS_futex, &word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	return (double)(now_ns() - t0) / OVH_CALLS;
}

static double min_of(const double *v, int n)
{
	double m = v[0];
	for (int i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

/* Three modes, OVH_BLOCKS blocks of OVH_CALLS FUTEX_WAKEs each: detached
 * (no program on any tracepoint: what --no-probes pays), then, after one
 * attach, idle (attached, `active` clear: each program returns at its first
 * test) and counting, those two alternating block by block. A detach costs
 * an RCU grace period (~0.6 s here), so the detached blocks come first, not
 * interleaved. Each mode's figure is its fastest block (other work on the
 * machine only ever adds time). ~0.1-0.2 s in all. */
static void measure_overhead_blocks(void);

static void measure_overhead(void)
{
	ovh_done = true;
	if (!fs)
		return;
	/* following children (exec), the collector counts this process only
	 * while measuring its cost here: the programs of follow mode, with this
	 * process counted as a member of the tree is */
	futexstat_count_self(fs, follow);
	measure_overhead_blocks();
	futexstat_count_self(fs, 0);
}

static void measure_overhead_blocks(void)
{
	char why[300];
	struct futexstat_counts c;
	double det[OVH_BLOCKS] = { 0 }, idle[OVH_BLOCKS] = { 0 }, on[OVH_BLOCKS] = { 0 };
	futexstat_detach(fs); /* only if a rep attached it already */
	wake_block();         /* warm the loop and the page */
	for (int b = 0; b < OVH_BLOCKS; b++)
		det[b] = wake_block();
	if (futexstat_start(fs, why, sizeof why))
		return;
	futexstat_stop(fs, &c);
	for (int b = 0; b < OVH_BLOCKS; b++) {
		for (int k = 0; k < 2; k++) {
			if ((k == 0) == (b % 2 == 0)) {
				idle[b] = wake_block();
			} else {
				if (futexstat_start(fs, why, sizeof why))
					return;
				on[b] = wake_block();
				futexstat_stop(fs, &c);
			}
		}
	}
	double d = min_of(det, OVH_BLOCKS), i = min_of(idle, OVH_BLOCKS),
	       a = min_of(on, OVH_BLOCKS);
	ovh_total = a - d;
	ovh_tp = i - d;
	ovh_body = a - i;
}

double fl_probes_overhead_ns(void)
{
	if (!ovh_done)
		measure_overhead();
	return ovh_total;
}

void fl_probes_overhead_parts(double *tracepoint_ns, double *body_ns)
{
	fl_probes_overhead_ns();
	*tracepoint_ns = ovh_tp;
	*body_ns = ovh_body;
}
#else
void fl_probes_setup(enum fl_probes_mode mode)
{
	if (mode == FL_PROBES_ON)
		fprintf(stderr, "futexlab: probes off: this build has no eBPF collector "
			"(configured with -Dprobes=disabled, or clang/bpftool/libbpf/BTF missing)\n");
}
void fl_probes_rep_begin(void) { last_cols[0] = '\0'; }
void fl_probes_stranded_clear(void) {}
void fl_probes_stranded_note(int tid, bool measured, char *out, size_t n)
{
	(void)tid, (void)measured;
	snprintf(out, n, "kernel side not recorded (a build without the probes)");
}
void fl_probes_follow_children(void) {}
void fl_probes_count_process(pid_t pid) { (void)pid; }
int fl_probes_words(int by, struct fl_word *out, int n, int *nwords, unsigned long long *lost)
{
	(void)by, (void)out, (void)n;
	*nwords = 0;
	*lost = 0;
	return 0;
}
void fl_probes_rep_end(const char *workload, int64_t ops) { (void)workload, (void)ops; }
void fl_probes_teardown(void) {}
double fl_probes_overhead_ns(void) { return NAN; }
void fl_probes_overhead_parts(double *tracepoint_ns, double *body_ns)
{
	*tracepoint_ns = *body_ns = NAN;
}
#endif

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

/* ---- bpftrace beside the run ------------------------------------------- */

static pid_t bt_pid = -1;
static char bt_out[1024];

void fl_bpftrace_check(const char *script)
{
	if (access(script, R_OK))
		fl_usage_error("--bpftrace: cannot read script '%s': %s", script, strerror(errno));
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Whether FILE holds `needle`, and the number of lines after its line. */
static int lines_after(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[512];
	int after = -1;
	while (fgets(line, sizeof line, f))
		if (after >= 0)
			after++;
		else if (strstr(line, needle))
			after = 0;
	fclose(f);
	return after;
}

void fl_bpftrace_start(const char *script, const char *csv_path)
{
	char why[300];
	const char *base = strrchr(script, '/') ? strrchr(script, '/') + 1 : script;
	int blen = (int)strlen(base);
	if (blen > 3 && !strcmp(base + blen - 3, ".bt"))
		blen -= 3;
	if (csv_path) {
		int clen = (int)strlen(csv_path);
		if (clen > 4 && !strcmp(csv_path + clen - 4, ".csv"))
			clen -= 4;
		snprintf(bt_out, sizeof bt_out, "%.*s.%.*s.txt", clen, csv_path, blen, base);
	} else {
		snprintf(bt_out, sizeof bt_out, "futexlab.%.*s.txt", blen, base);
	}
	if (geteuid() != 0) {
		fprintf(stderr, "futexlab: bpftrace off: it needs root; run continues without it\n");
		return;
	}
	if (fl_tracefs_ready(why, sizeof why)) {
		fprintf(stderr, "futexlab: bpftrace off: %s\n", why);
		return;
	}
	int fd = open(bt_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "futexlab: bpftrace off: cannot write %s: %s\n", bt_out,
			strerror(errno));
		return;
	}
	char pid[24];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	fflush(NULL);
	pid_t c = fork();
	if (c < 0) {
		fprintf(stderr, "futexlab: bpftrace off: fork: %s\n", strerror(errno));
		close(fd);
		return;
	}
	if (c == 0) {
		/* Its own process group: Ctrl-C stops futexlab after the current
		 * rep, and futexlab then stops bpftrace, so its output is whole. */
		setpgid(0, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execlp("bpftrace", "bpftrace", script, pid, (char *)NULL);
		dprintf(2, "futexlab: cannot run bpftrace: %s\n", strerror(errno));
		_exit(127);
	}
	close(fd);
	bt_pid = c;
	/* Attached when bpftrace has said "Attaching N probes..." and the
	 * script's BEGIN has printed (BEGIN runs once every probe is in). */
	for (int ms = 0; ms < 60000; ms += 50) {
		int st;
		if (waitpid(bt_pid, &st, WNOHANG) == bt_pid) {
			fprintf(stderr, "futexlab: bpftrace off: it exited before attaching "
				"(see %s); run continues without it\n", bt_out);
			bt_pid = -1;
			return;
		}
		int after = lines_after(bt_out, "Attaching");
		if (after > 0 || (after == 0 && ms >= 3000))
			return;
		sleep_ms(50);
	}
	fprintf(stderr, "futexlab: bpftrace did not attach within 60 s (see %s); "
		"run continues without it\n", bt_out);
	kill(bt_pid, SIGKILL);
	waitpid(bt_pid, NULL, 0);
	bt_pid = -1;
}

void fl_bpftrace_stop(void)
{
	if (bt_pid < 0)
		return;
	kill(bt_pid, SIGINT);
	int st = 0;
	for (int ms = 0; ms < 30000; ms += 20) {
		if (waitpid(bt_pid, &st, WNOHANG) == bt_pid) {
			bt_pid = -1;
			printf("bpftrace: output in %s\n", bt_out);
			return;
		}
		sleep_ms(20);
	}
	kill(bt_pid, SIGKILL);
	waitpid(bt_pid, NULL, 0);
	bt_pid = -1;
	fprintf(stderr, "futexlab: bpftrace did not stop on SIGINT; killed (see %s)\n", bt_out);
}
