/* variants/variant.h — the one interface every semaphore design implements.
 *
 * A variant is a descriptor of function pointers over an opaque, caller-
 * allocated state of `size` bytes aligned to `align`.  Designs are compared
 * through this table only, so the harness, the tests and the preload shim
 * never know which design they drive.
 *
 * Semantics (POSIX sem_t's, with errno values returned instead of -1):
 *   init(s, value, pshared)  0; EINVAL if value > value_max; ENOTSUP if
 *                            pshared and the design keeps state outside s.
 *                            A pshared state is self-contained in its bytes:
 *                            no process-local pointer (another process, or
 *                            this one after exec, maps it elsewhere).
 *   destroy(s)               releases nothing the caller owns; s may be freed
 *                            right after (no waiter may remain) — and freed or
 *                            unmapped as soon as the last wait returns, even
 *                            while the post that woke it has not returned
 *                            (unless FL_DESTROY_UNSAFE): post reads all it
 *                            needs before the RMW that publishes the token.
 *   post(s, n)               adds n >= 1 tokens: 0, or EOVERFLOW with the
 *                            value unchanged. Wakes waiters it owes a token.
 *                            Async-signal-safe (unless FL_SIGNAL_UNSAFE): a
 *                            handler may post while its own thread is inside
 *                            any operation on the same semaphore.
 *   wait(s)                  takes a token: 0, or EINTR when a signal handler
 *                            interrupted the sleep (no token taken; unless
 *                            FL_NO_EINTR).
 *   trywait(s)               0, or EAGAIN without sleeping.
 *   timedwait(s, abs)        as wait, until an absolute CLOCK_MONOTONIC
 *                            deadline: 0, ETIMEDOUT, EINTR, or EINVAL if
 *                            abs->tv_nsec is out of range and no token is
 *                            available.  A token that is available is taken
 *                            even when the deadline has passed.
 *   getvalue(s)              tokens available now (>= 0; a design that counts
 *                            waiters never reports them as negative value).
 *   words(s, out, max)       the 32-bit words waiters may sleep on, for the
 *                            torture test's spurious-wake injector; returns
 *                            how many (0 if waiters do not sleep on s).
 *   unavailable()            NULL when the running kernel/build supports the
 *                            design, else a one-line reason it is skipped.
 *
 * A spurious return from the kernel must never surface as a token: every
 * wait loops on the design's own condition. */
#ifndef FUTEXLAB_VARIANT_H
#define FUTEXLAB_VARIANT_H

#ifdef __cplusplus /* variants/cxx_*.cc: the descriptor seen from C++ */
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ctime>
typedef std::atomic<uint32_t> fl_atomic_u32; /* same bytes as _Atomic uint32_t */
extern "C" {
#else
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
typedef _Atomic uint32_t fl_atomic_u32;
#endif

/* A design's slow path: the code a post or wait reaches only after its
 * fast path's atomic found no token, or found a sleeper to wake. Kept out
 * of line so that the fast path needs no stack frame. Inlined, the slow
 * path's callee-saved registers were pushed before the fast path's locked
 * RMW, and a locked RMW waits for the stores before it to drain: 1.8-15.7 %
 * of an uncontended post+wait (results/uncontended.md, "The fast paths'
 * frames"). */
#define FL_SLOW_PATH __attribute__((noinline))

/* The largest state any variant may have: glibc's sem_t on x86-64, so that
 * every design can also stand in for sem_t. Checked at build time. */
#define FL_STATE_MAX 32

/* fl_variant.flags */
#define FL_CAPPED 0x1 /* post clamps at value_max and returns 0 (a capacity, as in
		       * lock1, the negative-counter note's lock of one token)
		       * instead of EOVERFLOW */
/* Promises a POSIX program relies on that a design does NOT keep.
 * Each is stated by the design, printed by `futexlab list`, honoured by the
 * shared tests (a documented expected failure, never a silent pass) and
 * enforced by the shim (it refuses the design unless FUTEXLAB_ALLOW opts in). */
#define FL_DESTROY_UNSAFE 0x2 /* post touches s after publishing the token (glibc
		       * BZ 12674's two-word layout): destroying or unmapping
		       * the semaphore as soon as the last wait returns may fault */
#define FL_SIGNAL_UNSAFE 0x4 /* post takes a lock: not async-signal-safe (a
		       * handler posting while its own thread is inside an
		       * operation on the semaphore deadlocks) */
#define FL_NO_EINTR 0x8 /* wait/timedwait sleep where a signal handler cannot
		       * interrupt them: never EINTR (POSIX: "may fail") */
/* What a design built on an API narrower than sem_t's cannot offer (e.g.
 * C++20's std::counting_semaphore). Printed by `futexlab list` beside the
 * promises above; a shared test that needs the missing piece says so and
 * skips that check (or observes through what the design does offer), never
 * passes it silently. */
#define FL_NO_GETVALUE 0x10 /* no way to read the value: getvalue is NULL (tests
		       * count tokens by draining with trywait and posting them
		       * back, only where no other thread acts) */
