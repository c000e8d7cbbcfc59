/* tests/test_shim_env.c — shim/env.c, the shim's environment parser, on
 * inputs whose answers are known: defaults, names at and past the 63-byte
 * bound, every character class, FUTEXLAB_DEBUG's on/off values, every
 * FUTEXLAB_ALLOW item alone and combined with empty items, FUTEXLAB_STATS's
 * three accepted values, FUTEXLAB_LOG's absolute paths up to the 4095-byte
 * bound, FUTEXLAB_POLICY's policies (variants/policy.h), and every kind
 * of rejected input: -1, *out untouched, one line
 * naming the variable and quoting the value, cut safely to any errlen. (tests/fuzz/fuzz_shim_env.c
 * checks the same properties on arbitrary bytes.) */
#include <stdbool.h>
#include <string.h>

#include "tests/check.h"
#include "shim/env.h"
#include "variants/variant.h"

#define ALL3 (FL_DESTROY_UNSAFE | FL_SIGNAL_UNSAFE | FL_NO_EINTR)

static struct fl_shim_env env;
static char err[200];

/* Parses all five with a sentinel in *out and err; 0 or -1. */
static int parse5(const char *v, const char *d, const char *a, const char *st, const char *log)
{
	memset(&env, 0xA5, sizeof env);
	memset(err, 'Z', sizeof err);
	struct fl_shim_vars in = { .variant = v, .debug = d, .allow = a, .stats = st, .log = log };
	return fl_shim_env_parse(&in, &env, err, sizeof err);
}

/* FUTEXLAB_POLICY alone (a sentinel in *out and err); 0 or -1. */
static int parse_policy(const char *pol, const char *log)
{
	memset(&env, 0xA5, sizeof env);
	memset(err, 'Z', sizeof err);
	struct fl_shim_vars in = { .log = log, .policy = pol };
	return fl_shim_env_parse(&in, &env, err, sizeof err);
}

/* The first three, FUTEXLAB_STATS and FUTEXLAB_LOG unset. */
static int parse(const char *v, const char *d, const char *a)
{
	return parse5(v, d, a, NULL, NULL);
}

static bool untouched(void)
{
	const unsigned char *p = (const unsigned char *)&env;
	for (size_t i = 0; i < sizeof env; i++)
		if (p[i] != 0xA5)
			return false;
	return true;
}

static void accept(const char *v, const char *d, const char *a, const char *want_v,
		   bool want_d, unsigned want_a)
{
	int r = parse(v, d, a);
	CHECK(r == 0, "(%s, %s, %s) refused: %s", v ? v : "NULL", d ? d : "NULL",
	      a ? a : "NULL", err);
	if (r)
		return;
	CHECK(!strcmp(env.variant, want_v), "variant '%s', want '%s'", env.variant, want_v);
	CHECK(env.debug == want_d, "debug %d for '%s'", env.debug, d ? d : "NULL");
	CHECK(env.allow == want_a, "allow %#x for '%s', want %#x", env.allow, a ? a : "NULL",
	      want_a);
	CHECK(!env.stats && env.log[0] == '\0', "stats %d, log '%.40s' with both unset",
	      env.stats, env.log);
	CHECK(env.policy.kind == FL_POLICY_PARK && env.policy.bound == 0,
	      "policy %d:%d with FUTEXLAB_POLICY unset", env.policy.kind, env.policy.bound);
}

/* The result of parse5 is refused: -1, *out untouched, one line in err
 * that holds `want`. */
static void refused(int r, const char *want)
{
	CHECK(r == -1, "accepted, want a refusal with '%s'", want);
	if (r != -1)
		return;
	CHECK(untouched(), "*out written on error");
	CHECK(memchr(err, '\0', sizeof err) != NULL, "err not terminated");
	CHECK(!strchr(err, '\n') && !strchr(err, '\r'), "err is not one line: %s", err);
	CHECK(strstr(err, want) != NULL, "err '%s' lacks '%s'", err, want);
}

static void refuse(const char *v, const char *d, const char *a, const char *want)
{
	refused(parse(v, d, a), want);
}

static void t_defaults(void *arg)
{
	(void)arg;
	accept(NULL, NULL, NULL, "negcount", false, 0);
	accept("", "", "", "negcount", false, 0);
}

