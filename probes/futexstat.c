/* probes/futexstat.c — loader of the futex collector (see futexstat.h).
 *
 * The BPF object is embedded as a libbpf skeleton generated at build time
 * (bpftool gen skeleton) from futexstat.bpf.c, compiled against a vmlinux.h
 * dumped from the build machine's BTF; CO-RE relocates its few kernel
 * struct accesses to the running kernel at load time.
 *
 * Load and attach once (verification and tracepoint attach/detach are the
 * slow parts: a detach waits for an RCU grace period), then per run: zero
 * the counters (one per CPU), set `active`, run, clear `active`, sum the
 * counters out.
 * Between runs the programs return at their first test, and the runs'
 * threads have all been joined before the copy, so no update is in flight.
 *
 * The object holds two sets of programs (futexstat.bpf.c, "Two sets of
 * programs"): the plain set is loaded when neither follow_children nor
 * per_word is asked for, the extended one (names ending in _x, plus the
 * tree's fork and exit programs in follow mode) otherwise; the other set is
 * never loaded (not verified, not attached). */
#include "probes/futexstat.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/futex.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "futexstat.skel.h"
#include "probes/tracefs.h"

struct futexstat {
	struct futexstat_bpf *skel;
	int sees_uring;
	int sees_wtr;
	int follow;         /* follow_children */
	int per_word;
	int attached;
	int ncpus;          /* possible CPUs: the per-CPU map's value count */
	size_t stride;      /* one CPU's value in the map's buffer */
	void *buf;          /* ncpus * stride bytes */
	void *keys;         /* room for every key of the larger of tree and words */
	struct futexstat_word *w; /* per_word: the last rep's words, once read */
	int nw;             /* how many; -1: not read since the last start */
	__u32 own_host;     /* futexstat_count_tgid: the target's host tgid, to go
			     * back to (0: not switched) */
};

/* The keys of a hash map, collected into fs->keys; their number, or a
 * negative errno value. Walking with get_next_key from the previous key is
 * linear in the map's size. */
static int map_keys(struct futexstat *fs, const struct bpf_map *m)
{
	size_t ks = bpf_map__key_size(m);
	__u32 max = bpf_map__max_entries(m);
	char *k = fs->keys;
	const void *prev = NULL;
	__u32 cnt = 0;
	int e;
	while (cnt < max && (e = bpf_map__get_next_key(m, prev, k + (size_t)cnt * ks, ks)) == 0) {
		prev = k + (size_t)cnt * ks;
		cnt++;
	}
	if (cnt < max && e != -ENOENT)
		return e;
	return (int)cnt;
}

/* Empties a hash map (from start: `active` is clear, nothing writes it).
 * Keys first, deletions after: deleting the key a get_next_key walk stands
 * on restarts the walk at the first bucket, quadratic in the map's size.
 * One batch deletion (Linux 5.6+), else one syscall per key. */
static int clear_map(struct futexstat *fs, const struct bpf_map *m)
{
	int cnt = map_keys(fs, m);
	if (cnt <= 0)
		return cnt;
	__u32 done = (__u32)cnt;
	if (bpf_map_delete_batch(bpf_map__fd(m), fs->keys, &done, NULL) == 0)
		return 0;
	size_t ks = bpf_map__key_size(m);
	for (int i = 0; i < cnt; i++) {
		int e = bpf_map__delete_elem(m, (char *)fs->keys + (size_t)i * ks, ks, 0);
		if (e && e != -ENOENT)
			return e;
	}
	return 0;
}

