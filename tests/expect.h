/* tests/expect.h — the check of the single-threaded unit tests that need no
 * watchdog (tests/check.h is the one for tests with threads): EXPECT(c,
 * fmt, ...) prints the failed condition with its file and line and the
 * message, counts it in `failures`, and goes on; main returns
 * failures ? 1 : 0. */
#ifndef FUTEXLAB_TESTS_EXPECT_H
#define FUTEXLAB_TESTS_EXPECT_H

#include <stdio.h>

static int failures;

#define EXPECT(c, ...)                                                   \
	do {                                                             \
		if (!(c)) {                                              \
			failures++;                                      \
			printf("FAIL %s:%d %s: ", __FILE__, __LINE__, #c); \
			printf(__VA_ARGS__);                             \
			printf("\n");                                    \
		}                                                        \
	} while (0)

#endif
