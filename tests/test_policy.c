/* tests/test_policy.c — the waiting policy (variants/policy.h): its text,
 * the adaptive policy's learning on scripted wait costs, and fl_wait's
 * single-threaded contract on a real design under every policy. (The
 * multi-threaded proof — no token lost or invented, no wakeup lost, under
 * every policy — is the shared suite's, run with FUTEXLAB_POLICY set:
 * tests/README.md, "Policies".) */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "tests/expect.h"
#include "lib/clock.h"
#include "variants/policy.h"

extern const struct fl_variant fl_variant_negcount, fl_variant_glibc;

static void test_text(void)
{
	static const char *const good[] = { "park", "spin:1", "spin:200", "spin-yield:16",
					    "adaptive", "spin:1000000" };
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		struct fl_policy p;
		char err[160], buf[FL_POLICY_TEXT_MAX];
		EXPECT(fl_policy_parse(good[i], &p, err, sizeof err) == 0, "%s: %s", good[i], err);
		EXPECT(!strcmp(fl_policy_format(&p, buf, sizeof buf), good[i]), "%s -> %s", good[i],
		       buf);
	}
	static const char *const bad[] = { "", "spin", "spin:", "spin:0", "spin:-3", "spin:x",
					   "spin:1000001", "spin:12abc", "adaptive:3", "park:1",
					   "yield", "Spin:4", "spin-yield", "spin:+5", "spin: 5",
					   "spin-yield:\t4" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct fl_policy p = { FL_POLICY_ADAPTIVE, 7 };
		char err[160] = "";
		EXPECT(fl_policy_parse(bad[i], &p, err, sizeof err) == -1, "'%s' accepted", bad[i]);
		EXPECT(err[0] && !strchr(err, '\n'), "'%s': no one-line reason", bad[i]);
		EXPECT(p.kind == FL_POLICY_ADAPTIVE && p.bound == 7, "'%s' wrote *out", bad[i]);
	}
}

/* Waits whose token comes cost_ns after the waiter found none: a wait that
 * tries for at least that long wins after cost_ns; one that tries less
 * parks, and its token comes cost_ns - tried after the park began
 * (policy.c, point 3). Counts what the last `tail` of n waits did. */
struct tally {
	int spin, yield, park, won;
	uint64_t tried_ns;              /* CPU spent trying, over the tail */
	uint32_t min_budget;            /* shortest budget of a trying plan in the tail */
};

#define CAP 20000u /* the park's cost these scripted waits assume */

static struct tally run_cap(struct fl_adapt *a, uint64_t cost_ns, bool over, int n, int tail,
			    uint32_t cap)
{
	struct tally t = { 0, 0, 0, 0, 0, UINT32_MAX };
	for (int i = 0; i < n; i++) {
		struct fl_adapt_plan plan = fl_adapt_plan(a, over, cap);
		bool trying = plan.mode != FL_ADAPT_PARK;
		bool won = trying && cost_ns <= plan.budget_ns;
		uint64_t tried = !trying ? 0 : won ? cost_ns : plan.budget_ns;
		if (trying && !won)
			fl_adapt_learn_loss(a, &plan, (int64_t)(cost_ns - tried), cap);
		else
			fl_adapt_learn(a, &plan, won, tried, cap);
		if (i < n - tail)
			continue;
		t.spin += plan.mode == FL_ADAPT_SPIN;
		t.yield += plan.mode == FL_ADAPT_YIELD;
		t.park += plan.mode == FL_ADAPT_PARK;
		t.won += won;
		t.tried_ns += tried;
		if (trying && plan.budget_ns < t.min_budget)
			t.min_budget = plan.budget_ns;
	}
	return t;
}

static struct tally run(struct fl_adapt *a, uint64_t cost_ns, bool over, int n, int tail)
{
	return run_cap(a, cost_ns, over, n, tail, CAP);
}

/* Waits of two lengths, one long in `every` (a barrier's first arrival
 * waits for the others; the rest wait for one): what the last `tail` did. */
