/* probes/probes.h — what the commands need from the probes: the futex
 * collector (futexstat.*) around every rep and its CSV columns (session.c),
 * the stranded-waiter detector's kernel side (stranded_note.c), the
 * per-word list of `futexlab exec` (words.c), the collector's own cost
 * (overhead.c), and a bpftrace script run beside the whole command
 * (bpftrace.c). The perf counters are perf.h.
 *
 * Builds without the collector (-Dprobes=disabled) keep the same CSV
 * columns, empty. Nothing here ever stops a run: when the probes cannot be
 * used, one line on stderr says why and the columns stay empty. */
#ifndef FUTEXLAB_PROBES_H
#define FUTEXLAB_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "schema/kcounts.h"
#include "schema/word.h"

enum fl_probes_mode {
	FL_PROBES_DEFAULT, /* on when root and BPF works; a line if it does not */
	FL_PROBES_ON,      /* --probes */
	FL_PROBES_OFF,     /* --no-probes */
};

/* The probe columns, each preceded by a comma: append to the CSV header. */
extern const char fl_probes_csv_header[];

/* Loads the collector once (or not, per mode). */
void fl_probes_setup(enum fl_probes_mode mode);
/* Around one rep: zero + attach; detach + keep the counts of that rep.
 * pid > 0: the rep runs in that process (a helper-run design's helper),
 * counted instead of this one for the rep (fl_probes_count_process). */
void fl_probes_rep_begin(pid_t pid);
void fl_probes_rep_end(pid_t pid, const char *workload, int64_t ops);
/* Appends the probe columns of the last rep to a CSV row (empty values
 * when !have_rep or the collector is off); never overflows row[n]. */
void fl_probes_append(char *row, size_t n, bool have_rep);
void fl_probes_teardown(void);
/* The last rep's counts as totals (schema/kcounts.h), for a command that
 * folds its reps itself (the hunt): true when the collector counted that
 * rep (its probe columns are filled), else false, *out untouched. */
bool fl_probes_rep_kcounts(struct fl_kcounts *out);
/* Why the collector is not loaded, one line ("" while it is): --no-probes,
 * what its setup or a rep's attach said (also on stderr), or a build
 * without it. */
const char *fl_probes_off_why(void);
/* Whether the collector is loaded and counting reps is possible (setup
 * succeeded and no rep has failed to attach since). */
bool fl_probes_loaded(void);

/* The stranded-waiter detector's kernel side (stranded/). While the
 * collector counts, fl_probes_setup sets the detector's hook
 * (workloads/workload.h: fl_rep_stranded_hook) to a snapshot of the
 * stranded thread's futex wait in flight (the collector's per-thread slot:
 * its futex word and when it entered the wait) taken at detection, before
 * the rescue. After the rep, fl_probes_stranded_note
 * writes "kernel: tid T slept in FUTEX_WAIT on 0x... for X ms", or says
 * why the kernel side was not recorded (no probes, a warm-up rep, the
 * thread not in a futex wait then). clear: before each rep. */
void fl_probes_stranded_clear(void);
void fl_probes_stranded_note(int tid, bool measured, char *out, size_t n);

/* `futexlab exec`: before fl_probes_setup, count not this process but the
 * processes it forks during each rep, their descendants and all their
 * threads (the collector follows sched_process_fork/exit), and keep
 * per-futex-word counts (fl_probes_words). */
void fl_probes_follow_children(void);

/* `futexlab exec` with a cgroup of its own for the program (follow mode):
 * from the next rep, count the futex calls of the tasks in cgroup `id` (v2;
 * the directory's inode number) — a call counts iff
 * bpf_get_current_cgroup_id() is id: no per-process lookup, no fork
 * following — and as `procs` the processes forked in it or moved into it.
 * 0: back to following the tree. Call between reps (or before setup). */
void fl_probes_count_cgroup(uint64_t id);

/* A helper-run design's rep (run in the design's helper process): count process `pid` (the
 * helper) instead of this one from the next fl_probes_rep_begin, until
 * called with 0; its rows' `procs` says 1. Call between reps. When the
 * collector cannot (follow mode, a nested pid namespace) one line says
 * why and that rep's probe columns are empty, never this process's counts. */
void fl_probes_count_process(pid_t pid);

/* One futex word of the last rep (follow mode): schema/word.h. */
/* The last rep's words, up to n, by waits (by 0) or total wait time (by 1);
 * returns how many; *nwords: distinct words seen; *lost: words the map
 * could not hold. 0 when the probes are off or not following. */
int fl_probes_words(int by, struct fl_word *out, int n, int *nwords, unsigned long long *lost);

/* What the collector adds to one futex syscall of this process, in ns:
 * measured once, on the first call (call it after fl_probes_setup and
 * before the first rep: later it must detach first, ~0.6 s), in ~0.2 s:
 * FUTEX_WAKEs on a private word nobody waits on, blocks with the collector
 * detached (no probes at all) against blocks attached and counting, each
 * mode's fastest of 9 blocks of 5000 calls. NAN when the probes are off.
 * For the run's metadata:   # probes_overhead_ns_per_syscall: N */
double fl_probes_overhead_ns(void);
/* The same total in two parts: attached but idle minus detached (the
 * tracepoints and an empty program run, what any BPF program there costs)
 * and counting minus idle (the collector's own work; these two modes
 * interleaved block by block). NAN when the probes are off. */
void fl_probes_overhead_parts(double *tracepoint_ns, double *body_ns);

/* (`--bpftrace SCRIPT` is checked readable by the command line:
 * runner/cli.h, fl_bpftrace_check.) */
/* Starts bpftrace on SCRIPT filtered to this process, output into a file
 * beside the CSV (or in the current directory), and waits until it has
 * attached. Failure: one line on stderr, the run goes on without it. */
void fl_bpftrace_start(const char *script, const char *csv_path);
/* Stops it (SIGINT: it prints its maps) and says where the output is. */
void fl_bpftrace_stop(void);

#endif
