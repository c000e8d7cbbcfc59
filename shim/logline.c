/* shim/logline.c — see logline.h. */
#include "shim/logline.h"

#include <limits.h>
#include <string.h>

#include "variants/policy.h" /* FL_POLICY_BOUND_MAX, FL_POLICY_TEXT_MAX: macros only */

_Static_assert(FL_SHIM_POLICY_MAX + 1 == FL_POLICY_TEXT_MAX, "logline.h and policy.h disagree");

static const char *const state_names[FL_SHIM_NSTATES] = {
	[FL_SHIM_ON] = "on",
	[FL_SHIM_PASS] = "pass",
	[FL_SHIM_REFUSED] = "refused",
	[FL_SHIM_CAPPED] = "capped",
	[FL_SHIM_SKIPPED] = "skipped",
};

const char *fl_shim_state_name(enum fl_shim_state s)
{
	return (unsigned)s < FL_SHIM_NSTATES ? state_names[s] : NULL;
}

/* The byte classes of the fields. */
static bool comm_char(char c) /* graphic ASCII: no space, no control */
{
	return c > ' ' && c <= '~';
}

static bool reason_char(char c) /* printable ASCII, space included */
{
	return c >= ' ' && c <= '~';
}

static bool name_char(char c) /* a variant name, as FUTEXLAB_VARIANT (env.c) */
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* s is 1..max bytes of class ok, NUL-terminated within max + 1 bytes. */
static bool field_ok(const char *s, size_t max, bool (*ok)(char))
{
	size_t n = strnlen(s, max + 1);
	if (n == 0 || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!ok(s[i]))
			return false;
	return true;
}

/* The canonical text of a waiting policy (what fl_policy_format writes):
 * park, adaptive, or spin:N / spin-yield:N with N in canonical decimal
 * 1..FL_POLICY_BOUND_MAX. Written here rather than called (fl_policy_parse
 * uses strtol): this file stays pure and links nothing. */
static bool policy_ok(const char *s, size_t n)
{
	if ((n == 4 && !memcmp(s, "park", 4)) || (n == 8 && !memcmp(s, "adaptive", 8)))
		return true;
	size_t k = 0; /* where the bound starts */
	if (n > 5 && !memcmp(s, "spin:", 5))
		k = 5;
	else if (n > 11 && !memcmp(s, "spin-yield:", 11))
		k = 11;
	if (k == 0 || s[k] == '0' || n - k > 7) /* (7 digits: FL_POLICY_BOUND_MAX's) */
		return false;
	uint32_t v = 0;
	for (size_t i = k; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint32_t)(s[i] - '0');
	}
	return v <= FL_POLICY_BOUND_MAX;
}

/* ---- parsing ------------------------------------------------------------- */

/* The cursor: *p moves over what was accepted. */

/* "KEY=" at *p. */
static bool key(const char **p, const char *k)
{
	size_t n = strlen(k);
	if (strncmp(*p, k, n) != 0 || (*p)[n] != '=')
		return false;
	*p += n + 1;
	return true;
}

/* The value at *p: the bytes up to the next space or the end of the line;
 * its length. */
static size_t value_len(const char *p)
{
	return strcspn(p, " \n");
}

/* A value that is not the last: it ends with exactly one space. */
static bool next(const char **p)
{
	if (**p != ' ')
		return false;
	(*p)++;
	return true;
}

/* Canonical decimal up to max: "0" or [1-9][0-9]*, no sign, no overflow. */
static bool number(const char **p, uint64_t max, uint64_t *out)
{
	const char *s = *p;
	size_t n = value_len(s);
	if (n == 0 || (s[0] == '0' && n > 1))
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*p += n;
	*out = v;
	return true;
}

static bool int_field(const char **p, const char *k, int min, int *out)
{
	uint64_t v;
	if (!key(p, k) || !number(p, INT_MAX, &v) || v < (uint64_t)min)
		return false;
	*out = (int)v;
	return true;
}

static bool count_field(const char **p, const char *k, uint64_t *out)
{
	return key(p, k) && number(p, UINT64_MAX, out);
}

/* A word of 1..max bytes of class ok into out[max + 1]. */
static bool word(const char **p, const char *k, size_t max, bool (*ok)(char), char *out)
{
	if (!key(p, k))
		return false;
	size_t n = value_len(*p);
	if (n == 0 || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!ok((*p)[i]))
			return false;
	memcpy(out, *p, n);
	out[n] = '\0';
	*p += n;
	return true;
}

static bool policy_field(const char **p, char *out)
{
	if (!key(p, "policy"))
		return false;
	size_t n = value_len(*p);
	if (n > FL_SHIM_POLICY_MAX || !policy_ok(*p, n))
		return false;
	memcpy(out, *p, n);
	out[n] = '\0';
	*p += n;
	return true;
}

static bool state_field(const char **p, enum fl_shim_state *out)
{
	if (!key(p, "state"))
		return false;
	size_t n = value_len(*p);
	for (int s = 0; s < FL_SHIM_NSTATES; s++)
		if (strlen(state_names[s]) == n && !memcmp(*p, state_names[s], n)) {
			*out = (enum fl_shim_state)s;
			*p += n;
			return true;
		}
	return false;
}

