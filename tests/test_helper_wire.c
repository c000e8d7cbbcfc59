/* tests/test_helper_wire.c — the messages between the harness and a helper-run
 * design's helper (proc/wire.h): a request and a result survive
 * the round trip field for field (doubles exactly, strings with newlines and
 * backslashes, the stranded-waiter fields, the latency histogram bucket for
 * bucket); hand-written golden text of this revision decodes to known values
 * and is exactly what the encoder writes (so a change made to both sides at
 * once fails); and what is not a message of this revision is refused with a
 * reason, never half-read: an unknown key, a bad number, a bucket out of
 * range, a line without '=', a missing `end`, the wrong kind, a waiting
 * policy that does not parse, and the spin bound a helper of the previous
 * revision was sent (the policy replaced it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/wire.h"
#include "tests/expect.h"


static void t_request(void)
{
	struct fl_helper_req q = { .wake = 2, .policy = { FL_POLICY_SPIN_YIELD, 100 },
				   .p = { .threads = 7, .tokens = 3, .sems = 5, .hold_ns = 200,
					  .think_ns = -1, .ops = 1LL << 40,
					  .duration_ns = 30000000, .latency = true,
					  .stranded_ns = 50000000, .preempt_stall_ns = 7,
					  .preempt_interval_ns = 10000 } };
	snprintf(q.p.preempt_text, sizeof q.p.preempt_text, "sym:a\nb\\c");
	snprintf(q.variant, sizeof q.variant, "musl-libc");
	snprintf(q.workload, sizeof q.workload, "pool");
	struct fl_msg m = { 0 };
	fl_wire_put_req(&m, &q);
	struct fl_helper_req back;
	char err[200];
	EXPECT(fl_wire_get_req(m.s, &back, err, sizeof err) == 0, "%s", err);
	EXPECT(!strcmp(back.variant, q.variant) && !strcmp(back.workload, q.workload) &&
	       back.wake == q.wake && back.policy.kind == q.policy.kind &&
	       back.policy.bound == q.policy.bound, "names, wake, policy");
	EXPECT(back.p.threads == 7 && back.p.tokens == 3 && back.p.sems == 5 &&
	       back.p.hold_ns == 200 && back.p.think_ns == -1 && back.p.ops == 1LL << 40 &&
	       back.p.duration_ns == 30000000 && back.p.latency &&
	       back.p.stranded_ns == 50000000 && back.p.preempt_stall_ns == 7 &&
	       back.p.preempt_interval_ns == 10000 &&
	       !strcmp(back.p.preempt_text, q.p.preempt_text), "fl_params differ");
	fl_msg_free(&m);
}

static void t_result(void)
{
	struct fl_result r = { .ops = 123456789012LL, .elapsed_ns = 30000001,
			       .fair_n = 4, .fair_jain = 1.0 / 3.0, .fair_cv = M_PI,
			       .fair_min_max = 1e-300, .starve_max_ns = -1, .cpu_set = true,
			       .cpu_user_ns = 1, .cpu_sys_ns = 2, .csw_vol = 3, .csw_invol = 4,
			       .shim_sems = -1, .stranded = 2, .stranded_max_ns = 55000123,
			       .stranded_tid = 4242, .stranded_taken = 1LL << 35,
			       .preempt_signals = 12, .preempt_hits = 11 };
	snprintf(r.stranded_note, sizeof r.stranded_note,
		 "tid 4242 slept in FUTEX_WAIT on 0x7f00 for 55 ms");
	snprintf(r.error, sizeof r.error, "line one\nline two \\n not a newline = still text");
	snprintf(r.info, sizeof r.info, "\\");
	r.lat = calloc(1, sizeof *r.lat);
	for (int64_t v = 0; v < 5000000; v = v * 3 + 1)
		fl_hist_add(r.lat, v);
	r.lat->b[FL_HIST_BUCKETS - 1] = 1ULL << 62;
	struct fl_msg m = { 0 };
	fl_wire_put_result(&m, &r);
	struct fl_result back;
	char err[200];
	EXPECT(fl_wire_get_result(m.s, &back, err, sizeof err) == 0, "%s", err);
	EXPECT(back.ops == r.ops && back.elapsed_ns == r.elapsed_ns, "ops/elapsed");
	EXPECT(!strcmp(back.error, r.error), "error '%s'", back.error);
	EXPECT(!strcmp(back.info, r.info), "info '%s'", back.info);
	EXPECT(back.fair_n == 4 && back.fair_jain == r.fair_jain && back.fair_cv == r.fair_cv &&
	       back.fair_min_max == r.fair_min_max, "fairness not exact: %.17g", back.fair_jain);
	EXPECT(back.starve_max_ns == -1 && back.cpu_set && back.cpu_user_ns == 1 &&
	       back.cpu_sys_ns == 2 && back.csw_vol == 3 && back.csw_invol == 4 &&
	       back.shim_sems == -1, "cpu/csw/shim");
	EXPECT(back.stranded == 2 && back.stranded_max_ns == 55000123 &&
	       back.stranded_tid == 4242 && !strcmp(back.stranded_note, r.stranded_note),
	       "stranded fields: %lld %lld %d '%s'", (long long)back.stranded,
	       (long long)back.stranded_max_ns, back.stranded_tid, back.stranded_note);
	EXPECT(back.stranded_taken == 1LL << 35 && back.preempt_signals == 12 &&
	       back.preempt_hits == 11, "stranded_taken, preempt counts");
	EXPECT(back.lat && !memcmp(back.lat, r.lat, sizeof *r.lat), "histogram differs");
	free(back.lat);
	/* no histogram sent: none received */
	free(r.lat);
	r.lat = NULL;
	m.len = 0;
	fl_wire_put_result(&m, &r);
	EXPECT(fl_wire_get_result(m.s, &back, err, sizeof err) == 0 && !back.lat, "%s", err);
	fl_msg_free(&m);
}