#define FL_NO_PSHARED 0x20 /* init(pshared) is always ENOTSUP: the design's waits
		       * or wakes are process-private whatever its bytes say */
#define FL_NO_OVERFLOW 0x40 /* post cannot see the value, so it never returns
		       * EOVERFLOW for a value past value_max (only for n >
		       * value_max): posting past value_max is the caller's
		       * error, undefined in the design's own API */
/* A shipped library with a published lost-wakeup bug that the installed
 * version still has (libstdc++ 12, GCC PR 104928; libc++ 14,
 * llvm-project 46357/77659, each sleep bounded by 2 s; musl 1.2.3, the ABA
 * fixed by musl 159d1f6c): a waiter may sleep while tokens are available.
 * The stranded-waiter detector may rightly report it (an `error (lost
 * wakeup)` row is a finding, `futexlab hunt` looks for it); the test that
 * the detector raises no false alarm leaves such a design out. */
#define FL_LOST_WAKEUP 0x80

struct fl_any_ops; /* variants/waitany.h */

struct fl_variant {
	const char *name;
	const char *summary;          /* one line: what is distinctive */
	size_t size, align;
	int value_max;                /* largest value init accepts and post guarantees */
	unsigned flags;               /* FL_CAPPED, ... */
	const char *(*unavailable)(void);
	int (*init)(void *s, unsigned value, int pshared);
	void (*destroy)(void *s);
	int (*post)(void *s, unsigned n);
	int (*wait)(void *s);
	int (*trywait)(void *s);
	int (*timedwait)(void *s, const struct timespec *abs_deadline);
	int (*getvalue)(void *s);
	int (*words)(void *s, fl_atomic_u32 **out, int max);
	/* Optional (NULL: none): wait-any-of-N support, variants/waitany.h. */
	const struct fl_any_ops *any;
	/* Non-NULL: the design cannot run in this process (its library cannot
	 * be loaded into a glibc program: musl-libc) and every op above is NULL
	 * here. It runs only in a helper executable of this name, found beside
	 * the harness's own (proc/helper.h); the harness sends it the rep
	 * and takes its result back as the row. The in-process suites, the
	 * shim and `exec` leave such a design out, with this reason. */
	const char *helper;
	/* Optional (NULL: none declared): where the design's code is in a
	 * process, for `futexlab hunt`'s in-library-text preemption
	 * (hunt/preempt.h; the grammar in hunt/elfsym.h): items
	 * separated by ';', e.g. "dso:libc.so.6" (a shared object's executable
	 * segments), "sym:P1,P2" (the executable's functions named P*),
	 * "src:FILE.c" (the executable's static functions of FILE.c),
	 * "span:libc.so.6:sem_" (from the first to the end of the last
	 * function named sem_* of libc.so.6). A helper-run design's text is read
	 * in its helper. */
	const char *text;
	/* Non-NULL: a shipped library, which waits the way it is built to; the
	 * text says how (printed by `futexlab list`). The waiting policy of
	 * variants/policy.h applies to the other designs only: fl_wait calls
	 * this one's wait directly, and the harness and the shim refuse a
	 * policy for it. */
	const char *own_policy;
	/* Non-NULL: not a design but a performance mutant (below). */
	const struct fl_perf *perf;
	/* Non-zero: the futex2 flags (lib/numa.h: FUTEX2_NUMA, FUTEX2_MPOL)
	 * its waiters sleep with; each word of .words is then the value word
	 * of a FUTEX2_NUMA pair, whose waiters a futex(2) wake never finds
	 * (another hash), so whoever wakes them from outside (the torture and
	 * edge tests' spurious-wake injectors) wakes with these flags. */
	unsigned word_flags;
	/* Optional (NULL: none): n post(1)+wait pairs on s, the design's own
	 * post and wait called directly from a loop compiled with them, the
	 * wait through the waiting policy as fl_wait passes it (v: the
	 * descriptor the policy's out-of-line path runs on), so the compiler
	 * inlines their fast paths as it would in a program built with the
	 * design (FL_PAIRS, variants/policy.h): 0, or the first error. The
	 * uncontended workload runs it as the design's inline form,
	 * NAME-inline (workloads/uncontended.c), beside floor-inline: no
	 * table, no marks. */
	int (*pairs)(const struct fl_variant *v, void *s, int64_t n);
	/* Non-NULL: the library and version the design's code was compiled
	 * against, as the build knows it ("libstdc++ 12 (20230528)"): the CSV's
	 * `# libraries:` line, part of a run's fingerprint. NULL for futexlab's
	 * own designs and glibc's sem_t (the `# libc:` line has the glibc the
	 * process loaded). */
	const char *library;
};

/* A performance mutant (variants/perf_*.c; variants/README.md): a design
 * (the parent) with one known cost added and nothing else changed, a
 * correct semaphore that is slower by construction. It is the ground truth
 * of the ratio table's verdicts: run against its parent as the baseline
 * (scripts/perf-mutants), the table must flag it `slower` at every point
 * it declares, its why line naming the declared count first. It is in the
 * registry's second list (fl_perf_mutants), found by name (fl_variant_find:
 * --variant, --baseline) but never part of "all" or of a suite that
 * iterates the designs; `futexlab list` prints it apart. */
