/* shim/env.h — the shim's environment, parsed (shim/README.md).
 *
 *   FUTEXLAB_VARIANT  the design; unset or empty: negcount. At most 63
 *                     bytes, each of [a-z0-9_-] (whether the name is
 *                     registered is the caller's question).
 *   FUTEXLAB_DEBUG    on when set, non-empty and not "0".
 *   FUTEXLAB_ALLOW    a comma list of the promises (variants/variant.h) the
 *                     program agrees to do without: destroy
 *                     (FL_DESTROY_UNSAFE), signal (FL_SIGNAL_UNSAFE), eintr
 *                     (FL_NO_EINTR), all (the three). Empty items are
 *                     ignored; anything else (case, spaces included) is an
 *                     error.
 *   FUTEXLAB_STATS    unset, empty or "0": off; "1": count the calls
 *                     (shim/log.md, "Counting"); anything else is an
 *                     error. Stricter than FUTEXLAB_DEBUG on purpose: the
 *                     harness reads the counts, and a misspelt switch ("on",
 *                     "true ") that silently meant one thing or the other
 *                     would give it lines with or without the counting keys
 *                     it did not ask for.
 *   FUTEXLAB_LOG      unset or empty: no log; @NAME: the report channel,
 *                     the abstract AF_UNIX SOCK_SEQPACKET socket NAME (1 to
 *                     FL_SHIM_CHANNEL_MAX bytes, each '!'..'~'; out->log
 *                     keeps the '@'); else the PATH every process
 *                     appends its logline to (shim/logline.h). It must be
 *                     absolute: the file is opened when a line is written,
 *                     at exit, after the program may have changed directory,
 *                     and an exec'd child resolves the same value again in
 *                     its own directory — a relative path would scatter one
 *                     run's lines over several files. At most
 *                     FL_SHIM_LOG_MAX bytes (PATH_MAX - 1).
 *   FUTEXLAB_POLICY   the waiting policy of the design's waits
 *                     (variants/policy.h: park, spin:N, spin-yield:N,
 *                     adaptive); unset or empty: park. Anything
 *                     fl_policy_parse refuses is an error. (Whether the
 *                     design takes a policy is the caller's question: a
 *                     shipped library keeps its own.)
 *
 * Pure: the caller passes getenv's values (NULL for unset); no getenv, no
 * allocation, no stdio stream (the policy's reason is formatted into a
 * local buffer by fl_policy_parse), no global state, so it can run first thing in the
 * shim's setup. Fuzzed by tests/fuzz/fuzz_shim_env.c, unit-tested by
 * tests/test_shim_env.c. */
#ifndef FUTEXLAB_SHIM_ENV_H
#define FUTEXLAB_SHIM_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "variants/policy.h"

#define FL_SHIM_VARIANT_MAX 63
#define FL_SHIM_LOG_MAX 4095
#define FL_SHIM_CHANNEL_MAX 107 /* sun_path's 108 bytes, less the leading NUL */

/* The raw values, as getenv returns them (NULL: unset). */
struct fl_shim_vars {
	const char *variant; /* FUTEXLAB_VARIANT */
	const char *debug;   /* FUTEXLAB_DEBUG */
	const char *allow;   /* FUTEXLAB_ALLOW */
	const char *stats;   /* FUTEXLAB_STATS */
	const char *log;     /* FUTEXLAB_LOG */
	const char *policy;  /* FUTEXLAB_POLICY */
};

struct fl_shim_env {
	char variant[FL_SHIM_VARIANT_MAX + 1]; /* NUL-terminated */
	bool debug;
	unsigned allow; /* FL_DESTROY_UNSAFE | FL_SIGNAL_UNSAFE | FL_NO_EINTR */
	bool stats;
	/* A copy, not a pointer into the environment: a program may rewrite
	 * its environment strings (setproctitle-style) before it exits. */
	char log[FL_SHIM_LOG_MAX + 1]; /* "" : no log */
	struct fl_policy policy;       /* park unless FUTEXLAB_POLICY says */
};

/* 0 with *out filled; or -1 with *out untouched and, when errlen > 0, a
 * one-line NUL-terminated message in err (no newline; the offending value
 * quoted, non-printable bytes as \xNN, cut to fit errlen). The variables
 * are checked in the order of struct fl_shim_vars; the first bad one is
 * the one reported. */
int fl_shim_env_parse(const struct fl_shim_vars *in, struct fl_shim_env *out, char *err,
		      size_t errlen);

#endif