static struct tally run_mix(struct fl_adapt *a, uint64_t short_ns, uint64_t long_ns, int every,
			    int n, int tail)
{
	struct tally t = { 0, 0, 0, 0, 0, UINT32_MAX };
	for (int i = 0; i < n; i++) {
		struct tally one = run(a, i % every == 0 ? long_ns : short_ns, true, 1, 1);
		if (i < n - tail)
			continue;
		t.yield += one.yield;
		t.park += one.park;
		t.won += one.won;
	}
	return t;
}

static void test_adaptive(void)
{
	/* short waits: spinning, every wait won; wins never narrow the window
	 * (only a loss shows that trying cost more than it saved) */
	struct fl_adapt a = FL_ADAPT_INIT;
	struct tally t = run(&a, 300, false, 200, 100);
	EXPECT(t.spin == 100 && t.won == 100, "300 ns waits: %d spin, %d won of 100", t.spin, t.won);
	EXPECT(a.window_ns == 4000, "300 ns waits: window %u, not the first 4000", a.window_ns);

	/* a barrier's waits: one in four waits 8 us (the first arrival), the
	 * rest 300 ns; every one is won once the long ones have been seen (a
	 * window that followed the short ones' mean would park the long ones:
	 * the regime results/policy.md, "Barrier", describes) */
	a = (struct fl_adapt)FL_ADAPT_INIT;
	t = run_mix(&a, 300, 8000, 4, 400, 200);
	EXPECT(t.won == 200 && t.yield == 200, "8 us in 4, 300 ns: %d won, %d yielded of 200",
	       t.won, t.yield);
	EXPECT(a.window_ns >= 8000, "8 us in 4, 300 ns: window %u", a.window_ns);

	/* a loss whose token a window twice as long would have won doubles
	 * the window (up to the cap); any other halves it: a token that came
	 * later, one that did not come (a timeout), one lost at the cap */
	a = (struct fl_adapt)FL_ADAPT_INIT;
	struct fl_adapt_plan tried = fl_adapt_plan(&a, false, CAP);
	fl_adapt_learn_loss(&a, &tried, 3000, CAP);
	EXPECT(a.window_ns == 8000, "lost at 4 us, the token 3 us later: window %u", a.window_ns);
	tried = fl_adapt_plan(&a, false, CAP);
	fl_adapt_learn_loss(&a, &tried, 9000, CAP);
	EXPECT(a.window_ns == 4000, "lost at 8 us, the token 9 us later: window %u", a.window_ns);
	tried = fl_adapt_plan(&a, false, CAP);
	fl_adapt_learn_loss(&a, &tried, -1, CAP);
	EXPECT(a.window_ns == 2000, "lost at 4 us, no token: window %u", a.window_ns);
	for (int i = 0; i < 4; i++) {
		tried = fl_adapt_plan(&a, false, CAP);
		fl_adapt_learn_loss(&a, &tried, 0, CAP);
	}
	EXPECT(a.window_ns == CAP, "near losses: window %u, the cap %u", a.window_ns, CAP);
	tried = fl_adapt_plan(&a, false, CAP);
	fl_adapt_learn_loss(&a, &tried, 1, CAP);
	EXPECT(a.window_ns == CAP / 2, "lost at the cap, the token 1 ns later: window %u",
	       a.window_ns);

	/* long waits: parking, and the probes cost under 0.5% of a park (20 us) */
	a = (struct fl_adapt)FL_ADAPT_INIT;
	t = run(&a, 1000000, false, 3000, 2000);
	EXPECT(t.park >= 1990, "1 ms waits: %d of 2000 parked at once", t.park);
	EXPECT(t.tried_ns / 2000 <= 100, "1 ms waits: %llu ns tried per wait",
	       (unsigned long long)(t.tried_ns / 2000));
	EXPECT(a.window_ns == 0 && a.probe_shift == FL_ADAPT_PROBE_SHIFT_MAX,
	       "1 ms waits: window %u, probe shift %u", a.window_ns, a.probe_shift);

	/* waits a little longer than the first window (6 us > 4 us): the
	 * window closes, a probe finds that trying pays, and it reopens */
	a = (struct fl_adapt)FL_ADAPT_INIT;
	t = run(&a, 6000, false, 100, 50);
	EXPECT(t.spin == 50 && t.won == 50 && t.min_budget >= 6000,
	       "6 us waits: %d spin, %d won of 50, budget >= %u", t.spin, t.won, t.min_budget);

	/* long, then short again: spinning within a probe interval or two */
	t = run(&a, 1000000, false, 2000, 0);
	t = run(&a, 300, false, 600, 100);
	EXPECT(t.spin == 100 && t.won == 100, "1 ms then 300 ns: %d spin, %d won of the last 100",
	       t.spin, t.won);

	/* oversubscribed: short waits yield instead of spinning; long ones park */
	a = (struct fl_adapt)FL_ADAPT_INIT;
	t = run(&a, 300, true, 200, 100);
	EXPECT(t.yield == 100 && t.won == 100, "oversubscribed 300 ns: %d yield of 100", t.yield);
	t = run(&a, 1000000, true, 2000, 1000);
	EXPECT(t.park >= 990, "oversubscribed 1 ms: %d of 1000 parked", t.park);

	/* the cap is what a park costs: 30 us waits are worth trying for where
	 * a park costs 40 us, not where it costs 20 us (spinning or yielding) */
	for (int over = 0; over < 2; over++) {
		a = (struct fl_adapt)FL_ADAPT_INIT;
		t = run_cap(&a, 30000, over, 300, 100, 40000);
		EXPECT(t.won == 100, "30 us, a park 40 us (over %d): %d won of 100", over, t.won);
		a = (struct fl_adapt)FL_ADAPT_INIT;
		t = run_cap(&a, 30000, over, 300, 100, 20000);
		EXPECT(t.won == 0 && t.park >= 95, "30 us, a park 20 us (over %d): %d won, %d parked",
		       over, t.won, t.park);
	}

	/* a yielder's spin before its first yield: kept while at least a
	 * quarter of such spins take a token, dropped after a run of losses
	 * (a barrier's waiters: the token needs their CPU), taken up again by
	 * a run of wins (the probes' spins, at a producer/consumer point) */
	a = (struct fl_adapt)FL_ADAPT_INIT;
	EXPECT(fl_adapt_spin_first(&a), "spin first: not at the start");
	int n;
	for (n = 0; n < 64 && fl_adapt_spin_first(&a); n++)
		fl_adapt_learn_spin(&a, false);
	EXPECT(n >= 3 && n <= 8, "spin first: dropped after %d losses", n);
	for (n = 0; n < 64 && !fl_adapt_spin_first(&a); n++)
		fl_adapt_learn_spin(&a, true);
	EXPECT(n >= 1 && n <= 3, "spin first: taken up after %d wins", n);
	for (int i = 0; i < 64; i++) /* one win in three: worth it */
		fl_adapt_learn_spin(&a, i % 3 == 0);
	EXPECT(fl_adapt_spin_first(&a) && a.spin_wins <= 31, "spin first: one win in 3, %u/31",
	       a.spin_wins);
	for (int i = 0; i < 64; i++) /* one in ten: not */
		fl_adapt_learn_spin(&a, i % 10 == 0);
	EXPECT(!fl_adapt_spin_first(&a), "spin first: one win in 10, %u/31", a.spin_wins);

	/* the window stays within its bounds whatever it is told */
	a = (struct fl_adapt)FL_ADAPT_INIT;
	run(&a, 10000000, false, 3, 0);
	struct fl_adapt_plan probe = { FL_ADAPT_SPIN, CAP, true };
	fl_adapt_learn(&a, &probe, true, 1000000000ull, CAP);
	EXPECT(a.window_ns == CAP, "won after 1 s: window %u", a.window_ns);
	fl_adapt_learn(&a, &probe, true, 1, CAP);
	EXPECT(a.window_ns == FL_ADAPT_MIN_NS, "won after 1 ns: window %u", a.window_ns);
}

