/* probes/perf.h — `--perf`: the counters of `perf stat`, per rep.
 *
 * The counters are opened with perf_event_open(2) on the calling thread with
 * inherit set, just before a rep's workload starts its threads, and read
 * after the workload has joined them: the kernel folds an inherited child's
 * counts into the parent's counter when the child exits, so the reading
 * covers every thread of the rep and nothing outside it (not the warm-up,
 * not the CSV writes). That is what `perf stat -e ... -- futexlab run ...`
 * would count for one rep, without a perf process per rep.
 *
 * Counters: task-clock (ns of CPU time, all threads), context-switches,
 * cpu-migrations (software events, present on every kernel with perf), and
 * cycles, instructions (hardware events: absent in most VMs). A counter the
 * kernel or the privileges (kernel.perf_event_paranoid) refuse is reported
 * as unsupported and its CSV cell left empty — never zero. A counter that
 * was multiplexed (ran only part of the time) is scaled as perf stat does. */
#ifndef FUTEXLAB_PERF_H
#define FUTEXLAB_PERF_H

#include <stdbool.h>
#include <stdint.h>

#define FL_PERF_N 5
extern const char *const fl_perf_names[FL_PERF_N]; /* CSV column names */

struct fl_perf_reading {
	int64_t v[FL_PERF_N]; /* -1: unsupported or not measured */
};

/* Set by --perf; off by default. */
extern bool fl_perf_enabled;

/* Opens and enables the counters (no-op when disabled). */
void fl_perf_begin(void);
/* Disables, reads and closes them. All -1 when disabled. */
void fl_perf_end(struct fl_perf_reading *out);
/* The CSV header suffix ",task_clock_ns,context_switches,..." and a row's
 * cells ",123,4,,..." (empty for -1). */
const char *fl_perf_header(void);
void fl_perf_cells(const struct fl_perf_reading *r, char *out, int n);
/* Which counters this machine supports, for the one-line notice. */
void fl_perf_probe(char *out, int n);

#endif
