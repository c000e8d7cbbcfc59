/* runner/progress.c — what the run says on stderr as it goes (run.h): a
 * point's key and the progress lines. It reads the run's state and
 * calls none of the other parts. */
#include "runner/run.h"

#include <stdio.h>

#include "lib/clock.h"
#include "record/run_row.h"
#include "runner/hashmode.h"

const char *fl_run_point_key(const struct fl_point *pt, char *out, size_t n)
{
	return fl_run_row_key(pt, fl_hash_column(), out, n);
}

/* Progress on stderr (not with --quiet). On a terminal one line, rewritten
 * in place before each point's round. Anywhere else (a CI job's log, a
 * file) a rewritten line is noise, and none at all leaves a log silent for
 * the whole run: a line of its own after a point's round, the first one at
 * once (how long the run will take) and then at most one every LOG_GAP_S
 * seconds or every LOG_SHARE of the estimated time, whichever is longer
 * (a log of at most about a hundred lines however long the run). */
#define LOG_GAP_S 5.0
#define LOG_SHARE 0.01

static void fmt_time(char *out, size_t n, double s)
{
	if (s < 60)
		snprintf(out, n, "%.0fs", s < 0 ? 0 : s);
	else
		snprintf(out, n, "%d:%02d", (int)s / 60, (int)s % 60);
}

void fl_progress_show(const struct fl_run *r, int pi, int round)
{
	const struct fl_progress *g = &r->g;
	const struct fl_point *pt = &r->pts[pi];
	if (!g->on || !g->tty)
		return;
	double el = (double)(fl_now_ns() - g->t0) / 1e9;
	char a[16], b[16];
	fmt_time(a, sizeof a, el);
	fmt_time(b, sizeof b, g->done > 0 ? el * (g->total - g->done) / g->done : g->total);
	char label[FL_RUN_KEY_LEN];
	fprintf(stderr, "\r\033[K[%d/%d] %3.0f%% elapsed %s, ~%s left  %s", g->point, g->npoints,
		100 * g->done / g->total, a, b, fl_run_point_key(pt, label, sizeof label));
	fprintf(stderr, round < 0 ? "  warm-up" : "  round %d/%d", round + 1, r->s->rounds);
}

/* After a point's round, off a terminal: its line when one is due, e.g.
 * "futexlab: progress: 34% after 25s, about 48s left (round 4/5, point
 * 3/8 done: pool T=4 K=1 wake=exact hash=auto)", the point as the
 * tables spell it. */
void fl_progress_log(struct fl_run *r, int pi)
{
	struct fl_progress *g = &r->g;
	if (!g->on || g->tty)
		return;
	int64_t now = fl_now_ns();
	double gap = LOG_SHARE * g->total > LOG_GAP_S ? LOG_SHARE * g->total : LOG_GAP_S;
	if (g->logged && (double)(now - g->logged) / 1e9 < gap)
		return;
	g->logged = now;
	double el = (double)(now - g->t0) / 1e9, share = g->total > 0 ? g->done / g->total : 1;
	char a[16], b[16], label[FL_RUN_KEY_LEN];
	fmt_time(a, sizeof a, el);
	fmt_time(b, sizeof b, g->done > 0 ? el * (g->total - g->done) / g->done : g->total);
	fprintf(stderr, "futexlab: progress: %.0f%% after %s, about %s left (%s, point %d/%d "
		"done: %s)\n", 100 * (share > 1 ? 1 : share), a, b, g->stage, g->point, g->npoints,
		fl_run_point_key(&r->pts[pi], label, sizeof label));
}