/* fl_wait / fl_timedwait on negcount under every policy: a token is taken
 * once, an empty semaphore times out at a past deadline (ETIMEDOUT, the
 * design's answer) and rejects a bad one (EINVAL), and a policy never
 * leaves a token taken that it did not return. */
static void test_waits(const char *text)
{
	struct fl_policy p;
	char err[160];
	EXPECT(fl_policy_parse(text, &p, err, sizeof err) == 0, "%s", err);
	fl_policy_set(&p);
	const struct fl_variant *v = &fl_variant_negcount;
	_Alignas(16) unsigned char s[FL_STATE_MAX];
	EXPECT(v->init(s, 2, 0) == 0, "%s: init", text);
	EXPECT(fl_wait(v, s) == 0 && fl_wait(v, s) == 0, "%s: two tokens", text);
	struct timespec past = fl_deadline_after_ns(-1000), bad = { 0, FL_NSEC_PER_SEC };
	EXPECT(fl_timedwait(v, s, &past) == ETIMEDOUT, "%s: empty, past deadline", text);
	struct timespec soon = fl_deadline_after_ns(200000);
	EXPECT(fl_timedwait(v, s, &soon) == ETIMEDOUT, "%s: empty, 200 us", text);
	EXPECT(fl_timedwait(v, s, &bad) == EINVAL, "%s: tv_nsec 1e9", text);
	EXPECT(v->getvalue(s) == 0, "%s: value %d after the failed waits", text, v->getvalue(s));
	v->post(s, 1);
	EXPECT(fl_timedwait(v, s, &past) == 0, "%s: a token is taken past the deadline", text);
	EXPECT(v->getvalue(s) == 0, "%s: value %d", text, v->getvalue(s));
	if (p.kind == FL_POLICY_ADAPTIVE) {
		/* waits that all time out close the window (each a loss); a new
		 * rep forgets it: every semaphore starts from the first window */
		for (int i = 0; i < 8; i++) {
			struct timespec d = fl_deadline_after_ns(100000);
			fl_timedwait(v, s, &d);
		}
		uint32_t closed = fl_adapt_window_of(s);
		fl_policy_forget();
		struct fl_adapt init = FL_ADAPT_INIT;
		EXPECT(closed == 0 && fl_adapt_window_of(s) == init.window_ns,
		       "adaptive: window %u after 8 timeouts, %u forgotten", closed,
		       fl_adapt_window_of(s));
	}
	v->destroy(s);
	EXPECT(!fl_policy_applies(&fl_variant_glibc) && fl_policy_applies(v),
	       "glibc keeps its own policy, negcount takes the process's");
}

