/* shim/preload.c — libfutexlab-preload.so: run an unmodified program's
 * POSIX semaphores on any futexlab design.
 *
 *   FUTEXLAB_VARIANT=musl LD_PRELOAD=build/shim/libfutexlab-preload.so prog
 *
 * Interposes sem_init, sem_destroy, sem_wait, sem_trywait, sem_timedwait,
 * sem_clockwait, sem_post and sem_getvalue. A semaphore sem_init creates
 * lives in the caller's sem_t, in the layout of the variant named by
 * FUTEXLAB_VARIANT (default negcount); every variant's state fits in a
 * sem_t, which FL_VARIANT asserts at build time (variants/variant.h), and
 * the shim checks the alignment when it starts.
 *
 * Whose semaphore: a tag in the sem_t's last 8 bytes (below, "the tag")
 * names the design of every semaphore the shim initialised; everything
 * untagged is glibc's:
 *   - named ones (sem_open is interposed only to count them);
 *   - process-shared ones of a variant whose init refuses them (ENOTSUP:
 *     its state is not self-contained in the sem_t), and initial values
 *     above the variant's value_max but within SEM_VALUE_MAX: glibc
 *     initialises them, and FUTEXLAB_DEBUG=1 says so on stderr.
 *   The tag is in the semaphore, so every process that maps it agrees —
 *   across fork, exec, and between unrelated processes.
 *   Every semaphore is glibc's when FUTEXLAB_VARIANT=glibc (that variant is
 *   glibc's sem_t), when the variant is capped (FL_CAPPED: its post absorbs
 *   releases past the capacity, which sem_post may not), and when it breaks
 *   a POSIX promise (FL_DESTROY_UNSAFE, FL_SIGNAL_UNSAFE, FL_NO_EINTR) that
 *   FUTEXLAB_ALLOW (a comma list of destroy, signal, eintr, all) does not
 *   accept: refused, with a line on stderr under FUTEXLAB_DEBUG=1 only.
 *   A design that lacks getvalue or EOVERFLOW (FL_NO_GETVALUE, FL_NO_OVERFLOW)
 *   is skipped, and so are the C++ standard-library designs, registered
 *   but not linked into the shim (below, cxx_design).
 *
 * POSIX error semantics: -1 with errno: EINVAL (bad tv_nsec when the
 * semaphore is empty, an unsupported clock, value > SEM_VALUE_MAX),
 * EOVERFLOW (post past the variant's value_max), EAGAIN (trywait),
 * ETIMEDOUT, EINTR (a signal handler ran; never restarted, as glibc).
 * sem_timedwait's deadline is CLOCK_REALTIME: it is converted to the
 * variant's CLOCK_MONOTONIC with saturating arithmetic, and when the
 * converted deadline passes the realtime clock is read again, so a clock
 * set backwards extends the wait as POSIX requires (a clock set forwards
 * is noticed only at the converted deadline).
 *
 * Waits go through the waiting policy (variants/policy.h: fl_wait,
 * fl_timedwait) that FUTEXLAB_POLICY names (park when unset): the design's
 * trywait re-tried before its wait, as in the harness's reps. A shipped
 * library (glibc's pass-through, the C++ and helper-run designs) keeps its
 * own: a policy other than park for one is a usage error, as an unknown
 * FUTEXLAB_VARIANT is.
 *
 * FUTEXLAB_LOG=PATH: every process appends one logline to PATH at exit
 * (shim/logline.h; "the log" below); FUTEXLAB_STATS=1 counts the calls into
 * it ("counting" below). Neither writes a byte on the program's stderr. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/clock.h"
#include "shim/env.h"
#include "shim/logline.h"
#include "variants/policy.h"
#include "variants/variant.h"

#define EXPORT __attribute__((visibility("default")))

static const struct fl_variant *V; /* NULL: everything goes to libc */
static int debug;
/* sem_init calls; of them on the design, handed to glibc; sem_open
 * successes. Since the process started (a forked child: since the fork). */
static _Atomic long n_inits, n_ours, n_handed, n_named;

/* What the logline says (shim/logline.h), set once by shim_setup. */
static enum fl_shim_state state;
static char reason[FL_SHIM_REASON_MAX + 1] = "-";
static char vname[FL_SHIM_VARIANT_MAX + 1];
static char log_path[FL_SHIM_LOG_MAX + 1]; /* FUTEXLAB_LOG; "" none */
static char policy_text[FL_POLICY_TEXT_MAX] = "park"; /* FUTEXLAB_POLICY, canonical */
_Static_assert(FL_SHIM_VARIANT_MAX == FL_SHIM_NAME_MAX, "env.h and logline.h disagree");
_Static_assert(FL_POLICY_TEXT_MAX == FL_SHIM_POLICY_MAX + 1, "policy.h and logline.h disagree");

static int (*real_init)(sem_t *, int, unsigned);
static int (*real_destroy)(sem_t *);
static int (*real_wait)(sem_t *);
static int (*real_trywait)(sem_t *);
static int (*real_timedwait)(sem_t *, const struct timespec *);
static int (*real_clockwait)(sem_t *, clockid_t, const struct timespec *);
static int (*real_post)(sem_t *);
static int (*real_getvalue)(sem_t *, int *);
static sem_t *(*real_open)(const char *, int, ...);
static int (*real_close)(sem_t *);
static void (*real_exit)(int); /* glibc's _exit (_Exit is the same function) */
/* The named semaphores' table lock, held across fork (below, "named"). */
static void named_prepare(void);
static void named_release(void);

/* ---- the log -------------------------------------------------------------
 * FUTEXLAB_LOG=PATH (absolute: env.h). The file is opened for each line and
 * closed after it, never kept open: a program may close every descriptor it
 * did not open (closefrom, daemons) and reuse the number, and a descriptor
 * kept here would then write into the program's own file. A line is one
 * write() on an O_APPEND descriptor, so lines of concurrent processes never
 * interleave (the kernel appends each write whole on a local file system;
 * a line is below PIPE_BUF for a FIFO); no stdio, so nothing is buffered
 * with the program's streams or lost in them. O_NOCTTY: a log path naming a
 * terminal must not become a session leader's controlling terminal.
 * O_CLOEXEC: a child that execs gets no descriptor of ours. errno is the
 * program's: kept. A log that cannot be opened (permissions, a sandbox, a
 * missing directory) loses the line, said on stderr under FUTEXLAB_DEBUG=1
 * only: a correct program is never made to fail by its log. */
