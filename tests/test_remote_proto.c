/* tests/test_remote_proto.c — the messages between the harness and a remote
 * design's helper (harness/remote_proto.h): a request and a result survive
 * the round trip field for field (doubles exactly, strings with newlines and
 * backslashes, the stranded-waiter fields, the latency histogram bucket for
 * bucket), and what is not a message of this revision is refused with a
 * reason, never half-read: an unknown key, a bad number, a bucket out of
 * range, a line without '=', a missing `end`, the wrong kind. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote_proto.h"

static int failures;

#define EXPECT(c, ...)                                                   \
	do {                                                             \
		if (!(c)) {                                              \
			failures++;                                      \
			printf("FAIL %s:%d %s: ", __FILE__, __LINE__, #c); \
			printf(__VA_ARGS__);                             \
			printf("\n");                                    \
		}                                                        \
	} while (0)

static void t_request(void)
{
	struct fl_remote_req q = { .wake = 2, .spin = 100,
				   .p = { .threads = 7, .tokens = 3, .sems = 5, .hold_ns = 200,
					  .think_ns = -1, .ops = 1LL << 40,
					  .duration_ns = 30000000, .latency = true,
					  .stranded_ns = 50000000 } };
	snprintf(q.variant, sizeof q.variant, "musl-libc");
	snprintf(q.workload, sizeof q.workload, "pool");
	struct fl_msg m = { 0 };
	fl_proto_put_req(&m, &q);
	struct fl_remote_req back;
	char err[200];
	EXPECT(fl_proto_get_req(m.s, &back, err, sizeof err) == 0, "%s", err);
	EXPECT(!strcmp(back.variant, q.variant) && !strcmp(back.workload, q.workload) &&
	       back.wake == q.wake && back.spin == q.spin, "names, wake, spin");
	EXPECT(back.p.threads == 7 && back.p.tokens == 3 && back.p.sems == 5 &&
	       back.p.hold_ns == 200 && back.p.think_ns == -1 && back.p.ops == 1LL << 40 &&
	       back.p.duration_ns == 30000000 && back.p.latency &&
	       back.p.stranded_ns == 50000000, "fl_params differ");
	fl_msg_free(&m);
}

static void t_result(void)
{
	struct fl_result r = { .ops = 123456789012LL, .elapsed_ns = 30000001,
			       .fair_n = 4, .fair_jain = 1.0 / 3.0, .fair_cv = M_PI,
			       .fair_min_max = 1e-300, .starve_max_ns = -1, .cpu_set = true,
			       .cpu_user_ns = 1, .cpu_sys_ns = 2, .csw_vol = 3, .csw_invol = 4,
			       .shim_sems = -1, .stranded = 2, .stranded_max_ns = 55000123,
			       .stranded_tid = 4242 };
	snprintf(r.stranded_note, sizeof r.stranded_note,
		 "tid 4242 slept in FUTEX_WAIT on 0x7f00 for 55 ms");
	snprintf(r.error, sizeof r.error, "line one\nline two \\n not a newline = still text");
	snprintf(r.info, sizeof r.info, "\\");
	r.lat = calloc(1, sizeof *r.lat);
	for (int64_t v = 0; v < 5000000; v = v * 3 + 1)
		fl_hist_add(r.lat, v);
	r.lat->b[FL_HIST_BUCKETS - 1] = 1ULL << 62;
	struct fl_msg m = { 0 };
	fl_proto_put_result(&m, &r);
	struct fl_result back;
	char err[200];
	EXPECT(fl_proto_get_result(m.s, &back, err, sizeof err) == 0, "%s", err);
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
	EXPECT(back.lat && !memcmp(back.lat, r.lat, sizeof *r.lat), "histogram differs");
	free(back.lat);
	/* no histogram sent: none received */
	free(r.lat);
	r.lat = NULL;
	m.len = 0;
	fl_proto_put_result(&m, &r);
	EXPECT(fl_proto_get_result(m.s, &back, err, sizeof err) == 0 && !back.lat, "%s", err);
	fl_msg_free(&m);
}

static void refused(const char *text, const char *why_has)
{
	char *t = strdup(text), err[200] = "";
	struct fl_result r;
	int rc = fl_proto_get_result(t, &r, err, sizeof err);
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
	struct fl_remote_req q;
	char t[] = "run\nvariant=x\nthreads=2\ncolour=blue\nend\n";
	EXPECT(fl_proto_get_req(t, &q, err, sizeof err) == -1 &&
	       strstr(err, "unknown field 'colour'"), "%s", err);
}

int main(void)
{
	t_request();
	t_result();
	t_refusals();
	printf("%s\n", failures ? "FAILED" : "remote_proto: all ok");
	return failures ? 1 : 0;
}