/* The machine's load (policy.c, point 4) is read at most every
 * FL_ADAPT_LOAD_NS; a new rep (fl_policy_forget) reads it afresh: the
 * sample before it described the threads of another rep (a T=1 point's,
 * read by an oversubscribed point's first 4 ms as "not oversubscribed"). */
static void test_load_forgotten(void)
{
	if (getenv("FUTEXLAB_POLICY_LOAD"))
		return; /* forced: never read */
	fl_policy_forget();
	uint64_t n0 = fl_adapt_load_reads();
	int64_t t0 = fl_now_ns();
	fl_adapt_oversubscribed();
	fl_adapt_oversubscribed();
	uint64_t n1 = fl_adapt_load_reads();
	fl_policy_forget();
	fl_adapt_oversubscribed();
	uint64_t n2 = fl_adapt_load_reads();
	bool within = fl_now_ns() - t0 < FL_ADAPT_LOAD_NS;
	EXPECT(n1 > n0, "load: not read after a forget");
	EXPECT(!within || n1 == n0 + 1, "load: read %llu times within 4 ms",
	       (unsigned long long)(n1 - n0));
	EXPECT(n2 == n1 + 1, "load: the sample from before a forget kept (%llu reads after it)",
	       (unsigned long long)(n2 - n1));
}

/* The calibration (policy.c, point 1): every cost measured (none left at
 * its bootstrap value: a handoff is two context switches, never 0), a
 * pause under a yield's syscall. Nothing tighter: under load (CI runs
 * the suites two at a time) a yield may take longer than a handoff, and a
 * round trip's CPU is bounded by its time, not by twice the median
 * handoff. */
