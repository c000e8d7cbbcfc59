/* tests/test_stranded.c — the stranded-waiter detector (stranded/stranded.c)
 * proven on a design that loses one wakeup.
 *
 * The design: glibc64's mutant mut_glibc64_drop_wake (tests/mutants/
 * mut_glibc64_drop_wake.mut, made from variants/glibc64.c at build time and
 * linked here, without the race windows): while fl_mut_drop_wakes > 0, a
 * post that owes a wake publishes its token and skips the FUTEX_WAKE. Each rep arms it once. The
 * drop can be harmless — the waiter had registered but not yet entered the
 * kernel: its FUTEX_WAIT then finds the word changed and it takes the token
 * itself — so a rep may legitimately report nothing; the tests run reps
 * until one strands (a few at most: the partner is almost always asleep).
 *
 *   test_stranded detect   per workload where nothing else would wake the
 *                          sleeper (pingpong, barrier, wake): a stranding
 *                          rep is reported — stranded >= 1, the error
 *                          "lost wakeup: semaphore #..", stranded_max_ns
 *                          >= the 50 ms threshold and < 10 s (a sanity
 *                          bound, printed with the load when missed; the
 *                          rescue worked: the rep finished) — and a rep that
 *                          reported nothing had no error; the same design
 *                          unarmed reports 0 (no false positive on it);
 *                          the detector off (stranded_ns 0) says -1; with
 *                          the rescue's signal ignored the watchdog's own
 *                          posts end the stranding (>= 2 thresholds).
 *   test_stranded kernel   (root, probes) the runner's kernel-side note
 *                          for the stranded thread: "kernel: tid T slept
 *                          in FUTEX_WAIT on 0x.. for X ms", X >= 40.
 *                          Exit 77 when the probes cannot load. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "tests/loadavg.h"
#include "probes/probes.h"
#include "stranded/stranded.h"
#include "workloads/workload.h"

/* the mutant's variant and its counter of wakes to drop */
extern const struct fl_variant fl_variant_mut_glibc64_drop_wake;
extern _Atomic int fl_mut_drop_wakes;

#define THRESHOLD_NS 50000000LL
/* "The rescue worked" is the rep finishing (a rescue that never comes hangs
 * it: the watchdog fails the test). The bound on how long the stranding
 * lasted is only a sanity bound, generous for a loaded two-CPU machine (the
 * watchdog thread itself may wait for a CPU): 200 thresholds. It was 1 s. */
#define STRANDED_MAX_NS 10000000000LL
#define MAX_REPS 20

static const struct fl_variant *const drop = &fl_variant_mut_glibc64_drop_wake;

/* One rep of workload w on the drop-wake design, bracketed like the runner
 * does (probes too when asked). */
static void rep(const char *w, int threads, int armed, int64_t stranded_ns, bool probes,
		struct fl_result *r)
{
	struct fl_params p = { .threads = threads, .tokens = 1, .sems = 1,
			       .duration_ns = 300000000, .stranded_ns = stranded_ns };
	memset(r, 0, sizeof *r);
	r->stranded = -1;
	atomic_store(&fl_mut_drop_wakes, armed);
	if (probes)
		fl_probes_stranded_clear();
	fl_stranded_rep_begin(&p);
	if (probes)
		fl_probes_rep_begin(0);
	fl_workload_find(w)->run(drop, &p, r);
	if (probes)
		fl_probes_rep_end(0, w, r->ops);
	fl_stranded_rep_end(r);
	free(r->lat);
	r->lat = NULL;
}

struct wl {
	const char *name;
	int threads;
};

static void detect_one(void *arg)
{
	const struct wl *w = arg;
	struct fl_result r;
	int reps = 0, hit = 0;
	while (reps < MAX_REPS && !hit) {
		rep(w->name, w->threads, 1, THRESHOLD_NS, false, &r);
		reps++;
		CHECK(atomic_load(&fl_mut_drop_wakes) == 0, "%s: the design never owed a wake",
		      w->name);
		if (r.stranded == 0) { /* the drop was harmless: nothing to report */
			CHECK(!r.error[0], "%s: error without a stranding: %s", w->name, r.error);
			continue;
		}
		hit = 1;
		CHECK(r.stranded >= 1, "%s: stranded %lld", w->name, (long long)r.stranded);
		CHECK(!strncmp(r.error, "lost wakeup: semaphore #", 24), "%s: error '%s'", w->name,
		      r.error);
		CHECK(r.stranded_max_ns >= THRESHOLD_NS, "%s: stranded_max_ns %lld < the threshold "
		      "%lld: reported before it was due", w->name, (long long)r.stranded_max_ns,
		      THRESHOLD_NS);
		CHECK(r.stranded_max_ns < STRANDED_MAX_NS, "%s: stranded for %.1f ms before the "
		      "rescue (bound %.0f ms; load: %s)", w->name, (double)r.stranded_max_ns / 1e6,
		      (double)STRANDED_MAX_NS / 1e6, fl_loadavg());
		CHECK(r.stranded_tid > 0, "%s: tid %d", w->name, r.stranded_tid);
		CHECK(strstr(r.stranded_note, "asleep in wait") != NULL, "%s: note '%s'", w->name,
		      r.stranded_note);
		printf("     %s: rep %d: stranded=%lld max=%.1f ms: %s\n", w->name, reps,
		       (long long)r.stranded, (double)r.stranded_max_ns / 1e6, r.error);
	}
	CHECK(hit, "%s: no stranding reported in %d reps, each dropping one wake", w->name,
	      MAX_REPS);
}

