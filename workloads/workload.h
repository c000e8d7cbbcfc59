/* workloads/workload.h — what a workload is, for the harness and for the
 * workload files (one a workload; the table is workloads/registry.c).
 *
 * A workload drives semaphores only through the variant interface
 * (variants/variant.h), so every design runs the same code, and checks the
 * invariant it can see, so a broken design shows up as an error row, not as
 * a fast number. This folder includes lib/, variants/ and stranded/ headers
 * only, never the harness's (workloads/README.md). */
#ifndef FUTEXLAB_WORKLOAD_H
#define FUTEXLAB_WORKLOAD_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/clock.h"
#include "schema/result_fields.h"
#include "variants/variant.h"
#include "workloads/hist.h"
#include "workloads/sem.h" /* struct fl_sem and the fl_sem_* wrappers */

struct fl_params {
	int threads;          /* worker threads (pool); fixed for the others */
	int tokens;           /* initial tokens (pool) */
	int sems;             /* independent semaphores the threads spread over
			       * (pool, oversub: thread i uses i % sems); 1 elsewhere */
	int64_t hold_ns;      /* busy work while holding a token (pool) */
	int64_t think_ns;     /* busy work between tokens (pool) */
	int64_t ops;          /* operations per rep; 0: run for duration_ns */
	int64_t duration_ns;
	bool latency;         /* time each blocking op (fl_tstat; --latency) */
	int64_t stranded_ns;  /* the stranded-waiter threshold (stranded/);
			       * 0: detector off */
	/* The hunt's in-library-text preemption (hunt/preempt.h; its
	 * `preempt` pattern only; the hunt's options): */
	int64_t preempt_stall_ns;    /* the stall at an interrupted library
				      * instruction (--stall-us) */
	int64_t preempt_interval_ns; /* a signal per this much of a thread's
				      * CPU time (--interval-us); 0: both are
				      * the preemption's defaults */
	char preempt_text[200];      /* a text spec (hunt/elfsym.h) for every
				      * design instead of its own .text (--text);
				      * "": the design's */
};
/* The harness's default threshold (--stranded-ms 50). */
#define FL_STRANDED_NS_DEFAULT 50000000LL

/* A rep's result: the fields of the one table (result_fields.h: each
 * field's meaning, its wire key, its CSV column), then the latency
 * histogram. */
struct fl_result {
	FL_RESULT_MEMBERS
	struct fl_hist *lat;  /* the blocking op's latency, all threads (malloc'ed; the
				 harness frees it); NULL when not recorded */
};

struct fl_workload {
	const char *name;
	const char *summary;
	const char *op;       /* what one "op" is, for the table */
	int fixed_threads;    /* 0: --threads applies */
	bool uses_tokens;     /* --tokens applies */
	bool busy_work;       /* --hold/--think apply */
	bool uses_sems;       /* --sems applies (else its rows say sems=1) */
	bool has_floors;      /* the floor rows are meaningful here */
	bool inline_floor;    /* ... and floor-inline too: the workload runs
			       * floor-atomic's ops inlined in its own loop
			       * (uncontended: floors.c) */
	bool fairness;        /* fills the fair_* columns (fl_tstats) */
	bool latency;         /* times a blocking op (fl_tstat_lat_*) when asked */
	bool latency_default; /* ... and by default (its overhead measured <= 5 %:
				 workloads/README.md) */
	/* Blocking operations a rep should hold when the run stretches its reps
	 * (harness/options.md, --min-blocking): a rep's blocking ops are its
	 * voluntary context switches (a wait that sleeps is one); a rep with
	 * fewer is a handful of scheduling events, and its ns/op is theirs.
	 * 0: never stretched (nothing blocks: uncontended). */
	int min_blocking;
	void (*run)(const struct fl_variant *v, const struct fl_params *p,
		    struct fl_result *r);
	/* NULL: every point fits. Else NULL when (v, p) can run, or why not
	 * (one line, for a skipped row). */
	const char *(*unavailable)(const struct fl_variant *v, const struct fl_params *p);
};

/* The registry (registry.c). */
extern const struct fl_workload *const fl_workloads[];
extern const int fl_nworkloads;
const struct fl_workload *fl_workload_find(const char *name);

/* NULL when (w, v, p) can run, else why not (for a skipped row): first the
 * check every token-using workload shares (--tokens at most the variant's
 * value_max), the one of --sems (at most --threads), then the workload's own
 * unavailable hook. */
const char *fl_workload_unavailable(const struct fl_workload *w,
				    const struct fl_variant *v, const struct fl_params *p);

/* Floors (floors.c): minimal semaphores measured in the same run as the
 * variants, so every figure can be read as a ratio to what the hardware and
 * the kernel cost at the least. Not registered variants: they exist for the
 * table. floors.c says where each one is a bound and where it is not. */
struct fl_floor {
	_Atomic uint32_t count;
};
extern const struct fl_variant fl_floor_atomic; /* spins: no kernel at all */
extern const struct fl_variant fl_floor_inline; /* floor-atomic, inlined by the workload */
extern const struct fl_variant fl_floor_futex;  /* wakes on every post */

/* Inline forms (uncontended.c): NAME-inline is the design NAME with its
 * post and wait called directly from a loop compiled with them (its
 * .pairs, variant.h): what a program that calls the design in a loop
 * pays, with no table and no detector's marks; floor-inline is
 * floor-atomic's. Only the uncontended workload (inline_floor) runs them.
 * fl_inline_form: v's form (built once, a descriptor of its own name;
 * call it before any rep runs), or NULL where v has no .pairs or is run
 * in a helper. fl_inline_of: the design a form is of, NULL for a design. */
