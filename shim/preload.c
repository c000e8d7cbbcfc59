/* shim/preload.c — libfutexlab-preload.so: run an unmodified program's
 * POSIX semaphores on any futexlab design.
 *
 *   FUTEXLAB_VARIANT=split LD_PRELOAD=build/shim/libfutexlab-preload.so prog
 *
 * Interposes sem_init, sem_destroy, sem_wait, sem_trywait, sem_timedwait,
 * sem_clockwait, sem_post and sem_getvalue. A semaphore sem_init creates
 * lives in the caller's sem_t, in the layout of the variant named by
 * FUTEXLAB_VARIANT (default negcount); every variant's state fits in a
 * sem_t, which FL_VARIANT asserts at build time (variants/variant.h), and
 * the shim checks the alignment when it starts.
 *
 * Semaphores that stay glibc's ("libc-owned"):
 *   - named ones: sem_open/sem_close are interposed only to record the
 *     addresses glibc returns (with a reference count: glibc hands out one
 *     mapping per name and process), so every call on them passes through
 *     to glibc untouched;
 *   - process-shared ones (pshared=1) of a variant whose init refuses them
 *     (ENOTSUP: its state is not self-contained in the sem_t), and initial
 *     values above the variant's value_max but within SEM_VALUE_MAX: glibc
 *     initialises them, and FUTEXLAB_DEBUG=1 says so on stderr.
 *   The set is inherited across fork (it is process memory), so a parent
 *   and child that share a sem_t agree on who owns it. Processes that meet
 *   a process-shared semaphore without a common ancestor that created it
 *   cannot tell (the variant's state leaves no room for a tag in the sem_t):
 *   a documented limit.
 *   FUTEXLAB_VARIANT=posix passes everything through (that variant is
 *   glibc's sem_t; calling it from here would call back into the shim), and
 *   so does a capped variant (FL_CAPPED: its post absorbs releases past the
 *   capacity, which sem_post may not), saying so on stderr.
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

static void set_prepare(void);
static void set_after(void);

static void shim_setup(void)
{
	pthread_atfork(set_prepare, set_after, set_after);
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
	const char *d = getenv("FUTEXLAB_DEBUG");
	debug = d && *d && strcmp(d, "0") != 0;
	const char *name = getenv("FUTEXLAB_VARIANT");
	if (!name || !*name)
		name = "negcount";
	const struct fl_variant *v = fl_variant_find(name);
	if (!v) {
		fprintf(stderr, "futexlab-preload: unknown variant '%s' (futexlab list)\n", name);
		_exit(2);
	}
	const char *why = v->unavailable ? v->unavailable() : NULL;
	if (why) {
		fprintf(stderr, "futexlab-preload: variant %s skipped: %s; semaphores stay glibc's\n",
			name, why);
		return;
	}
	if (v->size > sizeof(sem_t) || v->align > alignof(sem_t)) {
		fprintf(stderr, "futexlab-preload: variant %s does not fit a sem_t; semaphores "
			"stay glibc's\n", name);
		return;
	}
	if (v->flags & FL_CAPPED) {
		/* A capacity, not a count: its post absorbs an over-release and
		 * returns 0, where POSIX's sem_post must count it (or fail with
		 * EOVERFLOW). A program's semaphores cannot run on it. */
		fprintf(stderr, "futexlab-preload: variant %s is capped (post absorbs releases past "
			"%d): not a POSIX semaphore; semaphores stay glibc's\n", name, v->value_max);
		return;
	}
	if (strcmp(v->name, "posix") == 0) {
		say("variant posix: passing every call through to glibc");
		return;
	}
	V = v;
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

/* ---- the libc-owned set ------------------------------------------------
 * An open-addressing table of addresses with reference counts, under a
 * mutex. The count of entries is read first without the lock: a program
 * with no named or handed-over semaphores never takes the lock. The table
 * changes only in sem_init/sem_destroy/sem_open/sem_close, which must not
 * race with other operations on the same semaphore anyway (POSIX). */
#define SET_CAP 1024
static struct { sem_t *p; int refs; } set[SET_CAP];
static _Atomic int set_n;
static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;

/* fork while another thread holds the lock: the child would inherit it
 * held; take it around fork instead. */
static void set_prepare(void)
{
	pthread_mutex_lock(&set_lock);
}

static void set_after(void)
{
	pthread_mutex_unlock(&set_lock);
}

static size_t slot_of(const sem_t *p)
{
	return ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 54; /* 10 bits */
}

static int find_locked(const sem_t *p)
{
	for (size_t i = slot_of(p), k = 0; k < SET_CAP; k++, i = (i + 1) % SET_CAP) {
		if (set[i].p == p)
			return (int)i;
		if (!set[i].p)
			return -1;
	}
	return -1;
}

static bool libc_owned(const sem_t *p)
{
	if (atomic_load_explicit(&set_n, memory_order_acquire) == 0)
		return false;
	pthread_mutex_lock(&set_lock);
	bool r = find_locked(p) >= 0;
	pthread_mutex_unlock(&set_lock);
	return r;
}

