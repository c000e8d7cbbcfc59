/* tests/expect.h — the check of the single-threaded unit tests that need no
 * watchdog (tests/check.h is the one for tests with threads): EXPECT(c,
 * fmt, ...) prints the failed condition with its file and line and the
 * message, counts it in `failures`, and goes on; main returns
 * failures ? 1 : 0. CHECK_EQ(what, got, want) compares two counts and
 * prints either way ("ok   what: N" or "FAIL what: N, expected M"): the
 * tests that report every count they read (the probes'). */
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

#define CHECK_EQ(what, got, want)                                                          \
	do {                                                                               \
		unsigned long long g_ = (got), w_ = (want);                                \
		if (g_ != w_) {                                                            \
			printf("FAIL %s: %llu, expected %llu\n", what, g_, w_);            \
			failures++;                                                        \
		} else {                                                                   \
			printf("ok   %s: %llu\n", what, g_);                               \
		}                                                                          \
	} while (0)

#endif