/* ---- golden wire text --------------------------------------------------
 *
 * Written here by hand, as the helper and the harness of this revision send
 * them (key order, integers in decimal, doubles as C99 hex floats "%a",
 * strings with \n and \\ escaped, one lat_b=INDEX:COUNT per non-empty bucket).
 * The round trips above pass for any change made to both sides at once (a
 * key renamed, doubles sent as %.6g, a field dropped from both); these fail
 * then: the decoder must read this text to the known values, and the
 * encoder must write exactly this text from them. A deliberate change of
 * the protocol changes this text too — and is then a change a helper of the
 * previous revision cannot read, which is what the text is for. */
static const char golden_req[] =
	"run\n"
	"variant=musl-libc\n"
	"workload=pool\n"
	"wake=2\n"
	"policy=spin:100\n"
	"threads=7\n"
	"tokens=3\n"
	"sems=5\n"
	"hold_ns=200\n"
	"think_ns=-1\n"
	"ops=1099511627776\n"
	"duration_ns=30000000\n"
	"latency=1\n"
	"stranded_ns=50000000\n"
	"preempt_stall_ns=20000\n"
	"preempt_interval_ns=500000\n"
	"preempt_text=dso:libc.so.6\n"
	"end\n";

static const char golden_result[] =
	"result\n"
	"ops=123456789012\n"
	"elapsed_ns=30000001\n"
	"error=a\\nb\\\\c\n"
	"info=musl\n"
	"fair_n=4\n"
	"fair_jain=0x1.8p-1\n"
	"fair_cv=0x1p-1\n"
	"fair_min_max=0x1p-2\n"
	"starve_max_ns=-1\n"
	"cpu_set=1\n"
	"cpu_user_ns=1\n"
	"cpu_sys_ns=2\n"
	"csw_vol=3\n"
	"csw_invol=4\n"
	"shim_sems=-1\n"
	"cgroup_procs=-1\n"
	"stranded=2\n"
	"stranded_max_ns=55000123\n"
	"stranded_note=tid 4242 slept\n"
	"stranded_tid=4242\n"
	"stranded_taken=17\n"
	"preempt_signals=9\n"
	"preempt_hits=3\n"
	"metric=0x1.edccccccccccdp+6\n"
	"lat_n=3\n"
	"lat_min=5\n"
	"lat_max=1000\n"
	"lat_b=5:2\n"
	"lat_b=317:1\n"
	"end\n";