/* ---- the report channel: FUTEXLAB_LOG=@NAME ----------------------------
 * The line goes to the abstract AF_UNIX SOCK_SEQPACKET socket NAME (futexlab
 * exec's server: proc/report.c), one connection per line: connect, send the
 * line as one message (SEQPACKET keeps it whole: the server reads one line,
 * never half of one or two), then wait for the server's 1-byte ack before
 * closing. The wait is the protocol: the server checks who sent the line
 * by SO_PEERCRED's pid (in the run's cgroup, /proc/PID/cgroup), which needs
 * the sender alive when it looks — a process that closed and exited at once
 * could be gone, or its pid reused. Bounded (SO_RCVTIMEO, SO_SNDTIMEO: 2 s)
 * so a stalled server delays an exit by 2 s at most, never hangs it. An
 * abstract socket has no file: no permission bits (a process that changed
 * user reaches it, which a root-owned log file refused), nothing left
 * behind; forgery is the server's to refuse by the peer's pid. SOCK_CLOEXEC:
 * a child that execs gets nothing of ours. MSG_NOSIGNAL: a server gone is
 * no SIGPIPE for the program. A failure is silent (FUTEXLAB_DEBUG says it):
 * the program never fails because of its report. errno kept. */
static void channel_write(const char *name, const char *buf, size_t n)
{
	int e = errno;
	const char *why = NULL;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t len = strnlen(name, sizeof a.sun_path - 1); /* (env.c: at most 107) */
	memcpy(a.sun_path + 1, name, len); /* sun_path[0] = 0: abstract */
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		why = "socket";
		goto out;
	}
	struct timeval tv = { .tv_sec = 2 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (connect(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len))) {
		why = "connect";
		goto out;
	}
	ssize_t w;
	do
		w = send(fd, buf, n, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)n) {
		why = "send";
		goto out;
	}
	char ack;
	ssize_t r;
	do
		r = recv(fd, &ack, 1, 0);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		why = r == 0 ? "no ack (closed)" : "no ack";
out:
	if (why && debug)
		fprintf(stderr, "futexlab-preload: FUTEXLAB_LOG=@%s: %s: %s\n", name, why,
			strerror(errno));
	if (fd >= 0)
		close(fd);
	errno = e;
}

static void log_write(const char *path, const char *buf, size_t n)
{
	if (path[0] == '@') {
		channel_write(path + 1, buf, n);
		return;
	}
	int e = errno;
	int fd;
	do
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		if (debug)
			fprintf(stderr, "futexlab-preload: FUTEXLAB_LOG: cannot open %s: %s\n", path,
				strerror(errno));
		errno = e;
		return;
	}
	ssize_t w;
	do
		w = write(fd, buf, n);
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)n && debug)
		fprintf(stderr, "futexlab-preload: FUTEXLAB_LOG: %s: wrote %zd of %zu bytes\n", path,
			w, n);
	close(fd);
	errno = e;
}

/* "futexlab-preload: " + the message + "\n" into buf (cut to fit); its
 * length. */
static size_t message(char *buf, size_t len, const char *fmt, va_list ap)
{
	static const char prefix[] = "futexlab-preload: ";
	memcpy(buf, prefix, sizeof prefix);
	vsnprintf(buf + sizeof prefix - 1, len - sizeof prefix, fmt, ap); /* room for "\n" */
	size_t n = strlen(buf);
	buf[n++] = '\n';
	buf[n] = '\0';
	return n;
}

/* A message: "futexlab-preload: ...", only under FUTEXLAB_DEBUG=1, on
 * stderr and, with FUTEXLAB_LOG, in the log too (one write, like a logline
 * line; cut at 511 bytes). Never called on a hot path. */
static void say(const char *fmt, ...)
{
	if (!debug)
		return;
	int e = errno;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	size_t n = message(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fputs(buf, stderr);
	if (log_path[0])
		log_write(log_path, buf, n);
	errno = e;
}

/* The shim's own exit (a usage error, no libc to call): the system call
 * itself, not _exit, which this library interposes (a call from inside it
 * binds to its own definition) and which would write a logline. */
__attribute__((noreturn)) static void leave(int code)
{
	for (;;)
		syscall(SYS_exit_group, code);
}

/* A usage error: one line on stderr — and in the log when FUTEXLAB_LOG
 * itself is valid — then exit 2, before the program runs (no logline:
 * the destructor does not run on _exit). */
__attribute__((noreturn, format(printf, 1, 2))) static void usage(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	size_t n = message(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fputs(buf, stderr);
	static struct fl_shim_env only_log;
	const struct fl_shim_vars v = { .log = getenv("FUTEXLAB_LOG") };
	if (fl_shim_env_parse(&v, &only_log, NULL, 0) == 0 && only_log.log[0])
		log_write(only_log.log, buf, n);
	leave(2);
}

static void *sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p) {
		fprintf(stderr, "futexlab-preload: libc has no %s\n", name);
		leave(2);
	}
	return p;
}

/* ---- whose semaphore is it: the tag --------------------------------------
 * Every semaphore the shim initialises on a design carries a tag in the
 * last 8 bytes of its sem_t, which no design uses (each state fits in the
 * first FL_TAG_OFF bytes; checked when the shim starts): a magic word and a
 * hash of the design's name. Every call reads it: tagged -> the design it
 * names (this process's, or another registered one: a process-shared
 * semaphore made by a parent under another FUTEXLAB_VARIANT); untagged ->
 * glibc's. The tag lives in the semaphore, so it means the same in every
 * process that maps it — across fork, across exec (the supervisor/worker
 * case of the POSIX promises, shim/README.md: a child that execs has none of its parent's memory, and
 * used to read glibc's bytes as a design's, or a design's as glibc's), and
 * between unrelated processes. Named semaphores are glibc's: sem_open
 * zeroes the bytes past glibc's 16 (sem_open.c), so they carry no tag.
 * sem_init through glibc (a handed-over semaphore, or any sem_init in a
 * pass-through process) and sem_destroy clear it, so memory reused for
 * another semaphore is never misread. Loads and stores are relaxed atomics:
 * the tag only changes in sem_init/sem_destroy, which POSIX already orders
 * before and after every other use of the semaphore. */
#define FL_TAG_OFF   24
#define FL_TAG_MAGIC 0x62614c46u /* "FLab" */
_Static_assert(sizeof(sem_t) >= FL_TAG_OFF + 8, "sem_t has no room for the tag");

static uint32_t name_hash(const char *n) /* FNV-1a */
{
	uint32_t h = 2166136261u;
	for (; *n; n++)
		h = (h ^ (uint8_t)*n) * 16777619u;
	return h | 1; /* never 0: a cleared tag is all zero */
}

static uint32_t *tag_of(const sem_t *s)
{
	return (uint32_t *)(void *)((char *)(uintptr_t)s + FL_TAG_OFF);
}

static void tag_set(sem_t *s, const struct fl_variant *v)
{
	uint32_t *t = tag_of(s);
	__atomic_store_n(&t[1], v ? name_hash(v->name) : 0u, __ATOMIC_RELAXED);
	__atomic_store_n(&t[0], v ? FL_TAG_MAGIC : 0u, __ATOMIC_RELAXED);
}

static uint32_t v_hash; /* name_hash(V->name) */
/* Every design a tag may name here (filled once, in shim_setup). */
static struct { uint32_t hash; const struct fl_variant *v; } usable[64];
static int n_usable;