static void t_variant(void *arg)
{
	(void)arg;
	accept("split", NULL, NULL, "split", false, 0);
	accept("glibc64", NULL, NULL, "glibc64", false, 0);
	accept("ctl_negcount", NULL, NULL, "ctl_negcount", false, 0);
	accept("floor-atomic", NULL, NULL, "floor-atomic", false, 0);
	accept("0", NULL, NULL, "0", false, 0);
	/* syntax only: whether the name is registered is the caller's question */
	accept("nosuchdesign", NULL, NULL, "nosuchdesign", false, 0);
	char name[100];
	memset(name, 'a', sizeof name);
	name[63] = '\0';
	accept(name, NULL, NULL, name, false, 0);
	name[63] = 'a';
	name[64] = '\0';
	refuse(name, NULL, NULL, "FUTEXLAB_VARIANT: 'aaaa");
	refuse(name, NULL, NULL, "longer than 63 bytes");
	CHECK(strstr(err, "...") != NULL, "a long value is cut with ...: %s", err);
	name[64] = '-';
	name[99] = '\0';
	refuse(name, NULL, NULL, "longer than 63 bytes");

	refuse("Negcount", NULL, NULL, "FUTEXLAB_VARIANT: 'Negcount' has a character outside");
	refuse("neg count", NULL, NULL, "[a-z0-9_-]");
	refuse("neg/count", NULL, NULL, "[a-z0-9_-]");
	refuse("glibc#2", NULL, NULL, "[a-z0-9_-]");
	refuse("split ", NULL, NULL, "[a-z0-9_-]");
	refuse("n\xc3\xa9gcount", NULL, NULL, "'n\\xc3\\xa9gcount'");
	refuse("a\nb", NULL, NULL, "'a\\x0ab'");
	refuse("a'b", NULL, NULL, "'a\\x27b'");
	/* an invalid variant fails whatever the other two say */
	refuse("X", "1", "all", "FUTEXLAB_VARIANT");
}

static void t_debug(void *arg)
{
	(void)arg;
	accept(NULL, "0", NULL, "negcount", false, 0);
	accept(NULL, "1", NULL, "negcount", true, 0);
	accept(NULL, "yes", NULL, "negcount", true, 0);
	accept(NULL, "00", NULL, "negcount", true, 0);
	accept(NULL, "0 ", NULL, "negcount", true, 0);
	accept(NULL, " ", NULL, "negcount", true, 0);
}

static void t_allow(void *arg)
{
	(void)arg;
	accept(NULL, NULL, "destroy", "negcount", false, FL_DESTROY_UNSAFE);
	accept(NULL, NULL, "signal", "negcount", false, FL_SIGNAL_UNSAFE);
	accept(NULL, NULL, "eintr", "negcount", false, FL_NO_EINTR);
	accept(NULL, NULL, "all", "negcount", false, ALL3);
	accept(NULL, NULL, "signal,eintr", "negcount", false, FL_SIGNAL_UNSAFE | FL_NO_EINTR);
	accept(NULL, NULL, "destroy,signal,eintr", "negcount", false, ALL3);
	accept(NULL, NULL, "destroy,all", "negcount", false, ALL3);
	accept(NULL, NULL, "eintr,eintr", "negcount", false, FL_NO_EINTR);
	accept(NULL, NULL, ",", "negcount", false, 0);
	accept(NULL, NULL, ",,destroy,,", "negcount", false, FL_DESTROY_UNSAFE);
	accept(NULL, NULL, ",signal", "negcount", false, FL_SIGNAL_UNSAFE);
	accept("split", "1", "destroy", "split", true, FL_DESTROY_UNSAFE);

	refuse(NULL, NULL, "foo", "FUTEXLAB_ALLOW: 'foo' is not destroy, signal, eintr or all");
	refuse(NULL, NULL, "destroy,foo", "'foo'");
	refuse(NULL, NULL, "destroy,foo,signal", "'foo' is not");
	refuse(NULL, NULL, " destroy", "' destroy'");
	refuse(NULL, NULL, "destroy ", "'destroy '");
	refuse(NULL, NULL, "DESTROY", "'DESTROY'");
	refuse(NULL, NULL, "al", "'al'");
	refuse(NULL, NULL, "alll", "'alll'");
	refuse(NULL, NULL, "destro", "'destro'");
	refuse(NULL, NULL, "destroy;signal", "'destroy;signal'");
	refuse(NULL, NULL, "eintr,\t", "'\\x09'");
}

