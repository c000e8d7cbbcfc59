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
 *
 * Pure: the caller passes getenv's values (NULL for unset); no getenv, no
 * allocation, no stdio, no global state, so it can run first thing in the
 * shim's setup. Fuzzed by tests/fuzz/fuzz_shim_env.c, unit-tested by
 * tests/test_shim_env.c. */
#ifndef FUTEXLAB_SHIM_ENV_H
#define FUTEXLAB_SHIM_ENV_H

#include <stdbool.h>
#include <stddef.h>

#define FL_SHIM_VARIANT_MAX 63

struct fl_shim_env {
	char variant[FL_SHIM_VARIANT_MAX + 1]; /* NUL-terminated */
	bool debug;
	unsigned allow; /* FL_DESTROY_UNSAFE | FL_SIGNAL_UNSAFE | FL_NO_EINTR */
};

/* 0 with *out filled; or -1 with *out untouched and, when errlen > 0, a
 * one-line NUL-terminated message in err (no newline; the offending value
 * quoted, non-printable bytes as \xNN, cut to fit errlen). */
int fl_shim_env_parse(const char *variant, const char *debug, const char *allow,
		      struct fl_shim_env *out, char *err, size_t errlen);

#endif
