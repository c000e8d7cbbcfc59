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
 *   Every semaphore is glibc's when FUTEXLAB_VARIANT=posix (that variant is
 *   glibc's sem_t), when the variant is capped (FL_CAPPED: its post absorbs
 *   releases past the capacity, which sem_post may not), and when it breaks
 *   a POSIX promise (FL_DESTROY_UNSAFE, FL_SIGNAL_UNSAFE, FL_NO_EINTR) that
 *   FUTEXLAB_ALLOW (a comma list of destroy, signal, eintr, all) does not
 *   accept: refused, with a line on stderr under FUTEXLAB_DEBUG=1 only.
 *
 * POSIX error semantics: -1 with errno: EINVAL (bad tv_nsec when the
 * semaphore is empty, an unsupported clock, value > SEM_VALUE_MAX),
 * EOVERFLOW (post past the variant's value_max), EAGAIN (trywait),
 * ETIMEDOUT, EINTR (a signal handler ran; never restarted, as glibc).
 * sem_timedwait's deadline is CLOCK_REALTIME: it is converted to the
 * variant's CLOCK_MONOTONIC with saturating arithmetic, and when the
 * converted deadline passes the realtime clock is read again, so a clock
 * set backwards extends the wait as POSIX requires (a clock set forwards
 * is noticed only at the converted deadline). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "env.h"
#include "variant.h"

#define EXPORT __attribute__((visibility("default")))

static const struct fl_variant *V; /* NULL: everything goes to libc */
static int debug;
static _Atomic long n_ours, n_handed, n_named; /* reported at exit when debugging */

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

static void say(const char *fmt, ...)
{
	if (!debug)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("futexlab-preload: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void *sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p) {
		fprintf(stderr, "futexlab-preload: libc has no %s\n", name);
		_exit(2);
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
 * case of issue 17: a child that execs has none of its parent's memory, and
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
static const char *unfit(const struct fl_variant *v)
{
	const char *why = v->unavailable ? v->unavailable() : NULL;
	if (why)
		return why;
	if (v->size > FL_TAG_OFF || v->align > alignof(sem_t))
		return "its state does not fit a sem_t before the shim's tag";
	return NULL;
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

static void shim_setup(void)
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
	for (int i = 0; i < fl_nvariants && n_usable < (int)(sizeof usable / sizeof usable[0]); i++)
		if (!unfit(fl_variants[i]) && !(fl_variants[i]->flags & FL_CAPPED) &&
		    strcmp(fl_variants[i]->name, "posix") != 0)
			usable[n_usable].hash = name_hash(fl_variants[i]->name),
			usable[n_usable++].v = fl_variants[i];
	/* FUTEXLAB_VARIANT, FUTEXLAB_DEBUG, FUTEXLAB_ALLOW: shim/env.h. */
	static struct fl_shim_env env; /* 4 KiB: not on a caller's stack */
	char err[200];
	const struct fl_shim_vars vars = {
		.variant = getenv("FUTEXLAB_VARIANT"),
		.debug = getenv("FUTEXLAB_DEBUG"),
		.allow = getenv("FUTEXLAB_ALLOW"),
	};
	if (fl_shim_env_parse(&vars, &env, err, sizeof err)) {
		fprintf(stderr, "futexlab-preload: %s\n", err);
		_exit(2);
	}
	debug = env.debug;
	unsigned allow = env.allow;
	const char *name = env.variant;
	const struct fl_variant *v = fl_variant_find(name);
	if (!v) {
		fprintf(stderr, "futexlab-preload: unknown variant '%s' (futexlab list)\n", name);
		_exit(2);
	}
	if (strcmp(v->name, "posix") == 0) {
		say("variant posix: passing every call through to glibc");
		return;
	}
	/* Refusals are silent unless FUTEXLAB_DEBUG: the program's stderr is
	 * the program's (a test that checks a child's stderr is empty must not
	 * fail because of the shim). */
	const char *why = unfit(v);
	if (why) {
		say("variant %s skipped: %s; semaphores stay glibc's", name, why);
		return;
	}
	if (v->flags & FL_CAPPED) {
		/* A capacity, not a count: its post absorbs an over-release and
		 * returns 0, where POSIX's sem_post must count it (or fail with
		 * EOVERFLOW). A program's semaphores cannot run on it. */
		say("variant %s is capped (post absorbs releases past %d): not a POSIX "
		    "semaphore; semaphores stay glibc's", name, v->value_max);
		return;
	}
	unsigned breaks = v->flags & (FL_DESTROY_UNSAFE | FL_SIGNAL_UNSAFE | FL_NO_EINTR);
	if (breaks & ~allow) {
		/* A design that would crash or hang a correct program is not run
		 * under it unless the user opts in (issue 17). */
		char buf[200];
		say("variant %s refused: it breaks %s- semaphores stay glibc's "
		    "(FUTEXLAB_ALLOW=all runs it anyway)", name, broken(breaks & ~allow, buf, sizeof buf));
		return;
	}
	V = v;
	v_hash = name_hash(v->name);
	say("unnamed semaphores use variant %s", v->name);
}

/* Set up once, at load or at the first call, whichever comes first: another
 * library's constructor may call sem_init before this one's has run. */
static pthread_once_t started = PTHREAD_ONCE_INIT;

static inline void start(void)
{
	pthread_once(&started, shim_setup);
}

__attribute__((constructor)) static void shim_start(void)
{
	start();
}

__attribute__((destructor)) static void shim_end(void)
{
	if (V)
		say("pid %d: %ld semaphores initialised on %s, %ld handed to glibc, %ld named opens",
		    (int)getpid(), atomic_load(&n_ours), V->name, atomic_load(&n_handed),
		    atomic_load(&n_named));
}

/* ---- the interface ----------------------------------------------------- */

EXPORT int sem_init(sem_t *s, int pshared, unsigned value)
{
	start();
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
 * not are refused above unless allowed): owner() only loads. */
EXPORT int sem_post(sem_t *s)
{
	start();
	const struct fl_variant *o = owner(s);
	if (!o)
		return real_post(s);
	int r = o->post(s, 1);
	return r ? fail(r) : 0;
}

EXPORT int sem_wait(sem_t *s)
{
	start();
	const struct fl_variant *o = owner(s);
	if (!o)
		return real_wait(s);
	int r = o->wait(s);
	return r ? fail(r) : 0;
}

EXPORT int sem_trywait(sem_t *s)
{
	start();
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
		int r = o->timedwait(s, abs);
		return r ? fail(r) : 0;
	}
	for (;;) {
		struct timespec now_c, mono;
		clock_gettime(clock, &now_c);
		mono = fl_ts_add_ns(fl_now(), fl_ts_diff_ns(abs, &now_c));
		int r = o->timedwait(s, &mono);
		if (r != ETIMEDOUT)
			return r ? fail(r) : 0;
		clock_gettime(clock, &now_c);
		if (fl_ts_cmp(&now_c, abs) >= 0)
			return fail(ETIMEDOUT);
		/* the clock was set back: its deadline has not come yet */
	}
}

EXPORT int sem_timedwait(sem_t *s, const struct timespec *abs)
{
	start();
	const struct fl_variant *o = owner(s);
	if (!o)
		return real_timedwait(s, abs);
	return wait_on_clock(o, s, CLOCK_REALTIME, abs);
}

EXPORT int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *abs)
{
	start();
	const struct fl_variant *o = owner(s);
	if (!o)
		return real_clockwait(s, clock, abs);
	if (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME)
		return fail(EINVAL); /* glibc accepts these two only */
	return wait_on_clock(o, s, clock, abs);
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

/* Named semaphores are glibc's (untagged: above); these two only count. */
EXPORT sem_t *sem_open(const char *name, int oflag, ...)
{
	start();
	sem_t *r;
	if (oflag & O_CREAT) {
		va_list ap;
		va_start(ap, oflag);
		mode_t mode = va_arg(ap, mode_t);
		unsigned value = va_arg(ap, unsigned);
		va_end(ap);
		r = real_open(name, oflag, mode, value);
	} else {
		r = real_open(name, oflag);
	}
	if (r != SEM_FAILED) {
		atomic_fetch_add_explicit(&n_named, 1, memory_order_relaxed);
		say("sem_open(%s) = %p: named, stays glibc's", name, (void *)r);
	}
	return r;
}

EXPORT int sem_close(sem_t *s)
{
	start();
	return real_close(s);
}