/* A design usable from this shim: registered, available, fits before the tag. */
static const char *misfit(const struct fl_variant *v)
{
	if (v->helper) /* its ops exist only in its helper (variant.h) */
		return "it runs only in its own helper process (another libc), not in a program";
	if (v->size > FL_TAG_OFF || v->align > alignof(sem_t))
		return "its state does not fit a sem_t before the shim's tag";
	return NULL;
}

static const char *shim_unavailable(const struct fl_variant *v)
{
	const char *why = v->unavailable ? v->unavailable() : NULL;
	return why ? why : misfit(v);
}

/* The design that owns s, or NULL for glibc. */
static const struct fl_variant *owner(const sem_t *s)
{
	const uint32_t *t = tag_of(s);
	if (__atomic_load_n(&t[0], __ATOMIC_RELAXED) != FL_TAG_MAGIC)
		return NULL;
	uint32_t h = __atomic_load_n(&t[1], __ATOMIC_RELAXED);
	if (V && h == v_hash)
		return V;
	for (int i = 0; i < n_usable; i++) /* made by a process with another design */
		if (usable[i].hash == h)
			return usable[i].v;
	return NULL; /* a design this build does not have: glibc's, as before tags */
}

static int fail(int e)
{
	errno = e;
	return -1;
}

static const char *broken(unsigned flags, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s",
		 flags & FL_DESTROY_UNSAFE ? "destroy (unsafe to destroy as soon as the last wait returns) " : "",
		 flags & FL_SIGNAL_UNSAFE ? "signal (sem_post not async-signal-safe) " : "",
		 flags & FL_NO_EINTR ? "eintr (a handler never interrupts a wait) " : "");
	return buf;
}

/* The logline's reason: printable ASCII (anything else as '?'), cut to fit. */
static void set_reason(const char *why)
{
	size_t n = 0;
	for (; n < FL_SHIM_REASON_MAX && why[n]; n++)
		reason[n] = why[n] >= ' ' && why[n] <= '~' ? why[n] : '?';
	if (n == 0)
		reason[n++] = '-';
	reason[n] = '\0';
}

/* The design is not run: semaphores stay glibc's, and the logline says why
 * (through a buffer of the reason's size: cppcheck reads a literal longer
 * than it as an overrun in set_reason's loop). */
static void skip_design(const char *name, const char *why)
{
	char buf[FL_SHIM_REASON_MAX + 1];
	snprintf(buf, sizeof buf, "%s", why);
	state = FL_SHIM_SKIPPED;
	set_reason(buf);
	say("variant %s skipped: %s; semaphores stay glibc's", name, buf);
}

/* The C++ standard-library designs (variants/cxx_*.cc) are registered but
 * not linked into the shim: preloading them would load libstdc++, libc++,
 * libc++abi and libunwind into every program, and they could not serve
 * sem_getvalue (no value to read) nor sem_post's EOVERFLOW (FL_NO_GETVALUE,
 * FL_NO_OVERFLOW). meson passes their names (variants/meson.build). */
#ifndef FL_SHIM_CXX_NAMES
#define FL_SHIM_CXX_NAMES ""
#endif
#define CXX_REFUSAL "not offered by the shim: a C++ standard-library design (no sem_getvalue, " \
	"no EOVERFLOW, and a C++ runtime in every program)"
#define LACKS_REFUSAL "not offered by the shim: the design lacks getvalue or EOVERFLOW, " \
	"which sem_getvalue and sem_post need"

static bool cxx_design(const char *name)
{
	size_t n = strlen(name);
	for (const char *p = FL_SHIM_CXX_NAMES; *p;) {
		size_t k = strcspn(p, " ");
		if (k == n && !strncmp(p, name, n))
			return true;
		p += k + (p[k] == ' ');
	}
	return false;
}

/* "destroy,signal": the FUTEXLAB_ALLOW names of the promises in flags. */
static const char *promise_list(unsigned flags, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", flags & FL_DESTROY_UNSAFE ? "destroy" : "",
		 flags & FL_DESTROY_UNSAFE && flags & (FL_SIGNAL_UNSAFE | FL_NO_EINTR) ? "," : "",
		 flags & FL_SIGNAL_UNSAFE ? "signal" : "",
		 flags & FL_SIGNAL_UNSAFE && flags & FL_NO_EINTR ? "," : "",
		 flags & FL_NO_EINTR ? "eintr" : "");
	return buf;
}

/* ---- counting (FUTEXLAB_STATS=1) ------------------------------------------
 * Per-process counts of the calls, for a survey: how a program uses its
 * semaphores, and under the pass-through how many of its waits found the
 * semaphore empty ("blocked").
 *
 * Off, it costs one predictable branch on a global (`stats`) per call: the
 * counting code is out of line. On, a call adds one to a counter in one of
 * 64 stripes, each on its own 128-byte block (two cache lines: the adjacent
 * line prefetcher pairs them), a stripe per thread in the order threads
 * first count (the 65th thread shares the first's). So threads do not write
 * a shared line on every call, as one set of global counters would, and a
 * thread's counts outlive it (they are in the stripe, not in the thread:
 * per-thread storage summed at exit would lose the threads that ended
 * before, or need a registry and a destructor per thread). The add is a
 * relaxed atomic RMW — a thread's signal handler may post on top of the
 * thread's own count — which is also what keeps it async-signal-safe (the
 * stripe index is initial-exec TLS: a plain load, no allocation). With
 * the stripes a counted pair costs little more than an uncounted one, one
 * set of global counters several times that (shim/log.md has the figures
 * and where they came from). Still not free: counting perturbs timing, so a survey is a pass of its own, never a
 * measured round. At exit the stripes are summed with relaxed loads: a
 * snapshot, should threads still run. */
enum { K_WAIT, K_TRYWAIT, K_TIMEDWAIT, K_CLOCKWAIT, K_POST, K_BLOCKED, K_TIMEOUTS, K_N };
#define N_STRIPES 64
struct stripe {
	_Alignas(128) uint64_t n[K_N];
};
_Static_assert(sizeof(struct stripe) == 128, "a stripe is two cache lines");
static struct stripe stripes[N_STRIPES];
static unsigned stripe_next;
/* this thread's stripe + 1; 0: not counted yet */
static __thread unsigned my_stripe __attribute__((tls_model("initial-exec")));
static int stats; /* FUTEXLAB_STATS=1 */

static void count(int k)
{
	unsigned s = my_stripe;
	if (__builtin_expect(s == 0, 0)) {
		/* (a handler that interrupts this takes a stripe of its own:
		 * harmless) */
		s = __atomic_fetch_add(&stripe_next, 1, __ATOMIC_RELAXED) % N_STRIPES + 1;
		my_stripe = s;
	}
	__atomic_fetch_add(&stripes[s - 1].n[k], 1, __ATOMIC_RELAXED);
}

