/* shim/logline.h — the shim's logline: its published format.
 *
 * With FUTEXLAB_LOG=PATH, every process that loaded libfutexlab-preload.so
 * appends one line to PATH when it exits (shim/log.md, "The log"):
 *
 *   futexlab-shim pid=N ppid=N comm=NAME variant=V policy=P state=S
 *     inits=N ours=N handed=N named=N [wait=N trywait=N timedwait=N
 *     clockwait=N post=N blocked=N timeouts=N] reason=TEXT
 *
 * (one line; the bracketed keys only with FUTEXLAB_STATS=1, all seven or
 * none; blocked is `-` unless state=pass). One space between fields, keys
 * in exactly this order, every value but reason free of spaces, reason last
 * and running to the end of the line. The line is canonical: numbers in
 * decimal without sign or leading zero, so a parsed line formats back to
 * the same bytes (the fuzz target's oracle, tests/fuzz/fuzz_shim_logline.c).
 *
 * The shim writes lines with fl_shim_logline_format and the harness reads
 * them with fl_shim_logline_parse: both are here, pure (no globals, no
 * allocation, no locale: neither strtoul nor printf), so one file defines
 * the format for its writer and its readers. The harness may include this
 * header and link logline.c; nothing else of the shim.
 * Unit-tested by tests/test_shim_logline.c, fuzzed by
 * tests/fuzz/fuzz_shim_logline.c. */
#ifndef FUTEXLAB_SHIM_LOGLINE_H
#define FUTEXLAB_SHIM_LOGLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FL_SHIM_LOGLINE_TAG "futexlab-shim" /* the line's first word */
#define FL_SHIM_COMM_MAX 15     /* the kernel's TASK_COMM_LEN - 1 */
#define FL_SHIM_NAME_MAX 63     /* a variant name: FL_SHIM_VARIANT_MAX (env.h) */
#define FL_SHIM_POLICY_MAX 23   /* a policy's text: FL_POLICY_TEXT_MAX - 1 (variants/policy.h) */
#define FL_SHIM_REASON_MAX 255
/* A line's bytes at most, its newline included: below PIPE_BUF (4096), so
 * one write() of it is one atomic append even to a pipe. */
#define FL_SHIM_LOGLINE_MAX 1024

/* What the shim did with the process's semaphores (FUTEXLAB_VARIANT). */
enum fl_shim_state {
	FL_SHIM_ON,      /* "on": unnamed semaphores on the design */
	FL_SHIM_PASS,    /* "pass": FUTEXLAB_VARIANT=glibc, every call to glibc */
	FL_SHIM_REFUSED, /* "refused": breaks a promise FUTEXLAB_ALLOW does not accept */
	FL_SHIM_CAPPED,  /* "capped": FL_CAPPED, not a POSIX semaphore */
	FL_SHIM_SKIPPED, /* "skipped": unavailable here, or does not fit a sem_t */
};
#define FL_SHIM_NSTATES 5

struct fl_shim_logline {
	int pid;  /* > 0 */
	int ppid; /* >= 0 (0: the parent is outside the pid namespace) */
	/* /proc/self/comm, each byte outside '!'..'~' (space, control, non-ASCII)
	 * written as '?'; 1..15 bytes */
	char comm[FL_SHIM_COMM_MAX + 1];
	char variant[FL_SHIM_NAME_MAX + 1]; /* FUTEXLAB_VARIANT, [a-z0-9_-]{1,63} */
	/* FUTEXLAB_POLICY in its canonical text (variants/policy.h's
	 * fl_policy_format: park, spin:N, spin-yield:N with N 1..1000000 in
	 * canonical decimal, adaptive); park when unset */
	char policy[FL_SHIM_POLICY_MAX + 1];
	enum fl_shim_state state;
	uint64_t inits;  /* sem_init calls, successful or not */
	uint64_t ours;   /* of them, semaphores initialised on the design */
	uint64_t handed; /* of them, handed to glibc by a design that cannot hold them */
	uint64_t named;  /* sem_open successes (named semaphores: always glibc's) */
	/* FUTEXLAB_STATS=1: the line has the seven counting keys. Without it
	 * every count below is 0 and blocked_known is false. */
	bool stats;
	uint64_t wait, trywait, timedwait, clockwait, post; /* calls */
	bool blocked_known; /* false: "blocked=-" (state is not pass) */
	uint64_t blocked;   /* waits that found the semaphore empty (pass only) */
	uint64_t timeouts;  /* timedwait/clockwait calls that returned ETIMEDOUT */
	/* "-" (nothing to say), or why the design is not in use; 1..255 bytes
	 * of ' '..'~' */
	char reason[FL_SHIM_REASON_MAX + 1];
};

/* "on", "pass", "refused", "capped", "skipped"; NULL for another value. */
const char *fl_shim_state_name(enum fl_shim_state s);

/* Parses one line (with or without its final '\n'; nothing after it).
 *   0   a logline: *out filled (every field, the counts absent from the line
 *       zero);
 *   1   not a logline (it does not start with "futexlab-shim "): the
 *       log also holds the shim's FUTEXLAB_DEBUG messages ("futexlab-preload:
 *       ...") when both are set; *out untouched;
 *  -1   starts like a logline but is not one (a key missing, out of order or
 *       unknown, a value out of range or not canonical, a byte a field may
 *       not hold, a line too long): *out untouched. */
int fl_shim_logline_parse(const char *line, struct fl_shim_logline *out);

/* Writes r's line, '\n' and NUL included, into buf: its length (without the
 * NUL, at most FL_SHIM_LOGLINE_MAX), or -1 when a field is out of the
 * ranges above (nothing a parser would accept; buf then holds "" if len >
 * 0) or len is too small. Fields that the line does not carry (the counts
 * when !stats, blocked when !blocked_known) are not looked at. */
int fl_shim_logline_format(const struct fl_shim_logline *r, char *buf, size_t len);

#endif
