/* harness/ab.h — `futexlab ab`'s parts (cmd_ab.c: the plan and the rounds;
 * ab_sides.c: the builds). The judgement is the report's (report/ab.h). */
#ifndef FUTEXLAB_HARNESS_AB_H
#define FUTEXLAB_HARNESS_AB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* One side of the run: the REF as given, the binary it resolved to, the
 * revision that binary says it is. */
struct fl_ab_side {
	char ref[256];
	char bin[PATH_MAX];
	char rev[128];
	bool built;   /* made by scripts/ab-build from a git revision */
	bool layout;  /* the control's build: the same revision in another layout */
};

/* REF into side: a build directory (REF/harness/futexlab), a futexlab
 * binary, or a git revision built once in a cached worktree by
 * scripts/ab-build with this build's meson options (layout: a second,
 * separate build of it, every function aligned otherwise). opt names the
 * option in errors (one line, exit 2). */
void fl_ab_side_resolve(struct fl_ab_side *side, const char *opt, const char *ref, bool layout,
			const char *tmpdir);
/* This binary's build directory (the parent of harness/), into out. */
const char *fl_ab_self_build(char *out, size_t n);
/* Runs side's binary with args (NULL-terminated), stdout discarded, stderr
 * to err_path; its exit status (128 + N: killed by signal N; -1: not run). */
int fl_ab_side_run(const struct fl_ab_side *side, char *const *args, const char *err_path);
/* A worker (`futexlab ab-worker` of a side's build): one process that
 * runs `run`s sent down a pipe, one after another, each one's exit status
 * sent back; its stderr appended to err_path. A side's binary from before
 * ab-worker has none: ab then runs every slot in a process of its own, on
 * every side alike. */
struct fl_ab_worker {
	pid_t pid;
	FILE *to, *from;
};
bool fl_ab_side_has_worker(const struct fl_ab_side *side);
int fl_ab_worker_start(struct fl_ab_worker *w, const struct fl_ab_side *side, const char *err_path);
/* args (NULL-terminated, `run`'s argv from "run") run in the worker; its
 * exit status, -1 when the worker is gone. */
int fl_ab_worker_run(struct fl_ab_worker *w, char *const *args);
/* Ends the worker (its input closed); its exit status. */
int fl_ab_worker_stop(struct fl_ab_worker *w);

/* The first line a child wrote to err_path, into out. */
void fl_ab_first_error(const char *err_path, char *out, size_t n);

#endif