static uint64_t counted(int k)
{
	uint64_t sum = 0;
	for (int i = 0; i < N_STRIPES; i++)
		sum += __atomic_load_n(&stripes[i].n[k], __ATOMIC_RELAXED);
	return sum;
}

/* pthread_atfork's child handler: the child (one thread, the forking one)
 * starts counting from zero, so its line says what it did, not what its
 * parent did before the fork. (A child made by clone() or _Fork, which run
 * no handlers, inherits the parent's counts.) */
static void forked(void)
{
	for (int i = 0; i < N_STRIPES; i++)
		for (int k = 0; k < K_N; k++)
			__atomic_store_n(&stripes[i].n[k], 0, __ATOMIC_RELAXED);
	atomic_store_explicit(&n_inits, 0, memory_order_relaxed);
	atomic_store_explicit(&n_ours, 0, memory_order_relaxed);
	atomic_store_explicit(&n_handed, 0, memory_order_relaxed);
	atomic_store_explicit(&n_named, 0, memory_order_relaxed);
	named_release(); /* (taken by named_prepare before the fork) */
}

/* glibc's own semaphore functions: where a call goes that the shim does not
 * take (the pass-through, a semaphore it did not make, a refused design). */
static void resolve_real(void)
{
	real_init = sym("sem_init");
	real_destroy = sym("sem_destroy");
	real_wait = sym("sem_wait");
	real_trywait = sym("sem_trywait");
	real_timedwait = sym("sem_timedwait");
	real_clockwait = sym("sem_clockwait");
	real_post = sym("sem_post");
	real_getvalue = sym("sem_getvalue");
	real_open = sym("sem_open");
	real_close = sym("sem_close");
	real_exit = sym("_exit");
}

/* Designs a tag may name: those that fit. Not asked whether they are
 * available: a tag is only ever written by a process in which its design
 * was (sem_init on it succeeded), on this same kernel; and asking costs
 * futex2/io_uring probe syscalls at every program's load, which `futexlab
 * exec` would count as the program's (tree_prog's exact profile). This
 * process's own design is asked, in choose_design. */
static void collect_usable(void)
{
	for (int i = 0; i < fl_nvariants && n_usable < (int)(sizeof usable / sizeof usable[0]); i++)
		if (!misfit(fl_variants[i]) && !(fl_variants[i]->flags & FL_CAPPED) &&
		    strcmp(fl_variants[i]->name, "glibc") != 0)
			usable[n_usable].hash = name_hash(fl_variants[i]->name),
			usable[n_usable++].v = fl_variants[i];
}

/* FUTEXLAB_VARIANT, FUTEXLAB_DEBUG, FUTEXLAB_ALLOW, FUTEXLAB_STATS,
 * FUTEXLAB_LOG, FUTEXLAB_POLICY (shim/env.h) into the shim's settings; a bad
 * one is a usage error. Registers the fork handler. Returns the parsed variables (static
 * storage). */
static const struct fl_shim_env *read_env(void)
{
	static struct fl_shim_env env; /* 4 KiB: not on a caller's stack */
	char err[200];
	const struct fl_shim_vars vars = {
		.variant = getenv("FUTEXLAB_VARIANT"),
		.debug = getenv("FUTEXLAB_DEBUG"),
		.allow = getenv("FUTEXLAB_ALLOW"),
		.stats = getenv("FUTEXLAB_STATS"),
		.log = getenv("FUTEXLAB_LOG"),
		.policy = getenv("FUTEXLAB_POLICY"),
	};
	if (fl_shim_env_parse(&vars, &env, err, sizeof err))
		usage("%s", err);
	fl_policy_format(&env.policy, policy_text, sizeof policy_text);
	debug = env.debug;
	stats = env.stats;
	memcpy(log_path, env.log, sizeof log_path);
	memcpy(vname, env.variant, sizeof vname);
	/* counts restart in a forked child (its line is its own); registered
	 * once, here (start(): set-up runs once). It fails only out of memory: the
	 * children's lines then count their parent's calls too, which is no
	 * reason to stop the program. */
	if (pthread_atfork(named_prepare, named_release, forked) != 0)
		say("pthread_atfork failed: a forked child's counts include its parent's");
	return &env;
}

/* Whether design v (not capped) may run a program's semaphores given the
 * promises the user allows; if not, the shim's state and reason say why
 * (semaphores stay glibc's). */
static bool design_acceptable(const char *name, const struct fl_variant *v, unsigned allow)
{
	if (v->flags & (FL_NO_GETVALUE | FL_NO_OVERFLOW)) {
		/* sem_getvalue and sem_post's EOVERFLOW would have nothing to run
		 * on: not a POSIX semaphore, whatever FUTEXLAB_ALLOW says. */
		skip_design(name, LACKS_REFUSAL);
		return false;
	}
	unsigned breaks = v->flags & (FL_DESTROY_UNSAFE | FL_SIGNAL_UNSAFE | FL_NO_EINTR);
	if (breaks & ~allow) {
		/* A design that would crash or hang a correct program is not run
		 * under it unless the user opts in. */
		state = FL_SHIM_REFUSED;
		char list[40], why_buf[160], buf[200];
		snprintf(why_buf, sizeof why_buf, "breaks %s (FUTEXLAB_ALLOW=%s runs it anyway)",
			 promise_list(breaks & ~allow, list, sizeof list), list);
		set_reason(why_buf);
		say("variant %s refused: it breaks %s- semaphores stay glibc's "
		    "(FUTEXLAB_ALLOW=all runs it anyway)", name, broken(breaks & ~allow, buf, sizeof buf));
		return false;
	}
	return true;
}

/* A waiting policy other than park for a shipped library (v, or a C++
 * design the shim does not link: v NULL) is a usage error, as in the
 * harness: it waits by its own (variant.h, .own_policy). */
static void refuse_policy(const char *name, const struct fl_variant *v,
			  const struct fl_policy *p)
{
	if (p->kind == FL_POLICY_PARK || (v && fl_policy_applies(v)))
		return;
	usage("FUTEXLAB_POLICY=%s: variant %s keeps its own waiting policy (%s); only park "
	      "applies to it", policy_text, name, v ? v->own_policy : "a C++ standard library's");
}

/* The design FUTEXLAB_VARIANT names, with the promises FUTEXLAB_ALLOW
 * waives, under FUTEXLAB_POLICY: sets the shim's state (on, pass-through,
 * capped, refused, skipped) and, when on, the design. */
