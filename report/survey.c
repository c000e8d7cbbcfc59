/* report/survey.c — see survey.h. */
#include "report/survey.h"

static const char *const col[FL_SV_N] = { "inits", "named", "wait", "trywait", "timedwait",
					  "clockwait", "post", "blocked", "timeouts" };
static const int width[FL_SV_N] = { 6, 6, 9, 9, 9, 9, 9, 9, 8 };

void fl_survey_print(FILE *f, const struct fl_survey *s)
{
	if (s->design[0])
		fprintf(f, "survey: %s ran in %.3f s on %s: design %s, waiting policy %s, the shim "
			"counting\n", s->program, s->seconds, s->label, s->design, s->policy);
	else
		fprintf(f, "survey: %s ran in %.3f s on glibc's semaphores, the shim counting\n",
			s->program, s->seconds);
	fprintf(f, "  %-8s %-16s", "pid", "comm");
	for (int k = 0; k < FL_SV_N; k++)
		fprintf(f, " %*s", width[k], col[k]);
	fprintf(f, "%s\n", s->design[0] ? "  on" : ""); /* a design's survey: what each process ran on */
	for (int i = 0; i < s->n && i < FL_SURVEY_PROCS; i++) {
		const struct fl_survey_proc *x = &s->p[i];
		fprintf(f, "  %-8d %-16s", x->pid, x->comm);
		for (int k = 0; k < FL_SV_N; k++)
			if (k == FL_SV_BLOCKED && !x->blocked_known)
				fprintf(f, " %*s", width[k], "-");
			else
				fprintf(f, " %*llu", width[k], x->n[k]);
		fprintf(f, "%s%s\n", s->design[0] ? "  " : "", s->design[0] ? x->on : "");
	}
	if (s->n > FL_SURVEY_PROCS)
		fprintf(f, "  (%d more processes)\n", s->n - FL_SURVEY_PROCS);
	if (!s->n) {
		fprintf(f, "no process reported: %s did not load the shim (a static binary, a setuid "
			"one, or every process left by _exit or a signal)\n", s->program);
		return;
	}
	const char *es = s->n == 1 ? "" : "es";
	if (s->design[0]) {
		fprintf(f, "total: %llu semaphores initialised (+%llu named opens), %llu on %s, %llu "
			"handed to glibc; %llu waits, %llu posts, in %d process%s\n", s->inits,
			s->named, s->ours, s->label, s->handed, s->waits, s->posts, s->n, es);
		if (!s->inits && !s->named)
			fprintf(f, "verdict: no POSIX semaphore: every design will run this program "
				"alike\n");
		else
			fprintf(f, "verdict: %llu waits on %s; whether they blocked is counted on "
				"glibc's semaphores only (a design's wait has no first attempt to count): "
				"--survey without --variant\n", s->waits, s->label);
		return;
	}
	fprintf(f, "total: %llu semaphores initialised (+%llu named opens), %llu waits of which %llu "
		"blocked, %llu posts, in %d process%s\n", s->inits, s->named, s->waits, s->blocked,
		s->posts, s->n, es);
	if (!s->inits && !s->named)
		fprintf(f, "verdict: no POSIX semaphore: every design will run this program alike\n");
	else if (!s->blocked)
		fprintf(f, "verdict: semaphores used, but no wait blocked: designs differ only in their "
			"fast paths here\n");
	else
		fprintf(f, "verdict: %llu blocking waits: the designs' sleep/wake paths are exercised "
			"(futexlab exec --variant ... -- CMD compares them)\n", s->blocked);
}
