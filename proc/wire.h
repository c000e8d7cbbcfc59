/* proc/wire.h — the messages between futexlab and a helper-run design's
 * helper process (proc/helper.h), compiled into both: futexlab (glibc)
 * and the helper (musl-gcc, static). Text, one `key=value` a line, so that
 * a field added to struct fl_params is one line in a table of wire.c, one
 * added to struct fl_result crosses with no line at all (its table is
 * schema/result_fields.h), and a helper built from another revision is
 * caught (an unknown key is an error, never dropped).
 *
 * A message is its kind on a line of its own, then key=value lines, then
 * `end`:
 *   helper -> futexlab, once at start:  hello     libc, libc_version, static,
 *                                                pid, hash, hash_error
 *   futexlab -> helper, per rep:        run       variant, workload, wake,
 *                                                policy (its text:
 *                                                variants/policy.h), then
 *                                                struct fl_params
 *   helper -> futexlab, per rep:        result    struct fl_result, the
 *                                                latency histogram as lat_n,
 *                                                lat_min, lat_max and one
 *                                                lat_b=INDEX:COUNT per
 *                                                non-empty bucket
 *   futexlab -> helper:                 quit
 * Values: integers in decimal, doubles in C99 hex (%a: exact), strings with
 * `\` as `\\` and a newline as `\n` (nothing else is special: a value runs
 * to the end of its line). */
#ifndef FUTEXLAB_WIRE_H
#define FUTEXLAB_WIRE_H

#include <stddef.h>

#include "variants/policy.h"
#include "workloads/workload.h"

/* A growing text buffer (exits the process when out of memory). */
struct fl_msg {
	char *s;
	size_t len, cap;
};
void fl_msg_add(struct fl_msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* key=value with the value escaped */
void fl_msg_str(struct fl_msg *m, const char *key, const char *value);
void fl_msg_free(struct fl_msg *m);

/* What a `run` names besides the parameters. */
struct fl_helper_req {
	char variant[40], workload[40];
	int wake;
	struct fl_policy policy;
	struct fl_params p;
};

/* The whole message, `run` ... `end`. */
void fl_wire_put_req(struct fl_msg *m, const struct fl_helper_req *q);
void fl_wire_put_result(struct fl_msg *m, const struct fl_result *r);

/* Iterates the lines of a message text (NUL-terminated): calls
 * line(key, value, arg) for each key=value line after the kind and before
 * `end`, value unescaped in place. 0, or -1 with err[] filled (a malformed
 * line, or line() returned nonzero after filling err[]). The text is
 * modified. */
int fl_wire_parse(char *text, const char *kind,
		   int (*line)(const char *key, char *value, void *arg, char *err, size_t n),
		   void *arg, char *err, size_t n);

/* Fills q or r from a parsed message (r->lat allocated when lat_n is sent;
 * the caller frees it). 0, or -1 with err[] (an unknown key, a bad number). */
int fl_wire_get_req(char *text, struct fl_helper_req *q, char *err, size_t n);
int fl_wire_get_result(char *text, struct fl_result *r, char *err, size_t n);

#endif
