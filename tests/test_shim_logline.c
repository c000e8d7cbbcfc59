/* tests/test_shim_logline.c — shim/logline.c, the shim's logline, on lines
 * whose answers are known: a line with and without the counting keys
 * formats to exactly the documented bytes and parses back; every state;
 * every field at and past its bound (pid 1..INT_MAX, ppid from 0, counts up
 * to 2^64-1, comm 15 bytes, a variant name 63, reason 255; the policy in
 * each canonical form, spin-yield:1000000 the longest); every kind of
 * malformed line refused (-1, *out untouched) and other lines not taken for
 * a logline (1); the formatter refuses what the parser would and never
 * writes past its buffer. (tests/fuzz/fuzz_shim_logline.c checks the round
 * trip on arbitrary bytes.) */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tests/check.h"
#include "shim/logline.h"

static struct fl_shim_logline rep;

/* Parses with a sentinel in rep. */
static int parse(const char *line)
{
	memset(&rep, 0xA5, sizeof rep);
	return fl_shim_logline_parse(line, &rep);
}

static bool untouched(void)
{
	const unsigned char *p = (const unsigned char *)&rep;
	for (size_t i = 0; i < sizeof rep; i++)
		if (p[i] != 0xA5)
			return false;
	return true;
}

static void refuse(const char *line)
{
	int r = parse(line);
	CHECK(r == -1, "accepted (%d): '%s'", r, line);
	CHECK(untouched(), "*out written for '%s'", line);
}

static void not_logline(const char *line)
{
	int r = parse(line);
	CHECK(r == 1, "%d, want 1 (not a logline): '%s'", r, line);
	CHECK(untouched(), "*out written for '%s'", line);
}

/* A line from parts: the head up to named=, the middle (the counting keys
 * or ""), the reason. */
static const char *line3(const char *head, const char *mid, const char *reason)
{
	static char buf[2048];
	snprintf(buf, sizeof buf, "futexlab-shim %s%s reason=%s", head, mid, reason);
	return buf;
}

#define HEAD "pid=42 ppid=1 comm=semprog variant=negcount policy=park state=on inits=3 ours=2 handed=1 named=0"
#define MID " wait=4 trywait=5 timedwait=6 clockwait=7 post=8 blocked=- timeouts=9"

static struct fl_shim_logline sample(void)
{
	struct fl_shim_logline r;
	memset(&r, 0, sizeof r);
	r.pid = 42;
	r.ppid = 1;
	strcpy(r.comm, "semprog");
	strcpy(r.variant, "negcount");
	strcpy(r.policy, "park");
	r.state = FL_SHIM_ON;
	r.inits = 3, r.ours = 2, r.handed = 1, r.named = 0;
	strcpy(r.reason, "-");
	return r;
}

static void t_format(void *arg)
{
	(void)arg;
	char buf[FL_SHIM_LOGLINE_MAX];
	struct fl_shim_logline r = sample();
	r.wait = 99; /* not on the line without stats */
	int n = fl_shim_logline_format(&r, buf, sizeof buf);
	const char *want = "futexlab-shim " HEAD " reason=-\n";
	CHECK(n == (int)strlen(want) && !strcmp(buf, want), "got %d '%s'\nwant '%s'", n, buf, want);

	r.stats = true;
	r.wait = 4, r.trywait = 5, r.timedwait = 6, r.clockwait = 7, r.post = 8, r.timeouts = 9;
	r.blocked = 77; /* not on the line: blocked_known is false */
	n = fl_shim_logline_format(&r, buf, sizeof buf);
	want = "futexlab-shim " HEAD MID " reason=-\n";
	CHECK(n == (int)strlen(want) && !strcmp(buf, want), "got '%s'\nwant '%s'", buf, want);

	strcpy(r.policy, "spin-yield:16");
	n = fl_shim_logline_format(&r, buf, sizeof buf);
	CHECK(n > 0 && strstr(buf, " variant=negcount policy=spin-yield:16 state=on "), "'%s'", buf);
	strcpy(r.policy, "park");

	r.blocked_known = true;
	r.blocked = 0;
	r.state = FL_SHIM_PASS;
	strcpy(r.variant, "glibc");
	strcpy(r.reason, "breaks signal,eintr (FUTEXLAB_ALLOW=signal,eintr runs it)");
	n = fl_shim_logline_format(&r, buf, sizeof buf);
	CHECK(n > 0 && strstr(buf, " variant=glibc policy=park state=pass ") &&
		      strstr(buf, " post=8 blocked=0 timeouts=9 reason=breaks signal,eintr "
				  "(FUTEXLAB_ALLOW=signal,eintr runs it)\n"),
	      "'%s'", buf);
}