static void choose_design(const struct fl_shim_env *env)
{
	const char *name = env->variant;
	const struct fl_variant *v = fl_variant_find(name);
	if (!v && cxx_design(name)) {
		/* Registered, but not linked into the shim (shim/meson.build). */
		refuse_policy(name, NULL, &env->policy);
		skip_design(name, CXX_REFUSAL);
		return;
	}
	if (!v)
		usage("unknown variant '%s' (futexlab list)", name);
	refuse_policy(v->name, v, &env->policy);
	/* a former name (FUTEXLAB_VARIANT=posix) reports as the current one */
	snprintf(vname, sizeof vname, "%s", v->name);
	if (strcmp(v->name, "glibc") == 0) {
		state = FL_SHIM_PASS;
		say("variant glibc: passing every call through to glibc");
		return;
	}
	/* Refusals are silent unless FUTEXLAB_DEBUG: the program's stderr is
	 * the program's (a test that checks a child's stderr is empty must not
	 * fail because of the shim). */
	const char *why = shim_unavailable(v);
	if (why) {
		skip_design(name, why);
		return;
	}
	if (v->flags & FL_CAPPED) {
		/* A capacity, not a count: its post absorbs an over-release and
		 * returns 0, where POSIX's sem_post must count it (or fail with
		 * EOVERFLOW). A program's semaphores cannot run on it. */
		state = FL_SHIM_CAPPED;
		char buf[80];
		snprintf(buf, sizeof buf, "post absorbs releases past %d: not a POSIX semaphore",
			 v->value_max);
		set_reason(buf);
		say("variant %s is capped (post absorbs releases past %d): not a POSIX "
		    "semaphore; semaphores stay glibc's", name, v->value_max);
		return;
	}
	if (!design_acceptable(name, v, env->allow))
		return;
	V = v;
	v_hash = name_hash(v->name);
	state = FL_SHIM_ON;
	say("unnamed semaphores use variant %s", v->name);
}

/* In this order: the real functions first (every refusal below falls back
 * on them), the designs tags may name, the environment (a usage error
 * exits), then this process's design. */
static void shim_setup(void)
{
	resolve_real();
	collect_usable();
	const struct fl_shim_env *env = read_env();
	choose_design(env);
	/* before any thread of the program waits on a design (set-up runs at
	 * load, or at the first call: start()) */
	fl_policy_set(&env->policy);
}

/* Set up once, at load or at the first call, whichever comes first: another
 * library's constructor may call sem_init before this one's has run.
 * Not pthread_once: glibc's issues a FUTEX_WAKE of every waiter after the
 * init routine, waiters or not, so every program under the shim would make
 * a futex call it did not write (`futexlab exec` counts the program's
 * calls exactly: tests/test_exec.sh, tree_prog). 0: not started, 1: a
 * thread is setting up, 2: done. The release store after shim_setup pairs
 * with the acquire loads: whoever sees 2 sees everything it wrote. A
 * second thread arriving during set-up (only possible when a program starts
 * threads in a constructor that runs before ours) yields until it is done;
 * set-up does not block, so that wait is short. */
static _Atomic int started;

static inline void start(void)
{
	if (atomic_load_explicit(&started, memory_order_acquire) == 2)
		return;
	int expect = 0;
	if (atomic_compare_exchange_strong_explicit(&started, &expect, 1, memory_order_acquire,
						    memory_order_acquire)) {
		shim_setup();
		atomic_store_explicit(&started, 2, memory_order_release);
		return;
	}
	while (atomic_load_explicit(&started, memory_order_acquire) != 2)
		sched_yield();
}

__attribute__((constructor)) static void shim_start(void)
{
	start();
}

/* The process's name for the logline: /proc/self/comm (the thread group
 * leader's, whichever thread exits), or this thread's if /proc is not
 * there; every byte outside '!'..'~' as '?' (logline.h). */
static void process_name(char out[FL_SHIM_COMM_MAX + 1])
{
	char buf[64] = "";
	ssize_t n = -1;
	int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
	}
	if (n <= 0) {
		char t[17] = "";
		n = prctl(PR_GET_NAME, t) == 0 ? (ssize_t)strnlen(t, 16) : 0;
		memcpy(buf, t, (size_t)n);
	} else if (buf[n - 1] == '\n') {
		n--; /* the file's, not the name's */
	}
	size_t len = 0;
	for (ssize_t i = 0; i < n && len < FL_SHIM_COMM_MAX; i++)
		out[len++] = buf[i] > ' ' && buf[i] <= '~' ? buf[i] : '?';
	if (len == 0)
		out[len++] = '?';
	out[len] = '\0';
}

/* The logline (shim/logline.h), appended to the log at exit. */
static void write_logline(void)
{
	struct fl_shim_logline r;
	memset(&r, 0, sizeof r);
	r.pid = (int)getpid();
	r.ppid = (int)getppid();
	process_name(r.comm);
	memcpy(r.variant, vname, sizeof r.variant);
	memcpy(r.policy, policy_text, sizeof r.policy);
	r.state = state;
	r.inits = (uint64_t)atomic_load(&n_inits);
	r.ours = (uint64_t)atomic_load(&n_ours);
	r.handed = (uint64_t)atomic_load(&n_handed);
	r.named = (uint64_t)atomic_load(&n_named);
	if (stats) {
		r.stats = true;
		r.wait = counted(K_WAIT);
		r.trywait = counted(K_TRYWAIT);
		r.timedwait = counted(K_TIMEDWAIT);
		r.clockwait = counted(K_CLOCKWAIT);
		r.post = counted(K_POST);
		r.blocked_known = state == FL_SHIM_PASS;
		r.blocked = counted(K_BLOCKED);
		r.timeouts = counted(K_TIMEOUTS);
	}
	memcpy(r.reason, reason, sizeof r.reason);
	char line[FL_SHIM_LOGLINE_MAX];
	int n = fl_shim_logline_format(&r, line, sizeof line);
	if (n > 0)
		log_write(log_path, line, (size_t)n);
	else
		say("pid %d: no logline: a field out of logline.h's ranges", r.pid);
}

/* The process's report, once: at exit (the destructor: exit() or a return
 * from main) or at _exit/_Exit (their wrappers, before the real call),
 * whichever comes first: a program whose destructor or atexit handler
 * calls _exit after the shim's destructor ran writes one line, not two.
 * Keyed by pid rather than a flag: a fork child (also one made by clone()
 * or _Fork, which run no atfork handler) has another pid and writes its own
 * line; the exchange makes two threads racing to leave write one. Not on a
 * fatal signal, not on exec (shim/log.md, "The log"). */
static _Atomic pid_t reported;

static void report_once(void)
{
	pid_t me = getpid();
	if (atomic_exchange(&reported, me) == me)
		return;
	if (V)
		say("pid %d: %ld semaphores initialised on %s, %ld handed to glibc, %ld named opens",
		    (int)getpid(), atomic_load(&n_ours), V->name, atomic_load(&n_handed),
		    atomic_load(&n_named));
	if (log_path[0])
		write_logline();
}

__attribute__((destructor)) static void shim_end(void)
{
	report_once();
}

/* _exit and _Exit skip the destructors: the line is written here, before
 * the real call (Python's os._exit, a multiprocessing worker). */
EXPORT void _exit(int status)
{
	start();
	report_once();
	real_exit(status);
	leave(status); /* (glibc's does not return) */
}

EXPORT void _Exit(int status)
{
	_exit(status);
}

/* ---- the interface ----------------------------------------------------- */