/* The values the golden text stands for. */
static void golden_values(struct fl_helper_req *q, struct fl_result *r)
{
	*q = (struct fl_helper_req){ .wake = 2, .policy = { FL_POLICY_SPIN, 100 },
				     .p = { .threads = 7, .tokens = 3, .sems = 5, .hold_ns = 200,
					    .think_ns = -1, .ops = 1LL << 40,
					    .duration_ns = 30000000, .latency = true,
					    .stranded_ns = 50000000, .preempt_stall_ns = 20000,
					    .preempt_interval_ns = 500000 } };
	snprintf(q->p.preempt_text, sizeof q->p.preempt_text, "dso:libc.so.6");
	snprintf(q->variant, sizeof q->variant, "musl-libc");
	snprintf(q->workload, sizeof q->workload, "pool");
	*r = (struct fl_result){ .ops = 123456789012LL, .elapsed_ns = 30000001, .fair_n = 4,
				 .fair_jain = 0.75, .fair_cv = 0.5, .fair_min_max = 0.25,
				 .starve_max_ns = -1, .cpu_set = true, .cpu_user_ns = 1,
				 .cpu_sys_ns = 2, .csw_vol = 3, .csw_invol = 4, .shim_sems = -1,
				 .cgroup_procs = -1, .stranded = 2, .stranded_max_ns = 55000123,
				 .stranded_tid = 4242, .stranded_taken = 17, .preempt_signals = 9,
				 .preempt_hits = 3, .metric = 123.45 };
	snprintf(r->stranded_note, sizeof r->stranded_note, "tid 4242 slept");
	snprintf(r->error, sizeof r->error, "a\nb\\c");
	snprintf(r->info, sizeof r->info, "musl");
	r->lat = calloc(1, sizeof *r->lat);
	r->lat->n = 3, r->lat->min = 5, r->lat->max = 1000;
	r->lat->b[5] = 2, r->lat->b[317] = 1; /* set, not fl_hist_add: the wire only */
}

static void t_golden_decode(void)
{
	struct fl_helper_req q;
	struct fl_result r;
	memset(&q, 0, sizeof q), memset(&r, 0, sizeof r);
	char err[200] = "", *t = strdup(golden_req);
	EXPECT(fl_wire_get_req(t, &q, err, sizeof err) == 0, "golden request refused: %s", err);
	EXPECT(!strcmp(q.variant, "musl-libc") && !strcmp(q.workload, "pool") && q.wake == 2 &&
	       q.policy.kind == FL_POLICY_SPIN && q.policy.bound == 100,
	       "golden request: names '%s' '%s', wake %d, policy %d:%d", q.variant, q.workload,
	       q.wake, (int)q.policy.kind, q.policy.bound);
	EXPECT(q.p.threads == 7 && q.p.tokens == 3 && q.p.sems == 5 && q.p.hold_ns == 200 &&
	       q.p.think_ns == -1 && q.p.ops == 1LL << 40 && q.p.duration_ns == 30000000 &&
	       q.p.latency && q.p.stranded_ns == 50000000 && q.p.preempt_stall_ns == 20000 &&
	       q.p.preempt_interval_ns == 500000 && !strcmp(q.p.preempt_text, "dso:libc.so.6"),
	       "golden request: fl_params differ");
	free(t);
	t = strdup(golden_result);
	EXPECT(fl_wire_get_result(t, &r, err, sizeof err) == 0, "golden result refused: %s", err);
	EXPECT(r.ops == 123456789012LL && r.elapsed_ns == 30000001, "golden ops %lld elapsed %lld",
	       (long long)r.ops, (long long)r.elapsed_ns);
	EXPECT(!strcmp(r.error, "a\nb\\c") && !strcmp(r.info, "musl"), "golden error '%s' info '%s'",
	       r.error, r.info);
	EXPECT(r.fair_n == 4 && r.fair_jain == 0.75 && r.fair_cv == 0.5 && r.fair_min_max == 0.25,
	       "golden fairness %d %.17g %.17g %.17g", r.fair_n, r.fair_jain, r.fair_cv,
	       r.fair_min_max);
	EXPECT(r.starve_max_ns == -1 && r.cpu_set && r.cpu_user_ns == 1 && r.cpu_sys_ns == 2 &&
	       r.csw_vol == 3 && r.csw_invol == 4 && r.shim_sems == -1, "golden cpu/csw/shim");
	EXPECT(r.stranded == 2 && r.stranded_max_ns == 55000123 && r.stranded_tid == 4242 &&
	       !strcmp(r.stranded_note, "tid 4242 slept") && r.stranded_taken == 17,
	       "golden stranded: %lld %lld %d '%s' %lld", (long long)r.stranded,
	       (long long)r.stranded_max_ns, r.stranded_tid, r.stranded_note,
	       (long long)r.stranded_taken);
	EXPECT(r.preempt_signals == 9 && r.preempt_hits == 3, "golden preempt: %lld/%lld",
	       (long long)r.preempt_hits, (long long)r.preempt_signals);
	EXPECT(r.metric == 123.45, "golden metric %.17g", r.metric);
	uint64_t other = 0;
	for (int i = 0; r.lat && i < FL_HIST_BUCKETS; i++)
		other += i == 5 || i == 317 ? 0 : r.lat->b[i];
	EXPECT(r.lat && r.lat->n == 3 && r.lat->min == 5 && r.lat->max == 1000 &&
	       r.lat->b[5] == 2 && r.lat->b[317] == 1 && other == 0, "golden histogram");
	free(r.lat);
	free(t);
}

