/* tests/fuzz/fuzz_shim_logline.c — the shim's logline (shim/logline.c):
 * its parser and its writer against each other, on arbitrary bytes.
 *
 * Input, when byte 0 is not 0: a line (the input up to its first NUL), in a
 * heap block of exactly its size so ASan sees any byte read past it. The
 * oracle:
 *   - the verdict is 1 exactly when the line does not start with
 *     "futexlab-shim ", and *out is untouched unless it is 0;
 *   - a line the parser accepts is canonical: the writer gives back the
 *     same bytes (with a '\n' when the line had none), and that parses to
 *     the same fields.
 * Input, when byte 0 is 0: the fields of a struct (fixed-width integers,
 * then comm, variant, policy and reason separated by NUL bytes). The oracle: the
 * writer accepts it exactly when every field is in logline.h's ranges; a
 * written line is one line of at most FL_SHIM_LOGLINE_MAX bytes that
 * parses back to the same fields (the counts only when stats, blocked only
 * when blocked_known). */
#include <stdbool.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "shim/logline.h"

static bool same(const struct fl_shim_logline *a, const struct fl_shim_logline *b)
{
	if (a->pid != b->pid || a->ppid != b->ppid || strcmp(a->comm, b->comm) ||
	    strcmp(a->variant, b->variant) || strcmp(a->policy, b->policy) ||
	    a->state != b->state || a->inits != b->inits ||
	    a->ours != b->ours || a->handed != b->handed || a->named != b->named ||
	    a->stats != b->stats || strcmp(a->reason, b->reason))
		return false;
	if (!a->stats)
		return true;
	return a->wait == b->wait && a->trywait == b->trywait && a->timedwait == b->timedwait &&
	       a->clockwait == b->clockwait && a->post == b->post &&
	       a->blocked_known == b->blocked_known &&
	       (!a->blocked_known || a->blocked == b->blocked) && a->timeouts == b->timeouts;
}

static void line_mode(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t n = nul ? (size_t)(nul - data) : size;
	char *line = malloc(n + 1);
	FUZZ_ASSERT(line, "out of memory");
	memcpy(line, data, n);
	line[n] = '\0';

	struct fl_shim_logline got;
	memset(&got, 0xA5, sizeof got);
	int r = fl_shim_logline_parse(line, &got);
	bool tagged = !strncmp(line, "futexlab-shim ", 14);
	FUZZ_ASSERT(r == 0 || r == 1 || r == -1, "returned %d", r);
	FUZZ_ASSERT((r == 1) == !tagged, "returned %d for a line %s the tag", r,
		    tagged ? "with" : "without");
	if (r != 0) {
		const unsigned char *g = (const unsigned char *)&got;
		for (size_t i = 0; i < sizeof got; i++)
			FUZZ_ASSERT(g[i] == 0xA5, "*out written on %d (byte %zu)", r, i);
		free(line);
		return;
	}
	char out[FL_SHIM_LOGLINE_MAX];
	int w = fl_shim_logline_format(&got, out, sizeof out);
	FUZZ_ASSERT(w > 0, "an accepted line does not format back: %s", line);
	bool nl = n > 0 && line[n - 1] == '\n';
	FUZZ_ASSERT((size_t)w == n + !nl && !memcmp(out, line, n) && out[w - 1] == '\n',
		    "not canonical:\n  read  '%s'\n  wrote '%s'", line, out);
	struct fl_shim_logline again;
	FUZZ_ASSERT(fl_shim_logline_parse(out, &again) == 0 && same(&got, &again),
		    "the written line parses differently: %s", out);
	free(line);
}

/* n bytes of the input as a little-endian integer (0 past its end). */
static uint64_t take_int(const uint8_t **p, const uint8_t *end, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)(*p < end ? *(*p)++ : 0) << (8 * i);
	return v;
}

/* A NUL-terminated field of cap bytes from the input up to its next NUL,
 * cut to cap - 1 bytes, or, when the input says so, left unterminated. */
static void take_str(const uint8_t **p, const uint8_t *end, char *dst, size_t cap, bool unterminated)
{
	const uint8_t *nul = memchr(*p, '\0', (size_t)(end - *p));
	size_t n = (size_t)((nul ? nul : end) - *p);
	memset(dst, unterminated ? 'u' : 0, cap);
	memcpy(dst, *p, n < cap - 1 ? n : cap - 1);
	*p = nul ? nul + 1 : end;
}

