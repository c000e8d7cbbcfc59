/* tests/value.h — a semaphore's value for a test, also on a design that has
 * no getvalue (FL_NO_GETVALUE: variants/variant.h, e.g. the C++ standard's
 * semaphores): there it is counted by draining with trywait and posting the
 * tokens back in one post(n). That is exact only where no other thread acts
 * on s (every caller's situation: single-threaded checks, or after the
 * workers joined, or with every other thread asleep in a wait — a post back
 * into sleepers would wake them, which the checks that read 0 there never
 * do unless the design is already wrong). Draining stops at `cap` tokens:
 * past it the value is reported as cap (the callers' values are small). */
#ifndef FUTEXLAB_TESTS_VALUE_H
#define FUTEXLAB_TESTS_VALUE_H

#include "variants/variant.h"

#define FL_TEST_DRAIN_CAP 1000000

static inline int fl_test_value(const struct fl_variant *v, void *s)
{
	if (v->getvalue)
		return v->getvalue(s);
	int n = 0;
	while (n < FL_TEST_DRAIN_CAP && v->trywait(s) == 0)
		n++;
	if (n > 0 && v->post(s, (unsigned)n) != 0)
		return -1; /* cannot happen below value_max: the check reading it fails */
	return n;
}

/* For a failure message while other threads may still be inside the
 * semaphore: getvalue, or -1 when the design has none (no draining). */
static inline int fl_test_peek(const struct fl_variant *v, void *s)
{
	return v->getvalue ? v->getvalue(s) : -1;
}

#endif
