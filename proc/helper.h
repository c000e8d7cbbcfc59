/* proc/helper.h — futexlab's side of a helper-run design (a variant whose
 * descriptor has .helper: musl-libc): its reps run in a helper process on
 * this machine (proc/helper_main.c, built
 * with musl-gcc beside the futexlab executable), one per run, started at
 * the design's first rep and kept warm (a fresh process per rep pays page
 * faults and cold caches the in-process designs do not: proc/README.md);
 * the rep's struct fl_result comes back over a pipe (proc/wire.h) and
 * becomes the row as if the rep had run here.
 *
 * Failure is a row, never a hung harness: a helper that exits or is killed
 * during a rep, sends something unreadable, or does not answer within the
 * deadline (30 s + 10 x the rep's duration; FUTEXLAB_HELPER_TIMEOUT=S
 * overrides) gives an error row saying so, and is killed and reaped; the
 * next rep of a helper-run design starts a new one. */
#ifndef FUTEXLAB_HELPER_H
#define FUTEXLAB_HELPER_H

#include <sys/types.h>

#include "workloads/rep.h"
#include "workloads/workload.h"

/* NULL when v's helper can be run, else why not (a skipped row): the
 * build had no musl-gcc (v->unavailable says so first) or the executable is
 * not found. The helper is $FUTEXLAB_HELPER (tests), else
 * `dirname(/proc/self/exe)/../proc/v->helper` (the build tree), else
 * `dirname(/proc/self/exe)/v->helper` (installed: both in bindir). */
const char *fl_helper_unavailable(const struct fl_variant *v);

/* The --hash mode this run applied (runner.c, single mode): the helper
 * applies it too, before its first thread. NULL: none asked (auto). */
void fl_helper_set_hash(const char *item);

/* Starts v's helper unless it runs. Returns its pid, or -1 with r->error
 * saying why. A helper started here says what it runs on in meta (the
 * `helper` metadata line for the CSV, without "# ": its libc, pid and hash
 * mode); meta is "" when it was running already. */
pid_t fl_helper_ready(const struct fl_variant *v, char *meta, size_t metan, struct fl_result *r);

/* Runs the rep x in the helper fl_helper_ready started, filling r as
 * x->w->run would (cpu_set included); r->error on any failure. On Ctrl-C
 * (fl_interrupted) the helper is killed and r is not a measurement. */
void fl_helper_run(const struct fl_rep *x, struct fl_result *r);

/* Ends every helper (quit, then SIGKILL after 2 s) and reaps it. */
void fl_helper_shutdown(void);

#endif
