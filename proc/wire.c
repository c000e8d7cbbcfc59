/* proc/wire.c — see wire.h. The two field tables below are the whole
 * wire format of struct fl_params and struct fl_result: the parameters' is
 * listed here (a new parameter is a new line here); the result's is
 * generated from the one table of result fields (schema/result_fields.h),
 * so every field of the result crosses the wire with no line here. */
#include "proc/wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the buffer ------------------------------------------------------- */

static void grow(struct fl_msg *m, size_t need)
{
	if (m->len + need + 1 <= m->cap)
		return;
	size_t cap = m->cap ? m->cap : 1024;
	while (cap < m->len + need + 1)
		cap *= 2;
	char *s = realloc(m->s, cap);
	if (!s) {
		fprintf(stderr, "futexlab: out of memory\n");
		exit(1);
	}
	m->s = s;
	m->cap = cap;
}

void fl_msg_add(struct fl_msg *m, const char *fmt, ...)
{
	/* Into a stack buffer first (every message line fits; a longer one is
	 * formatted again at its length). Not vsnprintf(NULL, 0, ...): GCC 12's
	 * -Wformat-truncation, with ASan at -O1, calls that a null format. */
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	grow(m, (size_t)k);
	if ((size_t)k < sizeof buf) {
		memcpy(m->s + m->len, buf, (size_t)k + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(m->s + m->len, (size_t)k + 1, fmt, ap);
		va_end(ap);
	}
	m->len += (size_t)k;
}

void fl_msg_str(struct fl_msg *m, const char *key, const char *value)
{
	fl_msg_add(m, "%s=", key);
	for (const char *c = value; *c; c++) {
		grow(m, 2);
		if (*c == '\\' || *c == '\n') {
			m->s[m->len++] = '\\';
			m->s[m->len++] = *c == '\n' ? 'n' : '\\';
		} else {
			m->s[m->len++] = *c;
		}
	}
	fl_msg_add(m, "\n");
}

void fl_msg_free(struct fl_msg *m)
{
	free(m->s);
	*m = (struct fl_msg){ 0 };
}

/* ---- the field tables --------------------------------------------------- */

enum ftype { F_INT, F_I64, F_DBL, F_BOOL, F_STR };

struct field {
	const char *key;
	enum ftype t;
	size_t off, size;
};

#define FIELD(S, f, T) { #f, T, offsetof(struct S, f), sizeof(((struct S *)0)->f) }

static const struct field params_fields[] = {
	FIELD(fl_params, threads, F_INT),
	FIELD(fl_params, tokens, F_INT),
	FIELD(fl_params, sems, F_INT),
	FIELD(fl_params, hold_ns, F_I64),
	FIELD(fl_params, think_ns, F_I64),
	FIELD(fl_params, ops, F_I64),
	FIELD(fl_params, duration_ns, F_I64),
	FIELD(fl_params, latency, F_BOOL),
	FIELD(fl_params, stranded_ns, F_I64),
	FIELD(fl_params, preempt_stall_ns, F_I64),
	FIELD(fl_params, preempt_interval_ns, F_I64),
	FIELD(fl_params, preempt_text, F_STR),
};

/* The result's fields: every FIELD of the one table
 * (schema/result_fields.h), in its order. */
#define RESULT_FIELD(kind, name, arg, csv) FIELD(fl_result, name, F_##kind),
static const struct field result_fields[] = {
	FL_RESULT_TABLE(RESULT_FIELD, FL_RESULT_SKIP_COLUMN)
};

/* One of the tables above with its length: what put_fields writes and
 * get_field reads by. */
struct table {
	const struct field *f;
	size_t n;
};

#define TABLE(a) { a, sizeof(a) / sizeof((a)[0]) }
static const struct table params_table = TABLE(params_fields);
static const struct table result_table = TABLE(result_fields);

static void put_fields(struct fl_msg *m, const struct table *t, const void *base)
{
	const struct field *f = t->f;
	const char *b = base;
	for (size_t i = 0; i < t->n; i++) {
		const void *p = b + f[i].off;
		switch (f[i].t) {
		case F_INT: fl_msg_add(m, "%s=%d\n", f[i].key, *(const int *)p); break;
		case F_I64: fl_msg_add(m, "%s=%lld\n", f[i].key, (long long)*(const int64_t *)p); break;
		case F_DBL: fl_msg_add(m, "%s=%a\n", f[i].key, *(const double *)p); break;
		case F_BOOL: fl_msg_add(m, "%s=%d\n", f[i].key, *(const bool *)p ? 1 : 0); break;
		case F_STR: fl_msg_str(m, f[i].key, p); break;
		}
	}
}

static int num(const char *key, const char *v, long long *out, char *err, size_t n)
{
	char *end;
	errno = 0;
	*out = strtoll(v, &end, 10);
	if (errno || end == v || *end) {
		snprintf(err, n, "field %s: bad number '%.40s'", key, v);
		return -1;
	}
	return 0;
}

/* Sets field key of base (a struct t describes) from v. 1: not in the
 * table; 0: set; -1: bad value (err[]). */
static int get_field(const struct table *t, void *base, const char *key, const char *v,
		     char *err, size_t n)
{
	const struct field *f = t->f;
	char *b = base;
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(f[i].key, key))
			continue;
		void *p = b + f[i].off;
		long long x;
		switch (f[i].t) {
		case F_INT:
			if (num(key, v, &x, err, n))
				return -1;
			*(int *)p = (int)x;
			return 0;
		case F_I64:
			if (num(key, v, &x, err, n))
				return -1;
			*(int64_t *)p = x;
			return 0;
		case F_BOOL:
			if (num(key, v, &x, err, n))
				return -1;
			*(bool *)p = x != 0;
			return 0;
		case F_DBL: {
			char *end;
			*(double *)p = strtod(v, &end);
			if (end == v || *end) {
				snprintf(err, n, "field %s: bad number '%.40s'", key, v);
				return -1;
			}
			return 0;
		}
		case F_STR:
			snprintf(p, f[i].size, "%s", v);
			return 0;
		}
	}
	return 1;
}

