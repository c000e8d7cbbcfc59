/* harness/remote.h — the harness's side of a remote design (a variant whose
 * descriptor has .remote: musl-libc). Its reps run in a helper process
 * (harness/remote_main.c, built with musl-gcc beside the futexlab
 * executable), one per run, started at the design's first rep and kept warm
 * (a fresh process per rep pays page faults and cold caches the in-process
 * designs do not: harness/README.md has the measurement); the rep's
 * struct fl_result comes back over a pipe (remote_proto.h) and becomes the
 * row as if the rep had run here.
 *
 * Failure is a row, never a hung harness: a helper that exits or is killed
 * during a rep, sends something unreadable, or does not answer within the
 * deadline (30 s + 10 x the rep's duration; FUTEXLAB_REMOTE_TIMEOUT=S
 * overrides) gives an error row saying so, and is killed and reaped; the
 * next rep of a remote design starts a new one. */
#ifndef FUTEXLAB_REMOTE_H
#define FUTEXLAB_REMOTE_H

#include <sys/types.h>

#include "workloads/workload.h"

struct fl_csv;

/* NULL when v's helper can be run, else why not (a skipped row): the
 * build had no musl-gcc (v->unavailable says so first) or the executable is
 * not beside this one. The helper is `dirname(/proc/self/exe)/v->remote`,
 * or $FUTEXLAB_REMOTE_HELPER (tests). */
const char *fl_remote_unavailable(const struct fl_variant *v);

/* The --hash mode this run applied (runner.c, single mode): the helper
 * applies it too, before its first thread. NULL: none asked (auto). */
void fl_remote_set_hash(const char *item);

/* Starts v's helper unless it runs (its hello adds a `# remote` metadata
 * line to csv: the libc it runs on, its pid and hash mode). Returns its
 * pid, or -1 with r->error saying why. */
pid_t fl_remote_ready(const struct fl_variant *v, struct fl_csv *csv, struct fl_result *r);

/* Runs one rep of (w, v, p) with wake mode and spin bound in the helper
 * fl_remote_ready started, filling r as w->run would (cpu_set included);
 * r->error on any failure. On Ctrl-C (fl_interrupted) the helper is killed
 * and r is not a measurement. */
void fl_remote_run(const struct fl_variant *v, const struct fl_workload *w,
		   const struct fl_params *p, int wake, int spin, struct fl_result *r);

/* Ends every helper (quit, then SIGKILL after 2 s) and reaps it. */
void fl_remote_shutdown(void);

#endif
