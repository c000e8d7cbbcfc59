/* tests/policy_env.h — the waiting policy a test process runs under.
 *
 * Every shared suite (conformance, edge, torture, exclusion, waitany) waits
 * through fl_wait / fl_timedwait (variants/policy.h), so one binary proves
 * the designs' promises under any policy: meson registers it once per
 * policy with FUTEXLAB_POLICY set (tests/README.md, "Policies").
 * test_policy_setup() reads FUTEXLAB_POLICY (unset or empty: park), sets it
 * for the process before any thread starts and prints "# policy P". A value
 * fl_policy_parse refuses, or a policy other than park for a design that
 * keeps its own (.own_policy: the harness and the shim refuse it too), fails
 * the test: one line on stderr, exit 1, before any case runs (a registration
 * that meant a policy must not quietly test park). */
#ifndef FUTEXLAB_TESTS_POLICY_ENV_H
#define FUTEXLAB_TESTS_POLICY_ENV_H

#include <stdio.h>
#include <stdlib.h>

#include "variants/policy.h"

/* FUTEXLAB_POLICY parsed (park when unset or empty); exits 1 on a bad one. */
static inline struct fl_policy test_policy_env(const char *prog)
{
	struct fl_policy p = FL_POLICY_PARK_INIT;
	const char *text = getenv("FUTEXLAB_POLICY");
	char err[160];
	if (text && *text && fl_policy_parse(text, &p, err, sizeof err)) {
		fprintf(stderr, "FAIL %s: FUTEXLAB_POLICY: %s\n", prog, err);
		exit(1);
	}
	return p;
}

/* The process's policy from FUTEXLAB_POLICY, checked against design v, set
 * and printed. */
static inline struct fl_policy test_policy_setup(const char *prog, const struct fl_variant *v)
{
	struct fl_policy p = test_policy_env(prog);
	char buf[FL_POLICY_TEXT_MAX];
	fl_policy_format(&p, buf, sizeof buf);
	if (p.kind != FL_POLICY_PARK && !fl_policy_applies(v)) {
		fprintf(stderr, "FAIL %s: FUTEXLAB_POLICY=%s: %s keeps its own waiting policy (%s)\n",
			prog, buf, v->name, v->own_policy);
		exit(1);
	}
	fl_policy_set(&p);
	printf("# policy %s\n", buf);
	fflush(stdout);
	return p;
}

#endif