/* Every field at its largest: still one line below FL_SHIM_LOGLINE_MAX. */
static void t_longest(void *arg)
{
	(void)arg;
	struct fl_shim_logline r = sample();
	r.pid = r.ppid = INT_MAX;
	memset(r.comm, '~', FL_SHIM_COMM_MAX);
	r.comm[FL_SHIM_COMM_MAX] = '\0';
	memset(r.variant, '_', FL_SHIM_NAME_MAX);
	r.variant[FL_SHIM_NAME_MAX] = '\0';
	strcpy(r.policy, "spin-yield:1000000"); /* the longest canonical policy */
	r.state = FL_SHIM_SKIPPED;
	r.inits = r.ours = r.handed = r.named = UINT64_MAX;
	r.stats = r.blocked_known = true;
	r.wait = r.trywait = r.timedwait = r.clockwait = r.post = r.blocked = r.timeouts =
		UINT64_MAX;
	memset(r.reason, ' ', FL_SHIM_REASON_MAX);
	r.reason[FL_SHIM_REASON_MAX] = '\0';
	char buf[FL_SHIM_LOGLINE_MAX + 16];
	memset(buf, 'Z', sizeof buf);
	int n = fl_shim_logline_format(&r, buf, FL_SHIM_LOGLINE_MAX);
	CHECK(n > 0 && n < FL_SHIM_LOGLINE_MAX && buf[n - 1] == '\n' && buf[n] == '\0',
	      "the longest line: %d bytes", n);
	CHECK(memchr(buf, '\n', (size_t)n - 1) == NULL, "more than one line");
	struct fl_shim_logline back;
	CHECK(fl_shim_logline_parse(buf, &back) == 0, "the longest line does not parse: %s", buf);
	CHECK(back.pid == INT_MAX && back.ppid == INT_MAX && back.inits == UINT64_MAX &&
		      back.timeouts == UINT64_MAX && back.blocked == UINT64_MAX &&
		      !strcmp(back.comm, r.comm) && !strcmp(back.variant, r.variant) &&
		      !strcmp(back.policy, r.policy) && !strcmp(back.reason, r.reason),
	      "the longest line parsed back differs");

	/* too small a buffer, by any amount: -1, "" and nothing past len */
	for (int len = 1; len <= n; len++) {
		memset(buf, 'Z', sizeof buf);
		CHECK(fl_shim_logline_format(&r, buf, (size_t)len) == -1 && buf[0] == '\0',
		      "len %d accepted (needs %d)", len, n + 1);
		for (size_t i = (size_t)len; i < sizeof buf; i++)
			if (buf[i] != 'Z') {
				CHECK(0, "len %d: byte %zu written", len, i);
				break;
			}
	}
	CHECK(fl_shim_logline_format(&r, buf, (size_t)n + 1) == n, "exactly n + 1 bytes refused");
	CHECK(fl_shim_logline_format(&r, buf, 0) == -1, "len 0 accepted");
}