/* libbpf's own messages go to stderr only when asked for: the harness
 * prints one line of its own when the probes cannot load. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static int verbose = -1;
	if (verbose < 0)
		verbose = getenv("FUTEXLAB_PROBES_DEBUG") != NULL;
	if (!verbose && level != LIBBPF_WARN)
		return 0;
	return verbose ? vfprintf(stderr, fmt, ap) : 0;
}

static int tracepoint_exists(const char *category, const char *name)
{
	char p[256];
	const char *roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof p, "%s/events/%s/%s", roots[i], category, name);
		if (access(p, F_OK) == 0)
			return 1;
	}
	return 0;
}

/* The running kernel knows IORING_OP_FUTEX_WAIT (Linux 6.7+). */
static int kernel_has_uring_futex(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	if (!btf)
		return 0;
	int found = 0;
	__s32 id = btf__find_by_name_kind(btf, "io_uring_op", BTF_KIND_ENUM);
	if (id > 0) {
		const struct btf_type *t = btf__type_by_id(btf, (__u32)id);
		const struct btf_enum *e = btf_enum(t);
		for (int i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(btf, e[i].name_off), "IORING_OP_FUTEX_WAIT"))
				found = 1;
	}
	btf__free(btf);
	return found;
}

/* What loading needs before anything is allocated: BTF, root, tracefs, and
 * the pid namespace the target's tgid is seen through (*ns). 0 or -1 (why). */
