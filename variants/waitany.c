/* variants/waitany.c — the generic wait-any loop; the argument is in
 * waitany.h. Independent of the harness: a library call over the variant
 * interface. */
#include "variants/waitany.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/clock.h"
#include "variants/policy.h"

const char *fl_wait_any_unsupported(const struct fl_variant *v)
{
	const char *why = v->unavailable ? v->unavailable() : NULL;
	if (why)
		return why;
	if (!v->any)
		return "no wait-any support in this design";
	return v->any->unavailable ? v->any->unavailable() : NULL;
}

/* A disarm that had to take a second token moves it back. Cannot overflow
 * for a design below its value_max; if it ever did, a token would be lost,
 * which is a bug to stop at, not a result. */
static void give_back(const struct fl_variant *v, void *s)
{
	int e = v->post(s, 1);
	if (e) {
		fprintf(stderr, "futexlab: wait-any could not give back a token (%d)\n", e);
		abort();
	}
}

static int poll_all(const struct fl_any_ops *ops, void *const sems[], int n, int start)
{
	for (int k = 0; k < n; k++) {
		int i = (start + k) % n;
		if (ops->poll(sems[i]))
			return i;
	}
	return -1;
}

int fl_wait_any(const struct fl_variant *v, void *const sems[], int n,
		const struct timespec *dl)
{
	const struct fl_any_ops *ops = v->any;
	if (!ops)
		return -ENOTSUP;
	if (n < 1 || n > FL_WAITANY_MAX)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		if (v->trywait(sems[i]) == 0)
			return i;
	if (dl && !fl_ts_valid(dl))
		return -EINVAL;

	struct fl_waitv w[FL_WAITANY_MAX];
	int armed, got = -1, why = 0;
	for (armed = 0; armed < n; armed++)
		if (ops->arm(sems[armed], &w[armed])) {
			got = armed; /* took a token; not registered there */
			break;
		}
	/* Registered on sems[0..armed) minus `got` from here on. */
	int start = 0;
	while (got < 0) {
		got = poll_all(ops, sems, n, start);
		if (got >= 0 || why)
			break; /* a token; or the last pass after the deadline/signal */
		int r = ops->waitv(w, n, dl);
		if (r >= 0)
			start = r; /* look first where the wake came from */
		else if (r == -ETIMEDOUT || r == -EINTR || r == -EINVAL)
			why = -r;
		/* -EAGAIN or a (possibly spurious) wake: poll again. */
	}
	for (int i = 0; i < armed; i++) {
		if (i == got)
			continue;
		if (ops->disarm(sems[i])) {
			if (got < 0)
				got = i;
			else
				give_back(v, sems[i]);
		}
	}
	if (armed > 0) /* registered somewhere: may have absorbed wakes */
		for (int i = 0; i < n; i++)
			ops->pass_on(sems[i]);
	return got >= 0 ? got : -why;
}

/* ---- under the process's waiting policy (waitany.h) ---------------------- */

static int park_any(struct fl_policy_target *t, const struct timespec *dl)
{
	int r = fl_wait_any(t->v, t->sems, t->n, dl);
	if (r < 0)
		return -r;
	t->got = r;
	return 0;
}

int fl_policy_wait_any(const struct fl_variant *v, void *const sems[], int n,
		       const struct timespec *dl)
{
	/* park, a shipped library, or what fl_wait_any must refuse itself */
	if (fl_policy_get().kind == FL_POLICY_PARK || !fl_policy_applies(v) || !v->any || n < 1 ||
	    n > FL_WAITANY_MAX || (dl && !fl_ts_valid(dl)))
		return fl_wait_any(v, sems, n, dl);
	struct fl_policy_target t = { v, sems, n, n - 1, park_any };
	int r = fl_policy_wait_target(&t, dl);
	return r ? -r : t.got;
}