struct fl_perf {
	const char *parent;   /* the design it is, but for the cost */
	const char *cost;     /* the one cost added, one line */
	const char *mimics;   /* the real regression it mimics, cited */
	/* Where it must cost: point names as the table prints them, without
	 * " hash=..." ("uncontended T=1 wake=exact"), ';' between points. */
	const char *points;
	/* The evidence column that must show it, as the evidence block heads
	 * it: cpu ns, csw, waits, wakes, woke 0, EAGAIN, wk/post, resleep,
	 * herd/1k, w2r p50, w2r p99 (model/evidence.c); '|' between
	 * columns when one cost shows in two that both come from none (the
	 * herd: herd/1k|woke 0), either named first. */
	const char *count;
	long long delay_ns;   /* a fixed additive cost per post (0: none) */
};

#ifndef __cplusplus
/* Defines `const struct fl_variant fl_variant_<name>` for a state type T and
 * checks, at build time, that T fits the sem_t-sized budget. */
#define FL_VARIANT_DEF_(vname, T, ...)                                         \
	_Static_assert(sizeof(T) <= FL_STATE_MAX,                               \
		       #vname ": state larger than sem_t");                     \
	const struct fl_variant fl_variant_##vname = {                          \
		.name = #vname, .size = sizeof(T), .align = alignof(T),         \
		__VA_ARGS__ }
/* The mutation run's hook (tests/mutants.md): a design file compiled with
 * FL_MUTANT defined (tests/mutants/make-mutant's generated copy, patched or
 * not) is the variant named FL_MUTANT, fl_variant_<FL_MUTANT>, so that
 * several mutants of one design share a registry. One more level of macro
 * so that FL_MUTANT expands before it is pasted and stringized. Nothing in
 * the product defines FL_MUTANT. */
#define FL_VARIANT_EXP_(vname, T, ...) FL_VARIANT_DEF_(vname, T, __VA_ARGS__)
#ifdef FL_MUTANT
#define FL_VARIANT(vname, T, ...) FL_VARIANT_EXP_(FL_MUTANT, T, __VA_ARGS__)
#else
#define FL_VARIANT(vname, T, ...) FL_VARIANT_DEF_(vname, T, __VA_ARGS__)
#endif
/* The same for a name that is not an identifier ("numa-pin"): the symbol
 * is fl_variant_<cname>, cname being the name with '-' as '_' (what
 * variants/meson.build's registry declares). */
#define FL_VARIANT_AS(cname, vname, T, ...)                                    \
	_Static_assert(sizeof(T) <= FL_STATE_MAX,                               \
		       vname ": state larger than sem_t");                      \
	const struct fl_variant fl_variant_##cname = {                          \
		.name = vname, .size = sizeof(T), .align = alignof(T),          \
		__VA_ARGS__ }
#else
/* The same from C++, for a name that is not an identifier ("cxx-gnu"): the
 * symbol is fl_variant_<cname>, cname being the name with '-' as '_' (what
 * variants/meson.build's registry declares), with C linkage. C++20's
 * designated initializers must follow the declaration order: the summary
 * comes here, the rest (from .value_max on) in the order of the struct;
 * fields left out are zero, as in C. */
#define FL_VARIANT_NAMED(cname, vname, T, vsummary, ...)                       \
	static_assert(sizeof(T) <= FL_STATE_MAX, vname ": state larger than sem_t"); \
	extern "C" const struct fl_variant fl_variant_##cname;                  \
	_Pragma("GCC diagnostic push")                                          \
	_Pragma("GCC diagnostic ignored \"-Wmissing-field-initializers\"")      \
	const struct fl_variant fl_variant_##cname = {                          \
		.name = vname, .summary = vsummary, .size = sizeof(T),          \
		.align = alignof(T), __VA_ARGS__ };                             \
	_Pragma("GCC diagnostic pop")
#endif

/* The registry (generated from variants/meson.build): the designs, then
 * the performance mutants (fl_perf_mutants, each with .perf set). */
extern const struct fl_variant *const fl_variants[];
extern const int fl_nvariants;
extern const struct fl_variant *const fl_perf_mutants[];
extern const int fl_nperf_mutants;
/* By exact name, a design or a performance mutant; a former name
 * (fl_variant_name) finds its design. */
const struct fl_variant *fl_variant_find(const char *name);
/* The current name for a former one ("posix" -> "glibc"), else name itself. */
const char *fl_variant_name(const char *name);
/* Rows made at run time, after the registry's (a library the user built:
 * proc/userlib.h, --lib): found by fl_variant_find, in `all` of --variant,
 * never in fl_variants (the registry, whose suites iterate it). v must
 * outlive the process's use of it. 0; or -1: FL_MAX_ADDED rows already, or
 * the name is taken. */
#define FL_MAX_ADDED 8
int fl_variant_add(const struct fl_variant *v);
extern const struct fl_variant *fl_variants_added[FL_MAX_ADDED];
extern int fl_nvariants_added;

#ifdef __cplusplus
}
#endif
#endif
