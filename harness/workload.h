/* harness/workload.h — one workload a file-section, all through the variant
 * interface, so every design runs the same code. */
#ifndef FUTEXLAB_WORKLOAD_H
#define FUTEXLAB_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "perf.h"
#include "variant.h"

struct fl_params {
	int threads;          /* worker threads (pool); fixed for the others */
	int tokens;           /* initial tokens (pool) */
	int64_t hold_ns;      /* busy work while holding a token (pool) */
	int64_t think_ns;     /* busy work between tokens (pool) */
	int64_t ops;          /* operations per rep; 0: run for duration_ns */
	int64_t duration_ns;
};

struct fl_result {
	int64_t ops;          /* operations completed (all threads) */
	int64_t elapsed_ns;   /* wall time of the timed section */
	char error[200];      /* non-empty: the run broke an invariant */
	struct fl_perf_reading perf; /* --perf counters (filled by the harness) */
	char info[120];       /* optional, ok rows: a detail for the note column */
};

struct fl_workload {
	const char *name;
	const char *summary;
	const char *op;       /* what one "op" is, for the table */
	int fixed_threads;    /* 0: --threads applies */
	bool uses_tokens;     /* --tokens/--hold/--think apply */
	bool has_floors;      /* the floor rows are meaningful here */
	void (*run)(const struct fl_variant *v, const struct fl_params *p,
		    struct fl_result *r);
};

/* A semaphore instance on the heap, on a cache line of its own, for the
 * workloads (workloads.c). fl_sem_wait retries EINTR: not a token. */
struct fl_sem {
	const struct fl_variant *v;
	void *s;
};
int fl_sem_open(struct fl_sem *m, const struct fl_variant *v, unsigned value);
void fl_sem_close(struct fl_sem *m);
int fl_sem_wait(struct fl_sem *m);

extern const struct fl_workload fl_workloads[];
extern const int fl_nworkloads;
const struct fl_workload *fl_workload_find(const char *name);

/* Floors: minimal semaphores measured in the same run as the variants, so
 * every figure can be read as a ratio to what the hardware and the kernel
 * cost at the least. Not registered variants: they exist for the table. */
extern const struct fl_variant fl_floor_atomic; /* spins: no kernel at all */
extern const struct fl_variant fl_floor_futex;  /* wakes on every post */

#endif
