/* tests/test_futex.c — the futex wrappers keep the kernel's contract: the
 * contract's cases every wait-on-address backend runs (waitaddr_cases.h:
 * errno-valued results, absolute deadlines, exact wake counts, the wake
 * strategies, a wake with nobody waiting is not remembered, EINTR) on
 * fl_wa_futex, and the wake strategies' names. */
#include "tests/check.h"
#include "lib/futex.h"
#include "lib/wake.h"
#include "tests/waitaddr_cases.h"

static void t_parse(void *arg)
{
	(void)arg;
	CHECK(fl_wake_parse("exact") == FL_WAKE_EXACT && fl_wake_parse("one") == FL_WAKE_ONE &&
	      fl_wake_parse("all") == FL_WAKE_ALL && fl_wake_parse("some") == -1, "parse");
}

int main(void)
{
	WA = &fl_wa_futex; /* the contract's cases, as every backend's test runs them */
	run_waitaddr_cases(WA_EINTR | WA_SHARED | WA_FUTEX_QUEUE);
	run_test("wake_strategy_names", t_parse, NULL, 5);
	return tests_done("futex");
}