static void t_parse(void *arg)
{
	(void)arg;
	int r = parse(line3(HEAD, "", "-"));
	CHECK(r == 0, "the plain line: %d", r);
	CHECK(rep.pid == 42 && rep.ppid == 1 && !strcmp(rep.comm, "semprog") &&
		      !strcmp(rep.variant, "negcount") && rep.state == FL_SHIM_ON && rep.inits == 3 &&
		      rep.ours == 2 && rep.handed == 1 && rep.named == 0 && !rep.stats &&
		      !rep.blocked_known && rep.wait == 0 && rep.timeouts == 0 && rep.blocked == 0 &&
		      !strcmp(rep.reason, "-"),
	      "the plain line's fields");
	r = parse(line3(HEAD, MID, "-\n"));
	CHECK(r == 0, "with the counts and a newline: %d", r);
	CHECK(rep.stats && rep.wait == 4 && rep.trywait == 5 && rep.timedwait == 6 &&
		      rep.clockwait == 7 && rep.post == 8 && !rep.blocked_known && rep.blocked == 0 &&
		      rep.timeouts == 9,
	      "the counts");
	r = parse(line3(HEAD, " wait=0 trywait=0 timedwait=0 clockwait=0 post=0 blocked=12 "
			      "timeouts=0",
			"a reason = with, spaces  and '\"quotes\"' ~"));
	CHECK(r == 0 && rep.blocked_known && rep.blocked == 12 &&
		      !strcmp(rep.reason, "a reason = with, spaces  and '\"quotes\"' ~"),
	      "blocked and an odd reason: %d '%s'", r, rep.reason);
	/* every state */
	static const char *const st[] = { "on", "pass", "refused", "capped", "skipped" };
	for (int s = 0; s < FL_SHIM_NSTATES; s++) {
		char head[256];
		snprintf(head, sizeof head,
			 "pid=7 ppid=0 comm=x variant=v policy=park state=%s inits=0 ours=0 handed=0 named=0", st[s]);
		CHECK(parse(line3(head, "", "-")) == 0 && rep.state == (enum fl_shim_state)s &&
			      rep.ppid == 0,
		      "state=%s", st[s]);
		CHECK(!strcmp(fl_shim_state_name((enum fl_shim_state)s), st[s]), "name of %d", s);
	}
	CHECK(fl_shim_state_name((enum fl_shim_state)FL_SHIM_NSTATES) == NULL, "a 6th state");
	/* bounds that hold */
	CHECK(parse(line3("pid=2147483647 ppid=2147483647 comm=123456789012345 variant=v policy=park state=on "
			  "inits=18446744073709551615 ours=0 handed=0 named=0",
			  "", "-")) == 0 &&
		      rep.pid == INT_MAX && rep.inits == UINT64_MAX && strlen(rep.comm) == 15,
	      "the largest pid, count and comm");
	char longname[128], head[256];
	memset(longname, 'a', sizeof longname);
	longname[63] = '\0';
	snprintf(head, sizeof head,
		 "pid=1 ppid=1 comm=c variant=%s policy=park state=on inits=0 ours=0 handed=0 named=0", longname);
	CHECK(parse(line3(head, "", "-")) == 0 && strlen(rep.variant) == 63, "a 63-byte variant");
	/* every policy, in its canonical text (variants/policy.h) */
	static const char *const pol[] = { "park", "adaptive", "spin:1", "spin:100",
					   "spin:1000000", "spin-yield:4", "spin-yield:1000000" };
	for (size_t i = 0; i < sizeof pol / sizeof pol[0]; i++) {
		snprintf(head, sizeof head,
			 "pid=1 ppid=1 comm=c variant=v policy=%s state=on inits=0 ours=0 handed=0 "
			 "named=0", pol[i]);
		CHECK(parse(line3(head, "", "-")) == 0 && !strcmp(rep.policy, pol[i]), "policy=%s",
		      pol[i]);
	}
	longname[63] = 'a';
	longname[64] = '\0';
	snprintf(head, sizeof head,
		 "pid=1 ppid=1 comm=c variant=%s policy=park state=on inits=0 ours=0 handed=0 named=0", longname);
	refuse(line3(head, "", "-"));
	char reason[300];
	memset(reason, 'r', sizeof reason);
	reason[255] = '\0';
	CHECK(parse(line3(HEAD, "", reason)) == 0 && strlen(rep.reason) == 255, "a 255-byte reason");
	reason[255] = 'r';
	reason[256] = '\0';
	refuse(line3(HEAD, "", reason));
}