static int can_load(struct stat *ns, char *why, size_t n)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, n, "the kernel exposes no BTF (/sys/kernel/btf/vmlinux): "
			 "CO-RE probes cannot load");
		return -1;
	}
	if (geteuid() != 0) {
		snprintf(why, n, "eBPF probes need root (CAP_BPF and CAP_PERFMON); "
			 "run as root or pass --no-probes");
		return -1;
	}
	if (fl_tracefs_ready(why, n))
		return -1;
	if (stat("/proc/self/ns/pid", ns)) {
		snprintf(why, n, "cannot stat /proc/self/ns/pid: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The programs' constants (before the load: they are read-only then) and
 * the modes' map sizes. */
static void configure(struct futexstat *fs, const struct futexstat_config *cfg,
		      const struct stat *ns)
{
	struct futexstat_bpf *s = fs->skel;
	s->rodata->targ_ns_dev = ns->st_dev;
	s->rodata->targ_ns_ino = ns->st_ino;
	s->rodata->targ_tgid = (__u32)(cfg && cfg->tgid ? cfg->tgid : getpid());
	if (cfg && cfg->herd_min)
		s->rodata->herd_min = cfg->herd_min;
	if (cfg && cfg->herd_window_ns)
		s->rodata->herd_window_ns = cfg->herd_window_ns;
	if (cfg && cfg->storm_interval_ns)
		s->rodata->storm_interval_ns = cfg->storm_interval_ns;
	if (cfg && cfg->storm_min)
		s->rodata->storm_min = cfg->storm_min;
	if (cfg && cfg->resleep_window_ns)
		s->rodata->resleep_window_ns = cfg->resleep_window_ns;

	fs->follow = cfg && cfg->follow_children;
	fs->per_word = cfg && cfg->per_word;
	s->rodata->follow_children = (__u32)fs->follow;
	s->rodata->per_word = (__u32)fs->per_word;
	/* A mode that is off gets a one-entry map: its programs never touch
	 * it, and a preallocated hash of thousands of entries would pin its
	 * memory for nothing. */
	if (!fs->follow)
		bpf_map__set_max_entries(s->maps.tree, 1);
	if (!fs->per_word) {
		bpf_map__set_max_entries(s->maps.words, 1);
		bpf_map__set_max_entries(s->maps.wkeys, 1);
	}
	long page = sysconf(_SC_PAGESIZE);
	while (page > 1 << s->rodata_words->page_shift)
		s->rodata_words->page_shift++;

	fs->sees_uring = tracepoint_exists("io_uring", "io_uring_submit_req") &&
			 kernel_has_uring_futex();
	/* sched_switch runs on every context switch of the machine: attached
	 * only when asked for. */
	fs->sees_wtr = cfg && cfg->wake_to_run;
}

/* Which programs load: one set of the two (plain or _x, see the top), the
 * follow mode's own, and only those whose tracepoint this kernel has. */
static void choose_programs(struct futexstat *fs)
{
	int ext = fs->follow || fs->per_word;
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, fs->skel->obj) {
		const char *name = bpf_program__name(prog);
		const char *sec = bpf_program__section_name(prog);
		size_t nl = strlen(name);
		int load;
		if (!strcmp(name, "tree_fork") || !strcmp(name, "tree_exit") ||
		    !strcmp(name, "tree_join"))
			load = fs->follow;
		else /* one set of the two (see the top) */
			load = (nl > 2 && !strcmp(name + nl - 2, "_x")) == ext;
		/* Older kernels lack the futex2 syscalls (futex_waitv: 5.16,
		 * the rest: 6.7) or io_uring's futex opcodes: leave those
		 * programs out there. Every "tracepoint/CATEGORY/NAME" is
		 * checked (futex(2)'s are always there). */
		char cat[64];
		const char *tp;
		if (load && !strncmp(sec, "tracepoint/", 11) && (tp = strchr(sec + 11, '/')) &&
		    (size_t)(tp - (sec + 11)) < sizeof cat) {
			snprintf(cat, sizeof cat, "%.*s", (int)(tp - (sec + 11)), sec + 11);
			load = tracepoint_exists(cat, tp + 1);
		}
		if (!strncmp(name, "uring_submit", 12))
			load = load && fs->sees_uring;
		if (!strncmp(name, "wtr_", 4))
			load = load && fs->sees_wtr;
		bpf_program__set_autoload(prog, load);
	}
}

/* The loader's buffers: the per-CPU counters' and the larger map's keys. */
static int alloc_buffers(struct futexstat *fs, char *why, size_t n)
{
	struct futexstat_bpf *s = fs->skel;
	fs->ncpus = libbpf_num_possible_cpus();
	fs->stride = (sizeof(struct futexstat_counts) + 7) & ~(size_t)7;
	fs->buf = fs->ncpus > 0 ? calloc((size_t)fs->ncpus, fs->stride) : NULL;
	if (!fs->buf) {
		snprintf(why, n, "cannot size the per-CPU counters (%d possible CPUs)", fs->ncpus);
		return -1;
	}
	fs->nw = -1;
	size_t tk = (size_t)bpf_map__max_entries(s->maps.tree) * bpf_map__key_size(s->maps.tree);
	size_t wk = (size_t)bpf_map__max_entries(s->maps.words) * bpf_map__key_size(s->maps.words);
	fs->keys = malloc(tk > wk ? tk : wk);
	if (!fs->keys) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	return 0;
}

/* A half-opened collector (its skeleton opened, maybe loaded), freed. */
static void discard(struct futexstat *fs)
{
	futexstat_bpf__destroy(fs->skel);
	free(fs->keys);
	free(fs->buf);
	free(fs);
}

struct futexstat *futexstat_open(const struct futexstat_config *cfg, char *why, size_t n)
{
	libbpf_set_print(libbpf_print);
	struct stat ns;
	if (can_load(&ns, why, n))
		return NULL;
	struct futexstat *fs = calloc(1, sizeof *fs);
	if (!fs) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	fs->skel = futexstat_bpf__open();
	if (!fs->skel) {
		snprintf(why, n, "cannot open the BPF object: %s", strerror(errno));
		free(fs);
		return NULL;
	}
	configure(fs, cfg, &ns);
	choose_programs(fs);
	if (alloc_buffers(fs, why, n)) {
		discard(fs);
		return NULL;
	}
	int e = futexstat_bpf__load(fs->skel);
	if (e) {
		e = -e;
		snprintf(why, n, "the kernel refused the BPF programs: %s%s", strerror(e),
			 e == EPERM ? " (not permitted: root with CAP_BPF needed)"
				    : " (set FUTEXLAB_PROBES_DEBUG=1 for libbpf's log)");
		discard(fs);
		return NULL;
	}
	if (!fs->skel->bss) {
		snprintf(why, n, "the kernel cannot map BPF global data (needs Linux 5.5+)");
		discard(fs);
		return NULL;
	}
	return fs;
}

int futexstat_start(struct futexstat *fs, char *why, size_t n)
{
	if (!fs->attached) {
		int e = futexstat_bpf__attach(fs->skel);
		if (e) {
			futexstat_bpf__detach(fs->skel);
			snprintf(why, n, "cannot attach to the futex tracepoints: %s", strerror(-e));
			return -e;
		}
		fs->attached = 1;
	}
	__u32 zero = 0;
	memset(fs->buf, 0, (size_t)fs->ncpus * fs->stride);
	int e = bpf_map__update_elem(fs->skel->maps.pcpu, &zero, sizeof zero, fs->buf,
				     (size_t)fs->ncpus * fs->stride, BPF_ANY);
	if (e) {
		snprintf(why, n, "cannot zero the per-CPU counters: %s", strerror(-e));
		return -e;
	}
	/* A new rep: the tree starts empty (only what the caller forks from now
	 * on joins it), and no thread state of an earlier rep survives, so a
	 * tid reused since (by a thread of this rep or of any process) starts
	 * clean; futexstat.bpf.c relies on it (wake-to-run trusts the slot's
	 * tag in this mode). */
	if (fs->follow) {
		e = clear_map(fs, fs->skel->maps.tree);
		if (e) {
			snprintf(why, n, "cannot empty the process tree map: %s", strerror(-e));
			return -e;
		}
		memset((void *)fs->skel->bss->thr, 0, sizeof fs->skel->bss->thr);
	}
	/* no FUTEX2_NUMA call in flight from an earlier rep is read at its exit */
	memset((void *)fs->skel->bss->numa_at, 0, sizeof fs->skel->bss->numa_at);
	if (fs->per_word) {
		e = clear_map(fs, fs->skel->maps.words);
		if (e) {
			snprintf(why, n, "cannot empty the per-word map: %s", strerror(-e));
			return -e;
		}
		fs->nw = -1;
	}
	__atomic_store_n(&fs->skel->bss->active, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void futexstat_stop(struct futexstat *fs, struct futexstat_counts *out)
{
	__atomic_store_n(&fs->skel->bss->active, 0, __ATOMIC_SEQ_CST);
	memset(out, 0, sizeof *out);
	__u32 zero = 0;
	if (bpf_map__lookup_elem(fs->skel->maps.pcpu, &zero, sizeof zero, fs->buf,
				 (size_t)fs->ncpus * fs->stride, 0)) {
		out->missed = UINT64_MAX; /* cannot happen: the map has its one entry */
		return;
	}
	/* every field is a __u64: sum them CPU by CPU, but the node masks,
	 * OR-ed */
	__u64 *sum = (__u64 *)out, nodes = 0, cpus = 0;
	for (int cpu = 0; cpu < fs->ncpus; cpu++) {
		const __u64 *v = (const __u64 *)((const char *)fs->buf + (size_t)cpu * fs->stride);
		for (size_t i = 0; i < sizeof *out / sizeof(__u64); i++)
			sum[i] += v[i];
		const struct futexstat_counts *one = (const struct futexstat_counts *)v;
		nodes |= one->numa_node_mask;
		cpus |= one->cpu_node_mask;
	}
	out->numa_node_mask = nodes;
	out->cpu_node_mask = cpus;
	out->futex_calls = out->op_wait + out->op_wait_bitset + out->op_wake + out->op_other;
	out->wake_calls = out->op_wake + out->op_wake_bitset + out->f2_wake;
	out->wait_calls = out->op_wait + out->op_wait_bitset + out->f2_wait + out->f2_waitv;
}

void futexstat_detach(struct futexstat *fs)
{
	if (!fs->attached)
		return;
	__atomic_store_n(&fs->skel->bss->active, 0, __ATOMIC_SEQ_CST);
	futexstat_bpf__detach(fs->skel);
	fs->attached = 0;
}

int futexstat_sees_wake_to_run(const struct futexstat *fs)
{
	return fs->sees_wtr;
}

void futexstat_close(struct futexstat *fs)
{
	if (!fs)
		return;
	futexstat_bpf__destroy(fs->skel);
	free(fs->keys);
	free(fs->w);
	free(fs->buf);
	free(fs);
}

int futexstat_sees_uring(const struct futexstat *fs)
{
	return fs->sees_uring;
}

__u64 futexstat_wait_quantile(const struct futexstat_counts *c, double q)
{
	__u64 total = 0;
	for (int i = 0; i < FUTEXSTAT_HIST_SLOTS; i++)
		total += c->wait_hist[i];
	if (!total)
		return 0;
	/* the smallest slot at which the cumulative count reaches q * total */
	double want = q * (double)total;
	__u64 seen = 0;
	for (int i = 0; i < FUTEXSTAT_HIST_SLOTS; i++) {
		seen += c->wait_hist[i];
		if ((double)seen >= want && c->wait_hist[i])
			return i >= 63 ? UINT64_MAX : (1ULL << (i + 1));
	}
	return UINT64_MAX;
}

__u64 futexstat_wtr_slot_hi(int i)
{
	if (i < 8)
		return (__u64)i + 1;
	int e = i / 8 + 2, sub = i % 8;
	return (__u64)(9 + sub) << (e - FUTEXSTAT_WTR_SUB_BITS);
}

__u64 futexstat_wtr_quantile(const struct futexstat_counts *c, double q)
{
	__u64 total = 0;
	for (int i = 0; i < FUTEXSTAT_WTR_SLOTS; i++)
		total += c->wtr_hist[i];
	if (!total)
		return 0;
	double want = q * (double)total;
	__u64 seen = 0;
	for (int i = 0; i < FUTEXSTAT_WTR_SLOTS; i++) {
		seen += c->wtr_hist[i];
		if ((double)seen >= want && c->wtr_hist[i])
			return i == FUTEXSTAT_WTR_SLOTS - 1 ? UINT64_MAX : futexstat_wtr_slot_hi(i);
	}
	return UINT64_MAX;
}

void futexstat_count_self(struct futexstat *fs, int on)
{
	__atomic_store_n(&fs->skel->bss->count_self, on ? 1U : 0U, __ATOMIC_SEQ_CST);
}

int futexstat_count_tgid(struct futexstat *fs, pid_t pid)
{
	if (fs->follow)
		return -EINVAL;
	if (!pid) {
		if (fs->own_host)
			__atomic_store_n(&fs->skel->bss->host_tgid, fs->own_host, __ATOMIC_SEQ_CST);
		fs->own_host = 0;
		return 0;
	}
	if (!fs->own_host) {
		/* the target's host tgid, learned by the programs at its first
		 * counted futex call: make one (a wake of nobody) if none was made
		 * yet; the counts it leaves are zeroed by the next start */
		if (!__atomic_load_n(&fs->skel->bss->host_tgid, __ATOMIC_SEQ_CST)) {
			char why[200];
			int e = futexstat_start(fs, why, sizeof why);
			if (e)
				return -e;
			_Atomic __u32 word = 0;
			syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
			__atomic_store_n(&fs->skel->bss->active, 0, __ATOMIC_SEQ_CST);
		}
		__u32 own = __atomic_load_n(&fs->skel->bss->host_tgid, __ATOMIC_SEQ_CST);
		/* the programs compare host tgids: a pid of the loader's namespace
		 * is one only when the loader's numbering is the kernel's own */
		if (own != (__u32)getpid())
			return -EXDEV;
		fs->own_host = own;
	}
	__atomic_store_n(&fs->skel->bss->host_tgid, (__u32)pid, __ATOMIC_SEQ_CST);
	return 0;
}

int futexstat_count_cgroup(struct futexstat *fs, __u64 id)
{
	if (!fs->follow)
		return -EINVAL;
	__atomic_store_n(&fs->skel->data_cgroup->cgroup_id, id, __ATOMIC_SEQ_CST);
	return 0;
}

int futexstat_tree_size(struct futexstat *fs)
{
	return fs->follow ? map_keys(fs, fs->skel->maps.tree) : 0;
}

/* Reads the words map into fs->w (once per rep). */
static int read_words(struct futexstat *fs)
{
	const struct bpf_map *m = fs->skel->maps.words;
	int cnt = map_keys(fs, m);
	if (cnt < 0)
		return cnt;
	if (!fs->w) {
		fs->w = calloc(bpf_map__max_entries(m), sizeof *fs->w);
		if (!fs->w)
			return -ENOMEM;
	}
	const struct futexstat_word_key *k = fs->keys;
	int nw = 0;
	for (int i = 0; i < cnt; i++) {
		struct futexstat_word_val v;
		int e = bpf_map__lookup_elem(m, &k[i], sizeof k[i], &v, sizeof v, 0);
		if (e == -ENOENT)
			continue;
		if (e)
			return e;
		struct futexstat_word *w = &fs->w[nw++];
		*w = (struct futexstat_word){
			.tgid = k[i].ino ? 0 : v.tgid, .uaddr = k[i].uaddr, .ino = k[i].ino,
			.dev = k[i].dev, .more = (int)v.more, .waits = v.waits, .wait_ns = v.wait_ns,
			.wakes = v.wakes, .woken = v.woken, .eagain = v.eagain, .timedout = v.timedout,
		};
		for (int p = 0; p < FUTEXSTAT_WORD_PIDS; p++)
			if (v.hpid[p])
				w->pids[w->npids++] = v.pid[p];
	}
	fs->nw = nw;
	return 0;
}

/* Ties after the key: by file (private words first), then ascending
 * address (or offset), then pid, so the order is total and the same from
 * one call to the next. */
static int word_ties(const struct futexstat_word *a, const struct futexstat_word *b)
{
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->uaddr != b->uaddr)
		return a->uaddr < b->uaddr ? -1 : 1;
	return (a->tgid > b->tgid) - (a->tgid < b->tgid);
}

static int by_waits(const void *x, const void *y)
{
	const struct futexstat_word *a = x, *b = y;
	if (a->waits != b->waits)
		return a->waits > b->waits ? -1 : 1;
	return word_ties(a, b);
}

static int by_wait_ns(const void *x, const void *y)
{
	const struct futexstat_word *a = x, *b = y;
	if (a->wait_ns != b->wait_ns)
		return a->wait_ns > b->wait_ns ? -1 : 1;
	return word_ties(a, b);
}

int futexstat_words(struct futexstat *fs, int by, struct futexstat_word *out, int n, int *nwords)
{
	if (nwords)
		*nwords = 0;
	if ((by != 0 && by != 1) || n < 0)
		return -EINVAL;
	if (!fs->per_word)
		return 0;
	if (fs->nw < 0) {
		int e = read_words(fs);
		if (e)
			return e;
	}
	qsort(fs->w, (size_t)fs->nw, sizeof *fs->w, by ? by_wait_ns : by_waits);
	int k = n < fs->nw ? n : fs->nw;
	if (k > 0)
		memcpy(out, fs->w, (size_t)k * sizeof *out);
	if (nwords)
		*nwords = fs->nw;
	return k;
}

int futexstat_thread_wait(struct futexstat *fs, int tid, struct futexstat_wait_now *out)
{
	const volatile struct futexstat_thread *t =
		&fs->skel->bss->thr[(unsigned)tid & ((1u << FUTEXSTAT_TW_BITS) - 1)];
	for (int tries = 0; tries < 3; tries++) {
		__u32 tag = t->tid, kind = t->kind;
		__u64 ts = t->ts, uaddr = t->uaddr, woken = t->wake_ts;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (t->tid != tag || t->kind != kind || t->ts != ts || t->uaddr != uaddr)
			continue; /* written meanwhile: read again */
		if (tag != (__u32)tid || (kind != FUTEXSTAT_KIND_WAIT && kind != FUTEXSTAT_KIND_WAITV))
			return 0;
		*out = (struct futexstat_wait_now){ .kind = (int)kind, .uaddr = uaddr,
						    .since_ns = ts, .woken_ns = woken };
		return 1;
	}
	return 0;
}