static void test_calibrate(void)
{
	EXPECT(fl_adapt_calibrate() == 0, "calibrate: no partner thread");
	struct fl_adapt_costs c = fl_adapt_costs();
	printf("calibrated: clock %u ns, pause %u ns, yield %u ns, handoff %u ns (%u ns of CPU)\n",
	       c.clock_ns, c.pause_ns, c.yield_ns, c.park_ns, c.park_cpu_ns);
	EXPECT(c.calibrated, "calibrate: not marked calibrated");
	EXPECT(c.pause_ns > 0 && c.clock_ns > 0 && c.yield_ns > c.pause_ns,
	       "calibrate: pause %u, clock %u, yield %u", c.pause_ns, c.clock_ns, c.yield_ns);
	EXPECT(c.park_ns > 0 && c.park_ns != FL_ADAPT_PARK_BOOT_NS && c.park_cpu_ns > 0,
	       "calibrate: handoff %u ns, %u ns of CPU", c.park_ns, c.park_cpu_ns);
	/* the spin handoff (point 6): measured only when the process may
	 * use another CPU, and kept only under a futex handoff (else 0: the
	 * two threads did not run at once); the polls derived from it */
	printf("spin handoff round trip %u ns: polls %u pauses apart, the first %u pauses clock-free\n",
	       c.spin_rt_ns, c.polls.gap, c.polls.quick);
	cpu_set_t cpus;
	bool more = sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 1;
	EXPECT(more ? c.spin_rt_ns <= c.park_ns : c.spin_rt_ns == 0,
	       "calibrate: spin round trip %u ns, handoff %u ns (more than one CPU: %d)",
	       c.spin_rt_ns, c.park_ns, more);
	/* what the spinner uses is the rule's answer (fl_adapt_polls, below)
	 * for what was measured: its gap, its clock-free tries a gap apart */
	struct fl_adapt_polls q = fl_adapt_polls(c.spin_rt_ns, c.pause_ns);
	EXPECT(c.polls.gap == q.gap && c.polls.quick == q.quick / q.gap * q.gap,
	       "calibrate: polls in use %u/%u, the rule's %u/%u", c.polls.gap, c.polls.quick, q.gap,
	       q.quick);
}

/* How a spinner polls (point 6), as a pure function of the round trip
 * and the pause: the VM's figures (450 ns, 19 ns: 3 pauses apart, 47
 * clock-free), the rounding, and the clamps both ways. */
static void test_polls(void)
{
	static const struct {
		uint32_t rt, pause, gap, quick;
	} c[] = {
		{ 450, 19, 3, 47 },      /* 56 ns is 2.96 pauses */
		{ 450, 20, 3, 45 },      /* 2.8 */
		{ 300, 20, 2, 30 },      /* 1.9: rounded, not truncated */
		{ 100, 19, 1, FL_ADAPT_QUICK },  /* 0.66 -> 1; 10 -> the floor */
		{ 0, 19, 1, FL_ADAPT_QUICK },    /* one CPU: not measured */
		{ 450, 0, 1, FL_ADAPT_QUICK },   /* no pause measured */
		{ 100000, 19, FL_ADAPT_GAP_MAX, FL_ADAPT_QUICK_MAX }, /* the caps */
		{ 450, 300, 1, FL_ADAPT_QUICK }, /* a pause the VM stretched: a gap of 0.2 */
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct fl_adapt_polls q = fl_adapt_polls(c[i].rt, c[i].pause);
		EXPECT(q.gap == c[i].gap && q.quick == c[i].quick,
		       "polls(%u, %u): gap %u quick %u, want %u %u", c[i].rt, c[i].pause, q.gap,
		       q.quick, c[i].gap, c[i].quick);
	}
}

int main(void)
{
	test_calibrate();
	test_load_forgotten();
	test_polls();
	test_text();
	test_adaptive();
	static const char *const all[] = { "park", "spin:100", "spin-yield:4", "adaptive" };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		test_waits(all[i]);
	printf("%s\n", failures ? "FAIL" : "ok");
	return failures ? 1 : 0;
}
