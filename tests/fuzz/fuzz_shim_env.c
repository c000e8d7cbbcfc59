/* tests/fuzz/fuzz_shim_env.c — the shim's environment parser (shim/env.c)
 * against a plain reference, on arbitrary bytes.
 *
 * Input: byte 0 says which variables are unset (bit 0 FUTEXLAB_VARIANT,
 * bit 1 FUTEXLAB_DEBUG, bit 2 FUTEXLAB_ALLOW, bit 3 FUTEXLAB_STATS, bit 4
 * FUTEXLAB_LOG, bit 5 FUTEXLAB_POLICY), byte 1 is errlen (0-255), the rest
 * the six values separated by NUL bytes (a missing one is empty). Each value and the
 * message buffer are heap blocks of exactly their size, so ASan sees any
 * byte read or written past them. The oracle: the verdict, variant, debug,
 * allow, stats, log and policy equal the reference's (written from shim/env.h's
 * words, sharing no code), *out is untouched on error, and the message is
 * one terminated line within errlen that names the first bad variable. */
#include <stdbool.h>
#include <string.h>

#include "shim/env.h"
#include "tests/fuzz/fuzz.h"
#include "variants/variant.h"

#define ALL3 (FL_DESTROY_UNSAFE | FL_SIGNAL_UNSAFE | FL_NO_EINTR)

/* FUTEXLAB_ALLOW: 0 with out->allow set, or -1. */
static int check_allow(const char *a, struct fl_shim_env *out)
{
	char *copy = strdup(a);
	FUZZ_ASSERT(copy, "out of memory");
	int r = 0;
	for (char *item = copy, *next; item && r == 0; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		if (!strcmp(item, "destroy"))
			out->allow |= FL_DESTROY_UNSAFE;
		else if (!strcmp(item, "signal"))
			out->allow |= FL_SIGNAL_UNSAFE;
		else if (!strcmp(item, "eintr"))
			out->allow |= FL_NO_EINTR;
		else if (!strcmp(item, "all"))
			out->allow |= ALL3;
		else if (strcmp(item, ""))
			r = -1;
	}
	free(copy);
	return r;
}

/* FUTEXLAB_POLICY (variants/policy.h's words: park, adaptive, spin:N or
 * spin-yield:N, N a decimal integer 1..1000000, leading zeros allowed, as
 * strtol reads them, no sign or space) into *out: 0, or -1. */
static int check_policy(const char *t, struct fl_policy *out)
{
	if (!strcmp(t, "park") || !strcmp(t, "adaptive")) {
		out->kind = !strcmp(t, "park") ? FL_POLICY_PARK : FL_POLICY_ADAPTIVE;
		return 0;
	}
	const char *num = NULL;
	if (!strncmp(t, "spin:", 5))
		num = t + 5, out->kind = FL_POLICY_SPIN;
	else if (!strncmp(t, "spin-yield:", 11))
		num = t + 11, out->kind = FL_POLICY_SPIN_YIELD;
	if (!num || !*num)
		return -1;
	long v = 0;
	for (const char *c = num; *c; c++) {
		if (*c < '0' || *c > '9' || v > 1000000)
			return -1;
		v = v * 10 + (*c - '0');
	}
	if (v < 1 || v > 1000000)
		return -1;
	out->bound = (int)v;
	return 0;
}