static void t_refuse(void *arg)
{
	(void)arg;
	/* not loglines at all */
	not_logline("");
	not_logline("futexlab-preload: pid 1: 3 semaphores initialised on negcount, 0 handed to "
		   "glibc, 0 named opens");
	not_logline("futexlab-shim");
	not_logline("futexlab-shim\n");
	not_logline("futexlab-shimpid=1");
	not_logline(" futexlab-shim " HEAD " reason=-");
	not_logline("FUTEXLAB-SHIM " HEAD " reason=-");
	/* loglines, broken */
	refuse("futexlab-shim ");
	refuse("futexlab-shim " HEAD);
	refuse("futexlab-shim " HEAD " ");
	refuse("futexlab-shim " HEAD " reason=");
	refuse("futexlab-shim " HEAD " reason=\n");
	refuse("futexlab-shim " HEAD "  reason=-");
	refuse("futexlab-shim  " HEAD " reason=-");
	refuse("futexlab-shim " HEAD " reason=-\n\n");
	refuse("futexlab-shim " HEAD " reason=-\nfutexlab-shim " HEAD " reason=-");
	refuse("futexlab-shim " HEAD " reason=-\r\n");
	refuse("futexlab-shim " HEAD " reason=a\tb");
	refuse("futexlab-shim " HEAD " reason=caf\xc3\xa9");
	refuse("futexlab-shim " HEAD " extra=1 reason=-");
	refuse("futexlab-shim " HEAD " Reason=-");
	refuse("futexlab-shim " HEAD " reason -");
	/* numbers: canonical decimal in range */
	static const char *const pids[] = { "0", "-1", "+1", "01", "2147483648", "1x", "", "0x10",
					    " 1", "99999999999999999999999" };
	for (size_t i = 0; i < sizeof pids / sizeof pids[0]; i++) {
		char head[256];
		snprintf(head, sizeof head,
			 "pid=%s ppid=1 comm=c variant=v policy=park state=on inits=0 ours=0 handed=0 named=0",
			 pids[i]);
		refuse(line3(head, "", "-"));
	}
	refuse(line3("pid=1 ppid=-1 comm=c variant=v policy=park state=on inits=0 ours=0 handed=0 named=0", "",
		     "-"));
	refuse(line3("pid=1 ppid=1 comm=c variant=v policy=park state=on inits=18446744073709551616 ours=0 "
		     "handed=0 named=0",
		     "", "-"));
	refuse(line3("pid=1 ppid=1 comm=c variant=v policy=park state=on inits=00 ours=0 handed=0 named=0", "",
		     "-"));
	/* words */
	refuse(line3("pid=1 ppid=1 comm=1234567890123456 variant=v policy=park state=on inits=0 ours=0 "
		     "handed=0 named=0",
		     "", "-"));
	refuse(line3("pid=1 ppid=1 comm= variant=v policy=park state=on inits=0 ours=0 handed=0 named=0", "",
		     "-"));
	refuse(line3("pid=1 ppid=1 comm=a\x01 variant=v policy=park state=on inits=0 ours=0 handed=0 named=0", "",
		     "-"));
	refuse(line3("pid=1 ppid=1 comm=c variant=Negcount policy=park state=on inits=0 ours=0 handed=0 named=0",
		     "", "-"));
	refuse(line3("pid=1 ppid=1 comm=c variant= policy=park state=on inits=0 ours=0 handed=0 named=0", "",
		     "-"));
	refuse(line3("pid=1 ppid=1 comm=c variant=v policy=park state=off inits=0 ours=0 handed=0 named=0", "",
		     "-"));
	refuse(line3("pid=1 ppid=1 comm=c variant=v policy=park state=o inits=0 ours=0 handed=0 named=0", "",
		     "-"));
	refuse(line3("pid=1 ppid=1 comm=c variant=v policy=park state=onn inits=0 ours=0 handed=0 named=0", "",
		     "-"));
	/* the policy: canonical text only (what fl_policy_format writes) */
	static const char *const badpol[] = { "", "spin", "spin:", "spin:0", "spin:01", "spin:+1",
					      "spin:-1", "spin:1000001", "spin:12345678", "Spin:4",
					      "spin-yield", "spin-yield:0", "adaptive:3", "park:1",
					      "parked", "spin:4x", "yield:4" };
	for (size_t i = 0; i < sizeof badpol / sizeof badpol[0]; i++) {
		char head[256];
		snprintf(head, sizeof head,
			 "pid=1 ppid=1 comm=c variant=v policy=%s state=on inits=0 ours=0 handed=0 "
			 "named=0", badpol[i]);
		refuse(line3(head, "", "-"));
	}
	/* keys: order, missing, unknown (a line without the policy: an older
	 * shim's, refused as any line with a key missing) */
	refuse(line3("pid=1 ppid=1 comm=c variant=v state=on inits=0 ours=0 handed=0 named=0", "",
		     "-"));
	refuse(line3("pid=1 ppid=1 comm=c policy=park variant=v state=on inits=0 ours=0 handed=0 "
		     "named=0", "", "-"));
	refuse(line3("ppid=1 pid=1 comm=c variant=v policy=park state=on inits=0 ours=0 handed=0 named=0", "",
		     "-"));
	refuse(line3("pid=1 ppid=1 comm=c variant=v policy=park state=on inits=0 ours=0 named=0", "", "-"));
	refuse(line3("pid=1 ppid=1 comm=c variant=v policy=park state=on inits=0 ours=0 handed=0 named=0 x=1",
		     "", "-"));
	/* the counting keys: all seven in order, or none */
	refuse(line3(HEAD, " wait=1", "-"));
	refuse(line3(HEAD, " wait=1 trywait=0 timedwait=0 clockwait=0 post=0 blocked=0", "-"));
	refuse(line3(HEAD, " trywait=0 wait=1 timedwait=0 clockwait=0 post=0 blocked=0 timeouts=0",
		     "-"));
	refuse(line3(HEAD, " wait=1 trywait=0 timedwait=0 clockwait=0 post=0 blocked=-- timeouts=0",
		     "-"));
	refuse(line3(HEAD, " wait=1 trywait=0 timedwait=0 clockwait=0 post=0 blocked= timeouts=0",
		     "-"));
	refuse(line3(HEAD, " wait=1 trywait=0 timedwait=0 clockwait=0 post=- blocked=0 timeouts=0",
		     "-"));
	refuse(line3(HEAD, MID " timeouts=0", "-"));
}

