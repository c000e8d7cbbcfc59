/* tests/check.h — the smallest test framework that can fail loudly.
 *
 * CHECK records a failure with file:line and the message and goes on, so
 * one run reports every broken property. fl_watchdog() arms an alarm that
 * ends a hung test with the name of the test and a dump instead of hanging
 * CI. tests_done() prints the closing "N passed, N failed" line. */
#ifndef FUTEXLAB_CHECK_H
#define FUTEXLAB_CHECK_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int checks_failed, tests_passed, tests_failed, test_failed_now;
static int tests_skipped, test_skipped_now;
static char test_skip_why[256];
static const char *current_test = "?";
static void (*watchdog_dump)(void);

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "  FAIL %s:%d [%s] %s: ", __FILE__,     \
				__LINE__, current_test, #cond);                 \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			checks_failed++;                                        \
			test_failed_now = 1;                                    \
		}                                                              \
	} while (0)

/* The current test cannot run its check here: say why (printf-style). The
 * caller returns from the test; a CHECK that failed before still fails it. */
#define SKIP_TEST(...)                                                         \
	do {                                                                   \
		snprintf(test_skip_why, sizeof test_skip_why, __VA_ARGS__);    \
		test_skipped_now = 1;                                          \
	} while (0)

static void watchdog_fired(int sig)
{
	(void)sig;
	static const char msg[] = "  FAIL watchdog: test hung: ";
	if (write(2, msg, sizeof msg - 1) < 0 ||
	    write(2, current_test, strlen(current_test)) < 0 || write(2, "\n", 1) < 0)
		_exit(3);
	if (watchdog_dump)
		watchdog_dump();
	_exit(3);
}

/* Runs one test with a watchdog of `seconds`. */
static inline void run_test(const char *name, void (*fn)(void *), void *arg, unsigned seconds)
{
	current_test = name;
	test_failed_now = 0;
	test_skipped_now = 0;
	signal(SIGALRM, watchdog_fired);
	alarm(seconds);
	fn(arg);
	alarm(0);
	if (test_failed_now) {
		tests_failed++;
		printf("FAIL %s\n", name);
	} else if (test_skipped_now) {
		tests_skipped++;
		printf("SKIP %s: %s\n", name, test_skip_why);
	} else {
		tests_passed++;
		printf("ok   %s\n", name);
	}
	fflush(stdout);
}

static inline int tests_done(const char *what)
{
	printf("%s: %d passed, %d failed, %d skipped\n", what, tests_passed, tests_failed,
	       tests_skipped);
	if (tests_failed)
		return 1;
	return tests_passed == 0 && tests_skipped > 0 ? 77 : 0;
}

#endif