/* ---- messages ------------------------------------------------------------ */

void fl_wire_put_req(struct fl_msg *m, const struct fl_helper_req *q)
{
	fl_msg_add(m, "run\n");
	fl_msg_str(m, "variant", q->variant);
	fl_msg_str(m, "workload", q->workload);
	char pol[FL_POLICY_TEXT_MAX];
	fl_msg_add(m, "wake=%d\npolicy=%s\n", q->wake,
		   fl_policy_format(&q->policy, pol, sizeof pol));
	put_fields(m, &params_table, &q->p);
	fl_msg_add(m, "end\n");
}

void fl_wire_put_result(struct fl_msg *m, const struct fl_result *r)
{
	fl_msg_add(m, "result\n");
	put_fields(m, &result_table, r);
	if (r->lat) {
		fl_msg_add(m, "lat_n=%lld\nlat_min=%lld\nlat_max=%lld\n", (long long)r->lat->n,
			   (long long)r->lat->min, (long long)r->lat->max);
		for (int i = 0; i < FL_HIST_BUCKETS; i++)
			if (r->lat->b[i])
				fl_msg_add(m, "lat_b=%d:%llu\n", i, (unsigned long long)r->lat->b[i]);
	}
	fl_msg_add(m, "end\n");
}

static void unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (*s == '\\' && (s[1] == 'n' || s[1] == '\\'))
			*o++ = *++s == 'n' ? '\n' : '\\';
		else
			*o++ = *s;
	}
	*o = '\0';
}

int fl_wire_parse(char *text, const char *kind,
		   int (*line)(const char *key, char *value, void *arg, char *err, size_t n),
		   void *arg, char *err, size_t n)
{
	char *save, *l = strtok_r(text, "\n", &save);
	if (!l || strcmp(l, kind)) {
		snprintf(err, n, "expected a '%s' message, got '%.60s'", kind, l ? l : "");
		return -1;
	}
	while ((l = strtok_r(NULL, "\n", &save))) {
		if (!strcmp(l, "end"))
			return 0;
		char *eq = strchr(l, '=');
		if (!eq) {
			snprintf(err, n, "malformed line '%.60s'", l);
			return -1;
		}
		*eq = '\0';
		unescape(eq + 1);
		if (line(l, eq + 1, arg, err, n))
			return -1;
	}
	snprintf(err, n, "'%s' message without its end", kind);
	return -1;
}

static int req_line(const char *key, char *v, void *arg, char *err, size_t n)
{
	struct fl_helper_req *q = arg;
	long long x;
	if (!strcmp(key, "variant")) {
		snprintf(q->variant, sizeof q->variant, "%s", v);
	} else if (!strcmp(key, "workload")) {
		snprintf(q->workload, sizeof q->workload, "%s", v);
	} else if (!strcmp(key, "wake")) {
		if (num(key, v, &x, err, n))
			return -1;
		q->wake = (int)x;
	} else if (!strcmp(key, "policy")) {
		char why[160];
		if (fl_policy_parse(v, &q->policy, why, sizeof why)) {
			snprintf(err, n, "field policy: %s", why);
			return -1;
		}
	} else {
		int k = get_field(&params_table, &q->p, key, v, err, n);
		if (k > 0)
			snprintf(err, n, "unknown field '%.40s' (harness and helper of different "
				 "revisions?)", key);
		return k ? -1 : 0;
	}
	return 0;
}

int fl_wire_get_req(char *text, struct fl_helper_req *q, char *err, size_t n)
{
	*q = (struct fl_helper_req){ .policy = FL_POLICY_PARK_INIT, .p.sems = 1 };
	return fl_wire_parse(text, "run", req_line, q, err, n);
}

static int result_line(const char *key, char *v, void *arg, char *err, size_t n)
{
	struct fl_result *r = arg;
	long long x;
	if (!strncmp(key, "lat_", 4)) {
		if (!r->lat && !(r->lat = calloc(1, sizeof *r->lat))) {
			snprintf(err, n, "out of memory");
			return -1;
		}
		if (!strcmp(key, "lat_b")) {
			char *colon = strchr(v, ':');
			long long c;
			if (!colon)
				goto bad;
			*colon = '\0';
			if (num(key, v, &x, err, n) || num(key, colon + 1, &c, err, n))
				return -1;
			if (x < 0 || x >= FL_HIST_BUCKETS)
				goto bad;
			r->lat->b[x] = (uint64_t)c;
			return 0;
		}
		if (num(key, v, &x, err, n))
			return -1;
		if (!strcmp(key, "lat_n"))
			r->lat->n = x;
		else if (!strcmp(key, "lat_min"))
			r->lat->min = x;
		else if (!strcmp(key, "lat_max"))
			r->lat->max = x;
		else
			goto unknown;
		return 0;
	}
	int k = get_field(&result_table, r, key, v, err, n);
	if (k <= 0)
		return k;
unknown:
	snprintf(err, n, "unknown field '%.40s' (harness and helper of different revisions?)",
		 key);
	return -1;
bad:
	snprintf(err, n, "field %s: bad bucket '%.40s'", key, v);
	return -1;
}

int fl_wire_get_result(char *text, struct fl_result *r, char *err, size_t n)
{
	*r = (struct fl_result)FL_RESULT_EMPTY;
	return fl_wire_parse(text, "result", result_line, r, err, n);
}