static void t_stats(void *arg)
{
	(void)arg;
	static const struct {
		const char *in;
		bool on;
	} ok[] = { { NULL, false }, { "", false }, { "0", false }, { "1", true } };
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		int r = parse5("musl", "1", "eintr", ok[i].in, NULL);
		CHECK(r == 0, "FUTEXLAB_STATS='%s' refused: %s", ok[i].in ? ok[i].in : "NULL", err);
		CHECK(r || (env.stats == ok[i].on && !strcmp(env.variant, "musl") && env.debug &&
			    env.allow == FL_NO_EINTR && env.log[0] == '\0'),
		      "FUTEXLAB_STATS='%s': stats %d, the others changed", ok[i].in ? ok[i].in : "NULL",
		      env.stats);
	}
	/* FUTEXLAB_DEBUG's "anything but 0 is on" is not FUTEXLAB_STATS's rule */
	static const char *const bad[] = { "2", "yes", "on", "true", "00", "01", "1 ", " 1", "-1",
					   "1\n", "10" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		refused(parse5(NULL, NULL, NULL, bad[i], NULL), "FUTEXLAB_STATS: '");
	refused(parse5(NULL, NULL, NULL, "yes", NULL), "FUTEXLAB_STATS: 'yes' is not 0 or 1");
	refused(parse5(NULL, NULL, NULL, "1\n", NULL), "'1\\x0a'");
	/* checked after the variable before it: a bad ALLOW is the one named */
	refused(parse5(NULL, NULL, "x", "yes", NULL), "FUTEXLAB_ALLOW");
}

static void t_log(void *arg)
{
	(void)arg;
	CHECK(parse5(NULL, NULL, NULL, NULL, "") == 0 && env.log[0] == '\0', "empty: no log");
	CHECK(parse5(NULL, NULL, NULL, "1", "/tmp/x.log") == 0 && !strcmp(env.log, "/tmp/x.log") &&
		      env.stats && !strcmp(env.variant, "negcount"),
	      "'/tmp/x.log': %s", err);
	CHECK(parse5(NULL, NULL, NULL, NULL, "/") == 0 && !strcmp(env.log, "/"), "'/'");
	/* any byte a path may hold, spaces and newlines included: the path is
	 * never written into a line */
	CHECK(parse5(NULL, NULL, NULL, NULL, "/a b/\n\xc3\xa9,=") == 0 &&
		      !strcmp(env.log, "/a b/\n\xc3\xa9,="),
	      "odd bytes: %s", err);
	/* @NAME: the report channel, an abstract socket's name */
	CHECK(parse5(NULL, NULL, NULL, NULL, "@futexlab-1-0123456789abcdef") == 0 &&
		      !strcmp(env.log, "@futexlab-1-0123456789abcdef"),
	      "@NAME: %s", err);
	CHECK(parse5(NULL, NULL, NULL, NULL, "@!~") == 0 && !strcmp(env.log, "@!~"), "@!~: %s", err);
	char chan[FL_SHIM_CHANNEL_MAX + 3];
	memset(chan, 'c', sizeof chan);
	chan[0] = '@';
	chan[FL_SHIM_CHANNEL_MAX + 1] = '\0';
	CHECK(parse5(NULL, NULL, NULL, NULL, chan) == 0 && strlen(env.log) == FL_SHIM_CHANNEL_MAX + 1,
	      "@ and %d bytes: %s", FL_SHIM_CHANNEL_MAX, err);
	chan[FL_SHIM_CHANNEL_MAX + 1] = 'c';
	chan[FL_SHIM_CHANNEL_MAX + 2] = '\0';
	refused(parse5(NULL, NULL, NULL, NULL, chan), "is not @NAME (1-107 bytes of '!'..'~')");
	refused(parse5(NULL, NULL, NULL, NULL, "@"), "FUTEXLAB_LOG: '@' is not @NAME");
	refused(parse5(NULL, NULL, NULL, NULL, "@a b"), "FUTEXLAB_LOG: '@a b' is not @NAME");
	refused(parse5(NULL, NULL, NULL, NULL, "@a\nb"), "FUTEXLAB_LOG: '@a\\x0ab' is not @NAME");
	refused(parse5(NULL, NULL, NULL, NULL, "@\xc3\xa9"), "is not @NAME");
	refused(parse5(NULL, NULL, NULL, NULL, "@a\x7f"), "is not @NAME");
	refused(parse5(NULL, NULL, NULL, NULL, "x.log"), "FUTEXLAB_LOG: 'x.log' is not an absolute path");
	refused(parse5(NULL, NULL, NULL, NULL, "./x.log"), "not an absolute path");
	refused(parse5(NULL, NULL, NULL, NULL, " /x.log"), "' /x.log' is not an absolute path");
	refused(parse5(NULL, NULL, NULL, NULL, "~/x.log"), "not an absolute path");
	/* the bound: 4095 bytes are a path, 4096 are not */
	static char path[FL_SHIM_LOG_MAX + 10];
	memset(path, 'p', sizeof path);
	path[0] = '/';
	path[FL_SHIM_LOG_MAX] = '\0';
	CHECK(parse5(NULL, NULL, NULL, NULL, path) == 0 && strlen(env.log) == FL_SHIM_LOG_MAX &&
		      !strcmp(env.log, path),
	      "a path of %d bytes: %s", FL_SHIM_LOG_MAX, err);
	path[FL_SHIM_LOG_MAX] = 'p';
	path[FL_SHIM_LOG_MAX + 1] = '\0';
	refused(parse5(NULL, NULL, NULL, NULL, path), "FUTEXLAB_LOG: '/ppp");
	refused(parse5(NULL, NULL, NULL, NULL, path), "is longer than 4095 bytes");
	/* checked last: a bad STATS is the one named */
	refused(parse5(NULL, NULL, NULL, "2", "rel"), "FUTEXLAB_STATS");
	refused(parse5("UP", NULL, NULL, NULL, "rel"), "FUTEXLAB_VARIANT");
}