static bool in_class(const char *s, size_t cap, char lo, bool names)
{
	size_t n = strnlen(s, cap);
	if (n == 0 || n == cap)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (names ? !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')
			  : (c < lo || c > '~'))
			return false;
	}
	return true;
}

/* A policy's canonical text, from logline.h's words (park, adaptive,
 * spin:N or spin-yield:N with N 1..1000000 written without leading zeros),
 * sharing no code with logline.c. */
static bool policy_canonical(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	if (n == cap)
		return false;
	if (!strcmp(s, "park") || !strcmp(s, "adaptive"))
		return true;
	const char *num = NULL;
	if (!strncmp(s, "spin:", 5))
		num = s + 5;
	else if (!strncmp(s, "spin-yield:", 11))
		num = s + 11;
	if (!num || *num < '1' || *num > '9' || strlen(num) > 7)
		return false;
	long v = 0;
	for (const char *c = num; *c; c++) {
		if (*c < '0' || *c > '9')
			return false;
		v = v * 10 + (*c - '0');
	}
	return v <= 1000000;
}

static void struct_mode(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct fl_shim_logline r;
	memset(&r, 0, sizeof r);
	unsigned flags = (unsigned)take_int(&p, end, 1);
	r.pid = (int)(uint32_t)take_int(&p, end, 4);
	r.ppid = (int)(uint32_t)take_int(&p, end, 4);
	r.state = (enum fl_shim_state)(int8_t)take_int(&p, end, 1);
	uint64_t *counts[] = { &r.inits, &r.ours,	   &r.handed,	 &r.named,
			       &r.wait,	 &r.trywait, &r.timedwait, &r.clockwait,
			       &r.post,	 &r.blocked, &r.timeouts };
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
		/* small or huge: a width of 1 or 8 bytes, by a flag bit */
		*counts[i] = take_int(&p, end, flags & 0x80 ? 8 : 1);
	r.stats = flags & 1;
	r.blocked_known = flags & 2;
	take_str(&p, end, r.comm, sizeof r.comm, flags & 4);
	take_str(&p, end, r.variant, sizeof r.variant, flags & 8);
	take_str(&p, end, r.policy, sizeof r.policy, flags & 64);
	take_str(&p, end, r.reason, sizeof r.reason, flags & 16);

	bool valid = r.pid > 0 && r.ppid >= 0 && (unsigned)r.state < FL_SHIM_NSTATES &&
		     in_class(r.comm, sizeof r.comm, '!', false) &&
		     in_class(r.variant, sizeof r.variant, 0, true) &&
		     policy_canonical(r.policy, sizeof r.policy) &&
		     in_class(r.reason, sizeof r.reason, ' ', false);
	size_t len = flags & 32 ? (size_t)take_int(&p, end, 2) % (FL_SHIM_LOGLINE_MAX + 1)
				: FL_SHIM_LOGLINE_MAX;
	char *buf = malloc(len ? len : 1); /* exactly len: ASan sees a write past it */
	FUZZ_ASSERT(buf, "out of memory");
	int w = fl_shim_logline_format(&r, buf, len);
	if (!valid || len < FL_SHIM_LOGLINE_MAX) {
		FUZZ_ASSERT(valid || w == -1, "an invalid logline formatted: %.*s", w, buf);
		FUZZ_ASSERT(w == -1 || (size_t)w < len, "wrote %d bytes into %zu", w, len);
		if (w == -1) {
			FUZZ_ASSERT(len == 0 || buf[0] == '\0', "-1 left '%.20s' in buf", buf);
			free(buf);
			return;
		}
	}
	FUZZ_ASSERT(w > 0 && w < FL_SHIM_LOGLINE_MAX, "a valid logline not formatted: %d", w);
	FUZZ_ASSERT(buf[w] == '\0' && buf[w - 1] == '\n' && !memchr(buf, '\n', (size_t)w - 1),
		    "not one terminated line");
	struct fl_shim_logline back;
	FUZZ_ASSERT(fl_shim_logline_parse(buf, &back) == 0, "the written line is refused: %s", buf);
	FUZZ_ASSERT(same(&r, &back), "parsed back differently: %s", buf);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] == 0)
		struct_mode(data + 1, size - 1);
	else
		line_mode(data, size);
	return 0;
}