/* The formatter refuses every struct whose line the parser would refuse. */
static void t_format_refuse(void *arg)
{
	(void)arg;
	char buf[FL_SHIM_LOGLINE_MAX];
	struct fl_shim_logline r;
#define BAD(what, change)                                                      \
	do {                                                                   \
		r = sample();                                                  \
		change;                                                        \
		memset(buf, 'Z', sizeof buf);                                  \
		CHECK(fl_shim_logline_format(&r, buf, sizeof buf) == -1 && buf[0] == '\0', \
		      "formatted %s: %s", what, buf);                          \
	} while (0)
	BAD("pid 0", r.pid = 0);
	BAD("pid -5", r.pid = -5);
	BAD("ppid -1", r.ppid = -1);
	BAD("an empty comm", r.comm[0] = '\0');
	BAD("a comm with a space", strcpy(r.comm, "a b"));
	BAD("an unterminated comm", memset(r.comm, 'c', sizeof r.comm));
	BAD("an empty variant", r.variant[0] = '\0');
	BAD("an upper-case variant", strcpy(r.variant, "Musl"));
	BAD("a variant with a space", strcpy(r.variant, "a b"));
	BAD("an empty policy", r.policy[0] = '\0');
	BAD("policy spin:0", strcpy(r.policy, "spin:0"));
	BAD("policy spin:007", strcpy(r.policy, "spin:007"));
	BAD("policy spin:1000001", strcpy(r.policy, "spin:1000001"));
	BAD("policy Park", strcpy(r.policy, "Park"));
	BAD("an unterminated policy", memset(r.policy, 'p', sizeof r.policy));
	BAD("state 5", r.state = (enum fl_shim_state)5);
	BAD("state -1", r.state = (enum fl_shim_state)-1);
	BAD("an empty reason", r.reason[0] = '\0');
	BAD("a reason with a newline", strcpy(r.reason, "a\nb"));
	BAD("an unterminated reason", memset(r.reason, 'r', sizeof r.reason));
#undef BAD
	r = sample();
	CHECK(fl_shim_logline_format(&r, buf, sizeof buf) > 0, "the sample refused");
}

int main(void)
{
	run_test("format", t_format, NULL, 10);
	run_test("longest", t_longest, NULL, 10);
	run_test("parse", t_parse, NULL, 10);
	run_test("refuse", t_refuse, NULL, 10);
	run_test("format-refuse", t_format_refuse, NULL, 10);
	return tests_done("shim_logline");
}