static void t_policy(void *arg)
{
	(void)arg;
	static const struct {
		const char *in;
		enum fl_policy_kind kind;
		int bound;
	} ok[] = { { NULL, FL_POLICY_PARK, 0 },	     { "", FL_POLICY_PARK, 0 },
		   { "park", FL_POLICY_PARK, 0 },    { "spin:100", FL_POLICY_SPIN, 100 },
		   { "spin:1000000", FL_POLICY_SPIN, 1000000 },
		   { "spin-yield:4", FL_POLICY_SPIN_YIELD, 4 },
		   { "adaptive", FL_POLICY_ADAPTIVE, 0 } };
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		int r = parse_policy(ok[i].in, NULL);
		CHECK(r == 0 && env.policy.kind == ok[i].kind && env.policy.bound == ok[i].bound &&
			      !strcmp(env.variant, "negcount"),
		      "FUTEXLAB_POLICY='%s': %d, policy %d:%d (%s)", ok[i].in ? ok[i].in : "NULL", r,
		      env.policy.kind, env.policy.bound, r ? err : "");
	}
	static const char *const bad[] = { "spin", "spin:0", "spin:1000001", "spin:+5", "Park",
					   "adaptive:2", "yield", "spin-yield", " park" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		refused(parse_policy(bad[i], NULL), "FUTEXLAB_POLICY: '");
	refused(parse_policy("spin:0", NULL), "FUTEXLAB_POLICY: 'spin:0' is not a policy (park, "
					      "spin:N, spin-yield:N, adaptive; N in 1..1000000)");
	refused(parse_policy("spin:\n4", NULL), "'spin:\\x0a4'");
	/* checked last: a bad LOG is the one named */
	refused(parse_policy("bogus", "rel"), "FUTEXLAB_LOG");
}

/* Any errlen: never a byte past it, always terminated, a prefix of the
 * whole message; errlen 0 or a NULL err writes nothing. */
static void t_errlen(void *arg)
{
	(void)arg;
	char full[200], small[64];
	static struct fl_shim_env e;
	const struct fl_shim_vars bad = { .variant = "BAD" }, bad_allow = { .allow = "x" },
				  good = { .variant = "ok", .allow = "all" };
	CHECK(fl_shim_env_parse(&bad, &e, full, sizeof full) == -1, "accepted");
	size_t len = strlen(full);
	CHECK(len > 20, "short message: %s", full);
	for (size_t n = 1; n < sizeof small; n++) {
		memset(small, 'Z', sizeof small);
		CHECK(fl_shim_env_parse(&bad, &e, small, n) == -1, "accepted");
		size_t want = len < n - 1 ? len : n - 1;
		CHECK(strlen(small) == want && !strncmp(small, full, want),
		      "errlen %zu: '%s'", n, small);
		for (size_t i = n; i < sizeof small; i++)
			CHECK(small[i] == 'Z', "errlen %zu: byte %zu written", n, i);
	}
	small[0] = 'Z';
	CHECK(fl_shim_env_parse(&bad, &e, small, 0) == -1 && small[0] == 'Z', "errlen 0 wrote");
	CHECK(fl_shim_env_parse(&bad_allow, &e, NULL, 0) == -1, "NULL err");
	CHECK(fl_shim_env_parse(&bad_allow, &e, NULL, 16) == -1, "NULL err, errlen 16");
	CHECK(fl_shim_env_parse(&good, &e, NULL, 0) == 0 && e.allow == ALL3,
	      "success needs no err");
}

int main(void)
{
	run_test("defaults", t_defaults, NULL, 10);
	run_test("variant", t_variant, NULL, 10);
	run_test("debug", t_debug, NULL, 10);
	run_test("allow", t_allow, NULL, 10);
	run_test("stats", t_stats, NULL, 10);
	run_test("log", t_log, NULL, 10);
	run_test("policy", t_policy, NULL, 10);
	run_test("errlen", t_errlen, NULL, 10);
	return tests_done("shim_env");
}