const struct fl_variant *fl_inline_form(const struct fl_variant *v);
const struct fl_variant *fl_inline_of(const struct fl_variant *v);

/* ---- for the workload files (workload.c; the fl_sem_* ops: sem.h) ------- */

/* First error wins. fl_fail writes the result directly (the thread that owns
 * it); worker threads report into an error box, which the main thread hands
 * to the result with fl_take_error once they are joined. */
void fl_fail(struct fl_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct fl_errbox {
	_Atomic int set;
	char msg[200];
};
void fl_fail_box(struct fl_errbox *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fl_take_error(struct fl_result *r, struct fl_errbox *e);
/* post(n) on m (sem.h); a failure goes to e. */
void fl_sem_post(struct fl_sem *m, unsigned n, struct fl_errbox *e);

/* ---- the stranded-waiter detector around a rep (stranded_rep.c) ----------
 *
 * The detector is stranded/ (stranded/README.md); these adapt it to a rep.
 * The runner brackets each rep: fl_stranded_rep_begin(p) before w->run (a
 * no-op when p->stranded_ns is 0), fl_stranded_rep_end(r) after it (always;
 * it fills r->stranded*, and on a stranded waiter replaces r->error with
 * "lost wakeup: <evidence>"). Between the two, a watchdog thread samples the
 * counts the wrappers of sem.h keep; a workload gets the detector by using
 * the wrappers, nothing else. Not reentrant: one bracket at a time. */
void fl_stranded_rep_begin(const struct fl_params *p);
void fl_stranded_rep_end(struct fl_result *r);
/* Sets the function the watchdog calls with a stranded thread's id at the
 * moment it is confirmed, while the thread still sleeps, before the rescue
 * (the probes: a snapshot of the kernel's view of that thread). NULL: none.
 * It must not block for long. */
void fl_rep_stranded_hook(void (*hook)(int tid));

/* Sleeps until t_ns on CLOCK_MONOTONIC (the end of a rep in duration mode). */
void fl_sleep_until(int64_t t_ns);

/* Starts n threads running fn(arg + i * argsize); exits the process when one
 * cannot be created (workers may already wait on each other: no unwinding). */
pthread_t *fl_spawn(int n, void *(*fn)(void *), void *arg, size_t argsize);

/* ---- per-thread counts and latency (tstat.c) ---------------------------
 *
 * One struct per worker thread, each on cache lines of its own, written
 * only by its thread: counting costs an increment in the thread's own line,
 * and timing (only when p->latency) two vDSO clock reads per blocking op
 * (fl_now_ns: CLOCK_MONOTONIC, a TSC read here) and a histogram add. The
 * same timestamps give starvation: the longest gap between a thread's
 * completed ops, from its start to its stop. */
struct fl_tstat {
	int64_t ops;          /* what the fairness columns compare */
	int64_t last_ns;      /* start, then the last completed op */
	int64_t starve_ns;    /* the longest gap so far */
	struct fl_hist *lat;  /* NULL: not timing */
} __attribute__((aligned(64)));

struct fl_tstats {
	int n;
	struct fl_tstat *t;
};

/* n threads' slots; timing when lat. Exits the process when out of memory. */
void fl_tstats_open(struct fl_tstats *s, int n, bool lat);
/* Fills r's fairness fields from the n slots' ops, starvation and the
 * merged histogram (when timed), and frees the slots. */
void fl_tstats_finish(struct fl_tstats *s, struct fl_result *r);

/* The thread's timed section starts (after its start barrier). */
static inline void fl_tstat_start(struct fl_tstat *t)
{
	if (t->lat)
		t->last_ns = fl_now_ns();
}

/* Before the blocking op: a timestamp (0 when not timing). */
static inline int64_t fl_tstat_lat_begin(const struct fl_tstat *t)
{
	return t->lat ? fl_now_ns() : 0;
}

/* An op completed at `now` (timing only): starvation, no latency sample
 * (a thread whose ops are not the timed blocking op: prodcons' producers). */
static inline void fl_tstat_done(struct fl_tstat *t, int64_t now)
{
	if (now - t->last_ns > t->starve_ns)
		t->starve_ns = now - t->last_ns;
	t->last_ns = now;
}

/* An op completed at `now` whose latency was `ns` (timing only). */
static inline void fl_tstat_record(struct fl_tstat *t, int64_t now, int64_t ns)
{
	fl_hist_add(t->lat, ns);
	fl_tstat_done(t, now);
}

/* After the blocking op begun at `begin`: records its latency. */
static inline void fl_tstat_lat_end(struct fl_tstat *t, int64_t begin)
{
	if (t->lat) {
		int64_t now = fl_now_ns();
		fl_tstat_record(t, now, now - begin);
	}
}

/* The thread stops. The gap after its last op is not counted (a thread
 * blocked when the rep ends is released by the stop, outside the timed
 * section), unless it completed none: then the whole of its section is. */
static inline void fl_tstat_stop(struct fl_tstat *t)
{
	if (t->lat && !t->ops)
		t->starve_ns = fl_now_ns() - t->last_ns;
}

/* Whether a single-threaded loop that has done n ops is done: n reached
 * --ops, or (duration mode; the clock is read once per FL_CLOCK_EVERY ops)
 * the end time has passed. */
#define FL_CLOCK_EVERY 256
static inline bool fl_rep_over(const struct fl_params *p, int64_t n, int64_t end_ns)
{
	return p->ops ? n >= p->ops : (n % FL_CLOCK_EVERY == 0 && fl_now_ns() >= end_ns);
}

#endif