static void t_golden_encode(void)
{
	struct fl_helper_req q;
	struct fl_result r;
	golden_values(&q, &r);
	struct fl_msg m = { 0 };
	fl_wire_put_req(&m, &q);
	EXPECT(m.len == strlen(golden_req) && !memcmp(m.s, golden_req, m.len),
	       "the request's bytes differ from the golden text:\n%.*s", (int)m.len, m.s);
	m.len = 0;
	fl_wire_put_result(&m, &r);
	EXPECT(m.len == strlen(golden_result) && !memcmp(m.s, golden_result, m.len),
	       "the result's bytes differ from the golden text:\n%.*s", (int)m.len, m.s);
	fl_msg_free(&m);
	free(r.lat);
}

static void refused(const char *text, const char *why_has)
{
	char *t = strdup(text), err[200] = "";
	struct fl_result r;
	int rc = fl_wire_get_result(t, &r, err, sizeof err);
	EXPECT(rc == -1 && strstr(err, why_has), "'%s' -> rc %d, '%s'", text, rc, err);
	if (rc == -1)
		free(r.lat);
	free(t);
}

static void t_refusals(void)
{
	refused("result\nops=1\nno_such_field=3\nend\n", "unknown field 'no_such_field'");
	refused("result\nops=1x\nend\n", "bad number");
	refused("result\nops=\nend\n", "bad number");
	refused("result\nfair_jain=abc\nend\n", "bad number");
	refused("result\nlat_b=99999:1\nend\n", "bad bucket");
	refused("result\nlat_b=3\nend\n", "bad bucket");
	refused("result\nlat_q=3\nend\n", "unknown field 'lat_q'");
	refused("result\nops 1\nend\n", "malformed line");
	refused("result\nops=1\n", "without its end");
	refused("hello\nend\n", "expected a 'result'");
	refused("", "expected a 'result'");
	char err[200];
	struct fl_helper_req q;
	char t[] = "run\nvariant=x\nthreads=2\ncolour=blue\nend\n";
	EXPECT(fl_wire_get_req(t, &q, err, sizeof err) == -1 &&
	       strstr(err, "unknown field 'colour'"), "%s", err);
	/* the policy: its text or nothing; the spin bound of the previous
	 * revision is an unknown key (a helper and a harness out of step) */
	static const struct {
		const char *text;    /* the request's lines between run and end */
		const char *err;     /* what the refusal says; NULL: accepted */
		enum fl_policy_kind kind;
	} pol[] = {
		{ "policy=spin:0\n", "field policy: policy spin:0: ", 0 },
		{ "policy=lazy\n", "field policy: unknown policy 'lazy'", 0 },
		{ "spin=100\n", "unknown field 'spin'", 0 },
		{ "policy=adaptive\n", NULL, FL_POLICY_ADAPTIVE },
		{ "policy=spin-yield:7\n", NULL, FL_POLICY_SPIN_YIELD },
		{ "", NULL, FL_POLICY_PARK },
	};
	for (size_t i = 0; i < sizeof pol / sizeof pol[0]; i++) {
		char msg[200];
		snprintf(msg, sizeof msg, "run\nvariant=x\n%send\n", pol[i].text);
		snprintf(err, sizeof err, "(accepted)");
		int rc = fl_wire_get_req(msg, &q, err, sizeof err);
		int l = (int)strcspn(pol[i].text, "\n");
		if (pol[i].err)
			EXPECT(rc == -1 && strstr(err, pol[i].err), "'%.*s' -> %d, %s", l, pol[i].text,
			       rc, err);
		else
			EXPECT(rc == 0 && q.policy.kind == pol[i].kind, "'%.*s' -> %d, %s, kind %d", l,
			       pol[i].text, rc, err, (int)q.policy.kind);
	}
}

int main(void)
{
	t_request();
	t_result();
	t_refusals();
	t_golden_decode();
	t_golden_encode();
	printf("%s\n", failures ? "FAILED" : "helper_wire: all ok");
	return failures ? 1 : 0;
}