static bool counts(const char **p, struct fl_shim_logline *r)
{
	if (!(count_field(p, "wait", &r->wait) && next(p) &&
	      count_field(p, "trywait", &r->trywait) && next(p) &&
	      count_field(p, "timedwait", &r->timedwait) && next(p) &&
	      count_field(p, "clockwait", &r->clockwait) && next(p) &&
	      count_field(p, "post", &r->post) && next(p) && key(p, "blocked")))
		return false;
	if ((*p)[0] == '-' && value_len(*p) == 1) {
		(*p)++;
	} else {
		if (!number(p, UINT64_MAX, &r->blocked))
			return false;
		r->blocked_known = true;
	}
	return next(p) && count_field(p, "timeouts", &r->timeouts) && next(p);
}

int fl_shim_logline_parse(const char *line, struct fl_shim_logline *out)
{
	static const char tag[] = FL_SHIM_LOGLINE_TAG " ";
	if (strncmp(line, tag, sizeof tag - 1) != 0)
		return 1;
	const char *p = line + sizeof tag - 1;
	/* every field is written before *out is: untouched on error */
	struct fl_shim_logline r;
	memset(&r, 0, sizeof r);
	if (!(int_field(&p, "pid", 1, &r.pid) && next(&p) &&
	      int_field(&p, "ppid", 0, &r.ppid) && next(&p) &&
	      word(&p, "comm", FL_SHIM_COMM_MAX, comm_char, r.comm) && next(&p) &&
	      word(&p, "variant", FL_SHIM_NAME_MAX, name_char, r.variant) && next(&p) &&
	      policy_field(&p, r.policy) && next(&p) &&
	      state_field(&p, &r.state) && next(&p) &&
	      count_field(&p, "inits", &r.inits) && next(&p) &&
	      count_field(&p, "ours", &r.ours) && next(&p) &&
	      count_field(&p, "handed", &r.handed) && next(&p) &&
	      count_field(&p, "named", &r.named) && next(&p)))
		return -1;
	if (!strncmp(p, "wait=", 5)) {
		if (!counts(&p, &r))
			return -1;
		r.stats = true;
	}
	if (!key(&p, "reason"))
		return -1;
	/* the rest of the line, up to an optional final '\n' */
	size_t n = strcspn(p, "\n");
	if (p[n] == '\n' && p[n + 1] != '\0')
		return -1;
	if (n == 0 || n > FL_SHIM_REASON_MAX)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!reason_char(p[i]))
			return -1;
	memcpy(r.reason, p, n);
	r.reason[n] = '\0';
	*out = r;
	return 0;
}

/* ---- formatting ---------------------------------------------------------- */

/* The line under construction: buf[0..len), never past cap - 1 (room for
 * the NUL); full once something did not fit. */
struct line {
	char *buf;
	size_t cap, len;
	bool full;
};

static void put(struct line *l, const char *s)
{
	size_t n = strlen(s);
	if (l->full || n >= l->cap - l->len) {
		l->full = true;
		return;
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

static void put_u64(struct line *l, uint64_t v)
{
	char d[21];
	size_t i = sizeof d;
	d[--i] = '\0';
	do
		d[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	put(l, d + i);
}

/* " KEY=" (no space before the first key: the tag ends with one) */
static void put_key(struct line *l, const char *k)
{
	put(l, " ");
	put(l, k);
	put(l, "=");
}

static void put_count(struct line *l, const char *k, uint64_t v)
{
	put_key(l, k);
	put_u64(l, v);
}

int fl_shim_logline_format(const struct fl_shim_logline *r, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (r->pid < 1 || r->ppid < 0 || !fl_shim_state_name(r->state) ||
	    !field_ok(r->comm, FL_SHIM_COMM_MAX, comm_char) ||
	    !field_ok(r->variant, FL_SHIM_NAME_MAX, name_char) ||
	    !policy_ok(r->policy, strnlen(r->policy, FL_SHIM_POLICY_MAX + 1)) ||
	    !field_ok(r->reason, FL_SHIM_REASON_MAX, reason_char))
		return -1;
	if (len == 0)
		return -1;
	struct line l = { buf, len, 0, false };
	put(&l, FL_SHIM_LOGLINE_TAG);
	put_count(&l, "pid", (uint64_t)r->pid);
	put_count(&l, "ppid", (uint64_t)r->ppid);
	put_key(&l, "comm");
	put(&l, r->comm);
	put_key(&l, "variant");
	put(&l, r->variant);
	put_key(&l, "policy");
	put(&l, r->policy);
	put_key(&l, "state");
	put(&l, fl_shim_state_name(r->state));
	put_count(&l, "inits", r->inits);
	put_count(&l, "ours", r->ours);
	put_count(&l, "handed", r->handed);
	put_count(&l, "named", r->named);
	if (r->stats) {
		put_count(&l, "wait", r->wait);
		put_count(&l, "trywait", r->trywait);
		put_count(&l, "timedwait", r->timedwait);
		put_count(&l, "clockwait", r->clockwait);
		put_count(&l, "post", r->post);
		put_key(&l, "blocked");
		if (r->blocked_known)
			put_u64(&l, r->blocked);
		else
			put(&l, "-");
		put_count(&l, "timeouts", r->timeouts);
	}
	put_key(&l, "reason");
	put(&l, r->reason);
	put(&l, "\n");
	if (l.full) {
		buf[0] = '\0';
		return -1;
	}
	buf[l.len] = '\0';
	return (int)l.len;
}