static bool set_add(sem_t *p)
{
	pthread_mutex_lock(&set_lock);
	int i = find_locked(p);
	if (i >= 0) {
		set[i].refs++;
	} else {
		if (atomic_load(&set_n) >= SET_CAP * 3 / 4) {
			pthread_mutex_unlock(&set_lock);
			return false;
		}
		size_t j = slot_of(p);
		while (set[j].p)
			j = (j + 1) % SET_CAP;
		set[j].p = p, set[j].refs = 1;
		atomic_fetch_add_explicit(&set_n, 1, memory_order_release);
	}
	pthread_mutex_unlock(&set_lock);
	return true;
}

/* Drops one reference (all with `all`); rehashes the run after the hole. */
static void set_del(sem_t *p, bool all)
{
	pthread_mutex_lock(&set_lock);
	int i = find_locked(p);
	if (i >= 0 && (all || --set[i].refs <= 0)) {
		set[i].p = NULL;
		atomic_fetch_sub_explicit(&set_n, 1, memory_order_release);
		for (size_t j = ((size_t)i + 1) % SET_CAP; set[j].p; j = (j + 1) % SET_CAP) {
			sem_t *q = set[j].p;
			int refs = set[j].refs;
			set[j].p = NULL;
			size_t k = slot_of(q);
			while (set[k].p)
				k = (k + 1) % SET_CAP;
			set[k].p = q, set[k].refs = refs;
		}
	}
	pthread_mutex_unlock(&set_lock);
}

static bool ours(const sem_t *s)
{
	return V && !libc_owned(s);
}

static int fail(int e)
{
	errno = e;
	return -1;
}

/* ---- the interface ----------------------------------------------------- */

EXPORT int sem_init(sem_t *s, int pshared, unsigned value)
{
	start();
	if (!V)
		return real_init(s, pshared, value);
	if (value > SEM_VALUE_MAX)
		return fail(EINVAL);
	set_del(s, true); /* the address may have been a libc-owned semaphore */
	int r = V->init(s, value, pshared);
	if (r == 0) {
		atomic_fetch_add_explicit(&n_ours, 1, memory_order_relaxed);
		return 0;
	}
	if (r == ENOTSUP || r == EINVAL) {
		say("sem_init(%p, pshared=%d, %u): variant %s cannot (%s): handed to glibc",
		    (void *)s, pshared, value, V->name,
		    r == ENOTSUP ? "no process-shared state" : "value above its value_max");
		if (!set_add(s))
			return fail(ENOMEM);
		if (real_init(s, pshared, value) != 0) {
			int e = errno;
			set_del(s, true);
			return fail(e);
		}
		atomic_fetch_add_explicit(&n_handed, 1, memory_order_relaxed);
		return 0;
	}
	return fail(r);
}

EXPORT int sem_destroy(sem_t *s)
{
	start();
	if (!ours(s)) {
		int r = real_destroy(s);
		if (V)
			set_del(s, true);
		return r;
	}
	V->destroy(s);
	return 0;
}

EXPORT int sem_post(sem_t *s)
{
	start();
	if (!ours(s))
		return real_post(s);
	int r = V->post(s, 1);
	return r ? fail(r) : 0;
}

EXPORT int sem_wait(sem_t *s)
{
	start();
	if (!ours(s))
		return real_wait(s);
	int r = V->wait(s);
	return r ? fail(r) : 0;
}

EXPORT int sem_trywait(sem_t *s)
{
	start();
	if (!ours(s))
		return real_trywait(s);
	int r = V->trywait(s);
	return r ? fail(r) : 0;
}

/* An absolute deadline on `clock`, on the variant's CLOCK_MONOTONIC. */
static int wait_on_clock(sem_t *s, clockid_t clock, const struct timespec *abs)
{
	if (clock == CLOCK_MONOTONIC || !fl_ts_valid(abs)) {
		/* (a malformed deadline is passed as is: the variant takes an
		 * available token, else reports EINVAL) */
		int r = V->timedwait(s, abs);
		return r ? fail(r) : 0;
	}
	for (;;) {
		struct timespec now_c, mono;
		clock_gettime(clock, &now_c);
		mono = fl_ts_add_ns(fl_now(), fl_ts_diff_ns(abs, &now_c));
		int r = V->timedwait(s, &mono);
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
	if (!ours(s))
		return real_timedwait(s, abs);
	return wait_on_clock(s, CLOCK_REALTIME, abs);
}

EXPORT int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *abs)
{
	start();
	if (!ours(s))
		return real_clockwait(s, clock, abs);
	if (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME)
		return fail(EINVAL); /* glibc accepts these two only */
	return wait_on_clock(s, clock, abs);
}

EXPORT int sem_getvalue(sem_t *restrict s, int *restrict value)
{
	start();
	if (!ours(s))
		return real_getvalue(s, value);
	*value = V->getvalue(s);
	return 0;
}

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
	if (r != SEM_FAILED && V && !set_add(r)) {
		real_close(r);
		errno = ENOMEM;
		return SEM_FAILED;
	}
	if (r != SEM_FAILED)
		atomic_fetch_add_explicit(&n_named, 1, memory_order_relaxed);
	if (r != SEM_FAILED)
		say("sem_open(%s) = %p: named, stays glibc's", name, (void *)r);
	return r;
}

EXPORT int sem_close(sem_t *s)
{
	start();
	if (V)
		set_del(s, false);
	return real_close(s);
}