/* The same code unarmed: a correct design, nothing reported. */
static void control_one(void *arg)
{
	const struct wl *w = arg;
	for (int i = 0; i < 3; i++) {
		struct fl_result r;
		rep(w->name, w->threads, 0, THRESHOLD_NS, false, &r);
		CHECK(r.stranded == 0 && !r.error[0], "%s: stranded %lld, error '%s'", w->name,
		      (long long)r.stranded, r.error);
	}
}

static void off(void *arg)
{
	(void)arg;
	struct fl_result r;
	rep("pingpong", 2, 0, 0, false, &r);
	CHECK(r.stranded == -1 && !r.error[0], "detector off: stranded %lld (want -1), '%s'",
	      (long long)r.stranded, r.error);
}

/* A wait the rescue's signal cannot end (FL_NO_EINTR designs sleep where it
 * does not reach; here the signal is ignored, so it interrupts nothing):
 * the watchdog signals again a threshold later, and from the third attempt
 * posts a token itself, whose wake reaches the sleeper. The rep finishes;
 * the stranding lasted ~3 thresholds. Last: it leaves the signal ignored. */
static void rescue_by_post(void *arg)
{
	(void)arg;
	signal(FL_STRANDED_SIGNAL, SIG_IGN);
	struct fl_result r;
	int reps = 0;
	do
		rep("pingpong", 2, 1, THRESHOLD_NS, false, &r);
	while (r.stranded == 0 && ++reps < MAX_REPS);
	CHECK(r.stranded >= 1 && !strncmp(r.error, "lost wakeup: ", 13), "stranded %lld, '%s'",
	      (long long)r.stranded, r.error);
	CHECK(r.stranded_max_ns >= 2 * THRESHOLD_NS,
	      "stranded_max_ns %lld (want >= 2 thresholds: the signal did nothing)",
	      (long long)r.stranded_max_ns);
	CHECK(r.stranded_max_ns < STRANDED_MAX_NS, "stranded for %.1f ms before the post "
	      "rescued it (bound %.0f ms; load: %s)", (double)r.stranded_max_ns / 1e6,
	      (double)STRANDED_MAX_NS / 1e6, fl_loadavg());
	printf("     rescued by a post after %.1f ms\n", (double)r.stranded_max_ns / 1e6);
}

static void kernel(void *arg)
{
	(void)arg;
	struct fl_result r;
	int reps = 0;
	do
		rep("pingpong", 2, 1, THRESHOLD_NS, true, &r);
	while (r.stranded == 0 && ++reps < MAX_REPS);
	CHECK(r.stranded >= 1, "no stranding in %d reps", reps);
	if (r.stranded < 1)
		return;
	char note[200], want[80];
	fl_probes_stranded_note(r.stranded_tid, true, note, sizeof note);
	snprintf(want, sizeof want, "kernel: tid %d slept in FUTEX_WAIT on 0x", r.stranded_tid);
	CHECK(!strncmp(note, want, strlen(want)), "note '%s', want '%s...'", note, want);
	const char *f = strstr(note, " for ");
	double ms = f ? atof(f + 5) : 0;
	CHECK(ms >= 40, "slept %.1f ms, under the 50 ms threshold ('%s')", ms, note);
	CHECK(ms < STRANDED_MAX_NS / 1e6, "slept %.1f ms (bound %.0f ms; load: %s) ('%s')", ms,
	      (double)STRANDED_MAX_NS / 1e6, fl_loadavg(), note);
	printf("     %s; %s\n", r.error, note);
	/* Without a snapshot for that thread the note says why. */
	fl_probes_stranded_clear();
	fl_probes_stranded_note(r.stranded_tid, true, note, sizeof note);
	CHECK(strstr(note, "kernel side") != NULL, "after clear: '%s'", note);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = argc > 1 ? argv[1] : "detect";
	if (!strcmp(mode, "detect")) {
		static const struct wl ws[] = { { "pingpong", 2 }, { "barrier", 3 }, { "wake", 4 } };
		for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++) {
			char name[64];
			snprintf(name, sizeof name, "detect %s T=%d", ws[i].name, ws[i].threads);
			run_test(name, detect_one, (void *)&ws[i], 60);
			snprintf(name, sizeof name, "control %s T=%d", ws[i].name, ws[i].threads);
			run_test(name, control_one, (void *)&ws[i], 60);
		}
		run_test("detector off", off, NULL, 30);
		run_test("rescue by post (signal ignored)", rescue_by_post, NULL, 60);
		return tests_done("stranded detect");
	}
	if (!strcmp(mode, "kernel")) {
		if (geteuid() != 0) {
			printf("SKIP kernel note: the probes need root\n");
			return 77;
		}
		fl_probes_setup(FL_PROBES_ON);
		if (isnan(fl_probes_overhead_ns())) {
			printf("SKIP kernel note: the probes cannot load here\n");
			return 77;
		}
		run_test("kernel note", kernel, NULL, 120);
		fl_probes_teardown();
		return tests_done("stranded kernel");
	}
	fprintf(stderr, "usage: test_stranded detect|kernel\n");
	return 2;
}