EXPORT int sem_init(sem_t *s, int pshared, unsigned value)
{
	start();
	atomic_fetch_add_explicit(&n_inits, 1, memory_order_relaxed);
	if (!V) {
		int r = real_init(s, pshared, value);
		if (r == 0)
			tag_set(s, NULL); /* the memory may have held a design's semaphore */
		return r;
	}
	if (value > SEM_VALUE_MAX)
		return fail(EINVAL);
	tag_set(s, NULL);
	int r = V->init(s, value, pshared);
	if (r == 0) {
		tag_set(s, V);
		atomic_fetch_add_explicit(&n_ours, 1, memory_order_relaxed);
		return 0;
	}
	if (r == ENOTSUP || r == EINVAL) {
		say("sem_init(%p, pshared=%d, %u): variant %s cannot (%s): handed to glibc",
		    (void *)s, pshared, value, V->name,
		    r == ENOTSUP ? "no process-shared state" : "value above its value_max");
		if (real_init(s, pshared, value) != 0)
			return -1;
		tag_set(s, NULL);
		atomic_fetch_add_explicit(&n_handed, 1, memory_order_relaxed);
		return 0;
	}
	return fail(r);
}

EXPORT int sem_destroy(sem_t *s)
{
	start();
	const struct fl_variant *o = owner(s);
	if (!o)
		return real_destroy(s);
	o->destroy(s);
	tag_set(s, NULL);
	return 0;
}

/* Async-signal-safe as the design's post is (variant.h; designs that are
 * not are refused above unless allowed): owner() only loads, count() is
 * one atomic add. */
EXPORT int sem_post(sem_t *s)
{
	start();
	if (__builtin_expect(stats, 0))
		count(K_POST);
	const struct fl_variant *o = owner(s);
	if (!o)
		return real_post(s);
	int r = o->post(s, 1);
	return r ? fail(r) : 0;
}

/* ---- the pass-through's waits, counted ------------------------------------
 * With FUTEXLAB_STATS=1 and FUTEXLAB_VARIANT=glibc, a wait on a glibc
 * semaphore first calls glibc's sem_trywait; only when that fails with
 * EAGAIN — the semaphore was empty — is the wait counted as blocked, and
 * glibc's own wait called. Why this is the same call, to the program:
 *  - glibc's sem_wait is (nptl/sem_wait.c) pthread_testcancel, one attempt
 *    to take a token (__new_sem_wait_fast), then the slow path, which
 *    registers as a waiter and tries again before each sleep. Ours is
 *    pthread_testcancel, sem_trywait (the same attempt, made definitive:
 *    it never fails while a token is there), then glibc's sem_wait whole.
 *    A token present is taken by the first attempt in both; an empty
 *    semaphore reaches the same slow path, one more (failed) attempt
 *    later. sem_trywait never blocks, sleeps or returns EINTR, so EINTR,
 *    ETIMEDOUT and the wake-up are all glibc's wait's own.
 *  - cancellation: sem_wait and sem_timedwait act on a pending
 *    cancellation even when a token is there (POSIX "shall occur"; glibc
 *    tests it before its first attempt). Taking the token with
 *    sem_trywait, which is no cancellation point, would return 0 where
 *    glibc cancels the thread: so pthread_testcancel comes first, as in
 *    glibc. glibc 2.36's sem_clockwait does not test it (it takes an
 *    available token under a pending cancellation), so ours does not
 *    either: the pass-through is glibc, whatever glibc does.
 *  - the argument checks come first: glibc's sem_timedwait returns EINVAL
 *    for a tv_nsec outside [0, 1e9) even with a token available, and
 *    sem_clockwait also for a clock other than CLOCK_MONOTONIC and
 *    CLOCK_REALTIME, before its first attempt (sem_timedwait.c,
 *    sem_clockwait.c): a sem_trywait first would take the token instead.
 *    So a call with such arguments (or a NULL deadline) skips the first
 *    attempt and goes to glibc as it is, errors in glibc's order; it is
 *    counted, never as blocked. With valid arguments glibc checks nothing
 *    before its first attempt, and a deadline already past does not stop
 *    it: a token is taken, as sem_trywait takes it.
 *  - errno is left as the program had it when the first attempt succeeds,
 *    and restored before glibc's wait otherwise (EAGAIN was ours).
 * "Blocked" so means found empty: a wait that then got a token posted
 * before its own sleep, or a timed wait whose deadline had passed, is
 * counted too. Designs' waits are their own code under the waiting policy
 * (fl_wait): no first attempt of the counting's there (it would change the
 * design measured, e.g. a FIFO handoff, beyond what FUTEXLAB_POLICY asked),
 * blocked=-. */
static bool first_try(sem_t *s, bool cancel_point)
{
	int e = errno;
	if (cancel_point)
		pthread_testcancel();
	if (real_trywait(s) == 0)
		return true;
	if (errno == EAGAIN)
		count(K_BLOCKED);
	errno = e;
	return false;
}

static bool nsec_valid(const struct timespec *abs) /* glibc's valid_nanoseconds */
{
	return abs && abs->tv_nsec >= 0 && abs->tv_nsec < 1000000000;
}

static int timed_result(int r)
{
	if (r == -1 && errno == ETIMEDOUT)
		count(K_TIMEOUTS);
	return r;
}

static int design_wait(const struct fl_variant *o, sem_t *s)
{
	int r = fl_wait(o, s);
	return r ? fail(r) : 0;
}

/* Out of line: the calls without FUTEXLAB_STATS carry none of this. */
__attribute__((noinline)) static int counted_wait(sem_t *s)
{
	count(K_WAIT);
	const struct fl_variant *o = owner(s);
	if (o)
		return design_wait(o, s);
	if (state == FL_SHIM_PASS && first_try(s, true))
		return 0;
	return real_wait(s);
}

EXPORT int sem_wait(sem_t *s)
{
	start();
	if (__builtin_expect(stats, 0))
		return counted_wait(s);
	const struct fl_variant *o = owner(s);
	if (!o)
		return real_wait(s);
	return design_wait(o, s);
}

EXPORT int sem_trywait(sem_t *s)
{
	start();
	if (__builtin_expect(stats, 0))
		count(K_TRYWAIT);
	const struct fl_variant *o = owner(s);
	if (!o)
		return real_trywait(s);
	int r = o->trywait(s);
	return r ? fail(r) : 0;
}

/* An absolute deadline on `clock`, on the variant's CLOCK_MONOTONIC. */
static int wait_on_clock(const struct fl_variant *o, sem_t *s, clockid_t clock,
			 const struct timespec *abs)
{
	if (clock == CLOCK_MONOTONIC || !fl_ts_valid(abs)) {
		/* (a malformed deadline is passed as is: the variant takes an
		 * available token, else reports EINVAL) */
		int r = fl_timedwait(o, s, abs);
		return r ? fail(r) : 0;
	}
	for (;;) {
		struct timespec now_c, mono;
		clock_gettime(clock, &now_c);
		mono = fl_ts_add_ns(fl_now(), fl_ts_diff_ns(abs, &now_c));
		int r = fl_timedwait(o, s, &mono);
		if (r != ETIMEDOUT)
			return r ? fail(r) : 0;
		clock_gettime(clock, &now_c);
		if (fl_ts_cmp(&now_c, abs) >= 0)
			return fail(ETIMEDOUT);
		/* the clock was set back: its deadline has not come yet */
	}
}

