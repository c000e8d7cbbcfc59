/* shim/env.c — see env.h. */
#include "shim/env.h"

#include <string.h>

#include "variants/variant.h"

/* The message under construction: err[0..len), always NUL-terminated,
 * silently cut at errlen - 1 bytes. */
struct msg {
	char *buf;
	size_t cap, len;
};

static void put_char(struct msg *m, char c)
{
	if (m->cap && m->len + 1 < m->cap) {
		m->buf[m->len++] = c;
		m->buf[m->len] = '\0';
	}
}

static void put(struct msg *m, const char *s)
{
	while (*s)
		put_char(m, *s++);
}

/* s[0..n) between quotes, at most 32 bytes of it, each non-printable byte
 * (and the quote and backslash) as \xNN: the message stays one line. */
static void put_quoted(struct msg *m, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t shown = n > 32 ? 32 : n;
	put_char(m, '\'');
	for (size_t i = 0; i < shown; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
			put_char(m, (char)c);
		} else {
			put(m, "\\x");
			put_char(m, hex[c >> 4]);
			put_char(m, hex[c & 0xf]);
		}
	}
	put(m, shown < n ? "'..." : "'");
}

static int fail(struct msg *m, const char *what, const char *s, size_t n, const char *why)
{
	put(m, what);
	put(m, ": ");
	put_quoted(m, s, n);
	put_char(m, ' ');
	put(m, why);
	return -1;
}

_Static_assert(FL_POLICY_BOUND_MAX == 1000000, "FUTEXLAB_POLICY's message says 1..1000000");

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* @NAME's NAME: an abstract socket's name fits sun_path after its leading
 * NUL (108 bytes in all); printable without spaces, so a message quoting
 * it stays one line and no NUL or control byte hides in it. */
static bool channel_name(const char *s, size_t n)
{
	if (n == 0 || n > FL_SHIM_CHANNEL_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return false;
	return true;
}

static const struct {
	const char *name;
	unsigned flags;
} allow_items[] = {
	{ "destroy", FL_DESTROY_UNSAFE },
	{ "signal", FL_SIGNAL_UNSAFE },
	{ "eintr", FL_NO_EINTR },
	{ "all", FL_DESTROY_UNSAFE | FL_SIGNAL_UNSAFE | FL_NO_EINTR },
};

int fl_shim_env_parse(const struct fl_shim_vars *in, struct fl_shim_env *out, char *err,
		      size_t errlen)
{
	struct msg m = { err, errlen, 0 };
	if (err && errlen)
		err[0] = '\0';
	else
		m.cap = 0;
	struct fl_shim_env e = { .variant = "negcount", .policy = FL_POLICY_PARK_INIT }; /* *out only on success */
	const char *variant = in->variant, *allow = in->allow, *stats = in->stats,
		   *log = in->log;

	if (variant && *variant) {
		/* bounded: never reads past byte 64 of a long value */
		size_t n = strnlen(variant, FL_SHIM_VARIANT_MAX + 1);
		if (n > FL_SHIM_VARIANT_MAX)
			return fail(&m, "FUTEXLAB_VARIANT", variant, n,
				    "is longer than 63 bytes");
		for (size_t i = 0; i < n; i++)
			if (!name_char(variant[i]))
				return fail(&m, "FUTEXLAB_VARIANT", variant, n,
					    "has a character outside [a-z0-9_-]");
		memcpy(e.variant, variant, n);
		e.variant[n] = '\0';
	}

	e.debug = in->debug && *in->debug && strcmp(in->debug, "0") != 0;

	for (const char *p = allow; p && *p;) {
		size_t n = strcspn(p, ",");
		bool known = n == 0; /* an empty item is ignored */
		for (size_t i = 0; !known && i < sizeof allow_items / sizeof allow_items[0]; i++)
			if (strlen(allow_items[i].name) == n && !memcmp(p, allow_items[i].name, n)) {
				e.allow |= allow_items[i].flags;
				known = true;
			}
		if (!known)
			return fail(&m, "FUTEXLAB_ALLOW", p, n,
				    "is not destroy, signal, eintr or all");
		p += n;
		if (*p == ',')
			p++;
	}

	if (stats && *stats && strcmp(stats, "0") != 0) {
		if (strcmp(stats, "1") != 0)
			return fail(&m, "FUTEXLAB_STATS", stats, strnlen(stats, 64),
				    "is not 0 or 1");
		e.stats = true;
	}

	if (log && *log) {
		size_t n = strnlen(log, FL_SHIM_LOG_MAX + 1);
		if (n > FL_SHIM_LOG_MAX)
			return fail(&m, "FUTEXLAB_LOG", log, n, "is longer than 4095 bytes");
		if (log[0] == '@' && !channel_name(log + 1, n - 1))
			return fail(&m, "FUTEXLAB_LOG", log, n,
				    "is not @NAME (1-107 bytes of '!'..'~')");
		if (log[0] != '/' && log[0] != '@')
			return fail(&m, "FUTEXLAB_LOG", log, n,
				    "is not an absolute path or @NAME");
		memcpy(e.log, log, n);
		e.log[n] = '\0';
	}

	const char *policy = in->policy;
	if (policy && *policy) {
		/* (the reason fl_policy_parse gives repeats the value unquoted:
		 * the message quotes it and names the policies instead) */
		char why[160];
		if (fl_policy_parse(policy, &e.policy, why, sizeof why))
			return fail(&m, "FUTEXLAB_POLICY", policy, strnlen(policy, 64),
				    "is not a policy (" FL_POLICY_NAMES "; N in 1..1000000)");
	}

	*out = e;
	return 0;
}