/* The reference: NULL and the result, or the name of the first bad variable. */
static const char *reference(const struct fl_shim_vars *in, struct fl_shim_env *out)
{
	const char *v = in->variant, *d = in->debug, *a = in->allow, *st = in->stats,
		   *log = in->log;
	memset(out, 0, sizeof *out);
	if (!v || !*v)
		v = "negcount";
	if (strlen(v) > 63)
		return "FUTEXLAB_VARIANT";
	for (const char *p = v; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789_-", *p))
			return "FUTEXLAB_VARIANT";
	strcpy(out->variant, v);
	out->debug = d != NULL && strcmp(d, "") != 0 && strcmp(d, "0") != 0;
	if (a && check_allow(a, out))
		return "FUTEXLAB_ALLOW";
	if (st && strcmp(st, "") && strcmp(st, "0")) {
		if (strcmp(st, "1"))
			return "FUTEXLAB_STATS";
		out->stats = true;
	}
	if (log && *log) {
		if (strlen(log) > 4095 || (log[0] != '/' && log[0] != '@'))
			return "FUTEXLAB_LOG";
		if (log[0] == '@') { /* @NAME: 1-107 bytes of '!'..'~' */
			size_t n = strlen(log + 1);
			if (n < 1 || n > 107)
				return "FUTEXLAB_LOG";
			for (size_t i = 1; log[i]; i++)
				if ((unsigned char)log[i] < '!' || (unsigned char)log[i] > '~')
					return "FUTEXLAB_LOG";
		}
		strcpy(out->log, log);
	}
	if (in->policy && *in->policy && check_policy(in->policy, &out->policy))
		return "FUTEXLAB_POLICY";
	return NULL;
}

/* The next value: data up to a NUL, in a block of exactly its size. */
static char *take(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *nul = memchr(*p, '\0', (size_t)(end - *p));
	size_t n = (size_t)((nul ? nul : end) - *p);
	char *s = malloc(n + 1);
	FUZZ_ASSERT(s, "out of memory");
	if (n)
		memcpy(s, *p, n);
	s[n] = '\0';
	*p = nul ? nul + 1 : end;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	unsigned unset = data[0];
	size_t errlen = data[1];
	const uint8_t *p = data + 2, *end = data + size;
	char *val[6];
	for (int i = 0; i < 6; i++)
		val[i] = take(&p, end);
	const struct fl_shim_vars in = {
		.variant = unset & 1 ? NULL : val[0],
		.debug = unset & 2 ? NULL : val[1],
		.allow = unset & 4 ? NULL : val[2],
		.stats = unset & 8 ? NULL : val[3],
		.log = unset & 16 ? NULL : val[4],
		.policy = unset & 32 ? NULL : val[5],
	};
	char *err = errlen ? malloc(errlen) : NULL;
	FUZZ_ASSERT(!errlen || err, "out of memory");
	if (err)
		memset(err, 'Z', errlen);

	/* static: 4 KiB each (the log path), and one input at a time */
	static struct fl_shim_env got, want;
	memset(&got, 0xA5, sizeof got);
	int r = fl_shim_env_parse(&in, &got, err, errlen);
	const char *bad = reference(&in, &want);
	FUZZ_ASSERT(r == (bad ? -1 : 0), "returned %d, the reference %s", r, bad ? bad : "accepts");
	if (r == 0) {
		FUZZ_ASSERT(memchr(got.variant, '\0', sizeof got.variant) &&
				    !strcmp(got.variant, want.variant),
			    "variant '%.64s', want '%s'", got.variant, want.variant);
		FUZZ_ASSERT(got.debug == want.debug, "debug %d", got.debug);
		FUZZ_ASSERT(got.allow == want.allow, "allow %#x, want %#x", got.allow, want.allow);
		FUZZ_ASSERT(got.stats == want.stats, "stats %d", got.stats);
		FUZZ_ASSERT(memchr(got.log, '\0', sizeof got.log) && !strcmp(got.log, want.log),
			    "log '%.64s', want '%.64s'", got.log, want.log);
		FUZZ_ASSERT(got.policy.kind == want.policy.kind && got.policy.bound == want.policy.bound,
			    "policy %d:%d, want %d:%d", got.policy.kind, got.policy.bound,
			    want.policy.kind, want.policy.bound);
	} else {
		const unsigned char *g = (const unsigned char *)&got;
		for (size_t i = 0; i < sizeof got; i++)
			FUZZ_ASSERT(g[i] == 0xA5, "*out written on error (byte %zu)", i);
		if (errlen) {
			size_t len = strnlen(err, errlen);
			FUZZ_ASSERT(len < errlen, "message not terminated within errlen %zu", errlen);
			FUZZ_ASSERT(!memchr(err, '\n', len) && !memchr(err, '\r', len),
				    "message not one line: %s", err);
			size_t nl = strlen(bad);
			FUZZ_ASSERT(!strncmp(err, bad, len < nl ? len : nl),
				    "message does not name %s: %s", bad, err);
		}
	}
	free(err);
	for (int i = 0; i < 6; i++)
		free(val[i]);
	return 0;
}