static int design_clockwait(const struct fl_variant *o, sem_t *s, clockid_t clock,
			    const struct timespec *abs)
{
	if (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME)
		return fail(EINVAL); /* glibc accepts these two only */
	return wait_on_clock(o, s, clock, abs);
}

__attribute__((noinline)) static int counted_timedwait(sem_t *s, const struct timespec *abs)
{
	count(K_TIMEDWAIT);
	const struct fl_variant *o = owner(s);
	if (o)
		return timed_result(wait_on_clock(o, s, CLOCK_REALTIME, abs));
	if (state == FL_SHIM_PASS && nsec_valid(abs) && first_try(s, true))
		return 0;
	return timed_result(real_timedwait(s, abs));
}

EXPORT int sem_timedwait(sem_t *s, const struct timespec *abs)
{
	start();
	if (__builtin_expect(stats, 0))
		return counted_timedwait(s, abs);
	const struct fl_variant *o = owner(s);
	if (!o)
		return real_timedwait(s, abs);
	return wait_on_clock(o, s, CLOCK_REALTIME, abs);
}

__attribute__((noinline)) static int counted_clockwait(sem_t *s, clockid_t clock,
							const struct timespec *abs)
{
	count(K_CLOCKWAIT);
	const struct fl_variant *o = owner(s);
	if (o)
		return timed_result(design_clockwait(o, s, clock, abs));
	if (state == FL_SHIM_PASS && (clock == CLOCK_MONOTONIC || clock == CLOCK_REALTIME) &&
	    nsec_valid(abs) && first_try(s, false))
		return 0;
	return timed_result(real_clockwait(s, clock, abs));
}

EXPORT int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *abs)
{
	start();
	if (__builtin_expect(stats, 0))
		return counted_clockwait(s, clock, abs);
	const struct fl_variant *o = owner(s);
	if (!o)
		return real_clockwait(s, clock, abs);
	return design_clockwait(o, s, clock, abs);
}

EXPORT int sem_getvalue(sem_t *restrict s, int *restrict value)
{
	start();
	const struct fl_variant *o = owner(s);
	if (!o)
		return real_getvalue(s, value);
	*value = o->getvalue(s);
	return 0;
}

/* ---- named semaphores on the design ---------------------------------------
 * sem_open and sem_close put a named semaphore on the design, in the file
 * glibc uses for it, /dev/shm/sem.NAME, under glibc's name rules (leading
 * slashes skipped; then not empty, no '/', at most NAME_MAX bytes: else
 * EINVAL; a NAME the file system finds too long, "sem.NAME" past NAME_MAX,
 * is open's ENAMETOOLONG: tests/shim/namedprog.c compares the answers). So a name is the same object in every process,
 * under any design, the pass-through or plain glibc, and glibc's
 * sem_unlink removes it: it is not interposed (it only unlinks that path).
 *
 * Created as glibc creates it: the semaphore's bytes (the design's state,
 * initialised process-shared, and the tag) are written whole into a
 * temporary file, which is mapped and then link()ed to the name. Nobody can
 * open the name and find a file without its full contents (a short file
 * would read as untagged, i.e. glibc's, and then its design's state as
 * glibc's); and O_CREAT|O_EXCL is atomic: link() fails with EEXIST when the
 * name exists, so of racing creators exactly one wins, and without O_EXCL
 * the others open the winner's file (glibc's loop, too).
 *
 * Opened, the file's tag says who serves it, as for an unnamed semaphore: a
 * file that glibc created (a process without the shim, or under the
 * pass-through) stays glibc's, whoever maps it.
 *
 * A second sem_open of the same file in a process returns the same address
 * (POSIX): a per-process table of the mappings keyed by the file's (dev,
 * ino), with a reference count; sem_close unmaps at zero; an address not
 * in it is glibc's (real sem_close: EINVAL for a stray one). The table is
 * under a mutex, taken around fork by the pthread_atfork handlers (read_env)
 * so a child never inherits it locked; the mappings are inherited by a fork
 * child, so the table stays true there.
 *
 * Every named semaphore is glibc's (real sem_open/sem_close) when the
 * unnamed ones are (V NULL), and when the design cannot be process-shared
 * (its init with pshared=1 is ENOTSUP, as for sem_init's hand-over): there
 * the whole process's named semaphores go to glibc, never some of them, so
 * a name opened twice is one address in one table. An initial value above
 * the design's value_max (up to SEM_VALUE_MAX) is written as glibc's bytes
 * (glibc's sem_init, process-shared, untagged): glibc's, in the table. */
#define SEM_DIR "/dev/shm/"
#define SEM_PATH_MAX (sizeof SEM_DIR "sem." + NAME_MAX) /* a NAME of NAME_MAX fits */

struct named_map {
	dev_t dev;
	ino_t ino;
	sem_t *sem;
	long refs;
};
static struct named_map *named_tab;
static size_t named_n, named_cap;
static pthread_mutex_t named_lock = PTHREAD_MUTEX_INITIALIZER;
static int named_to_glibc = -1; /* -1: not asked yet; under named_lock */

static void named_prepare(void)
{
	pthread_mutex_lock(&named_lock);
}

static void named_release(void)
{
	pthread_mutex_unlock(&named_lock);
}

/* "/dev/shm/sem.NAME" into path; false (EINVAL) when NAME breaks the rules. */
static bool sem_path(const char *name, char path[SEM_PATH_MAX])
{
	while (*name == '/')
		name++;
	size_t n = strlen(name);
	if (n == 0 || n > NAME_MAX || memchr(name, '/', n))
		return false;
	snprintf(path, SEM_PATH_MAX, "%ssem.%s", SEM_DIR, name);
	return true;
}

/* Whether this process's named semaphores go to glibc (asked once). */
static bool named_glibc(void)
{
	if (!V)
		return true;
	pthread_mutex_lock(&named_lock);
	if (named_to_glibc < 0) {
		sem_t probe;
		int r = V->init(&probe, 0, 1);
		if (r == 0)
			V->destroy(&probe);
		named_to_glibc = r == ENOTSUP;
		if (named_to_glibc)
			say("variant %s cannot be process-shared: named semaphores stay glibc's",
			    V->name);
	}
	bool g = named_to_glibc;
	pthread_mutex_unlock(&named_lock);
	return g;
}

/* The address of the file fd in this process: an entry's (one more
 * reference), else `mapped` (already fd's mapping), else a new mapping.
 * SEM_FAILED with errno on failure; `mapped` is unmapped unless returned. */
