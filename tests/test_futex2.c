/* tests/test_futex2.c — the futex2 wrappers (lib/futex2.h) keep the futex
 * contract, and futex2 wakes reach futex(2) waiters and back (same queue). */
#include "lib/futex2.h"
#include "tests/waitaddr_cases.h"

int main(void)
{
	const char *why = fl_futex2_unavailable();
	if (why) {
		printf("SKIP futex2: %s\n", why);
		return 77;
	}
	WA = &fl_wa_futex2;
	run_waitaddr_cases(WA_EINTR | WA_SHARED | WA_FUTEX_QUEUE);
	return tests_done("futex2");
}