static sem_t *named_add(int fd, sem_t *mapped)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return SEM_FAILED;
	sem_t *r = SEM_FAILED;
	pthread_mutex_lock(&named_lock);
	for (size_t i = 0; i < named_n; i++)
		if (named_tab[i].dev == st.st_dev && named_tab[i].ino == st.st_ino) {
			named_tab[i].refs++;
			r = named_tab[i].sem;
			goto out;
		}
	if (named_n == named_cap) {
		size_t cap = named_cap ? 2 * named_cap : 16;
		struct named_map *t = realloc(named_tab, cap * sizeof *t);
		if (!t)
			goto out; /* ENOMEM */
		named_tab = t, named_cap = cap;
	}
	if (!mapped) {
		void *m = mmap(NULL, sizeof(sem_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			goto out;
		mapped = m;
	}
	named_tab[named_n++] = (struct named_map){ st.st_dev, st.st_ino, mapped, 1 };
	r = mapped;
	mapped = NULL;
out:
	pthread_mutex_unlock(&named_lock);
	if (mapped)
		munmap(mapped, sizeof(sem_t));
	return r;
}

/* The bytes of a new named semaphore of `value`: the design's, tagged; or
 * glibc's above the design's value_max. 0, or an errno. */
static int named_bytes(sem_t *s, unsigned value, bool *ours)
{
	memset(s, 0, sizeof *s);
	int r = V->init(s, value, 1);
	if (r == 0) {
		tag_set(s, V);
		*ours = true;
		return 0;
	}
	if (r != EINVAL) /* (ENOTSUP: named_glibc said otherwise) */
		return r;
	say("sem_open: value %u above variant %s's value_max: handed to glibc", value, V->name);
	*ours = false;
	atomic_fetch_add_explicit(&n_handed, 1, memory_order_relaxed);
	return real_init(s, 1, value) ? errno : 0;
}

/* A temporary file in SEM_DIR holding s's bytes, its name in tmp. -1 with
 * errno (EAGAIN after 100 names taken, as glibc after its retries). */
static int named_temp(const sem_t *s, mode_t mode, char tmp[SEM_PATH_MAX])
{
	static _Atomic unsigned seq;
	int fd = -1;
	for (int i = 0; i < 100 && fd < 0; i++) {
		snprintf(tmp, SEM_PATH_MAX, "%sfutexlab-sem.%d.%u", SEM_DIR, (int)getpid(),
			 atomic_fetch_add(&seq, 1));
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	if (fd < 0)
		return fail(EAGAIN);
	ssize_t w;
	do
		w = write(fd, s, sizeof *s);
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)sizeof *s) {
		int e = w < 0 ? errno : ENOSPC;
		close(fd);
		unlink(tmp);
		return fail(e);
	}
	return fd;
}

/* Create `path` holding a new semaphore: its address, or SEM_FAILED with
 * errno (EEXIST: the name exists; the caller decides). */
static sem_t *named_create(const char *path, mode_t mode, unsigned value, bool *ours)
{
	if (value > SEM_VALUE_MAX) {
		errno = EINVAL;
		return SEM_FAILED;
	}
	sem_t s;
	int e = named_bytes(&s, value, ours);
	if (e) {
		errno = e;
		return SEM_FAILED;
	}
	char tmp[SEM_PATH_MAX];
	int fd = named_temp(&s, mode, tmp);
	if (fd < 0)
		return SEM_FAILED;
	sem_t *r = SEM_FAILED;
	void *m = mmap(NULL, sizeof(sem_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m != MAP_FAILED) {
		if (link(tmp, path) == 0)
			r = named_add(fd, m); /* a new file: a new entry */
		else
			munmap(m, sizeof(sem_t));
	}
	e = errno;
	unlink(tmp);
	close(fd);
	errno = e;
	return r;
}

/* An existing `path`, mapped (or this process's mapping of it). */
static sem_t *named_existing(const char *path, bool *ours)
{
	int fd;
	do
		fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return SEM_FAILED;
	sem_t *r = named_add(fd, NULL);
	int e = errno;
	close(fd);
	errno = e;
	*ours = r != SEM_FAILED && owner(r) != NULL;
	return r;
}

/* sem_open on the design: glibc's order. Without O_EXCL an existing name
 * is opened first; missing and O_CREAT, it is created; a creation that
 * loses the race to another creator (link's EEXIST) opens the winner's
 * file, unless O_EXCL (then EEXIST). */
static sem_t *named_open(const char *name, int oflag, mode_t mode, unsigned value)
{
	char path[SEM_PATH_MAX];
	if (!sem_path(name, path)) {
		errno = EINVAL;
		return SEM_FAILED;
	}
	bool ours = false;
	sem_t *r = SEM_FAILED;
	for (int tries = 0; tries < 100; tries++) {
		if (!(oflag & O_CREAT) || !(oflag & O_EXCL)) {
			r = named_existing(path, &ours);
			if (r != SEM_FAILED || !(oflag & O_CREAT) || errno != ENOENT)
				break;
		}
		r = named_create(path, mode, value, &ours);
		if (r != SEM_FAILED || errno != EEXIST || (oflag & O_EXCL))
			break;
	}
	if (r != SEM_FAILED && ours)
		atomic_fetch_add_explicit(&n_ours, 1, memory_order_relaxed);
	return r;
}

EXPORT sem_t *sem_open(const char *name, int oflag, ...)
{
	start();
	mode_t mode = 0;
	unsigned value = 0;
	if (oflag & O_CREAT) {
		va_list ap;
		va_start(ap, oflag);
		mode = va_arg(ap, mode_t);
		value = va_arg(ap, unsigned);
		va_end(ap);
	}
	sem_t *r;
	if (named_glibc()) {
		r = oflag & O_CREAT ? real_open(name, oflag, mode, value) : real_open(name, oflag);
	} else {
		/* open and write are cancellation points; sem_open is not
		 * (glibc disables cancellation around them too) */
		int cs;
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
		r = named_open(name, oflag, mode, value);
		int e = errno;
		pthread_setcancelstate(cs, NULL);
		errno = e;
	}
	if (r != SEM_FAILED) {
		atomic_fetch_add_explicit(&n_named, 1, memory_order_relaxed);
		say("sem_open(%s) = %p: named, %s's", name, (void *)r,
		    owner(r) ? owner(r)->name : "glibc");
	}
	return r;
}

EXPORT int sem_close(sem_t *s)
{
	start();
	pthread_mutex_lock(&named_lock);
	size_t i = 0;
	while (i < named_n && named_tab[i].sem != s)
		i++;
	if (i == named_n) {
		pthread_mutex_unlock(&named_lock);
		return real_close(s); /* glibc's, or EINVAL */
	}
	bool last = --named_tab[i].refs == 0;
	if (last)
		named_tab[i] = named_tab[--named_n];
	pthread_mutex_unlock(&named_lock);
	if (last)
		munmap(s, sizeof(sem_t));
	return 0;
}
